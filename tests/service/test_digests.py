"""The daily digest (issue 42, section 2; docs/commands.md, "Your daily digest"): a player in
many games says ``SET DIGEST DAILY 08:00`` and gets the mail that can wait (results, press,
announcements, the results of games he observes) as one mail a day at that time of his own
zone, game by game, each picture once; what cannot wait still comes at once (his turn in a
game played in turns, a deadline less than 24 hours away with his orders missing, a code to
confirm, every answer to his own mails). Played by mail through the service: mails in, mails
out; the digests are queued as ``adjudicate serve`` queues them (``send_due_digests``)."""

from __future__ import annotations

import re
from email.message import EmailMessage
from itertools import count
from typing import Any

import pytest
from answering import new_message_id, note_of
from playing import client_reply as reply_to
from playing import (
    clock_of,
    close_open_round,
    new_game,
    plain,
    plain_mail,
    player_mail,
    queued,
)
from sqlmodel import Session, select
from test_stand_in_seats import _a_legal_move

from adjudicator.base.security import address_code
from adjudicator.notify import digest
from adjudicator.service import gm_news
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.digests import send_due_digests
from adjudicator.service.games import Credentials, find_game
from adjudicator.service.rounds import open_round_of
from adjudicator.storage import queries
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import HeldNotice, SubmissionStatus

ANN = "ann@example.org"
GM = "gm@example.org"
_numbers = count()
# The fixture clock starts on Monday 2 March 2026, 12:00 UTC; every game runs 72 h a round.
TUESDAY_8 = {"hours": 20}
WAITING = {"press", "announcement", "observed", "result"}
"""The kinds that can wait for Ann's digest (those of them she gets in these games)."""


def _global(app: App, body: str) -> SubmissionStatus | None:
    """A mail of Ann's to the service's own address, naming no game."""
    number = next(_numbers)
    raw = plain_mail(ANN, body, subject="my settings", message_id=f"<g{number}@example.org>")
    return app.ingest(raw, channel="pipe")


def _send(app: App, game: str, handle: str, body: str) -> SubmissionStatus | None:
    return app.ingest(player_mail(game, handle, body, number=next(_numbers)), channel="pipe")


def _to_ann(app: App) -> list[EmailMessage]:
    return [m for m in queued(app) if m["To"] == ANN]


def _kinds(mails: list[EmailMessage]) -> list[str]:
    return [str(m["X-Test-Kind"]) for m in mails]


def _flat(mail: EmailMessage) -> str:
    return " ".join(plain(mail).split())


def _digests(app: App, *, at: dict[str, float]) -> int:
    return send_due_digests(app.engine, ctx=app.ctx, now=clock_of(app).at(**at))


def _games(app: App) -> dict[str, dict[str, Credentials]]:
    """Ann plays two games of Giveaway (ga, gb: its game master is gm@) and a game of Three
    Musketeers against dan (gc: dan's Musketeers move first), and observes gd."""
    games = {
        "ga": new_game(app, ["ann", "bob", "cy"], name="ga"),
        "gb": new_game(app, ["ann", "dan", "eve"], name="gb", gm_address=GM),
        "gc": new_game(
            app, ["dan", "ann"], name="gc", kind="three-musketeers", settings={"reminders": []}
        ),
        "gd": new_game(app, ["bob", "cy", "dan"], name="gd"),
    }
    _global(app, "OBSERVE gd")
    asked = _to_ann(app)[-1]
    code = re.search(r"OBSERVE gd ([0-9A-F]{8})", plain(asked))
    assert code is not None
    _global(app, f"OBSERVE gd {code[1]}")
    return games


def _digest_on(app: App, games: dict[str, dict[str, Credentials]], at: str = "08:00") -> str:
    secret = games["ga"]["ann"].secret
    assert _global(app, f"PASSWORD {secret}\nSET DIGEST DAILY {at}") == SubmissionStatus.ACCEPTED
    return _flat(_to_ann(app)[-1])


def _announce(app: App, game: str, text: str) -> None:
    with session_scope(app.engine) as session:
        gm_news.announce(
            session,
            find_game(session, game),
            text,
            key=f"{game}:{text}",
            ctx=app.ctx,
            now=app.clock(),
        )


def _move(app: App, game: str, handle: str, secret: str | None) -> SubmissionStatus | None:
    move = "\n".join(_a_legal_move(app, game, handle))
    return _send(app, game, handle, f"PASSWORD {secret}\n{move}")


