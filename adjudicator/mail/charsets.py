"""Bytes to text for inbound mail: charsets with the fallbacks real mail needs, and RFC 2047
encoded words in header fields. Pure, and never fails: undecodable bytes are replaced.
"""

from __future__ import annotations

import binascii
import codecs
import re

# A declared charset that is often used for text in a wider one (WHATWG encoding practice).
_SUPERSETS = {
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "latin-1": "cp1252",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
}
_ALIASES = {"iso-8859-8-i": "iso-8859-8", "x-sjis": "shift_jis", "ks_c_5601-1987": "cp949"}
_LATIN_FAMILY = {"ascii", "iso8859-1", "latin-1", "cp1252", "iso8859-15"}


def decode_bytes(data: bytes, charset: str | None) -> tuple[str, str | None]:
    """Decode ``data`` declared as ``charset``; return the text and a note when we had to guess.

    Rules: a known charset is used when the bytes decode in it (text declared ASCII or Latin-1
    that is valid UTF-8 with non-ASCII bytes is UTF-8: a common mislabel); then its usual
    superset (Latin-1 -> cp1252, GB2312 -> GB18030, Shift_JIS -> cp932); an unknown or missing
    charset tries UTF-8, then cp1252; the last resort replaces what cannot be decoded. A UTF-8
    byte-order mark is dropped.
    """
    name = _ALIASES.get((charset or "").strip().lower(), (charset or "").strip().lower())
    codec = _codec_name(name)
    if data.startswith(codecs.BOM_UTF8) and codec in (None, "utf-8", *_LATIN_FAMILY):
        return data[3:].decode("utf-8", "replace"), None
    if codec is not None and codec not in _LATIN_FAMILY:
        text = _strict(data, codec) or _strict(data, _SUPERSETS.get(codec, codec))
        if text is not None:
            return text, None
        utf8 = _strict(data, "utf-8") if codec != "utf-8" else None
        if utf8 is not None:
            return utf8, f"text declared {name} is not {name}: read as utf-8"
        # Mislabelled 8-bit text is most often Windows Latin.
        fallback = "cp1252" if codec == "utf-8" else codec
        note = f"text declared {name} is not {name}: read as {fallback}"
        return data.decode(fallback, "replace"), note
    # Latin family, unknown or missing: ASCII-compatible, so UTF-8 first is safe.
    utf8 = _strict(data, "utf-8")
    if utf8 is not None:
        return utf8, None
    if codec is not None:
        text = _strict(data, "cp1252") if codec != "iso8859-15" else None
        return text or data.decode(codec if codec != "ascii" else "latin-1", "replace"), None
    guess = f"unknown charset {name!r}: read as cp1252" if name else None
    return data.decode("cp1252", "replace"), guess


def _codec_name(name: str) -> str | None:
    if not name:
        return None
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    # Bytes-to-bytes codecs (base64, zlib, ...) are not charsets.
    return info.name if getattr(info, "_is_text_encoding", True) else None


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeError, LookupError, ValueError, TypeError):
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
