"""Maildir folders: reading incoming mail, and writing mail into one (tests, the local outbox).

A Maildir (https://cr.yp.to/proto/maildir.html) is three folders: ``tmp/`` where a message is
written, ``new/`` where it appears with one atomic rename, and ``cur/`` where a reader moves it
with an info suffix ``:2,<flags>``. We mark a message handled by moving it to ``cur/`` with the
``S`` (seen) flag, only after ``handle_batch`` returned: as with IMAP, a crash in between
delivers it again and the service drops the copy by its digest.

Other programs (a mail client, a second reader) may move or delete files at any time, so every
step tolerates a file that vanished.

Mail is handled in the order it arrived, which matters when a player sends two order mails
quickly: the one handled last is the one in force. The arrival time is read from the file name,
which every common delivery agent starts with the delivery time in seconds (``1700000000.``) and
most follow with the microseconds (``M123456`` from this module, Dovecot's LDA and Postfix);
both are compared as numbers, not as text. A name without microseconds takes them from the
file's change time (the moment it was renamed into the folder), kept within the named second;
a name that starts with no time, or with a number that cannot be one (a day or more ahead of
the clock: nanoseconds, a counter), takes the change time whole.
Two mails that arrived in the same microsecond are handled in the order of their delivery
counter (``Q``) and then of their names, so the one whose name sorts last is in force.

``cur/`` keeps every mail handled, so it grows for good, and listing it costs about 0.7 ms per
thousand files: every pass would pay it, though unread mail rarely lands there (a mail client
moves it there). A pass lists ``cur/`` only when its change time says something changed since
the reader last knew it (the way Dovecot keeps its own Maildirs): a rename into the folder, by
another program or by this reader marking mail handled, changes it. A change that falls in the
same tick of the file system's clock as the reader's own last look leaves the time alone: so a
look that close to a change is trusted for ``RELIST_SECONDS`` only, then ``cur/`` is listed
again.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from adjudicator.mail.source import BatchHandler

log = logging.getLogger(__name__)

BATCH = 50
"""Messages handed to ``handle_batch`` at once, at most: as many as the IMAP poller fetches."""

RELIST_SECONDS = 10.0
"""How long a look at ``cur/`` taken close to a change of it is trusted (module docstring)."""

RACY_NS = 2_000_000_000
"""A look at ``cur/`` taken less than this after its last change may have missed a change made
in the same tick of the file system's clock (coarse, on some file systems a whole second)."""

SUBFOLDERS = ("tmp", "new", "cur")
INFO_SEPARATOR = ":"  # ':2,' starts the info part of a name (some Windows tools use '!')
HANDLED = "S"

_counter = itertools.count(1)
NAME_AHEAD_SECONDS = 86_400
"""A name whose time is later than now by more than this holds no delivery time."""

_SECONDS = re.compile(r"(\d+)\.")
_MICROS = re.compile(r"M(\d{1,6})(?=\D|$)")
_COUNTER = re.compile(r"Q(\d+)(?=\D|$)")


