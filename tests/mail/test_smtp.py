"""The SMTP sender against a real aiosmtpd sink, and the local Maildir sender."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from aiosmtplib.protocol import PERIOD_REGEX, normalize_message_line_endings
from hypothesis import given
from hypothesis import strategies as st
from mailservers import HOST, SelfSignedCert, SmtpSink, free_port

from adjudicator.mail.maildir import MaildirReader
from adjudicator.mail.smtp import (
    LocalMaildirSender,
    SendResult,
    SendStatus,
    SmtpSender,
    SmtpSettings,
)
from adjudicator.mail.smtp_wire import wire_form

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def message(n: int, body: str = "Your orders were received.") -> bytes:
    return (
        f"From: Judge <judge@example.org>\r\n"
        f"To: player{n}@example.org\r\n"
        f"Subject: Receipt {n}\r\n"
        f"Message-ID: <receipt-{n}@example.org>\r\n"
        f"MIME-Version: 1.0\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Transfer-Encoding: 8bit\r\n"
        f"\r\n"
        f"{body}\r\n"
        f".leading dot, stuffed on the wire\r\n"
    ).encode()


def sender_for(sink: SmtpSink, **overrides: Any) -> SmtpSender:
    settings: dict[str, Any] = {"host": sink.host, "port": sink.port, "timeout": 5.0}
    return SmtpSender(SmtpSettings(**(settings | overrides)))


async def send_all(
    sender: SmtpSender, messages: Sequence[tuple[bytes, str, list[str]]]
) -> list[SendResult]:
    async with sender:
        return [await sender.send(raw, sender=frm, recipients=to) for raw, frm, to in messages]


def send_one(
    client: SmtpSender,
    raw: bytes = b"",
    *,
    sender: str = "bounce+1@judge.example.org",
    recipients: Sequence[str] = ("player1@example.org",),
) -> SendResult:
    return run(send_all(client, [(raw or message(1), sender, list(recipients))]))[0]


def test_many_messages_go_over_one_connection(smtp_sink: SmtpSink) -> None:
    batch = [
        (message(n), f"bounce+{n}@judge.example.org", [f"player{n}@example.org"])
        for n in range(1, 21)
    ]
    results = run(send_all(sender_for(smtp_sink), batch))
    assert [r.status for r in results] == [SendStatus.SENT] * 20
    received = smtp_sink.wait_for(20)
    assert smtp_sink.connections == 1
    # per-message envelope: the Return-Path is each player's own bounce address
    assert [(r.mail_from, r.rcpt_tos) for r in received] == [
        (frm, tuple(to)) for _, frm, to in batch
    ]
    assert [r.content for r in received] == [raw for raw, _, _ in batch]


def test_an_8bit_body_arrives_unchanged(smtp_sink: SmtpSink) -> None:
    """RFC 6152: a body with 8-bit bytes is declared BODY=8BITMIME (aiosmtpd offers it), on a
    new connection's first message too."""
    raw = message(1, body="Jürgen’s fleet: ✓")
    assert send_one(sender_for(smtp_sink), raw).sent
    received = smtp_sink.wait_for(1)[0]
    assert received.content == raw
    assert "BODY=8BITMIME" in received.mail_options


def test_line_ends_and_leading_dots_arrive_as_smtp_carries_them(smtp_sink: SmtpSink) -> None:
    """RFC 5321 2.3.8 and 4.5.2: every line end goes as CRLF, and a line that starts with
    "." (even a line that is only ".") arrives as it was, not as the end of the data."""
    raw = b".first line\nlone LF\r\nCRLF\rlone CR\r\r\n..two dots\n.\n\nlast line"
    arrived = (
        b".first line\r\nlone LF\r\nCRLF\r\nlone CR\r\n\r\n..two dots\r\n.\r\n\r\nlast line\r\n"
    )
    after = message(2)
    results = run(
        send_all(
            sender_for(smtp_sink),
            [(raw, "judge@example.org", ["a@example.org"]), (after, "", ["b@example.org"])],
        )
    )
    assert [r.sent for r in results] == [True, True]
    assert [r.content for r in smtp_sink.wait_for(2)] == [arrived, after]


