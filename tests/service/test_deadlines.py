"""Around the deadline: reminders to the players without orders, grace periods, early close,
missed rounds reported to the game master, and sequential games' move deadlines."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from playing import START, add_orders, clock_of, plain, queued
from sqlmodel import Session, col, select

from adjudicator.archive import build_archive
from adjudicator.service import ServiceError, gm
from adjudicator.service.app import App
from adjudicator.service.closing import close_if_complete, sweep
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.rounds import start_game, takes_orders
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus, OutboxMail, Round, RoundState, Seat

GIVEAWAY_ORDERS = {
    "ann": "GIVE 3 TO ben",
    "ben": "GIVE 3 TO cat",
    "cat": "GIVE 3 TO ann",
}  # round 1


def _game(app: App, kind: str = "giveaway", **extra: Any) -> int:
    players = ["ann", "ben", "cat"] if kind == "giveaway" else ["ann", "ben"]
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name="g1",
            kind=kind,
            players=[PlayerSpec(p, f"{p}@example.org") for p in players],
            options={},
            gm_address="gm@example.org",
            now=app.clock(),
            **({"schedule": "72h"} | extra),
        )
        round_ = start_game(session, game, now=app.clock())
        assert round_.id is not None
        return round_.id


def _order(app: App, handle: str, line: str) -> None:
    add_orders(app, "g1", handle, line)


def _at(app: App, **offset: float) -> datetime:
    """Set the clock to the game's creation time plus ``offset``, and sweep."""
    sweep(app.engine, ctx=app.ctx, now=clock_of(app).at(**offset))
    return app.clock()


def _mails(app: App, kind: str) -> list[tuple[str, str]]:
    """(recipient, subject) of the queued mails of one kind, in queuing order."""
    with Session(app.engine) as session:
        rows = session.exec(
            select(OutboxMail).where(OutboxMail.kind == kind).order_by(col(OutboxMail.id))
        ).all()
    return [
        (r.recipient, str(message_from_bytes(r.message, policy=policy.default)["Subject"]))
        for r in rows
    ]


def _body(app: App, kind: str, *, last: bool = False) -> str:
    with Session(app.engine) as session:
        order = col(OutboxMail.id).desc() if last else col(OutboxMail.id)
        query = select(OutboxMail).where(OutboxMail.kind == kind).order_by(order)
        row = session.exec(query).first()
    assert row is not None
    message = message_from_bytes(row.message, policy=policy.default)
    part = message.get_body(("plain",))  # type: ignore[attr-defined]
    return str(part.get_content())


def _round(app: App, number: int) -> Round:
    with Session(app.engine) as session:
        return session.exec(select(Round).where(Round.number == number)).one()


def test_reminders_go_only_to_players_without_orders_once_each(app: App) -> None:
    _game(app)
    _order(app, "ann", GIVEAWAY_ORDERS["ann"])
    _at(app, hours=47, minutes=59)
    assert _mails(app, "reminder") == []
    _at(app, hours=48)  # 24 h before the 72 h deadline
    first = _mails(app, "reminder")
    assert sorted(to for to, _ in first) == ["ben@example.org", "cat@example.org"]
    assert all("orders for round 1 due in 1 day" in subject for _, subject in first)
    _at(app, hours=50)  # the sweeper again: nothing new
    assert len(_mails(app, "reminder")) == 2
    _order(app, "ben", GIVEAWAY_ORDERS["ben"])
    _at(app, hours=70)  # 2 h before
    second = _mails(app, "reminder")[2:]
    assert second == [("cat@example.org", "[g1] Reminder: orders for round 1 due in 2 hours")]


def test_a_reminder_sent_a_moment_late_says_the_time_left_as_a_person_would(app: App) -> None:
    """Issue 40, finding 21: a reminder the sweeper sends a second after its time says "due
    in 2 hours", not "1 hour 59 minutes 59 seconds"; days are said to the hour."""
    _game(app)
    _at(app, hours=48, seconds=1)
    assert all(s.endswith("due in 1 day") for _, s in _mails(app, "reminder"))
    _at(app, hours=70, seconds=1)
    assert all(s.endswith("due in 2 hours") for _, s in _mails(app, "reminder")[3:])
    assert "2 hours from now" in _body(app, "reminder", last=True)


