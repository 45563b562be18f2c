"""A tournament's tables and the reads and writes of them (docs/tournaments.md): the
tournament, its players in seed order, and its games, a row per game of a round (or per bye, or
per pairing forfeited without a game)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, String, UniqueConstraint
from sqlmodel import Field, Session, SQLModel, col, select

from adjudicator.storage.models import Game

FORMATS = ("round-robin", "swiss")
SIDES = ("both", "one")


class Tournament(SQLModel, table=True):
    """A series of games of one kind; its games have its schedule, settings and options."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True, description="a handle; its games are NAMErNgM")
    kind: str
    format: str = Field(sa_type=String(16), description="round-robin or swiss")
    rounds: int = Field(description="how many rounds it plays")
    sides: str = Field(default="both", sa_type=String(8), description="both or one game a pairing")
    table_size: int | None = Field(
        default=None, description="the most players of a multiplayer game (None: the kind's)"
    )
    schedule: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    options: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    setup: dict[str, Any] = Field(
        default_factory=dict,
        sa_column=Column(JSON, nullable=False),
        description="the starting position of its games (empty: the rules' own)",
    )
    gm_address: str | None = None
    signup: bool = Field(default=False, description="open to JOIN by mail until it starts")
    join_approve: bool = Field(default=False, description="a confirmed JOIN waits for the GM")
    current_round: int = 0
    created_at: datetime
    finished_at: datetime | None = None


class TournamentPlayer(SQLModel, table=True):
    """A player of a tournament, by handle and address; ``seed`` from 0."""

    __table_args__ = (UniqueConstraint("tournament_id", "handle"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    seed: int
    handle: str
    address: str
    status: str = Field(
        default="in", sa_type=String(16), description="in, or waiting or declined (a JOIN)"
    )
    withdrawn_round: int | None = Field(
        default=None, description="the round in which he withdrew (his games from it forfeited)"
    )


class TournamentGame(SQLModel, table=True):
    """One game of a round (``game_id``), or a bye (one player, no game), or a pairing
    forfeited without a game (``forfeited_by``, no game)."""

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    round: int
    players: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False), description="seat order"
    )
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)
    forfeited_by: str | None = Field(default=None, description="who lost it by withdrawing")


def tournament_named(session: Session, name: str) -> Tournament | None:
    return session.exec(select(Tournament).where(Tournament.name == name.lower())).first()


def players_of(session: Session, tournament: Tournament) -> list[TournamentPlayer]:
    """Its players (withdrawn ones too), in seed order; not the JOINs waiting or declined."""
    return [p for p in entrants_of(session, tournament) if p.status == "in"]


def entrants_of(session: Session, tournament: Tournament) -> list[TournamentPlayer]:
    """Everybody who is a player or asked to be, in seed order."""
    return list(
        session.exec(
            select(TournamentPlayer)
            .where(TournamentPlayer.tournament_id == tournament.id)
            .order_by(col(TournamentPlayer.seed))
        )
    )


def games_of(session: Session, tournament: Tournament) -> list[TournamentGame]:
    """Every game of the tournament, by round, in the order made."""
    return list(
        session.exec(
            select(TournamentGame)
            .where(TournamentGame.tournament_id == tournament.id)
            .order_by(col(TournamentGame.round), col(TournamentGame.id))
        )
    )


def tournament_game_of(session: Session, game: Game) -> TournamentGame | None:
    return session.exec(select(TournamentGame).where(TournamentGame.game_id == game.id)).first()


def games_by_id(session: Session, ids: Sequence[int]) -> dict[int, Game]:
    if not ids:
        return {}
    # Read afresh: a game another transaction ended since this session first read it.
    fresh = select(Game).where(col(Game.id).in_(ids)).execution_options(populate_existing=True)
    return {g.id: g for g in session.exec(fresh) if g.id}
