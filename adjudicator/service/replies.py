"""Queuing the service's mails: answers to submissions and round results.

The words are in ``templates/mail``; this module chooses the template, the recipient and the
outbox key, and threads the mail. Each text template sets ``subject`` at its top level.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import Session

from adjudicator.mail.compose import build_message, thread_root
from adjudicator.mail.parse import InboundMail
from adjudicator.service.context import ServiceContext
from adjudicator.service.games import seats_of
from adjudicator.service.outbox import queue_mail
from adjudicator.service.rounds import Adjudicated, mark_reported
from adjudicator.storage.models import Game, Round, Seat


def local_time(moment: datetime | None, zone: str) -> str:
    """A deadline as the player reads it, in their own time zone."""
    if moment is None:
        return "no deadline set"
    local = moment.astimezone(ZoneInfo(zone))
    return local.strftime("%A %d %B %Y, %H:%M %Z")


def base_context(game: Game, seat: Seat | None, round_: Round | None) -> dict[str, Any]:
    zone = (seat.time_zone if seat else None) or game.time_zone
    return {
        "game": game.name,
        "kind": game.kind,
        "handle": seat.handle if seat else None,
        "round": round_.number if round_ else None,
        "deadline": local_time(round_.deadline if round_ else None, zone),
        "time_zone": zone,
        "finished": game.status == "finished",
    }


def mail_policy_problem(game: Game, mail: InboundMail) -> str | None:
    """Why this mail fails the game's mail policy (e.g. ``require_auth = ["dkim"]``), if it does."""
    required = game.settings.get("require_auth", [])
    # The topmost Authentication-Results field is the one our own receiving server added.
    top = mail.auth_results[0] if mail.auth_results else None
    failed = [m for m in required if top is None or getattr(top, m, None) != "pass"]
    if not failed:
        return None
    return "your mail server's " + " and ".join(m.upper() for m in failed) + " check did not pass"


@dataclass(frozen=True)
class Threading:
    """Where a mail sits in its conversation, and how automatic it is (RFC 3834)."""

    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    auto: str = "auto-generated"
    reply_to: str | None = None


def queue_templated(
    session: Session,
    *,
    ctx: ServiceContext,
    template: str,
    context: dict[str, Any],
    kind: str,
    to: str,
    key: str,
    now: datetime,
    threading: Threading,
    game_id: int | None = None,
    round_id: int | None = None,
) -> None:
    """Render ``templates/mail/<template>.txt.j2`` (which sets ``subject``) and queue it."""
    module = ctx.renderer.env.get_template(f"mail/{template}.txt.j2").make_module(context)
    message = build_message(
        identity=ctx.identity,
        to=to,
        subject=str(getattr(module, "subject", "")).strip(),
        text=str(module),
        key=key,
        now=now,
        auto=threading.auto,
        in_reply_to=threading.in_reply_to,
        references=threading.references,
        reply_to=threading.reply_to,
    )
    queue_mail(
        session,
        key=key,
        kind=kind,
        recipient=to,
        message=message.as_bytes(),
        now=now,
        game_id=game_id,
        round_id=round_id,
    )


def game_thread(game: Game, ctx: ServiceContext, **options: Any) -> Threading:
    """A game's own mails thread together under one root per game."""
    root = thread_root(game.name, ctx.identity)
    return Threading(in_reply_to=root, references=(root,), **options)


def queue_reply(
    session: Session,
    *,
    ctx: ServiceContext,
    kind: str,
    to: str,
    key: str,
    mail: InboundMail,
    context: dict[str, Any],
    now: datetime,
    game_id: int | None = None,
    round_id: int | None = None,
) -> None:
    """Answer an inbound mail (threaded under it, marked ``auto-replied``)."""
    if not to:
        return
    references = (*mail.references, mail.message_id) if mail.message_id else mail.references
    threading = Threading(
        in_reply_to=mail.message_id, references=tuple(references), auto="auto-replied"
    )
    queue_templated(
        session,
        ctx=ctx,
        template=kind,
        context=context,
        kind=kind,
        to=to,
        key=key,
        now=now,
        threading=threading,
        game_id=game_id,
        round_id=round_id,
    )


def queue_round_result(
    session: Session, *, ctx: ServiceContext, adjudicated: Adjudicated, now: datetime
) -> None:
    """Queue the result of a round to every player, then mark the round reported."""
    game, round_, result = adjudicated.game, adjudicated.round, adjudicated.result
    assert round_.id is not None
    for seat in seats_of(session, game):
        context = {
            **base_context(game, seat, adjudicated.next_round),
            "round": round_.number,
            "next_round": adjudicated.next_round.number if adjudicated.next_round else None,
            "state": result.public_state,
            "report": result.report["public"],
            "private": result.report["private"].get(seat.handle, {}),
            "orders": result.orders,
            "finished": result.finished,
            "winners": result.winners,
            "draw": result.draw,
        }
        queue_templated(
            session,
            ctx=ctx,
            template="result",
            context=context,
            kind="result",
            to=seat.address,
            key=f"result:{round_.id}:{seat.id}",
            now=now,
            threading=game_thread(game, ctx),
            game_id=game.id,
            round_id=round_.id,
        )
    mark_reported(session, round_.id, now=now)
