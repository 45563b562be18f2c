"""A player's time away: absence windows, quiet hours and weekend days, as time arithmetic.

Game-independent and pure (the standard library only; ``now`` is always a parameter):

- **Absence windows** (``SET ABSENCE``): whole days of the player's own calendar. A window of
  dates runs from the start of its first day to the end of its last (local midnight to local
  midnight, so a day of a daylight-saving change counts as one day, 23 or 25 hours long); a
  window of ``5d`` runs from now to the same wall-clock time five days later. Either costs its
  number of days from the game's allowance.
- **Quiet hours** (``SET QUIET 22:00-07:00``) and **weekend days** (``SET WEEKEND sat,sun``):
  wall-clock times in the player's zone during which no reminder reaches them. A reminder due
  then goes out at the last minute before the quiet time begins; when that is before the round
  opened, at the end of the quiet time, provided it still comes before the deadline; else not
  at all. Quiet hours and weekend days that touch make one quiet time (Friday 22:00 to Monday
  07:00).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from adjudicator.core.schedule import DAYS, ScheduleError, parse_days, wall_clock, zone_info

DAY = timedelta(days=1)
QUIET_MARGIN = timedelta(minutes=1)
"""A reminder moved out of a quiet time goes out this long before it begins."""
MAX_ABSENCE_DAYS = 366

_CLOCK = r"([01]?\d|2[0-3]):?([0-5]\d)"
_TIME_SPAN = re.compile(rf"{_CLOCK}\s*(?:-|to|until)\s*{_CLOCK}")
_DAYS_AWAY = re.compile(r"(\d{1,3})\s*(?:d|days?)")
_DATE = r"(\d{4}-\d{2}-\d{2})"
_DATES = re.compile(rf"(?:from\s+)?{_DATE}\s*(?:-|to|until|\s)\s*{_DATE}")
_ONE_DATE = re.compile(_DATE)


class AwayError(ValueError):
    """A window, quiet time or set of days that cannot be read or is not allowed; the message
    says what is expected."""


@dataclass(frozen=True)
class QuietHours:
    """Wall-clock quiet hours, ``start`` up to (not including) ``end``; an ``end`` at or before
    ``start`` runs past midnight (``QuietHours(time(22), time(7))`` is 22:00-07:00)."""

    start: time
    end: time

    def __str__(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M}"


def parse_quiet(text: str) -> QuietHours:
    """``22:00-07:00`` (or ``22:00 to 07:00``, ``2200-0700``) -> ``QuietHours``."""
    match = _TIME_SPAN.fullmatch(text.strip().lower())
    if match is None:
        raise AwayError(
            f"{text!r} is not a span of hours: write e.g. 22:00-07:00 (from 22:00 until 07:00)"
        )
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    if (h1, m1) == (h2, m2):
        raise AwayError(f"{text!r} is no time at all, or the whole day: give two different times")
    return QuietHours(time(h1, m1), time(h2, m2))


def parse_weekend(text: str) -> frozenset[int]:
    """``sat,sun`` (or ``fri-sun``, ``saturday sunday``) -> the days (0 = Monday)."""
    words = text.strip().lower().replace(" and ", ",").replace(" ", ",")
    words = ",".join(w for w in words.split(",") if w)
    try:
        days = parse_days(words) if words else frozenset()
    except ScheduleError as error:
        raise AwayError(str(error)) from None
    if not days:
        raise AwayError("name the days, e.g. sat,sun")
    if len(days) == len(DAYS):
        raise AwayError("a week of weekend days leaves no day for reminders: name fewer days")
    return days


def parse_time_of_day(text: str) -> time:
    """``08:00`` (or ``8:00``, ``0800``) -> the time of day (``SET DIGEST DAILY 08:00``)."""
    match = re.fullmatch(_CLOCK, text.strip().replace(".", ":"))
    if match is None:
        raise AwayError(f"{text!r} is not a time of day: write e.g. 08:00 or 19:30")
    return time(int(match.group(1)), int(match.group(2)))


def last_daily(at: time, zone: str, now: datetime) -> datetime:
    """The last moment, not after ``now``, that the wall clock of ``zone`` showed ``at`` (in
    UTC). A time a clock change skipped that day counts as passed once the clock is past it."""
    tz = zone_info(zone)
    day = now.astimezone(tz).date()
    for back in range(3):
        moment = datetime.combine(day - timedelta(days=back), at, tzinfo=tz).astimezone(UTC)
        if moment <= now:
            return moment
    raise AssertionError("every day has its time of day")


def next_daily(at: time, zone: str, now: datetime) -> datetime:
    """The next moment after ``now`` that the wall clock of ``zone`` shows ``at`` (in UTC)."""
    tz = zone_info(zone)
    day = last_daily(at, zone, now).astimezone(tz).date()
    for ahead in range(1, 4):
        moment = datetime.combine(day + timedelta(days=ahead), at, tzinfo=tz).astimezone(UTC)
        if moment > now:
            return moment
    raise AssertionError("every day has its time of day")


def weekend_text(days: frozenset[int]) -> str:
    return ",".join(DAYS[d] for d in sorted(days))


@dataclass(frozen=True)
class AbsenceAsked:
    """What ``SET ABSENCE`` asks for: a range of dates (``first`` to ``last``, both included),
    or ``days`` from now."""

    first: date | None = None
    last: date | None = None
    days: int | None = None


def parse_absence(text: str) -> AbsenceAsked:
    """``2026-12-20 2026-12-27`` (or ``... to ...``), ``2026-12-24`` (one day), ``5d`` or
    ``5 days``."""
    words = text.strip().lower()
    span = _DAYS_AWAY.fullmatch(words)
    if span is not None:
        days = int(span.group(1))
        if not 1 <= days <= MAX_ABSENCE_DAYS:
            raise AwayError(f"{text!r}: an absence is 1 to {MAX_ABSENCE_DAYS} days long")
        return AbsenceAsked(days=days)
    dates = _DATES.fullmatch(words)
    one = _ONE_DATE.fullmatch(words)
    if dates is None and one is None:
        raise AwayError(
            f"{text!r} is not an absence: write the first and last day away "
            "(SET ABSENCE 2026-12-20 2026-12-27), a number of days from now (SET ABSENCE 5d), "
            "or SET ABSENCE OFF"
        )
    first_text, last_text = dates.groups() if dates is not None else (words, words)
    try:
        first, last = date.fromisoformat(first_text), date.fromisoformat(last_text)
    except ValueError:
        raise AwayError(f"{text!r}: write dates as YYYY-MM-DD, e.g. 2026-12-20") from None
    if last < first:
        raise AwayError(f"{text!r}: the last day away comes before the first")
    if (last - first).days + 1 > MAX_ABSENCE_DAYS:
        raise AwayError(f"{text!r}: an absence is 1 to {MAX_ABSENCE_DAYS} days long")
    return AbsenceAsked(first=first, last=last)


@dataclass(frozen=True)
class Window:
    """An absence as stored: from ``starts_at`` to ``ends_at`` (UTC), costing ``days``."""

    starts_at: datetime
    ends_at: datetime
    days: int


def absence_window(asked: AbsenceAsked, *, now: datetime, zone: str) -> Window:
    """The window ``asked`` stands for in ``zone``. A range of dates that has begun starts now
    (the part that passed is no absence) but still costs its first day; one that has ended
    entirely is refused."""
    tz = zone_info(zone)
    if asked.days is not None:
        local = now.astimezone(tz)
        ends = wall_clock(local.date() + timedelta(days=asked.days), local.time(), tz)
        return Window(now, ends, asked.days)
    assert asked.first is not None
    assert asked.last is not None
    starts = wall_clock(asked.first, time(0), tz)
    ends = wall_clock(asked.last + DAY, time(0), tz)
    if ends <= now:
        raise AwayError(f"{asked.last.isoformat()} has passed already ({zone})")
    return Window(max(starts, now), ends, (asked.last - asked.first).days + 1)


def days_used(window: Window, *, now: datetime) -> int:
    """What a window cut short at ``now`` (``SET ABSENCE OFF``) costs: nothing if it had not
    begun, else each day begun (at most its price)."""
    if now <= window.starts_at:
        return 0
    begun = math.ceil((min(now, window.ends_at) - window.starts_at) / DAY)
    return min(window.days, max(begun, 1))


# --- quiet times -------------------------------------------------------------------------------


def _quiet_spans(
    around: date, tz: ZoneInfo, quiet: QuietHours | None, weekend: frozenset[int]
) -> list[tuple[datetime, datetime]]:
    """The quiet spans (UTC) of the local days within a week and a day of ``around``."""
    spans = []
    for offset in range(-8, 9):
        day = around + timedelta(days=offset)
        if day.weekday() in weekend:
            spans.append((wall_clock(day, time(0), tz), wall_clock(day + DAY, time(0), tz)))
        if quiet is not None:
            end_day = day if quiet.end > quiet.start else day + DAY
            spans.append((wall_clock(day, quiet.start, tz), wall_clock(end_day, quiet.end, tz)))
    return sorted(spans)


def quiet_span(
    moment: datetime, *, zone: str, quiet: QuietHours | None, weekend: frozenset[int]
) -> tuple[datetime, datetime] | None:
    """The whole quiet time (UTC, spans that touch joined) that ``moment`` falls in, if any."""
    if quiet is None and not weekend:
        return None
    tz = zone_info(zone)
    joined: list[tuple[datetime, datetime]] = []
    for start, end in _quiet_spans(moment.astimezone(tz).date(), tz, quiet, weekend):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return next(((s, e) for s, e in joined if s <= moment < e), None)


def reminder_moment(
    due: datetime,
    *,
    opened_at: datetime,
    deadline: datetime,
    zone: str,
    quiet: QuietHours | None,
    weekend: frozenset[int],
) -> datetime | None:
    """When a reminder due at ``due`` reaches a player with these quiet times: ``due`` itself
    outside them; else the last minute before the quiet time begins, if the round was open
    then; else the end of the quiet time, if that is before the deadline; else never (None)."""
    span = quiet_span(due, zone=zone, quiet=quiet, weekend=weekend)
    if span is None:
        return due
    before = span[0] - QUIET_MARGIN
    if before > opened_at:
        return before.astimezone(UTC)
    if span[1] < deadline:
        return span[1].astimezone(UTC)
    return None