def test_after_a_downtime_only_the_latest_reminder_is_sent(app: App) -> None:
    _game(app)
    _at(app, hours=71)  # both reminder times passed while nothing ran
    subjects = [subject for _, subject in _mails(app, "reminder")]
    assert len(subjects) == 3
    assert all(s.endswith("due in 1 hour") for s in subjects)


def test_a_reminder_before_the_round_opened_is_skipped(app: App) -> None:
    _game(app, schedule="12h")  # the 24 h reminder would come before the start
    _at(app, hours=9)
    assert _mails(app, "reminder") == []
    _at(app, hours=10)
    assert len(_mails(app, "reminder")) == 3


def test_no_reminders_when_the_game_has_none(app: App) -> None:
    _game(app, settings={"reminders": []})
    _at(app, hours=71)
    assert _mails(app, "reminder") == []


def test_a_grace_period_waits_for_late_players_and_tells_everyone(app: App) -> None:
    _game(app, settings={"grace": "12h"})
    for handle in ("ann", "ben"):
        _order(app, handle, GIVEAWAY_ORDERS[handle])
    _at(app, hours=72)
    assert _round(app, 1).state == RoundState.OPEN
    assert _mails(app, "grace_late") == [
        (
            "cat@example.org",
            "[g1] Round 1: deadline passed, grace period for your orders",
        )
    ]
    assert "before\nFriday 06 March 2026, 00:00 UTC still count" in _body(app, "grace_late")
    assert "orders are missing from\ncat." in _body(app, "grace_wait")
    assert sorted(to for to, _ in _mails(app, "grace_wait")) == [
        "ann@example.org",
        "ben@example.org",
    ]
    with Session(app.engine) as session:
        game = find_game(session, "g1")
        assert takes_orders(game, _round(app, 1), START + timedelta(hours=83))  # late, in grace
        assert not takes_orders(game, _round(app, 1), START + timedelta(hours=84))
    _at(app, hours=83, minutes=59)
    assert _round(app, 1).state == RoundState.OPEN
    _at(app, hours=84)
    assert _round(app, 1).state == RoundState.REPORTED
    assert len(_mails(app, "grace_late")) == 1  # the grace period was started once


def test_a_grace_period_after_an_extended_deadline_is_told_again(app: App) -> None:
    _game(app, settings={"grace": "12h"})
    _at(app, hours=72)  # grace until 84
    with session_scope(app.engine) as session:
        gm.extend(
            session, find_game(session, "g1"), ctx=app.ctx, now=app.clock(), by=timedelta(hours=24)
        )
    _at(app, hours=108)  # the new deadline passes with orders still missing: grace until 120
    assert _round(app, 1).grace_until == START + timedelta(hours=120)
    assert len(_mails(app, "grace_late")) == 2 * 3  # every player, each time
    assert "Saturday 07 March 2026, 12:00 UTC" in _body(app, "grace_late", last=True)


def test_no_grace_period_when_every_order_is_in(app: App) -> None:
    _game(app, settings={"grace": "12h", "early_close": False})
    for handle, line in GIVEAWAY_ORDERS.items():
        _order(app, handle, line)
    _at(app, hours=72)
    assert _round(app, 1).state == RoundState.REPORTED
    assert _mails(app, "grace_late") == []


def test_a_service_down_past_the_whole_grace_period_closes_at_once(app: App) -> None:
    _game(app, settings={"grace": "12h"})
    _at(app, hours=90)
    assert _round(app, 1).state == RoundState.REPORTED
    assert _mails(app, "grace_late") == []