def _a_monday(app: App, games: dict[str, dict[str, Credentials]], before: int) -> None:
    """Press, an announcement, a round's result, an observed game's result; her turn in gc
    (at once), her own move (answered at once), and press from dan, whose turn it is then
    (that can wait); her orders in ga (confirmed at once), then ga's result (that waits)."""
    clock = clock_of(app)
    clock.advance(hours=1)
    bob = games["ga"]["bob"].secret
    assert _send(app, "ga", "bob", f"PASSWORD {bob}\nPRESS\nHello all\nENDPRESS") == (
        SubmissionStatus.ACCEPTED
    )
    assert [m["To"] for m in queued(app, "press")] == ["cy@example.org"]  # not Ann's, yet
    _announce(app, "gb", "The server moves tonight.")
    close_open_round(app, "gd")
    assert _move(app, "gc", "dan", games["gc"]["dan"].secret) == SubmissionStatus.ACCEPTED
    app.report()
    her_turn = _to_ann(app)[before:]
    assert _kinds(her_turn) == ["result"], _kinds(her_turn)
    assert "[gc]" in str(her_turn[0]["Subject"])
    assert _move(app, "gc", "ann", games["gc"]["ann"].secret) == SubmissionStatus.ACCEPTED
    app.report()
    dan = games["gc"]["dan"].secret
    _send(app, "gc", "dan", f"PASSWORD {dan}\nPRESS\nNice move, Cardinal.\nENDPRESS")
    ann_a = games["ga"]["ann"].secret
    assert _send(app, "ga", "ann", f"PASSWORD {ann_a}\nGIVE 3 TO bob") == (
        SubmissionStatus.ACCEPTED
    )
    close_open_round(app, "ga")


def test_a_player_in_three_games_gets_one_digest_a_day_and_what_is_urgent_at_once(
    app: App,
) -> None:
    games = _games(app)
    answer = _digest_on(app, games)
    assert "SET DIGEST DAILY 08:00: from now on the mail that can wait" in answer
    assert "the next at Tuesday 03 March 2026, 08:00 UTC" in answer
    assert "This holds in all your games (ga, gb, gc), and in those you join later" in answer
    before = len(_to_ann(app))

    _a_monday(app, games, before)
    monday = _to_ann(app)[before:]
    assert not set(_kinds(monday[1:])) & WAITING - {"result"}, _kinds(monday)
    assert [k for k in _kinds(monday) if k == "result"] == ["result"]  # her turn only
    assert "confirmation" in _kinds(monday)

    # Tuesday 07:59 nothing; at 08:00 one mail with everything held, game by game.
    assert _digests(app, at={"hours": 19, "minutes": 59}) == 0
    told = len(_to_ann(app))
    assert _digests(app, at=TUESDAY_8) == 1
    (mail,) = _to_ann(app)[told:]
    assert mail["X-Test-Kind"] == "digest"
    assert str(mail["Subject"]) == "[ga] [gb] [gc] [gd] Your daily digest: 6 mails from 4 games"
    text = _flat(mail)
    for heading in ("==== ga (Giveaway) ====", "==== gb (Giveaway) ====", "==== gd (Giveaway)"):
        assert heading in text
    assert "==== gc (Three Musketeers) ====" in text
    assert text.index("==== ga") < text.index("Hello all") < text.index("==== gb")
    assert text.index("==== gb") < text.index("The server moves tonight.") < text.index("==== gc")
    assert text.index("==== gc") < text.index("Nice move, Cardinal.") < text.index("==== gd")
    assert "== [ga] Round 1 result == round 1 of Giveaway game ga has been adjudicated" in text
    assert "== [gd] Round 1 result (you observe this game) ==" in text
    assert "== [gc] Round 2 result == ann (the Cardinal) moved" in text
    assert "held since Monday 02 March 2026, 13:00 UTC" in text
    # Each picture once (with the calendar entry of ga's next deadline), named by its game.
    attached = sorted(str(p.get_filename()) for p in mail.iter_attachments())
    assert attached == ["ga-gifts.png", "ga-round-2.ics", "gc-board.png", "gd-gifts.png"]
    assert "Attached for ga: ga-gifts.png, ga-round-2.ics." in text
    assert str(mail["Reply-To"]).count("judge+r") == 3  # her seat in ga, gb and gc

    # Once only: a second pass that day sends nothing, nor does a day with nothing held.
    assert _digests(app, at={"hours": 20, "minutes": 0, "seconds": 30}) == 0
    assert _digests(app, at={"hours": 44}) == 0
    with Session(app.engine) as session:
        held = session.exec(select(HeldNotice)).all()
        assert {row.digest_key for row in held} == {f"digest:{min(r.id for r in held)}"}


