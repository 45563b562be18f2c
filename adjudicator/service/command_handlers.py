"""Each mail command bound to its handler: the service's half of the command's spec (the
reading half is ``mail/command_specs.py``).

A handler is given the section, its commands of the handler's types (in the order written) and
the problems of their lines; it answers True when what it did counts as accepted. What it is
given says what it may count on: a handler of commands that need no seat gets a
:class:`SectionHandling`, whose game and seat may be unknown; a handler of commands that need
a seat gets a :class:`SeatedHandling`, whose game and seat are proven and never None (or, for
the person's own settings, a :class:`PersonHandling`, with his seat and maybe no game). The
intake builds that value once, after the proof, and hands it to every handler of the section
(``intake._run_handlers``); :class:`Handles` checks that a handler is given what it needs.

A contract test checks that every command has a spec and exactly one handler here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from adjudicator.mail.commands import (
    Announce,
    Approve,
    Command,
    CommandProblem,
    CopyResults,
    Extend,
    Forgot,
    GameWebhook,
    Help,
    History,
    Join,
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
from adjudicator.service import (
    absence_mail,
    account,
    approval,
    club,
    conversation,
    digests,
    observers,
    offers,
    signup,
    standby,
)
from adjudicator.service.gm_mail import run_gm_commands
from adjudicator.service.handling import PersonHandling, SeatedHandling, SectionHandling
from adjudicator.service.orders import take_orders
from adjudicator.service.press import send_press
from adjudicator.service.report_requests import Asker, answer_requests
from adjudicator.service.tournament_gm import run_tournament_commands

Given = TypeVar("Given", bound=SectionHandling)


@dataclass(frozen=True)
class Handles(Generic[Given]):
    """One handler (``run``), the command types it answers, and what it must be given."""

    commands: tuple[type[Command], ...]
    given: type[Given]
    run: Callable[[Given, Sequence[Command], Sequence[CommandProblem]], bool]

    def __call__(
        self,
        handling: SectionHandling,
        commands: Sequence[Command],
        problems: Sequence[CommandProblem],
    ) -> bool:
        if not isinstance(handling, self.given):
            # The intake runs a command that needs a seat only once the seat is proven.
            raise TypeError(f"{self.run.__name__} needs a {self.given.__name__}")
        return self.run(handling, commands, problems)


def _answer_requests(
    handling: SeatedHandling, commands: Sequence[Command], problems: Sequence[CommandProblem]
) -> bool:
    game, seat = handling.game, handling.seat
    asker = Asker(game, seat, handling.mail, key=handling.key)
    history = next((c for c in commands if isinstance(c, History)), None)
    handling.notes += answer_requests(
        handling.session,
        ctx=handling.ctx,
        asker=asker,
        reports=[c for c in commands if isinstance(c, Report)],
        history=history,
        problems=problems,
        now=handling.now,
    )
    return not problems


def _gm_commands(
    handling: SectionHandling, commands: Sequence[Command], problems: Sequence[CommandProblem]
) -> bool:
    """A game master's commands: a tournament's, where the mail went to a tournament's game
    master's reply address (``tournament_gm.py``), else a game's (``gm_mail.py``)."""
    if handling.gm_tournament is not None and handling.gm_game is None:
        return run_tournament_commands(handling, handling.gm_tournament, commands, problems)
    return run_gm_commands(handling, commands, problems)


def _take_orders(
    handling: SeatedHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    return take_orders(handling, commands)


HANDLERS: tuple[Handles[Any], ...] = (
    Handles((Orders,), SeatedHandling, _take_orders),
    Handles((Help,), SectionHandling, conversation.answer_help),
    Handles((ListGames,), SectionHandling, conversation.answer_list),
    Handles((Status,), SectionHandling, conversation.answer_status),
    Handles((Forgot,), SectionHandling, account.forgot),
    Handles((Observe,), SectionHandling, observers.observe),
    Handles((Join,), SectionHandling, signup.join),
    Handles((Approve,), SectionHandling, approval.approve),
    Handles((Standby,), SectionHandling, standby.standby),
    Handles((Take,), SectionHandling, offers.take),
    Handles((Report, History), SeatedHandling, _answer_requests),
    Handles((SetTimeZone, SetPassword, SetAddress, SetWait), PersonHandling, account.set_account),
    Handles((SetAbsence,), SeatedHandling, absence_mail.set_absence),
    Handles((SetQuiet, SetWeekend), PersonHandling, absence_mail.set_quiet_times),
    Handles((Press,), SeatedHandling, send_press),
    Handles((Resign,), SeatedHandling, account.resign),
    Handles((WhoIs,), SectionHandling, club.whois),
    Handles((RatingAsked,), SectionHandling, club.rating),
    Handles((SetPublic,), PersonHandling, club.set_public),
    Handles((SetDigest,), PersonHandling, digests.set_digest),
    Handles((SetWebhook,), PersonHandling, club.set_webhook),
    Handles(
        (
            Pause,
            Resume,
            Extend,
            ReplacePlayer,
            RemovePlayer,
            Withdraw,
            StandIn,
            Announce,
            CopyResults,
            GameWebhook,
            RecordOf,
        ),
        SectionHandling,
        _gm_commands,
    ),
    Handles((Unknown,), SectionHandling, conversation.answer_problems),
)
"""Every command type and its handler, in the order handlers run: orders first (a STATUS in
the same mail shows them stored), mistyped commands last."""


class NoHandler(LookupError):
    """A command type no handler answers."""


def handler_of(command: type[Command]) -> Handles[Any]:
    """The handler of the command type ``command``."""
    found = next((h for h in HANDLERS if command in h.commands), None)
    if found is None:
        raise NoHandler(f"no handler for the command {command.__name__!r}")
    return found
