"""Deadline schedules, across daylight-saving changes in three time zones.

Expected instants are written from the published clock changes (UTC offsets of each zone),
not computed by the code under test:
- Europe/London: BST (UTC+1) ends 2026-10-25 02:00 -> 01:00; begins 2027-03-28 01:00 -> 02:00
  (local clock times).
- America/New_York: EDT (UTC-4) ends 2026-11-01 02:00 -> 01:00; begins 2027-03-14 02:00 -> 03:00.
- Australia/Sydney: AEDT (UTC+11) begins 2026-10-04 02:00 -> 03:00; ends 2027-04-04 03:00 -> 02:00.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.core.schedule import (
    ScheduleError,
    duration_in_words,
    parse_duration,
    parse_schedule,
)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_a_duration_is_elapsed_time_even_across_a_clock_change() -> None:
    schedule = parse_schedule("72h")
    opened = utc(2026, 10, 24, 11, 0)  # Saturday 12:00 BST in London
    # 72 elapsed hours later; the wall clock in London then reads 11:00 GMT, not 12:00.
    assert schedule.deadline(opened, "Europe/London") == utc(2026, 10, 27, 11, 0)
    assert parse_schedule("1d12h").deadline(opened, "UTC") == opened + timedelta(hours=36)


@pytest.mark.parametrize(
    ("zone", "opened", "before", "after"),
    [
        # Friday 21:00 in London: 20:00 UTC in summer time, 21:00 UTC in winter.
        ("Europe/London", utc(2026, 10, 21, 12), utc(2026, 10, 23, 20), utc(2026, 10, 30, 21)),
        # Friday 21:00 in New York: 01:00 UTC next day under EDT, 02:00 UTC under EST.
        ("America/New_York", utc(2026, 10, 28, 12), utc(2026, 10, 31, 1), utc(2026, 11, 7, 2)),
        # Friday 21:00 in Sydney: 11:00 UTC under AEST, 10:00 UTC under AEDT.
        ("Australia/Sydney", utc(2026, 9, 30, 12), utc(2026, 10, 2, 11), utc(2026, 10, 9, 10)),
    ],
)
def test_a_calendar_deadline_keeps_its_wall_clock_time_across_the_change(
    zone: str, opened: datetime, before: datetime, after: datetime
) -> None:
    schedule = parse_schedule("fri 21:00")
    first = schedule.deadline(opened, zone)
    assert first == before
    assert schedule.deadline(first, zone) == after  # the next round opens at the deadline


@pytest.mark.parametrize(
    ("zone", "when", "day", "expected"),
    [
        # These times do not exist on these Sundays: they are read an hour later on the new clock.
        ("Europe/London", "01:30", utc(2027, 3, 26), utc(2027, 3, 28, 1, 30)),  # 02:30 BST
        ("America/New_York", "02:30", utc(2027, 3, 12), utc(2027, 3, 14, 7, 30)),  # 03:30 EDT
        ("Australia/Sydney", "02:30", utc(2026, 10, 1), utc(2026, 10, 3, 16, 30)),  # 03:30 AEDT
    ],
)
def test_a_time_in_the_spring_gap_moves_forward_by_the_gap(
    zone: str, when: str, day: datetime, expected: datetime
) -> None:
    assert parse_schedule(f"sun {when}").deadline(day, zone) == expected


@pytest.mark.parametrize(
    ("zone", "when", "day", "expected"),
    [
        # The repeated hour: the first 01:30 (still summer time) is the deadline.
        ("Europe/London", "01:30", utc(2026, 10, 22), utc(2026, 10, 25, 0, 30)),  # BST
        ("America/New_York", "01:30", utc(2026, 10, 29), utc(2026, 11, 1, 5, 30)),  # EDT
        ("Australia/Sydney", "02:30", utc(2027, 4, 1), utc(2027, 4, 3, 15, 30)),  # AEDT
    ],
)
def test_a_time_in_the_autumn_fold_is_the_first_of_the_two(
    zone: str, when: str, day: datetime, expected: datetime
) -> None:
    assert parse_schedule(f"sun {when}").deadline(day, zone) == expected


def test_the_minimum_time_for_orders_skips_a_slot_that_comes_too_soon() -> None:
    tuesday_2030 = utc(2026, 11, 24, 20, 30)  # London is on GMT: 20:30 local
    assert parse_schedule("tue,fri 21:00").deadline(tuesday_2030, "Europe/London") == utc(
        2026, 11, 27, 21
    )  # default min 1h: not in 30 minutes, Friday
    short = parse_schedule("tue,fri 21:00 min 15m")
    assert short.deadline(tuesday_2030, "Europe/London") == utc(2026, 11, 24, 21)
    long = parse_schedule("every tue/fri 21:00 min 4d")
    assert long.deadline(tuesday_2030, "Europe/London") == utc(2026, 12, 1, 21)


def test_day_ranges_lists_and_several_times() -> None:
    weekdays = parse_schedule("mon-fri 18:00")
    assert sorted(weekdays.days) == [0, 1, 2, 3, 4]
    assert sorted(parse_schedule("fri-mon 18:00").days) == [0, 4, 5, 6]  # wraps the weekend
    twice = parse_schedule("daily 09:00,21:00 min 0m")
    saturday_noon = utc(2026, 11, 21, 12)
    assert twice.deadline(saturday_noon, "UTC") == utc(2026, 11, 21, 21)
    assert twice.deadline(utc(2026, 11, 21, 22), "UTC") == utc(2026, 11, 22, 9)
    assert parse_schedule("Tuesday, Friday 21:00").days == frozenset({1, 4})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty schedule"),
        ("72", "cannot read schedule"),
        ("0h", "no time at all"),
        ("fry 21:00", "'fry' is not a day"),
        ("fri 25:00", "'25:00' is not a time of day"),
        ("fri 21:00 min soon", "'soon' is not a duration"),
        ("fri", "cannot read schedule"),
    ],
)
def test_a_bad_schedule_says_what_is_expected(text: str, says: str) -> None:
    with pytest.raises(ScheduleError, match=says):
        parse_schedule(text)


def test_an_unknown_time_zone_is_named() -> None:
    with pytest.raises(ScheduleError, match="unknown time zone 'Mars/Olympus'"):
        parse_schedule("fri 21:00").deadline(utc(2026, 11, 21), "Mars/Olympus")


def test_durations() -> None:
    assert parse_duration("2d") == timedelta(days=2)
    assert parse_duration("90m") == timedelta(minutes=90)
    with pytest.raises(ScheduleError):
        parse_duration("1w")


def test_a_duration_is_said_as_a_person_says_it() -> None:
    """Issue 40, finding 21: "due in 15 minutes", not "14 minutes 59 seconds"."""
    assert duration_in_words(timedelta(minutes=14, seconds=59)) == "15 minutes"
    assert duration_in_words(timedelta(hours=1, minutes=59, seconds=59)) == "2 hours"
    assert duration_in_words(timedelta(days=1, hours=3, minutes=10)) == "1 day 3 hours"
    assert duration_in_words(timedelta(hours=3, minutes=1)) == "3 hours 1 minute"
    assert duration_in_words(timedelta(seconds=20)) == "20 seconds"
    assert duration_in_words(timedelta(seconds=1)) == "1 second"
