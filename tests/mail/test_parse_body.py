"""Body extraction and reply cutting (issue 5, part 3): one test per rule, the rule in its docstring."""

from __future__ import annotations

import base64

import pytest

from adjudicator.mail.body import cut_reply, decode_bytes, decode_words, unflow
from adjudicator.mail.parse import read_mail

HEAD = "From: Bob <bob@example.org>\nTo: orders@judge.example\nSubject: [gw42] orders\n"


def _mail(body: str | bytes, *, content_type: str = "text/plain; charset=utf-8", cte: str = "8bit",
          extra: str = "") -> bytes:  # fmt: skip
    head = f"{HEAD}{extra}MIME-Version: 1.0\nContent-Type: {content_type}\n"
    head += f"Content-Transfer-Encoding: {cte}\n\n" if cte else "\n"
    data = body.encode("utf-8") if isinstance(body, str) else body
    return head.encode("ascii") + data


def _text(raw: bytes) -> list[str]:
    """The non-blank lines read from a mail."""
    return [line for line in read_mail(raw).lines if line.strip()]


def _cut(text: str) -> list[str]:
    return [line for line in cut_reply(text.split("\n"))[0] if line.strip()]


# --- MIME structure -------------------------------------------------------------------------

ALTERNATIVE = """\
Content-Type: multipart/alternative; boundary="b1"

--b1
Content-Type: text/plain; charset=us-ascii

{plain}
--b1
Content-Type: text/html; charset=us-ascii

{html}
--b1--
"""


def _alternative(plain: str, html: str) -> bytes:
    return (HEAD + "MIME-Version: 1.0\n" + ALTERNATIVE.format(plain=plain, html=html)).encode()


def test_alternative_prefers_plain_text() -> None:
    """multipart/alternative: prefer text/plain."""
    raw = _alternative("GIVE 3 TO bob", "<p>GIVE 9 TO carol</p>")
    assert _text(raw) == ["GIVE 3 TO bob"]


def test_alternative_falls_back_to_html_when_plain_is_blank() -> None:
    """multipart/alternative: fall back to text/html when the plain part says nothing."""
    raw = _alternative("  ", "<div>GIVE 3 TO bob</div>")
    assert _text(raw) == ["GIVE 3 TO bob"]


def test_html_only_mail_is_converted_to_text() -> None:
    """HTML-only mail: read as shown, with no wrapping and no links; blockquotes are quotes."""
    long_line = "GIVE 1 TO bob " + "x" * 120
    html = (
        f"<html><body><div>GIVE 3 TO <a href='http://x'>bob</a></div><div>{long_line}</div>"
        "<blockquote>GIVE 9 TO mallory</blockquote></body></html>"
    )
    raw = _mail(html, content_type="text/html; charset=utf-8")
    assert _text(raw) == ["GIVE 3 TO bob", long_line]


def test_html_markdown_escapes_are_undone() -> None:
    """Dashes, numbers, plus signs and backslashes reach the orders as written."""
    html = "<div>- GIVE 3 TO bob</div><div>1. a1-a2</div><div>+ b2</div><div>a\\b \\-</div>"
    raw = _mail(html, content_type="text/html; charset=utf-8")
    assert _text(raw) == ["- GIVE 3 TO bob", "1. a1-a2", "+ b2", "a\\b \\-"]


def test_html_table_cells_are_kept_apart_and_struck_text_dropped() -> None:
    """HTML tables: cells separated by a space; struck-out text is dropped (crossed out)."""
    html = "<table><tr><td>GIVE</td><td>3 TO bob</td></tr></table><div><s>GIVE 9 TO x</s></div>"
    raw = _mail(html, content_type="text/html; charset=utf-8")
    assert [line.strip() for line in _text(raw)] == ["GIVE 3 TO bob"]


def test_inline_text_parts_of_mixed_mail_are_read_in_order() -> None:
    """multipart/mixed: every inline text part in order (Apple Mail splits around a picture)."""
    raw = (
        HEAD + "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=m\n\n"
        "--m\nContent-Type: text/plain\n\nGIVE 1 TO bob\n"
        "--m\nContent-Type: image/png\nContent-Disposition: inline; filename=a.png\n"
        "Content-Transfer-Encoding: base64\n\niVBORw0KGgo=\n"
        "--m\nContent-Type: text/plain\n\nGIVE 2 TO carol\n--m--\n"
    ).encode()
    assert _text(raw) == ["GIVE 1 TO bob", "GIVE 2 TO carol"]


