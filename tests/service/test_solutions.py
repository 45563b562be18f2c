"""A game's complete solution is made once, kept in a file and handed to the game
(service/solutions.py): on a real file system, with a small random layered game."""

from __future__ import annotations

import random
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from layered_games import random_game

from adjudicator.core.kind import Solution
from adjudicator.core.layered import LayeredGame
from adjudicator.games.three_musketeers.kind import KIND
from adjudicator.service import solutions
from adjudicator.solving.layered import build_into

GAME = random_game(random.Random(1), classes=3, slots=6)
SIZE = GAME.layer_offsets()[-1]
JOIN_SECONDS = 300
"""A bound on a thread that solves (a small game: well under a second, more on a busy
machine)."""


def solved() -> bytes:
    table = bytearray(SIZE)
    build_into(GAME, table)
    return bytes(table)


class Recorder:
    """A small layered game to solve, which counts how often it is solved (and holds the first
    solving until released)."""

    def __init__(self, name: str) -> None:
        self.builds = 0
        self.installed: list[bytes] = []
        self.release = threading.Event()
        self.solution = Solution(
            file_name=f"{name}.table", size=SIZE, game=self.game, install=self.install
        )

    def game(self) -> LayeredGame:
        self.builds += 1
        self.release.wait(10)
        return GAME

    def install(self, data: Any) -> None:
        self.installed.append(bytes(data[0:SIZE]))


def test_a_solution_is_made_once_and_every_caller_gets_it(tmp_path: Path) -> None:
    made = Recorder("once")
    kind = replace(KIND, solution=made.solution)
    results: list[bool] = []
    callers = [
        threading.Thread(target=lambda: results.append(solutions.make(tmp_path, kind)))
        for _ in range(3)
    ]
    for caller in callers:
        caller.start()
    made.release.set()
    for caller in callers:
        caller.join(JOIN_SECONDS)
    assert results == [True, True, True]
    assert made.builds == 1  # the lock made the others wait, then they read the file
    expected = solved()
    assert len(made.installed) == 3  # handed to the game for each caller, as built
    assert set(made.installed) == {expected}
    assert (tmp_path / "once.table").read_bytes() == expected
    assert not (tmp_path / "once.table.partial").exists()
    # the solver's scratch files (the layers of exact values) leave nothing behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["once.table", "once.table.lock"]


def test_a_half_made_solution_is_never_read(tmp_path: Path) -> None:
    """A crash while making leaves only the temporary file: the solution counts as not made,
    and the next call makes it again."""
    made = Recorder("crashed")
    made.release.set()
    kind = replace(KIND, solution=made.solution)
    (tmp_path / "crashed.table.partial").write_bytes(b"\0" * SIZE)
    (tmp_path / "crashed.table").write_bytes(b"\0" * (SIZE // 2))  # wrong size: not complete
    assert not solutions.load(tmp_path, kind)
    assert made.installed == []
    assert solutions.make(tmp_path, kind)
    assert made.builds == 1
    assert made.installed[0] == solved()


def test_a_request_makes_the_solution_beside_and_never_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stand-in's request inside a transaction returns at once; the solution is made in a
    thread and handed over when done."""
    made = Recorder("beside")
    kind = replace(KIND, solution=made.solution)
    monkeypatch.setattr(solutions, "_FOLDER", [])  # this process's folder, for this test only
    solutions.load_all(tmp_path, [])
    assert solutions.request(kind) is False  # not made yet: returns at once
    assert solutions.request(kind) is False  # a second request starts no second build
    made.release.set()
    solutions._MAKING["beside.table"].join(JOIN_SECONDS)  # the first solving compiles
    assert solutions.ready(tmp_path, made.solution)
    assert made.builds == 1
    assert made.installed == [solved()]
    assert solutions.request(kind) is True


def test_a_solution_that_cannot_be_made_is_not_tried_again_at_every_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder cannot be written (a file stands where it should be): the background make
    fails and says why, and the next requests wait before trying again."""
    made = Recorder("unwritable")
    made.release.set()
    kind = replace(KIND, solution=made.solution)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file, not a folder")
    monkeypatch.setattr(solutions, "_FOLDER", [])
    monkeypatch.setattr(solutions, "_FAILED", {})
    solutions.load_all(blocked, [])
    assert solutions.request(kind) is False
    solutions._MAKING["unwritable.table"].join(JOIN_SECONDS)
    assert "unwritable.table" in solutions._FAILED
    first = solutions._MAKING["unwritable.table"]
    assert solutions.request(kind) is False
    assert solutions._MAKING["unwritable.table"] is first  # no second attempt yet
    assert made.builds == 0


def test_a_table_of_an_earlier_layout_is_never_read_and_is_replaced(tmp_path: Path) -> None:
    """A solution's file of an earlier layout (Three Musketeers' byte-a-value table) is not
    the solution: the game is not handed it, and making the new one removes it."""
    made = Recorder("layout-2")
    made.release.set()
    kind = replace(KIND, solution=replace(made.solution, old_file_names=("layout-1.table",)))
    assert kind.solution is not None
    old = tmp_path / "layout-1.table"
    old.write_bytes(b"\1" * SIZE)
    assert solutions.old_files(tmp_path, kind.solution) == [old]
    assert not solutions.load(tmp_path, kind)
    assert made.installed == []
    assert solutions.make(tmp_path, kind)
    assert made.installed == [solved()]
    assert not old.exists()
    assert solutions.old_files(tmp_path, kind.solution) == []
