"""What every process the service starts for its work does first (``workers.py``,
``readers.py``, ``sending.py``): it leaves stopping to the service, and ends by itself once the
service is gone. ``Helper``: the one process of the reader, or of the sender, and its
replacement when it is lost.
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
from typing import Any

ORPHAN_CHECK_SECONDS = 1.0


def serve_the_service(service: int) -> None:
    """Ignore SIGINT and SIGTERM (the service stops its children itself, after the work in
    hand), and end this process once the service ``service`` (its process id) is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(
        target=_end_with_service, args=(service,), name="orphan-check", daemon=True
    ).start()


def _end_with_service(service: int) -> None:
    """End this process once its service is gone (killed with SIGKILL, or out of memory): no
    one will hand it work again, and each child of each killed service would otherwise live on
    for good, holding a database connection. Work in hand is left half done, which its
    transaction undoes."""
    while os.getppid() == service:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(1)


class Helper:
    """The process the service hands one kind of work to (``readers.py``, ``sending.py``).

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
                self.pool = ProcessPoolExecutor(
                    1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=self._initializer,
                    initargs=self._initargs,
                )
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
