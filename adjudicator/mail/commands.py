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

The game master's commands (:class:`GmCommand`: PAUSE, RESUME, EXTEND, REPLACE, REMOVE,
STAND-IN, ANNOUNCE, COPY) need no seat but the game master's proof, which their handler
checks (``service/gm_mail.py``). ``ANNOUNCE`` spans lines as ``PRESS`` does, up to
``ENDANNOUNCE``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import ClassVar

from adjudicator.core.away import (
    AbsenceAsked,
    AwayError,
    QuietHours,
    parse_absence,
    parse_quiet,
    parse_weekend,
)
from adjudicator.core.schedule import ScheduleError, parse_duration
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
class SetAbsence(Command):
    """``SET ABSENCE 2026-12-20 2026-12-27`` or ``SET ABSENCE 5d``: away from the section's
    game, within its allowance; ``SET ABSENCE OFF``: back (``asked`` None)."""

    asked: AbsenceAsked | None
    line: SectionLine


@dataclass(frozen=True)
class SetQuiet(Command):
    """``SET QUIET 22:00-07:00``: no reminders in those hours (the player's zone); ``SET QUIET
    OFF``: reminders at any hour (``hours`` None)."""

    hours: QuietHours | None
    line: SectionLine


@dataclass(frozen=True)
class SetWeekend(Command):
    """``SET WEEKEND sat,sun``: no reminders on those days; ``SET WEEKEND OFF``: none spared."""

    days: frozenset[int]
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
class GmCommand(Command):
    """A command only the game's game master may give: no seat is proven for it; its handler
    checks that the mail went to the game master's own reply address."""

    needs_seat: ClassVar[bool] = False


@dataclass(frozen=True)
class Pause(GmCommand):
    """``PAUSE``: no round closes until RESUME."""

    line: SectionLine


@dataclass(frozen=True)
class Resume(GmCommand):
    """``RESUME``: the game runs again; the deadline moves by the length of the pause."""

    line: SectionLine


@dataclass(frozen=True)
class Extend(GmCommand):
    """``EXTEND 24h`` (later by a duration) or ``EXTEND UNTIL 2026-11-25 21:00`` (a wall-clock
    time in the game's time zone; ``EARLIER`` after it allows bringing the deadline forward)."""

    by: timedelta | None
    until: datetime | None  # naive: the game's time zone applies
    earlier: bool
    line: SectionLine


@dataclass(frozen=True)
class ReplacePlayer(GmCommand):
    """``REPLACE cat new@example.org``: a new person takes over the seat."""

    handle: str
    address: str
    line: SectionLine


@dataclass(frozen=True)
class RemovePlayer(GmCommand):
    """``REMOVE cat``: the seat is out of the game from now on."""

    handle: str
    line: SectionLine


@dataclass(frozen=True)
class StandIn(GmCommand):
    """``STAND-IN cat``: the computer plays the seat; ``STAND-IN cat OFF``: no more."""

    handle: str
    on: bool
    line: SectionLine


@dataclass(frozen=True)
class Announce(GmCommand):
    """``ANNOUNCE``, then the message's lines: to every player and observer."""

    text: str
    line: SectionLine


@dataclass(frozen=True)
class CopyResults(GmCommand):
    """``COPY ON``: the game master gets every round's public result; ``COPY OFF``: no more."""

    on: bool
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
SETTINGS_WORDS = (
    "timezone",
    "password",
    "address",
    "wait",
    "nowait",
    "absence",
    "quiet",
    "weekend",
)

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
        "SET ADDRESS, SET WAIT, SET NOWAIT, SET ABSENCE, SET QUIET and SET WEEKEND"
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


_SET_AWAY = re.compile(
    r"set\s+(absence|absent|away|vacation|holiday|quiet(?:\s*hours)?|weekends?)\b\s*(.*)", re.I
)
_OFF = re.compile(r"off|none|no|clear|back", re.I)


