"""axe-core, the accessibility checker, from the npm registry: its ``axe.min.js`` to load into a
page in headless Chromium (tests/devtools.py), the WCAG rules a test asks it to apply, and the
check every page and mail is put through (:func:`problems_of`: wider than the window, a picture
without a text equivalent, a violation axe finds).

The package's tarball is downloaded once into ``tests/.downloads/`` (ignored by git) and checked
against the SHA-512 integrity the registry publishes for this version, pinned here: a changed or
broken download is never run. Without the network the test that needs it is skipped here and
fails under CI (tests/needs.py).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from devtools import Browser, browser
from headless import BrowserError, find_chromium
from needs import unavailable

VERSION = "4.14.1"
TARBALL = f"https://registry.npmjs.org/axe-core/-/axe-core-{VERSION}.tgz"
INTEGRITY = "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
"""The registry's ``dist.integrity`` of this version (its metadata at /axe-core/4.14.1)."""
DOWNLOADS = Path(__file__).parent / ".downloads"
WCAG_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")
"""axe's tags of the success criteria of WCAG 2.1 at levels A and AA, and of those that WCAG
2.2 adds at AA (target size: a link must be big enough to tap)."""


class IntegrityError(RuntimeError):
    """The tarball is not the one the registry published."""


def axe_source() -> str:
    """The text of ``axe.min.js``, downloaded and checked on first use."""
    cached = DOWNLOADS / f"axe-core-{VERSION}.tgz"
    if not cached.is_file():
        try:
            with urllib.request.urlopen(TARBALL, timeout=60) as answer:
                data = answer.read()
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            unavailable(
                f"axe-core {VERSION} could not be downloaded from the npm registry: {error}"
            )
        check_integrity(data)
        DOWNLOADS.mkdir(exist_ok=True)
        partial = DOWNLOADS / f"{cached.name}.{os.getpid()}.part"  # workers may race
        partial.write_bytes(data)
        partial.replace(cached)
    data = cached.read_bytes()
    check_integrity(data)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        member = archive.extractfile("package/axe.min.js")
        if member is None:
            raise IntegrityError("the axe-core tarball has no package/axe.min.js")
        return member.read().decode("utf-8")


def check_integrity(data: bytes) -> None:
    """``data`` is the tarball of :data:`INTEGRITY` (Subresource Integrity form)."""
    algorithm, _, expected = INTEGRITY.partition("-")
    found = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if found != expected:
        raise IntegrityError(f"axe-core {VERSION}: {algorithm} {found} is not {expected}")


RUN = """
axe.run(document, {runOnly: {type: "tag", values: %s}, resultTypes: ["violations"]})
  .then(function (found) {
    return found.violations.map(function (v) {
      return {id: v.id, impact: v.impact, help: v.help,
              nodes: v.nodes.map(function (n) {
                return {target: n.target.join(" "), summary: n.failureSummary}; })};
    });
  })
"""


def run_expression(tags: tuple[str, ...] = WCAG_AA) -> str:
    """A script that runs axe on the page with the rules of ``tags`` and returns its
    violations as plain values."""
    return RUN % ("[" + ", ".join(f'"{tag}"' for tag in tags) + "]")


MEASURE = """(function () {
  function named(e) { return e.tagName.toLowerCase() + (e.className ? "." + e.className : ""); }
  var all = Array.prototype.slice.call(document.querySelectorAll("body *"));
  return {width: document.documentElement.scrollWidth, window: window.innerWidth,
    images: Array.prototype.filter.call(document.images,
      function (i) { return !i.getAttribute("alt"); }).length,
    scrollers: all.filter(function (e) {
      var x = getComputedStyle(e).overflowX;
      return (x === "auto" || x === "scroll") && e.tabIndex < 0; }).map(named),
    headers: all.filter(function (e) {
      return e.tagName === "TH" && !e.textContent.trim() && !e.getAttribute("aria-label"); }
      ).map(named),
    landmarks: (function () {
      var seen = {}, twice = [];
      all.filter(function (e) {
        return e.tagName === "NAV" || e.getAttribute("role") === "region"; }
      ).forEach(function (e) {
        var by = e.getAttribute("aria-labelledby"), label = by && document.getElementById(by);
        var name = (e.getAttribute("role") || "nav") + " named '" +
          (e.getAttribute("aria-label") || (label ? label.textContent.trim() : "")) + "'";
        if (seen[name] === 1) { twice.push(name); }
        seen[name] = (seen[name] || 0) + 1;
      });
      return twice; })()};
})()"""
"""The page's width and its window's; how many images have no alt text; the boxes that
scroll sideways when their content is wider (``overflow-x``) but that the keyboard cannot
reach (WCAG 2.1.1: axe finds only those that scroll at this width); the header cells with no
text; the navigation landmarks and regions that share a name with another of their kind (axe's
rules for these two are no WCAG rules)."""


@contextmanager
def axe_browser() -> Iterator[Browser]:
    """One headless Chromium with axe-core loaded into every page it opens; a missing
    Chromium or axe-core skips the test here and fails it in CI."""
    if find_chromium() is None:
        unavailable("chromium is not installed (apt-get install chromium)")
    source = axe_source()
    try:
        with browser() as driven:
            driven.add_script(source)
            yield driven
    except BrowserError as error:
        unavailable(f"chromium could not be driven: {error}")


def problems_of(
    driven: Browser, pages: Mapping[str, Path], *, widths: tuple[int, ...], dark: bool = False
) -> list[str]:
    """What is wrong with each page at each width: wider than the window, an image without a
    text equivalent, a sideways scrolling box the keyboard cannot reach, an empty header cell,
    two landmarks of a kind with one name, or a violation of WCAG 2.1 A/AA (and 2.2's target size) that axe finds."""
    found = []
    scheme = " (dark)" if dark else ""
    for width in widths:
        driven.window(width, dark=dark)
        for name, page in pages.items():
            driven.load(page)
            where = f"{name} at {width} px{scheme}"
            measured = driven.evaluate(MEASURE)
            if measured["width"] > measured["window"]:
                found.append(f"{where}: {measured['width']} px wide, wider than the window")
            if measured["images"]:
                found.append(f"{where}: {measured['images']} image(s) without alt text")
            for box in measured["scrollers"]:
                found.append(f"{where}: {box} scrolls sideways but the keyboard cannot reach it")
            for cell in measured["headers"]:
                found.append(f"{where}: {cell} is an empty header cell")
            for landmark in measured["landmarks"]:
                found.append(f"{where}: more than one {landmark}")
            for violation in driven.evaluate(run_expression()):
                targets = ", ".join(node["target"] for node in violation["nodes"][:4])
                found.append(f"{where}: {violation['id']}: {violation['help']} ({targets})")
    return found
