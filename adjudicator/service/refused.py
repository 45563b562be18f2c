"""A player's address the SMTP server refused for good: the game master is told.

A permanent refusal at RCPT (a 5xx reply to the recipient, RFC 5321 4.2.1) leaves the mail
failed in the outbox (``notify/outbox.py``): the player has not received it and will receive nothing
more at that address. Nobody else knows, unless told: so the seat is marked unreachable (as a
bounce marks it, ``bounces.py``) and the game master gets a notice that names the seat, the
address, the server's reply, what the player missed, and the fix.

At most one notice per seat, address and day, whatever the number of mails refused (a round's
result, its pictures, a reminder...): its key says so. A mail to the game master that is refused
tells nobody (the notice would go to the same address, and be refused in turn): it is logged.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime

from sqlmodel import Session, func, select

from adjudicator.mail.smtp import SendResult, SendStatus
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.service.notices import queue_gm_notice
from adjudicator.storage.models import Game, OutboxMail, Person, Round, Seat

log = logging.getLogger(__name__)


def refused_for_good(result: SendResult) -> bool:
    """Whether the server refused the recipient permanently (not the message, nor the
    session)."""
    return result.status is SendStatus.PERMANENT and result.stage == "rcpt"


def tell_refused(
    session: Session, mail: OutboxMail, result: SendResult, *, ctx: ServiceContext, now: datetime
) -> bool:
    """After ``mail`` was refused at RCPT: mark its seat unreachable and queue the notice to
    the game master, unless told today already; True when a notice was queued. A webhook's
    notice given up is told to the game master too, once for its address
    (:func:`tell_webhook_gave_up`)."""
    if mail.channel == "webhook":
        return tell_webhook_gave_up(session, mail, result, ctx=ctx, now=now)
    if not refused_for_good(result) or mail.game_id is None or mail.kind.startswith("gm:"):
        return False
    game = session.get(Game, mail.game_id)
    if game is None or _same(game.gm_address, mail.recipient):
        log.warning(
            "mail %s to the game master %s was refused: %s",
            mail.id,
            mail.recipient,
            mail.last_error,
        )
        return False
    seat = session.exec(
        select(Seat).where(
            Seat.game_id == game.id, func.lower(Seat.address) == mail.recipient.lower()
        )
    ).first()
    if seat is None:  # an observer, a stranger answered: nobody's seat is cut off
        return False
    seat.unreachable = True
    session.add(seat)
    round_ = session.get(Round, mail.round_id) if mail.round_id is not None else None
    return queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="refused",
        key=f"{seat.id}:{mail.recipient.lower()}:{now.date().isoformat()}",
        now=now,
        round_=round_,
        player=seat.handle,
        address=mail.recipient,
        reply=f"{result.code} {result.text}".strip() if result.code else result.text,
        mail_kind=mail.kind,
        outbox_id=mail.id,
    )


def tell_webhook_gave_up(
    session: Session, mail: OutboxMail, result: SendResult, *, ctx: ServiceContext, now: datetime
) -> bool:
    """A game's webhook notice was given up (refused, or not taken in time): the game master is
    told, once for the address (a receiver that is gone would fail every later notice too)."""
    game = session.get(Game, mail.game_id) if mail.game_id is not None else None
    if game is None:
        return False
    digest = hashlib.sha256(mail.recipient.encode()).hexdigest()[:16]
    round_ = session.get(Round, mail.round_id) if mail.round_id is not None else None
    reply = f"{result.code} {result.text}".strip() if result.code else result.text
    if mail.key.startswith("webhook:p"):  # a player's own (SET WEBHOOK): he is told
        person = session.exec(select(Person).where(Person.webhook_url == mail.recipient)).first()
        if person is None:
            return False
        return queue_notice(
            session,
            Notice(
                "webhook_gave_up",
                person.address,
                {
                    "address": mail.recipient,
                    "event": mail.kind.removeprefix("webhook:"),
                    "round": round_.number if round_ else None,
                    "reply": reply,
                    "game": game.name,
                },
                key=f"webhook_gave_up:p{person.id}:{digest}",
                game_id=game.id,
            ),
            ctx=ctx,
            now=now,
        )
    return queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="webhook_gave_up",
        key=f"webhook:{digest}",
        now=now,
        round_=round_,
        address=mail.recipient,
        event=mail.kind.removeprefix("webhook:"),
        reply=reply,
    )


def _same(address: str | None, other: str) -> bool:
    return address is not None and address.strip().lower() == other.strip().lower()
