"""Where incoming mail comes from: a Maildir folder (``maildir.py``) or an IMAP folder
(``imap.py``), each a :class:`MailSource` that hands the mail it finds to one
:data:`BatchHandler`, a batch at a time, and marks it handled only after the handler returned.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

BatchHandler = Callable[[list[bytes], Sequence[datetime | None]], None]
"""``handle_batch(raws, arrived)``: store a batch of raw messages, committed when it returns
(one transaction instead of one per message). If it raises, nothing of the batch is marked
handled: it is handed over again on a later pass. ``arrived`` gives each message's delivery
time, timezone-aware (a Maildir's file name, IMAP's INTERNALDATE), or None where the source
has none: orders count as of their delivery, not of when the service came to read them."""


class MailSource(Protocol):
    """A folder the service reads mail from."""

    @property
    def channel(self) -> str:
        """How the mail came (``maildir``, ``imap``): stored with each mail, for the logs."""
        ...

    def run_once(self) -> int:
        """One pass: hand every unhandled message to the handler; how many were handled."""
        ...

    def stop(self) -> None:
        """From any thread: the pass in hand ends after its batch, the rest waits for the next
        start."""
        ...
