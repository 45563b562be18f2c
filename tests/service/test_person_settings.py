"""A player's own settings follow him across games (issue 40, finding 11; docs/commands.md,
"Your time zone, password, quiet hours and weekend days are yours").

A player is one person across games, known by his registered address: the time zone, the
password he chose, his quiet hours and weekend days, set in one game, hold in every game he
plays, now and later, and a mail with no game sets them for all his games. Played by mail
through the service: mails in, mails out."""

from __future__ import annotations

from itertools import count

from playing import clock_of, new_game, plain, plain_mail, player_mail, queued
from sqlmodel import Session, select

from adjudicator.base.security import address_code
from adjudicator.service.app import App
from adjudicator.service.closing import begin_game, sweep
from adjudicator.service.games import Credentials, PlayerSpec, create_game, find_game
from adjudicator.service.gm import change_address, replace_player
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Person, SubmissionStatus

_numbers = count()
ANN = "ann@example.org"
# Every game here runs 72 h a round from the fixture clock's start, Monday 2 March 2026 12:00
# UTC: the first deadline is Thursday 5 March 12:00 UTC.
TOKYO_DEADLINE = "Thursday 05 March 2026, 21:00 JST (Asia/Tokyo)"
NEW_YORK_DEADLINE = "Thursday 05 March 2026, 07:00 EST (America/New_York)"


def _send(app: App, game: str, handle: str, body: str) -> SubmissionStatus:
    return app.ingest(player_mail(game, handle, body, number=next(_numbers)), channel="pipe")


def _global(app: App, body: str, *, sender: str = ANN) -> SubmissionStatus:
    """A mail to the service's own address, with no game: no tag, no GAME line, no reply."""
    number = next(_numbers)
    raw = plain_mail(sender, body, subject="my settings", message_id=f"<s{number}@example.org>")
    return app.ingest(raw, channel="pipe")


def _last_to(app: App, address: str, kind: str | None = None) -> str:
    mails = [m for m in queued(app, kind) if m["To"] == address]
    assert mails, f"no mail to {address}"
    return " ".join(plain(mails[-1]).split())


def _two_games(app: App) -> tuple[Credentials, Credentials]:
    """Ann plays in ga and in gb: her seat's credentials in each."""
    first = new_game(app, ["ann", "bob", "cy"], name="ga")
    second = new_game(app, ["ann", "dan", "eve"], name="gb")
    return first["ann"], second["ann"]


def test_a_time_zone_set_in_one_game_holds_in_the_others_and_in_games_joined_later(
    app: App,
) -> None:
    in_a, in_b = _two_games(app)
    assert _send(app, "ga", "ann", f"PASSWORD {in_a.secret}\nSET TIMEZONE Asia/Tokyo") == (
        SubmissionStatus.ACCEPTED
    )
    answer = _last_to(app, ANN)
    assert "Your time zone is now Asia/Tokyo" in answer

    _send(app, "gb", "ann", f"PASSWORD {in_b.secret}\nSTATUS")
    assert f"Deadline: {TOKYO_DEADLINE}" in _last_to(app, ANN)

    # A game made later: its welcome already speaks her time zone.
    new_game(app, ["ann", "fay", "gus"], name="gc", welcome=True)
    welcome = _last_to(app, ANN, "welcome")
    assert f"First deadline: {TOKYO_DEADLINE}" in welcome
    assert (
        "Times in the service's mails to you are Asia/Tokyo time, your time zone in all your"
        in (welcome)
    )
    assert "This holds in all your games, and in the games you join later" in answer