def ensure_maildir(path: Path) -> Path:
    for sub in SUBFOLDERS:
        (path / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def deliver(maildir: Path, raw: bytes) -> Path:
    """Write ``raw`` into ``maildir``'s ``new/`` the Maildir way: into ``tmp/`` first, synced,
    then renamed, so a reader never sees half a message; the folder is synced after the rename,
    so the message is on disk when this returns (a mail server's pipe then forgets its copy).
    Creates the folders when missing and returns the new file's path."""
    ensure_maildir(maildir)
    name = _unique_name()
    temporary = maildir / "tmp" / name
    with open(temporary, "xb") as file:
        file.write(raw)
        file.flush()
        os.fsync(file.fileno())
    final = maildir / "new" / name
    os.rename(temporary, final)
    folder = os.open(maildir / "new", os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
    return final


def _unique_name() -> str:
    """time.M<microseconds>P<pid>Q<counter>.<host>, as the Maildir page suggests."""
    now = time.time_ns() // 1000
    seconds, micros = divmod(now, 1_000_000)
    host = socket.gethostname().replace("/", r"\057").replace(":", r"\072")
    return f"{seconds}.M{micros:06d}P{os.getpid()}Q{next(_counter)}.{host}"


def arrival_key(path: Path) -> tuple[int, int, str]:
    """When the message at ``path`` arrived, in microseconds, then its delivery counter and its
    name: what :class:`MaildirReader` sorts by (see the module docstring)."""
    name = path.name.partition(INFO_SEPARATOR)[0]
    seconds = _SECONDS.match(name)
    if seconds is not None and int(seconds.group(1)) > time.time() + NAME_AHEAD_SECONDS:
        seconds = None  # no delivery time (nanoseconds, a counter): the file's change time
    unique = name.split(".")[1] if name.count(".") >= 1 else ""
    micros = _MICROS.search(unique)
    counter = _COUNTER.search(unique)
    if seconds is None:
        when = _changed_micros(path)
    elif micros is not None:
        when = int(seconds.group(1)) * 1_000_000 + int(micros.group(1))
    else:
        start = int(seconds.group(1)) * 1_000_000
        when = start + min(max(_changed_micros(path) - start, 0), 999_999)
    return when, int(counter.group(1)) if counter else 0, name


def arrival_time(path: Path) -> datetime:
    """When the message at ``path`` reached the Maildir (see the module docstring)."""
    return datetime.fromtimestamp(arrival_key(path)[0] / 1_000_000, UTC)


def _changed_micros(path: Path) -> int:
    try:
        return path.stat().st_ctime_ns // 1000
    except FileNotFoundError:
        return 0


def flags_of(name: str) -> str:
    """The flags of a ``cur/`` file name: ``'1234.host:2,RS'`` -> ``'RS'``."""
    _, separator, info = name.partition(INFO_SEPARATOR)
    if separator and info.startswith("2,"):
        return info[2:]
    return ""


def with_flag(name: str, flag: str) -> str:
    """The file name with ``flag`` added to its info (flags stay in ASCII order)."""
    key = name.partition(INFO_SEPARATOR)[0]
    flags = "".join(sorted(set(flags_of(name)) | {flag}))
    return f"{key}{INFO_SEPARATOR}2,{flags}"


class MaildirReader:
    """Hands every unhandled message of a Maildir to ``handle_batch``, up to ``BATCH`` at a
    time: all of ``new/``, and the files in ``cur/`` without the ``S`` flag (put there by
    another program without reading them). Each arrived at its delivery time
    (:func:`arrival_time`). A ``source.MailSource``."""

    channel = "maildir"

    def __init__(self, maildir: Path, *, handle_batch: BatchHandler) -> None:
        self.maildir = maildir
        self.handle_batch = handle_batch
        self._stop_event = threading.Event()
        self.relist_seconds = RELIST_SECONDS
        # What the reader knows of cur/: its change time when it last held no unread mail of
        # other programs (None: not known), whether that look may have missed a change made
        # in the same tick of the clock, and when it was last listed (monotonic).
        self._cur_known: int | None = None
        self._cur_racy = True
        self._cur_listed = 0.0

    def run_once(self) -> int:
        """One pass; returns how many messages were handled. When ``handle_batch`` raises,
        the batch and those after it stay where they are and the exception propagates."""
        ensure_maildir(self.maildir)
        handled = 0
        batch: list[tuple[Path, bytes]] = []
        try:
            for path in self._unhandled():
                if self._stop_event.is_set():
                    self._cur_known = None  # what is left of cur/ waits for the next pass
                    break  # stopping: the rest waits in the folder for the next start
                try:
                    raw = path.read_bytes()
                except FileNotFoundError:
                    continue  # taken or deleted by someone else meanwhile
                batch.append((path, raw))
                if len(batch) == BATCH:
                    handled += self._hand_over(batch)
                    batch = []
            if batch:
                handled += self._hand_over(batch)
        except BaseException:
            self._cur_known = None  # unread mail of cur/ left behind: the next pass lists it
            raise
        if handled:
            log.info("Maildir %s: handled %d new messages", self.maildir, handled)
        return handled

    def _cur_changed(self) -> int | None:
        """The change time of ``cur/`` when it must be listed on this pass (it changed since
        the reader last knew it, or that knowledge is racy and ``relist_seconds`` old); None
        when it need not be. The time is taken before the listing: a rename into the folder
        after it changes the time again, and the next pass lists the folder."""
        changed = self._cur_time()
        stale = time.monotonic() - self._cur_listed >= self.relist_seconds
        if changed == self._cur_known and not (self._cur_racy and stale):
            return None
        return changed

    def _cur_listed_at(self, changed: int) -> None:
        """``cur/`` was listed, its change time ``changed`` taken just before."""
        self._cur_known, self._cur_listed = changed, time.monotonic()
        self._cur_racy = time.time_ns() - changed < RACY_NS

    def _cur_marked(self) -> None:
        """This reader renamed mail into ``cur/``, which held no unread mail of others just
        before: it still holds none, unless another program renamed one into it in the same
        tick of the clock as these renames (so the look is racy)."""
        self._cur_known, self._cur_racy = self._cur_time(), True

    def _cur_time(self) -> int:
        """``cur/``'s change time in nanoseconds; 0 when the folder is missing."""
        try:
            return os.stat(self.maildir / "cur").st_mtime_ns
        except FileNotFoundError:
            return 0

    def _hand_over(self, batch: list[tuple[Path, bytes]]) -> int:
        """Hand ``batch`` (in arrival order) to the handler, then mark it handled."""
        self.handle_batch([raw for _, raw in batch], [arrival_time(p) for p, _ in batch])
        unchanged = self._cur_known is not None and self._cur_time() == self._cur_known
        for path, _ in batch:
            self._mark_handled(path)
        if unchanged:  # cur/ held no unread mail of others just now: it still does not
            self._cur_marked()
        return len(batch)

    def _unhandled(self) -> Iterator[Path]:
        """The unhandled messages of ``new/`` and ``cur/`` together, in arrival order."""
        found = [self.maildir / "new" / name for name in self._names("new")]
        changed = self._cur_changed()
        if changed is not None:
            cur = self.maildir / "cur"
            found += [cur / name for name in self._names("cur") if HANDLED not in flags_of(name)]
            self._cur_listed_at(changed)
        yield from sorted(found, key=arrival_key)

    def _names(self, sub: str) -> list[str]:
        try:
            return [name for name in os.listdir(self.maildir / sub) if not name.startswith(".")]
        except FileNotFoundError:
            return []

    def _mark_handled(self, path: Path) -> None:
        target = self.maildir / "cur" / with_flag(path.name, HANDLED)
        try:
            os.rename(path, target)
        except FileNotFoundError:
            log.info("Maildir %s: %s vanished before it was marked", self.maildir, path.name)

    def stop(self) -> None:
        self._stop_event.set()

    def run_forever(
        self, stop_event: threading.Event | None = None, *, poll_seconds: float = 5.0
    ) -> None:
        """Pass after pass, ``poll_seconds`` apart, until ``stop()`` or ``stop_event``.
        A failing ``handle_batch`` is logged and tried again on the next pass."""
        if stop_event is not None:
            self._stop_event = stop_event
        while not self._stop_event.is_set():
            try:
                self.run_once()
            except Exception:
                log.exception("Maildir %s: pass failed; trying again", self.maildir)
            self._stop_event.wait(poll_seconds)
