"""One SMTP mail transaction (MAIL, RCPT, DATA) on an open aiosmtplib connection, with the
message put in its wire form once.

aiosmtplib's ``sendmail`` turns the message's line ends into CRLF with a regular expression
twice (once to count the SIZE parameter, once for DATA), dot-stuffs it with another, and
parses each address twice (to check it, then to quote it). A result mail with its pictures is
40-90 KB, most of it lines of base64: the regular expressions took 0.5 ms for one of 38 KB,
1.5 s of the service's CPU for a deadline's 3,000 result mails. Here the same transformations
are done once, with ``bytes.replace``, which gives the same bytes (the tests compare them with
aiosmtplib's own). The commands go through aiosmtplib's ``mail``, ``rcpt`` and
``execute_command``, and the data through its protocol's ``write`` and ``read_response``, as
aiosmtplib's own DATA does (its 5.x series).

The connection must not be shared by two transactions at once (``SmtpSender`` holds a lock).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress

import aiosmtplib
from aiosmtplib import SMTPStatus


def wire_form(message: bytes) -> tuple[int, bytes]:
    """The message's size as SIZE counts it (RFC 1870: CRLF line ends, before dot-stuffing)
    and its DATA as sent: every line end (CRLF, lone LF, lone CR) made CRLF, a final CRLF,
    every line that starts with "." given one more (RFC 5321 4.5.2), and the ending line "."."""
    if b"\r" in message:
        message = message.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    message = message.replace(b"\n", b"\r\n")
    if not message.endswith(b"\r\n"):
        message += b"\r\n"
    size = len(message)
    if message.startswith(b"."):
        message = b"." + message
    return size, message.replace(b"\n.", b"\n..") + b".\r\n"


async def transact(
    smtp: aiosmtplib.SMTP, message: bytes, *, sender: str, recipients: Sequence[str]
) -> tuple[dict[str, aiosmtplib.SMTPResponse], str]:
    """What ``aiosmtplib.SMTP.sendmail`` does, with the same exceptions: the recipients refused
    while others were taken, and the server's reply to the message. Raises ValueError for an
    address that cannot go on the wire, ``SMTPRecipientsRefused`` when every recipient was
    refused; after a refusal or a ValueError the envelope is reset (RSET) for the next
    transaction. The MAIL parameters are those the server offers (its EHLO reply must have
    been read) and the message needs: SIZE, BODY=8BITMIME for 8-bit bytes, SMTPUTF8 for an
    address that is not ASCII (without it, such an address raises ValueError)."""
    size, data = wire_form(message)
    mail_options = []
    if smtp.supports_extension("size"):
        mail_options.append(f"SIZE={size}")
    if not message.isascii() and smtp.supports_extension("8bitmime"):
        mail_options.append("BODY=8BITMIME")
    ascii_addresses = all(a.isascii() for a in (sender, *recipients))
    utf8 = not ascii_addresses and smtp.supports_extension("smtputf8")
    if utf8:
        mail_options.append("SMTPUTF8")
    encoding = "utf-8" if utf8 else "ascii"
    try:
        await smtp.mail(sender, options=mail_options, encoding=encoding)
        refused: list[aiosmtplib.SMTPRecipientRefused] = []
        for recipient in recipients:
            try:
                await smtp.rcpt(recipient, encoding=encoding)
            except aiosmtplib.SMTPRecipientRefused as error:
                refused.append(error)
        if len(refused) == len(recipients):
            raise aiosmtplib.SMTPRecipientsRefused(refused)
        reply = await _data(smtp, data)
    except (aiosmtplib.SMTPResponseException, aiosmtplib.SMTPRecipientsRefused, ValueError):
        # A refusal, or an address aiosmtplib would not put on the wire (after MAIL went out,
        # for a recipient): the envelope is reset, or the next MAIL would be a nested one.
        # The refusal is what the caller needs to hear, not a failed reset.
        with suppress(ConnectionError, aiosmtplib.SMTPResponseException):
            await smtp.rset()
        raise
    return {r.recipient: aiosmtplib.SMTPResponse(r.code, r.message) for r in refused}, reply


async def _data(smtp: aiosmtplib.SMTP, data: bytes) -> str:
    """DATA, then the message already in its wire form; the reply's text."""
    start = await smtp.execute_command(b"DATA")
    if start.code != SMTPStatus.start_input:
        raise aiosmtplib.SMTPDataError(start.code, start.message)
    protocol = smtp.protocol
    if protocol is None:
        raise aiosmtplib.SMTPServerDisconnected("Connection lost")
    try:
        protocol.write(data)
        reply = await protocol.read_response(timeout=smtp.timeout)
    except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError):
        smtp.close()  # as aiosmtplib does: a half-read reply must not meet the next command
        raise
    if reply.code != SMTPStatus.completed:
        raise aiosmtplib.SMTPDataError(reply.code, reply.message)
    return reply.message
