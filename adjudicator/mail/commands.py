"""A mail read into typed commands: what each game section of a mail asks the service to do.

:func:`read_commands` splits an ordinary mail into its game sections (``split_sections``) and
reads each section's lines into commands: a line that a command reader recognises becomes that
command (or a :class:`CommandProblem` when its arguments are wrong); every other line is left
for the game, and the section's :class:`Orders` hold them. Each command type says whether it
needs an authenticated seat: the intake proves the seat only for those, so a command that needs
none is answered even to a stranger.

Adding a command is one class here, one reader in :data:`READERS` and one handler in the
intake's table. Pure: lines in, values out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from adjudicator.core.text import normalise_line
from adjudicator.mail import requests
from adjudicator.mail.parse import InboundMail, Section, SectionLine, split_sections


@dataclass(frozen=True)
class Command:
    """One thing a mail asks for. ``needs_seat``: only a player proven to hold a seat of the
    section's game may ask it."""

    needs_seat: ClassVar[bool] = True


@dataclass(frozen=True)
class Orders(Command):
    """The lines no command claimed: the game reads them as orders (they may be none)."""

    lines: tuple[SectionLine, ...] = ()


@dataclass(frozen=True)
class Report(Command):
    """``REPORT 3``: one round's result mail again (``requests.LATEST`` for the last round)."""

    number: int
    line: SectionLine


@dataclass(frozen=True)
class History(Command):
    """``HISTORY``: the game so far, with its record."""

    line: SectionLine


@dataclass(frozen=True)
class CommandProblem:
    """A line that is a command whose arguments are wrong: answered, never guessed."""

    command: type[Command]
    line: SectionLine
    message: str


LineReader = Callable[[str, SectionLine], Sequence[Command | CommandProblem] | None]
"""A command's reader: the values a line (already normalised) stands for, or None when the
line is not this command."""


def _history(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [History(line)] if requests.is_history(text) else None


def _report(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    asked = requests.rounds_asked(text)
    if asked is None:
        return None
    if isinstance(asked, str):
        return [CommandProblem(Report, line, asked)]
    return [Report(number, line) for number in asked]


READERS: tuple[LineReader, ...] = (_history, _report)
"""Every command but orders, tried in this order on each line."""


@dataclass(frozen=True)
class MailSection:
    """One game's part of a mail: its game (None: not named), its secret, its commands in the
    order written (orders last, always present), and the command lines that were wrong."""

    game: str | None
    commands: tuple[Command, ...]
    problems: tuple[CommandProblem, ...] = ()
    secret: str | None = field(default=None, compare=False, repr=False)

    @property
    def asks(self) -> tuple[Command, ...]:
        """The commands to answer: empty orders count only in a section that asks nothing
        else (a bare mail is answered as orders; a lone HISTORY is not)."""
        others = [c for c in self.commands if not isinstance(c, Orders)]
        if others or self.problems:
            return tuple(c for c in self.commands if not (isinstance(c, Orders) and not c.lines))
        return self.commands

    @property
    def needs_seat(self) -> bool:
        return any(c.needs_seat for c in self.asks) or any(
            p.command.needs_seat for p in self.problems
        )

    def of_type(self, kind: type[Command]) -> list[Command]:
        return [c for c in self.commands if isinstance(c, kind)]


def read_section(section: Section) -> MailSection:
    """The commands of one section's lines (see the module docstring)."""
    commands: list[Command] = []
    problems: list[CommandProblem] = []
    rest: list[SectionLine] = []
    for line in section.lines:
        text = normalise_line(line.text)
        found = next((r for r in (reader(text, line) for reader in READERS) if r is not None), None)
        if found is None:
            rest.append(line)
            continue
        for value in found:
            if isinstance(value, CommandProblem):
                problems.append(value)
            else:
                commands.append(value)
    commands, problems = _limit_reports(commands, problems)
    commands.append(Orders(tuple(rest)))
    return MailSection(section.game, tuple(commands), tuple(problems), section.secret)


def _limit_reports(
    commands: list[Command], problems: list[CommandProblem]
) -> tuple[list[Command], list[CommandProblem]]:
    """Each round once, at most ``requests.MAX_REPORTS`` in one mail, one HISTORY: a line that
    would go past the limit is a problem as a whole."""
    kept: list[Command] = []
    numbers: set[int] = set()
    by_line: dict[SectionLine, list[Report]] = {}
    for command in commands:
        if isinstance(command, Report):
            by_line.setdefault(command.line, []).append(command)
    seen_history = False
    for command in commands:
        if isinstance(command, History):
            if not seen_history:
                kept.append(command)
            seen_history = True
        elif isinstance(command, Report):
            group = by_line.pop(command.line, None)
            if group is None:
                continue  # already taken with its line
            new = [r for r in group if r.number not in numbers]
            if len(numbers) + len(new) > requests.MAX_REPORTS:
                problems.append(CommandProblem(Report, command.line, requests.TOO_MANY))
                continue
            numbers.update(r.number for r in new)
            kept += new
        else:
            kept.append(command)
    return kept, problems


def read_commands(mail: InboundMail) -> tuple[MailSection, ...]:
    """The game sections of an ordinary mail, each read into commands.

    Lines before the first ``GAME`` line of an untagged mail that names games are chatter
    ("Hi judge,"), not orders for an unnamed game; a mail with nothing in it is one empty
    section without a game."""
    sections = split_sections(mail.lines, subject=mail.subject)
    if any(section.game for section in sections):
        sections = [section for section in sections if section.game]
    if not sections:
        sections = [Section(game=None)]
    return tuple(read_section(section) for section in sections)
