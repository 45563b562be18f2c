"""Mail read in a process of its own, while the service stores it.

Reading a mail (its MIME parts, charsets, quoted replies and signatures, then its commands:
``mail/reading.py``) is about a quarter of the intake's work a mail, and Python work that holds
the interpreter lock. It needs no database, so ``adjudicate serve`` hands it to a reader
process (when the machine has more than one core: ``service.workers``): each batch of mail it
takes in (an IMAP FETCH, a Maildir pass) of at least ``READ_AHEAD_MIN`` mails goes to the
reader as it arrives, the service stores the batch meanwhile, then processes it with the
readings. The reader reads with the service's own settings, so a mail reads the same there.
The IMAP reader hands each batch over as soon as it is fetched (``read_soon``), before the
batch before it is processed: the reader then reads one batch while the service processes
the other, and the service does not wait for the first readings of each batch.

Reading has no effects: a reading that does not come back (the reader died, or took longer
than ``READ_TIMEOUT`` seconds for a part of the batch) is done again in the service's own
process, which reads all the mail itself until a new reader starts, ``RESTART_SECONDS``
later. Nothing is lost or done twice. A batch of fewer than ``READ_AHEAD_MIN`` mails is read
in the service: handing it over would cost about what reading it does.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Collection, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from adjudicator.base.logs import configure_logging
from adjudicator.mail.reading import Reading, Readings, read_all
from adjudicator.serve.child_processes import Helper
from adjudicator.serve.garbage_collection import settle

log = logging.getLogger("adjudicator.readers")

READ_AHEAD_MIN = 4
"""Mails a batch needs to be read ahead: a mail read by the reader costs the service about a
twentieth of reading it, plus a round trip of a millisecond or so for the batch."""

READ_PART = 25
"""Mails read in one part: as many as the service processes in one transaction
(``batch_intake.PROCESS_BATCH``), which needs all their readings before it starts. Each part
costs the service a hand-over and a hand-back in its own threads: parts of 25 took 5 % less of
its CPU a mail than parts of 10 (``bench/intake_cpu.py --reader``)."""

READ_TIMEOUT = 10.0
"""Seconds a part may take before the service reads its mails itself (25 mails take about
17 ms; a mail of the largest size read, tens)."""

RESTART_SECONDS = 60.0
"""After a reader was lost, the mail is read by the service itself for this long, so that a
reader that cannot start is not started again for every batch."""

KEPT_AHEAD = 2
"""Batches handed over early and not taken yet that are kept (``read_soon``): one being
processed, the next one fetched. An older one was not processed after all (its batch failed)
and is dropped, read or not: it is fetched and read again."""

_Part = tuple[list[bytes], "Future[list[Reading | None]]"]
"""Mails handed to the reader together, and their readings to come."""

_settings: tuple[frozenset[str], int] | None = None


def _start_reader(own: frozenset[str], max_bytes: int, logging_: tuple[str, str, str]) -> None:
    global _settings  # noqa: PLW0603 - one reader's settings per process
    log_format, level, log_file = logging_
    configure_logging(log_format=log_format, level=level, log_file=log_file)
    _settings = (own, max_bytes)
    settle()


def _read_part(raws: list[bytes]) -> list[Reading | None]:
    assert _settings is not None, "a reader is started with the service's settings"
    own, max_bytes = _settings
    return read_all(raws, own_addresses=own, max_bytes=max_bytes)


def _ready() -> bool:
    return _settings is not None


class MailReaders:
    """A reader process (see the module's docstring)."""

    def __init__(
        self,
        *,
        own_addresses: Collection[str],
        max_bytes: int,
        log_format: str = "text",
        log_file: str = "",
    ) -> None:
        level = logging.getLevelName(logging.getLogger().getEffectiveLevel()).lower()
        logging_ = (log_format, level, log_file)
        self.helper = Helper(
            name="the mail reader",
            instead="the service reads the mail itself, and starts a new reader",
            initializer=_start_reader,
            initargs=(frozenset(own_addresses), max_bytes, logging_),
            ready=_ready,
            restart=lambda: RESTART_SECONDS,
            logger=log,
        )
        self.parts_read = 0
        """Parts whose readings came back (for tests and figures)."""
        self._lock = threading.Lock()  # the IMAP reader and the Maildir reader share it
        self._soon: deque[tuple[tuple[int, ...], Readings]] = deque(maxlen=KEPT_AHEAD)
        self.helper.started()  # now, not with the first batch

    @property
    def pool(self) -> ProcessPoolExecutor | None:
        return self.helper.pool

    def ready(self) -> bool:
        """Whether the reader is up and takes mail now."""
        return self.helper.started() is not None

    def read_soon(self, raws: Sequence[bytes]) -> None:
        """Start reading ``raws``, whose ``read_ahead`` comes later: it then finds them read,
        or being read. Known by the very objects given (``is``, not ``==``)."""
        readings = self._start(raws)
        if isinstance(readings, _ReadAhead):  # not too few to hand over, and a reader is up
            with self._lock:
                self._soon.append((_identities(raws), readings))

    def read_ahead(self, raws: Sequence[bytes]) -> Readings:
        """The readings of ``raws``, started now unless ``read_soon`` started them; each is
        waited for when it is looked up (those that do not come are missing: the caller reads
        them itself)."""
        key = _identities(raws)
        with self._lock:
            for n, (started, readings) in enumerate(self._soon):
                if started == key:
                    del self._soon[n]
                    return readings
        return self._start(raws)

    def _start(self, raws: Sequence[bytes]) -> Readings:
        pool = self.helper.started() if len(raws) >= READ_AHEAD_MIN else None
        if pool is None:
            return {}
        parts: list[_Part] = []
        try:
            for start in range(0, len(raws), READ_PART):
                part = list(raws[start : start + READ_PART])
                parts.append((part, pool.submit(_read_part, part)))
        except RuntimeError as error:  # a broken pool refuses work
            self._lost(pool, f"the mail reader cannot take mail ({error})")
        return _ReadAhead(self, pool, parts)

    def _lost(self, pool: ProcessPoolExecutor, why: str) -> None:
        """Give up on ``pool``: it reads the part in hand to its end (however long: the service
        would have taken as long over it), then ends. A new reader is started for the mail that
        comes ``RESTART_SECONDS`` later."""
        self.helper.lost(pool, why)

    def shutdown(self) -> None:
        """Stop the reader (after the part in hand)."""
        pool = self.helper.stop()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _identities(raws: Sequence[bytes]) -> tuple[int, ...]:
    """The mails by the objects they are: kept together with the mails themselves (the parts of
    their readings hold them), so no other object can take an identity over meanwhile."""
    return tuple(map(id, raws))


class _ReadAhead(Mapping[bytes, Reading | None]):
    """The readings of the mails handed to the reader, by their bytes: a part's are waited for
    when one of its mails is first looked up, so that the first part is processed while the
    reader reads the next (or, handed over a batch ahead, all read already)."""

    def __init__(self, readers: MailReaders, pool: ProcessPoolExecutor, parts: list[_Part]) -> None:
        self._readers, self._pool, self._parts = readers, pool, parts
        self._part_of = {raw: index for index, (part, _) in enumerate(parts) for raw in part}
        self._got: dict[bytes, Reading | None] = {}
        self._waited: set[int] = set()
        self._failed = False

    def __getitem__(self, raw: bytes) -> Reading | None:
        """The reading of ``raw``, its part waited for; KeyError when ``raw`` was not handed
        over or its reading did not come."""
        index = self._part_of[raw]
        if index not in self._waited and not self._failed:
            self._wait(index)
        return self._got[raw]

    def _wait(self, index: int) -> None:
        self._waited.add(index)
        part, future = self._parts[index]
        try:
            read = future.result(timeout=READ_TIMEOUT)
        except FutureTimeout:
            late = f"the mail reader took over {READ_TIMEOUT:g} s for {len(part)} mails"
            self._give_up(late)
            return
        except Exception as error:  # died (BrokenProcessPool), or could not send it back
            self._give_up(f"the mail reader failed ({type(error).__name__}: {error})")
            return
        self._got.update(zip(part, read, strict=True))
        self._readers.parts_read += 1

    def _give_up(self, why: str) -> None:
        self._failed = True  # the later parts are not waited for either
        self._readers._lost(self._pool, why)

    def __iter__(self) -> Iterator[bytes]:
        """The mails whose readings came, every part waited for (as its lookups would)."""
        for index in range(len(self._parts)):
            if index not in self._waited and not self._failed:
                self._wait(index)
        return iter(self._got)

    def __len__(self) -> int:
        return sum(1 for _ in self)