def test_a_password_chosen_in_one_game_is_hers_in_every_game_and_in_later_ones(
    app: App,
) -> None:
    in_a, in_b = _two_games(app)
    _send(app, "ga", "ann", f"PASSWORD {in_a.secret}\nSET PASSWORD Lighthouse-42")
    answer = _last_to(app, ANN)
    assert "Lighthouse-42" not in answer

    assert _send(app, "gb", "ann", "PASSWORD Lighthouse-42\nGIVE 3 TO dan") == (
        SubmissionStatus.ACCEPTED
    )
    assert _send(app, "gb", "ann", f"PASSWORD {in_b.secret}\nGIVE 2 TO dan") == (
        SubmissionStatus.REJECTED
    )

    # A game made later: no new password is mailed to her; the one she chose works there.
    credentials = new_game(app, ["ann", "fay", "gus"], name="gc", welcome=True)
    assert credentials["ann"].secret is None
    welcome = _last_to(app, ANN, "welcome")
    assert "PASSWORD and the password you chose (SET PASSWORD)" in welcome
    assert "Your password holds in all your games, this one too" in welcome
    assert credentials["fay"].secret is not None  # a newcomer still gets one of his own
    assert _send(app, "gc", "ann", "PASSWORD Lighthouse-42\nGIVE 3 TO fay") == (
        SubmissionStatus.ACCEPTED
    )
    assert "Your password has been changed for all your games (ga, gb)" in answer
    assert "It is your password in the games you join later too" in answer


def test_a_mail_with_no_game_sets_her_settings_for_all_her_games(app: App) -> None:
    """With two games under way no game is guessed for a mail that names none: before, its
    SET lines were refused as needing their game."""
    _no_game_sets_her_settings(app)


def test_a_mail_with_no_game_sets_her_settings_on_postgresql(pg_app: App) -> None:
    _no_game_sets_her_settings(pg_app)


def _no_game_sets_her_settings(app: App) -> None:
    in_a, in_b = _two_games(app)
    assert _global(app, f"PASSWORD {in_b.secret}\nSET TIMEZONE America/New_York") == (
        SubmissionStatus.ACCEPTED
    )
    answer = _last_to(app, ANN)
    assert "Your time zone is now America/New_York" in answer
    assert f"ga: the deadline is {NEW_YORK_DEADLINE}" in answer
    assert f"gb: the deadline is {NEW_YORK_DEADLINE}" in answer
    assert "need their game" not in answer

    _send(app, "ga", "ann", f"PASSWORD {in_a.secret}\nSTATUS")
    assert f"Deadline: {NEW_YORK_DEADLINE}" in _last_to(app, ANN)

    # A password chosen so holds in both games.
    assert _global(app, f"PASSWORD {in_a.secret}\nSET PASSWORD Lighthouse-42") == (
        SubmissionStatus.ACCEPTED
    )
    assert "changed for all your games (ga, gb)" in _last_to(app, ANN)
    for game in ("ga", "gb"):
        assert _send(app, game, "ann", "PASSWORD Lighthouse-42\nSTATUS") == (
            SubmissionStatus.ACCEPTED
        )


def test_a_mail_with_no_game_needs_her_password(app: App) -> None:
    """The From line proves nothing: without a password of hers, or with a wrong one, or
    from an address with no seat, nothing changes."""
    in_a, _in_b = _two_games(app)
    assert _global(app, "SET TIMEZONE Asia/Tokyo") == SubmissionStatus.REJECTED
    assert "your settings (they hold in all your games)" in _last_to(app, ANN)
    assert "had no password line" in _last_to(app, ANN)
    assert _global(app, "PASSWORD not-her-password\nSET TIMEZONE Asia/Tokyo") == (
        SubmissionStatus.REJECTED
    )
    assert "had a wrong password" in _last_to(app, ANN)
    assert _global(
        app, f"PASSWORD {in_a.secret}\nSET TIMEZONE Asia/Tokyo", sender="mallory@example.org"
    ) == (SubmissionStatus.REJECTED)
    _send(app, "ga", "ann", f"PASSWORD {in_a.secret}\nSTATUS")
    status = _last_to(app, ANN)
    assert "Deadline: Thursday 05 March 2026, 12:00 UTC" in status
    assert "Tokyo" not in status


def test_quiet_hours_hold_in_a_game_joined_later(app: App) -> None:
    """Ann's quiet hours, 09:00-11:00 UTC, set in ga, keep game gc's 2 h reminder (due at
    10:00 UTC on Thursday) out of them too: it comes at 08:59."""
    in_a, _in_b = _two_games(app)
    _send(app, "ga", "ann", f"PASSWORD {in_a.secret}\nSET QUIET 09:00-11:00")
    answer = _last_to(app, ANN)
    new_game(app, ["ann", "fay", "gus"], name="gc")
    clock = clock_of(app)
    sweep(app.engine, ctx=app.ctx, now=clock.at(hours=68, minutes=58))
    before = len(queued(app, "reminder"))
    sweep(app.engine, ctx=app.ctx, now=clock.at(hours=68, minutes=59))
    reminded = [m for m in queued(app, "reminder")[before:] if m["To"] == ANN]
    assert sorted(str(m["Subject"]).split("]")[0] for m in reminded) == ["[ga", "[gb", "[gc"]
    assert "This holds in all your games (ga, gb), and in those you join later" in answer


