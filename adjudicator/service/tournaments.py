"""Tournaments by mail (docs/tournaments.md), as the command line and the mail use them: the
rounds are made by ``tournament_rounds.py``, and the games it makes are begun here by
``closing.begin_game`` (which may end a game at once and so pair the next round: closing calls
``tournament_rounds.game_ended`` with the same ``begin``)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from adjudicator.notify.context import ServiceContext
from adjudicator.readmodel.tournaments import result_of
from adjudicator.service import ServiceError, gm, tournament_rounds
from adjudicator.service.closing import begin_game
from adjudicator.service.tournament_news import tell_change
from adjudicator.service.tournament_rounds import (
    Ratings,
    club_ratings,
    create_tournament,
    find_tournament,
)
from adjudicator.storage.models import Game, GameStatus
from adjudicator.storage.tournaments import Tournament, games_by_id, games_of

__all__ = [
    "Ratings",
    "advance",
    "club_ratings",
    "create_tournament",
    "find_tournament",
    "replace_player",
    "start_tournament",
    "withdraw",
]


def start_tournament(
    session: Session,
    tournament: Tournament,
    *,
    ctx: ServiceContext,
    now: datetime,
    ratings: Ratings | None = None,
) -> list[Game]:
    """Close the sign-up, seed the players, pair round 1 and begin its games
    (``tournament_rounds.start_tournament``)."""
    return tournament_rounds.start_tournament(
        session, tournament, ctx=ctx, now=now, ratings=ratings, begin=begin_game
    )


def advance(
    session: Session, tournament: Tournament, *, ctx: ServiceContext, now: datetime
) -> bool:
    """Pair the next round, or end the tournament, once every game of the round is decided;
    False while one is under way (``tournament_rounds.advance``)."""
    return tournament_rounds.advance(session, tournament, ctx=ctx, now=now, begin=begin_game)


def withdraw(
    session: Session, tournament: Tournament, handle: str, *, ctx: ServiceContext, now: datetime
) -> list[str]:
    """``handle`` leaves the tournament: his games of the round under way are forfeited (his
    opponents win them) and paused, so that no deadline runs in them any more, and he is paired
    no more (docs/tournaments.md). Every player is told, he too; the games forfeited."""
    player = tournament_rounds.player_named(session, tournament, handle)
    if player.withdrawn_round is not None:
        raise ServiceError(f"{handle} has withdrawn already")

    player.withdrawn_round = tournament.current_round
    session.add(player)
    rows = [r for r in games_of(session, tournament) if r.round == tournament.current_round]
    games = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    forfeited = []
    for row in rows:
        under_way = result_of(tournament, row, games.get(row.game_id or 0)) is None
        if player.handle in row.players and len(row.players) > 1 and under_way:
            row.forfeited_by = player.handle
            session.add(row)
            game = games.get(row.game_id or 0)
            if game is not None:
                forfeited.append(game.name)
            if game is not None and game.status == GameStatus.RUNNING:
                gm.pause(session, game, ctx=ctx, now=now)  # decided: no more deadlines
    session.flush()
    tell_change(
        session, tournament, change="withdrawn", player=player, games=forfeited, ctx=ctx, now=now
    )
    advance(session, tournament, ctx=ctx, now=now)
    return forfeited


def replace_player(
    session: Session,
    tournament: Tournament,
    handle: str,
    address: str,
    *,
    ctx: ServiceContext,
    now: datetime,
) -> list[Game]:
    """The person at ``address`` takes ``handle``'s place (``tournament_rounds.replace_player``:
    his seed, results, handle and seats in the games under way, and the rounds to come); the
    players are told, and so are the newcomer and the former address. The games handed over."""
    player = tournament_rounds.player_named(session, tournament, handle)
    former = player.address
    handed = tournament_rounds.replace_player(
        session, tournament, handle, address, ctx=ctx, now=now
    )
    tell_change(
        session,
        tournament,
        change="replaced",
        player=player,
        games=[g.name for g in handed],
        ctx=ctx,
        now=now,
        former_address=former,
    )
    return handed
