"""The archive in a real headless Chromium: each page kind (the rules pages too) loads with its
stylesheet, its pictures decode, its chart is laid out, and nothing is wider than a 420-pixel
phone.

The archive's pages hold no script; the checks run in a harness page outside the site, which
frames each page and reads it once everything has loaded (``--allow-file-access-from-files``
lets one local page read another).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from archivesite import Played, chromium_or_skip
from headless import dump_dom, screenshot

PAGES = {
    "index": "index.html",
    "game": "gw1/index.html",
    "giveaway round": "gw1/round-1.html",
    "board round": "hexes/round-1.html",
    "finished round": "duel/round-4.html",
    "rules": "rules/rock-scissors-paper.html",  # tables, a wide board, a picture
    "rules with a picture": "rules/three-musketeers.html",
}
WIDTHS = (1100, 420)

HARNESS = """<!doctype html>
<html><head><meta charset="utf-8"><title>harness</title></head><body>
{frames}
<pre id="result">pending</pre>
<script>
window.addEventListener("load", function () {{
  var found = [];
  document.querySelectorAll("iframe").forEach(function (frame) {{
    var d = frame.contentDocument;
    if (!d) {{ found.push({{page: frame.dataset.page, error: "no access"}}); return; }}
    try {{ found.push(probe(frame, d)); }}
    catch (e) {{ found.push({{page: frame.dataset.page, error: String(e)}}); }}
  }});
  document.getElementById("result").textContent = JSON.stringify(found);
}});
function probe(frame, d) {{
    var sheet = d.styleSheets.length ? d.styleSheets[0] : null;
    return {{
      page: frame.dataset.page,
      width: frame.clientWidth,
      title: d.title,
      h1: d.querySelector("h1") ? d.querySelector("h1").textContent : null,
      sheets: d.styleSheets.length,
      rules: sheet ? sheet.cssRules.length : 0,
      background: getComputedStyle(d.body).backgroundColor,
      scrollWidth: d.documentElement.scrollWidth,
      images: Array.prototype.map.call(d.images, function (i) {{
        return {{src: i.getAttribute("src"), complete: i.complete, width: i.naturalWidth,
                 shown: i.getBoundingClientRect().width}};
      }}),
      charts: Array.prototype.map.call(d.querySelectorAll("svg.chart"), function (s) {{
        var box = s.getBoundingClientRect();
        var line = s.querySelector("polyline");
        return {{width: box.width, height: box.height,
                 lines: s.querySelectorAll("polyline").length,
                 stroke: line ? getComputedStyle(line).stroke : "none"}};
      }})
    }};
}}
</script></body></html>
"""


def _harness(played: Played, folder: Path) -> Path:
    frames = "\n".join(
        f'<iframe data-page="{kind}@{width}" src="{(played.out / path).as_uri()}" '
        f'width="{width}" height="900"></iframe>'
        for kind, path in PAGES.items()
        for width in WIDTHS
    )
    harness = folder / "harness.html"
    harness.write_text(HARNESS.format(frames=frames), encoding="utf-8")
    return harness


def _results(dom: str) -> dict[str, dict[str, Any]]:
    match = re.search(r'<pre id="result">(.*?)</pre>', dom, re.DOTALL)
    assert match, dom[-2000:]
    return {r["page"]: r for r in json.loads(html.unescape(match.group(1)))}


def test_every_page_kind_renders_in_chromium(played: Played, tmp_path: Path) -> None:
    chromium_or_skip()
    results = _results(dump_dom(_harness(played, tmp_path), file_access=True))
    assert len(results) == len(PAGES) * len(WIDTHS)
    for key, found in results.items():
        assert "error" not in found, key
        assert found["title"].endswith("archive"), key
        assert found["h1"], key
        assert found["sheets"] == 1, f"{key}: style.css is not linked"
        assert found["rules"] > 20, f"{key}: style.css not applied"
        assert found["background"] not in ("", "rgba(0, 0, 0, 0)"), key
        for image in found["images"]:
            assert image["complete"], f"{key}: {image} did not load"
            assert image["width"] > 0, f"{key}: {image} did not decode"
            assert 0 < image["shown"] <= found["width"], f"{key}: {image} overflows"
        assert found["scrollWidth"] <= found["width"], f"{key}: wider than the window"
    for width in WIDTHS:
        game = results[f"game@{width}"]
        assert game["charts"], "the game page has no standings chart"
        for chart in game["charts"]:
            assert chart["width"] > 200, chart
            assert chart["height"] > 80, chart
            assert chart["lines"] == 5  # one per Giveaway player
            assert chart["stroke"] not in ("none", ""), "the series colours are not applied"
        # Both board games and Giveaway draw pictures of a round.
        assert results[f"board round@{width}"]["images"]
        assert results[f"giveaway round@{width}"]["images"]
        # The rules pages show their starting position (docs/rules/<game>.md).
        assert results[f"rules@{width}"]["images"]
        assert results[f"rules with a picture@{width}"]["images"]


def test_chromium_takes_a_screenshot_of_each_page_kind(played: Played, tmp_path: Path) -> None:
    chromium_or_skip()
    for kind, path in PAGES.items():
        png = screenshot(played.out / path, tmp_path / f"{kind}.png", width=420, height=800)
        data = png.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n"), kind
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (width, height) == (420, 800), kind
