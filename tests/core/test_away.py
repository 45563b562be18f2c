"""Time away as time arithmetic (adjudicator/core/away.py; docs/commands.md "Time away"):
absence windows in the player's own days, and reminders moved out of quiet hours and weekend
days, across daylight-saving changes."""

from __future__ import annotations

import contextlib
from datetime import UTC, date, datetime, time, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.core.away import (
    AbsenceAsked,
    AwayError,
    QuietHours,
    Window,
    absence_window,
    days_used,
    last_daily,
    next_daily,
    parse_absence,
    parse_quiet,
    parse_time_of_day,
    parse_weekend,
    quiet_span,
    reminder_moment,
    weekend_text,
)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# --- reading what players write ----------------------------------------------------------------


def test_quiet_hours_read_as_written_and_print_back() -> None:
    hours = parse_quiet("22:00-07:00")
    assert hours == QuietHours(time(22), time(7))
    assert str(hours) == "22:00-07:00"
    assert parse_quiet("2230 to 0645") == QuietHours(time(22, 30), time(6, 45))


@pytest.mark.parametrize("text", ["", "22:00", "25:00-07:00", "22:00-22:00", "late"])
def test_quiet_hours_that_cannot_be_read_are_refused(text: str) -> None:
    with pytest.raises(AwayError):
        parse_quiet(text)


@given(st.integers(0, 23 * 60 + 59), st.integers(0, 23 * 60 + 59))
def test_quiet_hours_round_trip(start: int, end: int) -> None:
    if start == end:
        return
    hours = QuietHours(time(*divmod(start, 60)), time(*divmod(end, 60)))
    assert parse_quiet(str(hours)) == hours


def test_weekend_days_read_in_every_common_spelling() -> None:
    assert parse_weekend("sat,sun") == frozenset({5, 6})
    assert parse_weekend("Saturday and Sunday") == frozenset({5, 6})
    assert parse_weekend("fri-sun") == frozenset({4, 5, 6})
    assert weekend_text(parse_weekend("sun sat")) == "sat,sun"


def test_a_week_of_weekend_days_is_refused_it_would_leave_no_time_for_reminders() -> None:
    with pytest.raises(AwayError, match="no day for reminders"):
        parse_weekend("mon-sun")


def test_absences_read_as_dates_or_days() -> None:
    assert parse_absence("2026-12-20 2026-12-27") == AbsenceAsked(
        first=date(2026, 12, 20), last=date(2026, 12, 27)
    )
    assert parse_absence("from 2026-12-20 to 2026-12-27") == parse_absence("2026-12-20 2026-12-27")
    assert parse_absence("2026-12-24") == AbsenceAsked(
        first=date(2026, 12, 24), last=date(2026, 12, 24)
    )
    assert parse_absence("5d") == AbsenceAsked(days=5)
    assert parse_absence("5 days") == AbsenceAsked(days=5)


@pytest.mark.parametrize(
    "text", ["2026-12-27 2026-12-20", "2026-02-30", "0d", "next week", "2026-12-20 2027-12-31"]
)
def test_absences_that_cannot_be_read_are_refused(text: str) -> None:
    with pytest.raises(AwayError):
        parse_absence(text)


# --- absence windows ---------------------------------------------------------------------------


def test_a_range_of_dates_runs_from_midnight_to_midnight_across_the_autumn_change() -> None:
    """Europe/London leaves summer time on 2026-10-25: that day has 25 hours and is one day."""
    asked = parse_absence("2026-10-24 2026-10-26")
    window = absence_window(asked, now=utc(2026, 10, 1), zone="Europe/London")
    assert window.starts_at == utc(2026, 10, 23, 23)  # midnight BST
    assert window.ends_at == utc(2026, 10, 27, 0)  # midnight GMT
    assert window.days == 3
    assert window.ends_at - window.starts_at == timedelta(hours=73)


def test_days_from_now_keep_the_wall_clock_across_the_spring_change() -> None:
    """Europe/London enters summer time on 2026-03-29: 5 days from 12:00 GMT end at 12:00 BST."""
    window = absence_window(parse_absence("5d"), now=utc(2026, 3, 27, 12), zone="Europe/London")
    assert window == Window(utc(2026, 3, 27, 12), utc(2026, 4, 1, 11), 5)


def test_a_range_begun_already_starts_now_and_still_costs_its_first_day() -> None:
    now = utc(2026, 12, 20, 15)
    window = absence_window(parse_absence("2026-12-20 2026-12-21"), now=now, zone="UTC")
    assert window == Window(now, utc(2026, 12, 22), 2)


def test_a_range_that_has_passed_is_refused() -> None:
    with pytest.raises(AwayError, match="passed"):
        absence_window(parse_absence("2026-12-01 2026-12-02"), now=utc(2026, 12, 5), zone="UTC")


def test_an_absence_cut_short_costs_the_days_begun_and_one_not_begun_costs_nothing() -> None:
    window = Window(utc(2026, 12, 20), utc(2026, 12, 27), 7)
    assert days_used(window, now=utc(2026, 12, 19)) == 0
    assert days_used(window, now=utc(2026, 12, 20, 1)) == 1
    assert days_used(window, now=utc(2026, 12, 22, 1)) == 3
    assert days_used(window, now=utc(2027, 1, 5)) == 7


# --- reminders and quiet times -----------------------------------------------------------------

NIGHT = QuietHours(time(22), time(7))


def test_a_reminder_outside_quiet_time_goes_out_when_due() -> None:
    due = utc(2026, 12, 15, 12)
    moment = reminder_moment(
        due,
        opened_at=utc(2026, 12, 14),
        deadline=utc(2026, 12, 16),
        zone="UTC",
        quiet=NIGHT,
        weekend=frozenset(),
    )
    assert moment == due