def test_text_attachment_is_read() -> None:
    """A text/plain ``*.txt`` attachment is read too (``get_body()`` would ignore it)."""
    orders = base64.b64encode(b"GIVE 3 TO bob\nGIVE 2 TO carol\n").decode()
    raw = (
        HEAD + "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=m\n\n"
        "--m\nContent-Type: text/plain\n\nSee attached.\n"
        "--m\nContent-Type: text/plain; charset=utf-8; name=orders.txt\n"
        'Content-Disposition: attachment; filename="orders.txt"\n'
        f"Content-Transfer-Encoding: base64\n\n{orders}\n--m--\n"
    ).encode()
    mail = read_mail(raw)
    assert mail.attachments_used == ("orders.txt",)
    assert mail.lines == ("See attached.", "", "GIVE 3 TO bob", "GIVE 2 TO carol")


@pytest.mark.parametrize(
    ("ctype", "name", "read"),
    [
        ("application/octet-stream", "ORDERS.TXT", True),
        ("text/plain", "notes.csv", False),
        ("text/html", "orders.html", False),
    ],
)
def test_only_txt_attachments_are_read(ctype: str, name: str, read: bool) -> None:
    """Attachments are read when named ``*.txt`` (text/plain or application/octet-stream)."""
    raw = (
        HEAD + "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=m\n\n"
        "--m\nContent-Type: text/plain\n\nBody.\n"
        f"--m\nContent-Type: {ctype}\nContent-Disposition: attachment; filename={name}\n\n"
        "GIVE 3 TO bob\n--m--\n"
    ).encode()
    mail = read_mail(raw)
    assert mail.attachments_used == ((name,) if read else ())
    assert ("GIVE 3 TO bob" in mail.lines) is read


def _with_attachment(body: str, name: str, attached: str) -> bytes:
    return (
        HEAD + "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=m\n\n"
        f"--m\nContent-Type: text/plain\n\n{body}\n"
        f"--m\nContent-Type: text/plain\nContent-Disposition: attachment; filename={name}\n\n"
        f"{attached}\n--m--\n"
    ).encode()


@pytest.mark.parametrize(
    ("body", "name", "attached", "read"),
    [
        ("GIVE 3 TO bob", "notes.txt", "Meeting at 10\nBring snacks", False),
        ("GIVE 3 TO bob", "notes.txt", "GIVE 9 TO mallory", False),  # the body has the orders
        ("Hi, my orders are attached.", "notes.txt", "GIVE 3 TO bob", True),
        ("Hi, here is the file.", "minutes.txt", "Meeting at 10\nBring snacks", False),
        ("GIVE 3 TO bob", "orders-round3.txt", "GIVE 1 TO carol", True),  # named as orders
    ],
)
def test_a_text_attachment_is_read_only_when_it_is_the_orders(
    body: str, name: str, attached: str, read: bool
) -> None:
    """A ``*.txt`` attachment counts when named as orders, or when the mail's text has no
    orders and the attachment does; otherwise it is not read, so not echoed back either."""
    mail = read_mail(_with_attachment(body, name, attached))
    assert mail.attachments_used == ((name,) if read else ())
    assert (attached.splitlines()[0] in mail.lines) is read


def test_forwarded_message_is_not_read() -> None:
    """A forwarded message (message/rfc822) is someone else's mail: not read."""
    raw = (
        HEAD + "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=m\n\n"
        "--m\nContent-Type: text/plain\n\nGIVE 1 TO bob\n"
        "--m\nContent-Type: message/rfc822\n\nFrom: x@y\nSubject: old\n\nGIVE 9 TO mallory\n--m--\n"
    ).encode()
    assert _text(raw) == ["GIVE 1 TO bob"]


