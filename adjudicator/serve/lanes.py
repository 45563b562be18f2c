"""The send pass of ``adjudicate serve``: every channel's lane of the outbox drained by the
channel's own sender, each with a backoff and a count of failures of its own.

Mail goes first, over the service's SMTP connections (``runner.make_senders``); then each
channel the service was given besides mail (``ServiceContext.channels``), by what its
``Channel.sender`` returns. A lane whose sender is away waits on its own: the SMTP server
being down never holds a webhook back, and a webhook that is down never holds mail back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from adjudicator.notify.outbox import BatchSender, OnRefused, ServerUnavailable, send_due
from adjudicator.storage.models import OutboxMail

log = logging.getLogger("adjudicator.serve")

RETRY_SECONDS = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
"""Waits after a pass that found a lane's server away, one step longer each time in a row, the
last repeated: the mails keep their place and their attempts meanwhile."""


@dataclass
class Lane:
    """One channel's lane as the service drains it: its sender, and how long it is away."""

    channel: str
    sender: BatchSender
    give_up: timedelta | None = None  # a notice's time to be taken (else: a number of attempts)
    failures: int = 0
    retry_at: float = 0.0  # monotonic: no sending before (the lane's server is away)

    @property
    def what(self) -> str:
        return "SMTP server" if self.channel == "mail" else f"channel {self.channel!r}"

    async def drain(
        self,
        engine: Engine,
        *,
        bounce_address: str,
        now: Callable[[], datetime],
        on_recorded: Callable[[list[OutboxMail]], object] | None = None,
        meanwhile: Callable[[], Awaitable[object]] | None = None,
        on_refused: OnRefused | None = None,
        on_away: Callable[[], object] | None = None,
    ) -> int:
        """Send what is due in this lane (``outbox.send_due``); return how many went. While
        its server is away, wait for it with backoff. A channel besides mail that fails
        otherwise (its sender raised) is taken as away too: its notices stay due, and the
        other lanes go on. A database error is the main loop's to wait out."""
        if time.monotonic() < self.retry_at:
            return 0
        try:
            sent = await send_due(
                engine,
                self.sender,
                bounce_address=bounce_address,
                now=now,
                on_recorded=on_recorded,
                meanwhile=meanwhile,
                on_refused=on_refused,
                channel=self.channel,
                give_up=self.give_up,
            )
        except ServerUnavailable as away:
            self._away(str(away), on_away)
            return 0
        except OperationalError:
            raise
        except Exception as error:
            if self.channel == "mail":
                raise
            self._away(f"{type(error).__name__}: {error}", on_away)
            return 0
        if self.failures:
            log.info("%s back after %d tries", self.what, self.failures)
        self.failures = 0
        return sent

    async def close(self) -> None:
        """Close the sender when the service stops. A channel besides mail that fails to
        close is said, and the other lanes close all the same."""
        if self.channel == "mail":
            await self.sender.close()
            return
        try:
            await self.sender.close()
        except Exception:
            log.exception("closing the sender of channel %r failed", self.channel)

    def _away(self, why: str, on_away: Callable[[], object] | None) -> None:
        self.failures += 1
        pause = RETRY_SECONDS[min(self.failures, len(RETRY_SECONDS)) - 1]
        log.warning(
            "%s unavailable (%s); %s waits, trying again in %.0f s (%d in a row)",
            self.what,
            why[:200],
            "mail" if self.channel == "mail" else "its lane",
            pause,
            self.failures,
        )
        if on_away is not None:
            on_away()
        self.retry_at = time.monotonic() + pause
