"""The commands a mail can hold, as values, and :class:`CommandSpec`, everything the service
knows of one command (``command_specs.py`` lists them; read by ``player_readers.py`` and
``gm_readers.py``, answered by the service's handlers). Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from adjudicator.core.away import AbsenceAsked, QuietHours
from adjudicator.mail.lines import SectionLine


@dataclass(frozen=True)
class Command:
    """One thing a mail asks for (its :class:`CommandSpec` says whether it needs a seat)."""


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

    game: str | None
    line: SectionLine


@dataclass(frozen=True)
class ListGames(Command):
    """``LIST``: games open for sign-up, and the sender's games."""

    line: SectionLine


@dataclass(frozen=True)
class Status(Command):
    """``STATUS`` or ``ORDERS``: the sender's games, their rounds, deadlines, stored orders and
    whom each round waits for. Needs no proof: the answer goes only to the registered address
    of each seat, never to another."""

    line: SectionLine


@dataclass(frozen=True)
class Observe(Command):
    """``OBSERVE gw42`` (a code comes back), ``OBSERVE gw42 CODE``: the game's public results by
    mail; ``UNOBSERVE gw42``: no more."""

    game: str | None  # None: the section's game
    code: str | None
    stop: bool
    line: SectionLine


@dataclass(frozen=True)
class Join(Command):
    """``JOIN gw42`` (a code comes back), ``JOIN gw42 CODE`` or ``JOIN gw42 CODE handle``: a
    seat in a game open for sign-up."""

    game: str | None  # None: the section's game
    code: str | None
    handle: str | None
    line: SectionLine


@dataclass(frozen=True)
class Standby(Command):
    """``STANDBY giveaway`` (a code comes back), ``STANDBY giveaway CODE``: offered a seat in
    games of that kind when one is free; ``STANDBY OFF`` (every kind) or ``STANDBY OFF
    giveaway``: no more offers."""

    kind: str | None
    code: str | None
    stop: bool
    line: SectionLine


@dataclass(frozen=True)
class Take(Command):
    """``TAKE gw42 CODE``: the seat game gw42 offered to this address, if nobody was first."""

    game: str | None  # None: the section's game
    code: str
    line: SectionLine


@dataclass(frozen=True)
class Approve(Command):
    """``APPROVE gw42 CODE`` or ``DECLINE gw42 CODE``: the game master's answer to a JOIN that
    waits for it; the code (mailed only to the game master) is the proof."""

    game: str | None  # None: the section's game
    code: str
    approve: bool
    line: SectionLine


@dataclass(frozen=True)
class Forgot(Command):
    """``FORGOT`` (or ``PASSWORD`` alone, ``LOST PASSWORD``): a new password, mailed only to the
    registered address."""

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
class SetPublic(Command):
    """``SET PUBLIC OFF``: the player is left off the archive's players' page and rating lists,
    and WHOIS tells nothing of him; ``SET PUBLIC ON``: shown again (by his handle only)."""

    public: bool
    line: SectionLine


@dataclass(frozen=True)
class SetDigest(Command):
    """``SET DIGEST DAILY 08:00``: the player's mail that can wait comes as one mail a day at
    that time of his own zone (``at``, ``HH:MM``); ``SET DIGEST OFF``: every mail at once
    (``at`` None)."""

    at: str | None
    line: SectionLine


@dataclass(frozen=True)
class SetWebhook(Command):
    """``SET WEBHOOK https://...``: the player's own notices are posted there too, signed
    with a secret the answer gives him; ``SET WEBHOOK OFF`` (``url`` None): no more."""

    url: str | None
    line: SectionLine


@dataclass(frozen=True)
class WhoIs(Command):
    """``WHOIS cat``: the club record of the player known as cat (never an address)."""

    handle: str
    line: SectionLine


@dataclass(frozen=True)
class RatingAsked(Command):
    """``RATING``: the sender's own rating in each kind of game."""

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
class RecordOf(GmCommand):
    """``RECORD someone@example.org``: that person's club record and reliability, for the
    game master deciding on a JOIN (docs/club.md)."""

    address: str
    line: SectionLine


@dataclass(frozen=True)
class ReplacePlayer(GmCommand):
    """``REPLACE cat new@example.org``: a new person takes over the seat."""

    handle: str
    address: str
    line: SectionLine


@dataclass(frozen=True)
class Withdraw(GmCommand):
    """``WITHDRAW cat``: a tournament's game master takes player cat out of the tournament
    (``service/tournament_gm.py``)."""

    handle: str
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
class GameWebhook(GmCommand):
    """``WEBHOOK https://...``: the game's public notices are posted there too (the setting
    ``webhook``); ``WEBHOOK SECRET text``: they are signed with it; ``WEBHOOK FORMAT
    discord``: in that format; ``WEBHOOK MENTIONS alice:<@123>,bob:<@456>``: the players'
    chat names (``webhook_mentions``; ``OFF`` for none); ``WEBHOOK OFF``: no more
    (docs/webhooks.md). ``what`` is ``url``, ``secret``, ``format``, ``mentions`` or ``off``."""

    what: str
    value: str | None
    line: SectionLine


@dataclass(frozen=True)
class Unknown(Command):
    """Stands for a line that looks like a mistyped command (only ever in a problem)."""


@dataclass(frozen=True)
class CommandProblem:
    """A line that is a command whose arguments are wrong: answered, never guessed."""

    command: type[Command]
    line: SectionLine
    message: str


LineReader = Callable[[str, SectionLine], Sequence[Command | CommandProblem] | None]
"""A command's reader: the values a line (already normalised) stands for, or None when the
line is not this command."""


@dataclass(frozen=True)
class CommandSpec:
    """One mail command, all of it in one value (``command_specs.SPECS`` lists them; the
    service binds each to its handler, ``service/command_handlers.py``).

    ``command``: its value type. ``reader``: what reads its lines, None for what is read with
    the section (the orders: the lines no reader took; PRESS and ANNOUNCE, which span lines);
    one reader may read several commands (SET ...). ``words``: the words its lines start
    with, so that such a line is never taken for prose and a near miss is a mistyped command
    (``orderlike.py``). ``help``: its lines in HELP's list of commands, as (example, meaning)
    with an empty example for a meaning that runs on; none for a command HELP does not list
    (the game master's have their own list). ``needs_seat``: only a player proven to hold a
    seat of the section's game may ask it; ``personal``: it sets the person's own settings,
    which hold in all his games, and may be sent in a section with no game. ``answers``: the
    templates its answer is written with (``templates/mail/<answer>.txt.j2``)."""

    command: type[Command]
    reader: LineReader | None
    words: tuple[str, ...] = ()
    help: tuple[tuple[str, str], ...] = ()
    needs_seat: bool = True
    personal: bool = False
    answers: tuple[str, ...] = ()