def test_the_size_goes_with_every_message_from_the_first(smtp_sink: SmtpSink) -> None:
    """RFC 1870: SIZE is the message's octets with CRLF line ends, and the server (aiosmtpd
    offers SIZE) gets it on a new connection's first message too."""
    raws = [b"Subject: one\n\nshort\n", message(2, body="\n".join(["x" * 70] * 80))]
    run(send_all(sender_for(smtp_sink), [(r, "", ["a@example.org"]) for r in raws]))
    received = smtp_sink.wait_for(2)
    assert [r.mail_options for r in received] == [(f"SIZE={len(r.content)}",) for r in received]
    assert len(received[0].content) == len(b"Subject: one\r\n\r\nshort\r\n")


def test_a_first_message_to_an_address_that_is_not_ascii_goes_with_smtputf8(
    make_smtp_sink: Callable[..., SmtpSink],
) -> None:
    """RFC 6531: the server lists SMTPUTF8 in its EHLO reply, which must be read before the
    first MAIL of a connection, not only before the second."""
    sink = make_smtp_sink(smtputf8=True)  # as aiosmtpd's Controller does by default
    result = send_one(sender_for(sink), recipients=["jürgen@exämple.org"])
    assert result.sent, result
    received = sink.wait_for(1)[0]
    assert received.rcpt_tos == ("jürgen@exämple.org",)
    assert "SMTPUTF8" in received.mail_options


@given(
    st.binary(max_size=300) | st.lists(st.sampled_from([b"a", b".", b"\r", b"\n"])).map(b"".join)
)
def test_the_wire_form_is_what_aiosmtplib_makes_of_a_message(message: bytes) -> None:
    """The size and DATA of ``wire_form`` against aiosmtplib's own line-end normalising and
    dot-stuffing, which it replaces."""
    normalized = normalize_message_line_endings(message)
    assert wire_form(message) == (len(normalized), PERIOD_REGEX.sub(b"..", normalized) + b".\r\n")


def test_the_null_sender_is_allowed(smtp_sink: SmtpSink) -> None:
    """Bounces and auto-replies go out with an empty Return-Path (RFC 5321 4.5.5)."""
    assert send_one(sender_for(smtp_sink), sender="").sent
    assert smtp_sink.wait_for(1)[0].mail_from in ("", "<>")


def test_starttls(make_smtp_sink: Callable[..., SmtpSink], tls_cert: SelfSignedCert) -> None:
    sink = make_smtp_sink(tls="starttls")
    sender = sender_for(sink, tls="starttls", tls_context=tls_cert.client_context())
    assert send_one(sender).sent
    assert sink.wait_for(1)[0].tls


def test_plain_text_to_a_server_requiring_starttls_is_temporary(
    make_smtp_sink: Callable[..., SmtpSink],
) -> None:
    """530 is about our session (configuration), not the message: do not give it up."""
    sink = make_smtp_sink(tls="starttls")
    result = send_one(sender_for(sink))
    assert result.status is SendStatus.TEMPORARY
    assert result.code == 530
    assert "STARTTLS" in result.text


def test_implicit_tls(make_smtp_sink: Callable[..., SmtpSink], tls_cert: SelfSignedCert) -> None:
    sink = make_smtp_sink(tls="implicit")
    sender = sender_for(sink, tls="implicit", tls_context=tls_cert.client_context())
    assert send_one(sender).sent
    assert sink.wait_for(1)[0].tls


@pytest.mark.parametrize("tls", ["starttls", "implicit"])
def test_an_untrusted_certificate_is_temporary(
    make_smtp_sink: Callable[..., SmtpSink], tls: str
) -> None:
    sink = make_smtp_sink(tls=tls)
    result = send_one(sender_for(sink, tls=tls))  # the system's CAs do not know the sink
    assert result.status is SendStatus.TEMPORARY
    assert result.stage == ("tls" if tls == "starttls" else "connect")
    assert sink.received == []


