"""The life of a game told to the people in it: the game master hears when a game is created,
when it starts and when it ends; the players hear when a game created with ``--no-start``
starts, with the players it has then and the first deadline.

Each mail has an idempotency key, so that repeating a step (a retry, a second instance) sends
nothing twice.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from adjudicator.notify.calendar import deadline_attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.service.game_context import base_context
from adjudicator.service.games import seats_of
from adjudicator.service.notices import queue_gm_notice
from adjudicator.service.rounds import Adjudicated
from adjudicator.service.stand_ins import stand_in_seats
from adjudicator.service.welcome import how_to_play
from adjudicator.storage.models import Game, Round


def _players(session: Session, game: Game) -> list[dict[str, Any]]:
    computer = stand_in_seats(game)
    return [
        {
            "handle": seat.handle,
            # A seat the computer plays with nobody behind it has no address to show.
            "address": seat.address or "(no address: the computer plays it)",
            "stand_in": seat.handle in computer,
        }
        for seat in seats_of(session, game)
        if seat.active
    ]


def tell_created(
    session: Session, *, ctx: ServiceContext, game: Game, first_round: Round | None, now: datetime
) -> bool:
    """The game master's summary of a new game and how to run it; False without one."""
    return queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="created",
        key=str(game.id),
        now=now,
        round_=first_round,
        players=_players(session, game),
        schedule=game.schedule or "by hand (adjudicate --round N --game NAME)",
        started=first_round is not None,
        has_deadline=first_round is not None and first_round.deadline is not None,
    )


def tell_started(
    session: Session, *, ctx: ServiceContext, game: Game, first_round: Round, now: datetime
) -> None:
    """A game created with ``--no-start`` has started: every player gets the players, the
    first deadline and what their welcome could not yet say (their side or colour, the board,
    an example valid now), and so does the game master."""
    players = _players(session, game)
    calendar = deadline_attachment(ctx, game, first_round, now=now)
    for seat in seats_of(session, game):
        if not seat.active:
            continue
        queue_notice(
            session,
            Notice(
                "started",
                seat.address,
                {
                    **base_context(game, seat, first_round),
                    "players": players,
                    "has_deadline": first_round.deadline is not None,
                    "calendar": calendar is not None,
                    "rules_link": ctx.rules_link(game.kind),
                    **how_to_play(ctx, game, seat.handle, seat_index=seat.seat, started=True),
                },
                key=f"started:{game.id}:{seat.id}",
                game_id=game.id,
                round_id=first_round.id,
                seat_id=seat.id,
                attachments=[calendar] if calendar else [],
            ),
            ctx=ctx,
            now=now,
        )
    queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="started",
        key=str(game.id),
        now=now,
        round_=first_round,
        players=players,
        has_deadline=first_round.deadline is not None,
    )


def tell_game_over(
    session: Session, *, ctx: ServiceContext, adjudicated: Adjudicated, now: datetime
) -> None:
    """The game master hears who won, in which round, and where the record is. Keyed by the
    last round's row: a game rolled back past its end and ended again (a new row for every
    round played again) is told its new end, not deduplicated as the old one's repeat."""
    outcome = adjudicated.outcome
    assert outcome is not None, "a game that is over has an outcome"
    game = adjudicated.game
    queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="game_over",
        key=f"{game.id}:{adjudicated.round.id}",
        now=now,
        round_=adjudicated.round,
        winners=list(outcome.winners),
        draw=outcome.draw,
        termination=outcome.termination,
        # The timeout rule of a sequential game: the player who did not move loses.
        forfeited=[
            p["handle"] for p in _players(session, game) if p["handle"] not in outcome.winners
        ]
        if outcome.termination == "forfeit"
        else [],
        archive_link=ctx.archive_link(game.name, "index.html"),
    )