def test_signed_mail_reads_the_signed_part() -> None:
    """multipart/signed: the signed content is the body, the signature is not."""
    raw = (
        HEAD + "MIME-Version: 1.0\n"
        'Content-Type: multipart/signed; protocol="application/pgp-signature"; boundary=s\n\n'
        "--s\nContent-Type: text/plain\n\nGIVE 1 TO bob\n"
        "--s\nContent-Type: application/pgp-signature\n\n-----BEGIN PGP SIGNATURE-----\n--s--\n"
    ).encode()
    assert _text(raw) == ["GIVE 1 TO bob"]


def test_related_html_reads_its_root() -> None:
    """multipart/related: its root part (the HTML), not the pictures."""
    raw = (
        HEAD + "MIME-Version: 1.0\nContent-Type: multipart/related; boundary=r\n\n"
        "--r\nContent-Type: text/html\n\n<p>GIVE 1 TO bob</p>\n"
        "--r\nContent-Type: text/plain\nContent-ID: <x>\n\nnot this\n--r--\n"
    ).encode()
    assert _text(raw) == ["GIVE 1 TO bob"]


# --- transfer encodings and charsets ----------------------------------------------------------


def test_quoted_printable_with_soft_breaks() -> None:
    """Quoted-printable: ``=`` at a line end joins lines; ``=E4`` is a byte."""
    raw = _mail(
        "GIVE 3 TO b=\nob\nGr=C3=B6=C3=9Fe\n",
        content_type="text/plain; charset=utf-8",
        cte="quoted-printable",
    )
    assert _text(raw) == ["GIVE 3 TO bob", "Größe"]


def test_base64_body() -> None:
    """Base64 bodies are decoded (here in Latin-1)."""
    body = base64.encodebytes("GIVE 3 TO bob\nGröße\n".encode("latin-1")).decode()
    raw = _mail(body, content_type="text/plain; charset=iso-8859-1", cte="base64")
    assert _text(raw) == ["GIVE 3 TO bob", "Größe"]


@pytest.mark.parametrize(
    ("charset", "text"),
    [
        ("utf-8", "Grüße, Привет, こんにちは"),
        ("iso-8859-1", "Grüße aus Köln"),
        ("windows-1252", "“Grüße” – €5"),
        ("windows-1251", "Привет из Москвы"),
        ("koi8-r", "Здравствуйте"),
        ("shift_jis", "こんにちは、ボブ"),
        ("gb2312", "你好"),
        ("euc-kr", "안녕하세요"),
        ("iso-8859-15", "Œuvre €"),
    ],
)
def test_declared_charset_is_used(charset: str, text: str) -> None:
    """Any declared charset is decoded."""
    raw = _mail(
        f"{text}\nGIVE 3 TO bob\n".encode(charset), content_type=f"text/plain; charset={charset}"
    )
    assert _text(raw) == [text, "GIVE 3 TO bob"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [("Größe".encode(), "Größe"), ("Größe €".encode("cp1252"), "Größe €")],
)
def test_unknown_charset_tries_utf8_then_cp1252(data: bytes, expected: str) -> None:
    """Unknown charset (``x-klingon``): UTF-8, then cp1252."""
    raw = _mail(data + b"\nGIVE 3 TO bob\n", content_type="text/plain; charset=x-klingon")
    mail = read_mail(raw)
    assert [line for line in mail.lines if line] == [expected, "GIVE 3 TO bob"]


@pytest.mark.parametrize(
    ("declared", "data", "expected"),
    [
        ("us-ascii", "Grüße".encode(), "Grüße"),
        ("us-ascii", "Grüße".encode("cp1252"), "Grüße"),
        ("iso-8859-1", "Grüße".encode(), "Grüße"),
        ("utf-8", "Grüße “x”".encode("cp1252"), "Grüße “x”"),
    ],
)
def test_mislabelled_8bit_text(declared: str, data: bytes, expected: str) -> None:
    """Mislabelled 8-bit text: valid UTF-8 is UTF-8; other bytes that fail are cp1252."""
    assert decode_bytes(data, declared)[0] == expected


def test_missing_charset_is_utf8_then_cp1252() -> None:
    """No charset parameter: UTF-8, else cp1252."""
    assert decode_bytes("é".encode(), None) == ("é", None)
    assert decode_bytes("é".encode("cp1252"), None)[0] == "é"


