"""Real mails (talon, mail-parser and CPython corpora) and order-bearing mails built from them.

The expected reply texts below were read off the raw fixtures by hand.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from adjudicator.mail.body import body_lines, html_to_text
from adjudicator.mail.parse import Bounce, MailKind, read_mail, split_sections
from adjudicator.mail.quotes import split_reply

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mail"
ALL_MAILS = sorted(
    path
    for folder in ("talon", "mail-parser", "cpython", "orders")
    for path in (FIXTURES / folder).rglob("*")
    if path.suffix in (".eml", ".txt") and "LICENSE" not in path.name
)


def _read(relative: str) -> list[str]:
    return [line for line in read_mail((FIXTURES / relative).read_bytes()).lines if line.strip()]


@pytest.mark.parametrize("path", ALL_MAILS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_real_mail_is_read_without_error(path: Path) -> None:
    """No vendored mail makes the reader fail (an internal error would be a bug)."""
    mail = read_mail(path.read_bytes())
    assert not mail.kind_reason.startswith(("internal error", "parser error"))


STANDARD_REPLIES = ["android", "aol", "apple_mail", "apple_mail_2", "comcast", "gmail", "hotmail",
                    "iphone", "outlook", "sparrow", "thunderbird", "yahoo"]  # fmt: skip


@pytest.mark.parametrize("client", STANDARD_REPLIES)
def test_talon_standard_replies_give_only_the_reply(client: str) -> None:
    """Every client's reply says just "Hello" above (Thunderbird: below) its quoted "Hi"."""
    assert _read(f"talon/standard_replies/{client}.eml") == ["Hello"]


def test_yahoo_share_block_reply() -> None:
    """Yahoo's ``--- On <date>, <x> wrote:`` and the quoted headers below it are cut."""
    lines = _read("talon/reply-quotations-share-block.eml")
    assert len(lines) == 2
    assert lines[0].startswith("Hi Katharine.  Sounds great.  Are there and dietry")
    assert lines[1] == "Joe XXX"


@pytest.mark.parametrize(
    "client",
    ["gmail", "hotmail", "mail_ru", "ms_outlook_2003", "ms_outlook_2007", "ms_outlook_2010",
     "thunderbird", "windows_mail", "yandex_ru"],
)  # fmt: skip
def test_talon_html_replies_give_only_the_reply(client: str) -> None:
    """HTML replies of nine clients (Russian ones included) give the reply and nothing quoted;
    the sign-off below it ("Thanks," and a name) is the signature, not text to echo."""
    html = (FIXTURES / "talon" / "html_replies" / f"{client}.html").read_text(encoding="utf-8")
    split = split_reply(body_lines(html_to_text(html)))
    assert [line for line in split.text if line.strip()] == ["Hi. I am fine."]
    assert [line for line in split.signature if line.strip()] == ["Thanks,", "Alex"]


# --- mail-parser samples (real mail in the wild) -------------------------------------------------


def test_mail_parser_outlook_for_ios_with_text_attachment() -> None:
    """mail_test_3: QP soft break joined; the attached message.txt (a firewall's notice) holds
    no orders and is not named as orders, so it is not read (and not echoed back)."""
    mail = read_mail((FIXTURES / "mail-parser/mail_test_3.eml").read_bytes())
    assert mail.lines[0] == (
        "I am sending you the bills of the goods we delivered to you in the attachment"
    )
    assert mail.attachments_used == ()
    assert "Your network administrator can not restore this attachment." not in mail.lines


def test_mail_parser_gb2312_label_on_utf8_text() -> None:
    """mail_test_12: 8-bit text labelled GB2312 that is really UTF-8; From name in GB2312."""
    mail = read_mail((FIXTURES / "mail-parser/mail_test_12.eml").read_bytes())
    assert mail.sender_name == "张先生"
    assert mail.lines[0].startswith("你好！我公司可代开各类增值税发票")


@pytest.mark.parametrize(("name", "reason"), [("mail_test_5", "Precedence: bulk"),
                                              ("mail_test_16", "Precedence: junk")])  # fmt: skip
def test_mail_parser_bulk_and_junk_are_not_answered(name: str, reason: str) -> None:
    """A newsletter (Precedence: bulk) and GTUBE (Precedence: junk) are auto replies."""
    mail = read_mail((FIXTURES / f"mail-parser/{name}.eml").read_bytes())
    assert (mail.kind, mail.kind_reason) == (MailKind.AUTO_REPLY, reason)


def test_mail_parser_blank_plain_alternative_falls_back_to_html() -> None:
    """mail_test_17: an empty text/plain alternative; the HTML says "Test"."""
    assert _read("mail-parser/mail_test_17.eml") == ["Test"]


