"""Everyone can read the results: every kind of HTML mail and every archive page, in a real
headless Chromium at a 320-pixel phone, a 400-pixel phone and a 1280-pixel desktop window (320
CSS pixels is also what a 640-pixel window shows at 200% zoom), fits the window and passes
axe-core's checks of WCAG 2.1 A and AA (and 2.2's target size); the archive also in its dark
scheme.

The mails are the reviewed golden HTML parts of tests/golden/mail/ and tests/golden/deadline-mail/
(tests/mail/test_templates.py and test_templates_turns.py check that the service renders exactly
those): one playthrough per game with every kind of mail, the game master's notices, the
reminders and the grace period's mails. Every kind of mail the service sends, taken from its
templates, is checked the same way in tests/service/test_every_mail_readable.py, as the
service renders it in plays, with the archive's tournament, players' and rating pages. The
archive here is the site that tests/archive/conftest.py builds from the sample games. One
browser opens every page in turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from archivesite import Played
from axe import axe_browser, problems_of
from devtools import Browser

WIDTHS = (320, 400, 1280)
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
MAIL_GOLDEN = GOLDEN / "mail"
EVERY_KIND = {
    "giveaway": "nmr-and-rings",
    "sissyfight": "joint-win",
    "starship-combat": "mutual-destruction",
    "three-musketeers": "cardinal-wins-by-a-line",
    "rock-scissors-paper": "two-flags-custom",
}
"""The playthrough of each game whose every kind of mail has a golden file."""


def mail_pages() -> dict[str, Path]:
    pages = {}
    for game, playthrough in EVERY_KIND.items():
        for path in sorted((MAIL_GOLDEN / game).glob("*.html")):
            if path.stem.startswith((playthrough, "gm-notice-")):
                pages[f"mail {game}/{path.stem}"] = path
    for path in sorted((GOLDEN / "deadline-mail").glob("*/*.html")):  # reminders and grace
        pages[f"mail {path.parent.name}/{path.stem}"] = path
    return pages


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with axe_browser() as driven:
        yield driven


def test_every_kind_of_html_mail_fits_a_phone_and_passes_axe(chromium: Browser) -> None:
    """Issue 47: "HTML mails do not fit a phone ... every line runs off the screen"; issue 40:
    every HTML mail tested at 400 px as the archive is."""
    pages = mail_pages()
    assert len(pages) >= 60, sorted(pages)  # 5 games x ~12 kinds, and 4 notices
    kinds = ("welcome", "result-round-1", "report", "history", "confirmation", "notice", "reminder")
    for kind in kinds:
        assert any(kind in name for name in pages), kind
    problems = problems_of(chromium, pages, widths=WIDTHS)
    assert not problems, "\n".join(problems)


def test_every_archive_page_fits_a_phone_and_passes_axe(chromium: Browser, played: Played) -> None:
    """Issue 47: the archive at 320 px and 1280 px, light and dark, without overflow and
    without a WCAG 2.1 A/AA violation."""
    pages = {
        f"page {path.relative_to(played.out)}": path for path in sorted(played.out.rglob("*.html"))
    }
    assert len(pages) >= 16, sorted(pages)
    problems = problems_of(chromium, pages, widths=WIDTHS)
    problems += problems_of(chromium, pages, widths=(400,), dark=True)
    assert not problems, "\n".join(problems)


def test_axe_finds_what_it_is_asked_to_find(chromium: Browser, tmp_path: Path) -> None:
    """The check itself works: a page with a picture without alt text, grey on grey text, a
    line wider than a phone, a box that scrolls out of the keyboard's reach, an empty header
    cell and two navigation landmarks of one name fails it."""
    page = tmp_path / "bad.html"
    page.write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bad</title></head>'
        '<body><main><p style="color:#bbb;background:#ccc">faint</p><img src="x.png">'
        f'<p style="white-space:nowrap">{"wide " * 200}</p>'
        '<div style="overflow-x:auto">short</div>'
        "<table><tr><th></th><th>a</th></tr><tr><th>b</th><td>1</td></tr></table>"
        '<nav><a href="#a">a</a></nav><nav><a href="#b">b</a></nav>'
        "</main></body></html>",
        encoding="utf-8",
    )
    problems = problems_of(chromium, {"bad": page}, widths=(320,))
    text = "\n".join(problems)
    assert "wider than the window" in text
    assert "color-contrast" in text
    assert "image-alt" in text
    assert "div scrolls sideways but the keyboard cannot reach it" in text
    assert "th is an empty header cell" in text
    assert "more than one nav named ''" in text


def test_pictures_and_charts_of_the_archive_have_their_text_equivalents(played: Played) -> None:
    """Issue 47: every picture's alt text carries what it shows (not its caption again),
    its link says that it opens the full-size picture, the "Standings over time" chart has a
    table version, and a round page's two pagers have names of their own."""
    game = played.text("gw1/index.html")
    assert "The same as a table" in game
    chart_table = game.split('<table class="chart-table">', 1)[1].split("</table>", 1)[0]
    assert '<th scope="row">alice</th>' in chart_table
    assert '<th scope="col" class="num">Round 1</th>' in chart_table
    rounds = sorted(
        path.relative_to(played.out).as_posix() for path in played.out.glob("*/round-*.html")
    )
    assert len(rounds) >= 10, rounds
    for page in rounds:
        text = played.text(page)
        figures = re.findall(
            r'<img src="([^"]+)" alt="([^"]*)">\s*<figcaption>(.*?)</figcaption>', text
        )
        assert figures, page
        assert len(figures) == text.count("<img "), f"{page}: a picture outside a figure"
        for file, alt, caption in figures:
            assert alt, f"{page}: {file} has no alt text"
            assert alt not in caption, f"{page}: {file}'s alt text repeats its caption"
            assert f'<a href="{file}">(the full-size picture)</a>' in caption
        names = re.findall(r'<nav class="pager" aria-label="([^"]+)"', text)
        assert len(names) == 2, page
        assert len(set(names)) == 2, page
    board = played.text("paris/round-1.html")
    assert re.search(r'alt="Musketeers on [a-e]\d, [a-e]\d, [a-e]\d\. ', board)
    gifts = played.text("gw1/round-1.html")
    assert 'alt="alice gave bob 3 (ring A, pays 9)' in gifts
