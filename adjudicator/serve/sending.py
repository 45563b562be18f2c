"""Mail sent over SMTP from a process of its own, while the service reads and processes mail.

The SMTP conversation (the commands and replies, each message's bytes on the wire, the event
loop around them) is Python work that holds the interpreter lock: in a burst of order mail
it took about a tenth of the service's process, beside the intake. So ``adjudicate serve``
hands it to a sender process when the machine has more than one core (``service.workers``),
as it hands the reading of mail to a reader (``reader_process.py``). Only the conversation moves:
the service claims each batch of the outbox and records how each mail went as before
(``notify/outbox.py``), so when a mail counts as sent, and what is sent again after a crash,
do not change. The process keeps its SMTP connections (``smtp.connections``) open from batch
to batch.

A sender process that dies, or has not answered within ``batch_timeout``, is given up: the
batch is sent over connections of the service's own, and so is every batch until a new process
starts, ``RESTART_SECONDS`` later. A mail the lost process had handed to the server before it
was lost then goes twice: at least once, as after a crash of the service.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from adjudicator.base.logs import configure_logging
from adjudicator.mail.smtp import SendResult, SmtpSender, SmtpSettings
from adjudicator.notify.outbox import Envelope, Lanes
from adjudicator.serve.child_processes import Helper
from adjudicator.serve.garbage_collection import settle

log = logging.getLogger("adjudicator.sending")

RESTART_SECONDS = 60.0
"""After a sender process was lost, mail is sent by the service itself for this long, so that
a process that cannot start is not started again for every batch."""

_loop: asyncio.AbstractEventLoop | None = None
_lanes: Lanes | None = None


def _start_sender(settings: SmtpSettings, connections: int, logging_: tuple[str, str, str]) -> None:
    global _loop, _lanes  # noqa: PLW0603 - one sender's connections per process
    log_format, level, log_file = logging_
    configure_logging(log_format=log_format, level=level, log_file=log_file)
    _loop = asyncio.new_event_loop()
    _lanes = Lanes([SmtpSender(settings) for _ in range(connections)])
    settle()


def _ready() -> bool:
    return _lanes is not None


def _send(envelopes: list[Envelope]) -> list[SendResult]:
    assert _loop is not None, "a sender is started with its settings"
    assert _lanes is not None
    return _loop.run_until_complete(_lanes.send_batch(envelopes))


def _close() -> None:
    """Say goodbye (QUIT) on every connection."""
    if _loop is not None and _lanes is not None:
        _loop.run_until_complete(_lanes.close())


class SenderProcess:
    """A sender process (see the module's docstring): an ``outbox.BatchSender``. Used from one
    event loop."""

    def __init__(
        self,
        settings: SmtpSettings,
        *,
        connections: int,
        log_format: str = "text",
        log_file: str = "",
    ) -> None:
        if settings.tls_context is not None:
            raise ValueError("a sender process verifies TLS with the system's defaults only")
        level = logging.getLevelName(logging.getLogger().getEffectiveLevel()).lower()
        self.settings, self.connections = settings, max(1, connections)
        self.helper = Helper(
            name="the sender process",
            instead="the service sends the mail itself, and starts a new sender",
            initializer=_start_sender,
            initargs=(settings, self.connections, (log_format, level, log_file)),
            ready=_ready,
            restart=lambda: RESTART_SECONDS,
            logger=log,
        )
        self.local = Lanes([SmtpSender(settings) for _ in range(self.connections)])
        """The service's own connections, opened only while there is no process to send."""
        self.batches_sent = 0
        """Batches the process sent (for tests and figures)."""
        self.helper.started()

    @property
    def pool(self) -> ProcessPoolExecutor | None:
        return self.helper.pool

    def batch_timeout(self, mails: int) -> float:
        """Seconds a batch may take in the process: a connection and each of its share of the
        batch may each take the SMTP timeout, and one more."""
        return self.settings.timeout * (2 + math.ceil(mails / self.connections))

    def ready(self) -> bool:
        """Whether the process is up and takes mail now."""
        return self.helper.started() is not None

    async def send_batch(self, envelopes: Sequence[Envelope]) -> list[SendResult]:
        """Send the batch from the process, or over the service's own connections while there
        is none (or when it is lost on this batch)."""
        pool = self.helper.started()
        if pool is not None:
            timeout = self.batch_timeout(len(envelopes))
            try:
                handed = asyncio.wrap_future(pool.submit(_send, list(envelopes)))
                results = await asyncio.wait_for(handed, timeout)
            except TimeoutError:
                why = f"the sender process took over {timeout:g} s for a batch"
                self.helper.lost(pool, why)
            except Exception as error:  # died (BrokenProcessPool), or could not send it back
                why = f"the sender process failed ({type(error).__name__}: {error})"
                self.helper.lost(pool, why)
            else:
                self.batches_sent += 1
                return results
        return await self.local.send_batch(envelopes)

    async def close(self) -> None:
        """Close every connection, the process's (after the batch in hand) and the service's."""
        pool = self.helper.stop()
        if pool is not None:
            try:
                await asyncio.wait_for(asyncio.wrap_future(pool.submit(_close)), 30)
            except Exception as error:  # lost meanwhile: its connections went with it
                log.debug("the sender process did not close its connections: %r", error)
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
        await self.local.close()