def test_early_close_when_every_order_is_in(app: App) -> None:
    round_id = _game(app)
    for handle in ("ann", "ben"):
        _order(app, handle, GIVEAWAY_ORDERS[handle])
    with session_scope(app.engine) as session:
        assert close_if_complete(session, round_id, ctx=app.ctx, now=app.clock()) is None
    _order(app, "cat", GIVEAWAY_ORDERS["cat"])
    with session_scope(app.engine) as session:
        closed = close_if_complete(session, round_id, ctx=app.ctx, now=app.clock())
    assert closed is not None
    assert closed.adjudicated is not None
    assert _round(app, 1).state == RoundState.ADJUDICATED  # its pictures are made next
    assert app.report() == [round_id]
    assert _round(app, 1).state == RoundState.REPORTED


@pytest.mark.parametrize(
    ("schedule", "settings"),
    [("tue,fri 21:00", {}), ("72h", {"early_close": False})],
    ids=["calendar schedules keep their deadline", "switched off"],
)
def test_no_early_close(app: App, schedule: str, settings: dict[str, Any]) -> None:
    round_id = _game(app, schedule=schedule, settings=settings)
    for handle, line in GIVEAWAY_ORDERS.items():
        _order(app, handle, line)
    with session_scope(app.engine) as session:
        assert close_if_complete(session, round_id, ctx=app.ctx, now=app.clock()) is None
    assert _round(app, 1).state == RoundState.OPEN


def test_the_game_master_hears_of_a_player_who_keeps_missing_rounds(app: App) -> None:
    _game(app, kind="starship-combat", settings={"missed_rounds_limit": 2, "reminders": []})
    for number in range(1, 5):
        _order(app, "ann", "NOTHING")
        if number == 2:
            _order(app, "ben", "NOTHING")
        _at(app, hours=72 * number)
        assert _round(app, number).state == RoundState.REPORTED
    # ben missed round 1, ordered in round 2, then missed 3 and 4: told once, after round 4.
    assert _mails(app, "gm:missed_rounds") == [
        ("gm@example.org", "[g1] ben has missed 2 rounds in a row")
    ]
    with Session(app.engine) as session:
        missed = {s.handle: s.missed_rounds for s in session.exec(select(Seat))}
    assert missed == {"ann": 0, "ben": 2}
    _order(app, "ann", "NOTHING")
    _at(app, hours=72 * 5)
    assert len(_mails(app, "gm:missed_rounds")) == 1  # not again at 3


def test_one_missed_round_is_said_in_the_singular(app: App) -> None:
    """Issue 40, finding 21: "missed 1 round", not "missed 1 rounds"."""
    _game(app, kind="starship-combat", settings={"missed_rounds_limit": 1, "reminders": []})
    _order(app, "ann", "NOTHING")
    _at(app, hours=72)
    assert _mails(app, "gm:missed_rounds") == [
        ("gm@example.org", "[g1] ben has missed 1 round in a row")
    ]
    assert "has sent no orders for 1 round in a row" in _body(app, "gm:missed_rounds")


def test_a_missed_move_deadline_starts_a_grace_period_then_forfeits(app: App) -> None:
    """Three Musketeers, option timeout=forfeit: "A missed move deadline sends a reminder and
    starts a grace period; a player still silent at the end of grace forfeits the game." """
    _game(app, kind="three-musketeers", schedule="48h", settings={"reminders": []})
    _at(app, hours=48)
    # The sequential default grace: 24 h. The late player is told he forfeits at its end,
    # the waiting one that the opponent is late, and what then happens.
    assert _mails(app, "grace_late") == [
        (
            "ann@example.org",
            "[g1] Round 1: move by Thursday 05 March 2026, 12:00 UTC or you forfeit",
        )
    ]
    assert "you forfeit the game and\nben wins" in _body(app, "grace_late")
    assert [to for to, _ in _mails(app, "grace_wait")] == ["ben@example.org"]
    assert "ann forfeits the game and you win" in _body(app, "grace_wait")
    assert "change them" not in _body(app, "grace_wait")
    _at(app, hours=72)
    with Session(app.engine) as session:
        game = find_game(session, "g1")
        assert game.status == GameStatus.FINISHED
    result = _mails(app, "result")
    assert len(result) == 2
    # ann plays the Musketeers and stayed silent: she forfeits, the Cardinal's player wins,
    # and every result says it was by forfeit (issue 40, finding 21).
    assert all(subject.endswith("game over: ben wins by forfeit") for _, subject in result)
    assert "GAME OVER: ben wins by forfeit." in _body(app, "result")
    # The game master hears of the forfeit, and whose it was.
    assert _mails(app, "gm:game_over") == [
        ("gm@example.org", "[g1] Game over in round 1: won by ben (forfeit)")
    ]
    (notice,) = queued(app, "gm:game_over")
    assert "by forfeit: ann sent no move" in " ".join(plain(notice).split())


