"""Headless Chromium, for looking at the archive as a reader does: screenshots and the DOM after
loading. Debian's ``chromium`` package provides it; nothing here installs anything."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

NAMES = ("chromium", "chromium-browser")
TIMEOUT = 120  # seconds for one page: generous, a cold start on a busy machine is slow


class BrowserError(RuntimeError):
    """Chromium is missing or failed."""


def find_chromium() -> str | None:
    """The path of Chromium on ``PATH``, or ``None``."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


FLAGS = (
    "--headless",
    "--no-sandbox",  # root in a container has no user namespace sandbox
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--mute-audio",
)
"""Chromium's flags for every page the tests draw or drive (``tests/devtools.py`` too)."""


def _run(arguments: list[str]) -> str:
    program = find_chromium()
    if program is None:
        raise BrowserError("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        command = [program, *FLAGS, f"--user-data-dir={profile}", *arguments]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired:
            raise BrowserError(f"chromium did not finish within {TIMEOUT} s") from None
    if done.returncode != 0:
        raise BrowserError(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def screenshot(
    page: Path, png: Path, *, width: int = 1100, height: int = 1400, dark: bool = False
) -> Path:
    """A PNG of ``page`` as a window of ``width`` x ``height`` pixels shows it."""
    scheme = ["--blink-settings=preferredColorScheme=0"] if dark else []
    _run([*scheme, f"--window-size={width},{height}", f"--screenshot={png}", page.as_uri()])
    if not png.is_file():
        raise BrowserError(f"chromium wrote no screenshot of {page}")
    return png


def dump_dom(page: Path, *, file_access: bool = False) -> str:
    """The page's DOM, serialised once it has loaded (and its scripts have run).

    ``file_access`` lets a ``file://`` page read other local pages it frames: what a test
    harness needs to look inside the archive's (script-free) pages.
    """
    access = ["--allow-file-access-from-files"] if file_access else []
    return _run([*access, "--dump-dom", page.as_uri()])
