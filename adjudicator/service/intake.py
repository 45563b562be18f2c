"""Mail intake: every raw message is committed before anything else happens, then processed in
one transaction that stores the orders, marks the submission handled and queues the answer.

A crash before that transaction commits leaves the submission ``received`` and it is processed
again on restart; a crash after it leaves nothing to do. Re-delivery of the same bytes (an IMAP
re-scan, a mail server retrying a pipe) is recognised by the digest and ignored.

``batch_intake.py`` runs these steps a batch at a time (one transaction for many mails).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from adjudicator.mail.parse import InboundMail, MailKind, Section, read_mail, split_sections
from adjudicator.mail.requests import read_requests
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.security import receipt, token_digest, verify_secret
from adjudicator.service import replies
from adjudicator.service.bounces import record_bounce
from adjudicator.service.closing import close_if_complete
from adjudicator.service.context import ServiceContext
from adjudicator.service.reports import Asker, answer_requests
from adjudicator.service.rounds import open_round_of, previous_orders, takes_orders
from adjudicator.storage.models import (
    Game,
    GameStatus,
    OrderSet,
    Seat,
    Submission,
    SubmissionStatus,
)

MAX_FAILED_LOGINS = 5
LOCKOUT = timedelta(hours=1)
_TOKEN = re.compile(r"^[^+@]+\+([a-z0-9]{8,64})@", re.IGNORECASE)


def digest_of(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def store_raw(session: Session, raw: bytes, *, channel: str, now: datetime) -> int | None:
    """Store the raw message; return its id, or ``None`` when these bytes were stored before."""
    digest = digest_of(raw)
    if session.exec(select(Submission.id).where(Submission.digest == digest)).first() is not None:
        return None
    submission = Submission(received_at=now, channel=channel, digest=digest, raw=raw)
    try:
        with session.begin_nested():
            session.add(submission)
    except IntegrityError:  # another instance stored the same bytes a moment ago
        return None
    return submission.id


def pending_submissions(session: Session) -> list[int]:
    """Submissions stored but not processed (after a crash, or by another instance)."""
    return [
        i
        for i in session.exec(
            select(Submission.id).where(Submission.status == SubmissionStatus.RECEIVED)
        )
        if i is not None
    ]


def process_claimed(
    session: Session,
    submission: Submission,
    raw: bytes,
    *,
    ctx: ServiceContext,
    now: datetime,
) -> SubmissionStatus:
    """Process a submission this caller has claimed; ``raw`` is its stored bytes (passed in, so
    that a caller holding them does not load them again)."""
    mail = read_mail(raw, own_addresses=ctx.own_addresses, max_bytes=ctx.max_bytes)
    if mail.kind == MailKind.BOUNCE:
        outcome = record_bounce(session, mail, ctx=ctx, submission_id=submission.id, now=now)
        status, note = SubmissionStatus.IGNORED, f"{mail.kind}: {mail.kind_reason}; {outcome}"
    elif mail.kind != MailKind.ORDINARY:
        status, note = SubmissionStatus.IGNORED, f"{mail.kind}: {mail.kind_reason}"
    else:
        intake = _Intake(session, ctx, mail, submission, now)
        accepted = intake.run()
        status = SubmissionStatus.ACCEPTED if accepted else SubmissionStatus.REJECTED
        note = "; ".join(intake.notes) or ""
    # Written last: an early change would be flushed by the first query and hold SQLite's
    # write lock for the whole of the processing.
    submission.message_id = mail.message_id
    submission.sender = mail.sender
    submission.auth_results = "\n".join(a.raw for a in mail.auth_results) or None
    submission.processed_at = now
    submission.status, submission.note = status, note or None
    session.add(submission)
    return status


class _Intake:
    """The processing of one mail; one reply per game section."""

    def __init__(
        self,
        session: Session,
        ctx: ServiceContext,
        mail: InboundMail,
        submission: Submission,
        now: datetime,
    ) -> None:
        self.session = session
        self.ctx = ctx
        self.mail = mail
        self.submission = submission
        self.now = now
        self.notes: list[str] = []
        self.token_seat = self._seat_from_token((*mail.to, *mail.cc, *mail.delivered_to))

    def run(self) -> bool:
        sections = split_sections(self.mail.lines, subject=self.mail.subject)
        if any(section.game for section in sections):
            # Lines before the first GAME line of an untagged mail are chatter ("Hi judge,"),
            # not orders for an unnamed game.
            sections = [section for section in sections if section.game]
        if not sections:
            sections = [Section(game=None)]
        accepted = False
        for index, section in enumerate(sections):
            accepted |= self._section(index, section)
        return accepted

    def reply(self, index: int, kind: str, to: str, context: dict[str, Any], **ids: Any) -> None:
        replies.queue_reply(
            self.session,
            ctx=self.ctx,
            kind=kind,
            to=to,
            key=f"reply:{self.submission.id}:{index}:{kind}",
            mail=self.mail,
            context=context,
            now=self.now,
            **ids,
        )

    def _seat_from_token(self, recipients: Iterable[str]) -> Seat | None:
        for address in recipients:
            match = _TOKEN.match(address)
            if match:
                digest = token_digest(match.group(1))
                seat = self.session.exec(select(Seat).where(Seat.reply_token == digest)).first()
                if seat is not None:
                    return seat
        return None

    def _find_game(self, section: Section) -> Game | None:
        if section.game:
            return self.session.exec(select(Game).where(Game.name == section.game.lower())).first()
        if self.token_seat is not None:
            return self.session.get(Game, self.token_seat.game_id)
        games = self.session.exec(
            select(Game)
            .join(Seat, Seat.game_id == Game.id)  # type: ignore[arg-type]
            .where(Seat.address == (self.mail.sender or ""), Game.status == GameStatus.RUNNING)
        ).all()
        return games[0] if len(games) == 1 else None

    def _sender_seat(self, game: Game) -> Seat | None:
        """The seat registered under the sender's address (not proof of anything by itself)."""
        return self.session.exec(
            select(Seat).where(Seat.game_id == game.id, Seat.address == (self.mail.sender or ""))
        ).first()

    def _authenticate(self, game: Game, section: Section, seat: Seat | None) -> Seat | None:
        """The seat this section speaks for: the reply token's, or the sender's ``seat`` with
        its password; None when neither proves anything."""
        if self.token_seat is not None and self.token_seat.game_id == game.id:
            return self.token_seat
        if seat is None or not section.secret:
            return None
        if seat.locked_until is not None and seat.locked_until > self.now:
            return None
        if verify_secret(section.secret, seat.secret_hash):
            seat.failed_logins = 0
            self.session.add(seat)
            return seat
        return None

    def _failed_login(self, index: int, game: Game, section: Section, seat: Seat | None) -> None:
        self.notes.append(f"refused for game {game.name}")
        if seat is not None and section.secret:
            locked = seat.locked_until is not None and seat.locked_until > self.now
            if not locked:
                seat.failed_logins += 1
                if seat.failed_logins >= MAX_FAILED_LOGINS:
                    seat.locked_until = self.now + LOCKOUT
                    seat.failed_logins = 0
                self.session.add(seat)
                self.reply(
                    index,
                    "intrusion",
                    seat.address,
                    {
                        "game": game.name,
                        "handle": seat.handle,
                        "sender": self.mail.sender,
                        "when": self.now,
                        "locked_until": seat.locked_until,
                    },
                    game_id=game.id,
                )
            if locked:
                return  # rate-limited: no more answers until the lock ends
        self.reply(index, "refusal", self.mail.sender or "", {"game": game.name}, game_id=game.id)

    def _section(self, index: int, section: Section) -> bool:
        game = self._find_game(section)
        sender = self.mail.sender or ""
        if game is None:
            self.notes.append("no game")
            self.reply(index, "no_game", sender, {"named": section.game})
            return False
        listed = self._sender_seat(game)
        seat = self._authenticate(game, section, listed)
        if seat is None:
            self._failed_login(index, game, section, listed)
            return False
        if not seat.active:  # taken out of the game by the game master
            self.notes.append(f"removed from game {game.name}")
            base = replies.base_context(game, seat, None)
            self.reply(index, "removed", seat.address, base, game_id=game.id, seat_id=seat.id)
            return False
        policy = replies.mail_policy_problem(game, self.mail)
        if policy:
            self.reply(
                index,
                "refusal_policy",
                seat.address,
                {"game": game.name, "why": policy},
                game_id=game.id,
                seat_id=seat.id,
            )
            return False
        requests = read_requests(section.lines)
        if not requests.asked:
            return self._orders(index, game, seat, section)
        accepted = not requests.problems
        if requests.rest:  # orders and requests in one mail: the orders first
            accepted = self._orders(index, game, seat, replace(section, lines=requests.rest))
        asker = Asker(game, seat, self.mail, key=f"{self.submission.id}:{index}")
        self.notes += answer_requests(
            self.session, ctx=self.ctx, asker=asker, requests=requests, now=self.now
        )
        return accepted

    def _orders(self, index: int, game: Game, seat: Seat, section: Section) -> bool:
        round_ = open_round_of(self.session, game)
        base = replies.base_context(game, seat, round_)
        if round_ is None or not takes_orders(game, round_, self.now):
            self.reply(index, "late", seat.address, base, game_id=game.id, seat_id=seat.id)
            self.notes.append(f"late for game {game.name}")
            return False
        rules, state = rules_of(game), game_state(game)
        if seat.handle not in rules.to_move(state):
            self.reply(index, "not_your_turn", seat.address, base, game_id=game.id, seat_id=seat.id)
            return False
        texts = [line.text for line in section.lines]
        checked = rules.check(state, seat.handle, texts)
        context = {**base, "checked": checked, "lines": texts}
        if not checked.ok or not checked.orders:
            self.reply(index, "rejection", seat.address, context, game_id=game.id, seat_id=seat.id)
            self.notes.append(f"problems in orders for game {game.name}")
            return False
        lines = [rules.format_order(order) for order in checked.orders]
        assert round_.id is not None
        assert seat.id is not None
        previous = previous_orders(self.session, round_.id, seat.id)
        code = receipt(
            self.ctx.receipt_key,
            game=game.name,
            round_number=round_.number,
            player=seat.handle,
            lines=lines,
        )
        self.session.add(
            OrderSet(
                round_id=round_.id,
                seat_id=seat.id,
                submission_id=self.submission.id,
                lines=lines,
                receipt=code,
                created_at=self.now,
            )
        )
        self.session.flush()
        context |= {
            "stored": lines,
            "previous": previous.lines if previous else None,
            "receipt": code,
        }
        self.reply(
            index,
            "confirmation",
            seat.address,
            context,
            game_id=game.id,
            round_id=round_.id,
            seat_id=seat.id,
        )
        close_if_complete(self.session, round_.id, ctx=self.ctx, now=self.now)
        return True
