"""Bytes to text for inbound mail: charsets with the fallbacks real mail needs, and RFC 2047
encoded words in header fields. Pure, and never fails: undecodable bytes are replaced.
"""

from __future__ import annotations

import binascii
import codecs
import re

_ALIASES = {
    "iso-8859-8-i": "iso-8859-8",
    "x-sjis": "shift_jis",
    "ks_c_5601-1987": "cp949",
    "x-gbk": "gbk",
    "x-euc-jp": "euc_jp",
    "cp-850": "cp850",
    "x-mac-roman": "mac_roman",
}
# Codecs that the codecs module knows but that no mail is written in.
_NOT_CHARSETS = {"idna", "punycode", "undefined", "raw-unicode-escape", "unicode-escape",
                 "rot-13", "mbcs", "oem", "charmap"}  # fmt: skip
_LATIN_FAMILY = {"ascii", "iso8859-1", "cp1252", "iso8859-15"}
# Each family's wider charsets, tried in this order when the declared one fails: text declared
# ISO-2022-JP is often EUC-JP or Shift_JIS, GB2312 often GBK (WHATWG encoding practice).
_JAPANESE = ("iso2022_jp_2", "euc_jp", "cp932", "euc_jis_2004", "shift_jis_2004")
_FAMILIES = {
    **dict.fromkeys(("ascii", "iso8859-1", "cp1252"), ("cp1252", "iso8859-1")),
    "iso8859-15": ("iso8859-15",),
    **dict.fromkeys(
        ("iso2022_jp", "iso2022_jp_1", "iso2022_jp_2", "iso2022_jp_2004", "iso2022_jp_3",
         "iso2022_jp_ext", "euc_jp", "euc_jis_2004", "euc_jisx0213", "shift_jis", "cp932",
         "shift_jis_2004", "shift_jisx0213"),
        _JAPANESE,
    ),
    **dict.fromkeys(("gb2312", "gbk", "hz", "gb18030"), ("gbk", "gb18030")),
    **dict.fromkeys(("big5", "big5hkscs", "cp950"), ("cp950", "big5hkscs")),
    **dict.fromkeys(("euc_kr", "iso2022_kr", "johab", "cp949"), ("cp949",)),
    **dict.fromkeys(("koi8-r", "koi8-u", "koi8-t"), ("koi8-u", "cp1251")),
    **dict.fromkeys(("tis-620", "iso8859-11", "cp874"), ("cp874",)),
    "iso8859-5": ("cp1251",),
    "iso8859-2": ("cp1250",),
    "iso8859-7": ("cp1253",),
    "iso8859-9": ("cp1254",),
    "iso8859-8": ("cp1255",),
    "iso8859-6": ("cp1256",),
    "iso8859-13": ("cp1257",),
}  # fmt: skip
_WIDE = ("utf-16", "utf-32")


def decode_bytes(data: bytes, charset: str | None) -> tuple[str, str | None]:
    """Decode ``data`` declared as ``charset``; return the text and a note when we had to guess.

    Rules, in order (the note says what was done, for the player's answer and the logs):

    1. a UTF-8 byte-order mark means UTF-8 (and is dropped);
    2. bytes that are valid UTF-8 and not plain ASCII are UTF-8, whatever the declaration says:
       UTF-8 is self-checking (other 8-bit text is almost never valid UTF-8 by chance), while a
       single-byte or a wide Asian charset accepts almost any bytes and would give nonsense;
    3. the declared charset, when the bytes are valid in it (UTF-16 and UTF-32 only with a
       byte-order mark or NUL bytes: else they are a mislabel);
    4. the declared family's wider charsets (ISO-8859-1 -> windows-1252, ISO-2022-JP -> EUC-JP
       or CP932, GB2312 -> GBK or GB18030, Big5 -> CP950, EUC-KR -> CP949, KOI8-R -> KOI8-U or
       windows-1251); where several decode, the one whose text looks most like writing wins;
    5. a single-byte charset with a few undefined bytes (windows-1258): those become U+FFFD;
    6. windows-1252, the usual 8-bit mislabel, replacing what it cannot decode.

    An unknown or broken charset name skips 3 to 5. The note is None when the declared charset
    (or its Latin superset) simply worked, or when guessing could not change the text.
    """
    raw_name = "".join(c for c in charset or "" if c.isprintable()).strip().strip("\"'").strip()
    name = _ALIASES.get(raw_name.lower(), raw_name.lower())
    codec = _codec_name(name)
    if data.startswith(codecs.BOM_UTF8) and codec in (None, "utf-8", *_LATIN_FAMILY):
        return data[3:].decode("utf-8", "replace"), None
    said = f"your mail says its text is in {_shown(raw_name)}" if raw_name else ""
    if not data.isascii() and (utf8 := _strict(data, "utf-8")) is not None:
        quiet = codec in ("utf-8", *_LATIN_FAMILY) or not said
        kind = ", a charset we do not know" if codec is None else ", but it is not"
        return utf8, None if quiet else f"{said}{kind}: read as UTF-8"
    if codec is None:
        unknown = f"{said}, a charset we do not know" if said and not data.isascii() else ""
        return data.decode("cp1252", "replace"), (
            f"{unknown}: read as windows-1252" if unknown else None
        )
    # WHATWG: a Latin-1 or ASCII label means windows-1252, which only adds printable characters.
    text = _declared(data, "cp1252" if codec in ("ascii", "iso8859-1") else codec)
    if text is not None:
        return text, None
    if data.isascii():  # UTF-16 or UTF-32 declared for plain ASCII text
        return data.decode("ascii"), f"{said}, but it is not: read as ASCII"
    best = _best_of(data, _FAMILIES.get(codec, ()))
    if best is not None:
        found, text = best
        quiet = codec in _LATIN_FAMILY
        return text, None if quiet else f"{said}, but it is not: read as {_shown(found)}"
    if not codec.startswith(("utf-", *_WIDE)) and codec not in _FAMILIES:
        text = _strict_or_replaced(data, codec)
        return text, f"{said}, but some of it is not: those characters are shown as \ufffd"
    note = f"{said}, but it is not: read as windows-1252, some characters may be wrong"
    return data.decode("cp1252", "replace"), note


