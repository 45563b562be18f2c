"""Claims on a round's reporting: one reporter at a time, and no claim outlives its holder.

A round adjudicated and not yet reported is reported by whoever closed it, right after the
closing's commit. Until that reporter is done, the round also waits in the eyes of the other
reporters: the pass after each batch of mail, the sweeper, another instance's workers. Each
of them would make the round's pictures and render its mails, only to lose its
compare-and-set at the end (``reporting.mark_reported``). In a burst of 500 deadlines on two
instances with mail coming in (``bench/deadline_burst.py --setups pg2``), 74 rounds were
reported twice over; with claims the workers use 6-12 % less CPU. A reporter therefore
claims the round first, and leaves one that another reporter has in hand.

A claim is a lock the database server or the kernel ends with its holder, so a reporter that
dies (SIGKILL, out of memory) leaves nothing behind, and the next pass takes the work. A claim
only saves work: the compare-and-set still decides who reports.

- PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``), on a connection kept
  for the claim's time in autocommit mode, with no transaction open; the server ends it with
  the connection.
- A SQLite file: a lock on one byte of a file beside the database (``fcntl.lockf`` at the
  round's id), for the other processes, and a set of this process's claims, for its threads (a POSIX
  lock belongs to a process, not a thread); the kernel ends it with the process.
- An in-memory database, or a system without ``fcntl``: this process's claims only.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

try:
    import fcntl
except ImportError:  # not a POSIX system: claims within this process only
    fcntl = None  # type: ignore[assignment]

REPORTING = 1
"""The advisory locks' first key on PostgreSQL: a round's reporting (the second is its id)."""

_TRY = text(f"SELECT pg_try_advisory_lock({REPORTING}, :key)")
_UNLOCK = text(f"SELECT pg_advisory_unlock({REPORTING}, :key)")


class _ProcessClaims:
    """This process's claims, and with a lock file those of the other processes too."""

    def __init__(self, lock_file: Path | None) -> None:
        self.held: set[int] = set()
        self.guard = threading.Lock()
        self.fd: int | None = None
        if lock_file is not None and fcntl is not None:
            # Opened once and never closed: closing any descriptor of the file would end
            # every lock this process holds on it.
            self.fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)

    def take(self, key: int) -> bool:
        with self.guard:
            if key in self.held:
                return False
            if self.fd is not None:
                try:
                    # One byte of the file a key: the byte at the key.
                    fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, key)
                except OSError as error:
                    if error.errno in (errno.EACCES, errno.EAGAIN):
                        return False  # another process has it
                    raise
            self.held.add(key)
            return True

    def give_back(self, key: int) -> None:
        with self.guard:
            if self.fd is not None:
                fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, key)
            self.held.discard(key)


_BY_FILE: dict[Path, _ProcessClaims] = {}
_BY_ENGINE: weakref.WeakKeyDictionary[Engine, _ProcessClaims] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def _process_claims(engine: Engine) -> _ProcessClaims:
    """The claims of this process on ``engine``'s SQLite database: by its file, which every
    engine on it shares, or by the engine for a database in memory."""
    database = engine.url.database
    with _GUARD:
        if database and database != ":memory:" and not database.startswith("file:"):
            path = Path(database).resolve()
            if path not in _BY_FILE:
                _BY_FILE[path] = _ProcessClaims(path.with_name(path.name + "-claims"))
            return _BY_FILE[path]
        if engine not in _BY_ENGINE:
            _BY_ENGINE[engine] = _ProcessClaims(None)
        return _BY_ENGINE[engine]


@contextmanager
def claimed(engine: Engine, round_id: int) -> Iterator[bool]:
    """Claim the reporting of a round for the ``with`` block: True when this caller has it,
    False when another (thread, process or instance) has it in hand and this caller should
    leave it."""
    if engine.dialect.name == "postgresql":
        with _advisory(engine, round_id) as mine:
            yield mine
        return
    claims = _process_claims(engine)
    mine = claims.take(round_id)
    try:
        yield mine
    finally:
        if mine:
            claims.give_back(round_id)


@contextmanager
def _advisory(engine: Engine, key: int) -> Iterator[bool]:
    # Autocommit: the lock is the connection's, not a transaction's, and none stays open
    # (nor costs a BEGIN and a COMMIT).
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        mine = bool(connection.execute(_TRY, {"key": key}).scalar())
        connection.commit()  # sends nothing in autocommit mode; ends SQLAlchemy's own begin
        try:
            yield mine
        finally:
            if mine:
                try:
                    connection.execute(_UNLOCK, {"key": key})
                except DBAPIError:
                    # Not given back: the connection is closed, not pooled, and the server
                    # ends the lock with it.
                    with contextlib.suppress(DBAPIError):
                        connection.invalidate()
