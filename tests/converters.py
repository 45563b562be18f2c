"""Picture converters for tests, and a watch on every database transaction of the process.

The service must never convert a picture while a database transaction is open: converting
takes tens of milliseconds, and no transaction (SQLite's single write lock above all) may wait
for it. :class:`OpenTransactions` follows every connection of every engine through SQLAlchemy's
events; :class:`QuickPictures`, the converter of every app a test makes (``tests/conftest.py``)
unless the test is marked ``real_pictures``, notes each conversion made while the converting
thread has a transaction open, and the test then fails.
"""

from __future__ import annotations

import io
import threading
import weakref

from PIL import Image
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine


class OpenTransactions:
    """The connections with a transaction open, each with the thread that began it."""

    def __init__(self) -> None:
        self._open: dict[int, tuple[weakref.ref[Connection], int]] = {}
        self._guard = threading.Lock()

    def install(self) -> None:
        event.listen(Engine, "begin", self._began)
        event.listen(Engine, "commit", self._ended)
        event.listen(Engine, "rollback", self._ended)

    def remove(self) -> None:
        event.remove(Engine, "begin", self._began)
        event.remove(Engine, "commit", self._ended)
        event.remove(Engine, "rollback", self._ended)

    def _began(self, connection: Connection) -> None:
        with self._guard:
            self._open[id(connection)] = (weakref.ref(connection), threading.get_ident())

    def _ended(self, connection: Connection) -> None:
        with self._guard:
            self._open.pop(id(connection), None)

    def in_this_thread(self) -> int:
        """How many transactions the calling thread has open now."""
        me = threading.get_ident()
        with self._guard:
            entries = list(self._open.values())
        return sum(
            1
            for ref, thread in entries
            if thread == me and (c := ref()) is not None and not c.closed and c.in_transaction()
        )


def small_png() -> bytes:
    out = io.BytesIO()
    Image.new("P", (4, 4)).save(out, format="PNG")
    return out.getvalue()


class QuickPictures:
    """A tiny real PNG at once, for tests that are not about drawing pictures; counts its
    calls and those made inside a transaction (a converter's exception would be logged and
    swallowed by the service, so it records instead of raising)."""

    def __init__(self, transactions: OpenTransactions) -> None:
        self.transactions = transactions
        self.calls = 0
        self.inside_transactions = 0

    def to_png(self, svg: str) -> bytes | None:
        self.calls += 1
        if self.transactions.in_this_thread():
            self.inside_transactions += 1
        return small_png()
