"""What a tournament's players and game master are told of it besides its rounds
(docs/tournaments.md): a player withdrawn or replaced by the game master, and the reply
addresses its mails carry.

A mail to a player about the tournament carries the personal reply addresses of his seats in
the games of the round under way, as the one answer about several games does
(``conversation._reply_addresses``): a reply with orders or STATUS reaches those seats, each
section naming its game (a GAME line) where there are several. A mail to the game master
carries the tournament's game master's reply address (``security.tournament_gm_reply_address``),
the only address that takes his WITHDRAW and REPLACE (``tournament_gm.py``). Never an address
of one player in a mail to another.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session

from adjudicator.base.security import seat_reply_address, tournament_gm_reply_address
from adjudicator.games import game_title
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, Seat
from adjudicator.storage.tournaments import (
    Tournament,
    TournamentPlayer,
    games_by_id,
    games_of,
    players_of,
)


def seats_under_way(
    session: Session, tournament: Tournament, handle: str
) -> list[tuple[Game, Seat]]:
    """``handle``'s seats, active, in the games of the round under way that are not over."""
    rows = [
        r
        for r in games_of(session, tournament)
        if r.round == tournament.current_round and handle in r.players and r.game_id
    ]
    games = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    found = []
    for row in rows:
        game = games.get(row.game_id or 0)
        if game is None or game.id is None or game.status == GameStatus.FINISHED:
            continue
        seat = next((s for s in queries.seats_of(session, game.id) if s.handle == handle), None)
        if seat is not None and seat.id is not None and seat.active:
            found.append((game, seat))
    return found


def seat_reply_to(
    session: Session, ctx: ServiceContext, tournament: Tournament, handle: str
) -> str | None:
    """The reply addresses of ``handle``'s seats in the games of the round under way that are
    not over, as one Reply-To (None: he has none, and a reply goes to the service's address)."""
    addresses = [
        seat_reply_address(ctx.receipt_key, ctx.identity.address, seat.id or 0, seat.reply_token)
        for _, seat in seats_under_way(session, tournament, handle)
    ]
    return ", ".join(addresses) or None


def gm_reply_to(ctx: ServiceContext, tournament: Tournament) -> str | None:
    """The tournament's game master's reply address, where it has a game master."""
    if not tournament.gm_address or tournament.id is None:
        return None
    return tournament_gm_reply_address(
        ctx.receipt_key, ctx.identity.address, tournament.id, tournament.gm_address
    )


def tell_change(
    session: Session,
    tournament: Tournament,
    *,
    change: str,
    player: TournamentPlayer,
    games: Sequence[str],
    ctx: ServiceContext,
    now: datetime,
    former_address: str | None = None,
) -> int:
    """Tell the players of ``tournament`` that ``player`` was withdrawn (``change``
    ``withdrawn``: ``games`` the games under way forfeited) or that another person plays his
    place (``replaced``: ``games`` those handed over; his former address is told too). Each
    player still in is told, with the games of his own it touches; how many were told."""
    rows = [r for r in games_of(session, tournament) if r.round == tournament.current_round]
    by_id = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    players = {by_id[r.game_id].name: r.players for r in rows if r.game_id in by_id}
    told = 0
    for other in players_of(session, tournament):
        if other.withdrawn_round is not None and other.handle != player.handle:
            continue
        role = "self" if other.handle == player.handle else "other"
        if role == "self" and change == "replaced":
            role = "newcomer"
        mine = [g for g in games if other.handle in players.get(g, ())]
        told += _tell(
            session,
            tournament,
            to=other.address,
            handle=other.handle,
            context={"change": change, "who": player.handle, "role": role, "games": mine},
            ctx=ctx,
            now=now,
            reply=not (role == "self" and change == "withdrawn"),
        )
    if former_address and former_address.lower() != player.address.lower():
        told += _tell(
            session,
            tournament,
            to=former_address,
            handle=player.handle,
            context={"change": change, "who": player.handle, "role": "former", "games": games},
            ctx=ctx,
            now=now,
            reply=False,
        )
    return told


def _tell(
    session: Session,
    tournament: Tournament,
    *,
    to: str,
    handle: str,
    context: dict[str, object],
    ctx: ServiceContext,
    now: datetime,
    reply: bool = True,
) -> int:
    stamp = f"{context['change']}:{context['who']}:{now.isoformat()}"
    reply_to = seat_reply_to(session, ctx, tournament, handle) if reply else None
    replies = [g.name for g, _ in seats_under_way(session, tournament, handle)] if reply else []
    return int(
        queue_notice(
            session,
            Notice(
                "tournament_change",
                to,
                {
                    "tournament": tournament.name,
                    "game_title": game_title(tournament.kind),
                    "handle": handle,
                    "replies": replies,
                    **context,
                },
                key=f"tournament:{tournament.id}:{stamp}:{to.lower()}",
                reply_to=reply_to,
            ),
            ctx=ctx,
            now=now,
        )
    )
