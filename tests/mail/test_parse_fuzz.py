"""Property tests: read_mail never raises, and cutting never eats an order line."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.mail.body import cut_reply
from adjudicator.mail.parse import InboundMail, MailKind, read_mail, split_sections

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mail"
# Small real mails of every kind (large ones would only slow the run down).
SEEDS = sorted(
    path.read_bytes()
    for folder in ("talon", "mail-parser", "cpython", "orders")
    for path in (FIXTURES / folder).rglob("*")
    if path.suffix in (".eml", ".txt") and "LICENSE" not in path.name
    and path.stat().st_size < 20_000
)  # fmt: skip

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check(raw: bytes) -> InboundMail:
    mail = read_mail(raw, own_addresses=("orders@judge.example",), max_bytes=50_000)
    assert isinstance(mail, InboundMail)
    assert isinstance(mail.kind, MailKind)
    # An internal error would mean a bug in our code, not in the input.
    assert not mail.kind_reason.startswith("internal error"), mail.kind_reason
    split_sections(mail.lines, subject=mail.subject)
    return mail


@SETTINGS
@given(st.binary(max_size=3000))
def test_arbitrary_bytes_never_raise(raw: bytes) -> None:
    """read_mail never raises on any input and always returns an InboundMail."""
    _check(raw)


# Bytes that matter to a MIME parser, inserted at random places.
TOKENS = [b"\n", b"\r\n", b"--", b"=?", b"?=", b"\x00", b"\xff", b">", b"\n\n", b"boundary=",
          b"charset=", b"=\n", b"<", b'"', b";", b"=?utf-8?b?", b"; charset*=utf-8''x",
          b"Content-Type: multipart/mixed; boundary=x\n", b"\n--x\n", b"<blockquote>", b"<s>",
          b"Content-Disposition: attachment; filename=o.txt\n", b"\n-- \n", b"\n> ",
          b"Content-Transfer-Encoding: base64\n", b"Content-Type: message/delivery-status\n",
          b"Content-Type: text/html\n", b"; format=flowed; delsp=yes", b"Return-Path: <>\n"]  # fmt: skip


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["flip", "insert", "delete", "duplicate", "truncate"]))
        if action == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif action == "insert":
            data[at:at] = draw(st.sampled_from(TOKENS))
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 200))]
        elif action == "duplicate":
            data[at:at] = data[at : at + draw(st.integers(1, 400))]
        elif action == "truncate":
            del data[at:]
    return bytes(data)


@SETTINGS
@given(_mutated())
def test_mutated_real_mails_never_raise(raw: bytes) -> None:
    """Real mails with random byte mutations: never raises, always an InboundMail."""
    _check(raw)


_ORDER_LINE = st.one_of(
    st.builds("GIVE {} TO {}".format, st.integers(0, 99), st.sampled_from(["bob", "carol"])),
    st.builds("{}{}{}-{}{}".format, st.sampled_from(["", "- ", "* ", "1. ", "2) ", "--", "• "]),
              st.sampled_from("abcdefgh"), st.integers(1, 8), st.sampled_from("abcdefgh"),
              st.integers(1, 8)),
    st.sampled_from(["On second thought:", "From: my notes", "GAME gw42", "PASSWORD x", ""]),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_ORDER_LINE, max_size=30))
def test_order_lines_are_never_cut(lines: list[str]) -> None:
    """Order lines must never be eaten, whatever the mix of bullets, dashes and numbers."""
    kept, cuts = cut_reply(lines)
    assert kept == lines[: len(kept)]
    assert not any(line.strip() for line in lines[len(kept) :])
    assert cuts == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=60), max_size=40))
def test_cutting_only_blanks_or_truncates(lines: list[str]) -> None:
    """Cutting never changes or moves a line: each kept line is the original or blank."""
    kept, _ = cut_reply(lines)
    assert len(kept) <= len(lines)
    assert all(line in ("", lines[index]) for index, line in enumerate(kept))


_LINE_PIECES = st.sampled_from(
    ["> ", "LK> ", "-- ", "On 2 Mar 2026, Bob <b@x.org> wrote:", "From: Bob <b@x.org>",
     "Sent: Monday", "To: Alice", "Subject: x", "-----Original Message-----", "Thanks,",
     "Tel: +49 30 1234567", "CONFIDENTIAL", "Sent from my iPhone", "GIVE 3 TO bob", "a1-a2",
     "-----BEGIN PGP SIGNED MESSAGE-----", "-----BEGIN PGP SIGNATURE-----", "Hash: SHA256",
     "- - x", "", "Alice", "________________", "---- On x wrote ----", "\u2063"]
)  # fmt: skip


@SETTINGS
@given(
    st.lists(st.lists(_LINE_PIECES | st.text(max_size=12), max_size=3).map("".join), max_size=40)
)
def test_every_line_goes_to_exactly_one_part(lines: list[str]) -> None:
    """split_reply puts each line in exactly one of text, quote and signature, in place."""
    from adjudicator.mail.quotes import split_reply, unescape_dashes

    split = split_reply(lines)
    assert len(split.text) == len(split.quote) == len(split.signature) == len(lines)
    source = (
        unescape_dashes(lines)
        if any(line.strip() == "-----BEGIN PGP SIGNED MESSAGE-----" for line in lines)
        else lines
    )
    for line, parts in zip(
        source, zip(split.text, split.quote, split.signature, strict=True), strict=True
    ):
        assert sorted(parts, key=bool)[:2] == ["", ""]  # at most one part holds the line
        assert "".join(parts) == line
