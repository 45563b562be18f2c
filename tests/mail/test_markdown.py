"""The rules pages as a mail carries them (adjudicator/mail/markdown.py): plain text that reads
on a narrow screen, and HTML that shows the page's text and nothing the page did not say."""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.games import GAME_NAMES
from adjudicator.mail.markdown import WIDTH, markdown_html, markdown_text

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"


@pytest.mark.parametrize("kind", GAME_NAMES)
def test_every_rules_page_as_text_keeps_to_the_width_and_its_words(kind: str) -> None:
    source = (RULES / f"{kind}.md").read_text(encoding="utf-8")
    text = markdown_text(source)
    prose = [line for line in text.splitlines() if not line.startswith("    ")]
    assert [line for line in prose if len(line) > WIDTH] == []
    assert "\x00" not in text
    assert "![" not in text  # pictures are left out: the mail draws its own board
    # Every word of the page is still there (markup aside).
    words = {w.strip("*`|") for w in source.split() if w.isalpha()}
    assert {w for w in words if w not in text} == set()


def test_a_code_span_is_never_broken_across_lines() -> None:
    text = markdown_text("Write " + "words " * 10 + "`GIVE 3 TO bob` to give.", width=30)
    assert "`GIVE 3 TO bob`" in text


def test_a_table_keeps_its_columns_and_a_wide_one_wraps_inside_its_widest_column() -> None:
    narrow = markdown_text("| Order | Meaning |\n|---|---|\n| `FIRE` | fire one missile |\n")
    assert narrow.splitlines() == [
        "Order   Meaning",
        "------  ----------------",
        "`FIRE`  fire one missile",
    ]
    wide = markdown_text(
        "| Round | What happens |\n|---|---|\n| 1 | " + "a long explanation " * 5 + "|\n"
        "| 2 | short |\n",
        width=40,
    )
    assert wide.splitlines() == [
        "Round  What happens",
        "-----  ---------------------------------",
        "1      a long explanation a long",
        "       explanation a long explanation a",
        "       long explanation a long",
        "       explanation",
        "",
        "2      short",
    ]


def test_a_table_whose_words_cannot_fit_becomes_a_list() -> None:
    wide = markdown_text(
        "| Round | What happens |\n|---|---|\n| 1 | " + "x" * 50 + " |\n", width=40
    )
    assert wide.splitlines()[0] == "- Round: 1"
    assert "x" * 50 in wide


def test_lists_nest_and_wrap_under_their_marker() -> None:
    text = markdown_text("- one " + "word " * 20 + "\n  - inner\n- two\n", width=40)
    lines = text.splitlines()
    assert lines[0].startswith("- one word")
    assert all(line.startswith("  ") for line in lines[1:-2])
    assert "  - inner" in lines
    assert lines[-1] == "- two"


def test_the_html_shows_raw_html_as_text_and_drops_pictures_and_local_links() -> None:
    html = markdown_html(
        "# Rules\n\n<script>alert(1)</script>\n\n![board](board.png)\n\n"
        "See [the other game](giveaway.md) and [the site](https://example.org/).\n"
    )
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "<img" not in html
    assert "giveaway.md" not in html
    assert "the other game" in html
    assert 'href="https://example.org/"' in html
    assert html.startswith("<h1 style=")
