"""What the archive's club pages show (docs/club.md): the players' page and a rating list per
kind of game, with each player's rating history. Players are named by the handle of their
newest seat and never by their address; a person who said SET PUBLIC OFF is left out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from adjudicator.games import GAME_NAMES
from adjudicator.readmodel.club import GameRounds, handle_of, record_of
from adjudicator.readmodel.ratings import START, ratings_of_kind
from adjudicator.storage.models import Person, Seat


@dataclass(frozen=True)
class PlayerLine:
    """One player on the players' page."""

    handle: str
    played: int
    finished: int
    won: int
    reliability: int


@dataclass(frozen=True)
class RatingLine:
    """One player on a kind's rating list, with his rating after each of his rated games."""

    handle: str
    rating: int
    spread: int
    games: int
    history: tuple[tuple[str, datetime, int], ...]  # game, when it ended, rating after it

    @property
    def series(self) -> tuple[int, ...]:
        """The start, then the rating after each game: what his chart draws."""
        return (int(START), *(rating for _, _, rating in self.history))


@dataclass(frozen=True)
class Club:
    players: tuple[PlayerLine, ...]
    ratings: dict[str, tuple[RatingLine, ...]]  # by kind, best first; every kind is there


def read_club(engine: Engine, *, now: datetime) -> Club:
    with Session(engine) as session:
        return club_of(session, now=now)


def club_of(session: Session, *, now: datetime) -> Club:
    shown = _shown(session)
    players = []
    cache: GameRounds = {}  # each game replayed once for all its players
    for address, handle in shown.items():
        record = record_of(session, address, now=now, cache=cache)
        if record.played:
            players.append(
                PlayerLine(handle, record.played, record.finished, record.won, record.reliability)
            )
    players.sort(key=lambda p: (p.handle, -p.played))
    ratings = {}
    for kind in GAME_NAMES:
        found = ratings_of_kind(session, kind)
        ratings[kind] = tuple(
            RatingLine(
                shown[address],
                rating.shown,
                rating.spread,
                rating.games,
                tuple((g, at, r.shown) for g, at, r in found.history.get(address, [])),
            )
            for address, rating in found.ranked()
            if address in shown
        )
    return Club(tuple(players), ratings)


def _shown(session: Session) -> dict[str, str]:
    """The addresses of the persons shown, each with his handle: every address that holds a
    seat, less those whose person said SET PUBLIC OFF."""
    hidden = set(session.exec(select(Person.address).where(col(Person.public).is_(False))))
    addresses = set(session.exec(select(Seat.address).where(Seat.address != "")))
    shown = {}
    for address in sorted(a.lower() for a in addresses if a.lower() not in hidden):
        handle = handle_of(session, address)
        if handle is not None:
            shown[address] = handle
    return shown
