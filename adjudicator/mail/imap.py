"""The IMAP poller: fetches new mail from one folder and hands each raw message to the service.

Delivery is at least once, never at most once: ``handle`` stores the raw mail, and only after it
returns is the message marked handled (``$Adjudicated`` and ``\\Seen``, or moved to the
processed folder) and the cursor advanced. A crash in between delivers the message again; the
service drops the copy by its content digest.

The cursor is ``(UIDVALIDITY, last UID)`` per mailbox, kept by the caller (a ``CursorStore``).
When the server's UIDVALIDITY differs from the stored one, every UID we knew is void: the folder
is scanned again from the start, skipping what carries ``$Adjudicated``.

imapclient is synchronous, so the loop is too: run it in a thread of its own and call ``stop()``
from any other thread.

A pass with several batches fetches each batch before it hands over the one before, and shows
it to ``on_fetched`` as it comes: work started there for the batch (reading its mail in
another process) runs while the batch before it is stored and processed. At most two batches
are held at once; a batch fetched but not handed over (the one before it failed) is simply
fetched again on the next pass.
"""

from __future__ import annotations

import imaplib
import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from ssl import SSLContext, SSLSocket
from typing import Any, Protocol
from urllib.parse import quote

from imapclient import DELETED, SEEN, IMAPClient
from imapclient.exceptions import LoginError

from adjudicator.base.config import ImapConfig
from adjudicator.mail.source import BatchHandler

log = logging.getLogger(__name__)

HANDLED_FLAG = b"$Adjudicated"

MessageHandler = Callable[[str, bytes], None]
"""``handle(ref, raw)``: store one raw message. ``ref`` names where it came from (an RFC 5092
IMAP URL here, ``maildir:...`` for a Maildir); it is for logs, not for deduplication."""

_Fetched = tuple[int, bytes, datetime | None]
"""A message fetched: its UID, its bytes and its INTERNALDATE (RFC 3501 2.3.3: when the server
delivered it; None when the server gave none), which ``handle_batch`` is given as its arrival
(``source.BatchHandler``). INTERNALDATE has whole seconds: a mail delivered within the second of
a deadline counts as in time."""

# Errors that mean "this connection is gone": reconnect. imaplib raises IMAP4.abort on EOF,
# BYE and garbled responses; socket errors, timeouts and TLS errors are all OSError.
CONNECTION_ERRORS: tuple[type[BaseException], ...] = (OSError, imaplib.IMAP4.abort)


class CursorStore(Protocol):
    """Where the poller keeps its place: the last handled UID under a UIDVALIDITY."""

    def get(self, mailbox: str) -> tuple[int, int] | None: ...

    def set(self, mailbox: str, uidvalidity: int, last_uid: int) -> None: ...


class MemoryCursorStore:
    """A CursorStore in a dict: for tests."""

    def __init__(self) -> None:
        self.cursors: dict[str, tuple[int, int]] = {}

    def get(self, mailbox: str) -> tuple[int, int] | None:
        return self.cursors.get(mailbox)

    def set(self, mailbox: str, uidvalidity: int, last_uid: int) -> None:
        self.cursors[mailbox] = (uidvalidity, last_uid)


class HandlerError(Exception):
    """``handle`` raised; the message stays unhandled and comes again on the next pass.
    The original exception is the ``__cause__``."""


@dataclass(frozen=True)
class ImapSettings:
    host: str
    username: str
    password: str
    port: int = 143
    ssl: bool = False  # implicit TLS (port 993)
    ssl_context: SSLContext | None = None  # None: the system's default verification
    folder: str = "INBOX"
    processed_folder: str = ""  # empty: handled mail stays, flagged $Adjudicated and \Seen
    poll_seconds: float = 15.0  # between passes without IDLE; with IDLE, a safety net
    batch_size: int = 50  # messages per FETCH: bounds the memory a pass holds
    timeout: float = 30.0  # connect and read timeout of every command
    idle_renew_seconds: float = 25 * 60  # RFC 2177: re-issue IDLE before 29 minutes
    backoff_initial: float = 1.0  # reconnect delays double from here...
    backoff_max: float = 300.0  # ...up to here
    use_idle: bool = True

    @classmethod
    def of(cls, imap: ImapConfig) -> ImapSettings:
        """The settings the configuration's ``[imap]`` table gives (the service and
        ``adjudicate doctor`` both take them from here)."""
        return cls(
            host=imap.host,
            port=imap.port,
            username=imap.username,
            password=imap.password,
            ssl=imap.ssl,
            folder=imap.folder,
            processed_folder=imap.processed_folder,
            poll_seconds=imap.poll_seconds,
        )

    @property
    def where(self) -> str:
        """The server, for people: ``user at host:port``."""
        return f"{self.username} at {self.host}:{self.port}"

    @property
    def mailbox(self) -> str:
        """The cursor key: who, where and which folder."""
        user = quote(self.username, safe="")
        return f"imap://{user}@{self.host}:{self.port}/{quote(self.folder, safe='')}"


