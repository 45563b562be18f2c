"""Sending mail: over SMTP (aiosmtplib), or into a local Maildir when no SMTP host is set.

A sender does not retry: it tries once and says how it went, and the outbox decides when to
try again. Every outcome is a ``SendResult``, never an exception:

* ``SENT``: the server took the message (for at least one recipient);
* ``TEMPORARY``: try again later: a 4xx reply, or no answer at all (refused connection,
  timeout, dropped connection, TLS or login trouble, which is the operator's to fix, not a
  reason to give the message up);
* ``PERMANENT``: a 5xx reply to this message (sender, every recipient, or the content):
  sending it again will not help.

The SMTP sender keeps one connection open across messages and opens a new one when the server
dropped it.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from ssl import SSLContext
from typing import Literal, Protocol

import aiosmtplib

from adjudicator.mail.maildir import deliver
from adjudicator.mail.smtp_wire import transact

log = logging.getLogger(__name__)

TlsMode = Literal["none", "starttls", "implicit"]


class SendStatus(enum.Enum):
    SENT = "sent"
    TEMPORARY = "temporary"
    PERMANENT = "permanent"


@dataclass(frozen=True)
class SendResult:
    status: SendStatus
    code: int | None = None  # the server's reply code, when there was one
    text: str = ""  # the server's reply text, or what went wrong on our side
    stage: str = ""  # connect | tls | auth | mail | rcpt | data | local
    # recipients the server refused while it took the message for the others
    refused: Mapping[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def sent(self) -> bool:
        return self.status is SendStatus.SENT


SESSION_REFUSALS = frozenset({530})
"""5xx replies about our session, not the message: "530 Must issue a STARTTLS command first",
"530 5.7.0 Authentication required" (RFC 3207, RFC 4954). Fixing the configuration fixes them,
so they are temporary for the message."""


def classify(code: int) -> SendStatus:
    """RFC 5321 4.2.1: 2yz done, 4yz transient, 5yz permanent (but see SESSION_REFUSALS)."""
    if 200 <= code < 300:
        return SendStatus.SENT
    if 500 <= code < 600 and code not in SESSION_REFUSALS:
        return SendStatus.PERMANENT
    return SendStatus.TEMPORARY


class MailSender(Protocol):
    """What the outbox needs: send one message to its envelope, and close at the end."""

    async def send(self, raw: bytes, *, sender: str, recipients: Sequence[str]) -> SendResult: ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int = 25
    tls: TlsMode = "none"
    username: str = ""  # empty: no AUTH
    password: str = ""
    tls_context: SSLContext | None = None  # None: the system's default verification
    timeout: float = 30.0
    local_hostname: str | None = None  # EHLO name; None: the machine's FQDN


class _Failed(Exception):
    def __init__(self, result: SendResult) -> None:
        super().__init__(result.text)
        self.result = result


class SmtpSender:
    """Sends over one kept-open SMTP connection. Safe to share between tasks (one message at a
    time); use ``async with`` or call ``close()``."""

    def __init__(self, settings: SmtpSettings) -> None:
        if settings.tls not in ("none", "starttls", "implicit"):
            raise ValueError(f"tls must be none, starttls or implicit, not {settings.tls!r}")
        self.settings = settings
        self._smtp: aiosmtplib.SMTP | None = None
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> SmtpSender:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def send(self, raw: bytes, *, sender: str, recipients: Sequence[str]) -> SendResult:
        """Send ``raw`` (a whole RFC 5322 message) with envelope ``sender`` (the Return-Path;
        may be "" for a null sender) to ``recipients``."""
        if not recipients:
            return SendResult(SendStatus.PERMANENT, text="no recipients", stage="rcpt")
        async with self._lock:
            reused = self._smtp is not None and self._smtp.is_connected
            try:
                return await self._transaction(raw, sender=sender, recipients=recipients)
            except aiosmtplib.SMTPServerDisconnected as error:
                await self._drop()
                if not reused:
                    return SendResult(SendStatus.TEMPORARY, text=str(error), stage="data")
                # The server closed the idle connection we kept: once more on a new one.
                log.info("SMTP connection to %s was closed; reconnecting", self.settings.host)
            except _Failed as failed:
                return failed.result
            try:
                return await self._transaction(raw, sender=sender, recipients=recipients)
            except aiosmtplib.SMTPServerDisconnected as error:
                await self._drop()
                return SendResult(SendStatus.TEMPORARY, text=str(error), stage="data")
            except _Failed as failed:
                return failed.result

    async def _transaction(
        self, raw: bytes, *, sender: str, recipients: Sequence[str]
    ) -> SendResult:
        smtp = await self._connection()
        try:
            refused, reply = await transact(smtp, raw, sender=sender, recipients=recipients)
        except ValueError as error:
            # aiosmtplib refuses an address it cannot put on the wire (e.g. non-ASCII
            # without SMTPUTF8 on the server): no retry will change that.
            return SendResult(SendStatus.PERMANENT, text=str(error), stage="mail")
        except aiosmtplib.SMTPRecipientsRefused as error:
            # Every recipient refused: temporary if any of them was only put off (4xx).
            codes = [r.code for r in error.recipients]
            status = (
                SendStatus.PERMANENT
                if all(classify(c) is SendStatus.PERMANENT for c in codes)
                else SendStatus.TEMPORARY
            )
            first = error.recipients[0]
            return SendResult(
                status,
                code=first.code,
                text=first.message,
                stage="rcpt",
                refused={r.recipient: (r.code, r.message) for r in error.recipients},
            )
        except aiosmtplib.SMTPSenderRefused as error:
            return _reply_failure(error, stage="mail")
        except aiosmtplib.SMTPDataError as error:
            return _reply_failure(error, stage="data")
        except aiosmtplib.SMTPServerDisconnected:
            raise
        except (aiosmtplib.SMTPException, OSError) as error:
            await self._drop()
            return _failure(error, stage="data")
        return SendResult(
            SendStatus.SENT,
            code=250,
            text=reply,
            stage="data",
            refused={address: (r.code, r.message) for address, r in refused.items()},
        )

    async def _connection(self) -> aiosmtplib.SMTP:
        """The open connection, or a new one: connected, TLS as configured, logged in."""
        if self._smtp is not None and self._smtp.is_connected:
            return self._smtp
        await self._drop()
        s = self.settings
        smtp = aiosmtplib.SMTP(
            hostname=s.host,
            port=s.port,
            use_tls=s.tls == "implicit",
            start_tls=False,  # done by hand below, to tell a TLS failure from the rest
            tls_context=s.tls_context,
            timeout=s.timeout,
            local_hostname=s.local_hostname,
        )
        stage = "connect"
        try:
            await smtp.connect()
            if s.tls == "starttls":
                stage = "tls"
                await smtp.starttls(tls_context=s.tls_context)
            if s.username:
                stage = "auth"
                await smtp.login(s.username, s.password)
            stage = "connect"
            await _greet(smtp)
        except (aiosmtplib.SMTPException, OSError) as error:
            smtp.close()
            raise _Failed(_failure(error, stage=stage)) from error
        self._smtp = smtp
        return smtp

    async def _drop(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            smtp.close()

    async def close(self) -> None:
        """QUIT politely; a connection that is already gone is simply forgotten."""
        async with self._lock:
            smtp, self._smtp = self._smtp, None
            if smtp is None:
                return
            try:
                if smtp.is_connected:
                    await smtp.quit()
            except (aiosmtplib.SMTPException, OSError) as error:
                log.debug("SMTP QUIT failed: %r", error)
            finally:
                smtp.close()


async def _greet(smtp: aiosmtplib.SMTP) -> None:
    """EHLO (HELO if the server does not know it) unless done: the extensions it lists decide
    the first message's MAIL parameters (SIZE, 8BITMIME, SMTPUTF8) as much as the next ones'."""
    if not smtp.is_ehlo_or_helo_needed:
        return
    try:
        await smtp.ehlo()
    except aiosmtplib.SMTPHeloError:
        await smtp.helo()


def _reply_failure(error: aiosmtplib.SMTPResponseException, *, stage: str) -> SendResult:
    return SendResult(classify(error.code), code=error.code, text=error.message, stage=stage)


def _failure(error: Exception, *, stage: str) -> SendResult:
    """A failure outside a message's own MAIL/RCPT/DATA replies: always temporary, because the
    message itself may be fine (wrong password, bad certificate, server down)."""
    code = error.code if isinstance(error, aiosmtplib.SMTPResponseException) else None
    text = error.message if isinstance(error, aiosmtplib.SMTPException) else str(error)
    return SendResult(
        SendStatus.TEMPORARY, code=code, text=text or type(error).__name__, stage=stage
    )


class LocalMaildirSender:
    """Delivers into a Maildir instead of sending: the default when no SMTP host is set.

    The envelope is kept the way a local delivery agent keeps it: a ``Return-Path`` header
    with the sender and an ``X-Envelope-To`` header with the recipients, added on top.
    """

    def __init__(self, maildir: Path) -> None:
        self.maildir = maildir

    async def send(self, raw: bytes, *, sender: str, recipients: Sequence[str]) -> SendResult:
        if not recipients:
            return SendResult(SendStatus.PERMANENT, text="no recipients", stage="rcpt")
        newline = "\r\n" if b"\r\n" in raw else "\n"  # keep the message's own line ends
        header = f"Return-Path: <{sender}>{newline}X-Envelope-To: {', '.join(recipients)}{newline}"
        try:
            path = await asyncio.to_thread(deliver, self.maildir, header.encode() + raw)
        except OSError as error:
            return SendResult(SendStatus.TEMPORARY, text=str(error), stage="local")
        return SendResult(SendStatus.SENT, text=f"delivered to {path}", stage="local")

    async def close(self) -> None:
        return None
