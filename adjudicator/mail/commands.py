"""A mail read into typed commands: what each game section of a mail asks the service to do.

:func:`read_commands` splits an ordinary mail into its game sections (``split_sections``) and
reads each section's lines into commands: a line that a command reader recognises becomes that
command (or a :class:`CommandProblem` when its arguments are wrong); every other line is left
for the game, and the section's :class:`Orders` hold them. Each command type says whether it
needs an authenticated seat: the intake proves the seat only for those, so a command that needs
none is answered even to a stranger.

Adding a command is one class here, one reader in :data:`READERS` and one handler in the
intake's table. ``PRESS`` is the one command that spans lines: its message runs from the line
after it to ``ENDPRESS``, the next ``PRESS`` line or the end of the section. A line that looks
like a mistyped command (``HLEP``, ``STAUTS``) is a :class:`CommandProblem` of
:class:`Unknown`, answered with the list of commands and the closest one. Pure: lines in,
values out.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from adjudicator.core.text import normalise_line
from adjudicator.mail import requests
from adjudicator.mail.orderlike import COMMAND_WORDS
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
class Help(Command):
    """``HELP`` (the commands), ``HELP gw42`` (that game's orders and rules)."""

    needs_seat: ClassVar[bool] = False
    game: str | None
    line: SectionLine


@dataclass(frozen=True)
class ListGames(Command):
    """``LIST``: games open for sign-up, and the sender's games."""

    needs_seat: ClassVar[bool] = False
    line: SectionLine


@dataclass(frozen=True)
class Status(Command):
    """``STATUS`` or ``ORDERS``: the sender's games, their rounds, deadlines, stored orders and
    whom each round waits for. Needs no proof: the answer goes only to the registered address
    of each seat, never to another."""

    needs_seat: ClassVar[bool] = False
    line: SectionLine


@dataclass(frozen=True)
class Observe(Command):
    """``OBSERVE gw42`` (a code comes back), ``OBSERVE gw42 CODE``: the game's public results by
    mail; ``UNOBSERVE gw42``: no more."""

    needs_seat: ClassVar[bool] = False
    game: str | None  # None: the section's game
    code: str | None
    stop: bool
    line: SectionLine


@dataclass(frozen=True)
class Join(Command):
    """``JOIN gw42`` (a code comes back), ``JOIN gw42 CODE`` or ``JOIN gw42 CODE handle``: a
    seat in a game open for sign-up."""

    needs_seat: ClassVar[bool] = False
    game: str | None  # None: the section's game
    code: str | None
    handle: str | None
    line: SectionLine


@dataclass(frozen=True)
class Standby(Command):
    """``STANDBY giveaway`` (a code comes back), ``STANDBY giveaway CODE``: offered a seat in
    games of that kind when one is free; ``STANDBY OFF`` (every kind) or ``STANDBY OFF
    giveaway``: no more offers."""

    needs_seat: ClassVar[bool] = False
    kind: str | None
    code: str | None
    stop: bool
    line: SectionLine


@dataclass(frozen=True)
class Take(Command):
    """``TAKE gw42 CODE``: the seat game gw42 offered to this address, if nobody was first."""

    needs_seat: ClassVar[bool] = False
    game: str | None  # None: the section's game
    code: str
    line: SectionLine


@dataclass(frozen=True)
class Approve(Command):
    """``APPROVE gw42 CODE`` or ``DECLINE gw42 CODE``: the game master's answer to a JOIN that
    waits for it; the code (mailed only to the game master) is the proof."""

    needs_seat: ClassVar[bool] = False
    game: str | None  # None: the section's game
    code: str
    approve: bool
    line: SectionLine


@dataclass(frozen=True)
class Forgot(Command):
    """``FORGOT`` (or ``PASSWORD`` alone, ``LOST PASSWORD``): a new password, mailed only to the
    registered address."""

    needs_seat: ClassVar[bool] = False
    line: SectionLine


@dataclass(frozen=True)
class SetTimeZone(Command):
    """``SET TIMEZONE Europe/Paris``: deadlines in mails shown in that zone."""

    zone: str
    line: SectionLine


@dataclass(frozen=True)
class SetPassword(Command):
    """``SET PASSWORD <new>``: the password for the PASSWORD line from now on."""

    password: str = field(repr=False)
    line: SectionLine = field(repr=False)


@dataclass(frozen=True)
class SetAddress(Command):
    """``SET ADDRESS new@example.org`` mails a code to the new address; ``SET ADDRESS
    new@example.org CODE`` moves the player's seats there."""

    address: str
    code: str | None
    line: SectionLine


@dataclass(frozen=True)
class SetWait(Command):
    """``SET WAIT``: rounds run to their deadline even when every order is in; ``SET NOWAIT``:
    a round may close as soon as they are (the game's own setting)."""

    wait: bool
    line: SectionLine


@dataclass(frozen=True)
class Resign(Command):
    """``RESIGN`` asks for a confirmation code; ``RESIGN <code>`` leaves the game."""

    code: str | None
    line: SectionLine


@dataclass(frozen=True)
class Press(Command):
    """``PRESS`` (to every player) or ``PRESS TO cat dog``, then the message's lines."""

    to: tuple[str, ...]
    text: str
    line: SectionLine


@dataclass(frozen=True)
class Unknown(Command):
    """Stands for a line that looks like a mistyped command (only ever in a problem)."""

    needs_seat: ClassVar[bool] = False


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


MIN_PASSWORD = 8
MAX_PASSWORD = 64
SETTINGS_WORDS = ("timezone", "password", "address", "wait", "nowait")

_HELP = re.compile(r"help(?:\s+(?:on\s+|for\s+|game\s+)?([a-z0-9][a-z0-9_.-]{0,63}))?", re.I)
_LIST = re.compile(r"list(?:\s+(?:the\s+)?games)?", re.I)
_STATUS = re.compile(r"status|orders|my\s+orders|show\s+orders", re.I)
_FORGOT = re.compile(r"forgot(?:ten)?(?:\s+(?:my\s+)?password)?|lost\s+password|password", re.I)
_SET = re.compile(
    r"set\s+(time\s*zone|tz|zone|password|address|e-?mail|wait|no\s*wait)\b\s*(.*)", re.I
)
_ADDRESS = re.compile(r"<?([^@\s<>]+@[^@\s<>]+\.[^@\s<>.]+)>?(?:\s+([0-9a-z]{8}))?", re.I)
_SET_OTHER = re.compile(r"set\s+(\S+).*", re.I)
_OBSERVE = re.compile(
    r"(un)?observe(?:\s+(?:game\s+)?([a-z0-9][a-z0-9_.-]{0,63}))?(?:\s+([0-9a-z]{8}))?", re.I
)
_JOIN = re.compile(
    r"join(?:\s+(?:game\s+)?([a-z0-9][a-z0-9_.-]{0,63}))?(?:\s+([0-9a-z]{8}))?"
    r"(?:\s+(?:as\s+)?([a-z][a-z0-9_-]{0,31}))?",
    re.I,
)
_STANDBY = re.compile(
    r"stand-?by(?:\s+(off|stop))?(?:\s+([a-z][a-z-]{0,40}))?(?:\s+([0-9a-f]{8}))?", re.I
)
_TAKE = re.compile(r"take(?:\s+(?:game\s+)?([a-z0-9][a-z0-9_.-]{0,63}))?\s+([0-9a-f]{8})", re.I)
_APPROVE = re.compile(
    r"(approve|decline)(?:\s+(?:game\s+)?([a-z0-9][a-z0-9_.-]{0,63}))?\s+([0-9a-f]{8})", re.I
)
_RESIGN = re.compile(r"resign(?:\s+(\S+))?", re.I)
_PRESS = re.compile(r"press(?:\s+to\b\s*(.*))?", re.I)
_END_PRESS = re.compile(r"end\s*press|press\s+end", re.I)
_FIRST_WORD = re.compile(r"([a-z]+)(?:\s|$)", re.I)
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){0,2}")
_HANDLES = re.compile(r"[\s,;]+|\band\b", re.I)


