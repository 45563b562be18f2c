"""A mail read into typed commands: what each game section of a mail asks the service to do.

:func:`read_commands` splits an ordinary mail into its game sections (``split_sections``) and
reads each section's lines into commands: a line that a command reader recognises becomes that
command (or a :class:`CommandProblem` when its arguments are wrong); every other line is left
for the game, and the section's :class:`Orders` hold them. Each command type says whether it
needs an authenticated seat: the intake proves the seat only for those, so a command that needs
none is answered even to a stranger.

Adding a command is one class in ``command_types.py``, one reader in :data:`READERS` (the game
master's are in ``gm_readers.py``) and one handler in the intake's table. ``PRESS`` is the
one command that spans lines: its message runs from the line after it to ``ENDPRESS``, the next
``PRESS`` line or the end of the section. A line that looks like a mistyped command (``HLEP``,
``STAUTS``) is a :class:`CommandProblem` of :class:`Unknown`, answered with the list of
commands and the closest one. Pure: lines in, values out.

The game master's commands (:class:`GmCommand`: PAUSE, RESUME, EXTEND, REPLACE, REMOVE,
STAND-IN, ANNOUNCE, COPY) need no seat but the game master's proof, which their handler
checks (``service/gm_mail.py``). ``ANNOUNCE`` spans lines as ``PRESS`` does, up to
``ENDANNOUNCE``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from adjudicator.core.away import (
    AwayError,
    parse_absence,
    parse_quiet,
    parse_weekend,
)
from adjudicator.core.text import is_handle, normalise_line
from adjudicator.mail import requests
from adjudicator.mail.command_types import (
    Announce,
    Approve,
    Command,
    CommandProblem,
    CopyResults,
    Extend,
    Forgot,
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
    SetPassword,
    SetPublic,
    SetQuiet,
    SetTimeZone,
    SetWait,
    SetWeekend,
    Standby,
    StandIn,
    Status,
    Take,
    Unknown,
    WhoIs,
)
from adjudicator.mail.gm_readers import GM_READERS, MAIL_ADDRESS
from adjudicator.mail.orderlike import COMMAND_WORDS, reads_as_order
from adjudicator.mail.parse import InboundMail, Section, SectionLine, split_sections

__all__ = [
    "READERS",
    "Announce",
    "Approve",
    "Command",
    "CommandProblem",
    "CopyResults",
    "Extend",
    "Forgot",
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
    "SetPassword",
    "SetPublic",
    "SetQuiet",
    "SetTimeZone",
    "SetWait",
    "SetWeekend",
    "StandIn",
    "Standby",
    "Status",
    "Take",
    "Unknown",
    "WhoIs",
    "press_targets",
    "read_commands",
    "read_section",
]


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
    "public",
)

_HELP = re.compile(r"help(?:\s+(?:on\s+|for\s+|game\s+)?([a-z0-9][a-z0-9_.-]{0,63}))?", re.I)
_LIST = re.compile(r"list(?:\s+(?:the\s+)?games)?", re.I)
_STATUS = re.compile(r"status|orders|my\s+orders|show\s+orders", re.I)
_FORGOT = re.compile(r"forgot(?:ten)?(?:\s+(?:my\s+)?password)?|lost\s+password|password", re.I)
_SET = re.compile(
    r"set\s+(time\s*zone|tz|zone|password|address|e-?mail|wait|no\s*wait)\b\s*(.*)", re.I
)
_ADDRESS = re.compile(MAIL_ADDRESS + r"(?:\s+([0-9a-z]{8}))?", re.I)
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
_ANNOUNCE = re.compile(r"announce(?:ment)?", re.I)
_END_ANNOUNCE = re.compile(r"end\s*announce(?:ment)?|announce(?:ment)?\s+end", re.I)
_PASSWORD_WORDS = re.compile(r"set\s+password\b[\s:=]*(.*)", re.I)
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


_WHOIS = re.compile(r"who\s*is(?:\s+(\S+))?", re.I)
_RATING = re.compile(r"(?:my\s+)?ratings?", re.I)
_SET_PUBLIC = re.compile(r"set\s+public\b\s*(.*)", re.I)


def _whois(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _WHOIS.fullmatch(text)
    if match is None:
        return None
    handle = match.group(1)
    if handle is None or not is_handle(handle.lower()):
        return [CommandProblem(WhoIs, line, "write WHOIS and a player's name, e.g. WHOIS cat")]
    return [WhoIs(handle.lower(), line)]


def _rating(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [RatingAsked(line)] if _RATING.fullmatch(text) else None


def _set_public(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _SET_PUBLIC.fullmatch(text)
    if match is None:
        return None
    value = match.group(1).strip().lower()
    if value not in ("on", "off"):
        return [CommandProblem(SetPublic, line, "write SET PUBLIC ON or SET PUBLIC OFF")]
    return [SetPublic(value == "on", line)]


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
        "SET ADDRESS, SET WAIT, SET NOWAIT, SET ABSENCE, SET QUIET, SET WEEKEND and SET PUBLIC"
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
    _whois,
    _rating,
    _set_public,
    _set_away,
    _set,
    _resign,
    _observe,
    _join,
    *GM_READERS,
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
        return any(c.needs_seat for c in self.asks) or any(
            p.command.needs_seat for p in self.problems
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
