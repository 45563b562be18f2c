"""Sample games played through the real service, for the screenshots and for trying the archive.

Every round goes the way the service's own rounds go: order sets stored for the players (legal
random orders from each game's ``sample_orders``, seeded, so the games are the same every time),
then ``close_and_adjudicate``, which adjudicates, and ``App.report``, which queues the result
mails and reports the round.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.app import App
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.games import PlayerSpec, create_game, find_game, seats_of
from adjudicator.service.rounds import open_round_of, start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OrderSet

Script = Mapping[int, Mapping[str, Sequence[str]]]
"""Orders chosen by hand: round number -> player -> lines, ``[]`` for no orders; players and
rounds not in the script play random legal orders."""


@dataclass(frozen=True)
class SampleGame:
    name: str
    kind: str
    players: tuple[str, ...]
    rounds: int  # at most this many rounds (fewer if the game ends)
    options: Mapping[str, str] = field(default_factory=dict)
    time_zone: str = "UTC"
    schedule: str = "48h"
    script: Script = field(default_factory=dict)


GIVEAWAY_RINGS: Script = {
    1: {
        "alice": ["GIVE 3 TO bob"],
        "bob": ["GIVE 3 TO carol"],
        "carol": ["GIVE 3 TO alice"],
        "dave": ["GIVE 2 TO erin", "GIVE 1 TO alice"],
        "erin": ["GIVE 3 TO dave"],
    },
    2: {
        "alice": ["GIVE 12 TO carol", "GIVE 1 TO dave"],
        "bob": ["GIVE 12 TO alice"],
        "carol": ["GIVE 12 TO bob"],
        "dave": ["GIVE 5 TO erin", "GIVE 1 TO alice"],
        "erin": ["GIVE 5 TO dave"],
    },
}

STARSHIP_DUEL: Script = {
    1: {"ann": ["FIRE SHIELD"], "ben": ["SHIELD"]},
    2: {"ann": ["SHIELD"], "ben": ["FIRE SHIELD"]},
    3: {"ann": ["FIRE SHIELD"], "ben": ["FIRE SHIELD"]},
    4: {"ann": ["SHIELD"], "ben": ["SHIELD"]},
    5: {"ann": ["FIRE"], "ben": ["SHIELD"]},
}

SAMPLES: tuple[SampleGame, ...] = (
    SampleGame(
        "gw7",
        "giveaway",
        ("alice", "bob", "carol", "dave", "erin"),
        6,
        time_zone="Europe/Berlin",
        script=GIVEAWAY_RINGS,
    ),
    SampleGame("brawl", "sissyfight", ("kim", "lou", "max", "ned", "ola"), 30),
    SampleGame(
        "duel",
        "starship-combat",
        ("ann", "ben"),
        12,
        time_zone="America/New_York",
        script=STARSHIP_DUEL,
    ),
    SampleGame("paris", "three-musketeers", ("porthos", "mazarin"), 14),
    SampleGame("hexes", "rock-scissors-paper", ("gina", "hal"), 16, time_zone="Asia/Tokyo"),
)


def _store_orders(app: App, sample: SampleGame, number: int, rng: random.Random) -> int | None:
    """Store every mover's orders for the open round; the round's id, None when none is open."""
    with session_scope(app.engine) as session:
        game = find_game(session, sample.name)
        round_ = open_round_of(session, game)
        if round_ is None or round_.id is None:
            return None
        rules, state = rules_of(game), game_state(game)
        movers = set(rules.to_move(state))
        scripted = sample.script.get(number, {})
        for seat in seats_of(session, game):
            if seat.handle not in movers or seat.id is None:
                continue
            if seat.handle in scripted:
                lines = list(scripted[seat.handle])  # [] scripts a missed deadline
            else:
                lines = rules.sample_orders(state, seat.handle, rng)
            if not lines:
                continue  # no orders: the game's no-orders rule applies
            checked = rules.check(state, seat.handle, lines)
            if not checked.ok or not checked.orders:
                raise ValueError(f"{sample.name} round {number}: {seat.handle}: {checked!r}")
            canonical = [rules.format_order(order) for order in checked.orders]
            session.add(
                OrderSet(
                    round_id=round_.id,
                    seat_id=seat.id,
                    lines=canonical,
                    receipt="sample",
                    created_at=app.clock(),
                )
            )
        return round_.id


def play_sample(
    app: App, sample: SampleGame, *, start: datetime, seed: int = 7, before: Callable[[], None]
) -> None:
    """Create ``sample`` and play its rounds; ``before`` moves the app's clock between steps."""
    rng = random.Random(f"{seed}:{sample.name}")
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name=sample.name,
            kind=sample.kind,
            players=[PlayerSpec(h, f"{h}@players.example.org") for h in sample.players],
            options=sample.options,
            time_zone=sample.time_zone,
            schedule=sample.schedule,
            now=start,
        )
        start_game(session, game, now=start)
    for number in range(1, sample.rounds + 1):
        if not play_round(app, sample, number, rng=rng, before=before):
            return


def play_round(
    app: App,
    sample: SampleGame,
    number: int,
    *,
    rng: random.Random,
    before: Callable[[], None] = lambda: None,
) -> bool:
    """Store the orders of round ``number`` and close it; False when no round was open."""
    before()
    round_id = _store_orders(app, sample, number, rng)
    if round_id is None:
        return False
    before()
    with session_scope(app.engine) as session:
        close_and_adjudicate(session, round_id, ctx=app.ctx, now=app.clock(), force=True)
    app.report()  # pictures made, then the result mails queued
    return True


class SteppingClock:
    """A clock that the sample games move on by hand: a few hours per step."""

    def __init__(self, start: datetime, step: timedelta = timedelta(hours=7)) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        return self.now

    def advance(self) -> None:
        self.now += self.step


def play_samples(
    app: App, start: datetime, samples: Sequence[SampleGame] = SAMPLES, *, seed: int = 7
) -> list[str]:
    """Play every sample game on ``app`` (its clock is replaced); the games' names."""
    clock = SteppingClock(start)
    app.clock = clock
    for sample in samples:
        play_sample(app, sample, start=clock(), seed=seed, before=clock.advance)
    return [s.name for s in samples]
