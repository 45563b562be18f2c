"""The conversation commands read from a mail section (docs/commands.md): HELP, LIST, STATUS,
SET, FORGOT, RESIGN and PRESS, in any case; a mistyped command is named with the closest one;
order lines and prose are left for the game."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.core.game import Setup
from adjudicator.core.kind import GameKind
from adjudicator.games import KINDS
from adjudicator.mail.command_specs import line_readers, needs_seat
from adjudicator.mail.commands import (
    Command,
    CommandProblem,
    Forgot,
    Help,
    ListGames,
    MailSection,
    Orders,
    Press,
    Resign,
    SetPassword,
    SetTimeZone,
    Status,
    Unknown,
    read_section,
)
from adjudicator.mail.parse import Section, SectionLine


def read(*texts: str) -> MailSection:
    lines = tuple(SectionLine(n, t) for n, t in enumerate(texts, start=1))
    return read_section(Section("gw1", lines))


def commands(section: MailSection) -> list[Command]:
    return [c for c in section.commands if not isinstance(c, Orders)]


def orders(section: MailSection) -> list[str]:
    (found,) = section.of_type(Orders)
    assert isinstance(found, Orders)
    return [line.text for line in found.lines]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HELP", Help(None, SectionLine(1, "HELP"))),
        ("help gw42", Help("gw42", SectionLine(1, "help gw42"))),
        ("- Help.", Help(None, SectionLine(1, "- Help."))),
        ("list", ListGames(SectionLine(1, "list"))),
        ("List games", ListGames(SectionLine(1, "List games"))),
        ("STATUS", Status(SectionLine(1, "STATUS"))),
        ("orders", Status(SectionLine(1, "orders"))),
        ("Forgot password", Forgot(SectionLine(1, "Forgot password"))),
        ("PASSWORD", Forgot(SectionLine(1, "PASSWORD"))),
        ("resign", Resign(None, SectionLine(1, "resign"))),
        ("Resign 4f2a9c1b", Resign("4F2A9C1B", SectionLine(1, "Resign 4f2a9c1b"))),
        ("set time zone Europe/Paris", SetTimeZone("Europe/Paris", SectionLine(1, "x"))),
        ("SET TIMEZONE america/new_york", SetTimeZone("america/new_york", SectionLine(1, "x"))),
    ],
)
def test_each_command_in_any_case(text: str, expected: Command) -> None:
    found = commands(read(text))
    assert len(found) == 1
    assert type(found[0]) is type(expected)
    if isinstance(expected, SetTimeZone):
        assert isinstance(found[0], SetTimeZone)
        assert found[0].zone == expected.zone
    else:
        assert found == [expected]


def test_commands_that_need_no_seat() -> None:
    """HELP, LIST, STATUS and FORGOT are answered to anybody (STATUS and FORGOT only ever to a
    seat's registered address); the others need the seat proven."""
    assert not read("HELP", "LIST", "STATUS", "FORGOT").needs_seat
    for text in ("SET TIMEZONE UTC", "SET PASSWORD abcdefgh", "RESIGN", "PRESS"):
        assert read(text).needs_seat, text


def test_press_runs_to_endpress_and_orders_after_it_are_orders() -> None:
    section = read(
        "PRESS TO cat, dog and eel", "Hello you two", "", "bye", "ENDPRESS", "GIVE 3 TO cat"
    )
    (press,) = section.of_type(Press)
    assert isinstance(press, Press)
    assert press.to == ("cat", "dog", "eel")
    assert press.text == "Hello you two\n\nbye"
    assert orders(section) == ["GIVE 3 TO cat"]


def test_press_runs_to_the_end_of_the_section_or_the_next_press() -> None:
    section = read("press", "to all: GIVE 3 TO cat is my plan", "Press to cat", "psst")
    found = section.of_type(Press)
    assert [(p.to, p.text) for p in found if isinstance(p, Press)] == [
        ((), "to all: GIVE 3 TO cat is my plan"),
        (("cat",), "psst"),
    ]
    assert orders(section) == []  # the press text is never read as orders


def test_a_mistyped_command_is_named_with_the_closest_one() -> None:
    section = read("Hlep", "STAUTS", "Resing")
    messages = [p.message for p in section.problems]
    assert [p.command for p in section.problems] == [Unknown] * 3
    assert "did you mean HELP?" in messages[0]
    assert "did you mean STATUS?" in messages[1]
    assert "did you mean RESIGN?" in messages[2]
    assert orders(section) == []


@pytest.mark.parametrize(
    "text",
    [
        "Hello judge",
        "Thanks",
        "reporting for duty",
        "Status update: I give all to cat",
        "Orders:",
        "GIVE 3 TO cat",
        "SOLO red",
        "DEFEND",
        "FIRE SHIELD",
        "a1-a2",
        "Listen to me",
    ],
)
def test_prose_and_orders_are_left_for_the_game(text: str) -> None:
    section = read(text)
    assert commands(section) == []
    assert section.problems == ()
    assert orders(section) == [text]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("SET PASSWORD short", "8 to 64 characters"),
        ("SET PASSWORD", "one word"),
        ("SET TIMEZONE", "IANA"),
        ("SET TIMEZONE not a zone", "IANA"),
        (
            "SET COLOUR red",
            "SET TIMEZONE, SET PASSWORD, SET ADDRESS, SET WAIT, SET NOWAIT, SET ABSENCE, "
            "SET QUIET, SET WEEKEND, SET PUBLIC and SET DIGEST",
        ),
        ("SET DIGEST WEEKLY", "write SET DIGEST DAILY and a time of day"),
        ("SET DIGEST DAILY 24:00", "write SET DIGEST DAILY and a time of day"),
        ("SET ADDRESS nowhere", "write the new address"),
        ("SET WAIT please", "SET WAIT or SET NOWAIT alone"),
        ("SET TIMZONE UTC", "did you mean SET TIMEZONE?"),
    ],
)
def test_bad_settings_are_problems(text: str, problem: str) -> None:
    section = read(text)
    (found,) = section.problems
    assert isinstance(found, CommandProblem)
    assert problem in found.message
    assert needs_seat(found.command)