def test_a_near_deadline_with_her_orders_missing_brings_the_games_mail_at_once(app: App) -> None:
    """gb's deadline is Thursday 12:00 UTC. On Wednesday at 13:00 it is 23 hours away and Ann
    has no orders in: her reminder comes at once, and so does press in gb; press in ga, where
    her orders are in, waits."""
    games = _games(app)
    _digest_on(app, games)
    ann_a = games["ga"]["ann"].secret
    assert _send(app, "ga", "ann", f"PASSWORD {ann_a}\nGIVE 3 TO bob") == (
        SubmissionStatus.ACCEPTED
    )
    clock = clock_of(app)
    sweep(app.engine, ctx=app.ctx, now=clock.at(hours=49))
    before = len(_to_ann(app))
    dan = games["gb"]["dan"].secret
    _send(app, "gb", "dan", f"PASSWORD {dan}\nPRESS\nOrder soon!\nENDPRESS")
    bob = games["ga"]["bob"].secret
    _send(app, "ga", "bob", f"PASSWORD {bob}\nPRESS\nNo hurry.\nENDPRESS")
    now = _to_ann(app)[before:]
    assert _kinds(now) == ["press"]
    assert "Order soon!" in plain(now[0])
    reminded = [m for m in _to_ann(app) if m["X-Test-Kind"] == "reminder"]
    assert [str(m["Subject"])[:4] for m in reminded] == ["[gb]"]  # ga has her orders
    assert _digests(app, at={"hours": 68}) == 1  # Thursday 08:00
    assert "No hurry." in _flat(_to_ann(app)[-1])


def test_a_reply_to_the_digest_with_orders_for_two_games_is_applied_to_both(app: App) -> None:
    games = _games(app)
    _digest_on(app, games)
    bob = games["ga"]["bob"].secret
    _send(app, "ga", "bob", f"PASSWORD {bob}\nPRESS\nHello all\nENDPRESS")
    _announce(app, "gb", "Play nice.")
    assert _digests(app, at=TUESDAY_8) == 1
    mail = _to_ann(app)[-1]
    assert mail["X-Test-Kind"] == "digest"
    message_id = new_message_id()
    body = "GAME ga\nGIVE 3 TO cy\n\nGAME gb\nGIVE 3 TO eve\n"
    raw = reply_to(mail, body, sender=ANN, message_id=message_id)
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    note = note_of(app, message_id)
    assert "refused" not in note, note
    with Session(app.engine) as session:
        for name in ("ga", "gb"):
            game = find_game(session, name)
            round_ = open_round_of(session, game)
            assert round_ is not None
            seat = queries.seat_at_address(session, game.id, ANN)
            assert seat is not None
            assert seat.id in queries.seats_with_orders(session, round_.id), name
    answer = _flat(_to_ann(app)[-1])
    assert "GIVE 3 TO cy" in answer
    assert "GIVE 3 TO eve" in answer

    # With no GAME line, a reply speaks for the first game its subject names, as a reply to
    # any answer about several games does.
    message_id = new_message_id()
    raw = reply_to(mail, "HISTORY", sender=ANN, message_id=message_id)
    app.ingest(raw, channel="pipe")
    assert "history sent" in note_of(app, message_id)


def test_set_digest_off_sends_what_is_held_at_once_and_every_mail_after_it(app: App) -> None:
    games = _games(app)
    _digest_on(app, games)
    bob = games["ga"]["bob"].secret
    _send(app, "ga", "bob", f"PASSWORD {bob}\nPRESS\nFirst news\nENDPRESS")
    assert "press" not in _kinds(_to_ann(app))
    before = len(_to_ann(app))
    secret = games["gb"]["ann"].secret
    assert _global(app, f"PASSWORD {secret}\nSET DIGEST OFF") == SubmissionStatus.ACCEPTED
    held, answer = _to_ann(app)[before:]
    assert held["X-Test-Kind"] == "digest"
    assert str(held["Subject"]) == "[ga] Your held mail: 1 mail from 1 game"
    assert "First news" in plain(held)
    flat = _flat(answer)
    assert "SET DIGEST OFF: every mail comes at once again" in flat
    assert "The 1 mail held for your digest comes now, in one mail" in flat
    _send(app, "ga", "bob", f"PASSWORD {bob}\nPRESS\nSecond news\nENDPRESS")
    assert _kinds(_to_ann(app))[-1] == "press"
    assert _digests(app, at=TUESDAY_8) == 0


