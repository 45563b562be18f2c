"""Headers of inbound mail, the InboundMail value, and splitting a mail's lines by game."""

from __future__ import annotations

import dataclasses

import pytest

from adjudicator.mail.parse import (
    InboundMail,
    MailKind,
    Section,
    SectionLine,
    aligned,
    parse_addresses,
    parse_auth_results,
    read_mail,
    split_sections,
    subject_game,
)


def _mail(headers: str, body: str = "GIVE 3 TO bob\n") -> bytes:
    return (headers.rstrip("\n") + "\n\n" + body).encode()


# --- addresses ------------------------------------------------------------------------------


def test_sender_is_the_bare_from_address_with_lower_case_domain() -> None:
    """sender: the bare From address, domain in lower case (the local part is left alone)."""
    mail = read_mail(_mail("From: Bob Smith <Bob.Smith@Example.ORG>"))
    assert (mail.sender, mail.sender_name) == ("Bob.Smith@example.org", "Bob Smith")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("bob@example.org", [("", "bob@example.org")]),
        ("bob@example.org (Bob Smith)", [("Bob Smith", "bob@example.org")]),
        ('"Smith, Bob" <bob@example.org>, carol@x.net', [("Smith, Bob", "bob@example.org"),
                                                        ("", "carol@x.net")]),
        ("=?iso-8859-1?Q?Last=DFlName=2C_FirstName?= <c@example.com>",
         [("LastßlName, FirstName", "c@example.com")]),
        ("alice@example.com <bob@example.com>", [("alice@example.com", "bob@example.com")]),
        ("Team: a@x.org, b@y.org;", [("", "a@x.org"), ("", "b@y.org")]),
        ("undisclosed-recipients:;", []),
        ("<mailto:bob@EXAMPLE.org>", [("", "bob@example.org")]),
        ('"Bob \\"the builder\\"" <bob@x.org>', [('Bob "the builder"', "bob@x.org")]),
        ("Jürgen <jürgen@bücher.example>", [("Jürgen", "jürgen@bücher.example")]),
        ("", []),
        ("<>", []),
    ],
)  # fmt: skip
def test_address_lists_are_read_tolerantly(value: str, expected: list[tuple[str, str]]) -> None:
    """Address lists: quoted names with commas, comments, groups, RFC 2047 names, a display name
    that is an address, 8-bit names."""
    assert parse_addresses(value) == expected


def test_eight_bit_utf8_headers_are_read() -> None:
    """Raw UTF-8 in headers (SMTPUTF8, or careless clients) is read as UTF-8."""
    raw = "From: Jürgen <j@example.de>\nSubject: Grüße\n\nx\n".encode()
    mail = read_mail(raw)
    assert (mail.sender_name, mail.subject) == ("Jürgen", "Grüße")


def test_eight_bit_cp1252_headers_are_read() -> None:
    """8-bit headers that are not UTF-8 are read as cp1252."""
    raw = "From: Jürgen <j@example.de>\nSubject: Grüße\n\nx\n".encode("cp1252")
    assert read_mail(raw).subject == "Grüße"


def test_recipients_for_the_reply_token() -> None:
    """to/cc/delivered-to addresses (the service finds ``orders+TOKEN@host`` among them)."""
    raw = _mail(
        "From: bob@example.org\nTo: Judge <orders+AbC123@Judge.Example>, x@y.org\n"
        "Cc: carol@example.net\nDelivered-To: orders+AbC123@judge.example\n"
        "X-Original-To: orders@judge.example\nReply-To: Bob <bob.other@example.org>"
    )
    mail = read_mail(raw)
    assert mail.to == ("orders+AbC123@judge.example", "x@y.org")
    assert mail.cc == ("carol@example.net",)
    assert mail.delivered_to == ("orders+AbC123@judge.example", "orders@judge.example")
    assert mail.reply_to == ("bob.other@example.org",)
    assert mail.recipients == (
        "orders+AbC123@judge.example",
        "orders@judge.example",
        "x@y.org",
        "carol@example.net",
    )


# --- subject and message ids ------------------------------------------------------------------


def test_subject_is_decoded_and_unfolded() -> None:
    """RFC 2047 subject decoded, folding and runs of white space collapsed."""
    raw = _mail("From: b@x.org\nSubject: Re: [gw42]\n =?utf-8?q?Gr=C3=BC=C3=9Fe?=   und  mehr")
    assert read_mail(raw).subject == "Re: [gw42] Grüße und mehr"


