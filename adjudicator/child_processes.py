"""What every process the service starts for its work does first (``workers.py``,
``readers.py``): it leaves stopping to the service, and ends by itself once the service is gone.
"""

from __future__ import annotations

import os
import signal
import threading
import time

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
