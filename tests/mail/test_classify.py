"""Classification of mail that must not be answered (RFC 3834 and practice), and bounces."""

from __future__ import annotations

import pytest

from adjudicator.mail.classify import Bounce, MailKind, own_key
from adjudicator.mail.parse import read_mail

OWN = ("orders@judge.example", "Judge@Judge.Example")


def _mail(headers: str, body: str = "GIVE 3 TO bob\n", *, sender: str = "bob@example.org") -> bytes:
    head = f"From: Bob <{sender}>\nTo: orders+t0k3n@judge.example\nSubject: [gw42] orders\n"
    return (head + headers + ("\n" if headers and not headers.endswith("\n") else "")).encode() + (
        b"\n" + body.encode()
    )


def _kind(raw: bytes, **kwargs: object) -> tuple[MailKind, str]:
    mail = read_mail(raw, own_addresses=OWN, **kwargs)  # type: ignore[arg-type]
    return mail.kind, mail.kind_reason


def test_ordinary_mail() -> None:
    """A player's mail is ordinary and its lines are read."""
    mail = read_mail(_mail(""), own_addresses=OWN)
    assert (mail.kind, mail.kind_reason) == (MailKind.ORDINARY, "")
    assert mail.lines == ("GIVE 3 TO bob",)


@pytest.mark.parametrize(
    "value", ["auto-replied", "auto-generated", "auto-notified", "Auto-Replied (vacation)"]
)
def test_auto_submitted_other_than_no_is_an_auto_reply(value: str) -> None:
    """RFC 3834: Auto-Submitted other than ``no`` must not be answered."""
    kind, reason = _kind(_mail(f"Auto-Submitted: {value}"))
    assert kind is MailKind.AUTO_REPLY
    assert reason.startswith("Auto-Submitted: auto-")


def test_auto_submitted_no_is_ordinary() -> None:
    """Auto-Submitted: no is a person's mail."""
    assert _kind(_mail("Auto-Submitted: no"))[0] is MailKind.ORDINARY


@pytest.mark.parametrize("value", ["bulk", "junk", "auto_reply", "BULK"])
def test_precedence_bulk_junk_auto_reply(value: str) -> None:
    """Precedence bulk/junk/auto_reply: not answered."""
    assert _kind(_mail(f"Precedence: {value}")) == (
        MailKind.AUTO_REPLY,
        f"Precedence: {value.lower()}",
    )


def test_precedence_first_class_is_ordinary() -> None:
    """Other Precedence values (first-class, normal) are ordinary."""
    assert _kind(_mail("Precedence: first-class"))[0] is MailKind.ORDINARY


@pytest.mark.parametrize("header", ["X-Autoreply: yes", "X-Autorespond: vacation"])
def test_autoreply_headers(header: str) -> None:
    """X-Autoreply, X-Autorespond: not answered."""
    assert _kind(_mail(header))[0] is MailKind.AUTO_REPLY


LIST_FIELDS = ["List-Id: <games.lists.example>", "List-Unsubscribe: <mailto:leave@lists.example>",
               "List-Post: <mailto:games@lists.example>", "Precedence: list"]  # fmt: skip


@pytest.mark.parametrize("header", LIST_FIELDS)
def test_a_list_copy_without_orders_is_not_answered(header: str) -> None:
    """A mailing list's copy (its List-* fields, ``Precedence: list``) is a robot's mail
    unless its text holds orders: a remark posted to the game's list is not answered."""
    assert _kind(_mail(header, "Good game, all!\n"))[0] is MailKind.AUTO_REPLY


@pytest.mark.parametrize("header", LIST_FIELDS)
def test_orders_posted_to_a_list_are_read(header: str) -> None:
    """Orders are never dropped to keep a robot quiet: a player who posts his orders to the
    game's list has them read, and the note says why."""
    mail = read_mail(_mail(header), own_addresses=OWN)
    assert (mail.kind, mail.lines) == (MailKind.ORDINARY, ("GIVE 3 TO bob",))
    assert any("its text holds orders" in note for note in mail.notes)


@pytest.mark.parametrize(
    "subject", ["Automatic reply: [gw42] orders", "Out of Office: orders", "Auto-Reply: x"]
)
def test_automatic_reply_subjects(subject: str) -> None:
    """Exchange and others mark vacation replies in the subject."""
    raw = _mail("", "I am out of the office until Monday.\n").replace(
        b"Subject: [gw42] orders", f"Subject: {subject}".encode()
    )
    assert _kind(raw) == (MailKind.AUTO_REPLY, "automatic reply subject")


