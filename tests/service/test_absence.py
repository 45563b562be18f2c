"""Time away at the use-case level (docs/commands.md "Time away"; README, settings
``absence_days`` and ``absence``): SET ABSENCE within the allowance, announced to the game;
deadlines that wait for an absent player, a day of the allowance taken when a deadline would
pass without his orders, once however many callers race; the sequential games' forfeit never
within the allowance; quiet hours and weekend days for reminders."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import count
from typing import Any

import pytest
from playing import (
    START,
    add_orders,
    clock_of,
    new_game,
    plain,
    plans_of_reads,
    player_mail,
    queued,
)
from sqlmodel import Session, select

from adjudicator.service import ServiceError
from adjudicator.service.absence import wait_for_absent
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.games import Credentials, find_game
from adjudicator.service.rounds import RoundContext
from adjudicator.service.status import status_lines
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Absence, GameStatus, Round, RoundState, Seat

_numbers = count()
ORDERS = {"ann": "GIVE 3 TO ben", "ben": "GIVE 3 TO cat", "cat": "GIVE 3 TO ann"}
DEADLINE = START + timedelta(hours=72)  # Thursday 2026-03-05 12:00 UTC


def _game(
    app: App, kind: str = "giveaway", schedule: str = "72h", **settings: Any
) -> dict[str, Credentials]:
    players = ["ann", "ben", "cat"] if kind == "giveaway" else ["ann", "ben"]
    return new_game(
        app, players, name="g1", kind=kind, schedule=schedule, settings=settings,
        gm_address="gm@example.org",
    )  # fmt: skip


def _send(app: App, creds: dict[str, Credentials], handle: str, body: str) -> None:
    secret = creds[handle].secret
    mail = player_mail("g1", handle, f"PASSWORD {secret}\n{body}", number=next(_numbers))
    app.ingest(mail, channel="pipe")


def _at(app: App, **offset: float) -> datetime:
    sweep(app.engine, ctx=app.ctx, now=clock_of(app).at(**offset))
    return app.clock()


def _answer(app: App) -> str:
    answers = queued(app, "answer")
    assert answers
    return " ".join(plain(answers[-1]).split())


def _round(app: App, number: int = 1) -> Round:
    with Session(app.engine) as session:
        return session.exec(select(Round).where(Round.number == number)).one()


def _absences(app: App) -> list[tuple[str, int, bool]]:
    with Session(app.engine) as session:
        handles = {s.id: s.handle for s in session.exec(select(Seat))}
        rows = session.exec(select(Absence).order_by(Absence.starts_at)).all()  # type: ignore[arg-type]
        return [(handles[a.seat_id], a.days, a.automatic) for a in rows]


def _recipients(app: App, kind: str) -> list[str]:
    return sorted(str(m["To"]) for m in queued(app, kind))


# --- SET ABSENCE -------------------------------------------------------------------------------


def test_an_absence_within_the_allowance_is_taken_and_announced_to_everyone(app: App) -> None:
    creds = _game(app, absence_days=10)
    _send(app, creds, "cat", "SET ABSENCE 2026-03-10 2026-03-13")
    answer = _answer(app)
    assert "you are away from Tuesday 10 March 2026, 00:00 UTC until Saturday 14 March" in answer
    assert "It costs 4 days; you have 6 days of absence left in this game" in answer
    assert _absences(app) == [("cat", 4, False)]
    assert _recipients(app, "absence") == [
        "ann@example.org",
        "ben@example.org",
        "cat@example.org",
        "gm@example.org",
    ]
    told = next(m for m in queued(app, "absence") if m["To"] == "ann@example.org")
    assert told["Subject"] == "[g1] cat is away until Saturday 14 March 2026, 00:00 UTC"
    text = " ".join(plain(told).split())
    assert "a round with no orders from cat gets the game's rule for missing orders" in text
    assert "4 days of cat's absence allowance; 6 days left" in text


def test_an_absence_beyond_the_allowance_is_refused_with_the_days_left(app: App) -> None:
    creds = _game(app, absence_days=5)
    _send(app, creds, "cat", "SET ABSENCE 3d")
    _send(app, creds, "cat", "SET ABSENCE 2026-03-20 2026-03-22")
    answer = _answer(app)
    assert "that is 3 days away, and you have 2 of your 5 days of absence in game g1 left" in answer
    assert _absences(app) == [("cat", 3, False)]
    assert len(queued(app, "absence")) == 4  # the first one only, to 3 players and the GM


def test_an_absence_in_a_game_without_allowance_is_refused(app: App) -> None:
    creds = _game(app)
    _send(app, creds, "cat", "SET ABSENCE 2d")
    assert "game g1 has no absence allowance" in _answer(app)
    assert _absences(app) == []
    assert queued(app, "absence") == []


def test_overlapping_absences_are_refused(app: App) -> None:
    creds = _game(app, absence_days=20)
    _send(app, creds, "cat", "SET ABSENCE 2026-03-10 2026-03-13")
    _send(app, creds, "cat", "SET ABSENCE 2026-03-12 2026-03-15")
    assert "you are away already from" in _answer(app)
    assert "write SET ABSENCE OFF first" in _answer(app)
    assert _absences(app) == [("cat", 4, False)]


def test_absence_off_gives_back_the_days_not_begun_and_tells_the_game(app: App) -> None:
    creds = _game(app, absence_days=10)
    _send(app, creds, "cat", "SET ABSENCE 5d")  # from Monday noon
    clock_of(app).at(days=1, hours=2)  # Tuesday 14:00: the second day has begun
    _send(app, creds, "cat", "SET ABSENCE OFF")
    assert "you have 8 days of absence left" in _answer(app)
    assert _absences(app) == [("cat", 2, False)]
    back = next(m for m in queued(app, "absence") if m["Subject"] == "[g1] cat is back")
    assert back["To"] in {"ann@example.org", "ben@example.org", "cat@example.org"}


def test_status_shows_absences_and_days_left(app: App) -> None:
    creds = _game(app, absence_days=10, absence="wait")
    _send(app, creds, "cat", "SET ABSENCE 2026-03-10 2026-03-11")
    _send(app, creds, "cat", "STATUS")
    answer = _answer(app)
    assert "Absence: 8 of your 10 days left in this game" in answer
    assert "away from Tuesday 10 March 2026, 00:00 UTC until Thursday 12 March" in answer
    assert "the game's deadlines wait for you" in answer


@pytest.mark.parametrize(
    ("kind", "settings", "says"),
    [
        ("giveaway", {"absence_days": -1}, "'absence_days' is each player's absence allowance"),
        ("giveaway", {"absence_days": "14"}, "'absence_days' is each player's absence allowance"),
        ("giveaway", {"absence": "pause"}, "'absence' is one of wait, nmr"),
        ("three-musketeers", {"absence": "nmr"}, "'absence' must be wait in a game played in"),
    ],
)
def test_bad_absence_settings_are_refused(
    app: App, kind: str, settings: dict[str, Any], says: str
) -> None:
    with pytest.raises(ServiceError, match=says):
        _game(app, kind=kind, **settings)


# --- deadlines that wait -----------------------------------------------------------------------


def test_the_deadline_waits_until_an_absent_player_is_back(app: App) -> None:
    """absence=wait: a deadline that falls in cat's absence, without cat's orders, waits."""
    creds = _game(app, absence_days=10, absence="wait", reminders=[])
    _send(app, creds, "cat", "SET ABSENCE 2026-03-04 2026-03-06")  # Wednesday to Friday
    for handle in ("ann", "ben"):
        add_orders(app, "g1", handle, ORDERS[handle])
    _at(app, hours=72)
    round_ = _round(app)
    assert round_.state == RoundState.OPEN
    # cat is back at the end of Friday (his time); the round gives him a day from then.
    assert round_.deadline == START.replace(day=8, hour=0)
    assert _absences(app) == [("cat", 3, False)]  # no day taken besides the window
    waited = next(m for m in queued(app, "absence") if "waits for cat" in str(m["Subject"]))
    text = " ".join(plain(waited).split())
    assert "new deadline: Sunday 08 March 2026, 00:00 UTC" in text
    assert "was: Thursday 05 March 2026, 12:00 UTC" in text
    assert "waits until a day after the absence ends" in text
    (event,) = [p for p in waited.walk() if p.get_content_type() == "text/calendar"]
    assert "DTSTART:20260308T000000Z" in str(event.get_content())  # the calendar entry moves
    add_orders(app, "g1", "cat", ORDERS["cat"])
    _at(app, hours=108)
    assert _round(app).state == RoundState.OPEN  # full time: early close is a separate matter
    _at(app, hours=132)
    assert _round(app).state == RoundState.REPORTED


def test_a_player_the_round_waited_for_is_reminded_once_back_not_while_away(app: App) -> None:
    """The round waits for cat, away Wednesday to Friday, until a day after he is back: the
    game's 24 h reminder reaches him on his return, the 2 h one before the new deadline; none
    reached him while he was away. (The round used to wait only until the very end of the
    absence: he came back to a deadline passing that instant, unreminded.)"""
    creds = _game(app, absence_days=3, absence="wait")  # reminders 24 h and 2 h before
    _send(app, creds, "cat", "SET ABSENCE 2026-03-04 2026-03-06")
    for handle in ("ann", "ben"):
        add_orders(app, "g1", handle, ORDERS[handle])
    _at(app, hours=48)  # Wednesday 12:00, the first 24 h reminder: cat is away
    _at(app, hours=70)  # the 2 h reminder: still away
    _at(app, hours=72)  # the deadline waits
    assert _recipients(app, "reminder") == []
    _at(app, hours=108)  # Saturday 00:00: cat is back, 24 h before the new deadline
    assert _recipients(app, "reminder") == ["cat@example.org"]
    (back,) = queued(app, "reminder")
    assert "due in 1 day" in str(back["Subject"])
    _at(app, hours=130)  # 2 h before the new deadline
    assert _recipients(app, "reminder") == ["cat@example.org", "cat@example.org"]
    _at(app, hours=132)
    # cat sent nothing and the window spent his allowance: the round closes.
    assert _round(app).state == RoundState.REPORTED


def test_a_deadline_without_orders_takes_a_day_a_time_until_the_allowance_is_spent(
    app: App,
) -> None:
    _game(app, absence_days=2, absence="wait", reminders=[])
    for handle in ("ann", "ben"):
        add_orders(app, "g1", handle, ORDERS[handle])
    _at(app, hours=72)
    assert _round(app).deadline == DEADLINE + timedelta(days=1)
    assert _absences(app) == [("cat", 1, True)]
    subject = str(queued(app, "absence")[0]["Subject"])
    assert (
        subject == "[g1] Round 1 waits for cat: the deadline is now Friday 06 March 2026, 12:00 UTC"
    )
    to_ann = next(m for m in queued(app, "absence") if m["To"] == "ann@example.org")
    text = " ".join(plain(to_ann).split())
    assert "came without orders from cat" in text
    assert "one day is taken from the allowance and the round waits a day" in text
    assert "cat: 1 day of absence left after this one" in text
    to_cat = next(m for m in queued(app, "absence") if m["To"] == "cat@example.org")
    assert "We still have no orders from you: send them before the new deadline" in plain(to_cat)
    _at(app, hours=96)
    assert _round(app).deadline == DEADLINE + timedelta(days=2)
    assert _absences(app) == [("cat", 1, True), ("cat", 1, True)]
    _at(app, hours=120)  # the allowance is spent: the no-orders rule applies
    assert _round(app).state == RoundState.REPORTED
    assert len(_absences(app)) == 2


def test_the_same_deadline_seen_twice_takes_one_day(app: App) -> None:
    _game(app, absence_days=5, absence="wait", reminders=[])
    _at(app, hours=72)
    _at(app, hours=72)
    assert _round(app).deadline == DEADLINE + timedelta(days=1)
    assert sorted(_absences(app)) == [("ann", 1, True), ("ben", 1, True), ("cat", 1, True)]


def test_two_instances_at_the_same_deadline_take_the_day_once(pg_app: App) -> None:
    """Another instance moves the deadline between this one's read and its write: the
    compare-and-set on the deadline fails, and no day is spent twice."""
    app = pg_app
    _game(app, absence_days=5, absence="wait", reminders=[])
    now = clock_of(app).at(hours=72)
    round_id = _round(app).id
    assert round_id is not None
    with session_scope(app.engine) as slow:
        context = RoundContext.load(slow, round_id)
        assert context is not None
        sweep(app.engine, ctx=app.ctx, now=now)  # the other instance, committed
        assert wait_for_absent(slow, context, ctx=app.ctx, now=now) == DEADLINE + timedelta(days=1)
    assert _round(app).deadline == DEADLINE + timedelta(days=1)
    assert len(_absences(app)) == 3
    assert len(queued(app, "absence")) == 4  # one announcement to 3 players and the GM


def test_a_sequential_game_never_forfeits_within_the_allowance(app: App) -> None:
    """Three Musketeers, timeout=forfeit: the absence allowance comes before the grace period
    and its forfeit."""
    _game(app, kind="three-musketeers", schedule="48h", absence_days=2, reminders=[])
    _at(app, hours=48)
    _at(app, hours=72)
    assert _absences(app) == [("ann", 1, True), ("ann", 1, True)]
    assert queued(app, "grace_late") == []
    _at(app, hours=96)  # spent: the grace period starts
    assert [m["To"] for m in queued(app, "grace_late")] == ["ann@example.org"]
    _at(app, hours=120)
    with Session(app.engine) as session:
        assert find_game(session, "g1").status == GameStatus.FINISHED


def test_an_absent_player_in_a_no_orders_game_gets_no_reminder_and_no_missed_round(
    app: App,
) -> None:
    creds = _game(app, absence_days=10, missed_rounds_limit=1)
    _send(app, creds, "cat", "SET ABSENCE 2026-03-03 2026-03-06")
    _at(app, hours=48)
    assert _recipients(app, "reminder") == ["ann@example.org", "ben@example.org"]
    _at(app, hours=72)
    assert _round(app).state == RoundState.REPORTED  # the deadline did not wait
    with Session(app.engine) as session:
        missed = {s.handle: s.missed_rounds for s in session.exec(select(Seat))}
    assert missed == {"ann": 1, "ben": 1, "cat": 0}
    assert sorted(str(m["Subject"]) for m in queued(app, "gm:missed_rounds")) == [
        "[g1] ann has missed 1 round in a row",
        "[g1] ben has missed 1 round in a row",
    ]


# --- quiet hours and weekend days --------------------------------------------------------------


def test_a_reminder_in_quiet_hours_goes_out_before_them_and_only_once(app: App) -> None:
    """The 72 h round closes Thursday 12:00 UTC; the 2 h reminder is due at 10:00 UTC, 11:00
    in Paris. Cat's quiet hours, 10:00-12:00 in Paris (09:00-11:00 UTC), take it to 08:59
    UTC; the others get it at 10:00 as usual, cat not again."""
    creds = _game(app)
    _send(app, creds, "cat", "SET TIMEZONE Europe/Paris\nSET QUIET 10:00-12:00")
    assert "No reminders reach you between 10:00 and 12:00 (Europe/Paris)" in _answer(app)
    _at(app, hours=48)  # the 24 h reminder, to all three
    assert len(queued(app, "reminder")) == 3
    _at(app, hours=68, minutes=58)
    assert len(queued(app, "reminder")) == 3
    _at(app, hours=68, minutes=59)
    assert [m["To"] for m in queued(app, "reminder")[3:]] == ["cat@example.org"]
    assert "due in 3 hours 1 minute" in str(queued(app, "reminder")[3]["Subject"])
    _at(app, hours=70)
    assert sorted(str(m["To"]) for m in queued(app, "reminder")[4:]) == [
        "ann@example.org",
        "ben@example.org",
    ]


def test_the_sweeper_reads_the_quiet_times_of_the_games_being_played_only(app: App) -> None:
    """Every 30 s the sweeper asks which seats have quiet hours or weekend days. It asks for
    the seats of the games with an open round, through their index (SQLite's plan), not by
    going through every seat of every game ever played; the reminders are the same."""
    creds = _game(app)
    _send(app, creds, "cat", "SET TIMEZONE Europe/Paris\nSET QUIET 10:00-12:00")
    _at(app, hours=48)  # the 24 h reminder, to all three
    # cat's reminder, taken before the quiet hours
    plans = plans_of_reads(app, "seat", lambda: _at(app, hours=68, minutes=59))
    assert [m["To"] for m in queued(app, "reminder")[3:]] == ["cat@example.org"]
    assert plans
    for steps in plans:
        assert not any(step.startswith("SCAN seat") for step in steps), steps


def test_weekend_days_and_off(app: App) -> None:
    creds = _game(app)
    _send(app, creds, "cat", "SET WEEKEND sat,sun")
    assert "No reminders reach you on Saturdays and Sundays (UTC)" in _answer(app)
    _send(app, creds, "cat", "SET WEEKEND OFF")
    assert "Reminders reach you at any hour and on any day again" in _answer(app)
    with Session(app.engine) as session:
        assert session.exec(select(Seat).where(Seat.handle == "cat")).one().weekend is None


def test_quiet_hours_that_cannot_be_read_are_answered_with_the_form(app: App) -> None:
    creds = _game(app)
    _send(app, creds, "cat", "SET QUIET at night")
    assert "write e.g. 22:00-07:00" in _answer(app)


def test_an_absence_in_the_players_zone_spans_the_daylight_saving_change(app: App) -> None:
    """New York enters summer time on 2026-03-08: an absence to the end of 2026-03-09 (New
    York) ends at midnight EDT, 04:00 UTC, and the deadline that fell in it waits until a day
    after; five days of the allowance, one of them 23 hours long."""
    creds = _game(app, absence_days=10, absence="wait", reminders=[])
    _send(app, creds, "cat", "SET TIMEZONE America/New_York\nSET ABSENCE 2026-03-05 2026-03-09")
    assert "It costs 5 days" in _answer(app)
    _at(app, hours=72)
    assert _round(app).deadline == START.replace(day=11, hour=4)
    assert _absences(app) == [("cat", 5, False)]


def test_the_game_masters_status_marks_a_player_away(app: App) -> None:
    creds = _game(app, absence_days=10)
    _send(app, creds, "cat", "SET ABSENCE 2d")
    with Session(app.engine) as session:
        lines = status_lines(session, name="g1", now=app.clock())
        later = status_lines(session, name="g1", now=START + timedelta(days=3))
    (cat,) = [line for line in lines if line.strip().startswith("cat ")]
    assert cat.endswith("(away until Wednesday 04 March 2026, 12:00 UTC)")
    assert not any("away until" in line for line in later)


def test_the_welcome_tells_each_player_the_allowance_and_how_to_use_it(app: App) -> None:
    new_game(
        app, ["ann", "ben"], kind="three-musketeers", settings={"absence_days": 7}, welcome=True
    )
    text = " ".join(plain(queued(app, "welcome")[0]).split())
    assert "You have 7 days of absence in this game: SET ABSENCE 5d" in text
    assert "the deadlines wait for you" in text
    assert "A deadline that finds no orders from you takes a day of them by itself" in text
