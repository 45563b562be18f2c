"""The IMAP poller against a real Dovecot (tests/mailservers.py)."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from imapclient import IMAPClient
from imapclient.exceptions import LoginError
from mailservers import Dovecot, running_dovecot

from adjudicator.mail.imap import (
    HANDLED_FLAG,
    HandlerError,
    ImapPoller,
    ImapSettings,
    MemoryCursorStore,
)


def message(n: int, subject: str = "orders") -> bytes:
    return (
        f"From: Player {n} <p{n}@example.org>\r\n"
        f"To: judge@example.org\r\n"
        f"Subject: {subject} {n}\r\n"
        f"Message-ID: <m{n}-{time.monotonic_ns()}@example.org>\r\n"
        f"\r\n"
        f"A PAR - BUR ({n})\r\n"
    ).encode()


class Inbox:
    """The ``handle`` callback: keeps what it is given, optionally failing on a subject."""

    def __init__(self) -> None:
        self.refs: list[str] = []
        self.raws: list[bytes] = []
        self.fail_on: bytes | None = None
        self.arrived = threading.Condition()

    def __call__(self, ref: str, raw: bytes) -> None:
        if self.fail_on is not None and self.fail_on in raw:
            raise RuntimeError("database is down")
        with self.arrived:
            self.refs.append(ref)
            self.raws.append(raw)
            self.arrived.notify_all()

    def wait_for(self, count: int, timeout: float) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.raws) >= count, timeout=timeout)


def settings(server: Dovecot, user: str, **overrides: Any) -> ImapSettings:
    base: dict[str, Any] = {
        "host": server.host,
        "port": server.port,
        "username": user,
        "password": server.password,
        "timeout": 5.0,
        "backoff_initial": 0.05,
        "backoff_max": 0.2,
    }
    return ImapSettings(**(base | overrides))


@pytest.fixture
def make_poller() -> Iterator[Callable[..., tuple[ImapPoller, Inbox, MemoryCursorStore]]]:
    pollers: list[ImapPoller] = []

    def make(server: Dovecot, user: str, **overrides: Any) -> tuple[ImapPoller, Inbox, Any]:
        inbox, cursors = Inbox(), MemoryCursorStore()
        poller = ImapPoller(settings(server, user, **overrides), cursors=cursors, handle=inbox)
        pollers.append(poller)
        return poller, inbox, cursors

    yield make
    for poller in pollers:
        poller.close()


class Background:
    """``run_forever`` in a thread; ``stop()`` joins it and re-raises what it raised."""

    def __init__(self, poller: ImapPoller) -> None:
        self.poller = poller
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.poller.run_forever()
        except BaseException as error:
            self.error = error

    def stop(self, timeout: float = 3.0) -> float:
        started = time.monotonic()
        self.poller.stop()
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "run_forever did not return after stop()"
        if self.error is not None:
            raise self.error
        return time.monotonic() - started


def flags_of(server: Dovecot, user: str, folder: str = "INBOX") -> dict[int, set[bytes]]:
    with server.client(user) as client:
        client.select_folder(folder, readonly=True)
        return {uid: set(flags) for uid, flags in client.get_flags(client.search()).items()}


def test_run_once_hands_over_each_new_message_once(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    sent = [message(n) for n in range(1, 6)]
    for raw in sent:
        dovecot.append(imap_user, raw)
    poller, inbox, cursors = make_poller(dovecot, imap_user, batch_size=2)

    assert poller.run_once() == 5
    assert inbox.raws == sent  # byte for byte, in UID order, over three FETCH batches
    assert poller.run_once() == 0
    assert len(inbox.raws) == 5

    flags = flags_of(dovecot, imap_user)
    assert all({HANDLED_FLAG, b"\\Seen"} <= f for f in flags.values()), flags
    uidvalidity, last_uid = cursors.get(poller.settings.mailbox)
    assert last_uid == 5
    assert inbox.refs[0] == (
        f"imap://{imap_user}@{dovecot.host}:{dovecot.port}/INBOX;UIDVALIDITY={uidvalidity}/;UID=1"
    )


def test_each_batch_is_fetched_and_shown_before_the_one_before_is_handed_over(
    dovecot: Dovecot, imap_user: str
) -> None:
    """So that work started on a batch when it is fetched (reading it in another process) runs
    while the batch before it is handled; the very bytes shown are the ones handed over."""
    sent = [message(n) for n in range(1, 6)]
    for raw in sent:
        dovecot.append(imap_user, raw)
    seen: list[tuple[str, list[bytes]]] = []

    def handle_batch(raws: list[bytes], arrived: list[Any]) -> None:
        seen.append(("handed over", raws))

    poller = ImapPoller(
        settings(dovecot, imap_user, batch_size=2),
        cursors=MemoryCursorStore(),
        handle_batch=handle_batch,
        on_fetched=lambda raws: seen.append(("fetched", raws)),
    )
    try:
        assert poller.run_once() == 5
    finally:
        poller.close()
    numbers = [(what, [sent.index(raw) + 1 for raw in raws]) for what, raws in seen]
    assert numbers == [
        ("fetched", [1, 2]),
        ("fetched", [3, 4]),
        ("handed over", [1, 2]),
        ("fetched", [5]),
        ("handed over", [3, 4]),
        ("handed over", [5]),
    ]
    shown = [raw for what, raws in seen if what == "fetched" for raw in raws]
    handed = [raw for what, raws in seen if what == "handed over" for raw in raws]
    assert all(a is b for a, b in zip(shown, handed, strict=True))


def test_a_batch_fetched_after_one_that_failed_is_handed_over_on_the_next_pass(
    dovecot: Dovecot, imap_user: str
) -> None:
    for n in range(1, 5):
        dovecot.append(imap_user, message(n))
    handed: list[bytes] = []
    failing = [True]

    def handle_batch(raws: list[bytes], arrived: list[Any]) -> None:
        if failing[0]:
            raise RuntimeError("database is down")
        handed.extend(raws)

    cursors = MemoryCursorStore()
    poller = ImapPoller(
        settings(dovecot, imap_user, batch_size=2), cursors=cursors, handle_batch=handle_batch
    )
    try:
        with pytest.raises(HandlerError):
            poller.run_once()
        assert all(HANDLED_FLAG not in f for f in flags_of(dovecot, imap_user).values())
        failing[0] = False
        assert poller.run_once() == 4
    finally:
        poller.close()
    assert [raw.split(b"(")[-1][:1] for raw in handed] == [b"1", b"2", b"3", b"4"]
    assert cursors.get(poller.settings.mailbox)[1] == 4


def test_only_mail_newer_than_the_cursor_is_fetched(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    """The notes' RFC gotcha: "UID 4:*" matches UID 3 when 3 is the highest."""
    for n in range(3):
        dovecot.append(imap_user, message(n))
    poller, inbox, _ = make_poller(dovecot, imap_user)
    assert poller.run_once() == 3
    assert poller.run_once() == 0
    dovecot.append(imap_user, message(9))
    assert poller.run_once() == 1
    assert b"(9)" in inbox.raws[-1]