def test_mail_parser_address_oddities() -> None:
    """mail_test_18/19: encoded names with commas, names that are addresses, mixed lists."""
    mail = read_mail((FIXTURES / "mail-parser/mail_test_18.eml").read_bytes())
    assert (mail.sender, mail.sender_name) == ("comma.name@example.com", "LastßlName, FirstName")
    assert mail.to == ("tony.stark@example.com",)
    assert mail.cc == ("simple@example.net", "john.doe@example.com")
    mail = read_mail((FIXTURES / "mail-parser/mail_test_19.eml").read_bytes())
    assert (mail.sender, mail.sender_name) == ("bob@example.com", "alice@example.com")
    assert mail.to == ("charlie@example.com", "dave@example.com")
    assert mail.cc == ("frank@example.com",)
    assert mail.reply_to == ("ivan@example.com",)


def test_mail_parser_dsn_bounce() -> None:
    """mail_malformed_2: a real DSN from postmaster with Return-Path <>; the failed recipient
    and the Message-ID of the returned headers."""
    mail = read_mail((FIXTURES / "mail-parser/mail_malformed_2.eml").read_bytes())
    assert mail.kind is MailKind.BOUNCE
    assert mail.bounce == Bounce(
        recipients=("abh@netpar.com.br",),
        message_id="<004801d1fc84$01c934ac$b247f0b7$@infospacemail.com>",
        action="failed",
        status="4.2.2",
    )


# --- CPython test_email data --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "recipients", "message_id"),
    [
        ("msg_05", (), None),
        ("msg_16", ("jangel1@cougar.noc.ucla.edu",), "<002001c144a6$8752e060$56104586@oxy.edu>"),
        ("msg_25", ("scoffman@wellpartner.com",), "<01040616033903.00962@server>"),
    ],
)
def test_cpython_bounces(name: str, recipients: tuple[str, ...], message_id: str | None) -> None:
    """CPython's delivery reports, msg_25 with a broken boundary (fields read from the text)."""
    mail = read_mail((FIXTURES / f"cpython/{name}.txt").read_bytes())
    assert mail.kind is MailKind.BOUNCE
    assert mail.bounce is not None
    assert (mail.bounce.recipients, mail.bounce.message_id) == (recipients, message_id)


def test_cpython_transfer_encodings() -> None:
    """msg_10: 7bit, quoted-printable, base64 and no encoding, in one mail."""
    assert _read("cpython/msg_10.txt") == [
        "This is a 7bit encoded message.",
        "¡This is a Quoted Printable encoded message!",
        "This is a Base64 encoded message.",
        "This is a Base64 encoded message.",
        "This has no Content-Transfer-Encoding: header.",
    ]


def test_cpython_odd_structures() -> None:
    """Signed (msg_45), forwarded-only (msg_06), header-less (msg_19) mails."""
    assert _read("cpython/msg_45.txt") == ["This is the signed contents."]
    assert _read("cpython/msg_06.txt") == []
    assert read_mail((FIXTURES / "cpython/msg_19.txt").read_bytes()).kind_reason == (
        "no header fields"
    )


# --- order-bearing mails built from real replies -----------------------------------------------

EXPECTED = json.loads((FIXTURES / "orders" / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_orders_placed_in_real_replies_are_read_exactly(case: str) -> None:
    """The lines placed at the top of a real reply are read exactly, with the reply's own text,
    and nothing from the quoted part."""
    mail = read_mail((FIXTURES / "orders" / f"{case}.eml").read_bytes())
    assert mail.kind is MailKind.ORDINARY
    assert [line.strip() for line in mail.lines if line.strip()] == EXPECTED[case]["lines"]
    assert list(mail.attachments_used) == EXPECTED[case]["attachments"]


def test_two_games_in_a_real_reply() -> None:
    """A Gmail reply carrying orders for two games and a password."""
    mail = read_mail((FIXTURES / "orders" / "gmail_two_games.eml").read_bytes())
    sections = split_sections(mail.lines, subject=mail.subject)
    assert [(s.game, s.secret, [line.text for line in s.lines]) for s in sections] == [
        ("gw1", "hunter2", ["GIVE 3 TO bob"]),
        ("gw2", None, ["a1-a2", "Hello"]),
    ]


def _make_orders() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_orders", FIXTURES / "make_orders.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_orders", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_order_fixtures_are_those_the_script_builds() -> None:
    """orders/*.eml are exactly what make_orders.py builds (so they can be rebuilt and read)."""
    module = _make_orders()
    for case in module.CASES:
        assert module.build(case) == (FIXTURES / "orders" / f"{case.name}.eml").read_bytes()