def connect(settings: ImapSettings) -> IMAPClient:
    """Open a connection as the service does: implicit TLS when ``ssl``, otherwise plain text
    with no STARTTLS, whatever the server offers (``adjudicate doctor`` connects through here
    too, so that it tries exactly what the service will). Raises ``OSError`` when the server
    cannot be reached or the TLS handshake fails."""
    client = IMAPClient(
        settings.host,
        port=settings.port,
        ssl=settings.ssl,
        ssl_context=settings.ssl_context,
        timeout=settings.timeout,
    )
    client.normalise_times = False  # INTERNALDATE with its zone, not naive local time
    return client


def log_in(client: IMAPClient, settings: ImapSettings) -> None:
    """Log in; raises ``LoginError`` when the server refuses the user name or password."""
    client.login(settings.username, settings.password)


def login_fix(settings: ImapSettings) -> str:
    """What to do when the server refuses the service's login."""
    return (
        f"check imap.username ({settings.username!r}) and imap.password in the configuration "
        "(or ADJUDICATOR_IMAP_USERNAME / ADJUDICATOR_IMAP_PASSWORD) against the mail "
        "server's account (Dovecot: its passdb); after a password change, set the new one "
        "and restart the service"
    )


class ImapPoller:
    """Fetches new messages from ``settings.folder`` and passes them to ``handle``, or a FETCH
    batch at a time to ``handle_batch`` (a ``source.MailSource``).

    ``run_once()`` and ``run_forever()`` must not run at the same time; ``stop()`` may be
    called from any thread.
    """

    channel = "imap"

    def __init__(
        self,
        settings: ImapSettings,
        *,
        cursors: CursorStore,
        handle: MessageHandler | None = None,
        handle_batch: BatchHandler | None = None,
        on_reconnect: Callable[[], object] | None = None,
        on_fetched: Callable[[list[bytes]], object] | None = None,
        on_login_refused: Callable[[], object] | None = None,
    ) -> None:
        if (handle is None) == (handle_batch is None):
            raise ValueError("give handle (one message at a time) or handle_batch, not both")
        self.settings = settings
        self.cursors = cursors
        self.handle = handle
        self.handle_batch = handle_batch
        self._client: Any = None  # IMAPClient, logged in, folder selected
        self._unswept: Any = None  # the connection whose first pass still sweeps behind the cursor
        self._stop_event = threading.Event()
        self._wake: tuple[socket.socket, socket.socket] | None = None
        self.idling = threading.Event()  # set while an IDLE is running (for health checks)
        self.on_reconnect = on_reconnect  # a lost connection is made again (for metrics)
        self.on_fetched = on_fetched  # a batch's mail, fetched (see the module's docstring)
        self.on_login_refused = on_login_refused  # the server refused the login (for metrics)
        self.heartbeat = time.monotonic()
        """When the loop last showed it was alive: at least every second while it waits, and
        after every pass. A loop wedged in a server's silence stops it (systemd's watchdog)."""
        self.read_at: float | None = None
        """When a pass last read the folder (``time.time()``), or None before the first."""
        self._failing_since: float | None = time.monotonic()
        """Since when (monotonic) no pass has succeeded: from the start until the first one,
        and from a failed pass until the next good one; None while passes succeed."""
        self.problem = "not connected yet"
        """Why the last pass failed, in the server's words (for the health check)."""
        self._failures = 0  # passes failed in a row
        self._refusals = 0  # logins refused in a row: said once, as an error

    # --- health ------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether a connection is open and logged in."""
        return self._client is not None

    def down_for(self) -> float:
        """How many seconds the intake has not been able to read: passes failing (the server
        away, the login refused), or the loop silent (wedged in a server's silence)."""
        now = time.monotonic()
        failing = 0.0 if self._failing_since is None else now - self._failing_since
        return max(failing, now - self.heartbeat)

    def _read(self) -> None:
        """A pass read the folder: the intake is alive."""
        self.heartbeat = time.monotonic()
        self.read_at = time.time()
        if self._failures:
            log.info(
                "IMAP %s: reading again after %d failed tries", self.settings.where, self._failures
            )
        self._failing_since = None
        self._failures = self._refusals = 0

    def _failed(self, error: Exception, delay: float) -> None:
        """A pass failed: say so (a refused login as an error with its fix, once a run of
        refusals; anything else as a warning with the retry), and count it."""
        if self._failing_since is None:
            self._failing_since = time.monotonic()
        self._failures += 1
        refused = isinstance(error, LoginError)
        self.problem = f"{'login refused: ' if refused else ''}{_said(error)}"
        if refused:
            self._refusals += 1
            if self.on_login_refused is not None:
                self.on_login_refused()
            if self._refusals == 1:
                log.error(
                    "IMAP login refused for %s: %s; no mail is read until it is fixed. Fix: %s",
                    self.settings.where,
                    _said(error),
                    login_fix(self.settings),
                )
            else:
                log.debug("IMAP login refused again (%d in a row)", self._refusals)
            return
        log.warning(
            "IMAP %s: %s; retrying in %.1fs",
            self.settings.mailbox,
            error,
            delay,
            # a traceback only for the unexpected: not for a server that is down or says
            # no, but for handle() and for bugs
            exc_info=not isinstance(error, (*CONNECTION_ERRORS, imaplib.IMAP4.error)),
        )

    # --- one pass ----------------------------------------------------------------------------

    def run_once(self) -> int:
        """Fetch and hand over every new message; return how many were handled.

        Connects when needed. If a kept-open connection turns out to be dead, reconnects once
        and tries again; errors on a fresh connection propagate. Raises ``HandlerError`` when
        ``handle`` fails, after marking what was handled before it.
        """
        reused = self._client is not None
        try:
            handled = self._fetch_new(self._connected())
        except CONNECTION_ERRORS as error:
            self._disconnect(logout=False)
            if not reused:
                raise
            log.info("IMAP connection lost (%s); reconnecting", error)
            if self.on_reconnect is not None:
                self.on_reconnect()
            handled = self._fetch_new(self._connected())
        self._read()
        return handled

    def _fetch_new(self, client: Any) -> int:
        uidvalidity = int(client.select_folder(self.settings.folder)[b"UIDVALIDITY"])
        last_uid = self._last_uid(uidvalidity)
        if self._unswept is client:
            self._sweep_behind_cursor(client, last_uid)
            self._unswept = None
        # "UID n:*" always matches the highest UID even when it is below n (RFC 3501 6.4.8),
        # so the filter on uid > last_uid is ours to do.
        found = client.search(["UID", f"{last_uid + 1}:*", "UNKEYWORD", HANDLED_FLAG])
        uids = sorted(uid for uid in found if uid > last_uid)
        handled = 0
        batches = list(_batches(uids, self.settings.batch_size))
        coming = self._fetch(client, batches[0]) if batches else []
        for n in range(len(batches)):
            present = coming
            # The next batch first (see the module's docstring); the same bytes are handed over.
            coming = self._fetch(client, batches[n + 1]) if n + 1 < len(batches) else []
            handled += self._deliver(client, present, uidvalidity=uidvalidity)
        if handled:
            log.info("IMAP %s: handled %d new messages", self.settings.mailbox, handled)
        return handled

    def _sweep_behind_cursor(self, client: Any, last_uid: int) -> None:
        """Mark handled what the cursor has passed but the flags never reached: the service was
        killed, or the connection lost, between the cursor and the STORE (``_handled``). Those
        mails were stored before the cursor moved, so they are marked, not delivered again.
        Once per connection: a new process or a reconnection is where that can have happened."""
        if last_uid < 1:
            return
        found = client.search(["UID", f"1:{last_uid}", "UNKEYWORD", HANDLED_FLAG])
        behind = sorted(uid for uid in found if uid <= last_uid)
        if behind:
            log.info(
                "IMAP %s: %d message(s) stored before but not yet marked handled; marking them",
                self.settings.mailbox,
                len(behind),
            )
            self._mark_handled(client, behind)

    def _last_uid(self, uidvalidity: int) -> int:
        """The cursor under the server's UIDVALIDITY; on a change, restart from 0 (a rescan:
        mail already flagged $Adjudicated is skipped by the search, the rest is delivered
        again and the service's digest dedupe drops what it had)."""
        mailbox = self.settings.mailbox
        cursor = self.cursors.get(mailbox)
        if cursor is not None and cursor[0] == uidvalidity:
            return cursor[1]
        if cursor is not None:
            log.warning(
                "IMAP %s: UIDVALIDITY changed from %d to %d; rescanning the folder",
                mailbox,
                cursor[0],
                uidvalidity,
            )
        self.cursors.set(mailbox, uidvalidity, 0)
        return 0

    def _fetch(self, client: Any, uids: Sequence[int]) -> list[_Fetched]:
        fetched = client.fetch(list(uids), [b"BODY.PEEK[]", b"INTERNALDATE"])
        present = [
            (uid, bytes(raw), _delivered(fetched[uid].get(b"INTERNALDATE")))
            for uid in uids
            if (raw := fetched.get(uid, {}).get(b"BODY[]")) is not None
        ]  # a message expunged by someone else since the SEARCH is simply gone
        if present and self.on_fetched is not None:
            self.on_fetched([raw for _, raw, _ in present])
        return present

    def _deliver(self, client: Any, present: list[_Fetched], *, uidvalidity: int) -> int:
        if self.handle_batch is not None:
            return self._deliver_batch(client, present, uidvalidity=uidvalidity)
        assert self.handle is not None
        handled: list[int] = []
        try:
            for uid, raw, _ in present:
                try:
                    self.handle(self._ref(uidvalidity, uid), raw)
                except Exception as error:
                    raise HandlerError(f"handling IMAP UID {uid} failed: {error!r}") from error
                handled.append(uid)
        finally:
            if handled:
                self._handled(client, handled, uidvalidity=uidvalidity)
        return len(handled)

    def _deliver_batch(self, client: Any, present: list[_Fetched], *, uidvalidity: int) -> int:
        if not present:
            return 0
        assert self.handle_batch is not None
        try:
            self.handle_batch([raw for _, raw, _ in present], [at for _, _, at in present])
        except Exception as error:
            first, last = present[0][0], present[-1][0]
            raise HandlerError(f"handling IMAP UIDs {first}-{last} failed: {error!r}") from error
        self._handled(client, [uid for uid, _, _ in present], uidvalidity=uidvalidity)
        return len(present)

    def _handled(self, client: Any, uids: list[int], *, uidvalidity: int) -> None:
        # The cursor first: it is ours and durable. If the server goes away before the flags
        # are stored, the cursor still keeps these UIDs from coming again (only a UIDVALIDITY
        # rescan would, and the digest dedupe drops those), and the next connection's first
        # pass marks them (``_sweep_behind_cursor``).
        self.cursors.set(self.settings.mailbox, uidvalidity, uids[-1])
        self._mark_handled(client, uids)

    def _mark_handled(self, client: Any, uids: list[int]) -> None:
        client.add_flags(uids, [SEEN, HANDLED_FLAG], silent=True)
        target = self.settings.processed_folder
        if not target:
            return
        if client.has_capability("MOVE"):
            client.move(uids, target)
            return
        # RFC 6851 fallback: copy, flag deleted, expunge just these (UIDPLUS) or all deleted.
        client.copy(uids, target)
        client.add_flags(uids, [DELETED], silent=True)
        if client.has_capability("UIDPLUS"):
            client.uid_expunge(uids)
        else:
            client.expunge()

    def _ref(self, uidvalidity: int, uid: int) -> str:
        return f"{self.settings.mailbox};UIDVALIDITY={uidvalidity}/;UID={uid}"

    # --- connection --------------------------------------------------------------------------

    def _connected(self) -> Any:
        if self._client is not None:
            return self._client
        s = self.settings
        client = connect(s)
        try:
            log_in(client, s)
            if s.processed_folder and not client.folder_exists(s.processed_folder):
                client.create_folder(s.processed_folder)
        except BaseException:
            _quietly(client.shutdown)
            raise
        self._client = client
        self._unswept = client
        log.debug("IMAP %s: connected", s.mailbox)
        return client

    def _disconnect(self, *, logout: bool) -> None:
        client, self._client = self._client, None
        if client is not None:
            _quietly(client.logout if logout else client.shutdown)

    def close(self) -> None:
        """Log out (after ``run_once``; ``run_forever`` does it on its own when stopped)."""
        self._disconnect(logout=True)

    # --- the loop ----------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask ``run_forever`` to return: at once while it waits, else after the current pass."""
        self._stop_event.set()
        wake = self._wake
        if wake is not None:
            _quietly(lambda: wake[1].send(b"x"))

    def run_forever(self, stop_event: threading.Event | None = None) -> None:
        """Fetch, wait for news (IDLE, or a poll interval), fetch again, until stopped.

        ``stop_event`` (optional) stops the loop when set, like ``stop()``; without ``stop()``
        it is noticed within a second. Connection errors and failures of ``handle`` are logged
        and retried after a delay that doubles up to ``backoff_max``.
        """
        if stop_event is not None:
            if self._stop_event.is_set():
                stop_event.set()  # stop() came first
            self._stop_event = stop_event
        self._wake = socket.socketpair()
        for end in self._wake:
            end.setblocking(False)
        delay = self.settings.backoff_initial
        try:
            while not self._stop_event.is_set():
                try:
                    handled = self.run_once()
                    delay = self.settings.backoff_initial
                    # Mail that arrived during the pass was announced (EXISTS) in the middle of
                    # its FETCH or STORE, where nobody listens, and the next IDLE will not
                    # repeat it: after a pass that found mail, look again before waiting.
                    if not handled:
                        self._wait_for_news()
                except Exception as error:
                    if self._stop_event.is_set():
                        break
                    self._failed(error, delay)
                    self._disconnect(logout=False)
                    if self.on_reconnect is not None and isinstance(error, CONNECTION_ERRORS):
                        self.on_reconnect()
                    self._sleep(delay)
                    delay = min(delay * 2, self.settings.backoff_max)
        finally:
            self._disconnect(logout=True)
            for end in self._wake:
                end.close()
            self._wake = None

    def _wait_for_news(self) -> None:
        client = self._connected()
        if self.settings.use_idle and client.has_capability("IDLE"):
            self._idle(client)
        else:
            self._sleep(self.settings.poll_seconds)

    def _idle(self, client: Any) -> None:
        """IDLE until the folder has new mail, ``poll_seconds`` have passed, or we stop.

        Ending the IDLE after ``poll_seconds`` (at the latest after ``idle_renew_seconds``,
        RFC 2177's 29 minutes) is a safety net: Dovecot does not report mail that arrived
        between our last command and the start of the IDLE; the next pass finds it.
        """
        client.idle()
        self.idling.set()
        s = self.settings
        renew_at = time.monotonic() + min(s.idle_renew_seconds, s.poll_seconds)
        try:
            while not self._stop_event.is_set():
                if not self._sleep(renew_at - time.monotonic(), client.socket()):
                    return  # stop, or time to re-issue the IDLE
                responses = client.idle_check(timeout=0)
                if any(r and r[0] == b"BYE" for r in responses):
                    raise imaplib.IMAP4.abort(f"server said BYE: {responses}")
                if not responses or any(len(r) > 1 and r[1] == b"EXISTS" for r in responses):
                    # No line although readable: EOF, most likely; idle_done will tell.
                    return
        finally:
            self.idling.clear()
            client.idle_done()

    def _sleep(self, seconds: float, sock: socket.socket | None = None) -> bool:
        """Wait up to ``seconds``; True as soon as ``sock`` has data, False on timeout or stop."""
        deadline = time.monotonic() + seconds
        with selectors.DefaultSelector() as selector:
            if self._wake is not None:
                selector.register(self._wake[0], selectors.EVENT_READ)
            if sock is not None:
                selector.register(sock, selectors.EVENT_READ)
            while not self._stop_event.is_set():
                self.heartbeat = time.monotonic()
                if isinstance(sock, SSLSocket) and sock.pending():
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                # Wake at least every second: a bare stop_event.set() has no wake-up call.
                for key, _ in selector.select(min(remaining, 1.0)):
                    if key.fileobj is sock:
                        return True
                    _quietly(lambda: self._wake[0].recv(64) if self._wake else b"")
        return False


def _said(error: BaseException) -> str:
    """What an error said, on one line, without the ``b'...'`` imapclient wraps a server's
    reply in."""
    text = (str(error).strip() or type(error).__name__).splitlines()[0]
    if len(text) > 3 and text[:2] in ("b'", 'b"') and text[-1] == text[1]:
        text = text[2:-1]
    return text[:200]


def _batches(uids: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    for start in range(0, len(uids), size):
        yield uids[start : start + size]


def _quietly(action: Callable[[], object]) -> None:
    """Run a clean-up step whose failure only means the connection was already gone."""
    try:
        action()
    except Exception as error:
        log.debug("ignored during clean-up: %r", error)


def _delivered(moment: object) -> datetime | None:
    """An INTERNALDATE as IMAPClient parsed it (aware, ``normalise_times`` off), or None."""
    if isinstance(moment, datetime) and moment.tzinfo is not None:
        return moment
    return None