def test_auth_accepted(make_smtp_sink: Callable[..., SmtpSink], tls_cert: SelfSignedCert) -> None:
    sink = make_smtp_sink(tls="starttls", accounts={"judge": "s3cret"}, require_auth=True)
    sender = sender_for(
        sink,
        tls="starttls",
        tls_context=tls_cert.client_context(),
        username="judge",
        password="s3cret",
    )
    assert send_one(sender).sent
    assert sink.wait_for(1)[0].login == "judge"


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_auth_refused_is_temporary(make_smtp_sink: Callable[..., SmtpSink]) -> None:
    sink = make_smtp_sink(accounts={"judge": "s3cret"}, require_auth=True)
    result = send_one(sender_for(sink, username="judge", password="wrong"))
    assert result.status is SendStatus.TEMPORARY
    assert (result.stage, result.code) == ("auth", 535)
    assert sink.received == []


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_auth_required_but_not_configured_is_temporary(
    make_smtp_sink: Callable[..., SmtpSink],
) -> None:
    sink = make_smtp_sink(accounts={"judge": "s3cret"}, require_auth=True)
    result = send_one(sender_for(sink))
    assert (result.status, result.code) == (SendStatus.TEMPORARY, 530)


@pytest.mark.parametrize(
    ("stage", "reply", "status"),
    [
        ("mail", "451 4.3.0 Try again later", SendStatus.TEMPORARY),
        ("rcpt", "450 4.2.1 Mailbox busy", SendStatus.TEMPORARY),
        ("data", "452 4.3.1 Insufficient system storage", SendStatus.TEMPORARY),
        ("mail", "553 5.1.8 Sender address rejected", SendStatus.PERMANENT),
        ("rcpt", "550 5.1.1 No such user here", SendStatus.PERMANENT),
        ("data", "554 5.6.0 Message content rejected", SendStatus.PERMANENT),
    ],
)
def test_refusals_are_classified_by_their_code(
    smtp_sink: SmtpSink, stage: str, reply: str, status: SendStatus
) -> None:
    smtp_sink.refuse(stage, reply, times=1)
    ok = (message(2), "bounce+2@judge.example.org", ["player2@example.org"])
    refused, after = run(send_all(sender_for(smtp_sink), [(message(1), ok[1], ok[2]), ok]))
    code, text = reply.split(" ", 1)
    assert (refused.status, refused.code, refused.text, refused.stage) == (
        status,
        int(code),
        text,
        stage,
    )
    # the next message goes through on the same connection (the envelope was reset)
    assert after.sent
    assert [r.content for r in smtp_sink.wait_for(1)] == [message(2)]
    assert smtp_sink.connections == 1


@pytest.mark.parametrize(
    ("recipient", "smtputf8"),
    [
        ("pl ayer@example.org", True),  # a space would end the address on the RCPT line
        ("jürgen@example.org", False),  # not ASCII, to a server that offers no SMTPUTF8
    ],
)
def test_an_address_that_cannot_go_on_the_wire_leaves_the_connection_usable(
    make_smtp_sink: Callable[..., SmtpSink], recipient: str, smtputf8: bool
) -> None:
    """The address is refused on our side, for good, after MAIL went out; the envelope is
    reset, so the next message goes through on the same connection instead of meeting
    "503 nested MAIL command"."""
    sink = make_smtp_sink(smtputf8=smtputf8)
    bad = (message(1), "bounce+1@judge.example.org", [recipient])
    ok = (message(2), "bounce+2@judge.example.org", ["player2@example.org"])
    refused, after = run(send_all(sender_for(sink), [bad, ok]))
    assert (refused.status, refused.stage) == (SendStatus.PERMANENT, "mail")
    assert after.sent, after
    assert [r.rcpt_tos for r in sink.wait_for(1)] == [("player2@example.org",)]
    assert sink.connections == 1


def test_a_refused_recipient_among_others_is_reported(smtp_sink: SmtpSink) -> None:
    smtp_sink.refuse("rcpt", "550 5.1.1 No such user", address="ghost@example.org")
    result = send_one(
        sender_for(smtp_sink), recipients=["player1@example.org", "ghost@example.org"]
    )
    assert result.sent
    assert result.refused == {"ghost@example.org": (550, "5.1.1 No such user")}
    assert smtp_sink.wait_for(1)[0].rcpt_tos == ("player1@example.org",)


def test_all_recipients_refused_mixed_codes_is_temporary(smtp_sink: SmtpSink) -> None:
    smtp_sink.refuse("rcpt", "550 5.1.1 No such user", address="ghost@example.org")
    smtp_sink.refuse("rcpt", "450 4.2.1 Busy", address="busy@example.org")
    result = send_one(sender_for(smtp_sink), recipients=["ghost@example.org", "busy@example.org"])
    assert result.status is SendStatus.TEMPORARY
    assert set(result.refused) == {"ghost@example.org", "busy@example.org"}


