"""Horizontal bar charts, as monospace text and as SVG: Giveaway standings, SiSSYFiGHT chips.

A bar has a value and, optionally, a ``lost`` part drawn after it in a faded tone (the chips a
SiSSYFiGHT player lost this turn), so one chart shows both where everybody stands and what the
round changed. Pure string building; the colours follow the board pictures' warm palette.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

INK = "#4a3b22"
PAPER = "#fbf7ee"
FRAME = "#8a5a2b"
FONT = "DejaVu Sans, Verdana, sans-serif"


def faded(colour: str, alpha: float, *, over: str = PAPER) -> str:
    """``colour`` (``#rrggbb``) at ``alpha`` over the colour ``over``, as one solid colour: what
    an ``opacity`` shows on a plain ground, without the layer of its own that the renderer
    composes for each element with an ``opacity`` (a fifth of the time it took to draw the
    gift graph of a six-player Giveaway round)."""
    top, ground = _rgb(colour), _rgb(over)
    mixed = (round(alpha * t + (1 - alpha) * g) for t, g in zip(top, ground, strict=True))
    return "#" + "".join(f"{c:02x}" for c in mixed)


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@dataclass(frozen=True)
class Bar:
    """One row of a chart: ``label`` and ``value``; ``note`` is printed after the number."""

    label: str
    value: int
    colour: str = "#c9962e"
    lost: int = 0
    note: str = ""
    emphasis: bool = False


def text_chart(bars: Sequence[Bar], *, scale: int, width: int = 40) -> list[str]:
    """One line per bar: ``alice  ######....  6  note``; ``#`` is the value, ``.`` the lost
    part, scaled so that ``scale`` fills ``width`` characters (a non-zero value shows at least
    one ``#``)."""
    label_width = max((len(bar.label) for bar in bars), default=0)
    number_width = max((len(str(bar.value)) for bar in bars), default=1)
    lines = []
    for bar in bars:
        full = _cells(bar.value, scale, width)
        lost = _cells(bar.value + bar.lost, scale, width) - full
        drawn = ("#" * full + "." * lost).ljust(width)
        note = f"  {bar.note}" if bar.note else ""
        marker = "*" if bar.emphasis else " "
        lines.append(
            f"{marker}{bar.label.ljust(label_width)}  {drawn}  {bar.value:>{number_width}}{note}"
        )
    return lines


def bars_words(bars: Sequence[Bar], *, one: str, many: str) -> str:
    """The bars in a sentence, in their order: ``alice 6 chips (lost 4); bob 1 chip``."""
    told = []
    for bar in bars:
        note = f" ({bar.note})" if bar.note else ""
        told.append(f"{bar.label} {bar.value} {one if bar.value == 1 else many}{note}")
    return "; ".join(told) + "."


def _cells(value: int, scale: int, width: int) -> int:
    if value <= 0 or scale <= 0:
        return 0
    return max(1, min(width, round(value * width / scale)))


_ROW = 30
_LEFT_PAD = 16
_BAR_HEIGHT = 18


def svg_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    scale: int,
    width: int = 560,
    target: tuple[int, str] | None = None,
    caption: str = "",
) -> str:
    """A standalone SVG bar chart. ``target`` draws a dashed vertical line at a value with a
    label (Giveaway's 100 points); ``caption`` goes under the chart."""
    label_width = 12 + 8.5 * max((len(bar.label) for bar in bars), default=4)
    bar_left = _LEFT_PAD + label_width
    bar_room = width - bar_left - 110
    top = 44
    height = top + _ROW * len(bars) + (46 if caption else 22)
    x_of = _Scale(bar_left, bar_room / max(scale, 1))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" rx="10" fill="{PAPER}" stroke="{FRAME}" '
        'stroke-width="2"/>',
        f'<text x="{_LEFT_PAD}" y="28" font-size="17" font-weight="bold" fill="{INK}">'
        f"{escape(title)}</text>",
    ]
    line = x_of(target[0]) if target is not None and target[0] <= scale else None
    for index, bar in enumerate(bars):
        parts += _svg_row(bar, top + index * _ROW, bar_left, x_of, line=line)
    if target is not None and target[0] <= scale:
        x = x_of(target[0])
        bottom = top + _ROW * len(bars)
        parts.append(
            f'<line class="target" x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{bottom:.1f}" '
            f'stroke="#b3262b" stroke-width="2" stroke-dasharray="6 4"/>'
            f'<text x="{x:.1f}" y="{top - 10}" font-size="12" fill="#b3262b" '
            f'text-anchor="middle">{escape(target[1])}</text>'
        )
    if caption:
        parts.append(
            f'<text x="{width / 2:.1f}" y="{height - 16}" font-size="13" fill="{INK}" '
            f'text-anchor="middle">{escape(caption)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


@dataclass(frozen=True)
class _Scale:
    """Chart x coordinate of a value."""

    left: float
    per_unit: float

    def __call__(self, value: float) -> float:
        return self.left + value * self.per_unit


_CHARACTER = 8.5
"""The width of a character of a 14-pixel label, a little more than DejaVu Sans's average."""


def _svg_row(
    bar: Bar, y: float, bar_left: float, x_of: _Scale, *, line: float | None = None
) -> list[str]:
    """A bar with its label; a label that would run across the target ``line`` starts after
    it instead (an "85 wins" beside a dashed 100 line)."""
    weight = ' font-weight="bold"' if bar.emphasis else ""
    middle = y + _BAR_HEIGHT / 2 + 5
    parts = [
        f'<g class="bar"><text x="{bar_left - 10:.1f}" y="{middle:.1f}" font-size="14" '
        f'fill="{INK}" text-anchor="end"{weight}>{escape(bar.label)}</text>'
    ]
    end = x_of(bar.value)
    if bar.value > 0:
        parts.append(
            f'<rect x="{bar_left:.1f}" y="{y:.1f}" width="{end - bar_left:.1f}" '
            f'height="{_BAR_HEIGHT}" rx="3" fill="{bar.colour}" stroke="{INK}" '
            'stroke-width="1"/>'
        )
    if bar.lost > 0:
        lost_end = x_of(bar.value + bar.lost)
        parts.append(
            f'<rect class="lost" x="{end:.1f}" y="{y:.1f}" width="{lost_end - end:.1f}" '
            f'height="{_BAR_HEIGHT}" rx="3" fill="{bar.colour}" opacity="0.25" '
            f'stroke="{INK}" stroke-width="1" stroke-dasharray="3 2"/>'
        )
        end = lost_end
    label = str(bar.value) + (f"  {bar.note}" if bar.note else "")
    start = end + 8
    if line is not None and start - 4 < line < start + _CHARACTER * len(label):
        start = line + 8
    parts.append(
        f'<text x="{start:.1f}" y="{middle:.1f}" font-size="14" fill="{INK}"{weight}>'
        f"{escape(label)}</text></g>"
    )
    return parts
