"""Bounces: a delivery report that comes back to a player's own Return-Path names the seat.

Every mail to a player goes out with ``security.bounce_address(key, service, seat)`` as its
envelope sender, so the report comes back addressed to it (``To``/``Delivered-To``/
``X-Original-To``). The address carries a MAC: a forged bounce cannot mark a player.

* A permanent failure (status 5.x.x in the delivery-status part, RFC 3463) marks the seat
  unreachable and tells the game master, once: the first such bounce of a reachable seat.
* A temporary failure (4.x.x: the receiving server is still trying) and a report without a
  status are only logged: they say nothing final about the address.

A bounce is never answered, whatever it says.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import Session

from adjudicator.base.security import bounced_seat
from adjudicator.mail.parse import InboundMail
from adjudicator.notify.context import ServiceContext
from adjudicator.service.notices import queue_gm_notice
from adjudicator.storage.models import Game, Seat

log = logging.getLogger(__name__)


def bounced_seat_id(mail: InboundMail, key: bytes) -> int | None:
    """The seat named by the address the bounce was delivered to, if it is one of ours."""
    for address in mail.recipients:
        seat_id = bounced_seat(key, address)
        if seat_id is not None:
            return seat_id
    return None


def record_bounce(
    session: Session,
    mail: InboundMail,
    *,
    ctx: ServiceContext,
    submission_id: int | None,
    now: datetime,
) -> str:
    """Act on a bounce as the module says; return what was done, for the submission's note."""
    seat_id = bounced_seat_id(mail, ctx.receipt_key)
    seat = session.get(Seat, seat_id) if seat_id is not None else None
    if seat is None:
        return "not addressed to a player's bounce address"
    report = mail.bounce
    status = report.status if report else ""
    failed = ", ".join(report.recipients) if report and report.recipients else seat.address
    if not status.startswith("5."):
        kind = "temporary failure" if status.startswith("4.") else "no delivery status"
        log.info("bounce for seat %s (%s): %s %s; only logged", seat.id, failed, kind, status)
        return f"seat {seat.id}: {kind} {status}".strip()
    if seat.unreachable:
        return f"seat {seat.id}: permanent failure {status}; already unreachable"
    seat.unreachable = True
    session.add(seat)
    game = session.get(Game, seat.game_id)
    if game is not None:
        detail = f" ({report.diagnostic})" if report and report.diagnostic else ""
        queue_gm_notice(
            session,
            ctx=ctx,
            game=game,
            notice="bounced",
            key=f"{seat.id}:{submission_id}",
            now=now,
            player=seat.handle,
            address=seat.address,
            reason=f"delivery to {failed} failed permanently: {status}{detail}",
        )
    log.warning("seat %s (%s) marked unreachable: bounce %s", seat.id, seat.handle, status)
    return f"seat {seat.id}: permanent failure {status}; marked unreachable"
