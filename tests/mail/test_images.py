"""PNG pictures for HTML mail are palette images: several times smaller, the same picture."""

from __future__ import annotations

import io
import subprocess

import pytest
from needs import require_rsvg
from PIL import Image

from adjudicator.core.game import Setup
from adjudicator.games import get_rules, kind_of
from adjudicator.mail import images
from adjudicator.mail.images import svg_to_png


def _gift_graph() -> str:
    rules = get_rules("giveaway")
    players = [f"p{i}" for i in range(8)]
    state = rules.start(players, options={}, setup=Setup())
    orders = {
        p: rules.check(state, p, [f"GIVE 3 TO {players[(i + 1) % 8]}"]).orders
        for i, p in enumerate(players)
    }
    resolved = rules.resolve(state, orders)
    pictures = kind_of("giveaway").pictures(
        rules.public_state(resolved.state), resolved.report.public
    )
    return next(p.svg for p in pictures if p.name == "gifts")


def test_a_picture_becomes_a_small_palette_png_of_the_same_size() -> None:
    require_rsvg()
    svg = _gift_graph()
    png = svg_to_png(svg)
    assert png is not None
    image = Image.open(io.BytesIO(png))
    assert image.mode == "P"  # a palette
    full = _full_colour(svg)
    raw = Image.open(io.BytesIO(full))
    assert image.size == raw.size
    assert len(png) * 3 < len(full)  # at least three times smaller
    # the same picture: every pixel within a few steps of the full-colour original
    original, reduced = raw.convert("RGBA"), image.convert("RGBA")
    width, height = raw.size
    worst = max(
        max(
            abs(a - b)
            for a, b in zip(original.getpixel((x, y)), reduced.getpixel((x, y)), strict=True)
        )
        for x in range(0, width, 7)
        for y in range(0, height, 7)
    )
    assert worst <= 48


def _full_colour(svg: str) -> bytes:
    return subprocess.run(
        ["rsvg-convert", "--format=png"], input=svg.encode(), capture_output=True, check=True
    ).stdout


def test_a_picture_converted_again_comes_from_memory_and_failures_are_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    answers = iter([None, b"\x89PNG first", b"\x89PNG b", b"\x89PNG c"])

    def convert(svg: str, zoom: float) -> bytes | None:
        calls.append(svg)
        return next(answers)

    monkeypatch.setattr(images, "_convert", convert)
    cache = images.PngCache(size=2)
    assert svg_to_png("<svg a/>", cache=cache) is None  # rsvg-convert failed: tried again
    assert svg_to_png("<svg a/>", cache=cache) == b"\x89PNG first"
    assert svg_to_png("<svg a/>", cache=cache) == b"\x89PNG first"
    assert calls == ["<svg a/>", "<svg a/>"]
    svg_to_png("<svg b/>", cache=cache)
    svg_to_png("<svg a/>", cache=cache)  # the most recently used stays
    svg_to_png("<svg c/>", cache=cache)  # and b, the least recently used, goes
    assert len(calls) == 4
    assert cache.get(("<svg b/>", images.ZOOM)) is None
    assert cache.get(("<svg a/>", images.ZOOM)) == b"\x89PNG first"
