"""Queuing a notice: the one way the service tells anybody anything.

A use-case decides what to tell and queues it with :func:`queue_notice`, in the transaction
that decided it: a crash before the commit tells nobody, and doing the step again queues the
same keys, which the outbox keeps once. The notice's channel renders it there; a round's
results, whose pictures are heavy, are rendered before the transaction that queues them, with
no write lock held (:func:`prepare_notice`). The outbox sends after the commit.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime

from sqlmodel import Session

from adjudicator.mail.parse import InboundMail
from adjudicator.notify import digest, loop_guard
from adjudicator.notify.channels import channel_named
from adjudicator.notify.context import Follower, ServiceContext
from adjudicator.notify.mail import answer_threading
from adjudicator.notify.notice import Notice
from adjudicator.notify.outbox import PendingMail, queue_pending
from adjudicator.notify.throttle import answer_refused
from adjudicator.notify.times import local_time
from adjudicator.storage import queries
from adjudicator.storage.models import Game

log = logging.getLogger(__name__)


def queue_notice(
    session: Session, notice: Notice | PendingMail, *, ctx: ServiceContext, now: datetime
) -> bool:
    """Queue ``notice`` (or one :func:`prepare_notice` rendered before) unless one with its
    key is queued already; True when queued now.

    A notice that answers a mail may be held back: an answer the address may not get now
    (``throttle.py``: too many) is not queued, and logged; an answer to a ``proven`` seat (its
    password or reply address checked) is never held back by those limits: only a mail that
    proves nothing can be forged in bulk. An answer to a mail that looks sent by a program
    answering our answers may be held back as a loop, proven or not (``loop_guard.py``); the
    address is told once. An answer to a player of the game (``context["handle"]``) goes out
    with the seat's bounce address."""
    if isinstance(notice, PendingMail):
        queued = _queue_or_hold(session, notice, now=now)
        _follow(session, notice, ctx=ctx, now=now)
        return queued
    if notice.answers is not None:
        if not notice.recipient:
            return False
        if not _may_answer(session, notice, notice.answers, ctx=ctx, now=now):
            return False
        notice = _as_answer(session, notice, notice.answers)
    pending = _render(session, notice, ctx=ctx, now=now)
    # An answer to a mail its recipient just sent goes out before the other mails due.
    queued = _queue_or_hold(session, replace(pending, answer=notice.answers is not None), now=now)
    _follow(session, notice, ctx=ctx, now=now)
    return queued


def _queue_or_hold(session: Session, mail: PendingMail, *, now: datetime) -> bool:
    """Queue ``mail``; or, when it can wait and its recipient takes a daily digest, hold it
    for that (``digest.py``). An answer to his own mail is never held."""
    if mail.may_wait and not mail.answer and digest.takes_digest(session, mail.recipient):
        return digest.hold(session, mail, now=now)
    return queue_pending(session, mail, now=now)


def _follow(
    session: Session, told: Notice | PendingMail, *, ctx: ServiceContext, now: datetime
) -> None:
    """Queue what the channels that follow mail (webhooks: ``context.Follower``) make of a
    mail notice, in its transaction; each keyed, so told once however often the mail is."""
    if told.channel != "mail":
        return
    for channel in ctx.channels:
        if isinstance(channel, Follower):
            # What it reads never flushes the writes the batch makes together (one insert).
            with session.no_autoflush:
                followers = channel.follow(session, told, ctx=ctx, now=now)
            for follower in followers:
                queue_pending(session, _render(session, follower, ctx=ctx, now=now), now=now)


def prepare_notice(
    session: Session, notice: Notice, *, ctx: ServiceContext, now: datetime
) -> PendingMail:
    """``notice`` rendered by its channel, to queue later with :func:`queue_notice`; reads
    only. Not for an answer, which is weighed against the answer limits where it is queued."""
    if notice.answers is not None:
        raise ValueError(f"an answer is queued as a notice, not prepared: {notice.key!r}")
    return _render(session, notice, ctx=ctx, now=now)


def _render(session: Session, notice: Notice, *, ctx: ServiceContext, now: datetime) -> PendingMail:
    pending = channel_named(ctx, notice.channel).prepare(session, notice, ctx=ctx, now=now)
    # Only mail is gathered into a digest; another channel tells each notice as it comes.
    may_wait = notice.may_wait and notice.answers is None and pending.channel == "mail"
    return replace(pending, may_wait=may_wait) if may_wait else pending


def _may_answer(
    session: Session, notice: Notice, mail: InboundMail, *, ctx: ServiceContext, now: datetime
) -> bool:
    to = notice.recipient
    held = loop_guard.held_back(session, mail, identity=ctx.identity, now=now)
    if held is not None:
        log.info("%s (%s to %s)", held.note, notice.filed_as, to)
        _tell_held_back(session, ctx=ctx, to=to, mail=mail, held=held, now=now)
        return False
    refused = (
        None
        if notice.proven
        else answer_refused(session, to=to, mail=mail, domain=ctx.identity.domain, now=now)
    )
    if refused is not None:
        log.info("%s (%s to %s)", refused, notice.filed_as, to)
        return False
    return True


def _as_answer(session: Session, notice: Notice, mail: InboundMail) -> Notice:
    """An answer says how its mail was read when a charset did not fit, and goes to the seat
    of the player it names."""
    if mail.decoding:
        notice = replace(notice, context={"decoding": mail.decoding, **notice.context})
    handle = notice.context.get("handle")
    game = session.get(Game, notice.game_id) if notice.game_id is not None else None
    if game is not None and notice.seat_id is None and handle:
        notice = replace(notice, seat_id=queries.seat_id_of(session, game.id, handle))
    return notice


def _tell_held_back(
    session: Session,
    *,
    ctx: ServiceContext,
    to: str,
    mail: InboundMail,
    held: loop_guard.Held,
    now: datetime,
) -> None:
    """Tell ``to`` once (until he is answered again) that answers are held back, why, and
    when they resume; in the time zone of his first seat, if he has one."""
    if not loop_guard.notice_due(session, to=to, sender=mail.sender or "", now=now):
        return
    seats = queries.seats_at_address(session, to)
    zone = seats[0].time_zone if seats and seats[0].time_zone else "UTC"
    context = {
        "address": to,
        "why": held.why,
        "count": held.count,
        "window": int(loop_guard.LOOP_WINDOW.total_seconds() // 60),
        "resume": local_time(held.resume_at, zone),
    }
    notice = Notice(
        "held_back",
        to,
        context,
        key=f"held:{to}:{now.isoformat()}",
        # Threaded as an answer, but not one: it is the word that answers stop.
        threading=answer_threading(mail, None, ctx),
    )
    queue_notice(session, notice, ctx=ctx, now=now)
