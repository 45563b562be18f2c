"""Reading REPORT and HISTORY lines: what is a request, what is a bad one, what is left alone."""

from __future__ import annotations

import pytest

from adjudicator.mail.parse import SectionLine
from adjudicator.mail.requests import LATEST, MAX_REPORTS, read_requests


def lines(*texts: str) -> list[SectionLine]:
    return [SectionLine(number, text) for number, text in enumerate(texts, start=1)]


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
    requests = read_requests(lines(text))
    assert [ask.number for ask in requests.reports] == rounds
    assert requests.rest == ()
    assert requests.problems == ()
    assert not requests.history


@pytest.mark.parametrize("text", ["HISTORY", "history.", "Send the game history", "* history"])
def test_history_lines(text: str) -> None:
    requests = read_requests(lines(text))
    assert requests.history
    assert requests.asked
    assert requests.rest == ()


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
    requests = read_requests(lines("GIVE 3 TO bob", text))
    [problem] = requests.problems
    assert problem.line == SectionLine(2, text)
    assert why in problem.message
    assert requests.reports == ()
    assert requests.rest == (SectionLine(1, "GIVE 3 TO bob"),)


@pytest.mark.parametrize(
    "text",
    ["Report me to the GM if you like", "History will judge me", "reporting for duty", "GIVE 3"],
)
def test_prose_and_orders_are_left_with_the_orders(text: str) -> None:
    requests = read_requests(lines(text))
    assert not requests.asked
    assert requests.rest == (SectionLine(1, text),)


def test_one_mail_asks_for_at_most_so_many_reports() -> None:
    requests = read_requests(lines("REPORT 1-8", "REPORT 8-10", "REPORT 11 12", "REPORT 2"))
    assert [ask.number for ask in requests.reports] == list(range(1, 11))
    [problem] = requests.problems
    assert problem.line.number == 3
    assert "HISTORY" in problem.message


def test_orders_keep_their_line_numbers_around_requests() -> None:
    requests = read_requests(lines("GIVE 1 TO bob", "REPORT 2", "GIVE 2 TO carol", "HISTORY"))
    assert requests.rest == (SectionLine(1, "GIVE 1 TO bob"), SectionLine(3, "GIVE 2 TO carol"))
    assert [(a.number, a.line.number) for a in requests.reports] == [(2, 2)]
    assert requests.history
