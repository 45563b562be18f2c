"""What one check found: a status, what it saw, and how to fix it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass

TIMEOUT = 5.0  # seconds, for every connection and DNS lookup
OK, WARN, FAIL, SKIP = "ok", "warn", "FAIL", "skip"
_BYTES_REPR = re.compile(r"""^b(['"])(.*)\1$""")


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok, warn, FAIL or skip
    message: str
    fix: str = ""

    @property
    def healthy(self) -> bool:
        return self.status in (OK, SKIP)

    def line(self) -> str:
        fix = f"\n      fix: {self.fix}" if self.fix else ""
        return f"{self.status:>4}  {self.name}: {self.message}{fix}"

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def words(error: BaseException) -> str:
    """What an error said, on one line: a server's own words are the best diagnosis."""
    text = str(error).strip() or error.__class__.__name__
    text = _BYTES_REPR.sub(r"\2", text)  # imapclient quotes the server's reply as b'...'
    return text.splitlines()[0][:300]


def loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except Exception:  # the connection is gone: nothing to close
        return
