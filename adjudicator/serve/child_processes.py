"""How the service starts the processes it hands work to (``workers.py``, ``reader_process.py``,
``sending.py``), and what each does first: it takes the service's environment, leaves stopping
to the service, and ends by itself once the service is gone. ``Helper``: the one process of the
reader, or of the sender, and its replacement when it is lost.

The processes are forked from a fork server that has imported those modules once, so a new
process costs what a bare one does (``bench/process_start.py``: a pool of two workers took
1.57 s and 3.05 s of CPU as fresh interpreters, 0.10 s and 0.16 s from the fork server). The
service starts four or more, some while mail comes in; each new one after a process was lost
is as cheap. Where there is no fork server (not POSIX), each process is a fresh interpreter.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any

ORPHAN_CHECK_SECONDS = 1.0

PRELOADED = [
    "adjudicator.serve.fork_server",
    "adjudicator.serve.workers",
    "adjudicator.serve.reader_process",
    "adjudicator.serve.sending",
]
"""What the fork server imports before it forks the first process (``fork_server.py``: it
ignores SIGTERM)."""


def process_pool(
    count: int, initializer: Callable[..., None], initargs: tuple[Any, ...]
) -> ProcessPoolExecutor:
    """``count`` processes of this service, each started by ``initializer(*initargs)``."""
    return ProcessPoolExecutor(
        count,
        mp_context=_start_method(),
        initializer=_serve_the_service,
        initargs=(os.getpid(), dict(os.environ), initializer, initargs),
    )


def _start_method() -> BaseContext:
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOADED)  # heeded when the fork server starts
    return context


def _serve_the_service(
    service: int,
    environ: dict[str, str],
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
) -> None:
    """Take the service's environment as it was when the pool was made (a forked process has
    the fork server's, from when it started), ignore SIGINT and SIGTERM (the service stops its
    children itself, after the work in hand), end once the service ``service`` (its process
    id) is gone, then ``initializer(*initargs)``."""
    os.environ.clear()
    os.environ.update(environ)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(
        target=_end_with_service, args=(service, os.getppid()), name="orphan-check", daemon=True
    ).start()
    initializer(*initargs)


def _end_with_service(service: int, parent: int) -> None:
    """End this process once its service is gone (killed with SIGKILL, or out of memory): no
    one will hand it work again, and each child of each killed service would otherwise live on
    for good, holding a database connection. Work in hand is left half done, which its
    transaction undoes.

    The parent is the service, or the fork server, which ends with the service: either way a
    new parent means the service is gone. The service's own id is checked too, for a fork
    server that ended before this process looked at its parent."""
    while os.getppid() == parent and _exists(service):
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(1)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # another user's process has the id now: the service is gone
    return True


class Helper:
    """The process the service hands one kind of work to (``reader_process.py``, ``sending.py``).

    It starts in the background: no work waits for it to start, the service does the work
    itself meanwhile. One that is lost (it died, hung, or could not start) is given up, handed
    nothing more, and ends after the work in hand; a new one starts ``restart`` seconds later,
    not for every piece of work. Safe to use from several threads.
    """

    def __init__(
        self,
        *,
        name: str,
        instead: str,
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        ready: Callable[[], bool],
        restart: Callable[[], float],
        logger: logging.Logger,
    ) -> None:
        self.name, self.instead = name, instead  # what is said when it is lost
        self._log = logger
        self._initializer, self._initargs, self._ready = initializer, initargs, ready
        self._restart = restart  # seconds: asked when one is lost
        self.pool: ProcessPoolExecutor | None = None
        self._up: Future[bool] | None = None
        self._retry_at = 0.0
        self._lock = threading.Lock()

    def started(self) -> ProcessPoolExecutor | None:
        """The process, started now if need be; None while it starts, and while one lost waits
        to be replaced."""
        with self._lock:
            if self.pool is None and time.monotonic() >= self._retry_at:
                self.pool = process_pool(1, self._initializer, self._initargs)
                self._up = self.pool.submit(self._ready)
            pool, up = self.pool, self._up
        if pool is None or up is None or not up.done():
            return None
        if (error := up.exception()) is not None:
            self.lost(pool, f"{self.name} did not start ({type(error).__name__}: {error})")
            return None
        return pool

    def lost(self, pool: ProcessPoolExecutor, why: str) -> None:
        """Give up on ``pool`` (said once, however many of its pieces of work fail)."""
        with self._lock:
            if self.pool is not pool:
                return  # said already
            self.pool, self._up = None, None
            restart = self._restart()
            self._retry_at = time.monotonic() + restart
        self._log.error("%s: %s in %g s", why, self.instead, restart)
        pool.shutdown(wait=False, cancel_futures=True)

    def stop(self) -> ProcessPoolExecutor | None:
        """Hand nothing more, start none again: the pool, for the caller to shut down once its
        work in hand is done."""
        with self._lock:
            pool, self.pool = self.pool, None
            self._retry_at = math.inf
        return pool
