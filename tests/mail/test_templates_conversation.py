"""The mails of the conversation commands, as golden files: for every game, the one answer to
HELP and STATUS (their words differ by game: order syntax, an example valid in the player's
position, turns or rounds), a relayed press, and the one answer to orders with HELP; once,
the general help, a mistyped command, the settings, an absence (and one refused), FORGOT, a
resignation, a seat offered and taken over, a JOIN approved, and the mails that tell the
others and the game master.

Secrets, tokens, the key and the clock are fixed (tests/mail/test_templates.py), so each mail
comes out the same every time. ``UPDATE_GOLDEN=1`` rewrites the files: read every changed one,
as the player who gets it, before committing it.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import select
from test_templates import Sent, _HtmlCheck, make_service, outbox, readable

from adjudicator.base.security import join_code, resign_code, standby_code, take_code
from adjudicator.games import GAME_NAMES
from adjudicator.service.app import App
from adjudicator.service.conversation import example_orders
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.handover import find_seat
from adjudicator.service.offers import offer_seat
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, Seat, SeatOffer

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "conversation"
SERVICE = "judge@pbem.test"
PLAYERS = {
    "giveaway": ("alice", "bob", "carol"),
    "sissyfight": ("alice", "bob", "carol"),
    "three-musketeers": ("alice", "bob"),
    "rock-scissors-paper": ("alice", "bob"),
    "starship-combat": ("alice", "bob"),
}


def mail(sender: str, body: str, number: int, subject: str = "commands") -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = SERVICE
    message["Subject"] = subject
    message["Message-ID"] = f"<c{number}@example.org>"
    message["Date"] = "Mon, 02 Mar 2026 12:00:00 +0000"
    message.set_content(body)
    return message.as_bytes()


def converse(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Sent]:
    """A game of ``kind`` at round 1; its players' commands; the mails to keep, by stem."""
    counter = itertools.count(1)
    monkeypatch.setattr("adjudicator.service.games.new_gm_token", lambda: "gm-token")
    # Seats are made by service/games.py, handed over by service/handover.py, and added by the
    # game master (APPROVE) in service/gm.py.
    for module in ("games", "handover", "gm"):
        monkeypatch.setattr(
            f"adjudicator.service.{module}.new_secret", lambda: f"secret{next(counter)}"
        )
        monkeypatch.setattr(
            f"adjudicator.service.{module}.new_token", lambda: f"token{next(counter):0>10}"
        )
    app = make_service(tmp_path)
    players = PLAYERS[kind]
    with session_scope(app.engine) as session:
        game, creds = create_game(
            session,
            name="c1",
            kind=kind,
            players=[PlayerSpec(p, f"{p}@example.org") for p in players],
            options={},
            schedule="72h",
            time_zone="Europe/Berlin",
            settings={"early_close": False, "absence_days": 14},
            gm_address="gm@example.org",
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())
    secret = {c.handle: c.secret for c in creds}
    number = itertools.count(1)
    first, second = players[0], players[1]

    def send(sender: str, body: str) -> list[Sent]:
        before = len(outbox(app))
        app.ingest(mail(sender, body, next(number)), channel="test")
        return outbox(app)[before:]

    kept: dict[str, Sent] = {}
    (answer,) = send(f"{first}@example.org", f"GAME c1\nPASSWORD {secret[first]}\nHELP\nSTATUS\n")
    kept["help-and-status"] = answer
    pressed = send(f"{first}@example.org", f"GAME c1\nPASSWORD {secret[first]}\nPRESS\nHello!\n")
    kept["press"] = next(s for s in pressed if s.kind == "press")
    if kind != "giveaway":
        return kept | _orders_and_help(app, send, first, secret[first])
    kept["help-general"] = send("stranger@elsewhere.example", "Hello\nHELP\nLSIT\n")[0]
    settings = send(
        f"{second}@example.org",
        f"GAME c1\nPASSWORD {secret[second]}\nSET TIMEZONE america/new_york\n"
        "SET PASSWORD Tr0mbone-42\nSET WAIT\nSET ADDRESS bob@new.example\nSET COLOUR blue\nPRESS TO carol\npsst\nENDPRESS\nRESIGN\n",
    )
    kept["settings-press-resign"] = next(s for s in settings if s.kind == "answer")
    kept["address-code"] = next(s for s in settings if s.recipient == "bob@new.example")
    kept["press-private"] = next(s for s in settings if s.kind == "press")
    away = send(
        "carol@example.org",
        f"GAME c1\nPASSWORD {secret['carol']}\nSET ABSENCE 2026-03-10 2026-03-13\n"
        "SET QUIET 22:00-07:00\nSET WEEKEND sat,sun\nSET ABSENCE 30d\n",
    )
    kept["absence-answer"] = next(s for s in away if s.kind == "answer")
    kept["absence-others"] = next(s for s in away if s.recipient == "bob@example.org")
    kept["absence-gm"] = next(s for s in away if s.recipient == "gm@example.org")
    (kept["forgot"],) = send("carol@example.org", "FORGOT")
    for waiting in ("sam@example.net", "tia@example.net"):  # the standby list for giveaway
        (asked,) = send(waiting, "STANDBY giveaway")
        code = standby_code(app.ctx.receipt_key, "giveaway", waiting)
        (started,) = send(waiting, f"STANDBY giveaway {code}")
    kept["standby-confirm"], kept["standby-started"] = asked, started
    with session_scope(app.engine) as session:
        seat = session.exec(select(Seat).where(Seat.handle == "carol")).one()
        assert seat.id is not None
        code = resign_code(app.ctx.receipt_key, seat.id, seat.reply_token)
    resigned = send("carol@example.org", f"GAME c1\nPASSWORD {secret['carol']}\nRESIGN {code}\n")
    kept["resigned-answer"] = next(s for s in resigned if s.kind == "answer")
    kept["resigned-others"] = next(s for s in resigned if s.kind == "resigned")
    kept["resigned-gm"] = next(s for s in resigned if s.kind == "gm:resigned")
    kept |= _orders_and_help(app, send, first, secret[first])
    kept |= seat_taken_over(app, send, resigned, secret["carol"])
    kept |= join_with_approval(app, send)
    kept |= club_answers(app, send, secret[first], kept["absence-gm"])
    return kept


