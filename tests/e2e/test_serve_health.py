"""``adjudicate serve`` reading a real Dovecot when the mailbox's password changes under it: the
intake is dead, and the service must say so where an operator looks. ``/healthz`` turns 503 with
the reason, ``adjudicator_imap_connected`` drops to 0 and the refused logins are counted, the log
holds one error line naming the user, the server and the fix (not one per retry), and systemd's
watchdog is no longer fed (``STATUS=`` says why), so that systemd restarts the service. With the
password back, all of it turns well again without a restart.

The service runs as a real process; systemd's notification socket is a real datagram socket of
the test's, read by a thread of its own so that the service never waits on it."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from imapclient import IMAPClient
from imapclient.exceptions import LoginError
from mailservers import Dovecot, free_port, running_dovecot
from prometheus_client.parser import text_string_to_metric_families
from test_serve_signals import ADJUDICATE, _environment

INTAKE_SECONDS = 2  # [health] intake_seconds, small for the test (the default is 300)
WAIT = 60.0  # the bound of every poll


class Notifications:
    """systemd's side of ``sd_notify``: every datagram the service sends, in order."""

    def __init__(self) -> None:
        folder = tempfile.mkdtemp()
        self.path = os.path.join(folder, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self.lines: list[str] = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.done.is_set():
            try:
                data = self.sock.recv(4096).decode()
            except TimeoutError:
                continue
            with self.lock:
                self.lines += data.splitlines()

    def seen(self) -> list[str]:
        with self.lock:
            return list(self.lines)

    def close(self) -> None:
        self.done.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def notifications() -> Iterator[Notifications]:
    watcher = Notifications()
    yield watcher
    watcher.close()


@pytest.fixture
def own_dovecot() -> Iterator[Dovecot]:
    """A Dovecot of this test's own: its password changes, which no other test may see."""
    with running_dovecot() as server:
        yield server


def _until(what: str, condition: Callable[[], object], timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return 0, ""  # not serving yet


def _samples(port: int) -> dict[str, float]:
    status, text = _get(port, "/metrics")
    if status != 200:
        return {}
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.labels
    }


def _set_password(server: Dovecot, password: str) -> None:
    """Change the password Dovecot's static passdb takes, and wait until it does."""
    conf = server.conf.read_text()
    server.conf.write_text(conf.replace(f"password={server.password}", f"password={password}"))
    server.password = password
    subprocess.run(["doveadm", "-c", str(server.conf), "reload"], check=True, timeout=10)

    def takes_it() -> bool:
        try:
            with IMAPClient(server.host, port=server.port, ssl=False, timeout=5) as client:
                client.login("probe", password)
        except (LoginError, OSError):
            return False
        return True

    _until(f"Dovecot takes the password {password!r}", takes_it)


@pytest.mark.slow
def test_a_changed_imap_password_turns_health_red_stops_the_watchdog_and_recovers(
    tmp_path: Path, own_dovecot: Dovecot, notifications: Notifications
) -> None:
    user = own_dovecot.new_user("judge")
    port = free_port()
    log_file = tmp_path / "adjudicator.log"
    env = _environment(
        tmp_path,
        NOTIFY_SOCKET=notifications.path,
        WATCHDOG_USEC="10000000",
        ADJUDICATOR_METRICS_PORT=str(port),
        ADJUDICATOR_LOG_FILE=str(log_file),
        ADJUDICATOR_IMAP_HOST=own_dovecot.host,
        ADJUDICATOR_IMAP_PORT=str(own_dovecot.port),
        ADJUDICATOR_IMAP_USERNAME=user,
        ADJUDICATOR_IMAP_PASSWORD=own_dovecot.password,
        ADJUDICATOR_HEALTH_INTAKE_SECONDS=str(INTAKE_SECONDS),
    )
    process = subprocess.Popen(
        [str(ADJUDICATE), "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        _until("READY=1", lambda: "READY=1" in notifications.seen())
        _until("the intake connected and read", lambda: _samples(port).get(
            "adjudicator_imap_connected") == 1 and _samples(port).get(
            "adjudicator_imap_last_read_timestamp_seconds", 0) > 0)  # fmt: skip
        assert _get(port, "/healthz") == (200, "ok\n")
        _until("WATCHDOG=1", lambda: "WATCHDOG=1" in notifications.seen())

        # The password changes on the server; the open session goes on until the server ends
        # it, as a restart of Dovecot or the account's expiry would.
        _set_password(own_dovecot, "changed")
        own_dovecot.kick(user)

        health: list[tuple[int, str]] = []
        _until(
            "/healthz 503", lambda: health.append(_get(port, "/healthz")) or health[-1][0] == 503
        )
        reason = health[-1][1]
        assert "IMAP intake" in reason
        assert "not connected" in reason
        assert "login refused" in reason
        assert "AUTHENTICATIONFAILED" in reason
        assert "b'" not in reason  # the server's words, not a Python repr of them
        _until("two refused logins counted", lambda: _samples(port).get(
            "adjudicator_imap_login_failures_total", 0) >= 2)  # fmt: skip
        assert _samples(port)["adjudicator_imap_connected"] == 0

        errors = [
            line
            for line in log_file.read_text().splitlines()
            if "IMAP login refused" in line and "error" in line
        ]
        assert len(errors) == 1, errors  # once for the run of refusals, not once per retry
        assert f"{user} at {own_dovecot.host}:{own_dovecot.port}" in errors[0]
        assert "imap.password" in errors[0]
        assert "passdb" in errors[0]

        unfed = "STATUS=watchdog not fed: the IMAP intake has not read mail"
        _until("the watchdog's STATUS", lambda: any(
            line.startswith(unfed) for line in notifications.seen()))  # fmt: skip

        _set_password(own_dovecot, "secret")
        _until("/healthz 200 again", lambda: _get(port, "/healthz") == (200, "ok\n"))
        serving = "STATUS=reading mail, deadlines planned"
        _until("the watchdog fed again", lambda: "WATCHDOG=1" in _after(
            notifications.seen(), serving))  # fmt: skip
        lines = notifications.seen()
        down = next(n for n, line in enumerate(lines) if line.startswith(unfed))
        up = lines.index(serving, down)
        assert "WATCHDOG=1" not in lines[down:up]  # not one ping while the intake was dead
        assert _samples(port)["adjudicator_imap_connected"] == 1
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
            _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr.decode()
    assert "Traceback" not in log_file.read_text()


def _after(lines: list[str], marker: str) -> list[str]:
    """The lines after the last ``marker`` that follows the watchdog's STATUS."""
    down = [n for n, line in enumerate(lines) if line.startswith("STATUS=watchdog not fed")]
    if not down or marker not in lines[down[-1] :]:
        return []
    return lines[lines.index(marker, down[-1]) :]