def test_utf8_byte_order_mark_is_dropped() -> None:
    """A UTF-8 BOM at the start of a part is not part of the first line."""
    raw = _mail(b"\xef\xbb\xbfGIVE 3 TO bob\n", content_type="text/plain; charset=utf-8")
    assert read_mail(raw).lines[0] == "GIVE 3 TO bob"


def test_non_breaking_spaces_become_spaces_and_crlf_ends_lines() -> None:
    """Non-breaking (and other Unicode) spaces are spaces; CRLF and lone CR end lines."""
    raw = _mail("GIVE\u00a03\u202fTO bob\r\nGIVE 1 TO carol\rGIVE 2 TO dave\r\n".encode())
    assert read_mail(raw).lines == ("GIVE 3 TO bob", "GIVE 1 TO carol", "GIVE 2 TO dave")


def test_format_flowed_lines_are_joined() -> None:
    """RFC 3676 format=flowed: a line ending in a space continues; stuffing is removed."""
    assert unflow("GIVE 3 \nTO bob\n From me\n", delsp=False) == "GIVE 3 TO bob\nFrom me"
    assert unflow("GIVE 3 TO b \nob\n", delsp=True) == "GIVE 3 TO bob"
    assert unflow("-- \nsig\n", delsp=False) == "-- \nsig"
    raw = _mail("GIVE 3 \nTO bob\n", content_type="text/plain; charset=utf-8; format=flowed")
    assert _text(raw) == ["GIVE 3 TO bob"]


def test_encoded_words_split_inside_a_character() -> None:
    """RFC 2047 words are decoded; adjacent words of one charset are joined before decoding."""
    assert decode_words("=?utf-8?q?J=C3=BCrgen?=") == "Jürgen"
    assert decode_words("=?utf-8?b?w6Q=?= =?utf-8?b?w7Y=?= x") == "äö x"
    assert decode_words("=?utf-8?b?4oK=?= =?utf-8?b?rA==?=") == "€"  # one character in two words
    assert decode_words("a =?x-bad?q?=ZZ?= b") == "a =ZZ b"
    assert decode_words("=?utf-8?b?***?=") == "=?utf-8?b?***?="


# --- cutting quotes and signatures ------------------------------------------------------------


def test_quoted_lines_are_dropped_and_positions_kept() -> None:
    """Drop lines starting with ``>``; a dropped line in the middle becomes blank (numbering)."""
    kept, cuts = cut_reply(["GIVE 1 TO bob", "> old", ">> older", "GIVE 2 TO carol"])
    assert kept == ["GIVE 1 TO bob", "", "", "GIVE 2 TO carol"]
    assert [(c.rule, c.line, c.count) for c in cuts] == [("quote", 2, 2)]


@pytest.mark.parametrize("separator", ["-- ", "--", "--\t", "-- \u00a0"])
def test_signature_separator_cuts_the_rest(separator: str) -> None:
    """Cut at an exact ``-- `` (or ``--``) line: the signature's lines are not the sender's
    text, but a line below it that reads as an order is read (orders are never dropped to
    make an echo disappear; only a quote takes them)."""
    assert _cut(f"GIVE 3 TO bob\n{separator}\nBob\nBob's Pizza, Main St.") == ["GIVE 3 TO bob"]
    assert _cut(f"GIVE 3 TO bob\n{separator}\nBob\nGIVE 9 TO x") == ["GIVE 3 TO bob", "GIVE 9 TO x"]


@pytest.mark.parametrize(
    "order",
    ["- GIVE 3 TO bob", "* a1-a2", "- a1-a2", "--a1-a2", "-- a1-a2", "1. a1-a2", "2) b2-b3",
     "• GIVE 1 TO carol", "---", "GIVE 3 TO bob --"],
)  # fmt: skip
def test_bulleted_dashed_and_numbered_orders_are_kept(order: str) -> None:
    """Order lines must never be eaten: only ``--`` alone is a signature separator."""
    assert _cut(f"{order}\nGIVE 1 TO dave") == [order, "GIVE 1 TO dave"]


