"""A mail read into typed commands: what each game section of a mail asks the service to do.

:func:`read_commands` splits an ordinary mail into its game sections (``split_sections``) and
reads each section's lines into commands: a line that a command reader recognises becomes that
command (or a :class:`CommandProblem` when its arguments are wrong); every other line is left
for the game, and the section's :class:`Orders` hold them. Each command's spec
(``command_specs.py``) names its reader and says whether it needs an authenticated seat: the
intake proves the seat only for those, so a command that needs none is answered even to a
stranger.

Adding a command is one spec in ``command_specs.SPECS`` (its value type in ``command_types.py``,
its reader in ``player_readers.py``) and one handler (``service/command_handlers.py``). ``PRESS``
is the one player's command that spans lines: its message runs from the line after it to
``ENDPRESS``, the next ``PRESS`` line or the end of the section. A line that looks like a
mistyped command (``HLEP``, ``STAUTS``) is a :class:`CommandProblem` of :class:`Unknown`,
answered with the list of commands and the closest one. Pure: lines in, values out.

The game master's commands (:class:`GmCommand`: PAUSE, RESUME, EXTEND, REPLACE, REMOVE,
STAND-IN, ANNOUNCE, COPY; WITHDRAW and REPLACE of a tournament's game master) need no seat but
the game master's proof, which their handler checks (``service/gm_mail.py``,
``service/tournament_gm.py``). ``ANNOUNCE`` spans lines as ``PRESS`` does, up to
``ENDANNOUNCE``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adjudicator.core.text import normalise_line
from adjudicator.mail import requests
from adjudicator.mail.command_specs import line_readers, needs_seat
from adjudicator.mail.command_types import (
    Announce,
    Approve,
    Command,
    CommandProblem,
    CopyResults,
    Extend,
    Forgot,
    GameWebhook,
    GmCommand,
    Help,
    History,
    Join,
    LineReader,
    ListGames,
    Observe,
    Orders,
    Pause,
    Press,
    RatingAsked,
    RecordOf,
    RemovePlayer,
    ReplacePlayer,
    Report,
    Resign,
    Resume,
    SetAbsence,
    SetAddress,
    SetDigest,
    SetPassword,
    SetPublic,
    SetQuiet,
    SetTimeZone,
    SetWait,
    SetWebhook,
    SetWeekend,
    Standby,
    StandIn,
    Status,
    Take,
    Unknown,
    WhoIs,
    Withdraw,
)
from adjudicator.mail.orderlike import reads_as_order
from adjudicator.mail.parse import InboundMail, Section, SectionLine, split_sections

__all__ = [
    "Announce",
    "Approve",
    "Command",
    "CommandProblem",
    "CopyResults",
    "Extend",
    "Forgot",
    "GameWebhook",
    "GmCommand",
    "Help",
    "History",
    "Join",
    "LineReader",
    "ListGames",
    "MailSection",
    "Observe",
    "Orders",
    "Pause",
    "Press",
    "RatingAsked",
    "RecordOf",
    "RemovePlayer",
    "ReplacePlayer",
    "Report",
    "Resign",
    "Resume",
    "SetAbsence",
    "SetAddress",
    "SetDigest",
    "SetPassword",
    "SetPublic",
    "SetQuiet",
    "SetTimeZone",
    "SetWait",
    "SetWebhook",
    "SetWeekend",
    "StandIn",
    "Standby",
    "Status",
    "Take",
    "Unknown",
    "WhoIs",
    "Withdraw",
    "press_targets",
    "read_commands",
    "read_section",
]


_PRESS = re.compile(r"press(?:\s+to\b\s*(.*))?", re.I)
_END_PRESS = re.compile(r"end\s*press|press\s+end", re.I)
_ANNOUNCE = re.compile(r"announce(?:ment)?", re.I)
_END_ANNOUNCE = re.compile(r"end\s*announce(?:ment)?|announce(?:ment)?\s+end", re.I)
_PASSWORD_WORDS = re.compile(r"set\s+password\b[\s:=]*(.*)", re.I)
_HANDLES = re.compile(r"[\s,;]+|\band\b", re.I)


def press_targets(words: str) -> tuple[str, ...]:
    """The handles after ``PRESS TO`` (spaces, commas or "and" between them), lower case."""
    return tuple(w.lower() for w in _HANDLES.split(words) if w and w.strip())


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
        """The commands to answer: orders without a line that could be one (empty, or only a
        greeting, a sign-off, a remark) count only in a section that asks nothing else (a
        bare mail is answered as orders; "Off to a conference / SET ABSENCE 2d / Dave" sets
        an absence and is no failed order). A line that reads as an order of any game, even
        a wrongly written one, keeps the orders: it is read, or named as a problem."""
        others = [c for c in self.commands if not isinstance(c, Orders)]
        if others or self.problems:
            return tuple(c for c in self.commands if not (isinstance(c, Orders) and _prose(c)))
        return self.commands

    @property
    def remark_only(self) -> bool:
        """Whether the section asks nothing: no command, no command line gone wrong, and no
        line that could be an order (``orderlike.reads_as_order``)."""
        return not self.problems and all(isinstance(c, Orders) and _prose(c) for c in self.commands)

    @property
    def needs_seat(self) -> bool:
        return any(needs_seat(type(c)) for c in self.asks) or any(
            needs_seat(p.command) for p in self.problems
        )

    def of_type(self, kind: type[Command]) -> list[Command]:
        return [c for c in self.commands if isinstance(c, kind)]

    @property
    def secrets(self) -> tuple[str, ...]:
        """The passwords written in this section: its PASSWORD, a new one (SET PASSWORD) and
        the words of a SET PASSWORD line that was refused (taken out of the stored mail once
        it is processed, ``mail/redact.py``)."""
        found = [self.secret] if self.secret else []
        found += [c.password for c in self.commands if isinstance(c, SetPassword)]
        for problem in self.problems:
            if problem.command is SetPassword:
                written = _PASSWORD_WORDS.match(normalise_line(problem.line.text))
                found += written.group(1).split() if written else []
        return tuple(found)


def _prose(orders: Orders) -> bool:
    """Orders none of whose lines reads as an order or a command."""
    return not any(reads_as_order(line.text) for line in orders.lines)


def read_section(section: Section) -> MailSection:
    """The commands of one section's lines (see the module docstring)."""
    commands: list[Command] = []
    problems: list[CommandProblem] = []
    rest: list[SectionLine] = []
    readers = line_readers()
    lines = list(section.lines)
    while lines:
        line = lines.pop(0)
        text = normalise_line(line.text)
        press = _PRESS.fullmatch(text)
        if press is not None:
            commands.append(_read_press(press.group(1), line, lines))
            continue
        if _ANNOUNCE.fullmatch(text):
            commands.append(Announce(_read_message(lines, end=_END_ANNOUNCE), line))
            continue
        if _END_PRESS.fullmatch(text) or _END_ANNOUNCE.fullmatch(text):
            continue  # a stray end of press: nothing to read as orders
        found = next((r for r in (reader(text, line) for reader in readers) if r is not None), None)
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


def _read_press(targets: str | None, line: SectionLine, lines: list[SectionLine]) -> Press:
    """The press that starts at ``line``: takes its message's lines out of ``lines``."""
    return Press(press_targets(targets or ""), _read_message(lines, end=_END_PRESS), line)


def _read_message(lines: list[SectionLine], *, end: re.Pattern[str]) -> str:
    """A message's lines, taken out of ``lines``: up to a line ``end`` matches, the next PRESS
    or ANNOUNCE line, or the end; blank lines around it dropped."""
    body: list[str] = []
    while lines:
        text = normalise_line(lines[0].text)
        if _PRESS.fullmatch(text) or _ANNOUNCE.fullmatch(text):
            break  # the next message starts: this one ends here
        following = lines.pop(0)
        if end.fullmatch(text):
            break
        body.append(following.text.rstrip())
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(body)


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