def test_set_digest_is_answered_clearly_when_written_wrong(app: App) -> None:
    games = _games(app)
    secret = games["ga"]["ann"].secret
    assert _global(app, f"PASSWORD {secret}\nSET DIGEST WEEKLY") == SubmissionStatus.REJECTED
    assert "write SET DIGEST DAILY and a time of day in your time zone" in _flat(_to_ann(app)[-1])
    assert _global(app, f"PASSWORD {secret}\nSET DIGEST DAILY 25:00") == (SubmissionStatus.REJECTED)
    assert _global(app, f"PASSWORD {secret}\nSET DIGEST 7:30") == SubmissionStatus.ACCEPTED
    assert "SET DIGEST DAILY 07:30" in _flat(_to_ann(app)[-1])


def test_her_time_zone_sets_the_hour_of_her_digest(app: App) -> None:
    """In Asia/Tokyo (UTC+9) 08:00 is 23:00 UTC the day before."""
    games = _games(app)
    secret = games["ga"]["ann"].secret
    _global(app, f"PASSWORD {secret}\nSET TIMEZONE Asia/Tokyo")
    answer = _digest_on(app, games)
    assert "the next at Tuesday 03 March 2026, 08:00 JST (Asia/Tokyo)" in answer
    bob = games["ga"]["bob"].secret
    _send(app, "ga", "bob", f"PASSWORD {bob}\nPRESS\nKonnichiwa\nENDPRESS")
    assert _digests(app, at={"hours": 10, "minutes": 59}) == 0
    assert _digests(app, at={"hours": 11}) == 1


def test_a_crash_before_the_digest_commits_loses_nothing_and_sends_it_once(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest is queued in the transaction that marks what it carries: a crash before
    the commit leaves every notice held, and the next pass sends them, once."""
    games = _games(app)
    _digest_on(app, games)
    bob = games["ga"]["bob"].secret
    _send(app, "ga", "bob", f"PASSWORD {bob}\nPRESS\nKept\nENDPRESS")

    def crash(*_args: Any, **_kw: Any) -> bool:
        raise RuntimeError("killed between the claim and the commit")

    with monkeypatch.context() as patch:
        patch.setattr(digest, "queue_pending", crash)
        with pytest.raises(RuntimeError):
            _digests(app, at=TUESDAY_8)
    assert "digest" not in _kinds(_to_ann(app))
    with Session(app.engine) as session:
        assert digest.held_count(session, ANN) == 1
    assert _digests(app, at={"hours": 20, "minutes": 1}) == 1
    assert _digests(app, at={"hours": 20, "minutes": 2}) == 0
    assert _kinds(_to_ann(app)).count("digest") == 1
    assert "Kept" in plain(_to_ann(app)[-1])


def test_a_picture_in_two_of_a_games_held_mails_is_attached_once(app: App) -> None:
    """Two rounds of ga close on one day: both results show the gifts picture, drawn alike
    here (the tests' quick converter makes a picture of a size the same each time): the digest
    attaches it once, and each round's calendar entry (they differ) once each."""
    games = _games(app)
    _digest_on(app, games)
    clock_of(app).advance(hours=1)
    close_open_round(app, "ga")
    clock_of(app).advance(hours=1)
    close_open_round(app, "ga")
    assert _digests(app, at=TUESDAY_8) == 1
    mail = _to_ann(app)[-1]
    attached = sorted(str(p.get_filename()) for p in mail.iter_attachments())
    assert attached == ["ga-gifts.png", "ga-round-2.ics", "ga-round-3.ics"], attached
    text = _flat(mail)
    assert text.count("== [ga] Round") == 2
    assert "Attached for ga: ga-gifts.png, ga-round-2.ics, ga-round-3.ics." in text


def test_what_is_held_follows_her_to_a_new_address(app: App) -> None:
    """SET ADDRESS moves her games, her digest and what it holds: the old mailbox is told
    nothing more of her games."""
    games = _games(app)
    _digest_on(app, games)
    bob = games["ga"]["bob"].secret
    _send(app, "ga", "bob", f"PASSWORD {bob}\nPRESS\nFor Ann only\nENDPRESS")
    new = "ann@new.example"
    code = address_code(app.ctx.receipt_key, ANN, new)
    secret = games["ga"]["ann"].secret
    assert _send(app, "ga", "ann", f"PASSWORD {secret}\nSET ADDRESS {new} {code}") == (
        SubmissionStatus.ACCEPTED
    )
    assert _digests(app, at=TUESDAY_8) == 1
    (mail,) = queued(app, "digest")
    assert mail["To"] == new
    assert "For Ann only" in plain(mail)