@pytest.mark.parametrize(
    "line",
    ["----------", "________________________________", "-- original plan --", "=== forward ==="],
)
def test_a_rule_or_a_framed_word_between_orders_is_the_writers_own(line: str) -> None:
    """A rule alone (no quoted header block below it) divides the writer's own text, and a
    framed word is a separator only in a client's words ("-----Original Message-----")."""
    text = f"GAME gw1\nGIVE 3 TO bob\n{line}\nGAME tm1\na1-a2"
    assert _cut(text)[-2:] == ["GAME tm1", "a1-a2"]


@pytest.mark.parametrize(
    "line", ["Bob said on 2/3/2026:", "As the rules say in 2026:", "Carol mused:"]
)
def test_a_remark_like_an_attribution_does_not_cut_the_orders_below(line: str) -> None:
    """Only a reply attribution (``wrote``, ``schrieb``... with a date or an address) starts a
    quote without ``>``; Gnus's whimsical verbs only introduce ``>`` lines."""
    assert _cut(f"{line}\nGIVE 3 TO bob") == [line, "GIVE 3 TO bob"]


def test_on_second_thought_is_not_an_attribution() -> None:
    """A first line "On second thought:" is the sender's text (no ``wrote:``, no date)."""
    text = "On second thought:\nGIVE 3 TO bob\nOn second thought, bob wrote:\nGIVE 1 TO carol"
    assert _cut(text) == text.split("\n")


def test_from_my_notes_is_not_a_header_block() -> None:
    """A body line "From: my notes" is kept: a header block needs Sent:/Date: or two others."""
    text = "From: my notes\nGIVE 3 TO bob\nFrom: the list\nTo: everyone\nGIVE 1 TO carol"
    assert _cut(text) == text.split("\n")


def test_attribution_with_nothing_quoted_cuts_the_rest() -> None:
    """Cut at the first line matching ``On .+ wrote:`` when no quoted lines follow it."""
    text = "GIVE 3 TO bob\n\nOn Mon, Apr 2, 2012 at 6:26 PM, Megan <m@x.org> wrote:\n\nHi\nGIVE 9"
    assert _cut(text) == ["GIVE 3 TO bob"]


def test_attribution_before_quote_is_dropped_and_bottom_posting_kept() -> None:
    """An attribution followed by ``>`` lines only introduces the quote: text below it is read
    (bottom-posted and inline replies)."""
    text = "On 04/02/2012 06:26 PM, Megan One wrote:\n> Hi\n\nGIVE 3 TO bob\n> more\nGIVE 1 TO x"
    assert _cut(text) == ["GIVE 3 TO bob", "GIVE 1 TO x"]


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, Apr 2, 2012 at 6:26 PM, Megan One <xxx@gmail.com>\nwrote:",
        "Am 03.04.2012 um 16:19 schrieb Bob <bob@example.com>:",
        "Am Mo., 2. Apr. 2012 um 18:22 Uhr schrieb Bob <bob@example.com>:",
        "Le 3 avr. 2012 à 16:19, Bob <bob@example.com> a écrit :",
        "Le lun. 2 avr. 2012 à 18:22, Bob <bob@example.com> a\nécrit :",
        "El lun., 2 abr. 2012 a las 18:22, Bob (<bob@example.com>) escribió:",
        "Il giorno lun 2 apr 2012 alle ore 18:22 Bob <bob@example.com> ha scritto:",
        "Op ma 2 apr. 2012 om 18:22 schreef Bob <bob@example.com>:",
        "Em seg., 2 de abr. de 2012 às 18:22, Bob <bob@example.com> escreveu:",
        '02.04.2012 14:20 пользователь "bob@example.com" <\nbob@example.com> написал:',
        "--- On Wed, 4/4/12, bob@example.com <bob@example.com> wrote:",
    ],
)
def test_attributions_in_several_languages_and_wrapped(attribution: str) -> None:
    """Attributions: English, German ``Am ... schrieb ...:``, French ``Le ... a écrit :``, and
    others; also when the attribution wraps over two lines."""
    text = f"GIVE 3 TO bob\n\n{attribution}\n\nHi there\nGIVE 9 TO mallory"
    assert _cut(text) == ["GIVE 3 TO bob"]


