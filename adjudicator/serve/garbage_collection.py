"""The garbage collector in the service's long-running processes (``adjudicate serve``, its
mail readers and its workers).

Once such a process has started, most of the objects the collector tracks are there for good:
modules, classes, SQLAlchemy's mappers and compiled statements, Jinja's templates. CPython's
collector still goes through all of them in every full collection, and with the default
thresholds it runs a young collection every 700 new containers: a mail batch's rows, readings
and rendered answers make several hundred of those a mail. Measured on the intake
(``bench/intake.py``, 3,000 mails), collection took about 0.5 s of the service's CPU.

:func:`settle` collects once, freezes what is left (``gc.freeze``: those objects are left out
of every later collection, and are never garbage) and runs young collections less often. A
cycle of objects made later is still collected, only a little later: at most
:data:`YOUNG_THRESHOLD` new containers after it became garbage.

It also caps glibc's malloc arenas (:data:`MALLOC_ARENAS`): glibc gives a thread that
allocates while another does an arena of its own, up to eight a core, and keeps the memory
each took. In the service, whose IMAP thread, outbox threads and the hand-overs to its reader
and sender processes allocate at the same time, that was 10-15 MB more peak memory: 148-153 MB,
against 135 MB with ``MALLOC_ARENA_MAX=2`` and 141 MB with this cap (``bench/intake.py``, the
service's peak RSS), for the same CPU.
"""

from __future__ import annotations

import ctypes
import gc

YOUNG_THRESHOLD = 10_000
"""New containers (allocations less deallocations) between two young collections; CPython's
default is 700."""


MALLOC_ARENAS = 2
"""glibc's ``M_ARENA_MAX`` in the service's processes (its default: eight a core)."""

_M_ARENA_MAX = -8  # glibc's malloc.h


def settle() -> None:
    """Call once the process has started and before its steady work: see the module's text."""
    _cap_malloc_arenas()
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)


def _cap_malloc_arenas() -> None:
    """``mallopt(M_ARENA_MAX, MALLOC_ARENAS)`` where the C library has it (glibc; elsewhere
    nothing is done)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_ARENA_MAX, MALLOC_ARENAS)