def test_a_password_is_never_in_a_command_repr() -> None:
    (command,) = commands(read("SET PASSWORD Tr0mbone-42"))
    assert isinstance(command, SetPassword)
    assert command.password == "Tr0mbone-42"  # exact case: chosen passwords keep it
    assert "Tr0mbone" not in repr(command)


@given(st.lists(st.text(max_size=40), max_size=8))
def test_any_lines_are_read_without_error(texts: list[str]) -> None:
    """Arbitrary text never raises; the orders come last; a line left for the game is one of
    the mail's lines, unchanged."""
    section = read(*texts)
    last = section.commands[-1]
    assert isinstance(last, Orders)
    assert all(line.text == texts[line.number - 1] for line in last.lines)


# Accepted variants of orders, as the rules pages list them (docs/rules/*.md, "Orders").
DOCUMENTED_ORDERS = (
    "give 3 to bob",
    "Give 3 points to Bob.",
    "GIVE 3 -> bob",
    "GIVE 3 bob",
    "give bob 3",
    "send 3 to bob",
    "3 to bob",
    "3 pts -> bob",
    "solo Red",
    "team up with blue",
    "TEAM-UP blue",
    "solo on bob",
    "team: grey",
    "DEFENCE",
    "DEFENSE",
    "DEFEND red",
    "SHIELDS",
    "BOTH",
    "FIRE AND SHIELD",
    "POWER SHIELDS",
    "RAISE SHIELDS",
    "SHIELDS UP",
    "LAUNCH",
    "SHOOT",
    "PASS",
    "NONE",
    "DO NOTHING",
    "MOVE a1 a2",
    "move: a1-a2",
    "a1 to a2",
    "move B2 D2",
    "spread C4-E4 (1,2)",
    "C4-E4: 1/2",
    "B2 to C3 to D3",
)


@pytest.mark.parametrize("text", DOCUMENTED_ORDERS)
def test_documented_order_forms_are_never_read_as_commands(text: str) -> None:
    section = read(text)
    assert commands(section) == []
    assert section.problems == ()


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_orders_of_random_games_are_never_read_as_commands(kind: GameKind) -> None:
    """Every order line random legal play writes, in its sampled and canonical forms, is
    left for the game."""
    rules, rng = kind.rules, random.Random(12)
    count = max(rules.min_players, 3 if rules.max_players is None else 0)
    players = [f"p{n}" for n in range(min(count, rules.max_players or count))]
    state = rules.start(players, options={}, setup=Setup())
    seen: set[str] = set()
    for _ in range(40):
        if rules.outcome(state) is not None:
            break
        orders = {}
        for player in rules.to_move(state):
            lines = rules.sample_orders(state, player, rng)
            checked = rules.check(state, player, lines)
            orders[player] = list(checked.orders)
            seen |= set(lines) | {rules.format_order(o) for o in checked.orders}
        state = rules.resolve(state, orders).state
    assert seen
    for text in sorted(seen):
        section = read(text)
        assert commands(section) == [], text
        assert section.problems == (), text


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("WHOIS cat", "WhoIs(handle='cat'"),
        ("whois Cat", "WhoIs(handle='cat'"),
        ("who is cat", "WhoIs(handle='cat'"),
        ("RATING", "RatingAsked("),
        ("my ratings", "RatingAsked("),
        ("SET PUBLIC OFF", "SetPublic(public=False"),
        ("set public on", "SetPublic(public=True"),
    ],
)
def test_club_commands_are_read(line: str, expected: str) -> None:
    """docs/club.md: WHOIS handle, RATING, SET PUBLIC ON|OFF."""
    (command,) = _club_commands(line)
    assert repr(command).startswith(expected)


@pytest.mark.parametrize(
    ("line", "problem"),
    [("WHOIS", "WHOIS and a player's name"), ("SET PUBLIC maybe", "SET PUBLIC ON or")],
)
def test_club_commands_written_wrong_are_problems(line: str, problem: str) -> None:
    (found,) = _club_commands(line)
    assert isinstance(found, CommandProblem)
    assert problem in found.message


def _club_commands(line: str) -> list[Command | CommandProblem]:
    for reader in line_readers():
        found = reader(line, SectionLine(1, line))
        if found is not None:
            return list(found)
    return []
