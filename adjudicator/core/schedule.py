"""Deadline schedules: when a round opened at some moment must close.

Two kinds, written the way a game master says them:

- **A duration** after the round opens: ``72h``, ``30m``, ``2d``, ``1d12h``. Elapsed time, so
  daylight-saving changes do not matter: 72 hours are 72 hours.
- **A calendar**: days and times of the wall clock in the game's time zone:
  ``tue,fri 21:00``, ``mon-fri 18:00``, ``daily 09:00,21:00``, optionally with a minimum time
  for orders, ``tue,fri 21:00 min 24h`` (default ``min 1h``): the deadline is the first listed
  moment at least that long after the round opens.

Calendar deadlines are wall-clock times across daylight-saving changes: "Friday 21:00
Europe/London" is 21:00 in winter and in summer. A time that does not exist on a day (it falls
in the hour skipped in spring) moves forward by the length of the gap, as the clocks did
(02:30 becomes 03:30); a time that exists twice (the repeated hour in autumn) is the first of
the two.

Pure: the standard library only; time zones come from ``zoneinfo``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_LONG_DAYS = {
    "monday": "mon",
    "tuesday": "tue",
    "wednesday": "wed",
    "thursday": "thu",
    "friday": "fri",
    "saturday": "sat",
    "sunday": "sun",
    "tues": "tue",
    "thur": "thu",
    "thurs": "thu",
}
_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$")
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
DEFAULT_MIN_LEAD = timedelta(hours=1)


class ScheduleError(ValueError):
    """A schedule that cannot be read; the message says what is expected."""


def parse_duration(text: str, *, zero: bool = False) -> timedelta:
    """``72h``, ``30m``, ``2d``, ``1d12h`` -> a positive timedelta (or zero, if allowed)."""
    match = _DURATION.match(text.strip().lower().replace(" ", ""))
    if not match or not any(match.groups()):
        raise ScheduleError(f"{text!r} is not a duration: write e.g. 72h, 30m, 2d or 1d12h")
    days, hours, minutes = (int(g or 0) for g in match.groups())
    duration = timedelta(days=days, hours=hours, minutes=minutes)
    if duration < timedelta(0) or (duration == timedelta(0) and not zero):
        raise ScheduleError(f"{text!r} is no time at all: give a positive duration")
    return duration


def format_duration(duration: timedelta) -> str:
    minutes = int(duration.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [
        f"{days}d" if days else "",
        f"{hours}h" if hours else "",
        f"{minutes}m" if minutes else "",
    ]
    return "".join(parts) or "0m"


def duration_in_words(duration: timedelta) -> str:
    """``1 day 3 hours``, ``2 hours``, ``15 minutes``, ``20 seconds``: as a person says it,
    rounded to the unit below the largest (days to the hour, hours to the minute, a minute or
    more to the minute), at most two units, and never ``0m`` for a short time. A reminder sent a
    second after its time is "due in 15 minutes", not "14 minutes 59 seconds"."""
    seconds = max(round(duration.total_seconds()), 0)
    step = 1 if seconds < 60 else 60 if seconds < 86_400 - 30 else 3_600
    seconds = (seconds + step // 2) // step * step
    units = (("day", 86_400), ("hour", 3_600), ("minute", 60), ("second", 1))
    words = []
    for name, size in units:
        count, seconds = divmod(seconds, size)
        if count:
            words.append(f"{count} {name}{'' if count == 1 else 's'}")
        if len(words) == 2 or (words and count == 0):
            break
    return " ".join(words) or "0 seconds"


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule. ``after`` for durations; ``days`` (0 = Monday), ``times`` and
    ``min_lead`` for calendars."""

    text: str
    after: timedelta | None = None
    days: frozenset[int] = frozenset()
    times: tuple[time, ...] = ()
    min_lead: timedelta = DEFAULT_MIN_LEAD

    @property
    def is_calendar(self) -> bool:
        return self.after is None

    def deadline(self, opened_at: datetime, zone: str) -> datetime:
        """The deadline of a round opened at ``opened_at`` (aware), in UTC."""
        if opened_at.tzinfo is None:
            raise ValueError("opened_at must be timezone-aware")
        if self.after is not None:
            return (opened_at + self.after).astimezone(UTC)
        return self.next_slot(opened_at + self.min_lead, zone)

    def next_slot(self, earliest: datetime, zone: str) -> datetime:
        """The first calendar moment at or after ``earliest``, in UTC."""
        tz = zone_info(zone)
        local_day = earliest.astimezone(tz).date()
        for offset in range(0, 9):  # a week, plus the days a gap or a fold can push over
            day = local_day + timedelta(days=offset)
            if day.weekday() not in self.days:
                continue
            for moment in sorted(wall_clock(day, t, tz) for t in self.times):
                if moment >= earliest:
                    return moment
        raise AssertionError("a calendar with at least one day has a slot within a week")


