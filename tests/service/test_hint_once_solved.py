"""The Three Musketeers hint after the game once the complete solution exists (issue 40,
finding 6; docs/stand-ins.md): the solution may be made by ``adjudicate solve`` in another
process while the service runs. The running service hands it to the game when a game ends,
so the game-over mail and the archive's game page say where the game was decided; and
``adjudicate archive build`` reads the solutions made on the machine."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playing import Clock, add_orders, close_open_round, new_game, plain, queued

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.games.three_musketeers import MUSKETEERS, START_CELLS, State, parse_order, standin
from adjudicator.games.three_musketeers import play as play_move
from adjudicator.games.three_musketeers.hints import ThrownWin, decisive_move
from adjudicator.games.three_musketeers.kind import KIND
from adjudicator.serve.archiving import ArchiveKeeper
from adjudicator.service import solutions
from adjudicator.service.app import App, make_app

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
TIMEOUT = 300
"""A bound on ``adjudicate archive build`` (the machine may be busy)."""

# Sixteen moves from the start (the Musketeers first); the Cardinal's last, c2-b2, leaves the
# Musketeers no move: they win (End 2), from a position the Cardinal had won. With 14 men on
# the board the hint's search cannot judge a move without the complete solution.
MOVES = [
    "c3-d3",
    "c2-c3",
    "d3-d2",
    "c3-d3",
    "a1-b1",
    "a2-a1",
    "d2-d3",
    "d1-d2",
    "d3-e3",
    "d2-d1",
    "e5-e4",
    "b2-c2",
    "b1-a1",
    "d4-d3",
    "e3-d3",
    "c2-b2",
]
START = State(("ann", "bob"), START_CELLS, MUSKETEERS)


@pytest.fixture(scope="module")
def table() -> Path:
    """The complete solution's file, made once for the machine (minutes the first time)."""
    folder = Config().solutions_path
    try:
        assert solutions.make(folder, KIND)
    except OSError:
        pytest.skip(f"the solution cannot be made in {folder}")  # pragma: no cover
    assert KIND.solution is not None
    return solutions.file_of(folder, KIND.solution)


@pytest.fixture
def unsolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: Path) -> Iterator[App]:
    """A service started with an empty solutions folder: the game has no solution yet."""
    monkeypatch.setattr(solutions, "_OPEN", {})
    monkeypatch.setattr(solutions, "_FOLDER", [])
    kept = list(standin.SOLUTION)  # one list, shared by the stand-in and the hints
    standin.SOLUTION.clear()
    (tmp_path / "solutions").mkdir()
    config = Config(
        service=ServiceConfig(
            data_dir=str(tmp_path / "data"),
            address="judge@pbem.test",
            solutions_dir=str(tmp_path / "solutions"),
        )
    )
    app = make_app(config)
    app.clock = Clock()
    assert not standin.SOLUTION
    yield app
    app.engine.dispose()
    standin.SOLUTION[:] = kept


def _expected() -> ThrownWin:
    found = decisive_move(START, [parse_order(m) for m in MOVES])
    assert found is not None
    return found


def _play(app: App, played: range) -> None:
    """The moves ``played`` of :data:`MOVES`, each a round, by the side to move."""
    state = START
    for number, move in enumerate(MOVES):
        if number in played:
            add_orders(app, "tm", state.player_of(state.turn), move)
            close_open_round(app, "tm")
        state = play_move(state, parse_order(move))


def _solved_now(app: App, table: Path) -> None:
    """``adjudicate solve`` in another process: the file appears in the folder."""
    (app.config.solutions_path / table.name).symlink_to(table)


def test_a_solution_made_while_the_service_runs_gives_the_game_over_mail_its_hint(
    unsolved: App, table: Path
) -> None:
    app = unsolved
    new_game(app, ["ann", "bob"], name="tm", kind="three-musketeers")
    _play(app, range(len(MOVES) - 1))
    assert decisive_move(START, [parse_order(m) for m in MOVES]) is None  # not without it
    _solved_now(app, table)
    _play(app, range(len(MOVES) - 1, len(MOVES)))

    expected = _expected()
    assert expected.number == len(MOVES)
    results = queued(app, "result")
    last = [" ".join(plain(m).split()) for m in results[-2:]]
    for text in last:
        assert "GAME OVER: ann wins." in text
        assert (
            f"Where the game was decided: in round {expected.number}, bob's "
            f"{expected.played} threw the win away; {expected.keeping} would have kept it"
        ) in text

    ArchiveKeeper(app.engine, app.config, authority="pbem.test").run_once()
    page = (app.config.archive_path / "tm" / "index.html").read_text()
    html = " ".join(page.split())
    assert '<h2 id="decided">Where the game was decided</h2>' in html
    assert f"In round {expected.number}, bob's {expected.played} threw the win away" in html


def test_archive_build_gives_the_game_page_its_hint(unsolved: App, table: Path) -> None:
    app = unsolved
    new_game(app, ["ann", "bob"], name="tm", kind="three-musketeers")
    _play(app, range(len(MOVES)))
    _solved_now(app, table)
    environment = {
        **os.environ,
        "ADJUDICATOR_DATA_DIR": str(app.config.data_path),
        "ADJUDICATOR_ADDRESS": "judge@pbem.test",
        "ADJUDICATOR_SOLUTIONS_DIR": str(app.config.solutions_path),
    }
    environment.pop("ADJUDICATOR_CONFIG", None)
    done = subprocess.run(
        [str(ADJUDICATE), "archive", "build"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert solutions.refresh(KIND)  # in this process too, for the expected hint
    html = " ".join((app.config.archive_path / "tm" / "index.html").read_text().split())
    expected = _expected()
    assert '<h2 id="decided">Where the game was decided</h2>' in html
    assert f"In round {expected.number}, bob's {expected.played} threw the win away" in html