def test_server_down_is_temporary() -> None:
    port = free_port()  # nobody listens there
    result = send_one(SmtpSender(SmtpSettings(host=HOST, port=port, timeout=2)))
    assert (result.status, result.stage) == (SendStatus.TEMPORARY, "connect")
    assert result.code is None


def test_a_server_that_never_answers_is_temporary() -> None:
    with socket.socket() as listener:
        listener.bind((HOST, 0))
        listener.listen()
        port = listener.getsockname()[1]
        result = send_one(SmtpSender(SmtpSettings(host=HOST, port=port, timeout=0.3)))
    assert (result.status, result.stage) == (SendStatus.TEMPORARY, "connect")


def test_a_connection_dropped_by_the_server_is_reopened(smtp_sink: SmtpSink) -> None:
    async def scenario() -> list[SendResult]:
        async with sender_for(smtp_sink) as sender:
            first = await sender.send(message(1), sender="b@x.org", recipients=["p1@x.org"])
            smtp_sink.wait_for(1)
            smtp_sink.drop_connections()
            await asyncio.sleep(0.05)
            second = await sender.send(message(2), sender="b@x.org", recipients=["p2@x.org"])
            return [first, second]

    assert [r.status for r in run(scenario())] == [SendStatus.SENT, SendStatus.SENT]
    assert len(smtp_sink.wait_for(2)) == 2
    assert smtp_sink.connections == 2


def test_a_connection_dropped_unnoticed_is_reopened(
    smtp_sink: SmtpSink, caplog: pytest.LogCaptureFixture
) -> None:
    """The drop is seen only when the next command fails: one retry on a new connection."""

    async def scenario() -> list[SendResult]:
        async with sender_for(smtp_sink) as sender:
            first = await sender.send(message(1), sender="b@x.org", recipients=["p1@x.org"])
            # drop the connection while the client's loop is not looking
            done = threading.Event()
            threading.Thread(target=lambda: (smtp_sink.drop_connections(), done.set())).start()
            done.wait(5)
            second = await sender.send(message(2), sender="b@x.org", recipients=["p2@x.org"])
            return [first, second]

    caplog.set_level(logging.INFO, logger="adjudicator.mail.smtp")
    assert [r.status for r in run(scenario())] == [SendStatus.SENT, SendStatus.SENT]
    assert len(smtp_sink.wait_for(2)) == 2
    assert "reconnecting" in caplog.text  # the retry path, not a fresh connect


def test_concurrent_sends_share_the_connection(smtp_sink: SmtpSink) -> None:
    async def scenario() -> list[SendResult]:
        async with sender_for(smtp_sink) as sender:
            return await asyncio.gather(
                *(
                    sender.send(message(n), sender="b@x.org", recipients=[f"p{n}@x.org"])
                    for n in range(10)
                )
            )

    assert all(r.sent for r in run(scenario()))
    assert len(smtp_sink.wait_for(10)) == 10
    assert smtp_sink.connections == 1


def test_local_maildir_sender_keeps_the_envelope(tmp_path: Path) -> None:
    outbox = tmp_path / "outbox"

    async def scenario() -> SendResult:
        sender = LocalMaildirSender(outbox)
        try:
            return await sender.send(
                message(1), sender="bounce+1@judge.example.org", recipients=["a@x.org", "b@x.org"]
            )
        finally:
            await sender.close()

    result = run(scenario())
    assert result.sent
    assert result.stage == "local"
    got: list[bytes] = []
    assert MaildirReader(outbox, handle_batch=lambda raws, _: got.extend(raws)).run_once() == 1
    assert got == [
        b"Return-Path: <bounce+1@judge.example.org>\r\n"
        b"X-Envelope-To: a@x.org, b@x.org\r\n" + message(1)
    ]


def test_local_maildir_sender_reports_an_unwritable_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run(LocalMaildirSender(blocker / "outbox").send(b"x", sender="", recipients=["a@b"]))
    assert (result.status, result.stage) == (SendStatus.TEMPORARY, "local")
