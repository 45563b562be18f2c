"""HTML bodies as text: what a person sees, in work linear in the markup (issue: a 39 KB mail
of nested lists took 20 seconds, since nested lists cost the square of their depth)."""

from __future__ import annotations

import pytest

from adjudicator.mail.body import html_to_text
from adjudicator.mail.markup import MAX_MARKUP, convert
from adjudicator.mail.parse import MailKind, read_mail

MEGABYTE = 1_000_000


def _repeat(piece: str, size: int) -> str:
    return piece * (size // len(piece))


BOMBS = {
    "nested lists": _repeat("<ul><li>x", MEGABYTE),
    "nested ordered lists": _repeat("<ol><li>GIVE 1 TO bob", MEGABYTE),
    "nested quotes": _repeat("<blockquote>q", MEGABYTE),
    "nested divs": _repeat("<div><span>", MEGABYTE),
    "unclosed tags": _repeat("<a href=x", MEGABYTE),
    "unclosed comments": _repeat("<!--", MEGABYTE),
    "unclosed scripts": _repeat("<script>", MEGABYTE),
    "entities": _repeat("&amp;&#x41;&bogus;", MEGABYTE),
    "line breaks": _repeat("<br>", MEGABYTE),
    "table cells": _repeat("<tr><td>a</td>", MEGABYTE),
}


@pytest.mark.parametrize("name", BOMBS)
def test_a_megabyte_of_hostile_markup_is_read_in_linear_work(name: str) -> None:
    """Every token is read once and every written line is bounded by the nesting shown, so the
    work (tokens plus characters written) stays within a small multiple of the input."""
    markup = "<p>GIVE 3 TO bob</p>" + BOMBS[name]
    converted = convert(markup)
    assert converted.steps <= 4 * len(markup)
    assert len(converted.text) <= 4 * len(markup)
    assert converted.text.startswith("GIVE 3 TO bob")


def test_deeply_nested_lists_give_text_of_the_size_of_the_markup() -> None:
    """Each list item's line is indented by its depth, but only to a bounded depth: three
    thousand nested lists (27 KB) must not write millions of characters of indentation."""
    markup = "<p>GIVE 3 TO bob</p>" + "<ul><li>x" * 3000
    text = html_to_text(markup)
    assert len(text) <= 10 * len(markup)
    assert text.splitlines()[0] == "GIVE 3 TO bob"
    assert text.count("x") == 3000


def test_markup_beyond_the_limit_is_not_read_and_the_reader_says_so() -> None:
    converted = convert("<p>GIVE 3 TO bob</p>" + "<p>x</p>" * (MAX_MARKUP // 8 + 10))
    assert converted.notes
    assert converted.text.startswith("GIVE 3 TO bob")


def test_an_html_bomb_mail_is_read_and_its_orders_found() -> None:
    """The whole mail through the reader: ordinary mail, orders read, nothing refused."""
    body = "<html><body><div>GIVE 3 TO bob</div>" + "<ul><li>x" * 100_000 + "</body></html>"
    raw = (
        "From: alice@example.org\nTo: judge@pbem.test\nSubject: [gw7] orders\n"
        "Message-ID: <bomb@example.org>\nMIME-Version: 1.0\n"
        "Content-Type: text/html; charset=utf-8\n\n" + body
    ).encode()
    mail = read_mail(raw, max_bytes=10 * MEGABYTE)
    assert mail.kind is MailKind.ORDINARY
    assert mail.lines[0] == "GIVE 3 TO bob"


@pytest.mark.parametrize(
    ("markup", "lines"),
    [
        ("<div>GIVE 3 TO bob</div><div>GIVE 1 TO carol</div>", ["GIVE 3 TO bob", "GIVE 1 TO carol"]),
        ("GIVE 3 TO bob<br>GIVE 1<br/>TO carol", ["GIVE 3 TO bob", "GIVE 1", "TO carol"]),
        ("<ul><li>GIVE 3 TO bob</li><li>PASS</li></ul>", ["* GIVE 3 TO bob", "* PASS"]),
        ("<ol><li>a1-a2</li><li>b2-b3</li></ol>", ["1. a1-a2", "2. b2-b3"]),
        ("<p>a</p><blockquote><p>GIVE 9</p><blockquote>x</blockquote></blockquote>",
         ["a", "", "> GIVE 9", ">", "> > x"]),
        ("<style>p {color: red}</style><script>x()</script><p>GIVE&nbsp;3 &lt;b&gt;</p>",
         ["GIVE\u00a03 <b>"]),
        ("<pre>GIVE 3\n  TO bob</pre>", ["GIVE 3", "  TO bob"]),
        ("a < b and c > d", ["a < b and c > d"]),
        ("<p>GIVE 3 <del>TO x</del>TO bob</p>", ["GIVE 3 TO bob"]),
    ],
)  # fmt: skip
def test_markup_reads_as_a_person_sees_it(markup: str, lines: list[str]) -> None:
    assert html_to_text(markup).splitlines() == lines


QUOTE_CONTAINERS = [
    '<div id="divRplyFwdMsg" dir="ltr"><b>Από:</b> Judge<br><b>Θέμα:</b> [sc4]</div>',
    '<span id="OLK_SRC_BODY_SECTION"><b>De la:</b> Judge</span>',
    '<div id="yahoo_quoted_77" class="yahoo_quoted"><div>Judge a scris</div></div>',
    "<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
    "<p><b>Feladó:</b> Judge</p></div>",
]


@pytest.mark.parametrize("container", QUOTE_CONTAINERS)
def test_a_mail_programs_quote_container_starts_the_quote(container: str) -> None:
    """Everything below a recognised quote header is the quote, in HTML too: Outlook's
    ``divRplyFwdMsg``, ``OLK_SRC_BODY_SECTION`` and ``WordSection1`` rule, Yahoo's
    ``yahoo_quoted``, whatever language the header block is in; the old order below it is
    not read, the new one above it is."""
    markup = f"<html><body><div>SHIELD</div>{container}<div>FIRE</div></body></html>"
    raw = (
        "From: Alice <alice@example.org>\nTo: judge@pbem.test\nSubject: [sc4] orders\n"
        "Content-Type: text/html; charset=utf-8\n\n" + markup
    ).encode()
    assert [line for line in read_mail(raw).lines if line.strip()] == ["SHIELD"]


def test_a_writers_own_box_is_no_quote_container() -> None:
    """A border the writer draws is not Outlook's rule: the orders in it are read."""
    markup = '<div style="border:1px solid #ccc;padding:4px"><div>FIRE</div></div>'
    assert html_to_text(markup).splitlines() == ["FIRE"]
