"""Welcome mails: each new player gets the rules, their secret or reply address, and the first
deadline. The secrets exist in clear only here, on their way into the outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from adjudicator.games import kind_of
from adjudicator.notify.calendar import deadline_attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.conversation import example_orders
from adjudicator.service.game_context import base_context
from adjudicator.service.games import Credentials, seats_of
from adjudicator.service.settings import settings_of
from adjudicator.service.sign_up_state import not_started
from adjudicator.service.teaching import NO_POSITION, rules_reference, seat_position
from adjudicator.storage import queries
from adjudicator.storage.models import Game, Round


def how_to_play(
    ctx: ServiceContext, game: Game, handle: str, *, seat_index: int, started: bool
) -> dict[str, Any]:
    """What a newcomer needs to write round 1's orders: what their seat plays, the board of a
    board game, the game's order syntax, who moves first in a game of turns, and orders valid
    now for a player the first round waits for."""
    syntax = f"mail/answer/syntax/{game.kind}.txt.j2"
    kind, rules, state = kind_of(game.kind), rules_of(game), game_state(game)
    movers = list(rules.to_move(state)) if started else []
    titles, diagram = kind.seat_titles, kind.text_diagram
    return {
        "board": diagram(rules.public_state(state)) if diagram and started else None,
        "plays": titles[seat_index] if seat_index < len(titles) else None,
        **(seat_position(ctx, game, handle) if started else NO_POSITION),
        "syntax": syntax if ctx.renderer.exists(syntax) else None,
        "sequential": rules.sequential,
        "movers": movers,
        "example": example_orders(game, handle) if handle in movers else [],
    }


def moves_before(session: Session, game: Game, first_round: Round | None) -> list[dict[str, str]]:
    """The moves played before the round a welcome opens with (player and move): in a game of
    turns the computer may move first, the moment the game starts, so the newcomer's first
    round is not the game's."""
    if first_round is None or first_round.number <= 1:
        return []
    return [
        {"player": handle, "move": "; ".join(lines)}
        for result in queries.results_of_game(session, game.id)
        for handle, lines in result.orders.items()
        if lines
    ]


def queue_welcome(
    session: Session,
    *,
    ctx: ServiceContext,
    game: Game,
    credentials: list[Credentials],
    first_round: Round | None,
    now: datetime,
    key_suffix: str = "",
) -> None:
    """``key_suffix`` tells a later welcome to the same seat (a replacement player) apart.

    Each mail goes out with the seat's own bounce address and, when the first round has a
    deadline, carries it as a calendar event."""
    local, _, domain = ctx.identity.address.partition("@")
    seats = {seat.handle: seat for seat in seats_of(session, game)}
    players = list(seats) or [c.handle for c in credentials]
    calendar = deadline_attachment(ctx, game, first_round, now=now)
    pace = settings_of(game)
    waiting = not_started(session, game)  # a game before its start says so, and what follows
    moved = moves_before(session, game, first_round)
    for number, cred in enumerate(credentials, start=1):
        seat = seats.get(cred.handle)
        reply_address = f"{local}+{cred.reply_token}@{domain}"
        context = {
            **base_context(game, seat, first_round),
            "handle": cred.handle,
            "seat": seat.seat + 1 if seat else number,
            "players": players,
            "address": cred.address,
            "secret": cred.secret,
            "own_zone": seat is not None and seat.time_zone is not None,  # the person's
            "reply_address": reply_address,
            "service_address": ctx.identity.address,
            "calendar": calendar is not None,
            "absence_days": pace.absence_days,
            "absence_wait": pace.absence_wait,
            "not_started": waiting,
            "moved_before": moved,
            **rules_reference(ctx, game.kind),
            **how_to_play(
                ctx,
                game,
                cred.handle,
                seat_index=seat.seat if seat else number - 1,
                started=first_round is not None,
            ),
        }
        queue_notice(
            session,
            Notice(
                "welcome",
                cred.address,
                context,
                key=f"welcome:{game.id}:{cred.handle}{key_suffix}",
                game_id=game.id,
                seat_id=seat.id if seat else None,
                reply_to=reply_address,
                attachments=[calendar] if calendar else [],
            ),
            ctx=ctx,
            now=now,
        )