def test_quiet_hours_and_weekend_days_set_with_no_game_hold_in_every_game(app: App) -> None:
    """docs/commands.md: SET QUIET and SET WEEKEND are hers, in all her games and those she
    joins later, and need no game. Each 72 h round closes Thursday 12:00 UTC; its reminders
    are due Wednesday 12:00 (24 h) and Thursday 10:00 (2 h). Her quiet hours, 11:00-13:00,
    bring the first to 10:59; her weekend day, Thursday, brings the second to Wednesday
    23:59, the last minute before it: in ga and gb, where she wrote no such line, and in gc,
    made afterwards. The other players get theirs at the usual times."""
    _in_a, in_b = _two_games(app)
    assert _global(app, f"PASSWORD {in_b.secret}\nSET QUIET 11:00-13:00\nSET WEEKEND thu") == (
        SubmissionStatus.ACCEPTED
    )
    answer = _last_to(app, ANN)
    assert "need their game" not in answer
    assert "No reminders reach you between 11:00 and 13:00, nor on Thursdays (UTC)" in answer
    new_game(app, ["ann", "fay", "gus"], name="gc")
    clock = clock_of(app)

    def reminded_at(hours: int, minutes: int = 0) -> dict[str, list[str]]:
        before = len(queued(app, "reminder"))
        sweep(app.engine, ctx=app.ctx, now=clock.at(hours=hours, minutes=minutes))
        got: dict[str, list[str]] = {}
        for mail in queued(app, "reminder")[before:]:
            got.setdefault(str(mail["To"]), []).append(str(mail["Subject"]).split("]")[0][1:])
        return {to: sorted(games) for to, games in got.items()}

    everyone_else = {f"{p}@example.org" for p in ("bob", "cy", "dan", "eve", "fay", "gus")}
    assert reminded_at(46, 58) == {}
    assert reminded_at(46, 59) == {ANN: ["ga", "gb", "gc"]}  # before her quiet hours
    assert set(reminded_at(48)) == everyone_else  # Wednesday 12:00, not ann again
    assert reminded_at(59, 58) == {}
    assert reminded_at(59, 59) == {ANN: ["ga", "gb", "gc"]}  # before her Thursday
    assert set(reminded_at(70)) == everyone_else  # Thursday 10:00, not ann again


def test_set_public_needs_no_game_either(app: App) -> None:
    """docs/commands.md: SET PUBLIC is hers too, for all her games (docs/club.md), and a mail
    with no game may hold it among her settings."""
    _in_a, in_b = _two_games(app)
    assert _global(app, f"PASSWORD {in_b.secret}\nSET PUBLIC OFF") == SubmissionStatus.ACCEPTED
    answer = _last_to(app, ANN)
    assert "need their game" not in answer
    assert "SET PUBLIC OFF: you are left off the players' page" in answer
    with Session(app.engine) as session:
        assert session.exec(select(Person).where(Person.address == ANN)).one().public is False


def test_her_settings_follow_her_to_a_new_address(app: App) -> None:
    """SET ADDRESS moves her person: a game made later for her new address welcomes her in
    her time zone. The game master's move of one of her seats takes her settings along too."""
    in_a, in_b = _two_games(app)
    _send(app, "ga", "ann", f"PASSWORD {in_a.secret}\nSET TIMEZONE Asia/Tokyo")
    new, third = "ann@new.example", "ann@third.example"
    code = address_code(app.ctx.receipt_key, ANN, new)
    assert _send(app, "ga", "ann", f"PASSWORD {in_a.secret}\nSET ADDRESS {new} {code}") == (
        SubmissionStatus.ACCEPTED
    )
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="gc",
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("fay", "gus")]
            + [PlayerSpec("ann", new)],
            options={},
            schedule="72h",
            now=app.clock(),
        )
        first = begin_game(session, game, ctx=app.ctx, now=app.clock())
        queue_welcome(
            session, ctx=app.ctx, game=game, credentials=credentials, first_round=first,
            now=app.clock(),
        )  # fmt: skip
    assert f"First deadline: {TOKYO_DEADLINE}" in _last_to(app, new, "welcome")

    with session_scope(app.engine) as session:
        gb = find_game(session, "gb")
        change_address(session, gb, "ann", third, ctx=app.ctx, now=app.clock())
    raw = plain_mail(
        third, f"PASSWORD {in_b.secret}\nSTATUS", subject="[gb] status", message_id="<t@x.test>"
    )
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    assert f"Deadline: {TOKYO_DEADLINE}" in _last_to(app, third)


