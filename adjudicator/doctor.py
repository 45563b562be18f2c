"""``adjudicate doctor``: is this installation ready to run? Each check says what it found and,
when something is wrong, precisely how to fix it.

The checks go from the inside out: the configuration, the database and its schema, the key
file, the IMAP mailbox, the SMTP server (nothing is sent unless asked), the DNS of the service's
own domain. A check that does not apply (no IMAP server configured) is skipped with its reason.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import ssl
import stat
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path

import aiosmtplib
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from imapclient import IMAPClient
from sqlalchemy import text

from adjudicator.config import Config, ConfigError, load_config
from adjudicator.storage.db import alembic_config, make_engine

TIMEOUT = 5.0
OK, WARN, FAIL, SKIP = "ok", "warn", "FAIL", "skip"
_LOCAL_DOMAINS = re.compile(r"(^|\.)(localhost|test|example|invalid|local)$")


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


def check_configuration(path: Path | None) -> tuple[Config | None, list[Check]]:
    """Load the configuration and look at the values that can be checked without a network."""
    try:
        config = load_config(path)
    except ConfigError as error:
        where = f"the file {path}" if path else "the configuration file or ADJUDICATOR_* variables"
        return None, [Check("configuration", FAIL, str(error), f"correct {where}")]
    checks = [Check("configuration", OK, f"read {path or 'the defaults and environment'}")]
    if config.smtp.tls not in ("none", "starttls", "implicit"):
        checks.append(
            Check(
                "configuration",
                FAIL,
                f"smtp.tls is {config.smtp.tls!r}",
                "set smtp.tls to none, starttls or implicit",
            )
        )
    _, address = parseaddr(config.service.address)
    if "@" not in address or address != config.service.address.strip():
        checks.append(
            Check(
                "configuration",
                FAIL,
                f"the service address {config.service.address!r} is not an address",
                "set service.address (ADJUDICATOR_ADDRESS) to the mailbox players write to",
            )
        )
    url = config.service.archive_url
    if url and not url.startswith(("http://", "https://")):
        checks.append(
            Check("configuration", FAIL, f"archive_url {url!r}", "give an http(s) address")
        )
    checks += _data_folder(config)
    if path is not None and (config.smtp.password or config.imap.password):
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            checks.append(
                Check(
                    "configuration",
                    WARN,
                    f"{path} holds passwords and others may read it",
                    f"chmod 600 {path}",
                )
            )
    return config, checks


def _data_folder(config: Config) -> list[Check]:
    folder = config.data_path
    probe = folder if folder.exists() else folder.parent
    if not os.access(probe.resolve(), os.W_OK):
        return [
            Check(
                "data folder",
                FAIL,
                f"{folder} cannot be written",
                "give the service's user write access, or set service.data_dir",
            )
        ]
    return [Check("data folder", OK, f"{folder.resolve()}")]


def check_database(config: Config) -> Check:
    url = config.database_url
    if url.startswith("sqlite"):
        file = Path(url.split("///", 1)[-1])
        if not file.exists():
            return Check(
                "database", FAIL, f"no database at {file}", "run `adjudicate init` to create it"
            )
    try:
        engine = make_engine(url)
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            current = MigrationContext.configure(connection).get_current_revision()
        head = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
        engine.dispose()
    except Exception as error:  # any driver error: say it as the driver did
        return Check(
            "database",
            FAIL,
            f"cannot connect: {error.__class__.__name__}: {str(error).splitlines()[0]}",
            "check service.database_url (ADJUDICATOR_DATABASE_URL) and that the server runs",
        )
    if current != head:
        return Check(
            "database",
            FAIL,
            f"the schema is at revision {current or 'none (empty)'}, this version needs {head}",
            "run `adjudicate init` to bring the schema up to date (back it up first)",
        )
    return Check("database", OK, f"connected, schema at revision {head}")


def check_key(config: Config) -> Check:
    path = config.secret_key_path
    fix = (
        "run `adjudicate init` to create it, or point service.secret_key_file "
        "(ADJUDICATOR_SECRET_KEY_FILE) at the key every instance shares"
    )
    if not path.exists():
        return Check("key file", FAIL, f"no key at {path}", fix)
    try:
        key = path.read_bytes().strip()
    except OSError as error:
        return Check("key file", FAIL, f"{path}: {error.strerror}", "let the service read it")
    if not re.fullmatch(rb"[0-9a-f]{64}", key):
        return Check("key file", FAIL, f"{path} does not hold a key", fix)
    if path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        return Check("key file", WARN, f"others may read {path}", f"chmod 600 {path}")
    return Check("key file", OK, f"{path}")


def check_imap(config: Config) -> list[Check]:
    imap = config.imap
    if not imap.host:
        where = config.maildir_path
        return [Check("IMAP", SKIP, f"no imap.host: mail is read from the Maildir {where}")]
    name = f"IMAP {imap.host}:{imap.port}"
    try:
        client = IMAPClient(imap.host, port=imap.port, ssl=imap.ssl, timeout=TIMEOUT)
    except (OSError, ssl.SSLError) as error:
        return [Check(name, FAIL, f"cannot connect: {error}", _imap_fix(imap.ssl))]
    checks = []
    try:
        if not imap.ssl and b"STARTTLS" in client.capabilities():
            client.starttls(ssl.create_default_context())
        elif not imap.ssl and not _loopback(imap.host):
            checks.append(
                Check(name, WARN, "the password goes in clear text", "set imap.ssl = true")
            )
        client.login(imap.username, imap.password)
        client.select_folder(imap.folder, readonly=True)
        checks.append(Check(name, OK, f"logged in as {imap.username}, folder {imap.folder}"))
        if not client.has_capability("IDLE"):
            checks.append(
                Check(
                    name, WARN, "no IDLE: mail is polled", "nothing to do, or use a server with it"
                )
            )
        if imap.processed_folder and not client.folder_exists(imap.processed_folder):
            checks.append(
                Check(
                    name,
                    FAIL,
                    f"no folder {imap.processed_folder!r}",
                    "create it, or leave imap.processed_folder empty",
                )
            )
    except Exception as error:  # login refused, folder missing, TLS refused
        checks.append(Check(name, FAIL, _words(error), _imap_fix(imap.ssl)))
    finally:
        _quietly(client.logout)
    return checks


def _imap_fix(implicit: bool) -> str:
    return (
        "check imap.host, imap.port (993 with ssl, 143 without), imap.username, imap.password"
        + (" and imap.ssl" if implicit else "")
    )


def check_smtp(config: Config, *, send_to: str | None) -> Check:
    smtp = config.smtp
    if not smtp.host:
        folder = config.data_path / "outbox-maildir"
        return Check("SMTP", SKIP, f"no smtp.host: outgoing mail is written to {folder}")
    name = f"SMTP {smtp.host}:{smtp.port}"
    try:
        said = asyncio.run(_smtp_session(config, send_to))
    except (aiosmtplib.SMTPException, OSError, ssl.SSLError) as error:
        return Check(name, FAIL, _words(error), _smtp_fix(config))
    return Check(name, OK, said)


async def _smtp_session(config: Config, send_to: str | None) -> str:
    smtp = config.smtp
    client = aiosmtplib.SMTP(
        hostname=smtp.host,
        port=smtp.port,
        use_tls=smtp.tls == "implicit",
        start_tls=False,
        timeout=TIMEOUT,
    )
    await client.connect()
    try:
        await client.ehlo()
        if smtp.tls == "starttls":
            if not client.supports_extension("starttls"):
                raise aiosmtplib.SMTPException("no TLS: the server does not offer STARTTLS")
            await client.starttls()
        said = f"connected ({smtp.tls} TLS)" if smtp.tls != "none" else "connected (no TLS)"
        if smtp.username:
            await client.login(smtp.username, smtp.password)
            said += f", logged in as {smtp.username}"
        if send_to:
            message = EmailMessage()
            message["From"] = config.service.address
            message["To"] = send_to
            message["Subject"] = "adjudicate doctor: a test mail"
            message.set_content("This mail tests the service's SMTP settings. Nothing to do.\n")
            await client.send_message(message)
            said += f", a test mail sent to {send_to}"
        return said
    finally:
        _quietly(client.close)


def _smtp_fix(config: Config) -> str:
    return (
        "check smtp.host, smtp.port, smtp.tls (none, starttls or implicit), smtp.username and "
        f"smtp.password (ADJUDICATOR_SMTP_*); tls is now {config.smtp.tls!r}"
    )


Resolver = Callable[[str, str], list[str]]


def check_dns(config: Config, *, resolve: Resolver | None = None) -> list[Check]:
    domain = config.service.address.rpartition("@")[2].strip().lower()
    if not domain or _LOCAL_DOMAINS.search(domain) or _is_ip(domain.strip("[]")):
        return [Check("DNS", SKIP, f"{domain or 'no domain'} is not a public domain")]
    look = resolve or _dnspython
    try:
        found = look(domain, "MX") or look(domain, "A")
        spf = [t for t in look(domain, "TXT") if t.lower().startswith("v=spf1")]
        dmarc = [t for t in look(f"_dmarc.{domain}", "TXT") if t.lower().startswith("v=dmarc1")]
    except Exception as error:  # no resolver here, a timeout: not the domain's fault
        return [Check("DNS", WARN, f"could not check DNS: {_words(error)}")]
    checks = []
    if found:
        checks.append(Check("DNS", OK, f"{domain} receives mail ({found[0]})"))
    else:
        checks.append(Check("DNS", FAIL, f"{domain} has no MX or A record", "publish an MX record"))
    if not spf:
        checks.append(
            Check(
                "DNS",
                WARN,
                f"{domain} has no SPF record: receivers may take the service's mail for spam",
                f'publish a TXT record for {domain}: "v=spf1 mx -all" (or your provider\'s)',
            )
        )
    if not dmarc:
        checks.append(
            Check(
                "DNS",
                WARN,
                f"{domain} has no DMARC record: large providers may refuse its mail",
                f'publish a TXT record for _dmarc.{domain}: "v=DMARC1; p=none"',
            )
        )
    return checks


def _dnspython(name: str, kind: str) -> list[str]:
    import dns.resolver  # noqa: PLC0415 - only when the DNS is checked

    resolver = dns.resolver.Resolver()
    resolver.lifetime = TIMEOUT
    try:
        answer = resolver.resolve(name, kind)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return []
    return [b"".join(r.strings).decode() if kind == "TXT" else r.to_text() for r in answer]


def _is_ip(text: str) -> bool:
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in text else socket.AF_INET, text)
    except OSError:
        return False
    return True


def _loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def _words(error: BaseException) -> str:
    text = str(error).strip() or error.__class__.__name__
    return text.splitlines()[0][:300]


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except Exception:  # the connection is gone: nothing to close
        return


def run_checks(path: Path | None, *, send_to: str | None = None) -> Iterator[Check]:
    """Every check, in order; after a configuration that cannot be read, nothing else."""
    config, checks = check_configuration(path)
    yield from checks
    if config is None:
        return
    yield check_database(config)
    yield check_key(config)
    yield from check_imap(config)
    yield check_smtp(config, send_to=send_to)
    yield from check_dns(config)
