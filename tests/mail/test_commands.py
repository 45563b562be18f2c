"""A mail section read into typed commands: REPORT and HISTORY lines, what is a bad one, what
is left for the game as orders, and which commands need a proven seat."""

from __future__ import annotations

import pytest

from adjudicator.mail.command_specs import needs_seat
from adjudicator.mail.commands import (
    Approve,
    Command,
    History,
    MailSection,
    Orders,
    Report,
    Standby,
    Take,
    read_section,
)
from adjudicator.mail.parse import Section, SectionLine
from adjudicator.mail.requests import LATEST, MAX_REPORTS


def lines(*texts: str) -> list[SectionLine]:
    return [SectionLine(number, text) for number, text in enumerate(texts, start=1)]


def read(*texts: str) -> MailSection:
    return read_section(Section("gw1", tuple(lines(*texts))))


def reports(section: MailSection) -> list[Report]:
    return [c for c in section.commands if isinstance(c, Report)]


def orders(section: MailSection) -> tuple[SectionLine, ...]:
    (found,) = [c for c in section.commands if isinstance(c, Orders)]
    return found.lines


def history(section: MailSection) -> list[Command]:
    return section.of_type(History)


@pytest.mark.parametrize(
    ("text", "rounds"),
    [
        ("REPORT", [LATEST]),
        ("report.", [LATEST]),
        ("  - Report last round", [LATEST]),
        ("REPORT 7", [7]),
        ("report round 7", [7]),
        ("REPORT #7", [7]),
        ("reports 3-5", [3, 4, 5]),
        ("REPORT rounds 3 to 5", [3, 4, 5]),
        ("REPORT 3, 5 and 8", [3, 5, 8]),
        ("REPORT 2 2 3", [2, 3]),
        ("send report 4", [4]),
    ],
)
def test_report_lines_name_their_rounds(text: str, rounds: list[int]) -> None:
    section = read(text)
    assert [ask.number for ask in reports(section)] == rounds
    assert orders(section) == ()
    assert section.problems == ()
    assert not history(section)


@pytest.mark.parametrize("text", ["HISTORY", "history.", "Send the game history", "* history"])
def test_history_lines(text: str) -> None:
    section = read(text)
    assert history(section) == [History(SectionLine(1, text))]
    assert orders(section) == ()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("REPORT 0", "rounds are numbered from 1"),
        ("REPORT round seven", "could not read which rounds"),
        ("REPORT 7x", "could not read which rounds"),
        ("REPORT 5-3", "runs backwards: write REPORT 3-5"),
        ("REPORT 1-50", f"at most {MAX_REPORTS} round reports"),
    ],
)
def test_a_bad_report_line_is_a_problem_that_says_why(text: str, why: str) -> None:
    section = read("GIVE 3 TO bob", text)
    [problem] = section.problems
    assert problem.line == SectionLine(2, text)
    assert problem.command is Report
    assert why in problem.message
    assert reports(section) == []
    assert orders(section) == (SectionLine(1, "GIVE 3 TO bob"),)


@pytest.mark.parametrize(
    "text",
    ["Report me to the GM if you like", "History will judge me", "reporting for duty", "GIVE 3"],
)
def test_prose_and_orders_are_left_with_the_orders(text: str) -> None:
    section = read(text)
    assert section.commands == (Orders((SectionLine(1, text),)),)
    assert section.problems == ()


def test_one_mail_asks_for_at_most_so_many_reports() -> None:
    section = read("REPORT 1-8", "REPORT 8-10", "REPORT 11 12", "REPORT 2")
    assert [ask.number for ask in reports(section)] == list(range(1, 11))
    [problem] = section.problems
    assert problem.line.number == 3
    assert "HISTORY" in problem.message


def test_orders_keep_their_line_numbers_around_requests() -> None:
    section = read("GIVE 1 TO bob", "REPORT 2", "GIVE 2 TO carol", "HISTORY")
    assert orders(section) == (SectionLine(1, "GIVE 1 TO bob"), SectionLine(3, "GIVE 2 TO carol"))
    assert [(a.number, a.line.number) for a in reports(section)] == [(2, 2)]
    assert len(history(section)) == 1


def test_every_command_so_far_needs_a_seat_and_orders_come_last() -> None:
    """Orders, reports and the history are a player's business: the intake proves the seat
    before it answers any of them. Orders are always there, last, even when empty."""
    section = read("HISTORY", "GIVE 1 TO bob", "REPORT 1")
    assert section.needs_seat
    assert isinstance(section.commands[-1], Orders)
    assert all(needs_seat(kind) for kind in (Orders, Report, History))
    assert read().commands == (Orders(),)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("STANDBY giveaway", Standby("giveaway", None, False, SectionLine(1, "STANDBY giveaway"))),
        ("stand-by Giveaway 0a1b2c3d", Standby("giveaway", "0A1B2C3D", False, SectionLine(1, "x"))),
        ("STANDBY OFF", Standby(None, None, True, SectionLine(1, "x"))),
        (
            "standby off three-musketeers",
            Standby("three-musketeers", None, True, SectionLine(1, "x")),
        ),
        ("TAKE gw42 0A1B2C3D", Take("gw42", "0A1B2C3D", SectionLine(1, "x"))),
        ("take 0a1b2c3d", Take(None, "0A1B2C3D", SectionLine(1, "x"))),
        ("APPROVE gw42 0A1B2C3D", Approve("gw42", "0A1B2C3D", True, SectionLine(1, "x"))),
        ("decline game gw42 0a1b2c3d", Approve("gw42", "0A1B2C3D", False, SectionLine(1, "x"))),
    ],
)
def test_seat_commands_are_read_with_their_game_and_code(text: str, command: Command) -> None:
    section = read(text)
    (found,) = [c for c in section.commands if not isinstance(c, Orders)]
    assert found == type(command)(**{**vars(command), "line": SectionLine(1, text)})
    assert not needs_seat(type(found))  # a stranger (a standby player, the game master) may send it


@pytest.mark.parametrize("text", ["Take care", "take it easy", "I decline", "Approve of it"])
def test_prose_near_the_seat_commands_is_left_with_the_orders(text: str) -> None:
    section = read(text)
    assert section.commands == (Orders((SectionLine(1, text),)),)
