"""Times as a notice shows them: in the reader's own time zone, named once."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

UTC_NAMES = ("UTC", "Etc/UTC")


def local_time(moment: datetime | None, zone: str, *, named: bool = True) -> str:
    """A time as the player reads it, in their own time zone, named once: "Thursday 05 March
    2026, 13:00 CET (Europe/Berlin)" (the name SET TIMEZONE takes, and the abbreviation, which
    tells the two 01:30 of a night that falls back apart), "..., 12:00 UTC". ``named=False``
    leaves out the zone's name, for a list whose heading names it (``zone_name``)."""
    if moment is None:
        return "no deadline set"
    shown = moment.astimezone(ZoneInfo(zone)).strftime("%A %d %B %Y, %H:%M %Z")
    return f"{shown} ({zone})" if named and zone not in UTC_NAMES else shown


def zone_name(zone: str) -> str:
    """A time zone as the mails name it: "UTC", "Europe/Berlin time"."""
    return "UTC" if zone in UTC_NAMES else f"{zone} time"
