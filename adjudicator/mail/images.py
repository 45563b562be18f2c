"""SVG pictures as PNG images for HTML mail: many mail clients do not show SVG.

A :class:`PictureConverter` turns an SVG into a PNG; the service holds one on its context
(``mail/vips.py``'s in-process renderer by default, a fast stand-in in tests that are not
about pictures). The service converts a round's pictures once, with no database transaction
open, and keeps the PNGs by the digest of their SVG (``picture_digest``); mails are then
composed from PNGs already made (:func:`inline_images`), never by converting. Without a
converter that works the HTML part goes out without its images and the omission is logged:
players still get the text diagram in the plain part.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from PIL import Image

from adjudicator.pictures import Picture

log = logging.getLogger(__name__)

ZOOM = 1.0
"""Drawn at the SVG's own size. At 1.5 times (sharper on high-density screens) the 20-player
Giveaway gift graph grows from 160 KB to 270 KB, and it travels in every player's mail."""
_SIZE = re.compile(r'<svg[^>]*?\swidth="([0-9.]+)"[^>]*?\sheight="([0-9.]+)"')


@dataclass(frozen=True)
class InlineImage:
    """A picture ready for a ``multipart/related`` HTML mail, shown at ``width`` x ``height``."""

    name: str
    title: str
    png: bytes
    content_id: str
    width: int
    height: int

    @property
    def filename(self) -> str:
        return f"{self.name}.png"


def svg_size(svg: str) -> tuple[int, int]:
    """The size an SVG asks to be shown at, from its root element."""
    match = _SIZE.search(svg)
    if match is None:
        raise ValueError("an SVG without width and height")
    return round(float(match.group(1))), round(float(match.group(2)))


class PngCache:
    """The last PNGs made or read, by :func:`picture_digest` of their SVG: in front of the
    table of PNGs, so that the mails of a round (and a report asked for again, usually of the
    latest round) find them without a query. The service keeps one (``ServiceContext.pngs``);
    64 pictures of up to 160 KB (a 20-player gift graph) are a few MB."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self.pngs: OrderedDict[str, bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, digest: str) -> bytes | None:
        with self.lock:
            png = self.pngs.get(digest)
            if png is not None:
                self.pngs.move_to_end(digest)
            return png

    def clear(self) -> None:
        with self.lock:
            self.pngs.clear()

    def put(self, digest: str, png: bytes) -> None:
        with self.lock:
            self.pngs[digest] = png
            while len(self.pngs) > self.size:
                self.pngs.popitem(last=False)


class PictureConverter(Protocol):
    """What makes PNGs of SVG pictures; None when a picture cannot be made (it is logged)."""

    def to_png(self, svg: str) -> bytes | None: ...


def picture_digest(svg: str) -> str:
    """The name a picture's PNG is kept under: the same SVG, the same PNG."""
    return hashlib.sha256(svg.encode("utf-8")).hexdigest()[:32]


def palette_png(image: Image.Image) -> bytes:
    """A picture as a PNG with a palette of at most 256 colours: our drawings have few colours
    (plus the shades of their anti-aliased edges), and every player's mail carries the image, so
    a file several times smaller is worth the few milliseconds once per round. No dithering:
    flat areas stay flat."""
    rgba = image if image.mode == "RGBA" else image.convert("RGBA")
    quantized = rgba.quantize(
        colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    quantized.save(out, format="PNG", compress_level=6)
    return out.getvalue()


def inline_images(
    pictures: Sequence[Picture], *, domain: str, pngs: Mapping[str, bytes]
) -> list[InlineImage]:
    """The pictures whose PNG was made (``pngs`` by :func:`picture_digest`), each with a
    Content-ID derived from its SVG (the same picture always has the same id, whichever
    converter drew it). Converts nothing; a picture without a size is left out."""
    images = []
    for picture in pictures:
        png = pngs.get(picture_digest(picture.svg))
        if png is None:
            continue
        try:
            width, height = svg_size(picture.svg)
        except ValueError:
            log.warning("the picture %r has no size: the mail goes without it", picture.name)
            continue
        digest = hashlib.sha256(picture.svg.encode("utf-8")).hexdigest()[:16]
        images.append(
            InlineImage(
                picture.name, picture.title, png, f"{picture.name}.{digest}@{domain}", width, height
            )
        )
    return images