def test_a_reminder_in_quiet_hours_goes_out_the_minute_before_they_begin() -> None:
    """Paris, Tuesday: a reminder due at 23:30 goes out at 21:59."""
    moment = reminder_moment(
        utc(2026, 12, 15, 22, 30),  # 23:30 CET
        opened_at=utc(2026, 12, 14),
        deadline=utc(2026, 12, 16, 20),
        zone="Europe/Paris",
        quiet=NIGHT,
        weekend=frozenset(),
    )
    assert moment == utc(2026, 12, 15, 20, 59)  # 21:59 CET


def test_quiet_hours_over_the_spring_gap_are_eight_hours_long() -> None:
    """Paris skips 02:00-03:00 on 2026-03-29: 22:00 CET to 07:00 CEST is 8 hours."""
    span = quiet_span(utc(2026, 3, 29, 3), zone="Europe/Paris", quiet=NIGHT, weekend=frozenset())
    assert span == (utc(2026, 3, 28, 21), utc(2026, 3, 29, 5))


def test_quiet_hours_and_a_weekend_that_touch_are_one_quiet_time() -> None:
    """Quiet 22:00-07:00 and weekend sat,sun: a reminder due on Sunday noon goes out on Friday
    at 21:59, the last minute before the player's quiet time begins."""
    moment = reminder_moment(
        utc(2026, 12, 13, 12),  # Sunday
        opened_at=utc(2026, 12, 10),
        deadline=utc(2026, 12, 14, 12),
        zone="UTC",
        quiet=NIGHT,
        weekend=frozenset({5, 6}),
    )
    assert moment == utc(2026, 12, 11, 21, 59)  # Friday


def test_a_round_opened_in_quiet_time_reminds_when_it_ends_if_before_the_deadline() -> None:
    moment = reminder_moment(
        utc(2026, 12, 15, 23),
        opened_at=utc(2026, 12, 15, 22, 30),
        deadline=utc(2026, 12, 16, 9),
        zone="UTC",
        quiet=NIGHT,
        weekend=frozenset(),
    )
    assert moment == utc(2026, 12, 16, 7)


def test_a_reminder_never_goes_out_after_the_deadline() -> None:
    moment = reminder_moment(
        utc(2026, 12, 15, 23),
        opened_at=utc(2026, 12, 15, 22, 30),
        deadline=utc(2026, 12, 16, 1),
        zone="UTC",
        quiet=NIGHT,
        weekend=frozenset(),
    )
    assert moment is None


@given(
    st.integers(0, 2 * 365 * 24 * 4),
    st.sampled_from(["UTC", "Europe/London", "America/New_York", "Australia/Sydney"]),
    st.frozensets(st.integers(0, 6), max_size=3),
)
def test_a_moved_reminder_is_never_quiet_never_late_and_never_before_the_round(
    quarters: int, zone: str, weekend: frozenset[int]
) -> None:
    due = utc(2026, 1, 1) + timedelta(minutes=15 * quarters)
    opened, deadline = due - timedelta(hours=30), due + timedelta(hours=20)
    moment = reminder_moment(
        due, opened_at=opened, deadline=deadline, zone=zone, quiet=NIGHT, weekend=weekend
    )
    if moment is None:
        return
    assert opened < moment < deadline
    assert quiet_span(moment, zone=zone, quiet=NIGHT, weekend=weekend) is None


@given(st.text(max_size=40))
def test_arbitrary_text_raises_nothing_but_the_readers_own_error(text: str) -> None:
    for reader in (parse_absence, parse_quiet, parse_weekend):
        with contextlib.suppress(AwayError):
            reader(text)


# --- the daily digest's time of day (SET DIGEST DAILY) -------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"), [("08:00", time(8)), ("8:00", time(8)), ("0730", time(7, 30))]
)
def test_a_time_of_day_is_read_as_players_write_it(text: str, expected: time) -> None:
    assert parse_time_of_day(text) == expected


@pytest.mark.parametrize("text", ["24:00", "8", "eight", "08:60", ""])
def test_what_is_no_time_of_day_is_refused(text: str) -> None:
    with pytest.raises(AwayError):
        parse_time_of_day(text)


def test_the_daily_moment_is_the_wall_clock_of_the_players_zone() -> None:
    """08:00 in Paris is 07:00 UTC in winter and 06:00 UTC in summer (the clocks went forward
    on Sunday 29 March 2026)."""
    eight = time(8)
    assert last_daily(eight, "Europe/Paris", utc(2026, 3, 28, 7, 0)) == utc(2026, 3, 28, 7, 0)
    assert last_daily(eight, "Europe/Paris", utc(2026, 3, 28, 6, 59)) == utc(2026, 3, 27, 7, 0)
    assert next_daily(eight, "Europe/Paris", utc(2026, 3, 28, 7, 0)) == utc(2026, 3, 29, 6, 0)
    assert next_daily(eight, "UTC", utc(2026, 3, 2, 12, 0)) == utc(2026, 3, 3, 8, 0)


def test_a_time_of_day_the_clock_skips_comes_once_that_day() -> None:
    """02:30 does not exist in Paris on 29 March 2026 (02:00 became 03:00): that day it
    counts as 03:30, and it comes once."""
    skipped = time(2, 30)
    moment = next_daily(skipped, "Europe/Paris", utc(2026, 3, 28, 12, 0))
    assert moment == utc(2026, 3, 29, 1, 30)
    assert next_daily(skipped, "Europe/Paris", moment) == utc(2026, 3, 30, 0, 30)
