"""The mail servers, as the service will use them: log in to the IMAP mailbox and look at its
folder, open an SMTP session and log in. Nothing is sent unless asked (``send_to``)."""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import replace
from email.message import EmailMessage
from typing import Any

import aiosmtplib

from adjudicator.base.config import Config, ImapConfig
from adjudicator.doctor.check import FAIL, OK, SKIP, TIMEOUT, WARN, Check, loopback, quietly, words
from adjudicator.mail.imap import ImapSettings, connect, log_in, login_fix

_CERTIFICATE = "if the certificate is not trusted, install its CA certificate in the system's store"


def check_imap(config: Config) -> list[Check]:
    """Connect and log in exactly as the service does (``mail.imap.connect`` and ``log_in``:
    implicit TLS with ``imap.ssl``, else plain text without STARTTLS), then look at the folder."""
    imap = config.imap
    if not imap.host:
        where = config.maildir_path.absolute()
        return [
            Check("IMAP", SKIP, f"no imap.host: the service reads mail from the Maildir {where}")
        ]
    name = f"IMAP {imap.host}:{imap.port}"
    settings = replace(ImapSettings.of(imap), timeout=TIMEOUT)
    try:
        client = connect(settings)
    except OSError as error:  # refused, unreachable, a timeout, a TLS handshake
        fix = (
            "check imap.host and imap.port (ADJUDICATOR_IMAP_HOST, ADJUDICATOR_IMAP_PORT): "
            "993 with imap.ssl = true, 143 without; is the server running there?"
        )
        if isinstance(error, ssl.SSLError):
            fix = f"does port {imap.port} speak TLS (993 does, 143 does not)? {_CERTIFICATE}"
        return [Check(name, FAIL, f"cannot connect: {words(error)}", fix)]
    try:
        return _imap_session(client, settings, imap, name)
    finally:
        quietly(client.logout)


def _imap_session(client: Any, settings: ImapSettings, imap: ImapConfig, name: str) -> list[Check]:
    try:
        log_in(client, settings)
    except Exception as error:  # the server's refusal says why
        return [Check(name, FAIL, f"login failed: {words(error)}", login_fix(settings))]
    try:
        found = client.select_folder(imap.folder, readonly=True)
    except Exception as error:
        folders = ", ".join(str(f[2]) for f in client.list_folders()[:10])
        return [
            Check(
                name,
                FAIL,
                f"cannot select the folder {imap.folder!r}: {words(error)}",
                f"create it, or set imap.folder (ADJUDICATOR_IMAP_FOLDER) to one of: {folders}",
            )
        ]
    checks = [
        Check(
            name,
            OK,
            f"logged in as {imap.username}; {imap.folder} holds {found.get(b'EXISTS', 0)} mails",
        )
    ]
    if not imap.ssl and not loopback(imap.host):
        # The service logs in without STARTTLS (mail/imap.py), whatever the server offers.
        checks.append(
            Check(
                name,
                WARN,
                "the service logs in without TLS: its password crosses the network in clear text",
                "set imap.ssl = true and imap.port = 993 (ADJUDICATOR_IMAP_SSL, "
                "ADJUDICATOR_IMAP_PORT)",
            )
        )
    if not client.has_capability("IDLE"):
        checks.append(
            Check(
                name,
                WARN,
                f"the server offers no IDLE: the service polls every {imap.poll_seconds} s",
                "nothing to do if that delay is fine; lower imap.poll_seconds to hear sooner",
            )
        )
    if imap.processed_folder and not client.folder_exists(imap.processed_folder):
        checks.append(
            Check(
                name,
                OK,
                f"no folder {imap.processed_folder!r} yet: the service creates it on connecting",
            )
        )
    return checks


class _SmtpFailed(Exception):
    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def check_smtp(config: Config, *, send_to: str | None) -> list[Check]:
    smtp = config.smtp
    if not smtp.host:
        folder = (config.data_path / "outbox-maildir").absolute()
        return [
            Check("SMTP", SKIP, f"no smtp.host: outgoing mail is written to the Maildir {folder}")
        ]
    name = f"SMTP {smtp.host}:{smtp.port}"
    try:
        said = asyncio.run(_smtp_session(config, send_to))
    except _SmtpFailed as failed:
        return [Check(name, FAIL, str(failed), failed.fix)]
    checks = [Check(name, OK, said)]
    if smtp.tls == "none" and smtp.username and not loopback(smtp.host):
        checks.append(
            Check(
                name,
                WARN,
                "the password crosses the network in clear text (smtp.tls = none)",
                "set smtp.tls = starttls with port 587, or implicit with port 465",
            )
        )
    return checks


async def _smtp_session(config: Config, send_to: str | None) -> str:
    """Connect, TLS, log in and (only if asked) send one mail, as the service's outbox does;
    a failure names its stage and the keys that fix it."""
    smtp = config.smtp
    client = aiosmtplib.SMTP(
        hostname=smtp.host,
        port=smtp.port,
        use_tls=smtp.tls == "implicit",
        start_tls=False,  # by hand below, to tell "no TLS offered" from a failed handshake
        timeout=TIMEOUT,
    )
    stage = "connect"
    try:
        await client.connect()
        await client.ehlo()
        if smtp.tls == "starttls":
            if not client.supports_extension("starttls"):
                raise _SmtpFailed(
                    "no TLS: the server does not offer STARTTLS",
                    "set smtp.port to the server's submission port (587), or smtp.tls = implicit "
                    "with port 465; smtp.tls = none only for a relay on this machine",
                )
            stage = "TLS"
            await client.starttls()
        said = f"connected ({smtp.tls} TLS)" if smtp.tls != "none" else "connected (no TLS)"
        if smtp.username:
            stage = "login"
            await client.login(smtp.username, smtp.password)
            said += f", logged in as {smtp.username}"
        if send_to:
            stage = "send"
            await client.send_message(_test_mail(config, send_to))
            said += f", one test mail sent to {send_to}"
        return said
    except (aiosmtplib.SMTPException, OSError) as error:
        raise _SmtpFailed(f"{stage} failed: {words(error)}", _smtp_fix(config, stage)) from None
    finally:
        client.close()


def _smtp_fix(config: Config, stage: str) -> str:
    smtp = config.smtp
    return {
        "connect": "check smtp.host, smtp.port and smtp.tls (ADJUDICATOR_SMTP_HOST, _PORT, _TLS): "
        f"587 with starttls, 465 with implicit, 25 for a relay; tls is {smtp.tls!r}",
        "TLS": f"the TLS handshake failed: {_CERTIFICATE}",
        "login": "check smtp.username and smtp.password (ADJUDICATOR_SMTP_USERNAME, "
        "ADJUDICATOR_SMTP_PASSWORD); leave the username empty if the server wants no login",
        "send": f"the server refused mail from service.address {config.service.address!r}: it "
        "must be an address this login may send as",
    }[stage]


def _test_mail(config: Config, send_to: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = config.service.address
    message["To"] = send_to
    message["Subject"] = "adjudicate doctor: a test mail"
    message.set_content("This mail tests the service's SMTP settings. Nothing to do.\n")
    return message
