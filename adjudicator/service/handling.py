"""The handling of one game section of one mail: what every command handler is given.

A :class:`SectionHandling` knows the mail, its stored submission, the section's index (each
answer's outbox key names it, so that a crash never answers a section twice), the game and,
once proven, the seat. Handlers answer through :meth:`SectionHandling.reply` and leave notes
for the submission's log.

Commands (HELP, STATUS, SET ..., PRESS ...) are answered together: each handler adds its part
to the mail's one :class:`MailAnswer` (shared by all its sections), which is queued as one mail
per recipient once every section is handled (``conversation.queue_answer``). A part goes to the
address its handler chooses: the sender for what a stranger may ask, a seat's registered
address for anything about a seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session

from adjudicator.mail.parse import InboundMail
from adjudicator.service import replies
from adjudicator.service.context import ServiceContext
from adjudicator.storage.models import Game, Seat, Submission


@dataclass(frozen=True)
class AnswerPart:
    """One command's answer: ``templates/mail/answer/<kind>.txt.j2`` with its context."""

    kind: str
    context: dict[str, Any]
    game: str | None = None
    game_id: int | None = None
    seat_id: int | None = None
    reply_to: str | None = None  # for a recipient with no seat: the game master's address
    proven: bool = False  # for the proven game master: never held back (``throttle.py``)


@dataclass
class MailAnswer:
    """The answers to one mail's commands, by recipient, in the order they were written."""

    parts: dict[str, list[AnswerPart]] = field(default_factory=dict)

    def add(self, to: str, part: AnswerPart) -> None:
        if to:
            self.parts.setdefault(to.strip().lower(), []).append(part)


@dataclass
class SectionHandling:
    session: Session
    ctx: ServiceContext
    mail: InboundMail
    submission: Submission
    now: datetime
    index: int
    game: Game | None = None
    seat: Seat | None = None
    named: str | None = None  # the game the section names (not the one guessed for it)
    token_seat: Seat | None = None  # the seat whose personal reply address the mail went to
    gm_game: Game | None = None  # the game whose game master's reply address the mail went to
    notes: list[str] = field(default_factory=list)
    answer: MailAnswer = field(default_factory=MailAnswer)

    def answer_sender(self, kind: str, context: dict[str, Any]) -> None:
        """Add a part for the sender (what needs no seat: HELP, LIST, a mistyped command)."""
        game = self.game
        self.answer.add(
            self.sender,
            AnswerPart(kind, context, game.name if game else None, game.id if game else None),
        )

    def answer_seat(self, seat: Seat, kind: str, context: dict[str, Any]) -> None:
        """Add a part about ``seat``, for its registered address (never the sender's)."""
        game = self.session.get(Game, seat.game_id)
        name = game.name if game else None
        self.answer.add(seat.address, AnswerPart(kind, context, name, seat.game_id, seat.id))

    @property
    def sender(self) -> str:
        return self.mail.sender or ""

    @property
    def key(self) -> str:
        """Unique to this section of this mail: ``<submission id>:<section index>``."""
        return f"{self.submission.id}:{self.index}"

    def reply(
        self, kind: str, to: str, context: dict[str, Any], *, proven: bool = False, **ids: Any
    ) -> None:
        """Answer with ``templates/mail/<kind>``; at most one mail of each kind a section.
        An answer held back (``throttle.py``) leaves a note."""
        queued = replies.queue_reply(
            self.session,
            ctx=self.ctx,
            kind=kind,
            to=to,
            key=f"reply:{self.key}:{kind}",
            mail=self.mail,
            context=context,
            now=self.now,
            proven=proven,
            **ids,
        )
        if to and not queued:
            self.notes.append(f"{kind} to {to} held back (rate limit or loop)")

    def reply_to_seat(self, kind: str, context: dict[str, Any], **ids: Any) -> None:
        """Answer the proven seat at its registered address (never the sender's); never held
        back by the answer limits (``throttle.py``)."""
        assert self.game is not None
        assert self.seat is not None
        self.reply(
            kind,
            self.seat.address,
            context,
            proven=True,
            game_id=self.game.id,
            seat_id=self.seat.id,
            **ids,
        )
