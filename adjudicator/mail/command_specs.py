"""The mail commands: one :class:`CommandSpec` each, and the one table that lists them.

Every fact about a command that the reading of mail needs is in its spec: its value type, its
reader, the words its lines start with, its lines in HELP's list, whether it needs a seat,
whether it may speak for the person, the templates of its answer. :data:`SPECS` lists them;
:func:`spec_of` finds one by its type. The tables the rest of the service used to keep by hand
are read from here: the readers tried on each line (:func:`line_readers`), the command words
(:func:`command_words`, ``orderlike.py``), HELP's list (:func:`help_lines`). The service
binds each command to its handler (``service/command_handlers.py``); a contract test checks
that every command has a spec with all its parts and a handler.

A new command is its value type (``command_types.py``), its reader (``player_readers.py``), one
spec here and one handler there. Pure.
"""

from __future__ import annotations

import difflib
import re
from typing import NamedTuple

from adjudicator.mail import gm_readers, player_readers
from adjudicator.mail.command_types import (
    Announce,
    Approve,
    Command,
    CommandProblem,
    CommandSpec,
    CopyResults,
    Extend,
    Forgot,
    GameWebhook,
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
from adjudicator.mail.lines import SectionLine

_FIRST_WORD = re.compile(r"([a-z]+)(?:\s|$)", re.I)
_GM_ANSWERS = ("answer/gm", "answer/gm_refused")


def read_mistyped(text: str, line: SectionLine) -> list[Command | CommandProblem] | None:
    """A short line whose first word is a near miss of a command word (``HLEP``)."""
    match = _FIRST_WORD.match(text)
    if match is None or len(text.split()) > 2:
        return None
    word = match.group(1).lower()
    words = command_words()
    if len(word) < 4 or any(word.startswith(command) for command in words):
        return None  # "reporting for duty" is prose
    close = difflib.get_close_matches(word, words, n=1, cutoff=0.75)
    if not close:
        return None
    return [
        CommandProblem(
            Unknown,
            line,
            f"there is no command {match.group(1).upper()}; did you mean {close[0].upper()}?",
        )
    ]


SPECS: tuple[CommandSpec, ...] = (
    CommandSpec(
        Orders,
        None,  # the lines no reader took
        answers=("confirmation", "rejection", "late", "not_your_turn"),
    ),
    CommandSpec(
        Help,
        player_readers.read_help,
        words=("help",),
        help=(
            ("HELP", "this list"),
            ("HELP gw42", "how to write orders in game gw42, and its rules"),
        ),
        needs_seat=False,
        answers=("answer/help", "answer/help_game", "answer/gm_help"),
    ),
    CommandSpec(
        ListGames,
        player_readers.read_list,
        words=("list",),
        help=(("LIST", "the games open for sign-up, and your games"),),
        needs_seat=False,
        answers=("answer/list",),
    ),
    CommandSpec(
        Join,
        player_readers.read_join,
        words=("join",),
        help=(
            ("JOIN gw42", "a seat in game gw42, open for sign-up (confirmed"),
            ("", "by a second mail)"),
        ),
        needs_seat=False,
        answers=("answer/join", "join_decided", "answer/join_tournament", "tournament_join"),
    ),
    CommandSpec(
        Status,
        player_readers.read_status,
        words=("status", "orders"),
        help=(("STATUS (or ORDERS)", "your games: deadline, your orders, who is awaited"),),
        needs_seat=False,
        answers=("answer/status", "answer/status_none"),
    ),
    CommandSpec(
        Report,
        player_readers.read_report,
        words=("report",),
        help=(("REPORT 3", "the result of round 3 again (REPORT: the last)"),),
        answers=("result", "request_problem"),
    ),
    CommandSpec(
        History,
        player_readers.read_history,
        words=("history",),
        help=(("HISTORY", "the whole game so far, with its record"),),
        answers=("history", "request_problem"),
    ),
    CommandSpec(
        Press,
        None,  # spans lines: read with the section
        words=("press", "endpress"),
        help=(
            ("PRESS", "a message to every player: the lines after it,"),
            ("", "up to a line ENDPRESS"),
            ("PRESS TO cat dog", "a message to the players cat and dog only"),
        ),
        answers=("answer/press_sent", "press"),
    ),
    CommandSpec(
        SetTimeZone,
        player_readers.read_set,
        words=("set",),
        help=(("SET TIMEZONE Europe/Paris", "deadlines shown in that time zone"),),
        personal=True,
        answers=("answer/set_timezone",),
    ),
    CommandSpec(
        SetPassword,
        player_readers.read_set,
        words=("set",),
        help=(("SET PASSWORD newword", "your new password (8 to 64 characters)"),),
        personal=True,
        answers=("answer/set_password",),
    ),
    CommandSpec(
        SetAddress,
        player_readers.read_set,
        words=("set",),
        help=(
            ("SET ADDRESS me@home.org", "move your games to a new address (confirmed"),
            ("", "with a code mailed there)"),
        ),
        answers=("answer/set_address",),
    ),
    CommandSpec(
        SetWait,
        player_readers.read_set,
        words=("set",),
        help=(
            ("SET WAIT", "rounds of the game run to their deadline"),
            ("SET NOWAIT", "a round may close once every order is in"),
        ),
        answers=("answer/set_wait",),
    ),
    CommandSpec(
        SetAbsence,
        player_readers.read_set_away,
        words=("set",),
        help=(
            ("SET ABSENCE 5d", "away for 5 days from now, or from one day to"),
            ("", "another: SET ABSENCE 2026-12-20 2026-12-27; OFF: back"),
        ),
        answers=("answer/set_absence",),
    ),
    CommandSpec(
        SetQuiet,
        player_readers.read_set_away,
        words=("set",),
        help=(("SET QUIET 22:00-07:00", "no reminders in those hours (OFF: any hour)"),),
        personal=True,
        answers=("answer/set_quiet",),
    ),
    CommandSpec(
        SetWeekend,
        player_readers.read_set_away,
        words=("set",),
        help=(("SET WEEKEND sat,sun", "no reminders on those days (OFF: any day)"),),
        personal=True,
        answers=("answer/set_quiet",),
    ),
    CommandSpec(
        SetDigest,
        player_readers.read_set_digest,
        words=("set",),
        help=(
            ("SET DIGEST DAILY 08:00", "what can wait (results, press, news) in one mail"),
            ("", "a day at that time; what cannot still comes at once"),
            ("", "(OFF: every mail at once)"),
        ),
        personal=True,
        answers=("answer/set_digest",),
    ),
    # The club (docs/club.md): a player's record, his ratings, and whether the archive shows him.
    CommandSpec(
        SetPublic,
        player_readers.read_set_public,
        words=("set",),
        help=(
            ("SET PUBLIC OFF", "off the archive's players' page and rating lists"),
            ("", "(ON: back on them, by your name only)"),
        ),
        personal=True,
        answers=("answer/set_public",),
    ),
    CommandSpec(
        SetWebhook,
        player_readers.read_set_webhook,
        words=("set",),
        help=(
            ("SET WEBHOOK https://...", "your own notices posted there too, signed"),
            ("", "(OFF: no more); docs/webhooks.md"),
        ),
        personal=True,
        answers=("answer/set_webhook",),
    ),
    CommandSpec(
        WhoIs,
        player_readers.read_whois,
        words=("whois",),
        help=(("WHOIS cat", "the record, reliability and ratings of player cat"),),
        needs_seat=False,
        answers=("answer/whois",),
    ),
    CommandSpec(
        RatingAsked,
        player_readers.read_rating,
        words=("rating",),
        help=(("RATING", "your ratings, one per kind of game"),),
        needs_seat=False,
        answers=("answer/rating",),
    ),
    CommandSpec(
        Forgot,
        player_readers.read_forgot,
        words=("forgot", "password"),
        help=(("FORGOT", "your personal reply address, mailed to you"),),
        needs_seat=False,
        answers=("answer/forgot", "answer/forgot_none"),
    ),
    CommandSpec(
        Resign,
        player_readers.read_resign,
        words=("resign",),
        help=(("RESIGN", "leave a game (confirmed by a second mail)"),),
        answers=("answer/resign", "resigned"),
    ),
    CommandSpec(
        Standby,
        player_readers.read_standby,
        words=("standby",),
        help=(
            ("STANDBY giveaway", "be offered a seat in a giveaway game when one"),
            ("", "is free (confirmed by a second mail); STANDBY OFF"),
        ),
        needs_seat=False,
        answers=("answer/standby",),
    ),
    # TAKE, APPROVE and DECLINE have no command words: "Take care," is a common sign-off, and
    # their lines are read by their code anyway (``orderlike.py``).
    CommandSpec(
        Take,
        player_readers.read_take,
        help=(("TAKE gw42 CODE", "take the seat an offer mail gave you the code for"),),
        needs_seat=False,
        answers=("answer/take",),
    ),
    CommandSpec(
        Observe,
        player_readers.read_observe,
        words=("observe", "unobserve"),
        help=(
            ("OBSERVE gw42", "game gw42's public results by mail (confirmed"),
            ("", "by a second mail); UNOBSERVE gw42 stops them"),
        ),
        needs_seat=False,
        answers=("answer/observe", "observed"),
    ),
    CommandSpec(
        Approve,
        player_readers.read_approve,
        needs_seat=False,
        answers=("answer/approve", "join_decided", "answer/join_tournament", "tournament_decided"),
    ),
    # The game master's commands: no seat, the game master's proof (``service/gm_mail.py``);
    # not in HELP's list, which is the players' (the game master's is ``_gm_commands``).
    CommandSpec(
        Pause, gm_readers.read_pause, words=("pause",), needs_seat=False, answers=_GM_ANSWERS
    ),
    CommandSpec(
        Resume, gm_readers.read_pause, words=("resume",), needs_seat=False, answers=_GM_ANSWERS
    ),
    CommandSpec(
        Extend, gm_readers.read_extend, words=("extend",), needs_seat=False, answers=_GM_ANSWERS
    ),
    CommandSpec(ReplacePlayer, gm_readers.read_replace, needs_seat=False, answers=_GM_ANSWERS),
    CommandSpec(RemovePlayer, gm_readers.read_remove, needs_seat=False, answers=_GM_ANSWERS),
    # A tournament's game master (``service/tournament_gm.py``): REPLACE too, there. No
    # command word: "Withdraw my last order" is a player's prose.
    CommandSpec(
        Withdraw,
        gm_readers.read_withdraw,
        needs_seat=False,
        answers=("answer/tournament_gm", "answer/gm_refused", "tournament_change"),
    ),
    CommandSpec(StandIn, gm_readers.read_stand_in, needs_seat=False, answers=_GM_ANSWERS),
    CommandSpec(
        Announce,
        None,  # spans lines: read with the section
        words=("announce", "endannounce"),
        needs_seat=False,
        answers=(*_GM_ANSWERS, "announcement"),
    ),
    CommandSpec(CopyResults, gm_readers.read_copy, needs_seat=False, answers=_GM_ANSWERS),
    CommandSpec(
        GameWebhook,
        gm_readers.read_webhook,
        words=("webhook",),
        needs_seat=False,
        answers=_GM_ANSWERS,
    ),
    CommandSpec(
        RecordOf, gm_readers.read_record, words=("record",), needs_seat=False, answers=_GM_ANSWERS
    ),
    CommandSpec(
        Unknown,
        read_mistyped,  # last: a line no other reader took
        needs_seat=False,
        answers=("answer/problems",),
    ),
)
"""Every command, in the order of HELP's list; the readers are tried in this order too."""


class UnknownCommand(ValueError):
    """A command type with no spec."""


def spec_of(command: type[Command]) -> CommandSpec:
    """The spec of the command type ``command``."""
    found = next((spec for spec in SPECS if spec.command is command), None)
    if found is None:
        raise UnknownCommand(f"no spec for the command {command.__name__!r}")
    return found


def needs_seat(command: type[Command]) -> bool:
    """Whether only a player proven to hold a seat of the section's game may ask it."""
    return spec_of(command).needs_seat


class _Tables(NamedTuple):
    """The tables read from one value of :data:`SPECS`."""

    specs: tuple[CommandSpec, ...]
    readers: tuple[LineReader, ...]
    words: tuple[str, ...]
    help: tuple[tuple[str, str], ...]


_read: list[_Tables] = []
"""The tables of the last :data:`SPECS` read: a mail's every line asks for them."""


def _tables() -> _Tables:
    if not _read or _read[0].specs is not SPECS:  # read again only if SPECS is another tuple
        readers = dict.fromkeys(spec.reader for spec in SPECS if spec.reader is not None)
        words = dict.fromkeys(word for spec in SPECS for word in spec.words)
        help = tuple(line for spec in SPECS for line in spec.help)
        _read[:] = [_Tables(SPECS, tuple(readers), tuple(words), help)]
    return _read[0]


def line_readers() -> tuple[LineReader, ...]:
    """Every one-line command's reader, once each, in the order of :data:`SPECS` (``PRESS``
    and ``ANNOUNCE`` take the lines after them: ``commands.read_section``)."""
    return _tables().readers


def command_words() -> tuple[str, ...]:
    """The words commands start with: a line that starts with one and has a few words after it
    (``JOIN sf9 4F2A09C1``) is a command, never a signature's phone number; a line that starts
    with a near miss is a mistyped command."""
    return _tables().words


def help_lines() -> tuple[tuple[str, str], ...]:
    """HELP's list of commands, as (example, meaning)."""
    return _tables().help
