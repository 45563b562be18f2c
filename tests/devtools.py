"""One headless Chromium for many pages, driven over the DevTools protocol on a pipe.

``chromium --remote-debugging-pipe`` reads commands from its file descriptor 3 and writes
answers and events to descriptor 4, each a JSON object ended by a NUL byte. That is all a test
needs to open a page at a given window width, wait for it to load and evaluate a script in it:
no web socket, no port, no package beyond the standard library. Debian's ``chromium`` package
provides the browser; nothing here installs anything.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from headless import FLAGS, BrowserError, find_chromium

TIMEOUT = 120.0  # seconds for one command or one page load: a busy machine is slow


class Browser:
    """A running Chromium with one tab; use :func:`browser` to start and stop it."""

    def __init__(self, process: subprocess.Popen[bytes], commands: int, answers: int) -> None:
        self._process = process
        self._commands = commands
        self._answers = answers
        self._buffer = b""
        self._events: list[dict[str, Any]] = []
        self._next_id = 0
        self._session = ""

    # --- the protocol --------------------------------------------------------------------

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events that come first are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session if session is not None else self._session:
            message["sessionId"] = session if session is not None else self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            found = self._read(deadline)
            if found.get("id") == self._next_id:
                if "error" in found:
                    raise BrowserError(f"{method}: {found['error']}")
                result: dict[str, Any] = found.get("result", {})
                return result
            if "method" in found:
                self._events.append(found)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._answers], [], [], max(left, 0))
            if not ready:
                raise BrowserError(f"chromium did not answer within {TIMEOUT:.0f} s")
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed its DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        found: dict[str, Any] = json.loads(message)
        return found

    def _wait_for_event(self, method: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for index, event in enumerate(self._events):
                if event["method"] == method and event.get("sessionId") == self._session:
                    del self._events[index]
                    return
            found = self._read(deadline)
            if "method" in found:
                self._events.append(found)

    # --- a tab -----------------------------------------------------------------------------

    def _open_tab(self) -> None:
        target = self.send("Target.createTarget", session="", url="about:blank")
        attached = self.send(
            "Target.attachToTarget", session="", targetId=target["targetId"], flatten=True
        )
        self._session = attached["sessionId"]
        self.send("Page.enable")

    def add_script(self, source: str) -> None:
        """Run ``source`` in every page this tab loads from now on, before the page's own."""
        self.send("Page.addScriptToEvaluateOnNewDocument", source=source)

    def window(self, width: int, height: int = 800, *, dark: bool = False) -> None:
        """Lay pages out in a window ``width`` x ``height`` CSS pixels wide, light or dark."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        scheme = "dark" if dark else "light"
        self.send(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": scheme}],
        )

    def load(self, page: Path) -> None:
        """Open ``page`` and wait until it has loaded (its images and style sheet too)."""
        self._events = [e for e in self._events if e["method"] != "Page.loadEventFired"]
        self.send("Page.navigate", url=page.as_uri())
        self._wait_for_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a script in the page; a promise is awaited."""
        found = self.send(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in found:
            raise BrowserError(f"script failed: {found['exceptionDetails']}")
        return found["result"].get("value")


@contextmanager
def browser() -> Iterator[Browser]:
    """A headless Chromium with one tab, ended when the block ends."""
    program = find_chromium()
    if program is None:
        raise BrowserError("chromium is not installed (apt-get install chromium)")
    to_browser_read, to_browser_write = os.pipe()
    from_browser_read, from_browser_write = os.pipe()

    def descriptors_3_and_4() -> None:  # Chromium reads commands on 3, writes answers to 4
        reading, writing = os.dup(to_browser_read), os.dup(from_browser_write)
        os.dup2(reading, 3)
        os.dup2(writing, 4)

    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        process = subprocess.Popen(
            [
                program,
                *FLAGS,
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=descriptors_3_and_4,  # noqa: PLW1509 - the pipe must be on 3 and 4
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        driven = Browser(process, to_browser_write, from_browser_read)
        try:
            driven._open_tab()
            yield driven
        finally:
            os.close(to_browser_write)  # Chromium quits when its pipe closes
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            os.close(from_browser_read)
