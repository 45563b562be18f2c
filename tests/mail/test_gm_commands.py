"""The game master's command lines read into commands (docs/commands.md, "For the game
master"): what each well-formed line means, which bad lines are answered as problems, which
prose is left for the game, and that none of them asks for a seat (the game master proves
himself by his own reply address instead)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from adjudicator.mail.commands import (
    Announce,
    Command,
    CopyResults,
    Extend,
    GmCommand,
    MailSection,
    Orders,
    Pause,
    Press,
    RemovePlayer,
    ReplacePlayer,
    Resume,
    StandIn,
    read_section,
)
from adjudicator.mail.parse import Section, SectionLine


def read(*texts: str) -> MailSection:
    lines = [SectionLine(number, text) for number, text in enumerate(texts, start=1)]
    return read_section(Section("gw1", tuple(lines)))


def commands(section: MailSection) -> list[Command]:
    return [c for c in section.commands if not isinstance(c, Orders)]


def orders(section: MailSection) -> list[str]:
    (found,) = [c for c in section.commands if isinstance(c, Orders)]
    return [line.text for line in found.lines]


@pytest.mark.parametrize(
    ("text", "kind"),
    [("PAUSE", Pause), ("pause the game", Pause), ("Resume", Resume), ("unpause", Resume)],
)
def test_pause_and_resume(text: str, kind: type[Command]) -> None:
    (command,) = commands(read(text))
    assert isinstance(command, kind)


@pytest.mark.parametrize(
    ("text", "by"),
    [
        ("EXTEND 24h", timedelta(hours=24)),
        ("extend by 2d", timedelta(days=2)),
        ("EXTEND 1d12h", timedelta(days=1, hours=12)),
        ("extend 90m", timedelta(minutes=90)),
    ],
)
def test_extend_by_a_duration(text: str, by: timedelta) -> None:
    (command,) = commands(read(text))
    assert command == Extend(by, None, False, SectionLine(1, text))


@pytest.mark.parametrize(
    ("text", "until", "earlier"),
    [
        ("EXTEND UNTIL 2026-11-25 21:00", datetime(2026, 11, 25, 21, 0), False),
        ("extend until 2026-11-25 9:30", datetime(2026, 11, 25, 9, 30), False),
        ("EXTEND TO 2026-11-25T21:00 EARLIER", datetime(2026, 11, 25, 21, 0), True),
    ],
)
def test_extend_until_a_wall_clock_time(text: str, until: datetime, earlier: bool) -> None:
    """The time is the game's wall clock: read without a zone, which the service adds."""
    (command,) = commands(read(text))
    assert isinstance(command, Extend)
    assert (command.by, command.until, command.earlier) == (None, until, earlier)
    assert command.until is not None
    assert command.until.tzinfo is None


@pytest.mark.parametrize(
    ("text", "kind", "why"),
    [
        ("EXTEND", Extend, "how much longer"),
        ("EXTEND soon", Extend, "how much longer"),
        ("EXTEND UNTIL 2026-13-40 21:00", Extend, "is no date and time"),
        ("REPLACE cat", ReplacePlayer, "the new address"),
        ("REPLACE cat nobody", ReplacePlayer, "the new address"),
        ("REMOVE", RemovePlayer, "the player's handle"),
        ("remove cat now", RemovePlayer, "the player's handle"),
        ("STAND-IN", StandIn, "the player's handle"),
        ("COPY", CopyResults, "COPY ON or COPY OFF"),
        ("copy maybe", CopyResults, "COPY ON or COPY OFF"),
    ],
)
def test_a_bad_game_master_line_is_a_problem_that_says_how_to_write_it(
    text: str, kind: type[Command], why: str
) -> None:
    section = read(text)
    (problem,) = section.problems
    assert problem.command is kind
    assert why in problem.message
    assert commands(section) == []
    assert orders(section) == []


def test_players_and_addresses() -> None:
    section = read(
        "REPLACE Cat New.Person@Example.org",
        "replace player dog with <d@example.net>",
        "REMOVE Emu",
        "STAND-IN fox",
        "stand in for gnu off",
        "COPY on",
        "copy OFF",
    )
    assert commands(section) == [
        ReplacePlayer(
            "cat", "new.person@example.org", SectionLine(1, "REPLACE Cat New.Person@Example.org")
        ),
        ReplacePlayer(
            "dog", "d@example.net", SectionLine(2, "replace player dog with <d@example.net>")
        ),
        RemovePlayer("emu", SectionLine(3, "REMOVE Emu")),
        StandIn("fox", True, SectionLine(4, "STAND-IN fox")),
        StandIn("gnu", False, SectionLine(5, "stand in for gnu off")),
        CopyResults(True, SectionLine(6, "COPY on")),
        CopyResults(False, SectionLine(7, "copy OFF")),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Replace my orders with these ones please:",
        "Removed the old orders, sorry for the mess",
        "Copyright 2026 Example Corp",
        "Extended family dinner tonight",
        "Pauses are fine",
    ],
)
def test_prose_that_starts_like_a_command_is_left_with_the_orders(text: str) -> None:
    section = read(text)
    assert commands(section) == []
    assert section.problems == ()
    assert orders(section) == [text]


def test_announce_takes_the_lines_after_it_up_to_endannounce() -> None:
    section = read(
        "ANNOUNCE", "", "Round 3 is extended,", "  the server was down.", "", "ENDANNOUNCE", "PAUSE"
    )
    (announce, pause) = commands(section)
    assert announce == Announce(
        "Round 3 is extended,\n  the server was down.", SectionLine(1, "ANNOUNCE")
    )
    assert isinstance(pause, Pause)
    assert orders(section) == []


def test_an_announcement_ends_where_press_starts() -> None:
    (announce, press) = commands(read("ANNOUNCE", "Hello all", "PRESS", "hi"))
    assert isinstance(announce, Announce)
    assert announce.text == "Hello all"
    assert isinstance(press, Press)
    assert press.text == "hi"


def test_no_game_master_command_asks_for_a_seat() -> None:
    """The intake proves no seat for them: their handler checks the game master's address."""
    section = read("PAUSE", "EXTEND 24h", "REMOVE cat", "ANNOUNCE", "hi")
    assert all(isinstance(c, GmCommand) for c in commands(section))
    assert not section.needs_seat


@pytest.mark.parametrize(("text", "meant"), [("PAUS", "PAUSE"), ("resum", "RESUME")])
def test_a_mistyped_game_master_command_is_answered_with_the_closest(text: str, meant: str) -> None:
    (problem,) = read(text).problems
    assert f"did you mean {meant}?" in problem.message