def test_generic_attribution_before_a_quote_is_dropped() -> None:
    """Any line ending in ``:`` with a digit and an ``@`` right before a quote is an attribution."""
    text = '26.06.2014, 14:41, "Alexander L" <abc@example.com>:\n\n> Hello\nGIVE 3 TO bob'
    assert _cut(text) == ["GIVE 3 TO bob"]
    assert _cut("Mail me at bob@example.org on day 2:\nGIVE 3 TO bob") == [
        "Mail me at bob@example.org on day 2:",
        "GIVE 3 TO bob",
    ]


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----",
        "----- Original Message -----",
        "-------- Original Message --------",
        "-----Ursprüngliche Nachricht-----",
        "---------- Forwarded message ---------",
        "Begin forwarded message:",
        "________________________________\nFrom: Judge <judge@pbem.test>\nSent: Monday\nTo: Alice",
    ],
)
def test_original_message_forward_and_underscore_separators_cut(separator: str) -> None:
    """Cut at ``^-{3,}\\s*Original Message`` (and translations), forwarded-message markers and
    ``^_{10,}$``."""
    assert _cut(f"GIVE 3 TO bob\n{separator}\nGIVE 9 TO mallory") == ["GIVE 3 TO bob"]


@pytest.mark.parametrize(
    "block",
    [
        "From: Bob [mailto:bob@example.com]\nSent: Friday, June 27, 2014 12:06 PM\nTo: Alice",
        "From: Bob\n\nTo: Alice\nSubject: orders",
        "Date: Thu, 26 Jun 2014 13:53:45 +0400\nSubject: Test\nFrom: abc@example.com\nTo: x@y",
        "**From:** Bob\n**Sent:** Friday\n**To:** Alice",
        "Von: Bob\nGesendet: Freitag, 27. Juni 2014 12:06\nAn: Alice",
        "De : Bob\nEnvoyé : vendredi 27 juin 2014 12:06\nÀ : Alice",
        "От: Bob\nОтправлено: 26 июня 2014 г. 15:05\nКому: Alex",
    ],
)
def test_outlook_header_block_cuts_the_rest(block: str) -> None:
    """Cut at ``From:`` followed within 4 lines by ``Sent:``/``Date:``/``To:``/``Subject:``
    (Outlook's quoted headers; also localised and in HTML bold)."""
    assert _cut(f"GIVE 3 TO bob\n\n{block}\n\nGIVE 9 TO mallory") == ["GIVE 3 TO bob"]


def test_mail_client_lines_are_dropped_alone() -> None:
    """ "Sent from my iPhone" and its kind are the client's, not the sender's: that line only."""
    text = "GIVE 3 TO bob\nSent from my iPhone\nGIVE 1 TO carol\nGet Outlook for Android"
    assert _cut(text) == ["GIVE 3 TO bob", "GIVE 1 TO carol"]


def test_cut_never_moves_or_changes_a_kept_line() -> None:
    """Line numbers of kept lines are those of the body (for error replies)."""
    lines = [
        "",
        "GIVE 1 TO bob",
        "> q",
        "On 1 Jan 2020, x wrote:",
        "> q",
        "GIVE 2 TO carol",
        "--",
        "s",
    ]
    kept, _ = cut_reply(lines)
    assert kept == ["", "GIVE 1 TO bob", "", "", "", "GIVE 2 TO carol"]


def test_very_long_body_is_cut() -> None:
    """More than 5000 lines: the rest is cut (rule ``too-long``)."""
    kept, cuts = cut_reply(["GIVE 1 TO bob"] * 6000)
    assert len(kept) == 5000
    assert cuts[-1].rule == "too-long"
    assert cuts[-1].count == 1000


def test_cuts_are_reported_for_the_logs() -> None:
    """``cut`` says which rule removed what, from which line."""
    raw = _mail("GIVE 3 TO bob\n-- \nBob Smith\nbob.example.org\n")
    (cut,) = read_mail(raw).cut
    assert (cut.rule, cut.line, cut.count, cut.first) == ("signature", 2, 3, "--")


HISTORY = "Hello alice,\n\nyour orders are stored as:\n\n    GIVE 9 TO mallory\n"
QUOTED_HISTORY = "> Hello alice,\n>\n> your orders are stored as:\n>\n>     GIVE 9 TO mallory\n"