def test_message_ids() -> None:
    """Message-ID (folded or without brackets), In-Reply-To, References (order kept, no
    repeats)."""
    raw = _mail(
        "From: b@x.org\nMessage-ID:\n <abc.123@mail.example.org>\n"
        "In-Reply-To: <r7.gw42@judge.example> (round 7)\n"
        "References: <r6.gw42@judge.example>\n <r7.gw42@judge.example> <r6.gw42@judge.example>"
    )
    mail = read_mail(raw)
    assert mail.message_id == "<abc.123@mail.example.org>"
    assert mail.in_reply_to == "<r7.gw42@judge.example>"
    assert mail.references == ("<r6.gw42@judge.example>", "<r7.gw42@judge.example>")
    assert read_mail(_mail("From: b@x.org\nMessage-ID: abc@x")).message_id == "<abc@x>"
    assert read_mail(_mail("From: b@x.org\nMessage-ID: junk")).message_id is None


# --- Authentication-Results ---------------------------------------------------------------------


def test_authentication_results_are_parsed() -> None:
    """Authentication-Results: the raw values, and dkim/spf/dmarc verdicts (RFC 8601)."""
    value = (
        "mx.judge.example; dkim=fail (bad sig; really) header.d=x.org;"
        " dkim=pass header.d=example.org; spf=softfail (sender IP is 192.0.2.1)"
        " smtp.mailfrom=example.org; dmarc=pass (p=none dis=none) header.from=example.org;"
        ' arc=none reason="a;b"'
    )
    result = parse_auth_results(value)
    assert (result.authserv_id, result.dkim, result.spf, result.dmarc) == (
        "mx.judge.example", "pass", "softfail", "pass",
    )  # fmt: skip
    assert result.raw == value
    assert parse_auth_results("mx.example; none").dkim is None


@pytest.mark.parametrize(
    ("authenticated", "from_domain", "expected"),
    [
        ("example.org", "EXAMPLE.org", True),
        ("mail.example.org", "example.org", True),
        ("example.org", "lists.example.org", True),
        # Siblings under one organisation: the subdomain test refused them.
        ("mail.example.co.uk", "news.example.co.uk", True),
        ("bounces.example.com", "eu.example.com", True),
        # A public suffix belongs to nobody: the subdomain test took co.uk for example.co.uk.
        ("co.uk", "example.co.uk", False),
        ("example.co.uk", "co.uk", False),
        # Private suffixes of the list: every bob.github.io is an organisation of its own.
        ("bob.github.io", "alice.github.io", False),
        ("github.io", "alice.github.io", False),
        ("evil.example", "example.org", False),
        (None, "example.org", False),
    ],
)
def test_alignment_is_by_organisational_domain(
    authenticated: str | None, from_domain: str, expected: bool
) -> None:
    """RFC 7489 3.1 and 3.2: relaxed alignment holds when both domains have the same
    organisational domain, the public suffix (Public Suffix List) and one label more."""
    assert aligned(authenticated, from_domain) is expected


def test_authentication_results_topmost_first_and_by_server() -> None:
    """All fields are kept, topmost first; ``auth()`` picks ours by authserv-id."""
    raw = _mail(
        "Authentication-Results: mx.judge.example; dmarc=fail header.from=example.org\n"
        "Authentication-Results: forged.example; dmarc=pass\nFrom: b@example.org"
    )
    mail = read_mail(raw)
    assert [r.authserv_id for r in mail.auth_results] == ["mx.judge.example", "forged.example"]
    top = mail.auth()
    assert top is not None
    assert top.dmarc == "fail"
    forged = mail.auth("FORGED.example")
    assert forged is not None
    assert forged.dmarc == "pass"
    assert mail.auth("nobody.example") is None


# --- the value ----------------------------------------------------------------------------------


def test_inbound_mail_is_a_frozen_hashable_value() -> None:
    """InboundMail is a frozen dataclass: equal input, equal value."""
    raw = _mail("From: Bob <bob@example.org>\nSubject: [gw42] orders")
    mail = read_mail(raw)
    assert mail == read_mail(raw)
    assert hash(mail) == hash(read_mail(raw))
    with pytest.raises(dataclasses.FrozenInstanceError):
        mail.sender = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    "raw",
    [
        b"\x00" * 100,
        b"From: \xff\xfe\n\n\xff",
        b"From: a@b\nContent-Type: multipart/mixed; boundary=\n\n--\n--",
        b"From: a@b\nContent-Type: text/plain; charset=zlib_codec\n\nx\x9c",
        b'From: a@b\nContent-Type: text/plain; charset="=?utf-8?q?x?="\n\nx',
        b"From: a@b\nContent-Transfer-Encoding: base64\n\n====!!!",
        b"From: a@b\nContent-Type: multipart/alternative; boundary=b\n\n" + b"--b\n" * 500,
        b"From: a@b\nContent-Type: message/rfc822\n\nFrom: c@d\n\nx",
        b"From: a@b\nContent-Type: text/plain; charset*=utf-8''x\n\nGIVE \xff",  # stdlib raises
        b"Authentication-Results: x; " + b'"a;' * 20_000 + b"\nFrom: a@b\n\nx",
        b"From: a@b\n" + b"X: " + b"a" * 100_000 + b"\n\nbody",
    ],
)
def test_read_mail_never_raises_on_hostile_input(raw: bytes) -> None:
    """read_mail never raises: hostile input gives an InboundMail (unreadable at worst)."""
    mail = read_mail(raw)
    assert isinstance(mail, InboundMail)
    assert not mail.kind_reason.startswith("internal error")


