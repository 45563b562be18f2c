"""Complete solutions of games (``GameKind.solution``, docs/stand-ins.md): kept in a file, made
once, handed to the game.

A solution depends only on the rules, so one file serves every game and every data folder on
the machine: it lives in the solutions folder (``service.solutions_dir``, by default the user's
cache folder). It is made the first time it is needed: by ``adjudicate solve``, by a game
created with computer seats or a stand-in put in a seat from the command line (before they
act), or in the background when a stand-in must move on a machine without it (:func:`request`);
under a lock so that two processes never make it twice, into a temporary file
renamed into place once complete: a crash leaves no half-made solution behind. Reading it is a
read-only memory map, shared by every process. A file of an earlier layout
(``Solution.old_file_names``) is never read, and is removed once the new one is made.
"""

from __future__ import annotations

import fcntl
import logging
import mmap
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from adjudicator.core.kind import GameKind, Solution

log = logging.getLogger(__name__)

_OPEN: dict[str, mmap.mmap] = {}
"""The solutions this process has handed to their games, by file name."""
_FOLDER: list[Path] = []
"""The solutions folder of this process's configuration (:func:`load_all`)."""
_LOADING = threading.Lock()
_MAKING: dict[str, threading.Thread] = {}
"""Solutions this process makes in the background (:func:`request`), by file name."""
_FAILED: dict[str, float] = {}
"""When making a solution in the background last failed (monotonic seconds), by file name."""
RETRY_AFTER = 3600.0
"""Seconds before a solution that could not be made is tried again in the background."""


def file_of(folder: Path, solution: Solution) -> Path:
    return folder / solution.file_name


def ready(folder: Path, solution: Solution) -> bool:
    """Whether the solution's file is complete in ``folder``."""
    path = file_of(folder, solution)
    return path.is_file() and path.stat().st_size == solution.size


def load(folder: Path, kind: GameKind) -> bool:
    """Hand the kind's solution to the game if its file is complete; whether the game has it."""
    solution = kind.solution
    if solution is None:
        return False
    with _LOADING:
        data = _OPEN.get(solution.file_name)
        if data is None:
            if not ready(folder, solution):
                return False
            with file_of(folder, solution).open("rb") as handle:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            _OPEN[solution.file_name] = data
        solution.install(data)  # again for a map already open: installing is idempotent
        return True


def make(folder: Path, kind: GameKind, *, progress: Callable[[str], None] | None = None) -> bool:
    """Make the kind's solution unless it is there, then hand it to the game; whether the
    kind has one. Blocks while another process makes it."""
    solution = kind.solution
    if solution is None:
        return False
    if load(folder, kind):
        _remove_old(folder, solution)
        return True
    folder.mkdir(parents=True, exist_ok=True)
    path = file_of(folder, solution)
    with (folder / f"{solution.file_name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not ready(folder, solution):
            _build(path, kind.title, solution, progress or log.info)
    return load(folder, kind)


def _build(path: Path, title: str, solution: Solution, say: Callable[[str], None]) -> None:
    say(
        f"making the complete solution of {title}, once for this machine "
        f"({solution.size / 1e9:.2f} GB in {path.parent}, a few minutes)"
    )
    from adjudicator.solving.layered import build_into  # noqa: PLC0415 - NumPy, only to build

    started = time.monotonic()
    partial = path.with_name(f"{path.name}.partial")
    with partial.open("w+b") as handle:
        # Every block up front: a disk that fills up fails here, before minutes of work.
        os.posix_fallocate(handle.fileno(), 0, solution.size)
        # Written a layer at a time (not through a map of the file): the pages written are
        # the page cache's, not this process's memory; so are the solver's scratch files
        # (the layers of exact values it is making and reading), here beside the table.
        build_into(solution.game(), _FileWriter(handle.fileno()), scratch=path.parent)
        os.fsync(handle.fileno())
    partial.replace(path)
    _remove_old(path.parent, solution)
    say(f"the solution of {title} is made ({time.monotonic() - started:.0f} s)")


class _FileWriter:
    """Writes ``writer[start:end] = data`` at ``start`` in an open file."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor

    def __setitem__(self, where: slice, data: bytes) -> None:
        view = memoryview(data)
        at = where.start
        while view:
            written = os.pwrite(self.descriptor, view, at)
            view, at = view[written:], at + written


def _remove_old(folder: Path, solution: Solution) -> None:
    for old in old_files(folder, solution):
        old.unlink(missing_ok=True)


def old_files(folder: Path, solution: Solution) -> list[Path]:
    """Files of the solution's earlier layouts in ``folder``: ``adjudicate solve`` replaces
    them."""
    return [folder / name for name in solution.old_file_names if (folder / name).is_file()]


def load_all(folder: Path, kinds: Iterable[GameKind]) -> None:
    """Hand every solution already made to its game, and remember the folder for
    :func:`request` (each process, at its start)."""
    _FOLDER[:] = [folder]
    for kind in kinds:
        load(folder, kind)


def refresh(kind: GameKind) -> bool:
    """Whether the game has its solution, handing it over first if its file appeared since
    this process started: ``adjudicate solve`` may make it in another process while the
    service runs. For the hints after a game (its game-over mail, its archive page), which
    are made once a game ends: a look at the file then, never one per move."""
    if kind.solution is None or not _FOLDER:
        return False
    return load(_FOLDER[0], kind)


def request(kind: GameKind) -> bool:
    """Whether the game has its solution; if not, start making it in the background (once), so
    that a stand-in that must move inside a transaction never waits minutes: it plays by its
    own search until the solution is there, and says so (docs/stand-ins.md)."""
    solution = kind.solution
    if solution is None or not _FOLDER:
        return False
    if load(_FOLDER[0], kind):
        return True
    making = _MAKING.get(solution.file_name)
    failed = _FAILED.get(solution.file_name)
    if failed is not None and time.monotonic() - failed < RETRY_AFTER:
        return False  # it could not be made a moment ago (the log says why): not again yet
    if making is None or not making.is_alive():
        folder = _FOLDER[0]
        making = threading.Thread(
            target=_make_logged, args=(folder, kind), name=f"solve-{kind.name}", daemon=True
        )
        _MAKING[solution.file_name] = making
        making.start()
        log.warning(
            "%s: its stand-in plays by its own search until the complete solution is made",
            kind.title,
        )
    return False


def _make_logged(folder: Path, kind: GameKind) -> None:
    try:
        make(folder, kind)
    except (OSError, MemoryError) as error:
        assert kind.solution is not None
        _FAILED[kind.solution.file_name] = time.monotonic()
        log.error(
            "%s: the complete solution could not be made in %s: %s", kind.title, folder, error
        )