def test_a_crash_in_handle_leaves_the_message_for_the_next_pass(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    for n in (1, 2, 3):
        dovecot.append(imap_user, message(n))
    poller, inbox, cursors = make_poller(dovecot, imap_user)
    inbox.fail_on = b"(2)"

    with pytest.raises(HandlerError) as raised:
        poller.run_once()
    assert isinstance(raised.value.__cause__, RuntimeError)
    assert [b"(1)" in raw for raw in inbox.raws] == [True]
    # the one before the crash counts as handled, the crashed one and the rest do not
    flags = flags_of(dovecot, imap_user)
    assert HANDLED_FLAG in flags[1]
    assert HANDLED_FLAG not in flags[2]
    assert b"\\Seen" not in flags[2]
    assert HANDLED_FLAG not in flags[3]
    assert cursors.get(poller.settings.mailbox)[1] == 1

    inbox.fail_on = None
    assert poller.run_once() == 2
    assert [raw.split(b"(")[-1][:1] for raw in inbox.raws] == [b"1", b"2", b"3"]


def test_a_new_uidvalidity_rescans_but_skips_mail_flagged_handled(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    folder = "Orders"
    old = [message(n) for n in (1, 2)]
    for raw in old:
        dovecot.append(imap_user, raw, folder=folder)
    poller, inbox, cursors = make_poller(dovecot, imap_user, folder=folder)
    assert poller.run_once() == 2
    validity_before, last_uid = cursors.get(poller.settings.mailbox)
    assert last_uid == 2

    # The folder is rebuilt (a restore, a migration): UIDs start again at 1. One old mail
    # comes back with its $Adjudicated flag, one without; then a new one arrives.
    with dovecot.client(imap_user) as client:
        client.delete_folder(folder)
        client.create_folder(folder)
    dovecot.append(imap_user, old[0], folder=folder, flags=[HANDLED_FLAG, b"\\Seen"])
    dovecot.append(imap_user, old[1], folder=folder)
    new = message(3)
    dovecot.append(imap_user, new, folder=folder)

    assert poller.run_once() == 2
    assert inbox.raws[2:] == [old[1], new]  # the unflagged old one again (the digest dedupes)
    validity_after, last_uid = cursors.get(poller.settings.mailbox)
    assert validity_after != validity_before
    assert last_uid == 3
    assert poller.run_once() == 0


def test_processed_mail_is_moved_to_the_processed_folder(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    for n in (1, 2):
        dovecot.append(imap_user, message(n))
    poller, _, _ = make_poller(dovecot, imap_user, processed_folder="Adjudicated")
    assert poller.run_once() == 2
    assert poller.run_once() == 0
    assert flags_of(dovecot, imap_user) == {}
    moved = flags_of(dovecot, imap_user, "Adjudicated")
    assert len(moved) == 2
    assert all({HANDLED_FLAG, b"\\Seen"} <= f for f in moved.values())


def test_without_move_the_poller_copies_and_expunges(
    dovecot: Dovecot, imap_user: str, make_poller: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = IMAPClient.has_capability
    monkeypatch.setattr(
        IMAPClient, "has_capability", lambda self, name: name != "MOVE" and real(self, name)
    )
    for n in (1, 2, 3):
        dovecot.append(imap_user, message(n))
    poller, _, _ = make_poller(dovecot, imap_user, processed_folder="Done")
    assert poller.run_once() == 3
    assert flags_of(dovecot, imap_user) == {}
    assert len(flags_of(dovecot, imap_user, "Done")) == 3
    assert poller.run_once() == 0


def test_run_once_reconnects_when_the_server_dropped_the_connection(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    dovecot.append(imap_user, message(1))
    poller, inbox, _ = make_poller(dovecot, imap_user)
    assert poller.run_once() == 1
    dovecot.kick(imap_user)  # the server closes our kept-open connection
    dovecot.append(imap_user, message(2))
    assert poller.run_once() == 1
    assert len(inbox.raws) == 2


def test_implicit_tls(dovecot: Dovecot, imap_user: str, make_poller: Any) -> None:
    assert dovecot.cert is not None
    dovecot.append(imap_user, message(1))
    poller, inbox, _ = make_poller(
        dovecot,
        imap_user,
        port=dovecot.tls_port,
        ssl=True,
        ssl_context=dovecot.cert.client_context(),
    )
    assert poller.run_once() == 1
    assert b"(1)" in inbox.raws[0]


def test_an_untrusted_certificate_is_refused(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    poller, _, _ = make_poller(dovecot, imap_user, port=dovecot.tls_port, ssl=True)
    with pytest.raises(ssl.SSLCertVerificationError):
        poller.run_once()


def test_a_wrong_password_is_an_error_not_a_retry(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    poller, _, _ = make_poller(dovecot, imap_user, password="wrong")
    with pytest.raises(LoginError):
        poller.run_once()


def test_idle_delivers_new_mail_without_waiting_for_the_poll(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    dovecot.append(imap_user, message(1))
    poller, inbox, _ = make_poller(dovecot, imap_user, poll_seconds=60)  # only IDLE is fast
    running = Background(poller)
    try:
        assert inbox.wait_for(1, timeout=5)
        assert poller.idling.wait(5)
        for n in (2, 3):
            dovecot.append(imap_user, message(n))
            # Polling would take 60 s: arriving within the wait means IDLE announced it.
            assert inbox.wait_for(n, timeout=5)
            assert poller.idling.wait(5)
    finally:
        running.stop()  # fails unless stop() ends the 60 s IDLE within the join timeout


def test_mail_arriving_just_before_idle_is_found_by_the_safety_net(
    dovecot: Dovecot, imap_user: str, make_poller: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dovecot does not announce mail that came between the last command and IDLE."""
    real_idle = IMAPClient.idle
    calls: list[int] = []

    def idle_after_a_late_arrival(client: IMAPClient) -> Any:
        if not calls:
            dovecot.append(imap_user, message(2))
        calls.append(1)
        return real_idle(client)

    monkeypatch.setattr(IMAPClient, "idle", idle_after_a_late_arrival)
    dovecot.append(imap_user, message(1))
    poller, inbox, _ = make_poller(dovecot, imap_user, poll_seconds=0.5)
    running = Background(poller)
    try:
        assert inbox.wait_for(2, timeout=5)
    finally:
        running.stop()


def test_without_idle_the_poller_polls(
    dovecot: Dovecot, imap_user: str, make_poller: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = IMAPClient.has_capability
    monkeypatch.setattr(
        IMAPClient, "has_capability", lambda self, name: name != "IDLE" and real(self, name)
    )
    poller, inbox, _ = make_poller(dovecot, imap_user, poll_seconds=0.2)
    running = Background(poller)
    try:
        dovecot.append(imap_user, message(1))
        assert inbox.wait_for(1, timeout=3)
        assert not poller.idling.is_set()
    finally:
        running.stop()


def test_an_external_stop_event_ends_the_loop(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    poller, _, _ = make_poller(dovecot, imap_user)
    stop = threading.Event()
    thread = threading.Thread(target=poller.run_forever, args=(stop,), daemon=True)
    thread.start()
    assert poller.idling.wait(5)
    stop.set()
    thread.join(3)  # noticed within a second, without stop()'s wake-up call
    assert not thread.is_alive()


def test_run_forever_survives_a_kick_during_idle(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    # The reconnect's pass races the append: mail that lands between its SEARCH and its IDLE
    # is found by the safety net (the test above), within a second here.
    poller, inbox, _ = make_poller(dovecot, imap_user, poll_seconds=1.0)
    running = Background(poller)
    try:
        assert poller.idling.wait(5)
        dovecot.kick(imap_user)  # BYE while idling
        dovecot.append(imap_user, message(1))
        assert inbox.wait_for(1, timeout=5)
    finally:
        running.stop()


def test_run_forever_reconnects_with_backoff_after_a_server_restart(
    make_poller: Any,
) -> None:
    with running_dovecot() as server:  # a private one: this test stops it
        user = server.new_user()
        server.append(user, message(1))
        poller, inbox, _ = make_poller(server, user, poll_seconds=1.0)  # as above
        running = Background(poller)
        try:
            assert inbox.wait_for(1, timeout=5)
            assert poller.idling.wait(5)  # the pass is over: flags and cursor are stored
            server.stop()  # also ends the imap process serving our connection
            time.sleep(0.3)  # a few refused reconnects, with backoff
            server.start()
            server.append(user, message(2))
            assert inbox.wait_for(2, timeout=5)  # backoff_max is 0.2 s here
        finally:
            running.stop()
    assert len(inbox.raws) == 2


def test_a_connection_lost_before_the_flags_are_stored_does_not_deliver_again(
    dovecot: Dovecot, imap_user: str, make_poller: Any
) -> None:
    poller, inbox, cursors = make_poller(dovecot, imap_user, poll_seconds=1.0)  # as above
    kicked, gone = threading.Event(), threading.Event()

    def handle_then_lose_the_connection(ref: str, raw: bytes) -> None:
        inbox(ref, raw)
        if not kicked.is_set():
            kicked.set()
            dovecot.kick(imap_user)  # the STORE of the flags that follows fails
            gone.set()

    poller.handle = handle_then_lose_the_connection
    dovecot.append(imap_user, message(1))
    running = Background(poller)
    try:
        assert inbox.wait_for(1, timeout=5)
        # The next mail is appended once the kick is over: a connection of the same user
        # made while it is under way is told "Server shutting down" too.
        assert gone.wait(15)
        dovecot.append(imap_user, message(2))
        assert inbox.wait_for(2, timeout=5)  # reconnected and went on after the cursor
        assert poller.idling.wait(5)
    finally:
        running.stop()
    assert [b"orders 1" in inbox.raws[0], b"orders 2" in inbox.raws[1]] == [True, True]
    assert len(inbox.raws) == 2
    assert cursors.get(poller.settings.mailbox)[1] == 2
    # The first mail's flags never reached the server; the new connection marked it handled.
    assert all({HANDLED_FLAG, b"\\Seen"} <= f for f in flags_of(dovecot, imap_user).values())


@pytest.mark.parametrize("processed_folder", ["", "Adjudicated"])
def test_mail_behind_the_cursor_but_never_flagged_is_marked_on_the_next_start(
    dovecot: Dovecot, imap_user: str, make_poller: Any, processed_folder: str
) -> None:
    """The service killed between the cursor (durable, in the database) and the STORE of the
    flags: the mails were stored, so the next process marks them handled (or moves them) and
    does not hand them over again."""
    for n in (1, 2, 3):
        dovecot.append(imap_user, message(n))
    first, handed, cursors = make_poller(dovecot, imap_user, processed_folder=processed_folder)
    validity = dovecot_uidvalidity(dovecot, imap_user)
    cursors.set(first.settings.mailbox, validity, 2)  # as a killed process left it
    dovecot.append(imap_user, message(4))

    restarted = ImapPoller(first.settings, cursors=cursors, handle=handed)
    try:
        assert restarted.run_once() == 2  # 3 and 4, the ones past the cursor
    finally:
        restarted.close()
    assert [raw.split(b"(")[-1][:1] for raw in handed.raws] == [b"3", b"4"]
    left = flags_of(dovecot, imap_user)
    if processed_folder:
        assert left == {}
        left = flags_of(dovecot, imap_user, processed_folder)
    assert len(left) == 4
    assert all({HANDLED_FLAG, b"\\Seen"} <= f for f in left.values()), left


def dovecot_uidvalidity(server: Dovecot, user: str) -> int:
    with server.client(user) as client:
        return int(client.select_folder("INBOX", readonly=True)[b"UIDVALIDITY"])
