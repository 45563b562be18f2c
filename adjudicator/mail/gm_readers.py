"""The readers of the game master's command lines (PAUSE, RESUME, EXTEND, REPLACE, REMOVE,
STAND-IN, COPY, and a tournament's WITHDRAW; ANNOUNCE spans lines and is read with the
section, in ``commands.py``). Each takes a normalised line and gives the command it stands
for, a :class:`CommandProblem` when its arguments are wrong, or None when the line is not this
command; ``command_specs.py`` names each command's reader. Pure."""

from __future__ import annotations

import re
from datetime import datetime

from adjudicator.core.schedule import ScheduleError, parse_duration
from adjudicator.mail.command_types import (
    Command,
    CommandProblem,
    CopyResults,
    Extend,
    GameWebhook,
    Pause,
    RecordOf,
    RemovePlayer,
    ReplacePlayer,
    Resume,
    StandIn,
    Withdraw,
)
from adjudicator.mail.lines import SectionLine

_PAUSE = re.compile(r"pause(?:\s+(?:the\s+)?game)?", re.I)
_RESUME = re.compile(r"resume(?:\s+(?:the\s+)?game)?|unpause", re.I)
_EXTEND = re.compile(r"extend\b\s*(.*)", re.I)
_UNTIL = re.compile(r"(?:until|to)\s+(\d{4}-\d{2}-\d{2})[ t](\d{1,2}:\d{2})(?:\s+(earlier))?", re.I)
_BY = re.compile(r"(?:by\s+)?(\d[\dhdm ]*)", re.I)
_REPLACE = re.compile(
    r"replace\b(?:\s+(?:player\s+)?(\S+))?(?:\s+(?:with\s+|by\s+)?(\S+))?(.*)", re.I
)
_REMOVE = re.compile(r"remove\b(?:\s+(?:player\s+)?(\S+))?(.*)", re.I)
_WITHDRAW = re.compile(r"withdraw\b(?:\s+(?:player\s+)?(\S+))?(.*)", re.I)
_STAND_IN = re.compile(r"stand[\s-]?in\b(?:\s+(?:for\s+)?(\S+))?(?:\s+(on|off))?(.*)", re.I)
_RECORD = re.compile(r"record\b(?:\s+(?:of\s+)?(\S+))?(.*)", re.I)
_WEBHOOK = re.compile(r"webhook\b\s*(.*)", re.I)
_COPY = re.compile(r"copy\b(?:\s+(\S+))?(.*)", re.I)
_HANDLE = re.compile(r"[a-z][a-z0-9_-]{0,31}", re.I)
MAIL_ADDRESS = r"<?([^@\s<>]+@[^@\s<>]+\.[^@\s<>.]+)>?"
"""A mail address as a command line gives it, in angle brackets or not (the address is group
1): REPLACE here, SET ADDRESS in ``commands.py``."""
_MAIL_ADDRESS = re.compile(MAIL_ADDRESS, re.I)
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


def read_pause(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    if _PAUSE.fullmatch(text):
        return [Pause(line)]
    return [Resume(line)] if _RESUME.fullmatch(text) else None


def read_extend(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
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


def read_replace(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _REPLACE.fullmatch(text)
    if match is None:
        return None
    handle, address, rest = match.group(1), match.group(2), match.group(3).strip()
    found = _MAIL_ADDRESS.fullmatch(address or "")
    if handle is None or not _HANDLE.fullmatch(handle) or found is None or rest:
        usage = "write REPLACE, the player's handle and the new address: REPLACE cat a@example.org"
        return _wrong_gm(ReplacePlayer, text, line, usage)
    return [ReplacePlayer(handle.lower(), found.group(1).lower(), line)]


def read_remove(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _REMOVE.fullmatch(text)
    if match is None:
        return None
    handle, rest = match.group(1), match.group(2).strip()
    if handle is None or not _HANDLE.fullmatch(handle) or rest:
        usage = "write REMOVE and the player's handle: REMOVE cat"
        return _wrong_gm(RemovePlayer, text, line, usage)
    return [RemovePlayer(handle.lower(), line)]


def read_withdraw(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _WITHDRAW.fullmatch(text)
    if match is None:
        return None
    handle, rest = match.group(1), match.group(2).strip()
    if handle is None or not _HANDLE.fullmatch(handle) or rest:
        usage = "write WITHDRAW and the player's handle: WITHDRAW cat"
        return _wrong_gm(Withdraw, text, line, usage)
    return [Withdraw(handle.lower(), line)]


def read_stand_in(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _STAND_IN.fullmatch(text)
    if match is None:
        return None
    handle, switch, rest = match.group(1), match.group(2), match.group(3).strip()
    if handle is None or not _HANDLE.fullmatch(handle) or rest:
        usage = "write STAND-IN and the player's handle (STAND-IN cat), or STAND-IN cat OFF"
        return _wrong_gm(StandIn, text, line, usage)
    return [StandIn(handle.lower(), (switch or "on").lower() == "on", line)]


def read_copy(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _COPY.fullmatch(text)
    if match is None:
        return None
    switch, rest = (match.group(1) or "").lower(), match.group(2).strip()
    if switch not in ("on", "off") or rest:
        return _wrong_gm(CopyResults, text, line, "write COPY ON or COPY OFF alone on a line")
    return [CopyResults(switch == "on", line)]


def read_record(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    match = _RECORD.fullmatch(text)
    if match is None:
        return None
    address = _MAIL_ADDRESS.fullmatch(match.group(1) or "")
    if address is None or match.group(2).strip():
        usage = "write RECORD and the player's address, e.g. RECORD someone@example.org"
        return _wrong_gm(RecordOf, text, line, usage)
    return [RecordOf(address.group(1).lower(), line)]


def read_webhook(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    """WEBHOOK URL, WEBHOOK SECRET text, WEBHOOK FORMAT name, WEBHOOK MENTIONS
    handle:<@id>,..., WEBHOOK OFF."""
    match = _WEBHOOK.fullmatch(text)
    if match is None:
        return None
    rest = match.group(1).strip()
    word, _, value = rest.partition(" ")
    usage = (
        "write WEBHOOK and the https address to post to, WEBHOOK SECRET and a text to sign "
        "with, WEBHOOK FORMAT discord (or slack, json), WEBHOOK MENTIONS alice:<@123456>, "
        "or WEBHOOK OFF"
    )
    if word.lower() == "off" and not value:
        return [GameWebhook("off", None, line)]
    if word.lower() in ("secret", "format") and value.strip() and " " not in value.strip():
        return [GameWebhook(word.lower(), value.strip(), line)]
    if word.lower() == "mentions" and value.strip():  # alice:<@123>, bob:<@456> (or OFF)
        return [GameWebhook("mentions", "".join(value.split()), line)]
    url = rest.strip("<>")
    if re.fullmatch(r"https?://\S+", url, re.I):
        return [GameWebhook("url", url, line)]
    return _wrong_gm(GameWebhook, text, line, usage)
