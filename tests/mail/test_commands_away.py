"""SET ABSENCE, SET QUIET and SET WEEKEND read from a mail's lines (docs/commands.md "Time
away"): each form players write, OFF, and wrong arguments answered rather than guessed."""

from __future__ import annotations

from datetime import date, time

import pytest

from adjudicator.core.away import AbsenceAsked, QuietHours
from adjudicator.mail.commands import (
    MailSection,
    Orders,
    SetAbsence,
    SetQuiet,
    SetTimeZone,
    SetWeekend,
    read_section,
)
from adjudicator.mail.parse import Section, SectionLine


def read(*texts: str) -> MailSection:
    lines = tuple(SectionLine(n, text) for n, text in enumerate(texts, start=1))
    return read_section(Section("gw1", lines))


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("SET ABSENCE 2026-12-20 2026-12-27", AbsenceAsked(date(2026, 12, 20), date(2026, 12, 27))),
        (
            "set absence from 2026-12-20 to 2026-12-27",
            AbsenceAsked(date(2026, 12, 20), date(2026, 12, 27)),
        ),
        ("Set Absence 2026-12-24", AbsenceAsked(date(2026, 12, 24), date(2026, 12, 24))),
        ("SET ABSENCE 5d", AbsenceAsked(days=5)),
        ("SET VACATION 5 days", AbsenceAsked(days=5)),
        ("SET ABSENCE OFF", None),
        ("set absence off", None),
    ],
)
def test_absence_lines_are_read_into_the_window_asked(
    text: str, asked: AbsenceAsked | None
) -> None:
    section = read(text)
    assert section.of_type(SetAbsence) == [SetAbsence(asked, SectionLine(1, text))]
    assert section.problems == ()
    assert section.needs_seat  # only a proven player may announce an absence


def test_quiet_hours_and_weekend_days_and_off() -> None:
    section = read(
        "SET QUIET 22:00-07:00", "SET WEEKEND sat,sun", "SET QUIET OFF", "SET WEEKEND OFF"
    )
    assert [c for c in section.commands if not isinstance(c, Orders)] == [
        SetQuiet(QuietHours(time(22), time(7)), SectionLine(1, "SET QUIET 22:00-07:00")),
        SetWeekend(frozenset({5, 6}), SectionLine(2, "SET WEEKEND sat,sun")),
        SetQuiet(None, SectionLine(3, "SET QUIET OFF")),
        SetWeekend(frozenset(), SectionLine(4, "SET WEEKEND OFF")),
    ]


@pytest.mark.parametrize(
    ("text", "command", "says"),
    [
        ("SET ABSENCE next week", SetAbsence, "write the first and last day away"),
        ("SET ABSENCE 2026-12-27 2026-12-20", SetAbsence, "the last day away comes before"),
        ("SET QUIET nights", SetQuiet, "write e.g. 22:00-07:00"),
        ("SET WEEKEND caturday", SetWeekend, "'caturday' is not a day"),
    ],
)
def test_wrong_arguments_are_a_problem_naming_the_form(text: str, command: type, says: str) -> None:
    section = read(text)
    (problem,) = section.problems
    assert problem.command is command
    assert says in problem.message
    assert not section.of_type(command)


def test_the_other_settings_are_read_as_before() -> None:
    section = read("SET TIMEZONE Europe/Paris", "SET QUIETLY please")
    assert section.of_type(SetTimeZone) == [
        SetTimeZone("Europe/Paris", SectionLine(1, "SET TIMEZONE Europe/Paris"))
    ]
    (problem,) = section.problems
    assert "there is no setting 'QUIETLY'" in problem.message
