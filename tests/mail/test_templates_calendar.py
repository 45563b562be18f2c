"""The deadline as an iCalendar event (RFC 5545): one event per game and round, replaced in
the player's calendar when the deadline moves. Parsed here by hand (CRLF, folding, nesting):
the ``icalendar`` package is not among the project's dependencies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.mail.calendar import deadline_event, escape_text, fold
from adjudicator.mail.compose import Identity, Renderer
from adjudicator.notify.calendar import deadline_attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.storage.models import Game, Round

CTX = ServiceContext(identity=Identity("judge@pbem.test"), renderer=Renderer(), receipt_key=b"k")
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def _game() -> Game:
    return Game(name="gw7", kind="giveaway", created_at=NOW)


def _round(deadline: datetime) -> Round:
    return Round(game_id=1, number=3, opened_at=NOW, deadline=deadline)


def parse(data: bytes) -> list[tuple[str, dict[str, str]]]:
    """The calendar as (component path, properties) pairs, checking RFC 5545 framing: CRLF line
    ends, physical lines of at most 75 octets, continuation lines starting with a space,
    BEGIN/END properly nested."""
    assert data.endswith(b"\r\n")
    physical = data[:-2].split(b"\r\n")
    assert all(b"\n" not in line and len(line) <= 75 for line in physical)
    logical: list[str] = []
    for line in physical:
        if line.startswith(b" "):
            logical[-1] += line[1:].decode("utf-8")
        else:
            logical.append(line.decode("utf-8"))
    stack: list[str] = []
    components: list[tuple[str, dict[str, str]]] = []
    for line in logical:
        name, _, value = line.partition(":")
        if name == "BEGIN":
            stack.append(value)
            components.append(("/".join(stack), {}))
        elif name == "END":
            assert stack.pop() == value
        else:
            current = next(c for c in reversed(components) if c[0] == "/".join(stack))
            current[1][name] = value
    assert stack == []
    return components


def _event(data: bytes) -> dict[str, str]:
    return dict(parse(data))["VCALENDAR/VEVENT"]


def test_a_round_deadline_is_one_published_event_with_an_alarm() -> None:
    deadline = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)
    attachment = deadline_attachment(CTX, _game(), _round(deadline), now=NOW)
    assert attachment is not None
    assert (attachment.filename, attachment.maintype, attachment.subtype) == (
        "gw7-round-3.ics",
        "text",
        "calendar",
    )
    components = dict(parse(attachment.content))
    assert components["VCALENDAR"]["METHOD"] == "PUBLISH"
    assert components["VCALENDAR"]["VERSION"] == "2.0"
    event = components["VCALENDAR/VEVENT"]
    assert event["UID"] == "gw7-round-3-deadline@pbem.test"
    assert event["DTSTART"] == "20260305T120000Z"
    assert event["DTSTAMP"] == "20260302T120000Z"
    assert event["SUMMARY"] == "[gw7] Orders due: round 3"
    assert "judge@pbem.test" in event["DESCRIPTION"]
    assert components["VCALENDAR/VEVENT/VALARM"]["TRIGGER"] == "-PT120M"


def test_a_moved_deadline_replaces_the_event_whichever_way_it_moved() -> None:
    """Same UID, higher SEQUENCE, new DTSTART: calendars replace the old event."""
    first = _event(
        deadline_attachment(CTX, _game(), _round(NOW + timedelta(days=3)), now=NOW).content
    )  # type: ignore[union-attr]
    later = _event(
        deadline_attachment(  # type: ignore[union-attr]
            CTX, _game(), _round(NOW + timedelta(days=4)), now=NOW + timedelta(hours=5)
        ).content
    )
    earlier = _event(
        deadline_attachment(  # type: ignore[union-attr]
            CTX, _game(), _round(NOW + timedelta(days=2)), now=NOW + timedelta(hours=6)
        ).content
    )
    assert first["UID"] == later["UID"] == earlier["UID"]
    assert int(first["SEQUENCE"]) < int(later["SEQUENCE"]) < int(earlier["SEQUENCE"])
    assert (first["DTSTART"], later["DTSTART"], earlier["DTSTART"]) == (
        "20260305T120000Z",
        "20260306T120000Z",
        "20260304T120000Z",
    )
    assert int(earlier["SEQUENCE"]) < 2**31  # RFC 5545 INTEGER


def test_no_deadline_no_event() -> None:
    assert (
        deadline_attachment(CTX, _game(), Round(game_id=1, number=1, opened_at=NOW), now=NOW)
        is None
    )
    assert deadline_attachment(CTX, _game(), None, now=NOW) is None


def test_a_paused_game_can_withdraw_the_event() -> None:
    data = deadline_attachment(
        CTX, _game(), _round(NOW + timedelta(days=1)), now=NOW, cancelled=True
    )
    assert data is not None
    components = dict(parse(data.content))
    assert components["VCALENDAR/VEVENT"]["STATUS"] == "CANCELLED"
    assert "VCALENDAR/VEVENT/VALARM" not in components


def test_text_is_escaped_and_long_lines_fold_between_characters() -> None:
    summary = "Zürich, Genève; Łódź \\ " + "ü" * 60
    data = deadline_event(
        uid="x@y",
        summary=summary,
        description="line one\nline two",
        deadline=NOW,
        issued=NOW,
    )
    event = _event(data)  # every physical line decodes: no character was split
    assert event["SUMMARY"] == escape_text(summary)
    assert event["SUMMARY"].startswith("Zürich\\, Genève\\; Łódź \\\\ ")
    assert event["DESCRIPTION"] == "line one\\nline two"
    assert fold("a" * 75) == b"a" * 75
    assert fold("a" * 76) == b"a" * 75 + b"\r\n a"


def test_naive_times_are_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        deadline_event(
            uid="x", summary="s", description="d", deadline=datetime(2026, 1, 1), issued=NOW
        )