@pytest.mark.parametrize(
    "body",
    [
        # Mew: the quoted mail's From and Date above the quote, the answer below it.
        "From: Judge <judge@pbem.test>\nDate: Mon, 02 Mar 2026 13:05:00 +0100\n\n"
        f"{QUOTED_HISTORY}\nGIVE 3 TO bob\n",
        # A Chinese client: only From (with [mailto:]) and Subject above the unprefixed quote.
        f"GIVE 3 TO bob\n\nFrom: Judge [mailto:judge@pbem.test]\nSubject: [gw1] orders\n\n{HISTORY}",
        # Atmail glues From: onto its dashed rule.
        f"GIVE 3 TO bob\n\n-----From: judge@pbem.test\nTo: alice@example.org\nSent: Mon\n\n{HISTORY}",
        f"GIVE 3 TO bob\n\nAt 13:05 02.03.2026, you wrote:\n{QUOTED_HISTORY}",  # Eudora
        f"GIVE 3 TO bob\n\nAt 13:05 02.03.2026,\nJudge wrote:\n{QUOTED_HISTORY}",  # two lines
        f"GIVE 3 TO bob\n\nExcerpts from Judge's message of 2026-03-02 13:05:00 +0100:\n{QUOTED_HISTORY}",
        f"GIVE 3 TO bob\n\nJudge spake thus:\n{QUOTED_HISTORY}",  # Gnus
        f"GIVE 3 TO bob\n\nJudge wrote:\n\n{QUOTED_HISTORY.replace('> ', 'LK> ')}",  # Supercite
        f"GIVE 3 TO bob\n\nJudge wrote:\n\n{QUOTED_HISTORY.replace('> ', 'judge> ')}",
        f"GIVE 3 TO bob\n\n----- Mail original -----\nDe: Judge\nÀ: alice\nEnvoyé: lundi\n\n{HISTORY}",
        f"GIVE 3 TO bob\n\n-------- Forwarding messages --------\n{HISTORY}",
        f"GIVE 3 TO bob\n\n---- On Mon, 02 Mar 2026 13:05 Judge <j@pbem.test> wrote ----\n\n{HISTORY}",
        # Notes 8.5: its section title, a header block, the history without ">".
        "GIVE 3 TO bob\n\nInactive hide details for Judge ---03/02/2026 01:05:00 PM---Hello alice,\n\n"
        f"From: Judge <judge@pbem.test>\nTo: alice@example.org\nDate: 03/02/2026 01:05 PM\n\n{HISTORY}",
        # Outlook 2003 with Exchange: the history re-wrapped without ">".
        "GIVE 3 TO bob\n\n-----Original Message-----\nFrom: Judge [mailto:judge@pbem.test]\n"
        f"Sent: Monday, March 02, 2026 1:05 PM\nTo: Alice\nSubject: orders\n\n{HISTORY}",
        f"GIVE 3 TO bob\n\n\u2063Sent from BlueMail\u2063\nOn Mar 2, 2026, Judge <j@pbem.test> wrote:\n{QUOTED_HISTORY}",
        "GIVE 3 TO bob\nSent by text message from +1 555 010 1234\n"
        "Msg&data rates may apply. Reply HELP for help, STOP to cancel.",
        "GIVE 3 TO bob\n\nAlice Example\nSenior Analyst | ACME Widgets GmbH\n"
        "Tel: +49 30 1234 5678\nwww.acme-widgets.example",
    ],
)  # fmt: skip
def test_the_shapes_named_in_the_issue_give_only_the_players_text(body: str) -> None:
    """Every client shape the reader got wrong before: the answer is read, the history never
    (its GIVE 9 TO mallory would be applied), and no quote or signature line is echoed."""
    assert _cut(body) == ["GIVE 3 TO bob"]


@pytest.mark.parametrize(
    "command",
    ["JOIN sf9 4F2A09C1", "RESIGN gw7 12345678", "SET TIMEZONE Europe/Berlin", "PRESS TO cat dog"],
)
def test_a_command_with_a_code_or_number_is_never_taken_for_a_signature(command: str) -> None:
    """A short line of words and digits at the end of a mail looks like a signature's phone or
    account line; a command word in front makes it the sender's own text."""
    assert _cut(f"Hello,\n\n{command}\n") == ["Hello,", command]
