"""Charsets: a declared charset that does not fit falls back to its family's wider charsets,
then UTF-8, then windows-1252; unknown and broken names too; the note says what was done; no
mail is left unread for its charset."""

from __future__ import annotations

import pytest

from adjudicator.mail.charsets import decode_bytes
from adjudicator.mail.parse import MailKind, read_mail

JAPANESE = "にほんごのテスト。GIVE 3 TO ボブ"
CHINESE = "你好，喆镕 GIVE 3 TO bob"  # 喆 and 镕 are in GBK, not in GB2312


@pytest.mark.parametrize(
    ("text", "written_in", "declared", "read_as"),
    [
        (JAPANESE, "euc_jp", "ISO-2022-JP", "EUC-JP"),
        (JAPANESE, "cp932", "ISO-2022-JP", "CP932"),
        (JAPANESE, "cp932", "EUC-JP", "CP932"),
        (JAPANESE, "utf-8", "ISO-2022-JP", "UTF-8"),
        (CHINESE, "gbk", "GB2312", "GBK"),
        (CHINESE, "utf-8", "GB2312", "UTF-8"),
        ("안녕하세요 똠방각하", "cp949", "EUC-KR", "CP949"),  # 똠 is in CP949 only
        ("Tiếng Việt", "utf-8", "windows-1258", "UTF-8"),
        ("“Grüße” – €", "cp1252", "ISO-8859-1", None),  # windows-1252 is what Latin-1 means
        ("“Grüße” – €", "cp1252", "US-ASCII", None),
        ("Grüße", "cp1252", "x-klingon", "windows-1252"),
        ("Grüße", "utf-8", "x-klingon", "UTF-8"),
        ("Grüße", "cp1252", "utf-8", "windows-1252"),
        ("GIVE 3", "ascii", "UTF-16", "ASCII"),
        ("été", "cp1252", "idna", "windows-1252"),  # a codec, not a charset
        ("été", "cp1252", "undefined", "windows-1252"),
    ],
)
def test_a_charset_that_does_not_fit_falls_back_and_says_so(
    text: str, written_in: str, declared: str, read_as: str | None
) -> None:
    decoded, note = decode_bytes(text.encode(written_in), declared)
    assert decoded == text
    if read_as is None:
        assert note is None
    else:
        assert note is not None
        assert declared.upper() in note.upper()
        assert note.endswith(f"read as {read_as}") or f"read as {read_as}," in note


def test_single_byte_charset_with_holes_marks_only_the_holes() -> None:
    decoded, note = decode_bytes("Tiê\u0301ng".encode("cp1258") + b"\x81", "windows-1258")
    assert decoded == "Tiê\u0301ng\ufffd"
    assert note is not None


BROKEN_NAMES = ["x-unknown", "utf-8\x00", "idna", "punycode", "undefined", "base64", "zlib",
                "rot13", "unicode_escape", "''", "utf8'en'", "=?", "a" * 300, "é"]  # fmt: skip


@pytest.mark.parametrize("name", BROKEN_NAMES)
@pytest.mark.parametrize("where", ["content-type", "rfc2231", "subject-word"])
def test_no_mail_is_left_unread_for_its_charset(name: str, where: str) -> None:
    """Unknown, broken and non-text codec names read as UTF-8, else windows-1252: the orders
    are read and the mail is ordinary (it used to be unreadable and ignored unanswered)."""
    content_type = "text/plain"
    subject = "[gw7] orders"
    if where == "content-type":
        content_type += f'; charset="{name}"'
    elif where == "rfc2231":
        content_type += f"; charset*={name}''x"
    else:
        subject = f"=?{name}?q?caf=E9?= [gw7]"
    raw = (
        "From: alice@example.org\nTo: judge@pbem.test\nMessage-ID: <c@example.org>\n"
        f"Subject: {subject}\nMIME-Version: 1.0\nContent-Type: {content_type}\n\n"
    ).encode("utf-8", "surrogateescape") + "GIVE 3 TO bob\nété\n".encode("cp1252")
    mail = read_mail(raw)
    assert mail.kind is MailKind.ORDINARY, mail.kind_reason
    assert mail.lines[:2] == ("GIVE 3 TO bob", "été")
