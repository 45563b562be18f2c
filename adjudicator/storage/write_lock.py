"""Taking turns for SQLite's one write lock, within one process.

A writer that finds the lock taken sleeps (busy_timeout) in growing steps: a thread that
commits batch after batch (the intake) wins it back every time, and another (the outbox
recording what it sent) starves for hundreds of milliseconds. Writers that wrap their
transaction in ``sqlite_write_lock`` get the lock in the order they asked for it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Engine


class _Turns:
    """A first-come, first-served lock: tickets are served in the order they were drawn."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._drawn = self._serving = 0

    @contextmanager
    def turn(self) -> Iterator[None]:
        with self._changed:
            ticket, self._drawn = self._drawn, self._drawn + 1
            self._changed.wait_for(lambda: self._serving == ticket)
        try:
            yield
        finally:
            with self._changed:
                self._serving += 1
                self._changed.notify_all()


_TURNS: weakref.WeakKeyDictionary[Engine, _Turns] = weakref.WeakKeyDictionary()
_TURNS_GUARD = threading.Lock()


@contextmanager
def sqlite_write_lock(engine: Engine) -> Iterator[None]:
    """Take turns with this process's other writers on a SQLite database.

    SQLite has one write lock, and a writer that finds it taken sleeps (busy_timeout) in
    growing steps: a thread that commits batch after batch wins it back every time, and the
    outbox thread starves for hundreds of milliseconds. Writers that wrap their transaction in
    this get it in the order they asked. PostgreSQL locks rows, not the database: no turns.
    """
    if engine.dialect.name != "sqlite":
        yield
        return
    with _TURNS_GUARD:
        turns = _TURNS.setdefault(engine, _Turns())
    with turns.turn():
        yield
