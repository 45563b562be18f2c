"""The readers of the players' one-line command lines (HELP, LIST, STATUS, FORGOT, SET ...,
RESIGN, OBSERVE, JOIN, STANDBY, TAKE, APPROVE, REPORT, HISTORY, WHOIS, RATING). Each takes a
normalised line and gives the commands it stands for, a :class:`CommandProblem` when its
arguments are wrong, or None when the line is not its command; ``command_specs.py`` names each
command's reader. Pure."""

from __future__ import annotations

import difflib
import re

from adjudicator.core.away import (
    AwayError,
    parse_absence,
    parse_quiet,
    parse_time_of_day,
    parse_weekend,
)
from adjudicator.core.text import is_handle
from adjudicator.mail import requests
from adjudicator.mail.command_types import (
    Approve,
    Command,
    CommandProblem,
    Forgot,
    Help,
    History,
    Join,
    ListGames,
    Observe,
    RatingAsked,
    Report,
    Resign,
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
    Status,
    Take,
    WhoIs,
)
from adjudicator.mail.gm_readers import MAIL_ADDRESS
from adjudicator.mail.lines import SectionLine


def read_history(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [History(line)] if requests.is_history(text) else None


def read_report(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
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
    "digest",
    "webhook",
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
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){0,2}")


def read_help(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _HELP.fullmatch(text)
    if match is None:
        return None
    game = match.group(1).lower() if match.group(1) else None
    return [Help(game, line)]


def read_list(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [ListGames(line)] if _LIST.fullmatch(text) else None


def read_status(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [Status(line)] if _STATUS.fullmatch(text) else None


def read_forgot(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [Forgot(line)] if _FORGOT.fullmatch(text) else None


def read_set(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    """SET TIMEZONE, SET PASSWORD, SET ADDRESS, SET WAIT and SET NOWAIT; any other SET but
    those :func:`read_set_away`, :func:`read_set_public` and :func:`read_set_digest` read is
    an unknown setting."""
    match = _SET.fullmatch(text)
    if match is None:
        other = _SET_OTHER.fullmatch(text)
        if other is None or any(
            own.fullmatch(text) for own in (_SET_AWAY, _SET_PUBLIC, _SET_DIGEST, _SET_WEBHOOK)
        ):
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
        "SET ADDRESS, SET WAIT, SET NOWAIT, SET ABSENCE, SET QUIET, SET WEEKEND, SET PUBLIC "
        "and SET DIGEST"
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


def read_set_away(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    """SET ABSENCE, SET QUIET and SET WEEKEND."""
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


def read_observe(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _OBSERVE.fullmatch(text)
    if match is None:
        return None
    stop, game, code = bool(match.group(1)), match.group(2), match.group(3)
    return [Observe(game.lower() if game else None, code.upper() if code else None, stop, line)]


def read_join(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
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


def read_standby(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _STANDBY.fullmatch(text)
    if match is None:
        return None
    stop, kind, code = bool(match.group(1)), match.group(2), match.group(3)
    return [Standby(kind.lower() if kind else None, code.upper() if code else None, stop, line)]


def read_take(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _TAKE.fullmatch(text)
    if match is None:
        return None
    game, code = match.group(1), match.group(2)
    return [Take(game.lower() if game else None, code.upper(), line)]


def read_approve(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
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


def read_resign(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _RESIGN.fullmatch(text)
    if match is None:
        return None
    return [Resign(match.group(1).upper() if match.group(1) else None, line)]


_WHOIS = re.compile(r"who\s*is(?:\s+(\S+))?", re.I)
_RATING = re.compile(r"(?:my\s+)?ratings?", re.I)
_SET_PUBLIC = re.compile(r"set\s+public\b\s*(.*)", re.I)
_SET_WEBHOOK = re.compile(r"set\s+webhook\b\s*(.*)", re.I)


def read_whois(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _WHOIS.fullmatch(text)
    if match is None:
        return None
    handle = match.group(1)
    if handle is None or not is_handle(handle.lower()):
        return [CommandProblem(WhoIs, line, "write WHOIS and a player's name, e.g. WHOIS cat")]
    return [WhoIs(handle.lower(), line)]


def read_rating(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    return [RatingAsked(line)] if _RATING.fullmatch(text) else None


def read_set_public(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _SET_PUBLIC.fullmatch(text)
    if match is None:
        return None
    value = match.group(1).strip().lower()
    if value not in ("on", "off"):
        return [CommandProblem(SetPublic, line, "write SET PUBLIC ON or SET PUBLIC OFF")]
    return [SetPublic(value == "on", line)]


_SET_DIGEST = re.compile(r"set\s+digests?\b\s*(.*)", re.I)
_DAILY = re.compile(r"(?:daily\s+|every\s+day\s+)?(?:at\s+)?(\S+)", re.I)


def read_set_digest(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    """``SET DIGEST DAILY 08:00`` (``DAILY`` may be left out) and ``SET DIGEST OFF``."""
    match = _SET_DIGEST.fullmatch(text)
    if match is None:
        return None
    value = match.group(1).strip()
    if _OFF.fullmatch(value):
        return [SetDigest(None, line)]
    daily = _DAILY.fullmatch(value)
    try:
        if daily is None:
            raise AwayError(value)
        at = parse_time_of_day(daily.group(1))
    except AwayError:
        return [
            CommandProblem(
                SetDigest,
                line,
                "write SET DIGEST DAILY and a time of day in your time zone, e.g. "
                "SET DIGEST DAILY 08:00, or SET DIGEST OFF",
            )
        ]
    return [SetDigest(f"{at:%H:%M}", line)]


def read_set_webhook(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    """``SET WEBHOOK URL`` or ``SET WEBHOOK OFF``; the URL's shape only (what it resolves to
    is checked at each post: ``notify/webhook_address.py``)."""
    match = _SET_WEBHOOK.fullmatch(text)
    if match is None:
        return None
    value = match.group(1).strip().strip("<>").strip()
    if value.lower() in ("off", "none"):
        return [SetWebhook(None, line)]
    if not re.fullmatch(r"https?://\S+", value, re.I):
        return [
            CommandProblem(
                SetWebhook,
                line,
                "write SET WEBHOOK and the https address to post to, "
                "e.g. SET WEBHOOK https://discord.com/api/webhooks/..., or SET WEBHOOK OFF",
            )
        ]
    return [SetWebhook(value, line)]