def _set_away(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    """SET ABSENCE, SET QUIET and SET WEEKEND (read before the other SET commands)."""
    match = _SET_AWAY.fullmatch(text)
    if match is None:
        return None
    what, value = match.group(1).lower(), match.group(2).strip()
    off = bool(_OFF.fullmatch(value))
    command: type[Command]
    try:
        if what.startswith("quiet"):
            command = SetQuiet
            return [SetQuiet(None if off else parse_quiet(value), line)]
        if what.startswith("weekend"):
            command = SetWeekend
            return [SetWeekend(frozenset() if off else parse_weekend(value), line)]
        command = SetAbsence
        return [SetAbsence(None if off else parse_absence(value), line)]
    except AwayError as error:
        return [CommandProblem(command, line, str(error))]


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


_PAUSE = re.compile(r"pause(?:\s+(?:the\s+)?game)?", re.I)
_RESUME = re.compile(r"resume(?:\s+(?:the\s+)?game)?|unpause", re.I)
_EXTEND = re.compile(r"extend\b\s*(.*)", re.I)
_UNTIL = re.compile(r"(?:until|to)\s+(\d{4}-\d{2}-\d{2})[ t](\d{1,2}:\d{2})(?:\s+(earlier))?", re.I)
_BY = re.compile(r"(?:by\s+)?(\d[\dhdm ]*)", re.I)
_REPLACE = re.compile(
    r"replace\b(?:\s+(?:player\s+)?(\S+))?(?:\s+(?:with\s+|by\s+)?(\S+))?(.*)", re.I
)
_REMOVE = re.compile(r"remove\b(?:\s+(?:player\s+)?(\S+))?(.*)", re.I)
_STAND_IN = re.compile(r"stand[\s-]?in\b(?:\s+(?:for\s+)?(\S+))?(?:\s+(on|off))?(.*)", re.I)
_COPY = re.compile(r"copy\b(?:\s+(\S+))?(.*)", re.I)
_ANNOUNCE = re.compile(r"announce(?:ment)?", re.I)
_END_ANNOUNCE = re.compile(r"end\s*announce(?:ment)?|announce(?:ment)?\s+end", re.I)
_HANDLE = re.compile(r"[a-z][a-z0-9_-]{0,31}", re.I)
_MAIL_ADDRESS = re.compile(r"<?([^@\s<>]+@[^@\s<>]+\.[^@\s<>.]+)>?", re.I)
GM_LINE_WORDS = 4
"""A line that starts with a game master's command word but is not well formed is taken for
a wrong command (and answered) only up to this many words: longer, it is prose ("Replace my
orders with these:") and left for the game."""


def _wrong_gm(
    command: type[Command], text: str, line: SectionLine, usage: str
) -> list[Command | CommandProblem] | None:
    if len(text.split()) > GM_LINE_WORDS:
        return None
    return [CommandProblem(command, line, usage)]


def _pause(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    if _PAUSE.fullmatch(text):
        return [Pause(line)]
    return [Resume(line)] if _RESUME.fullmatch(text) else None


def _extend(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _EXTEND.fullmatch(text)
    if match is None:
        return None
    usage = (
        "write EXTEND and how much longer (EXTEND 24h, EXTEND 2d) or until when, in the "
        "game's time zone (EXTEND UNTIL 2026-11-25 21:00)"
    )
    value = (match.group(1) or "").strip()
    until = _UNTIL.fullmatch(value)
    if until is not None:
        written = f"{until.group(1)} {until.group(2).zfill(5)}"
        try:
            moment = datetime.fromisoformat(written)
        except ValueError:
            return [CommandProblem(Extend, line, f"{written} is no date and time; {usage}")]
        return [Extend(None, moment, bool(until.group(3)), line)]
    by = _BY.fullmatch(value)
    try:
        duration = parse_duration(by.group(1)) if by is not None else None
    except ScheduleError:
        duration = None
    if duration is None:
        return _wrong_gm(Extend, text, line, usage)
    return [Extend(duration, None, False, line)]


def _replace(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _REPLACE.fullmatch(text)
    if match is None:
        return None
    handle, address, rest = match.group(1), match.group(2), match.group(3).strip()
    found = _MAIL_ADDRESS.fullmatch(address or "")
    if handle is None or not _HANDLE.fullmatch(handle) or found is None or rest:
        usage = "write REPLACE, the player's handle and the new address: REPLACE cat a@example.org"
        return _wrong_gm(ReplacePlayer, text, line, usage)
    return [ReplacePlayer(handle.lower(), found.group(1).lower(), line)]


def _remove(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _REMOVE.fullmatch(text)
    if match is None:
        return None
    handle, rest = match.group(1), match.group(2).strip()
    if handle is None or not _HANDLE.fullmatch(handle) or rest:
        usage = "write REMOVE and the player's handle: REMOVE cat"
        return _wrong_gm(RemovePlayer, text, line, usage)
    return [RemovePlayer(handle.lower(), line)]


def _stand_in(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _STAND_IN.fullmatch(text)
    if match is None:
        return None
    handle, switch, rest = match.group(1), match.group(2), match.group(3).strip()
    if handle is None or not _HANDLE.fullmatch(handle) or rest:
        usage = "write STAND-IN and the player's handle (STAND-IN cat), or STAND-IN cat OFF"
        return _wrong_gm(StandIn, text, line, usage)
    return [StandIn(handle.lower(), (switch or "on").lower() == "on", line)]


def _copy(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _COPY.fullmatch(text)
    if match is None:
        return None
    switch, rest = (match.group(1) or "").lower(), match.group(2).strip()
    if switch not in ("on", "off") or rest:
        return _wrong_gm(CopyResults, text, line, "write COPY ON or COPY OFF alone on a line")
    return [CopyResults(switch == "on", line)]


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
    _set_away,
    _set,
    _resign,
    _observe,
    _join,
    _pause,
    _extend,
    _replace,
    _remove,
    _stand_in,
    _copy,
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
        if _ANNOUNCE.fullmatch(text):
            commands.append(Announce(_read_message(lines, end=_END_ANNOUNCE), line))
            continue
        if _END_PRESS.fullmatch(text) or _END_ANNOUNCE.fullmatch(text):
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