def test_a_seat_moved_to_another_players_address_or_taken_over_takes_his_settings(
    app: App,
) -> None:
    """Settings are the person's, not the seat's: the game master moving ann's seat to an
    address bob plays from gives bob's settings to it and leaves bob's alone, and a newcomer
    who takes over a seat brings his own (none), never those of the player before him."""
    in_a, in_b = _two_games(app)
    bob = new_game(app, ["bob", "hal", "ida"], name="gd")["bob"]
    _send(app, "ga", "ann", f"PASSWORD {in_a.secret}\nSET TIMEZONE Asia/Tokyo")
    _send(app, "gd", "bob", f"PASSWORD {bob.secret}\nSET TIMEZONE Europe/Paris")
    with session_scope(app.engine) as session:
        gb = find_game(session, "gb")
        change_address(session, gb, "ann", "bob@example.org", ctx=app.ctx, now=app.clock())
        replace_player(
            session, find_game(session, "ga"), "ann", "zed@example.org", ctx=app.ctx,
            now=app.clock(),
        )  # fmt: skip
    paris = "Thursday 05 March 2026, 13:00 CET (Europe/Paris)"
    takeover = _last_to(app, "zed@example.org", "takeover")
    assert "Deadline: Thursday 05 March 2026, 12:00 UTC" in takeover  # the game's zone
    assert "Tokyo" not in takeover
    for game, secret in (("gd", bob.secret), ("gb", in_b.secret)):
        raw = plain_mail(
            "bob@example.org",
            f"PASSWORD {secret}\nSTATUS",
            subject=f"[{game}] status",
            message_id=f"<b{next(_numbers)}@example.org>",
        )
        assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
        assert f"Deadline: {paris}" in _last_to(app, "bob@example.org")


def _received_from(raw: bytes, ip: str) -> bytes:
    """The mail as our receiving server got it from the host at ``ip``."""
    hop = f"sender.example.net (sender.example.net [{ip}]) by mx.pbem.test"
    return f"Received: from {hop}; Mon, 2 Mar 2026 12:00:00 +0000\n".encode() + raw


def test_a_mail_with_no_game_gets_round_no_lock_of_a_game(app: App) -> None:
    """Five wrong passwords for her seat in ga from one host lock that host out of ga for an
    hour. A mail with no game from the same host, with a password of hers, is not checked
    either: writing without a game is no way round a lock; from her own host it counts."""
    in_a, in_b = _two_games(app)
    forger, own = "203.0.113.66", "198.51.100.7"
    for guess in range(5):
        raw = player_mail(
            "ga", "ann", f"PASSWORD guess-{guess}\nGIVE 3 TO bob", number=next(_numbers)
        )
        app.ingest(_received_from(raw, forger), channel="pipe")
    for secret in (in_a.secret, in_b.secret):
        raw = plain_mail(
            ANN,
            f"PASSWORD {secret}\nSET TIMEZONE Asia/Tokyo",
            subject="settings",
            message_id=f"<f{next(_numbers)}@example.org>",
        )
        assert app.ingest(_received_from(raw, forger), channel="pipe") == (
            SubmissionStatus.REJECTED
        )
    raw = plain_mail(
        ANN, f"PASSWORD {in_b.secret}\nSET TIMEZONE Asia/Tokyo", subject="s", message_id="<o@x>"
    )
    assert app.ingest(_received_from(raw, own), channel="pipe") == SubmissionStatus.ACCEPTED
