"""Answers rendered in another process while the batch they answer goes on.

Rendering an answer (its two templates, then the MIME message: ``replies.render_mail``) is
about a fifth of the intake's work a mail, Python work that holds the interpreter lock, and it
needs no database. A batch of mail (``batch_intake.py``) therefore hands the answers it queues
to the mail reader's process (``readers.py``, when it is up), ``PART`` at a time as they come,
and goes on with its next mails meanwhile. The answers' rows hold a
:class:`~adjudicator.storage.db.Later` for their bytes, made when the batch writes its held
rows (``inserts_held``, before its commit): by then the parts are rendered, or nearly.

The bytes are the same wherever they are made (``replies.Words``: the same templates, words,
time and key, hence the same Date and Message-ID). Nothing is committed before they are made,
so a crash loses or doubles nothing. A mail the other process could not render is rendered
here, where its error is raised and the mail fails as it would have. A part that does not
come back (the process died, or took longer than ``TIMEOUT``) is rendered here, and so is
every later part of the batch; the process is given up, as when it fails to read. The answers
to the batch's last ``PART`` mails are rendered here: the batch would wait for them, with
nothing left to do meanwhile. A batch of fewer than ``2 * PART`` mails renders all its
answers here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from pathlib import Path

from sqlmodel import Session

from adjudicator.mail.compose import Identity, Renderer
from adjudicator.service.context import ServiceContext
from adjudicator.service.replies import AHEAD, Words, rendered
from adjudicator.storage.db import Later

PART = 5
"""Answers handed over together: each hand-over costs the service about a tenth of rendering
the part (``bench/intake_cpu.py --reader``); a part of 5 is rendered while the batch goes on
with its next 5 mails."""

TIMEOUT = 10.0
"""Seconds a part may take before the service renders it itself (5 answers take a few
milliseconds)."""

Handed = tuple["Future[list[bytes | None]]", Callable[[str], None]]
"""A part handed over: its bytes to come (None for a mail not rendered there), and how to give
the process up when they do not come."""

Hand = Callable[[Path, Identity, list[Words]], Handed | None]
"""Hands a part to the other process with the templates' folder and the service's identity
(``readers.MailReaders.render``); None when no process takes it now."""


@contextmanager
def renders_ahead(
    session: Session, hand: Hand | None, ctx: ServiceContext, *, mails: int
) -> Iterator[None]:
    """While the block runs, the answers queued in ``session`` for a batch of ``mails`` are
    rendered through ``hand`` (see the module's text); with no ``hand``, here, as always."""
    if hand is None or mails < 2 * PART:
        yield
        return
    session.info[AHEAD] = _Ahead(hand, ctx, mails).later
    try:
        yield
    finally:
        session.info.pop(AHEAD, None)


class _Part:
    def __init__(self) -> None:
        self.words: list[Words] = []
        self.handed: Handed | None = None
        self.made: list[bytes] | None = None


class _Ahead:
    """One batch's answers, in parts (see the module's text)."""

    def __init__(self, hand: Hand, ctx: ServiceContext, mails: int) -> None:
        self._hand, self._ctx = hand, ctx
        self._mails, self._answers = mails, 0
        self._part = _Part()
        self._lost = False

    def later(self, words: Words) -> Later:
        """The bytes of ``words``, made when they are asked for."""
        part, index = self._part, len(self._part.words)
        part.words.append(words)
        self._answers += 1
        if len(part.words) == PART:
            # Handed over only while as many mails follow to be processed meanwhile: the
            # batch's last part would be waited for, it is rendered here instead.
            if not self._lost and self._answers + PART <= self._mails:
                part.handed = self._hand(self._ctx.renderer.folder, self._ctx.identity, part.words)
            self._part = _Part()
        return Later(lambda: self._made(part)[index])

    def _made(self, part: _Part) -> list[bytes]:
        if part.made is None:
            came = self._came(part) if part.handed is not None else None
            if came is None:  # not handed over, or lost: all rendered here
                came = [None] * len(part.words)
            part.made = [
                mail if mail is not None else rendered(self._ctx.renderer, self._ctx.identity, w)
                for mail, w in zip(came, part.words, strict=True)
            ]
        return part.made

    def _came(self, part: _Part) -> list[bytes | None] | None:
        """The part's bytes from the other process; None when they did not come."""
        assert part.handed is not None
        future, give_up = part.handed
        if self._lost:
            future.cancel()
            return None
        try:
            return future.result(timeout=TIMEOUT)
        except FutureTimeout:
            why = f"the mail reader took over {TIMEOUT:g} s to render {len(part.words)} answers"
        except Exception as error:  # died (BrokenProcessPool), or could not send it back
            why = f"the mail reader failed to render answers ({type(error).__name__}: {error})"
        self._lost = True  # the batch's later parts are rendered here
        give_up(why)
        return None


_renderers: dict[Path, Renderer] = {}


def render_part(folder: Path, identity: Identity, words: list[Words]) -> list[bytes | None]:
    """The bytes of each mail of ``words`` (run in the other process); None for a mail whose
    rendering raised, rendered again by the service, where its error is raised."""
    renderer = _renderers.get(folder)
    if renderer is None:
        renderer = _renderers[folder] = Renderer(folder)
    made: list[bytes | None] = []
    for one in words:
        try:
            made.append(rendered(renderer, identity, one))
        except Exception:  # raised again where it is rendered a second time
            made.append(None)
    return made