def club_answers(
    app: App, send: Callable[[str, str], list[Sent]], secret: str, to_gm: Sent
) -> dict[str, Sent]:
    """The club (docs/club.md): WHOIS and RATING from a stranger, SET PUBLIC OFF by alice, and
    the game master's RECORD of an address, by mail to his reply address."""
    kept: dict[str, Sent] = {}
    (kept["whois-and-rating"],) = send("stranger@elsewhere.example", "WHOIS alice\nRATING\n")
    (kept["set-public"],) = send(
        "alice@example.org", f"GAME c1\nPASSWORD {secret}\nSET PUBLIC OFF\n"
    )
    reply_to = str(to_gm.message["Reply-To"])
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "gm@example.org", reply_to, "[c1]"
    message["Message-ID"] = "<record@example.org>"
    message["Date"] = "Mon, 02 Mar 2026 12:00:00 +0000"
    message.set_content("RECORD bob@example.org\n")
    before = len(outbox(app))
    app.ingest(message.as_bytes(), channel="test")
    (kept["record-gm"],) = outbox(app)[before:]
    return kept


def seat_taken_over(
    app: App, send: Callable[[str, str], list[Sent]], resigned: list[Sent], secret: str
) -> dict[str, Sent]:
    """carol's resignation offered her seat to the standby list: sam takes it, tia is too
    late, carol's later mail is answered with where her seat went."""
    kept: dict[str, Sent] = {}
    kept["seat-offer"] = next(s for s in resigned if s.kind == "seat_offer")
    with session_scope(app.engine) as session:
        offer = session.exec(select(SeatOffer)).one()
        assert offer.id is not None
        takes = {
            a: take_code(app.ctx.receipt_key, offer.id, a)
            for a in ("sam@example.net", "tia@example.net")
        }
    took = send("sam@example.net", f"TAKE c1 {takes['sam@example.net']}")
    kept["take-answer"] = next(s for s in took if s.kind == "answer")
    kept["takeover"] = next(s for s in took if s.kind == "takeover")
    kept["seat-taken"] = next(s for s in took if s.kind == "seat_taken")
    kept["seat-passed-on"] = next(s for s in took if s.kind == "seat_passed_on")
    kept["replaced-gm"] = next(s for s in took if s.kind == "gm:replaced")
    (kept["take-too-late"],) = send("tia@example.net", f"TAKE c1 {takes['tia@example.net']}")
    (kept["passed-on"],) = send(
        "carol@example.org", f"GAME c1\nPASSWORD {secret}\nGIVE 1 TO alice\n"
    )
    with session_scope(app.engine) as session:  # the game master offers a player's seat
        game = find_game(session, "c1")
        offer_seat(
            session,
            game,
            find_seat(session, game, "alice"),
            ctx=app.ctx,
            now=app.clock(),
            reason="gm",
        )
    kept["seat-offered-holder"] = next(s for s in outbox(app) if s.kind == "seat_offered")
    kept["offered-gm"] = next(s for s in outbox(app) if s.kind == "gm:offered")
    return kept


