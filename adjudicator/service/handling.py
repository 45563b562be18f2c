"""The handling of one game section of one mail: what every command handler is given.

A :class:`SectionHandling` knows the mail, its stored submission, the section's index (each
answer's outbox key names it, so that a crash never answers a section twice), the game and,
once proven, the seat; once the seat is proven, the intake builds the section's
:class:`SeatedHandling` (its game and seat never None), which the handlers of the commands
that need a seat are given (``command_handlers.py``). Handlers answer through
:meth:`SectionHandling.reply` and leave notes for the submission's log.

Everything a mail is answered with goes out together: each handler adds its part to the mail's
one :class:`MailAnswer` (shared by all its sections), which is queued as one mail per recipient
once every section is handled (``conversation.queue_answer``): the confirmation or rejection of
each game's orders (a part that is a whole mail of its own, ``templates/mail/<kind>.txt.j2``)
and the answers to commands (HELP, STATUS, SET ..., PRESS ...; ``templates/mail/answer/``). A
part goes to the address its handler chooses: the sender for what a stranger may ask, a seat's
registered address for anything about a seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from sqlmodel import Session

from adjudicator.base.security import gm_reply_address
from adjudicator.mail.parse import InboundMail
from adjudicator.notify.context import ServiceContext
from adjudicator.storage import queries
from adjudicator.storage.models import Game, Seat, Submission
from adjudicator.storage.tournaments import Tournament


@dataclass(frozen=True)
class AnswerPart:
    """One command's answer: ``templates/mail/answer/<kind>.txt.j2`` with its context; or,
    ``whole``, an answer that is a mail of its own when nothing else goes to its recipient
    (``templates/mail/<kind>.txt.j2``: a confirmation, a rejection, a refusal)."""

    kind: str
    context: dict[str, Any]
    game: str | None = None
    game_id: int | None = None
    seat_id: int | None = None
    reply_to: str | None = None  # for a recipient with no seat: the game master's address
    whole: bool = False
    proven: bool = False  # a proven seat or game master: never held back by the answer limits
    section: int = 0  # the game section of the mail it answers
    round_id: int | None = None


@dataclass
class MailAnswer:
    """The answers to one mail, by recipient, in the order they were written."""

    parts: dict[str, list[AnswerPart]] = field(default_factory=dict)

    def add(self, to: str, part: AnswerPart) -> None:
        if not to:
            return
        parts = self.parts.setdefault(to.strip().lower(), [])
        if part.whole and any(
            p.whole and p.kind == part.kind and p.section == part.section for p in parts
        ):
            return  # at most one answer of each kind a section
        parts.append(part)


@dataclass
class SectionHandling:
    """What a handler of a command that needs no seat is given: the section's game and seat
    may be unknown (``game`` None: the section names none, or none found; ``seat`` None: not
    proven)."""

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
    gm_tournament: Tournament | None = None  # the same for a tournament's game master
    for_person: bool = False  # a section with no game proven for its person (his settings)
    notes: list[str] = field(default_factory=list)
    answer: MailAnswer = field(default_factory=MailAnswer)

    def answer_sender(self, kind: str, context: dict[str, Any], *, known: bool = False) -> None:
        """Add a part for the sender (what needs no seat: HELP, LIST, a mistyped command). In
        a game where the sender's address is a seat's, the part is that seat's: a reply to it
        reaches the seat (its reply address), as a reply to any mail to the seat does. A mail
        to the game master's own reply address is answered at the game master's registered
        address, with that reply address, whatever address it came from. ``known``: the
        sender's address was known (an observer, a standby entry) until this mail ended it;
        the last answer to it is not held back as a stranger's would be, and can be had once
        only (``throttle.py``)."""
        game = self.game
        master = self.gm_game
        if master is not None and master.gm_address and self.seat is None:
            # The game master's mail (to the game master's own reply address): its one answer
            # goes to the game master's registered address, with that reply address, whichever
            # address the game master wrote from (``gm_mail.py``).
            assert master.id is not None
            reply_to = gm_reply_address(
                self.ctx.receipt_key, self.ctx.identity.address, master.id, master.gm_token
            )
            self.answer.add(
                master.gm_address,
                AnswerPart(kind, context, master.name, master.id, reply_to=reply_to, proven=True),
            )
            return
        proven = self.proven_seat(self.sender)
        seat = proven
        if game is not None and (seat is None or seat.game_id != game.id):
            seat = queries.seat_at_address(self.session, game.id, self.sender)
        self.answer.add(
            self.sender,
            AnswerPart(
                kind,
                context,
                game.name if game else None,
                game.id if game else None,
                seat.id if seat is not None and game is not None else None,
                proven=known or proven is not None,
            ),
        )

    def answer_seat(self, seat: Seat, kind: str, context: dict[str, Any]) -> None:
        """Add a part about ``seat``, for its registered address (never the sender's). In a
        section that spoke for the person (``for_person``), the part is about no one game."""
        proven = self.proven_seat(seat.address) is not None
        if self.for_person:
            self.answer.add(seat.address, AnswerPart(kind, context, proven=proven))
            return
        game = self.session.get(Game, seat.game_id)
        name = game.name if game else None
        self.answer.add(
            seat.address, AnswerPart(kind, context, name, seat.game_id, seat.id, proven=proven)
        )

    def proven_seat(self, address: str) -> Seat | None:
        """The seat this mail proved (its password, or its reply address the mail went to)
        whose registered address is ``address``: an answer there cannot be forged in bulk, and
        is never held back by the answer limits (``throttle.py``)."""
        for seat in (self.seat, self.token_seat):
            if seat is not None and address and seat.address.lower() == address.lower():
                return seat
        return None

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
        """Answer with ``templates/mail/<kind>``: a part of the mail's one answer to ``to``, a
        mail of its own when nothing else goes there; at most one of each kind a section. An
        answer held back (``throttle.py``) leaves a note when the answer is queued."""
        game_id = ids.get("game_id")
        game = self.session.get(Game, game_id) if game_id is not None else None
        self.answer.add(
            to,
            AnswerPart(
                kind,
                context,
                game.name if game else None,
                game_id,
                ids.get("seat_id"),
                whole=True,
                proven=proven,
                section=self.index,
                round_id=ids.get("round_id"),
            ),
        )

    def seated(self, game: Game, seat: Seat) -> SeatedHandling:
        """This section once ``seat`` of ``game`` is proven: what the handlers of the
        commands that need a seat are given. It shares this one's notes and answer."""
        return SeatedHandling(**self._shared(), game=game, seat=seat)

    def for_the_person(self, seat: Seat) -> PersonHandling:
        """This section, with no game, once the person is proven through ``seat``: what the
        handlers of his own settings are given (``CommandSpec.personal``)."""
        return PersonHandling(**self._shared(), seat=seat)

    def _shared(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("game", "seat")
        }


@dataclass(kw_only=True)
class PersonHandling(SectionHandling):
    """A section whose seat is proven: for a section with no game, the seat through which
    the person was proven (his settings hold in all his games); ``game`` None then."""

    seat: Seat


@dataclass(kw_only=True)
class SeatedHandling(PersonHandling):
    """A section whose seat of its game is proven, built once after the proof
    (:meth:`SectionHandling.seated`): what the handlers of the commands that need a seat are
    given; its game and seat are never None."""

    game: Game

    def reply_to_seat(self, kind: str, context: dict[str, Any], **ids: Any) -> None:
        """Answer the proven seat at its registered address (never the sender's); never held
        back by the answer limits (``throttle.py``)."""
        self.reply(
            kind,
            self.seat.address,
            context,
            proven=True,
            game_id=self.game.id,
            seat_id=self.seat.id,
            **ids,
        )
