"""The rules pages of the site: each game's docs/rules/<game>.md as HTML, with its pictures.

Markdown is rendered by markdown-it-py (:func:`~adjudicator.mail.markdown.parser`: CommonMark
with tables; raw HTML in the source is not passed through). A link to another rules page
(``giveaway.md``) becomes a link to its HTML page.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from markdown_it.token import Token
from markupsafe import Markup

from adjudicator.mail.markdown import parser
from adjudicator.readmodel.rules import rules_asset, rules_markdown


@dataclass(frozen=True)
class RulesPage:
    """One game's rules as HTML, its title (the first heading) and the pictures it shows."""

    kind: str
    title: str
    html: Markup
    pictures: tuple[tuple[str, bytes], ...]  # (file name, bytes), beside the page


def _children(tokens: list[Token]) -> list[Token]:
    return [child for token in tokens for child in (token.children or [])]


def _relink(tokens: list[Token]) -> list[str]:
    """Point links to other rules pages at their HTML pages; the pictures' file names."""
    pictures = []
    for token in _children(tokens):
        if token.type == "link_open":
            href = str(token.attrGet("href") or "")
            if href.endswith(".md") and "/" not in href:
                token.attrSet("href", href.removesuffix(".md") + ".html")
        elif token.type == "image":
            pictures.append(_drawn(token))
    return pictures


def _drawn(image: Token) -> str:
    """The picture's file, its SVG where one is shipped beside a PNG (the site's pictures are
    SVG: sharp at any size, and text)."""
    src = str(image.attrGet("src") or "")
    svg = src.removesuffix(".png") + ".svg"
    if src.endswith(".png") and rules_asset(svg) is not None:
        image.attrSet("src", svg)
        return svg
    return src


def _title(tokens: list[Token], fallback: str) -> str:
    for index, token in enumerate(tokens[:-1]):
        if token.type == "heading_open" and token.tag == "h1":
            return tokens[index + 1].content
    return fallback


@functools.cache
def rules_page(kind: str) -> RulesPage:
    """The rules page of ``kind``, made once per process: the rules are shipped with the
    package, and every rebuild of a game's archive writes the rules pages beside it."""
    md = parser()
    tokens = md.parse(rules_markdown(kind))
    pictures = [(name, rules_asset(name)) for name in _relink(tokens)]
    html = md.renderer.render(tokens, md.options, {})
    # Wide tables and code blocks scroll sideways on a phone (style.css): a keyboard must be
    # able to reach them to scroll them (WCAG 2.1.1).
    html = html.replace("<table>", '<table tabindex="0">').replace("<pre>", '<pre tabindex="0">')
    return RulesPage(
        kind=kind,
        title=_title(tokens, kind),
        html=Markup(html),  # markdown-it escapes all text; raw HTML is off
        pictures=tuple((name, data) for name, data in pictures if data is not None),
    )