def test_deeply_nested_multipart_never_raises() -> None:
    """MIME nested thousands deep is refused politely, not with a RecursionError."""
    depth = 3000
    head = b"From: a@b\nMIME-Version: 1.0\n"
    parts = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (i, i) for i in range(depth)
    )
    mail = read_mail(head + parts + b"Content-Type: text/plain\n\nGIVE 1 TO bob\n")
    assert isinstance(mail, InboundMail)


def test_bytearray_input_is_accepted() -> None:
    """Any bytes-like input is read."""
    mail = read_mail(bytearray(_mail("From: b@x.org")))  # type: ignore[arg-type]
    assert mail.kind is MailKind.ORDINARY


# --- sections -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subject", "game"),
    [
        ("[gw42]", "gw42"),
        ("Re: [GW42] orders", "gw42"),
        ("AW: [SPAM] Re: [gw42] orders", "gw42"),
        ("orders", None),
        ("[not a tag]", None),
    ],
)
def test_subject_tag_names_the_game(subject: str, game: str | None) -> None:
    """Lines before any GAME line belong to the game tagged in the subject, or None."""
    assert subject_game(subject) == game


def test_game_lines_start_sections() -> None:
    """``GAME <name>`` (any case, also ``game: name``) starts the section of that game; lines
    before it belong to the subject's game; blank lines are dropped; numbers are kept."""
    lines = ["GIVE 1 TO bob", "", "GAME gw43", "a1-a2", "- game: GW44.", "GIVE 2 TO carol"]
    assert split_sections(lines, subject="Re: [gw42] orders") == [
        Section("gw42", (SectionLine(1, "GIVE 1 TO bob"),)),
        Section("gw43", (SectionLine(4, "a1-a2"),)),
        Section("gw44", (SectionLine(6, "GIVE 2 TO carol"),)),
    ]


def test_lines_with_no_game_named_have_game_none() -> None:
    """No subject tag and no GAME line: one section with game None."""
    assert split_sections(["GIVE 1 TO bob"], subject="orders") == [
        Section(None, (SectionLine(1, "GIVE 1 TO bob"),))
    ]


def test_password_line_becomes_the_section_secret() -> None:
    """``PASSWORD <secret>`` / ``SECRET <secret>`` is taken out of the lines and becomes the
    section's secret."""
    lines = ["PASSWORD hunter2", "GIVE 1 TO bob", "GAME gw2", "secret: s3cr3t.", "a1-a2"]
    first, second = split_sections(lines, subject="[gw1]")
    assert (first.game, first.secret, first.lines) == (
        "gw1", "hunter2", (SectionLine(2, "GIVE 1 TO bob"),),
    )  # fmt: skip
    assert (second.game, second.secret, second.lines) == (
        "gw2", "s3cr3t.", (SectionLine(5, "a1-a2"),),
    )  # fmt: skip


def test_secret_never_shows_in_repr() -> None:
    """The secret must never appear in logs or echoes: Section's repr hides it."""
    (section,) = split_sections(["password hunter2", "GIVE 1 TO bob"], subject="[gw1]")
    assert section.secret == "hunter2"
    assert "hunter2" not in repr(section)
    assert "hunter2" not in str(section)
    assert "hunter2" not in repr([section])
    assert "<hidden>" in repr(section)


def test_sections_of_the_same_game_are_merged() -> None:
    """Two GAME lines for one game make one section, in line order."""
    lines = ["GAME a", "x1", "GAME b", "y1", "game A", "x2"]
    sections = split_sections(lines, subject="")
    assert [(s.game, [line.text for line in s.lines]) for s in sections] == [
        ("a", ["x1", "x2"]),
        ("b", ["y1"]),
    ]


def test_empty_untagged_lead_in_is_dropped_but_named_empty_game_kept() -> None:
    """A lead-in with nothing in it is not a section; a GAME line with no orders is."""
    sections = split_sections(["", "GAME gw7"], subject="[gw1]")
    assert sections == [Section("gw7", ())]


def test_game_word_inside_a_sentence_is_not_a_game_line() -> None:
    """Only a line that is ``GAME <one name>`` switches games."""
    lines = ["good game everyone", "GAME over now", "password", "Secret Santa is fun"]
    (section,) = split_sections(lines, subject="[gw1]")
    assert [line.text for line in section.lines] == lines
    assert section.secret is None
