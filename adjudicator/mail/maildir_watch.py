"""Told at once when mail is delivered into a Maildir, instead of at the next look.

A delivery agent (Dovecot's LDA, procmail, ``adjudicate receive``) writes a message into
``tmp/`` and renames it into ``new/``: that rename is what is watched, through the operating
system's notifications (inotify on Linux, by watchfiles). The reader itself stays as it is
(``maildir.py``): this only says when to read. Where the folder cannot be watched (a file
system without notifications, or too many watches in use), the caller reads it on its own
schedule all the same.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from watchfiles import Change, awatch

log = logging.getLogger(__name__)

QUIET_MS = 20
"""How long the folder stays quiet before a delivery is told (several renamed at once are told
once)."""
LONGEST_MS = 200
"""How long deliveries in a row are gathered at most before they are told."""


def _delivered(change: Change, _path: str) -> bool:
    return change == Change.added  # a rename into new/; the reader's moves out are not news


async def watch_deliveries(
    maildir: Path, *, stop: asyncio.Event, on_delivery: Callable[[], object]
) -> None:
    """Call ``on_delivery`` (in the event loop) each time mail arrives in ``maildir/new``,
    until ``stop`` is set. Never raises: a folder that cannot be watched is said once."""
    try:
        async for _ in awatch(
            maildir / "new",
            stop_event=stop,
            watch_filter=_delivered,
            debounce=LONGEST_MS,
            step=QUIET_MS,
            recursive=False,
        ):
            on_delivery()
    except Exception as error:  # the caller's own schedule reads the folder all the same
        log.warning(
            "the Maildir %s cannot be watched (%s): read on the regular turn", maildir, error
        )
