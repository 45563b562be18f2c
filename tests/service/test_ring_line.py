"""A Giveaway ring in the HTML part of a result (issue 40, finding 21): the line that names a
ring flows as HTML, as wide as the reader's window, instead of keeping the plain part's hard
line breaks."""

from __future__ import annotations

import re

from playing import add_orders, close_open_round, new_game, plain, queued

from adjudicator.service.app import App

RING = ("alexandra", "bartholomew", "constantine", "dorothea")


def test_a_long_ring_line_wraps_as_html_and_as_text(app: App) -> None:
    new_game(app, list(RING), name="gw", kind="giveaway")
    for giver, taker in zip(RING, RING[1:] + RING[:1], strict=True):
        add_orders(app, "gw", giver, f"GIVE 3 TO {taker}")
    close_open_round(app, "gw")
    mail = next(m for m in queued(app, "result") if m["To"] == "alexandra@example.org")
    said = "alexandra -> bartholomew -> constantine -> dorothea -> alexandra: 3 points each"
    text = plain(mail)
    assert said in " ".join(text.split())
    assert max(len(line) for line in text.splitlines() if "->" in line) <= 92
    html_part = mail.get_body(preferencelist=("html",))
    assert html_part is not None
    html = str(html_part.get_content())
    found = re.search(r"alexandra(?: |&nbsp;)-&gt;(?: |&nbsp;)bartholomew", html)
    assert found is not None
    start = found.start()
    end = re.compile(r"pays(?: |&nbsp;)12").search(html, start)
    assert end is not None
    ring = html[start : end.start()]
    assert "<br>" not in ring, ring  # one flowing line, not the plain part's breaks
    assert "&nbsp;" not in ring, ring  # and not a monospace box
    assert re.search(r"<li[^>]*>alexandra -&gt; bartholomew", html)