def test_the_archive_says_a_game_was_won_by_forfeit(app: App, tmp_path: Path) -> None:
    """Issue 40, finding 21: the game page, the round page and the index of the archive say
    that a game ended by forfeit was won by forfeit."""
    _game(app, kind="three-musketeers", schedule="48h", settings={"reminders": []})
    _at(app, hours=72)
    build_archive(app.engine, tmp_path / "site", authority="pbem.example.org")
    game_page = (tmp_path / "site" / "g1" / "index.html").read_text()
    assert "ben wins the game by forfeit." in game_page
    assert (
        "ben wins the game by forfeit." in (tmp_path / "site" / "g1" / "round-1.html").read_text()
    )
    index = " ".join(
        re.sub(r"<[^>]+>", " ", (tmp_path / "site" / "index.html").read_text()).split()
    )
    assert "finished ben wins by forfeit" in index


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"grase": "1h"}, "unknown setting 'grase'"),
        ({"reminders": "24h"}, "'reminders' is a list of durations"),
        ({"reminders": ["soon"]}, "'soon' is not a duration"),
        ({"missed_rounds_limit": 0}, "'missed_rounds_limit' is a whole number"),
        ({"early_close": "yes"}, "'early_close' is true or false"),
        ({"show_waiting": "no"}, "'show_waiting' is true or false"),
        ({"require_auth": ["DKIM"]}, "'require_auth' is a list of checks among dkim, spf"),
        ({"require_auth": "dkim"}, "'require_auth' is a list of checks"),
    ],
)
def test_bad_settings_are_refused_with_the_reason(
    app: App, settings: dict[str, Any], says: str
) -> None:
    with pytest.raises(ServiceError, match=says):
        _game(app, settings=settings)


def test_a_bad_schedule_is_refused_when_the_game_is_created(app: App) -> None:
    with pytest.raises(ServiceError, match="'fry' is not a day"):
        _game(app, schedule="fry 21:00")
    with pytest.raises(ServiceError, match="unknown time zone"):
        _game(app, schedule="fri 21:00", time_zone="Europe/Londn")


def test_a_service_down_past_a_deadline_closes_at_once_and_tells_the_game_master(
    app: App,
) -> None:
    """Down from before the deadline (72 h) to 75 h 30 m: the first sweep closes the round and
    the game master learns when the deadline was, when the round closed and how late."""
    _game(app, settings={"reminders": []})
    _at(app, hours=75.5)
    assert _round(app, 1).state == RoundState.REPORTED
    (notice,) = queued(app, "gm:closed_late")
    text = plain(notice)
    assert notice["To"] == "gm@example.org"
    assert "3 hours 30 minutes late" in notice["Subject"]
    assert "Thursday 05 March 2026, 12:00" in text  # the deadline, 72 h after Monday noon
    assert "15:30" in text  # when it closed


def test_a_round_closed_by_a_running_service_tells_the_game_master_nothing(app: App) -> None:
    _game(app, settings={"reminders": []})
    _at(app, hours=72, seconds=30)  # the sweeper's usual delay
    assert _round(app, 1).state == RoundState.REPORTED
    assert queued(app, "gm:closed_late") == []
