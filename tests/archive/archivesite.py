"""What the archive tests share: the games they play (all five kinds, through the real service
round by round: orders stored, then ``close_and_adjudicate``), the values they plant in a stored
report to show that private things never come out, and Chromium's presence."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from headless import find_chromium
from needs import unavailable
from samplegames import SampleGame
from sqlmodel import Session, col, select

from adjudicator.archive import BuildReport
from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import App, make_app
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, Round, RoundResult, Seat

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday; the sample clock steps 7 hours
PRIVATE_CANARY = "private-canary-7f3a9c"
CODES_CANARY = "codes-canary-51d2e8"
PLAYER_DOMAIN = "players.example.org"  # every sample player's address is handle@this

GAMES = (
    SampleGame(
        "gw1",
        "giveaway",
        ("alice", "bob", "carol", "dave", "erin"),
        4,
        time_zone="Europe/Berlin",
        script={
            # A ring of three paying 3 x 3, and dave -> erin -> dave of unequal amounts.
            1: {
                "alice": ["GIVE 3 TO bob"],
                "bob": ["GIVE 3 TO carol"],
                "carol": ["GIVE 3 TO alice"],
                "dave": ["GIVE 2 TO erin", "GIVE 1 TO alice"],
                "erin": ["GIVE 3 TO dave"],
            },
            2: {"erin": []},  # erin misses the deadline: nmr=spread
        },
    ),
    SampleGame("brawl", "sissyfight", ("kim", "lou", "max", "ned"), 3),
    SampleGame(
        "duel",
        "starship-combat",
        ("ann", "ben"),
        10,
        time_zone="America/New_York",
        script={
            1: {"ann": ["FIRE SHIELD"], "ben": ["SHIELD"]},
            2: {"ann": ["SHIELD"], "ben": ["FIRE SHIELD"]},
            3: {"ann": ["FIRE SHIELD"], "ben": ["FIRE SHIELD"]},
            # ann fires her last missile, ben still has one: ben wins (ruling 5, End (3)).
            4: {"ann": ["FIRE"], "ben": ["SHIELD"]},
        },
    ),
    SampleGame("paris", "three-musketeers", ("porthos", "mazarin"), 5),
    # The Cardinal's player sends nothing in round 2 and forfeits.
    SampleGame(
        "late", "three-musketeers", ("athos", "richelieu"), 3, script={2: {"richelieu": []}}
    ),
    SampleGame("hexes", "rock-scissors-paper", ("gina", "hal"), 5, time_zone="Asia/Tokyo"),
)


@dataclass(frozen=True)
class Played:
    app: App
    out: Path
    report: BuildReport

    def text(self, path: str) -> str:
        return (self.out / path).read_text(encoding="utf-8")

    def results(self, game: str) -> list[RoundResult]:
        with Session(self.app.engine) as session:
            return list(
                session.exec(
                    select(RoundResult)
                    .join(Round, col(Round.id) == col(RoundResult.round_id))
                    .join(Game, col(Game.id) == col(Round.game_id))
                    .where(Game.name == game)
                    .order_by(col(Round.number))
                )
            )


def make_test_app(folder: Path) -> App:
    config = Config(
        service=ServiceConfig(data_dir=str(folder / "data"), address="judge@pbem.example.org")
    )
    return make_app(config)


def plant_private_values(app: App, game: str) -> None:
    """Put values only a player may see into the first stored report of ``game``."""
    with session_scope(app.engine) as session:
        result = session.exec(
            select(RoundResult)
            .join(Round, col(Round.id) == col(RoundResult.round_id))
            .join(Game, col(Game.id) == col(Round.game_id))
            .where(Game.name == game, Round.number == 1)
        ).one()
        report = dict(result.report)
        report["private"] = {"alice": {"note": PRIVATE_CANARY}}
        report["codes"] = {"alice": [CODES_CANARY]}
        result.report = report
        session.add(result)


def seats(app: App) -> list[Seat]:
    with Session(app.engine) as session:
        return list(session.exec(select(Seat)))


def chromium_or_skip() -> str:
    """Chromium's path; a missing Chromium skips the test here and fails it in CI."""
    found = find_chromium()
    if found is None:
        unavailable("chromium is not installed (apt-get install chromium)")
    return found
