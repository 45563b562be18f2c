"""Pictures drawn in the service's own process: libvips (with librsvg inside) from the
``pyvips-binary`` wheel, so that no system package is needed, and the fonts shipped with the
package (``adjudicator/pictures/fonts``), so that a picture looks the same on every machine.

libvips finds fonts through fontconfig; before libvips is first loaded, ``FONTCONFIG_FILE`` is
pointed at a configuration that names only the shipped fonts. Rendering releases the
interpreter lock (cffi calls into C), so several threads draw at once on several cores.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from importlib import resources
from pathlib import Path
from typing import Any

from PIL import Image

from adjudicator.mail.images import ZOOM, palette_png

log = logging.getLogger(__name__)

_FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>{fonts}</dir>
  <cachedir>{cache}</cachedir>
</fontconfig>
"""
_lock = threading.Lock()
_vips: Any = None
_failed: str | None = None


def fonts_folder() -> Path:
    return Path(str(resources.files("adjudicator") / "pictures" / "fonts"))


def _fontconfig() -> Path:
    """A fontconfig file naming only the shipped fonts, in a folder of this user's."""
    fonts = fonts_folder().resolve()
    tag = hashlib.sha256(str(fonts).encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"adjudicator-fonts-{os.getuid()}-{tag}"
    folder.mkdir(mode=0o700, exist_ok=True)
    conf = folder / "fonts.conf"
    text = _FONTS_CONF.format(fonts=fonts, cache=folder / "cache")
    if not conf.exists() or conf.read_text() != text:
        conf.write_text(text)
    return conf


def _load() -> Any:
    """pyvips, loaded once with the shipped fonts; None (and why, logged once) without it."""
    global _vips, _failed  # noqa: PLW0603 - one library per process, loaded on first use
    with _lock:
        if _vips is None and _failed is None:
            os.environ["FONTCONFIG_FILE"] = str(_fontconfig())
            try:
                import pyvips  # noqa: PLC0415 - loaded after FONTCONFIG_FILE is set

                # No operation cache: every picture is a new SVG, drawn once (the PNGs are
                # kept by digest, ``images.PngCache``); libvips would keep the last hundred
                # drawings' pixels, some 8 MB of each worker process for nothing.
                pyvips.cache_set_max(0)
                _vips = pyvips
            except (ImportError, OSError) as error:
                _failed = str(error)
                log.warning("pictures cannot be drawn (pyvips: %s): HTML mail goes without", error)
    return _vips


class VipsConverter:
    """SVG to a palette PNG in this process: the service's default converter."""

    def __init__(self, zoom: float = ZOOM) -> None:
        self.zoom = zoom

    def to_png(self, svg: str) -> bytes | None:
        vips = _load()
        if vips is None:
            return None
        try:
            image = vips.Image.svgload_buffer(svg.encode("utf-8"), scale=self.zoom)
            if image.bands == 3:
                image = image.bandjoin(255)
            # The pixels go to the palette as they are: no full-colour PNG written and read
            # back in between (a third of the time a picture took).
            pixels = image.write_to_memory()
        except vips.Error as error:
            log.warning("a picture could not be drawn: %s", str(error).strip().splitlines()[0])
            return None
        try:
            drawn = Image.frombuffer(
                "RGBA", (image.width, image.height), pixels, "raw", "RGBA", 0, 1
            )
            return palette_png(drawn)
        except (ValueError, OSError) as error:  # not 8-bit RGBA after all
            log.warning("a picture could not be made a PNG: %s", error)
            return None