@pytest.mark.parametrize(
    "subject",
    ["Auto: [gw42] orders", "[gw42] I am away until Monday", "Vacation: [gw42] orders",
     "Out of Office: [gw42] orders", "[gw42] orders - away until the 12th"],
)  # fmt: skip
def test_a_vacation_subject_over_orders_is_read(subject: str) -> None:
    """A subject alone is no proof of a robot: a player may write "away until Monday" over
    his orders, or his mail program may put "Auto:" in front. Orders are never dropped for a
    subject: the mail is read, and the note says why."""
    raw = _mail("", "GIVE 3 TO bob\n").replace(
        b"Subject: [gw42] orders", f"Subject: {subject}".encode()
    )
    mail = read_mail(raw, own_addresses=OWN)
    assert (mail.kind, mail.lines) == (MailKind.ORDINARY, ("GIVE 3 TO bob",))
    assert any("its text holds orders" in note for note in mail.notes)


def test_a_vacation_subject_over_quoted_orders_is_a_vacation_notice() -> None:
    """An auto-responder that quotes the mail it answers quotes old orders: they are not
    the writer's, and the mail stays a vacation notice."""
    raw = _mail("", "I am away until Monday.\n\n> GIVE 3 TO bob\n").replace(
        b"Subject: [gw42] orders", b"Subject: Auto: [gw42] orders"
    )
    assert _kind(raw)[0] is MailKind.AUTO_REPLY


def test_x_loop_naming_our_address_is_a_loop() -> None:
    """X-Loop naming one of own_addresses: our own mail come back."""
    assert _kind(_mail("X-Loop: orders@judge.example"))[0] is MailKind.LOOP
    assert _kind(_mail("X-Loop: Orders+abc@JUDGE.example"))[0] is MailKind.LOOP


def test_x_loop_naming_someone_else_is_ordinary() -> None:
    """X-Loop of another robot is not our loop."""
    assert _kind(_mail("X-Loop: robot@elsewhere.example"))[0] is MailKind.ORDINARY


@pytest.mark.parametrize("sender", ["orders@judge.example", "ORDERS+x1@Judge.Example"])
def test_from_our_own_address_is_own(sender: str) -> None:
    """From equal to one of own_addresses (any case, any +tag): own."""
    assert _kind(_mail("", sender=sender))[0] is MailKind.OWN


def test_own_key_folds_case_and_tags() -> None:
    """Own addresses compare without case and without a ``+tag``."""
    assert own_key(" Orders+TOKEN@Judge.Example ") == "orders@judge.example"


DSN = """\
From: Mail Delivery System <MAILER-DAEMON@mx.example.org>
To: orders@judge.example
Subject: Undelivered Mail Returned to Sender
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="r"

--r
Content-Type: text/plain

This is the mail system. Your message could not be delivered.

--r
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org

Original-Recipient: rfc822;Bob@Example.ORG
Final-Recipient: rfc822; bob@mailhost.example.org
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 unknown user

--r
Content-Type: text/rfc822-headers

From: orders@judge.example
To: bob@example.org
Message-ID: <round-7.gw42@judge.example>
Subject: [gw42] round 7

--r--
"""


def test_delivery_status_report_is_a_bounce_with_its_details() -> None:
    """multipart/report (delivery-status): bounce; the original recipient and Message-ID are
    extracted so the bounce can be matched to the player."""
    mail = read_mail(DSN.encode(), own_addresses=OWN)
    assert mail.kind is MailKind.BOUNCE
    assert mail.bounce == Bounce(
        recipients=("Bob@example.org",),
        message_id="<round-7.gw42@judge.example>",
        action="failed",
        status="5.1.1",
        diagnostic="550 5.1.1 unknown user",
    )
    assert mail.lines == ()


def test_the_servers_words_are_kept_whole_even_with_semicolons() -> None:
    text = "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"
    dsn = DSN.replace(
        "Diagnostic-Code: smtp; 550 5.1.1 unknown user", f"Diagnostic-Code: smtp; {text}"
    )
    assert dsn != DSN
    mail = read_mail(dsn.encode(), own_addresses=OWN)
    assert mail.bounce is not None
    assert mail.bounce.diagnostic == text


def test_delivery_status_part_inside_mixed_mail_is_a_bounce() -> None:
    """A message/delivery-status part anywhere: bounce."""
    raw = (
        b"From: postmaster-robot@example.org\nTo: orders@judge.example\nSubject: failure\n"
        b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=m\n\n"
        b"--m\nContent-Type: text/plain\n\nfailed\n"
        b"--m\nContent-Type: message/delivery-status\n\n"
        b"Reporting-MTA: dns; x\n\nFinal-Recipient: rfc822; carol@example.net\nAction: failed\n"
        b"--m--\n"
    )
    mail = read_mail(raw, own_addresses=OWN)
    assert mail.kind is MailKind.BOUNCE
    assert mail.bounce is not None
    assert mail.bounce.recipients == ("carol@example.net",)


