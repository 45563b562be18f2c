"""systemd's notification protocol (``sd_notify``), for ``Type=notify`` and ``WatchdogSec=``.

The service says READY=1 once it has processed what was stored before a restart and its
deadlines are planned, WATCHDOG=1 after each turn of its main loop while every reader is alive
(a wedged IMAP IDLE, or an IMAP intake that has not read for ``[health] intake_seconds``, stops
the pings with a ``STATUS=`` line saying why, and systemd restarts the service), and STOPPING=1
when it stops. Outside systemd (no ``NOTIFY_SOCKET``) every call does nothing.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class Notifier:
    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        environ = os.environ if environ is None else environ
        address = environ.get("NOTIFY_SOCKET", "")
        # An abstract socket is written with a leading "@" and addressed with a NUL byte.
        self.address = "\0" + address[1:] if address.startswith("@") else address
        usec = environ.get("WATCHDOG_USEC", "")
        self.watchdog_seconds = int(usec) / 1_000_000 if usec.isdigit() else None

    @property
    def active(self) -> bool:
        return bool(self.address)

    def notify(self, *states: str) -> bool:
        """Send ``READY=1``-style lines; False outside systemd or when the socket is gone."""
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self.address)
                sock.sendall("\n".join(states).encode())
        except OSError:
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")
