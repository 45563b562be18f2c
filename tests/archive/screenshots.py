"""Screenshots of the archive for the docs: ``python tests/archive/screenshots.py OUT_DIR``.

Plays the sample games (``samplegames.py`` beside this file) in a throwaway database, builds the site and has
headless Chromium photograph each page kind: the index, a game page (also on a 420-pixel phone
and in the dark scheme), a Giveaway round and a board game round.
"""

from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from headless import BrowserError, screenshot
from samplegames import play_samples

from adjudicator.archive.build import build_archive
from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import make_app

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

SHOTS: tuple[tuple[str, str, int, int, bool], ...] = (
    # file name, page, width, height, dark
    ("index.png", "index.html", 1100, 620, False),
    ("game.png", "gw7/index.html", 1100, 1500, False),
    ("game-phone.png", "gw7/index.html", 420, 1500, False),
    ("game-dark.png", "duel/index.html", 1100, 1250, True),
    ("round-giveaway.png", "gw7/round-2.html", 1100, 1600, False),
    ("round-board.png", "paris/round-13.html", 1100, 1250, False),
)


def make_screenshots(out_dir: Path) -> list[Path]:
    """Build the sample archive and write every screenshot of :data:`SHOTS` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="archive-screenshots-") as work:
        folder = Path(work)
        config = Config(
            service=ServiceConfig(data_dir=str(folder / "data"), address="judge@example.org")
        )
        app = make_app(config)
        try:
            play_samples(app, START)
            build_archive(app.engine, folder / "site", authority="example.org")
        finally:
            app.engine.dispose()
        return [
            screenshot(folder / "site" / page, out_dir / name, width=w, height=h, dark=dark)
            for name, page, w, h, dark in SHOTS
        ]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/archive/screenshots.py OUT_DIR", file=sys.stderr)
        return 2
    try:
        written = make_screenshots(Path(argv[0]))
    except BrowserError as error:
        print(f"screenshots: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