def _help(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _HELP.fullmatch(text)
    if match is None:
        return None
    game = match.group(1).lower() if match.group(1) else None
    return [Help(game, line)]


def _list(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [ListGames(line)] if _LIST.fullmatch(text) else None


def _status(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [Status(line)] if _STATUS.fullmatch(text) else None


def _forgot(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [Forgot(line)] if _FORGOT.fullmatch(text) else None


def _set(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _SET.fullmatch(text)
    if match is None:
        other = _SET_OTHER.fullmatch(text)
        if other is None:
            return None
        return [CommandProblem(SetTimeZone, line, _unknown_setting(other.group(1)))]
    what, value = match.group(1).lower(), match.group(2).strip()
    if what == "password":
        return [_set_password(value, line)]
    if what in ("address", "email", "e-mail"):
        address = _ADDRESS.fullmatch(value)
        if address is None:
            return [
                CommandProblem(
                    SetAddress,
                    line,
                    "write the new address after SET ADDRESS, e.g. SET ADDRESS me@example.org",
                )
            ]
        code = address.group(2).upper() if address.group(2) else None
        return [SetAddress(address.group(1).lower(), code, line)]
    if what.endswith("wait"):
        if value:
            return [CommandProblem(SetWait, line, "write SET WAIT or SET NOWAIT alone on a line")]
        return [SetWait(not what.startswith("no"), line)]
    if not _ZONE.fullmatch(value):
        return [
            CommandProblem(
                SetTimeZone,
                line,
                "write a time zone of the IANA database after SET TIMEZONE, "
                "e.g. SET TIMEZONE Europe/Paris or SET TIMEZONE America/New_York",
            )
        ]
    return [SetTimeZone(value, line)]


def _unknown_setting(word: str) -> str:
    close = difflib.get_close_matches(word.lower(), SETTINGS_WORDS, n=1, cutoff=0.6)
    hint = f" (did you mean SET {close[0].upper()}?)" if close else ""
    return (
        f"there is no setting {word!r}{hint}: the settings are SET TIMEZONE, SET PASSWORD, "
        "SET ADDRESS, SET WAIT and SET NOWAIT"
    )


def _set_password(value: str, line: SectionLine) -> Command | CommandProblem:
    if not value or any(c.isspace() for c in value):
        return CommandProblem(
            SetPassword, line, "write the new password as one word after SET PASSWORD"
        )
    if not MIN_PASSWORD <= len(value) <= MAX_PASSWORD:
        return CommandProblem(
            SetPassword,
            line,
            f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters; the old one still holds",
        )
    return SetPassword(value, line)


def _observe(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _OBSERVE.fullmatch(text)
    if match is None:
        return None
    stop, game, code = bool(match.group(1)), match.group(2), match.group(3)
    return [Observe(game.lower() if game else None, code.upper() if code else None, stop, line)]


def _join(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _JOIN.fullmatch(text)
    if match is None:
        return None
    game, code, handle = match.group(1), match.group(2), match.group(3)
    return [
        Join(
            game.lower() if game else None,
            code.upper() if code else None,
            handle.lower() if handle else None,
            line,
        )
    ]


def _standby(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _STANDBY.fullmatch(text)
    if match is None:
        return None
    stop, kind, code = bool(match.group(1)), match.group(2), match.group(3)
    return [Standby(kind.lower() if kind else None, code.upper() if code else None, stop, line)]


def _take(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _TAKE.fullmatch(text)
    if match is None:
        return None
    game, code = match.group(1), match.group(2)
    return [Take(game.lower() if game else None, code.upper(), line)]


def _approve(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _APPROVE.fullmatch(text)
    if match is None:
        return None
    verb, game, code = match.group(1).lower(), match.group(2), match.group(3)
    return [
        Approve(
            game.lower() if game else None,
            code.upper(),
            verb == "approve",
            line,
        )
    ]


def _resign(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _RESIGN.fullmatch(text)
    if match is None:
        return None
    return [Resign(match.group(1).upper() if match.group(1) else None, line)]


def _mistyped(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    """A short line whose first word is a near miss of a command word (``HLEP``)."""
    match = _FIRST_WORD.match(text)
    if match is None or len(text.split()) > 2:
        return None
    word = match.group(1).lower()
    if len(word) < 4 or any(word.startswith(command) for command in COMMAND_WORDS):
        return None  # "reporting for duty" is prose
    close = difflib.get_close_matches(word, COMMAND_WORDS, n=1, cutoff=0.75)
    if not close:
        return None
    return [
        CommandProblem(
            Unknown,
            line,
            f"there is no command {match.group(1).upper()}; did you mean {close[0].upper()}?",
        )
    ]


READERS: tuple[LineReader, ...] = (
    _history,
    _report,
    _help,
    _list,
    _status,
    _forgot,
    _set,
    _resign,
    _observe,
    _join,
    _standby,
    _take,
    _approve,
    _mistyped,
)
"""Every one-line command but orders, tried in this order on each line (``PRESS`` takes the
lines after it, see :func:`read_section`)."""


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
    lines = list(section.lines)
    while lines:
        line = lines.pop(0)
        text = normalise_line(line.text)
        press = _PRESS.fullmatch(text)
        if press is not None:
            commands.append(_read_press(press.group(1), line, lines))
            continue
        if _END_PRESS.fullmatch(text):
            continue  # a stray end of press: nothing to read as orders
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


def _read_press(targets: str | None, line: SectionLine, lines: list[SectionLine]) -> Press:
    """The press that starts at ``line``: takes its message's lines out of ``lines``."""
    body: list[str] = []
    while lines:
        text = normalise_line(lines[0].text)
        if _PRESS.fullmatch(text):
            break  # the next press starts: this one ends here
        following = lines.pop(0)
        if _END_PRESS.fullmatch(text):
            break
        body.append(following.text.rstrip())
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return Press(press_targets(targets or ""), "\n".join(body), line)


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