@pytest.mark.parametrize("sender", ["MAILER-DAEMON@mx.example.org", "postmaster@example.org"])
def test_mailer_daemon_or_postmaster_is_a_bounce(sender: str) -> None:
    """From MAILER-DAEMON or postmaster: bounce."""
    assert _kind(_mail("", sender=sender)) == (MailKind.BOUNCE, f"From {sender}")


def test_empty_return_path_is_a_bounce() -> None:
    """An empty Return-Path ``<>`` (null reverse path) without auto-reply headers: bounce."""
    assert _kind(_mail("Return-Path: <>")) == (MailKind.BOUNCE, "Return-Path: <>")


def test_empty_return_path_with_auto_submitted_is_an_auto_reply() -> None:
    """Vacation replies also use ``<>`` (RFC 3834, 3.3): their headers say what they are."""
    assert _kind(_mail("Return-Path: <>\nAuto-Submitted: auto-replied"))[0] is MailKind.AUTO_REPLY


def test_non_standard_bounces_give_recipients_from_exim_and_qmail_forms() -> None:
    """Without a DSN: X-Failed-Recipients (Exim), or a qmail ``<address>:`` line; the Message-ID
    of our mail quoted in the text."""
    exim = _mail("X-Failed-Recipients: bob@example.org", sender="MAILER-DAEMON@mx.example")
    mail = read_mail(exim)
    assert mail.bounce is not None
    assert mail.bounce.recipients == ("bob@example.org",)
    qmail_body = (
        "Hi. This is the qmail-send program.\n\n<carol@Example.NET>:\nmailbox full\n\n"
        "--- Below this line is a copy of the message.\n\nMessage-ID: <r7@judge.example>\n"
    )
    mail = read_mail(_mail("", qmail_body, sender="MAILER-DAEMON@mx.example"))
    assert mail.bounce == Bounce(("carol@example.net",), "<r7@judge.example>", "", "")


def test_read_receipt_is_an_auto_reply() -> None:
    """A multipart/report that is not a delivery report (read receipt): auto reply."""
    raw = _mail('MIME-Version: 1.0\nContent-Type: multipart/report; '
                'report-type=disposition-notification; boundary="r"', "--r\n\nread\n--r--\n")  # fmt: skip
    assert _kind(raw) == (
        MailKind.AUTO_REPLY,
        "multipart/report; report-type=disposition-notification",
    )


def test_oversized_mail_body_is_not_read() -> None:
    """Larger than max_bytes: oversized, headers read, body not parsed."""
    raw = _mail("", "GIVE 3 TO bob\n" + "x" * 2000)
    mail = read_mail(raw, own_addresses=OWN, max_bytes=1000)
    assert mail.kind is MailKind.OVERSIZED
    assert mail.kind_reason == f"{len(raw)} bytes, more than the limit of 1000"
    assert mail.sender == "bob@example.org"
    assert mail.subject == "[gw42] orders"
    assert mail.lines == ()


def test_oversized_bounce_is_still_a_bounce() -> None:
    """A must-not-answer kind wins over oversized (we would not answer it anyway)."""
    raw = DSN.encode() + b"x" * 5000
    assert _kind(raw, max_bytes=1000)[0] is MailKind.BOUNCE


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty message"),
        (b" \r\n\t", "empty message"),
        (b"just some text\nwithout headers\n", "no header fields"),
        (b"Subject: hello\n\nGIVE 3 TO bob\n", "no sender address in From"),
        (b"From: Bob\nSubject: hello\n\nGIVE 3 TO bob\n", "no sender address in From"),
    ],
)
def test_unreadable_mail_says_why(raw: bytes, reason: str) -> None:
    """Messages that cannot be parsed or answered at all: unreadable, with the reason."""
    assert _kind(raw) == (MailKind.UNREADABLE, reason)


def test_own_wins_over_auto_reply() -> None:
    """The first rule that applies decides: own, loop, bounce, auto reply, oversized."""
    raw = _mail("Auto-Submitted: auto-generated\nX-Loop: orders@judge.example", sender=OWN[0])
    assert _kind(raw)[0] is MailKind.OWN
    assert _kind(_mail("Auto-Submitted: auto-generated\nX-Loop: orders@judge.example"))[0] is (
        MailKind.LOOP
    )