def join_with_approval(app: App, send: Callable[[str, str], list[Sent]]) -> dict[str, Sent]:
    """A JOIN that waits for the game master (join=approve): the request to him, his APPROVE,
    what the joiner is told."""
    with session_scope(app.engine) as session:
        create_game(
            session,
            name="c2",
            kind="sissyfight",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("alice", "bob", "carol")],
            options={},
            schedule="72h",
            settings={"signup": 4, "join": "approve"},
            gm_address="gm@example.org",
            now=app.clock(),
        )
    kept: dict[str, Sent] = {}
    with session_scope(app.engine) as session:
        code = join_code(app.ctx.receipt_key, "c2", "jane@elsewhere.example")
    joined = send("jane@elsewhere.example", f"JOIN c2 {code} jane")
    kept["join-waiting"] = next(s for s in joined if s.kind == "answer")
    kept["join-request-gm"] = request = next(s for s in joined if s.kind == "gm:join_request")
    approve = re.search(r"APPROVE c2 ([0-9A-F]{8})", readable(request)[0])
    assert approve is not None
    decided = send("gm@example.org", f"APPROVE c2 {approve[1]}")
    kept["approve-answer"] = next(s for s in decided if s.kind == "answer")
    kept["join-decided"] = next(s for s in decided if s.kind == "join_decided")
    return kept


def _orders_and_help(
    app: App, send: Callable[[str, str], list[Sent]], player: str, secret: str
) -> dict[str, Sent]:
    """Orders valid in the player's position and HELP in one mail: one answer holds the
    confirmation (in a game played in turns: the move applied) and the help."""
    with session_scope(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "c1")).one()
        orders = example_orders(game, player)
    assert orders, f"no valid orders for {player}"
    sent = send(
        f"{player}@example.org", "\n".join(["GAME c1", f"PASSWORD {secret}", *orders, "HELP"])
    )
    answers = [s for s in sent if s.recipient == f"{player}@example.org" and s.kind != "result"]
    assert [s.kind for s in answers] == ["answer"]
    return {"orders-and-help": answers[0]}


@pytest.mark.parametrize("kind", GAME_NAMES)
def test_conversation_mails_match_their_golden_files(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    differ = []
    for stem, sent in converse(kind, tmp_path, monkeypatch).items():
        text, html = readable(sent)
        assert html is not None
        checker = _HtmlCheck()
        checker.feed(html)
        checker.close()
        assert not checker.problems, f"{stem}: {checker.problems}"
        assert checker.open == [], f"{stem}: unclosed {checker.open}"
        assert all(len(line) <= 100 for line in text.splitlines()), stem
        path = GOLDEN / kind / f"{stem}.txt"
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            differ.append(path.name)
    assert not differ, f"mails differ from their golden files: {differ} (UPDATE_GOLDEN=1 rewrites)"
