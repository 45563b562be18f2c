"""Imported by the fork server of ``child_processes.py`` alone, before it forks any process
(``PRELOADED``): the fork server ignores SIGTERM, as the processes it forks do.

systemd stops the service with a SIGTERM to every process of its group. The service then
finishes the work in hand and stops its processes itself; but a fork server ended by that
SIGTERM would take every pool with it (a pool counts the processes a fork server forked as
dead once the fork server is gone), and the rounds and mails in hand would be given up. The
fork server ends when the service does: multiprocessing closes the pipe it waits on.
"""

from __future__ import annotations

import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)