def zone_info(zone: str) -> ZoneInfo:
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(
            f"unknown time zone {zone!r}: use an IANA name like Europe/London"
        ) from None


def wall_clock(day: date, at: time, tz: ZoneInfo) -> datetime:
    """``day`` at wall-clock ``at`` in ``tz``, as UTC: forward across a gap, first of a fold."""
    # fold=0 (PEP 495): in a fold, the earlier of the two moments; in a gap, the time read with
    # the offset from before the change, which lands the gap's length later on the new clock
    # (02:30 -> 03:30 when the clocks go from 02:00 to 03:00).
    return datetime.combine(day, at, tzinfo=tz).astimezone(UTC)


def parse_schedule(text: str) -> Schedule:
    """Read a schedule; ``ScheduleError`` says what was wrong and what is expected."""
    words = text.strip().lower().replace("/", ",").replace(", ", ",").split()
    if not words:
        raise ScheduleError("empty schedule: write e.g. 72h, or tue,fri 21:00")
    if len(words) == 1 and _DURATION.match(words[0]):
        return Schedule(text=text.strip(), after=parse_duration(words[0]))
    if words[0] == "every":
        words = words[1:]
    min_lead = DEFAULT_MIN_LEAD
    if len(words) >= 2 and words[-2] == "min":
        min_lead = parse_duration(words[-1], zero=True)
        words = words[:-2]
    if len(words) != 2:
        raise ScheduleError(
            f"cannot read schedule {text!r}: write a duration (72h) or days and times "
            "(tue,fri 21:00; mon-fri 18:00; daily 09:00,21:00), optionally followed by min 24h"
        )
    return Schedule(
        text=text.strip(),
        days=parse_days(words[0]),
        times=_parse_times(words[1]),
        min_lead=min_lead,
    )


def parse_days(text: str) -> frozenset[int]:
    """``tue,fri``, ``mon-fri``, ``daily``, ``weekdays`` -> the days (0 = Monday)."""
    if text in ("daily", "everyday"):
        return frozenset(range(7))
    if text == "weekdays":
        return frozenset(range(5))
    days: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.partition("-")
        start = _day(first)
        end = _day(last) if dash else start
        span = (end - start) % 7
        days.update((start + i) % 7 for i in range(span + 1))
    return frozenset(days)


def _day(word: str) -> int:
    word = _LONG_DAYS.get(word, word)
    if word not in DAYS:
        raise ScheduleError(f"{word!r} is not a day: use mon, tue, wed, thu, fri, sat or sun")
    return DAYS.index(word)


def _parse_times(text: str) -> tuple[time, ...]:
    times = []
    for part in text.split(","):
        match = _TIME.match(part)
        if not match:
            raise ScheduleError(f"{part!r} is not a time of day: write it as HH:MM, e.g. 21:00")
        times.append(time(int(match.group(1)), int(match.group(2))))
    return tuple(sorted(set(times)))
