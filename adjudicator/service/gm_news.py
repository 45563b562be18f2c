"""What the game master did, told to the game: a player taken out or played by the computer,
and the game master's own announcements (``ANNOUNCE``).

Pausing, resuming, moving a deadline and replacing a player tell the players themselves
(``gm.py``); the command line and the game master's mail call these for the rest, so that
every change is told the same way whichever way it was made. An announcement's text is the
game master's: it goes in the body only, never in a header.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlmodel import Session

from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.service.game_context import base_context
from adjudicator.service.games import NO_ADDRESS, active_seats, seats_of
from adjudicator.service.rounds import open_round_of
from adjudicator.service.urgency import pressing_seats
from adjudicator.storage import queries
from adjudicator.storage.models import Game, Seat

CHANGES = ("removed", "stand_in", "stand_in_off")
"""The changes ``templates/mail/game_change.txt.j2`` words."""


def tell_change(
    session: Session,
    game: Game,
    *,
    change: str,
    handle: str,
    ctx: ServiceContext,
    now: datetime,
) -> int:
    """Tell every player still in the game, and the one concerned (a player taken out too:
    it is the last mail of the game he gets), that ``change`` happened to ``handle``'s seat;
    how many were told."""
    if change not in CHANGES:
        raise ValueError(f"unknown change {change!r}")
    concerned = [s for s in seats_of(session, game) if s.handle == handle and not s.active]
    return tell_every_seat(
        session,
        game,
        template="game_change",
        extra={"change": change, "player": handle},
        key=lambda seat: f"change:{game.id}:{change}:{handle}:{now.timestamp():.0f}:{seat.id}",
        ctx=ctx,
        now=now,
        also=[s for s in concerned if s.address != NO_ADDRESS],
    )


def announce(
    session: Session, game: Game, text: str, *, key: str, ctx: ServiceContext, now: datetime
) -> int:
    """The game master's message to every player still in the game and every observer, under
    "the game master"; ``key`` makes it once only. How many it went to."""
    told = tell_every_seat(
        session,
        game,
        template="announcement",
        extra={"text": text, "observer": False},
        key=lambda seat: f"announce:{key}:{seat.id}",
        ctx=ctx,
        now=now,
    )
    round_ = open_round_of(session, game)
    observers = queries.observers_of(session, game.id)
    for observer in observers:
        queue_notice(
            session,
            Notice(
                "announcement",
                observer.address,
                {**base_context(game, None, round_), "text": text, "observer": True},
                key=f"announce:{key}:o{observer.id}",
                game_id=game.id,
                may_wait=True,
            ),
            ctx=ctx,
            now=now,
        )
    return told + len(observers)


def tell_every_seat(
    session: Session,
    game: Game,
    *,
    template: str,
    extra: dict[str, object],
    key: Callable[[Seat], str],
    ctx: ServiceContext,
    now: datetime,
    also: Sequence[Seat] = (),
    but: Seat | None = None,
) -> int:
    """``template`` to every player still in the game but the seat ``but`` (and to the seats
    ``also``), each once (``key`` of the seat), with the game's context at its open round and
    ``extra``; how many. What the game master did, a resignation (``account.py``) and a seat
    taken over (``handover.py``) are told so."""
    round_ = open_round_of(session, game)
    seats = [*active_seats(session, game), *also]
    if but is not None:
        seats = [s for s in seats if s.id != but.id]
    pressing = pressing_seats(session, game, now=now)
    for seat in seats:
        queue_notice(
            session,
            Notice(
                template,
                seat.address,
                {**base_context(game, seat, round_), **extra},
                key=key(seat),
                game_id=game.id,
                seat_id=seat.id,
                may_wait=seat.id not in pressing,
            ),
            ctx=ctx,
            now=now,
        )
    return len(seats)
