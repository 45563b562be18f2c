"""Times on the archive's pages: stored in UTC, shown in the game's own time zone, zone named."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from adjudicator.storage.db import aware


def local_time(moment: datetime, zone: str) -> str:
    """``Mon 2 Mar 2026, 13:00 CET``: what a reader in the game's zone sees."""
    local = aware(moment).astimezone(ZoneInfo(zone))
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M %Z}"


def rfc3339(moment: datetime) -> str:
    """``2026-03-02T12:00:00Z``: Atom's and HTML's machine-readable form."""
    return aware(moment).replace(microsecond=0).isoformat().replace("+00:00", "Z")
