"""Real mail servers for tests: a throwaway Dovecot (IMAP) and an aiosmtpd sink (SMTP).

Both listen on 127.0.0.1 on a free port; the comments below say why each odd line of the
configuration is there. Plain helpers here; the pytest fixtures that wrap them are in
tests/conftest.py.
"""

from __future__ import annotations

import contextlib
import datetime
import grp
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
from imapclient import IMAPClient
from needs import unavailable

HOST = "127.0.0.1"
DOVECOT = Path(os.environ.get("ADJUDICATOR_TEST_DOVECOT", "/usr/sbin/dovecot"))
IMAP_PASSWORD = "secret"  # the static passdb takes any user name with this password


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


# --- Dovecot -------------------------------------------------------------------------------

DOVECOT_CONF = """\
base_dir = {base}/run
state_dir = {base}/state
log_path = {base}/dovecot.log
protocols = imap
listen = {host}
{ssl_settings}
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{base}/mail/%u
first_valid_uid = 0
# No delay after a failed login, and no penalty for the next logins from 127.0.0.1 (the
# auth-penalty listener is unusable with mode 0): one test's bad password must not slow others.
auth_failure_delay = 0
default_login_user = {login_user}
default_internal_user = {internal_user}
default_internal_group = {internal_group}
passdb {{
  driver = static
  args = password={password}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={base}/home/%u
}}
service anvil {{
  chroot =
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = {host}
    port = {port}
  }}
  inet_listener imaps {{
    address = {host}
    port = {tls_port}
  }}
}}
"""


def _dovecot_accounts() -> dict[str, Any]:
    """Who the Dovecot processes run as. Root: the notes' recipe (dovenull/dovecot, mail owned
    by nobody, since Dovecot refuses mail uid 0); otherwise everything is our own user."""
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        return {
            "login_user": "dovenull",
            "internal_user": "dovecot",
            "internal_group": "dovecot",
            "uid": nobody.pw_uid,
            "gid": nobody.pw_gid,
        }
    me = pwd.getpwuid(os.getuid())
    return {
        "login_user": me.pw_name,
        "internal_user": me.pw_name,
        "internal_group": grp.getgrgid(os.getgid()).gr_name,
        "uid": me.pw_uid,
        "gid": me.pw_gid,
    }


