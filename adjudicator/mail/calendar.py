"""The deadline of a round as an iCalendar (RFC 5545) event, attached to round-start mails.

One event per game and round: its UID names the game and round, so a calendar that imported
it replaces it when a later mail brings the same UID with a higher SEQUENCE (a moved
deadline). SEQUENCE is the number of seconds from 2020 to the moment the mail was written: it
grows with every new version of the event whichever way the deadline moved, and needs no
counter in the database. ``METHOD:PUBLISH``: the event is information, not an invitation to
answer.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

EPOCH = datetime(2020, 1, 1, tzinfo=UTC)
PRODUCT = "-//adjudicator//play-by-email deadlines//EN"
ALARM = timedelta(hours=2)
"""Players are reminded this long before the deadline by their own calendar."""


def event_uid(game: str, round_number: int, domain: str) -> str:
    return f"{game}-round-{round_number}-deadline@{domain}"


def sequence_at(moment: datetime) -> int:
    """The SEQUENCE of an event written at ``moment`` (fits RFC 5545's 32-bit INTEGER until
    2088)."""
    return max(0, int((moment - EPOCH).total_seconds()))


def deadline_event(
    *,
    uid: str,
    summary: str,
    description: str,
    deadline: datetime,
    issued: datetime,
    sequence: int | None = None,
    cancelled: bool = False,
) -> bytes:
    """A VCALENDAR with one VEVENT at ``deadline`` (UTC), as UTF-8 bytes with CRLF line ends
    and lines folded at 75 octets. ``cancelled`` marks a round that no longer has this
    deadline (a paused game)."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODUCT}",
        "METHOD:PUBLISH",
        "CALSCALE:GREGORIAN",
        "BEGIN:VEVENT",
        f"UID:{uid}",
        f"SEQUENCE:{sequence_at(issued) if sequence is None else sequence}",
        f"DTSTAMP:{_utc(issued)}",
        f"DTSTART:{_utc(deadline)}",
        f"SUMMARY:{escape_text(summary)}",
        f"DESCRIPTION:{escape_text(description)}",
        f"STATUS:{'CANCELLED' if cancelled else 'CONFIRMED'}",
        "TRANSP:TRANSPARENT",
    ]
    if not cancelled:
        lines += [
            "BEGIN:VALARM",
            "ACTION:DISPLAY",
            f"DESCRIPTION:{escape_text(summary)}",
            f"TRIGGER:-PT{int(ALARM.total_seconds() // 60)}M",
            "END:VALARM",
        ]
    lines += ["END:VEVENT", "END:VCALENDAR"]
    return b"".join(fold(line) + b"\r\n" for line in lines)


def _utc(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError(f"a naive time in a calendar event: {moment!r}")
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def escape_text(value: str) -> str:
    """RFC 5545 3.3.11 TEXT: backslash, semicolon and comma escaped, newlines as ``\\n``."""
    return (
        value.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\n")
        .replace("\n", "\\n")
    )


def fold(line: str, limit: int = 75) -> bytes:
    """RFC 5545 3.1: lines longer than 75 octets go on in continuation lines that start with a
    space; a UTF-8 character is never split."""
    data = line.encode("utf-8")
    if len(data) <= limit:
        return data
    pieces = []
    start, room = 0, limit
    while start < len(data):
        end = min(start + room, len(data))
        while end < len(data) and (data[end] & 0xC0) == 0x80:  # inside a UTF-8 sequence
            end -= 1
        pieces.append(data[start:end])
        start, room = end, limit - 1  # the leading space counts
    return b"\r\n ".join(pieces)
