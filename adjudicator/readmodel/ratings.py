"""Ratings per kind of game, from the finished games (docs/club.md, "Ratings").

Each finished game of a kind, in the order the games ended, updates its players' ratings by
OpenSkill's Weng-Lin Plackett-Luce model (``openskill``): one rating (a mean ``mu`` and an
uncertainty ``sigma``) per person and kind, shown as its mean on a 1500 scale. Nothing is
stored: the ratings are replayed from the games each time they are asked for, so that a game
rolled back or replayed rates as it now stands.

A game counts when it is over with a result and at least two persons still in it; one with a
seat the computer plays (from the start, as a stand-in, or a stand-in that ever sent orders)
counts only if its game master said ``rated=true``, and none counts with ``rated=false``. Its
placings: the winners first (tied); then the other players still seated (tied); last, those
taken out of the game (resigned or removed) and not replaced. A draw with no winner ties
everybody still seated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from openskill.models import PlackettLuce
from sqlmodel import Session, col, select

from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, OrderSet, Round

START = 1500.0
"""Every player's first mean (the model's ``mu``), on the scale the players see."""
SCALE = START / 25.0
"""OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300) times this: the model is
the same, on a scale that reads like the ratings players know."""
MODEL = PlackettLuce(
    mu=START, sigma=25.0 / 3.0 * SCALE, beta=25.0 / 6.0 * SCALE, tau=25.0 / 300.0 * SCALE
)
STAND_IN_RECEIPT = "stand-in"


@dataclass(frozen=True)
class Rating:
    """A person's rating in one kind of game: ``mu`` (shown rounded) and ``sigma``."""

    mu: float = START
    sigma: float = 25.0 / 3.0 * SCALE
    games: int = 0

    @property
    def shown(self) -> int:
        return int(self.mu + 0.5)

    @property
    def spread(self) -> int:
        return int(self.sigma + 0.5)


@dataclass(frozen=True)
class RatedGame:
    """A finished game that counts: its placings by address (1 is first; ties share one)."""

    name: str
    finished_at: datetime
    placings: Mapping[str, int]
    handles: Mapping[str, str]  # by address: the handle each played under


@dataclass
class RatingList:
    """The ratings of one kind after every rated game, and how each person's went."""

    kind: str
    ratings: dict[str, Rating] = field(default_factory=dict)
    history: dict[str, list[tuple[str, datetime, Rating]]] = field(default_factory=dict)
    handles: dict[str, str] = field(default_factory=dict)  # by address: the newest handle

    def of(self, address: str) -> Rating:
        return self.ratings.get(address.strip().lower(), Rating())

    def ranked(self) -> list[tuple[str, Rating]]:
        """Addresses by rating, best first (the more games, the higher among equals)."""
        return sorted(self.ratings.items(), key=lambda pair: (-pair[1].mu, -pair[1].games))


def rate(ratings: Mapping[str, Rating], placings: Mapping[str, int]) -> dict[str, Rating]:
    """The new ratings of the players of one game (``placings``: 1 is first, ties share)."""
    players = sorted(placings)
    teams = [[MODEL.rating(mu=ratings[p].mu, sigma=ratings[p].sigma)] for p in players]
    rated = MODEL.rate(teams, ranks=[float(placings[p]) for p in players])
    return {
        p: Rating(team[0].mu, team[0].sigma, ratings[p].games + 1)
        for p, team in zip(players, rated, strict=True)
    }


def ratings_of_kind(session: Session, kind: str) -> RatingList:
    """Every rated game of ``kind`` played in order, from every player's start."""
    found = RatingList(kind)
    for game in rated_games(session, kind):
        before = {address: found.of(address) for address in game.placings}
        after = rate(before, game.placings)
        for address, rating in after.items():
            found.ratings[address] = rating
            found.history.setdefault(address, []).append((game.name, game.finished_at, rating))
            found.handles[address] = game.handles[address]
    return found


def rated_games(session: Session, kind: str) -> list[RatedGame]:
    games = session.exec(
        select(Game)
        .where(Game.kind == kind, Game.status == GameStatus.FINISHED)
        .order_by(col(Game.finished_at), col(Game.id))
    )
    found = []
    for game in games:
        rated = _rated(session, game)
        if rated is not None:
            found.append(rated)
    return found


def _rated(session: Session, game: Game) -> RatedGame | None:
    choice = game.settings.get("rated")
    if choice is False or game.finished_at is None:
        return None
    results = queries.results_of_game(session, game.id)
    if not results or not results[-1].finished:
        return None
    if choice is not True and _computer_played(session, game):
        return None
    last = results[-1]
    seats = [s for s in queries.seats_of(session, game.id) if s.address.strip()]
    winners = set(last.winners)

    def placing(active: bool, handle: str) -> int:
        if not active:
            return 3
        return 1 if handle in winners or (not winners and last.draw) else 2

    placings = {s.address.lower(): placing(s.active, s.handle) for s in seats}
    if len(placings) < 2 or len(placings) != len(seats):  # one person in two seats: not rated
        return None
    handles = {s.address.lower(): s.handle for s in seats}
    return RatedGame(game.name, game.finished_at, placings, handles)


def _computer_played(session: Session, game: Game) -> bool:
    if game.settings.get("stand_ins"):
        return True
    if any(not s.address.strip() for s in queries.seats_of(session, game.id)):
        return True
    rounds = select(Round.id).where(Round.game_id == game.id)
    stand_in = select(OrderSet.id).where(
        col(OrderSet.round_id).in_(rounds), OrderSet.receipt == STAND_IN_RECEIPT
    )
    return session.exec(stand_in).first() is not None