@dataclass
class Dovecot:
    """A Dovecot IMAP server of our own under ``base``; any user logs in with "secret"."""

    base: Path
    port: int
    host: str = HOST
    password: str = IMAP_PASSWORD
    tls_port: int | None = None  # implicit TLS (imaps), when created with a certificate
    cert: SelfSignedCert | None = None
    process: subprocess.Popen[bytes] | None = None
    _users: Iterator[int] = field(default_factory=lambda: iter(range(1, 1 << 30)))

    @classmethod
    def create(cls, *, port: int | None = None, cert: SelfSignedCert | None = None) -> Dovecot:
        """Write the configuration into a fresh folder (not started yet). With ``cert``, it
        also listens with implicit TLS on ``tls_port`` and offers STARTTLS on ``port``."""
        if not DOVECOT.exists():
            unavailable(f"no Dovecot at {DOVECOT} (apt-get install dovecot-imapd)")
        # mkdtemp and not pytest's tmp_path: as root, Dovecot's unprivileged processes must be
        # able to traverse the base folder (0711), and pytest's own parent folders are 0700.
        base = Path(tempfile.mkdtemp(prefix="adjudicator-dovecot-"))
        base.chmod(0o711)
        accounts = _dovecot_accounts()
        for sub in ("mail", "home"):
            (base / sub).mkdir()
            os.chown(base / sub, accounts["uid"], accounts["gid"])
        server = cls(base=base, port=port or free_port())
        ssl_settings = "ssl = no"
        if cert is not None:
            server.cert, server.tls_port = cert, free_port()
            ssl_settings = f"ssl = yes\nssl_cert = <{cert.cert}\nssl_key = <{cert.key}"
        conf = DOVECOT_CONF.format(
            base=base,
            host=server.host,
            port=server.port,
            tls_port=server.tls_port or 0,
            password=server.password,
            ssl_settings=ssl_settings,
            **accounts,
        )
        (base / "dovecot.conf").write_text(conf, encoding="utf-8")
        return server

    @property
    def conf(self) -> Path:
        return self.base / "dovecot.conf"

    def start(self, *, timeout: float = 10.0) -> None:
        """Start and wait for the ``* OK`` banner."""
        self.process = subprocess.Popen(
            [str(DOVECOT), "-F", "-c", str(self.conf)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a process group of its own: stop() ends all of it
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output = self.process.stdout.read().decode() if self.process.stdout else ""
                raise RuntimeError(f"dovecot exited at start: {output}\n{self.log()}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection((self.host, self.port), timeout=1) as probe,
            ):
                if probe.recv(100).startswith(b"* OK"):
                    return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"dovecot did not answer on port {self.port}: {self.log()}")

    def stop(self) -> None:
        """Stop the server and every process it started. Dovecot's master alone would leave
        the ``imap`` processes serving open connections for several more seconds."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()
        self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.base / "dovecot.log").read_text(errors="replace")[-3000:]
        return ""

    def new_user(self, prefix: str = "player") -> str:
        """A user name no other test has used, hence an empty mailbox of its own."""
        return f"{prefix}{next(self._users)}-{uuid.uuid4().hex[:6]}"

    def client(self, user: str) -> IMAPClient:
        """A logged-in IMAPClient; use it as a context manager."""
        client = IMAPClient(self.host, port=self.port, ssl=False, timeout=10)
        client.login(user, self.password)
        return client

    def append(
        self,
        user: str,
        raw: bytes,
        *,
        folder: str = "INBOX",
        flags: Sequence[bytes | str] = (),
        delivered: datetime.datetime | None = None,
    ) -> int:
        """Append one message (creating the folder if needed) and return its UID;
        ``delivered``: its INTERNALDATE (the server's delivery time), if not now."""
        with self.client(user) as client:
            if folder.upper() != "INBOX" and not client.folder_exists(folder):
                client.create_folder(folder)
            response = client.append(folder, raw, flags=tuple(flags), msg_time=delivered)
        # b'[APPENDUID <uidvalidity> <uid>] Append completed.'
        return int(response.split(b"]")[0].split()[-1])

    def kick(self, user: str, *, timeout: float = 10.0) -> None:
        """Disconnect every session of ``user`` from the server side (doveadm kick), and wait
        until they are gone: the kicked processes end a moment later, and a new connection of
        the same user made meanwhile would be told "Server shutting down" too."""
        subprocess.run(
            ["doveadm", "-c", str(self.conf), "kick", user],
            check=True,
            capture_output=True,
            timeout=10,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            who = subprocess.run(
                ["doveadm", "-c", str(self.conf), "who", "-1", user],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
            if user not in who.stdout:
                return
            time.sleep(0.05)


@contextlib.contextmanager
def running_dovecot(
    *, port: int | None = None, cert: SelfSignedCert | None = None
) -> Iterator[Dovecot]:
    server = Dovecot.create(port=port, cert=cert)
    try:
        server.start()
        yield server
    finally:
        server.remove()


# --- TLS certificate -------------------------------------------------------------------------


@dataclass(frozen=True)
class SelfSignedCert:
    """A self-signed certificate for 127.0.0.1 and localhost."""

    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        return context

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts exactly this certificate."""
        return ssl.create_default_context(cafile=str(self.cert))


def make_self_signed_cert(directory: Path) -> SelfSignedCert:
    """With ``cryptography`` when the venv has it, else with the ``openssl`` command."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    try:
        _cert_with_cryptography(cert, key)
    except ImportError:
        if shutil.which("openssl") is None:
            unavailable("neither the cryptography package nor the openssl command is here")
        subprocess.run(
            [
                "openssl", "req", "-x509", "-newkey", "ec",
                "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )  # fmt: skip
    return SelfSignedCert(cert=cert, key=key)


def _cert_with_cryptography(cert_path: Path, key_path: Path) -> None:
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address(HOST))]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))


# --- aiosmtpd sink -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """One accepted SMTP transaction as the sink saw it."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    content: bytes
    connection: int  # 1 for the first connection the sink accepted, 2 for the next...
    tls: bool
    login: str | None
    mail_options: tuple[str, ...] = ()  # the MAIL command's parameters, e.g. "SIZE=1234"


@dataclass
class Refusal:
    """Answer ``reply`` at ``stage`` ("mail", "rcpt" or "data") instead of accepting."""

    stage: str
    reply: str
    address: str | None = None  # only for this sender/recipient
    times: int | None = None  # only so many times; None: until cleared


class SinkHandler:
    """aiosmtpd handler that keeps every message; runs in the controller's thread."""

    def __init__(self, accounts: dict[str, str] | None = None) -> None:
        self.accounts = accounts or {}
        self.received: list[Received] = []
        self.refusals: list[Refusal] = []
        self.condition = threading.Condition()
        self.connections: dict[int, int] = {}  # id(session) -> connection number
        self.servers: list[SMTP] = []

    def _refusal(self, stage: str, address: str | None) -> str | None:
        with self.condition:
            for rule in self.refusals:
                if rule.stage == stage and rule.address in (None, address):
                    if rule.times is not None:
                        rule.times -= 1
                        if rule.times <= 0:
                            self.refusals.remove(rule)
                    return rule.reply
        return None

    async def handle_MAIL(  # noqa: N802 (aiosmtpd's hook name)
        self, server: SMTP, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        refusal = self._refusal("mail", address)
        if refusal:
            return refusal
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(  # noqa: N802 (aiosmtpd's hook name)
        self, server: SMTP, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        refusal = self._refusal("rcpt", address)
        if refusal:
            return refusal
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(  # noqa: N802 (aiosmtpd's hook name)
        self, server: SMTP, session: Any, envelope: Any
    ) -> str:
        refusal = self._refusal("data", None)
        if refusal:
            return refusal
        auth = session.auth_data  # what authenticate() put in its AuthResult
        message = Received(
            mail_from=envelope.mail_from,
            rcpt_tos=tuple(envelope.rcpt_tos),
            content=bytes(envelope.original_content or b""),
            connection=self.connections.get(id(server), 0),
            tls=server.transport.get_extra_info("ssl_object") is not None,
            login=auth.login.decode() if isinstance(auth, LoginPassword) else None,
            mail_options=tuple(envelope.mail_options),
        )
        with self.condition:
            self.received.append(message)
            self.condition.notify_all()
        return "250 Message accepted for delivery"

    def authenticate(
        self, server: SMTP, session: Any, envelope: Any, mechanism: str, data: Any
    ) -> AuthResult:
        if isinstance(data, LoginPassword):
            user, password = data.login.decode(), data.password.decode()
            if self.accounts.get(user) == password:
                return AuthResult(success=True, auth_data=data)
        # handled=False, or the client hangs until its read timeout (the notes, section 2)
        return AuthResult(success=False, handled=False)


class _CountingController(Controller):  # type: ignore[misc]
    """A Controller whose factory (called once per connection) numbers the connections."""

    def factory(self) -> SMTP:
        server = super().factory()
        handler: SinkHandler = self.handler
        with handler.condition:
            handler.connections[id(server)] = len(handler.connections) + 1
            handler.servers.append(server)
        return server


@dataclass
class SmtpSink:
    """A running aiosmtpd; ``received`` holds what it accepted."""

    host: str
    port: int
    handler: SinkHandler
    controller: Controller
    tls: str  # none | starttls | implicit
    options: dict[str, Any] = field(default_factory=dict)  # the controller's, for start_again

    @property
    def received(self) -> list[Received]:
        with self.handler.condition:
            return list(self.handler.received)

    @property
    def connections(self) -> int:
        """How many SMTP connections the sink has accepted."""
        with self.handler.condition:
            return len(self.handler.connections)

    def wait_for(self, count: int, timeout: float = 5.0) -> list[Received]:
        """Block until at least ``count`` messages arrived; fail the test on timeout."""
        with self.handler.condition:
            if not self.handler.condition.wait_for(
                lambda: len(self.handler.received) >= count, timeout=timeout
            ):
                got = len(self.handler.received)
                pytest.fail(f"the SMTP sink got {got} messages within {timeout}s, not {count}")
            return list(self.handler.received)

    def refuse(
        self, stage: str, reply: str, *, address: str | None = None, times: int | None = None
    ) -> None:
        """From now on answer ``reply`` (e.g. "450 4.2.0 Mailbox busy") at ``stage``."""
        if stage not in ("mail", "rcpt", "data"):
            raise ValueError(f"stage must be mail, rcpt or data, not {stage!r}")
        with self.handler.condition:
            self.handler.refusals.append(Refusal(stage, reply, address, times))

    def accept_all(self) -> None:
        with self.handler.condition:
            self.handler.refusals.clear()

    def drop_connections(self) -> None:
        """Close every open client connection from the server side."""
        with self.handler.condition:
            servers = list(self.handler.servers)
        done = threading.Event()

        def close_all() -> None:
            for server in servers:
                if server.transport is not None:
                    server.transport.close()
            done.set()

        self.controller.loop.call_soon_threadsafe(close_all)
        done.wait(5)

    def stop(self) -> None:
        self.controller.stop()

    def start_again(self) -> None:
        """After ``stop()``: serve again on the same port, keeping what was received (the end
        of an outage)."""
        with self.handler.condition:
            known = set(self.handler.connections)
        self.controller = _CountingController(self.handler, **self.options)
        self.controller.start()
        with self.handler.condition:  # Controller.start()'s own check is not a client
            for server in [s for s in self.handler.servers if id(s) not in known]:
                self.handler.connections.pop(id(server), None)
                self.handler.servers.remove(server)


def start_smtp_sink(
    *,
    tls: str = "none",
    cert: SelfSignedCert | None = None,
    accounts: dict[str, str] | None = None,
    require_auth: bool = False,
    smtputf8: bool = True,
) -> SmtpSink:
    """Start a sink. ``tls``: none, starttls (required before MAIL) or implicit (TLS from the
    first byte). ``accounts``: user -> password; AUTH is offered (also without TLS) when given,
    and ``require_auth`` refuses mail from unauthenticated clients. ``smtputf8``: offer
    SMTPUTF8 (RFC 6531), for addresses that are not ASCII, as aiosmtpd's Controller does unless
    told not to."""
    if tls not in ("none", "starttls", "implicit"):
        raise ValueError(f"tls must be none, starttls or implicit, not {tls!r}")
    if tls != "none" and cert is None:
        raise ValueError(f"tls={tls} needs a certificate")
    handler = SinkHandler(accounts)
    kwargs: dict[str, Any] = {
        "hostname": HOST,
        "port": free_port(),
        "server_hostname": "sink",
        "enable_SMTPUTF8": smtputf8,
    }
    if tls == "starttls" and cert is not None:
        kwargs.update(tls_context=cert.server_context(), require_starttls=True)
    if tls == "implicit" and cert is not None:
        kwargs["ssl_context"] = cert.server_context()
    if accounts is not None:
        # With STARTTLS, AUTH is offered after it. Otherwise it is offered at once: aiosmtpd
        # does not count implicit TLS as TLS (the notes). Requiring AUTH then makes aiosmtpd
        # warn "Requiring AUTH while not requiring TLS": filter that in the test.
        kwargs.update(
            authenticator=handler.authenticate,
            auth_require_tls=tls == "starttls",
            auth_required=require_auth,
        )
    controller = _CountingController(handler, **kwargs)
    controller.start()
    # Controller.start() opened a connection of its own to check the server is up: not counted.
    with handler.condition:
        handler.connections.clear()
        handler.servers.clear()
    return SmtpSink(HOST, kwargs["port"], handler, controller, tls, kwargs)


@contextlib.contextmanager
def running_smtp_sink(**options: Any) -> Iterator[SmtpSink]:
    sink = start_smtp_sink(**options)
    try:
        yield sink
    finally:
        sink.stop()
