"""PNG pictures for HTML mail are palette images: several times smaller, the same picture."""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path

import pytest
from PIL import Image

from adjudicator.core.game import Setup
from adjudicator.games import get_rules, kind_of
from adjudicator.games.three_musketeers.pictures import svg_diagram
from adjudicator.mail import images, vips
from adjudicator.mail.vips import VipsConverter
from adjudicator.pictures import charts


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
    svg = _gift_graph()
    png = VipsConverter().to_png(svg)
    assert png is not None
    image = Image.open(io.BytesIO(png))
    assert image.mode == "P"  # a palette
    full = _full_colour(svg)
    raw = Image.open(io.BytesIO(full))
    assert image.size == raw.size == images.svg_size(svg)
    assert len(png) * 2 < len(full)  # less than half
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
    import pyvips

    data: bytes = pyvips.Image.svgload_buffer(svg.encode()).write_to_buffer(".png")
    return data


def test_text_is_drawn_with_the_shipped_font_whatever_the_machine_has() -> None:
    """The same words come out in the same pixels: the renderer knows only the fonts shipped
    with the package (fontconfig is pointed at them before the library loads)."""
    fonts = vips.fonts_folder()
    assert sorted(p.name for p in fonts.glob("*.ttf")) == ["DejaVuSans-Bold.ttf", "DejaVuSans.ttf"]
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="30">'
        '<rect width="120" height="30" fill="#fff"/>'
        '<text x="4" y="20" font-family="DejaVu Sans" font-size="16">ann 100</text></svg>'
    )
    png = VipsConverter().to_png(svg)
    assert png is not None
    ink = Image.open(io.BytesIO(png)).convert("RGBA").convert("L")
    dark = sum(1 for x in range(120) for y in range(30) if ink.getpixel((x, y)) < 128)
    assert dark > 100  # the text is there (no font at all draws nothing)
    conf = Path(os.environ["FONTCONFIG_FILE"]).read_text()
    assert str(fonts.resolve()) in conf


def test_a_picture_that_cannot_be_drawn_is_none_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        assert VipsConverter().to_png('<svg width="10" height="10"><unclosed') is None
    assert "could not be drawn" in caplog.text


def test_the_memory_keeps_the_last_pictures_made() -> None:
    cache = images.PngCache(size=2)
    cache.put("a", b"\x89PNG a")
    cache.put("b", b"\x89PNG b")
    assert cache.get("a") == b"\x89PNG a"  # a is now the most recently used
    cache.put("c", b"\x89PNG c")  # and b, the least recently used, goes
    assert cache.get("b") is None
    assert cache.get("a") == b"\x89PNG a"
    assert cache.get("c") == b"\x89PNG c"


def _pixels(svg: str) -> Image.Image:
    return Image.open(io.BytesIO(_full_colour(svg))).convert("RGB")


@pytest.mark.parametrize(
    ("colour", "alpha", "ground"),
    [("#9a8a70", 0.75, "#fbf7ee"), ("#4a3b22", 0.4, "#fbf7ee"), ("#000000", 0.5, "#ffffff")],
)
def test_a_faded_colour_is_what_the_renderer_draws_for_that_opacity(
    colour: str, alpha: float, ground: str
) -> None:
    """A picture draws a faded tone solid (``charts.faded``) instead of asking for an
    ``opacity``, which costs the renderer a layer an element: it must be the same colour."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
        f'<rect width="20" height="20" fill="{ground}"/>'
        f'<rect width="20" height="20" fill="{colour}" opacity="{alpha}"/></svg>'
    )
    drawn = _pixels(svg).getpixel((10, 10))
    solid = charts.faded(colour, alpha, over=ground)
    expected = tuple(int(solid[i : i + 2], 16) for i in (1, 3, 5))
    assert all(abs(d - e) <= 1 for d, e in zip(drawn, expected, strict=True))


def test_fill_opacity_draws_a_shape_without_a_stroke_as_opacity_does() -> None:
    """The Three Musketeers board fades its shadows and highlights with ``fill-opacity``
    (no layer of their own): the same pixels as with ``opacity``, as SVG defines it for a
    shape that is only filled."""
    state = {"board": ["CCCCM", "CCMCC", "CC.CC", "CCCCC", "MCCCC"], "to_move": "cardinal"}
    svg = svg_diagram(state, last_move="c3-c4")
    assert 'fill-opacity="' in svg
    as_opacity = svg.replace('fill-opacity="', 'opacity="')
    now, before = _pixels(svg), _pixels(as_opacity)
    width, height = now.size
    worst = max(
        max(abs(a - b) for a, b in zip(now.getpixel((x, y)), before.getpixel((x, y)), strict=True))
        for x in range(0, width, 3)
        for y in range(0, height, 3)
    )
    assert worst <= 1