def _declared(data: bytes, codec: str) -> str | None:
    if codec.startswith(_WIDE) and not (
        data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or b"\0" in data
    ):
        return None
    return _strict(data, codec)


def _best_of(data: bytes, candidates: tuple[str, ...]) -> tuple[str, str] | None:
    """The candidate charset that decodes ``data`` into the most plausible text, if any."""
    decoded = [(codec, text) for codec in candidates if (text := _strict(data, codec))]
    if not decoded:
        return None
    return max(decoded, key=lambda pair: _plausibility(pair[1]))


def _plausibility(text: str) -> float:
    """The share of characters found in ordinary writing: letters of any script, digits,
    punctuation and spaces; half-width katakana, private-use and control characters are what a
    wrong Asian charset produces."""
    if not text:
        return 0.0
    good = sum(
        1
        for char in text
        if char.isalnum() or char.isspace() or char in _PUNCTUATION or "\u3000" <= char <= "\u30ff"
    )
    bad = sum(1 for char in text if "\uff61" <= char <= "\uff9f" or "\ue000" <= char <= "\uf8ff")
    return (good - 2 * bad) / len(text)


_PUNCTUATION = set(
    ".,;:!?'\"()[]-_/\\@#%&*+=<>~`|{}$\u2018\u2019\u201c\u201d\u2014\u2013\uff0c\uff01\uff1f"
)


def _shown(name: str) -> str:
    """A charset name as a player may see it: printable, short."""
    shown = "".join(c for c in name if c.isprintable())[:40]
    if not shown.isascii():
        return repr(shown)
    if shown.startswith("cp125"):
        return f"windows-{shown[2:]}"
    return shown.upper().replace("_", "-")


def _codec_name(name: str) -> str | None:
    if not name:
        return None
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    # Bytes-to-bytes codecs (base64, zlib, ...) are not charsets, nor are idna and the like.
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return None
    return info.name


def _strict_or_replaced(data: bytes, codec: str) -> str:
    try:
        return data.decode(codec, "replace")
    except Exception:  # a codec that refuses the replace handler
        return data.decode("cp1252", "replace")


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except Exception:  # any codec failure means "not this charset"
        return None


_ENCODED_WORD = re.compile(r"=\?([^?\s*]+)(?:\*[^?\s]*)?\?([qQbB])\?([^?\s]*)\?=")


def decode_words(value: str) -> str:
    """Decode RFC 2047 encoded words (``=?utf-8?q?J=C3=BCrgen?=``) in a header value.

    Whitespace between adjacent encoded words is dropped, and adjacent words in the same
    charset are decoded together (some clients split one character across two words). A
    malformed word is left as it is.
    """
    out: list[str] = []
    pending: list[bytes] = []
    pending_charset = ""
    pos = 0
    for match in _ENCODED_WORD.finditer(value):
        gap = value[pos : match.start()]
        raw = _word_bytes(match.group(2), match.group(3))
        charset = match.group(1).lower()
        adjacent = pending and not gap.strip()
        if raw is None or not (adjacent and charset == pending_charset):
            if pending:
                out.append(decode_bytes(b"".join(pending), pending_charset)[0])
                pending = []
            if not adjacent or raw is None:
                out.append(gap)
        if raw is None:
            out.append(match.group(0))
        else:
            pending.append(raw)
            pending_charset = charset
        pos = match.end()
    if pending:
        out.append(decode_bytes(b"".join(pending), pending_charset)[0])
    out.append(value[pos:])
    return "".join(out)


_BASE64_WORD = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _word_bytes(encoding: str, text: str) -> bytes | None:
    try:
        if encoding in "qQ":
            return binascii.a2b_qp(text.encode("ascii", "replace"), header=True)
        if not _BASE64_WORD.fullmatch(text):
            return None
        data = text.rstrip("=")
        return binascii.a2b_base64((data + "=" * (-len(data) % 4)).encode("ascii"))
    except (binascii.Error, ValueError):
        return None
