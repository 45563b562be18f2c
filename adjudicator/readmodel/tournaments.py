"""A tournament as its standings and pages read it: the result of each of its games, read from
the games themselves each time (never copied, so that a game rolled back counts again only once
it ends again), and the standings they make (``core/standings.py``); the view of a tournament
the archive draws. Reads only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from sqlmodel import Session, col, select

from adjudicator.core.game import Placed
from adjudicator.core.standings import (
    Result,
    Standing,
    cross_table,
    placed_points,
    placing_points,
    standings,
    two_player_points,
)
from adjudicator.games import get_rules
from adjudicator.readmodel.stored import game_state
from adjudicator.storage.models import Game, GameStatus
from adjudicator.storage.tournaments import (
    Tournament,
    TournamentGame,
    games_by_id,
    games_of,
    players_of,
)


def two_sided(kind: str) -> bool:
    """Whether the kind is a game of two players (a pairing); else players sit at tables."""
    return get_rules(kind).max_players == 2


def results_of(session: Session, tournament: Tournament) -> list[Result]:
    """Every decided game and bye of the tournament, as the standings read them."""
    rows = games_of(session, tournament)
    games = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    found = []
    for row in rows:
        result = result_of(tournament, row, games.get(row.game_id) if row.game_id else None)
        if result is not None:
            found.append(result)
    return found


def result_of(tournament: Tournament, row: TournamentGame, game: Game | None) -> Result | None:
    """The result of one row: a bye's, a forfeit's, a finished game's; ``None`` while its game
    is under way."""
    if len(row.players) == 1:
        worth = Fraction(2 if tournament.sides == "both" else 1)
        return Result(row.round, {row.players[0]: worth}, bye=True)
    if row.forfeited_by is not None:
        others = tuple(p for p in row.players if p != row.forfeited_by)
        points = _points(tournament, row.players, others, draw=False)
        return Result(row.round, points, forfeit=True, winners=others)
    if game is None or game.status != GameStatus.FINISHED:
        return None
    rules = get_rules(game.kind)
    state = game_state(game)
    outcome = rules.outcome(state)
    if outcome is None:
        return None
    winners = tuple(outcome.winners)
    points = _points(tournament, row.players, winners, draw=outcome.draw)
    if isinstance(rules, Placed) and not two_sided(tournament.kind):
        groups = [[p for p in group if p in row.players] for group in rules.placings(state)]
        placed = placed_points(groups)
        if set(placed) == set(row.players):  # every player placed: the finer placings
            points = placed
    return Result(
        row.round,
        points,
        forfeit=outcome.termination == "forfeit",
        winners=winners,
    )


def _points(
    tournament: Tournament, players: Sequence[str], winners: Sequence[str], *, draw: bool
) -> dict[str, Fraction]:
    if two_sided(tournament.kind):
        return two_player_points(players, winners, draw=draw)
    return placing_points(players, winners, draw=draw)


def standings_of(session: Session, tournament: Tournament) -> list[Standing]:
    players = players_of(session, tournament)
    out = frozenset(p.handle for p in players if p.withdrawn_round is not None)
    return standings([p.handle for p in players], results_of(session, tournament), withdrawn=out)


@dataclass(frozen=True)
class TournamentGameView:
    """One game of a round for the page: its name (``None`` for a bye or a forfeit without a
    game), its players in seat order, and each one's points once it is decided."""

    round: int
    game: str | None
    players: tuple[str, ...]
    points: dict[str, Fraction] | None
    forfeit: bool


@dataclass(frozen=True)
class TournamentRoundView:
    """When a round was paired (its first game made) and when it ended (the next round paired,
    or the tournament over; ``None`` while under way): the feed's times."""

    number: int
    paired_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class TournamentView:
    """A tournament's page: its standings, its cross-table and every game by round."""

    name: str
    kind: str
    format: str
    rounds: int
    current_round: int
    finished: bool
    standings: tuple[Standing, ...]
    cross: dict[tuple[str, str], list[Fraction]]
    games: tuple[TournamentGameView, ...]
    two_sided: bool
    created_at: datetime | None = None
    finished_at: datetime | None = None
    rounds_played: tuple[TournamentRoundView, ...] = ()


def _round_times(
    tournament: Tournament, rows: Sequence[TournamentGame], games: dict[int, Game]
) -> tuple[TournamentRoundView, ...]:
    """Each round paired so far: paired when its first game was made (a round of byes and
    forfeits alone: when the round before it was), over when the next one was paired."""
    paired: list[datetime] = []
    for number in range(1, tournament.current_round + 1):
        made = [
            games[r.game_id].created_at
            for r in rows
            if r.round == number and r.game_id is not None and r.game_id in games
        ]
        paired.append(min(made) if made else (paired[-1] if paired else tournament.created_at))
    views = []
    for index, at in enumerate(paired):
        ended = paired[index + 1] if index + 1 < len(paired) else tournament.finished_at
        views.append(TournamentRoundView(index + 1, at, ended))
    return tuple(views)


def tournament_view(session: Session, tournament: Tournament) -> TournamentView:
    rows = games_of(session, tournament)
    games = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    views = []
    for row in rows:
        game = games.get(row.game_id) if row.game_id else None
        result = result_of(tournament, row, game)
        views.append(
            TournamentGameView(
                round=row.round,
                game=game.name if game else None,
                players=tuple(row.players),
                points=dict(result.points) if result else None,
                forfeit=bool(result and result.forfeit),
            )
        )
    return TournamentView(
        name=tournament.name,
        kind=tournament.kind,
        format=tournament.format,
        rounds=tournament.rounds,
        current_round=tournament.current_round,
        finished=tournament.finished_at is not None,
        standings=tuple(standings_of(session, tournament)),
        cross=cross_table(results_of(session, tournament)),
        games=tuple(views),
        two_sided=two_sided(tournament.kind),
        created_at=tournament.created_at,
        finished_at=tournament.finished_at,
        rounds_played=_round_times(tournament, rows, games),
    )


def tournament_views(session: Session) -> list[TournamentView]:
    """Every tournament that has started, oldest first."""
    started = session.exec(
        select(Tournament).where(Tournament.current_round > 0).order_by(col(Tournament.id))
    )
    return [tournament_view(session, t) for t in started]
