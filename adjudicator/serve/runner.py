"""``adjudicate serve``: the service's main loop.

Mail comes in from the Maildir folder (always) and the IMAP folder (when configured, in a thread
of its own, with IDLE); each message is stored, then processed. Deadlines close rounds on the
scheduler. The outbox is drained after every intake and every closing, and every second anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.exc import OperationalError

from adjudicator.base.logs import reopen
from adjudicator.mail.imap import ImapPoller, ImapSettings
from adjudicator.mail.maildir import MaildirReader, ensure_maildir
from adjudicator.mail.maildir_watch import watch_deliveries
from adjudicator.mail.smtp import LocalMaildirSender, SmtpSender, SmtpSettings
from adjudicator.mail.source import BatchHandler, MailSource
from adjudicator.notify.context import Follower
from adjudicator.notify.mail import MailChannel
from adjudicator.notify.outbox import BatchSender, Lanes
from adjudicator.serve.archiving import ArchiveKeeper
from adjudicator.serve.garbage_collection import settle
from adjudicator.serve.lanes import RETRY_SECONDS as LANE_RETRY_SECONDS
from adjudicator.serve.lanes import Lane
from adjudicator.serve.metrics import Metrics
from adjudicator.serve.reader_process import MailReaders
from adjudicator.serve.scheduler import DeadlineScheduler
from adjudicator.serve.sending import SenderProcess
from adjudicator.serve.systemd import Notifier
from adjudicator.serve.workers import RoundWorkers, worker_count
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.digests import send_due_digests
from adjudicator.storage.cursors import DatabaseCursorStore
from adjudicator.storage.db import unavailable

log = logging.getLogger("adjudicator.serve")
ZERO = timedelta(0)
SERVING = "reading mail, deadlines planned"
"""What ``systemctl status`` shows while the service is well (systemd's ``STATUS=``)."""
TICK_SECONDS = 1.0
ARCHIVE_SECONDS = 10.0
ARCHIVE_DEFER_SECONDS = 60.0
QUIET_SECONDS = 2.0
PENDING_SECONDS = 30.0
"""How often the main loop looks for mail stored but not processed (``App.process_pending``)."""
RETRY_SECONDS = LANE_RETRY_SECONDS
"""Waits after a turn that found the database locked (SQLite) or gone (PostgreSQL restarting),
one step longer each time in a row, the last repeated: the service waits it out instead of
exiting. A mail read meanwhile stays in its folder (or unflagged on the IMAP server) and is
read again. A lane of the outbox whose server is away waits as long (``lanes.py``)."""


def make_senders(app: App, *, own_process: bool = False) -> BatchSender:
    """The SMTP connections the outbox sends over at once (``smtp.connections``), kept by a
    sender process of their own when ``own_process`` (``sending.py``); or the local outbox
    Maildir when no SMTP host is set."""
    smtp = app.config.smtp
    if not smtp.host:
        folder = ensure_maildir(app.config.data_path / "outbox-maildir")
        log.info("no SMTP host configured: outgoing mail goes to %s", folder)
        return Lanes([LocalMaildirSender(folder)])
    tls = smtp.tls if smtp.tls in ("none", "starttls", "implicit") else "none"
    settings = SmtpSettings(
        host=smtp.host,
        port=smtp.port,
        tls=tls,  # type: ignore[arg-type]
        username=smtp.username,
        password=smtp.password,
    )
    connections = max(1, smtp.connections)
    if own_process:
        service = app.config.service
        return SenderProcess(
            settings,
            connections=connections,
            log_format=service.log_format,
            log_file=service.log_file,
        )
    return Lanes([SmtpSender(settings) for _ in range(connections)])


def make_imap_poller(
    app: App,
    wake: asyncio.Event,
    loop: asyncio.AbstractEventLoop,
    metrics: Metrics,
    readers: MailReaders | None = None,
) -> ImapPoller:
    settings = ImapSettings.of(app.config.imap)
    poller = ImapPoller(
        settings,
        cursors=DatabaseCursorStore(app.engine),
        # the sender wakes once per batch
        handle_batch=ingesting(
            app, ImapPoller.channel, then=lambda: loop.call_soon_threadsafe(wake.set)
        ),
        on_reconnect=metrics.imap_reconnects.inc,
        on_fetched=None if readers is None else readers.read_soon,
        on_login_refused=metrics.imap_login_failures.inc,
    )
    metrics.watch_intake(poller)
    return poller


def ingesting(app: App, channel: str, *, then: Callable[[], object] | None = None) -> BatchHandler:
    """The ``handle_batch`` of every source of mail: the batch stored and processed (one
    transaction for the batch), each mail as of its delivery on the service's clock; then
    ``then``."""

    def handle_batch(raws: list[bytes], delivered: Sequence[datetime | None]) -> None:
        app.ingest_batch(raws, channel=channel, arrived=_on_service_clock(app, delivered))
        if then is not None:
            then()

    return handle_batch


def _on_service_clock(app: App, delivered: Sequence[datetime | None]) -> list[datetime | None]:
    """When each mail was delivered (by the wall clock its mailbox was written by), on the
    service's clock: as long ago (a test's clock, or the demo's, is not the wall clock)."""
    now = datetime.now(UTC)
    return [None if at is None else app.clock() - max(now - at, ZERO) for at in delivered]


def make_maildir_reader(app: App) -> MaildirReader:
    """The reader of the service's Maildir: mail delivered there by a mail server (Dovecot's
    LDA, procmail) or by ``adjudicate receive`` (``pipe.py``), each as of its delivery time."""
    folder = ensure_maildir(Path(app.config.maildir_path))
    log.info("reading orders from the Maildir %s", folder)
    return MaildirReader(folder, handle_batch=ingesting(app, MaildirReader.channel))


class Service:
    """``adjudicate serve`` running: one asyncio loop that reads mail, closes rounds and sends
    what the service has to say, until SIGTERM or Ctrl-C (:meth:`request_stop`).

    :meth:`run` does, in order:

    1. Recover: process the mail stored but not processed before a restart (``_recover``).
    2. Start its helpers: worker processes that close due rounds and rebuild archive pages
       (``workers.py``), a reader process for incoming mail (``reader_process.py``) and a
       sender process for outgoing mail (``sending.py``), when the machine has several cores.
    3. Catch up: read the Maildir and the IMAP folder before any round that came due while the
       service was down is closed, while the answers to that mail go out (``_catch_up``).
    4. Serve: the IMAP folder in a thread of its own, deadlines on the scheduler, the Maildir
       watched for deliveries; each turn of the main loop (``_turn``) reads the Maildir, sends
       what is due, reports the rounds whose last orders came in and, now and then, processes
       mail left unprocessed; then the archive pages are kept current (``_keep_archive``) and
       systemd's watchdog and the health check are told the loop is alive (``_alive``). A turn
       starts each second, or at once when something wakes it (``wake``: a delivery, an IMAP
       batch, a round closed or reported).
    5. Stop: the scheduler first, then the rounds and archive pass in hand finish, the readers
       stop after their batch, and the senders close.

    A database or SMTP server that goes away is waited out with growing pauses
    (:data:`RETRY_SECONDS`), never a reason to exit. ``run(once=True)`` is one pass of all of
    it in this process (reading, the sweep of due rounds, sending, the archive), for
    ``adjudicate serve --once`` and the tests.
    """

    def __init__(self, app: App) -> None:
        self.app = app
        self.stop = asyncio.Event()
        self.wake = asyncio.Event()
        self.archive = ArchiveKeeper(app.engine, app.config, authority=app.ctx.identity.domain)
        self._archiving: asyncio.Future[list[str]] | None = None
        self._archived_at = self._sent_at = -ARCHIVE_DEFER_SECONDS
        self._reporting: asyncio.Future[Any] | None = None
        self._to_report = False
        self._swept_at = time.monotonic()
        self._maildir_read_at = 0.0  # monotonic
        self.metrics = Metrics(app.engine, clock=app.clock, limits=app.config.health)
        self._unfed = ""  # why the watchdog is not fed, once said; "" while it is
        self.systemd = Notifier()
        self.sources: list[MailSource] = []
        """Where mail comes in from: the Maildir, read by the main loop, and the IMAP folder
        when one is configured (``poller``), read by a thread of its own."""
        self.poller: ImapPoller | None = None
        self.readers: MailReaders | None = None

    def request_stop(self) -> None:
        """SIGTERM or Ctrl-C: finish the mail or the round in hand, then stop."""
        self.stop.set()
        for source in self.sources:
            source.stop()

    def _keep_archive(self) -> None:
        """Rebuild the archive pages of games with new results: in a thread, one pass at a time,
        at most every ``ARCHIVE_SECONDS`` (a burst of results is archived in a few passes).
        While mail is going out (some sent in the last ``QUIET_SECONDS``), the pages wait for
        it, up to ``ARCHIVE_DEFER_SECONDS``: the players' mail first, the pages after."""
        loop = asyncio.get_running_loop()
        if self._archiving is not None and not self._archiving.done():
            return
        since = loop.time() - self._archived_at
        sending = loop.time() - self._sent_at < QUIET_SECONDS
        if since < ARCHIVE_SECONDS or (sending and since < ARCHIVE_DEFER_SECONDS):
            return
        self._archived_at = loop.time()
        archiving = asyncio.ensure_future(asyncio.to_thread(self.archive.run_once))
        archiving.add_done_callback(_archive_failed)
        self._archiving = archiving

    def _report_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        """A batch of mail was processed: rounds may have their last orders in (called from
        the thread reading the mail)."""
        self._to_report = True
        self._wake_from(loop)

    def _wake_from(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wake the main loop from another thread. A deadline job that ends while the service
        stops finds the loop closed: nothing is lost, the next start reports what it closed."""
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self.wake.set)

    def _report(self, workers: RoundWorkers | None) -> None:
        """Close the rounds whose last orders came in and report them: one pass at a time, in a
        worker process (or a thread), while the mail goes on being read."""
        if not self._to_report or (self._reporting is not None and not self._reporting.done()):
            return
        self._to_report = False
        now = self.app.clock()
        reporting: asyncio.Future[Any] = asyncio.ensure_future(
            asyncio.to_thread(workers.report_waiting, now)
            if workers is not None
            else asyncio.to_thread(self.app.report)
        )
        reporting.add_done_callback(self._reported)
        self._reporting = reporting

    def _reported(self, reporting: asyncio.Future[Any]) -> None:
        error = None if reporting.cancelled() else reporting.exception()
        if isinstance(error, OperationalError):  # said once a turn by the main loop's wait
            log.warning("reporting rounds waits, database unavailable: %s", unavailable(error))
        elif error is not None:
            log.error("reporting rounds failed (the sweeper retries)", exc_info=error)
        self.wake.set()  # the results to send

    async def _finish_rounds(
        self, scheduler: DeadlineScheduler, workers: RoundWorkers | None
    ) -> None:
        """Plan no more; let a report pass and the rounds in hand finish; stop the workers."""
        scheduler.shutdown()
        self.app.report_later = None
        if self._reporting is not None:
            await asyncio.gather(self._reporting, return_exceptions=True)
        if workers is not None:
            await asyncio.to_thread(workers.shutdown)

    def _workers(self, *, once: bool) -> RoundWorkers | None:
        """The worker processes that close due rounds (``service.workers``), when there are
        several cores to use and the service runs on (``--once`` closes rounds by the sweep)."""
        count = worker_count(self.app.config.service.workers)
        if once or count < 2:
            return None
        log.info("due rounds are closed by %d worker processes", count)
        return RoundWorkers(self.app.config, count)

    async def _stop_reading(
        self,
        poller: ImapPoller | None,
        imap_thread: threading.Thread | None,
        readers: MailReaders | None,
    ) -> None:
        """Stop the IMAP reader (after the batch in hand), then the reader process."""
        if poller is not None:
            poller.stop()
        if imap_thread is not None:
            await asyncio.to_thread(imap_thread.join, 10)
        if readers is not None:
            self.app.read_ahead = None
            await asyncio.to_thread(readers.shutdown)

    def _readers(self, *, once: bool) -> MailReaders | None:
        """The process that reads the mail while the service stores it (``reader_process.py``),
        when there are several cores to use and the service runs on."""
        service = self.app.config.service
        if once or worker_count(service.workers) < 2:
            return None
        readers = MailReaders(
            own_addresses=self.app.ctx.own_addresses,
            max_bytes=self.app.ctx.max_bytes,
            log_format=service.log_format,
            log_file=service.log_file,
        )
        self.app.read_ahead = readers.read_ahead
        return readers

    async def _drain(
        self,
        lanes: Sequence[Lane],
        meanwhile: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        """Send what is due in every channel's lane, mail first (``lanes.py``): each lane
        waits for its own server with its own backoff (the mails keep their place and their
        attempts), and never holds the others back. ``meanwhile``: awaited between two
        batches of the mail lane's pass (``outbox.send_due``)."""
        for lane in lanes:
            mail = lane.channel == "mail"
            sent = await lane.drain(
                self.app.engine,
                bounce_address=self.app.config.service.address,
                now=self.app.clock,
                on_recorded=self.metrics.confirmations_sent if mail else None,
                meanwhile=meanwhile if mail else None,
                on_refused=self.app.tell_refused,
                on_away=self.metrics.smtp_retries.inc if mail else None,
            )
            if sent:
                log.info("sent %d %s", sent, "mail(s)" if mail else f"notice(s) by {lane.channel}")
                self._sent_at = asyncio.get_running_loop().time()

    def _lanes(self, *, once: bool) -> list[Lane]:
        """A lane of the outbox for each channel: mail over the SMTP connections (a sender
        process of their own when the service runs on with several cores to use), each other
        channel by its own sender (``Channel.sender``)."""
        workers = worker_count(self.app.config.service.workers)
        mail = MailChannel(
            senders=lambda: make_senders(self.app, own_process=not once and workers > 1)
        )
        return [
            Lane(
                c.name,
                c.sender(),
                give_up=c.give_up_after if isinstance(c, Follower) else None,
            )
            for c in (mail, *self.app.ctx.channels)
        ]

    async def _pending(self) -> None:
        """Process mail stored but left unprocessed: after a crash between storing and
        processing, or a database that went away in between."""
        recovered = await asyncio.to_thread(self.app.process_pending)
        if recovered:
            log.info("processed %d mail(s) stored but not processed", recovered)

    async def _turn(
        self, lanes: Sequence[Lane], maildir: MaildirReader, workers: RoundWorkers | None
    ) -> None:
        await self._read_maildir(maildir, workers)
        await self._drain(
            lanes, meanwhile=lambda: self._read_maildir(maildir, workers, TICK_SECONDS)
        )
        if time.monotonic() - self._swept_at > PENDING_SECONDS:
            self._swept_at = time.monotonic()
            await self._pending()

    async def _read_maildir(
        self, maildir: MaildirReader, workers: RoundWorkers | None, every: float = 0.0
    ) -> None:
        """Read the Maildir (unless it was read less than ``every`` seconds ago), then report
        the rounds its mail completed. Also between two batches of a send pass: a deadline's
        burst of results takes a while to send, and a player who writes meanwhile is
        answered in the pass, not after it."""
        if time.monotonic() - self._maildir_read_at < every:
            return
        await asyncio.to_thread(maildir.run_once)
        self._maildir_read_at = time.monotonic()
        self._report(workers)

    async def _wait_out(self, error: OperationalError, failures: int) -> None:
        """The database is locked or away: say so, count it, wait (unless stopping)."""
        pause = RETRY_SECONDS[min(failures, len(RETRY_SECONDS)) - 1]
        log.warning(
            "database unavailable (%s); trying again in %.0f s (%d in a row)",
            unavailable(error),
            pause,
            failures,
        )
        self.metrics.database_retries.inc()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), timeout=pause)

    async def _catch_up(self) -> None:
        """Before any round that came due while the service was down is closed, read the mail
        that came meanwhile from every source: orders that reached the Maildir or the IMAP
        folder before their deadline count (judged by their delivery time). The IMAP folder's
        own thread starts after this pass."""
        for source in self.sources:
            try:
                await asyncio.to_thread(source.run_once)
            except Exception as error:  # the server away, say: it is read again later
                log.warning(
                    "reading the %s mail before closing due rounds failed: %s",
                    source.channel,
                    error,
                )

    async def _sending_while(
        self,
        work: Coroutine[Any, Any, None],
        lanes: Sequence[Lane],
        workers: RoundWorkers | None,
    ) -> None:
        """Do ``work`` (the first reading of the mailboxes, which may hold a day's mail) while
        the answers to what it reads, and the results of the rounds it closes early, go out:
        a player who wrote while the service was down hears back as soon as his mail is
        read, not after the last of the backlog."""
        working = asyncio.ensure_future(work)
        while not working.done():
            self.wake.clear()
            waking = asyncio.ensure_future(self.wake.wait())
            await asyncio.wait(
                {working, waking}, timeout=TICK_SECONDS, return_when=asyncio.FIRST_COMPLETED
            )
            waking.cancel()
            try:
                self._report(workers)
                await self._drain(lanes)
            except OperationalError as error:  # the main loop waits the database out
                log.warning("sending during the first reading waits: %s", unavailable(error))
        await working

    async def _recover(self, *, once: bool) -> None:
        """Process what was stored before a restart; wait for the database if it is away."""
        failures = 0
        while not self.stop.is_set():
            try:
                await self._pending()
                return
            except OperationalError as error:
                if once:
                    raise
                failures += 1
                await self._wait_out(error, failures)

    async def _serve(
        self, lanes: Sequence[Lane], maildir: MaildirReader, workers: RoundWorkers | None
    ) -> None:
        """Turn after turn until stopped; a locked or unreachable database is waited out."""
        failures = 0
        while not self.stop.is_set():
            # Cleared before the turn, not after it: what wakes the loop during a turn (a
            # delivery, an IMAP batch, a round reported) starts the next turn at once.
            self.wake.clear()
            try:
                await self._turn(lanes, maildir, workers)
                failures = 0
            except OperationalError as error:
                failures += 1
                self._alive()  # waiting on purpose: not wedged
                await self._wait_out(error, failures)
                continue
            self._keep_archive()
            self._alive()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wait_any(), timeout=TICK_SECONDS)

    async def run(self, *, once: bool = False) -> None:
        loop = asyncio.get_running_loop()
        await self._recover(once=once)
        maildir = make_maildir_reader(self.app)
        self.sources = [maildir]
        lanes = self._lanes(once=once)

        workers = self._workers(once=once)
        if workers is not None:
            self.archive.builder = workers.archive_game
        readers = self.readers = self._readers(once=once)
        if not once:
            self.app.report_later = lambda: self._report_soon(loop)
        scheduler = DeadlineScheduler(
            self.app,
            on_closed=lambda _: self._wake_from(loop),
            workers=workers,
            on_digests=lambda: self._wake_from(loop),
        )
        imap_thread = None
        poller = None
        watching: asyncio.Future[None] | None = None
        if self.app.config.imap.host:
            poller = self.poller = make_imap_poller(
                self.app, self.wake, loop, self.metrics, readers
            )
            self.sources.append(poller)
        try:
            if once:
                for source in self.sources:
                    await asyncio.to_thread(source.run_once)
                await asyncio.to_thread(
                    sweep, self.app.engine, ctx=self.app.ctx, now=self.app.clock()
                )
                await asyncio.to_thread(
                    send_due_digests, self.app.engine, ctx=self.app.ctx, now=self.app.clock()
                )
                await self._drain(lanes)
                await asyncio.to_thread(self.archive.run_once)
                return
            await self._sending_while(self._catch_up(), lanes, workers)
            if poller is not None:
                imap_thread = threading.Thread(target=poller.run_forever, name="imap", daemon=True)
                imap_thread.start()
            scheduler.start()
            watching = asyncio.ensure_future(
                watch_deliveries(maildir.maildir, stop=self.stop, on_delivery=self._delivered)
            )
            log.info("deadlines planned; serving")
            self.systemd.ready(SERVING)
            await self._serve(lanes, maildir, workers)
        finally:
            self.systemd.stopping()
            # An archive pass ends after its game (its worker finishes it before stopping);
            # the pages left out are built on the next start.
            self.archive.stopping.set()
            await self._finish_rounds(scheduler, workers)
            if self._archiving is not None:
                await asyncio.gather(self._archiving, return_exceptions=True)
            if watching is not None:
                # It ends by itself once stop is set; this is for an exit by an exception
                # (watchfiles then sets stop itself).
                watching.cancel()
                await asyncio.gather(watching, return_exceptions=True)
            await self._stop_reading(poller, imap_thread, readers)
            for lane in lanes:
                await lane.close()

    def _delivered(self) -> None:
        """Mail was delivered into the Maildir: read it now, not at the next tick (also between
        two batches of a send pass)."""
        self._maildir_read_at = 0.0
        self.wake.set()

    def _alive(self) -> None:
        """One turn of the main loop is done: tell the health check, and systemd's watchdog
        while the IMAP reader is alive too. A reader wedged in a silent IDLE, or one that has
        not read for ``[health] intake_seconds`` (the server away, the login refused), stops
        the pings, and systemd restarts the service (``WatchdogSec=``): a restart is a new
        connection, a new login with the configuration read again."""
        self.metrics.loop_turned()
        watchdog = self.systemd.watchdog_seconds
        if watchdog is None:
            return
        why = self.metrics.intake_down()
        if why is None and self.poller is not None:
            silent = time.monotonic() - self.poller.heartbeat
            if silent > watchdog / 2:
                why = f"the IMAP reader has shown no sign of life for {silent:.0f} s"
        if why is not None:
            if not self._unfed:
                log.error("%s; not pinging systemd's watchdog, which restarts the service", why)
                self.systemd.notify(f"STATUS=watchdog not fed: {why}")
            self._unfed = why
            return
        if self._unfed:
            log.info("the IMAP reader reads again; pinging systemd's watchdog again")
            self.systemd.notify(f"STATUS={SERVING}")
            self._unfed = ""
        self.systemd.watchdog()

    async def _wait_any(self) -> None:
        waiters = [asyncio.ensure_future(self.stop.wait()), asyncio.ensure_future(self.wake.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()


def _archive_failed(archiving: asyncio.Future[list[str]]) -> None:
    """A pass of the archive failed as a whole: said once; the next pass tries again."""
    if not archiving.cancelled() and archiving.exception() is not None:
        log.error("archive pass failed; trying again later", exc_info=archiving.exception())


def serve(app: App, *, once: bool = False) -> None:
    async def main() -> None:
        service = Service(app)
        loop = asyncio.get_running_loop()
        # SIGTERM (systemd's stop) and Ctrl-C end the loop after the step in hand: a mail being
        # processed or a round being closed finishes its transaction first.
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, service.request_stop)
        loop.add_signal_handler(signal.SIGHUP, reopen)  # logrotate moved the log file
        log.info("adjudicator serving (database %s)", app.engine.url.render_as_string())
        metrics = app.config.metrics
        server = None
        if metrics.port and not once:
            server = service.metrics.serve(address=metrics.address, port=metrics.port)
            # CannotListen (the port is taken) ends the command with its one line (cli.py)
            log.info(
                "metrics at http://%s:%d/metrics, health at /healthz", metrics.address, server.port
            )
        try:
            await service.run(once=once)
        finally:
            if server is not None:
                server.close()
        log.info("stopped")

    if not once:
        settle()  # a long run: see garbage_collection.py
    asyncio.run(main())
