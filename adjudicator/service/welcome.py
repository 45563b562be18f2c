"""Welcome mails: each new player gets the rules, their secret or reply address, and the first
deadline. The secrets exist in clear only here, on their way into the outbox."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from adjudicator.service.context import ServiceContext
from adjudicator.service.games import Credentials, seats_of
from adjudicator.service.replies import (
    base_context,
    deadline_attachment,
    game_thread,
    queue_templated,
)
from adjudicator.storage.models import Game, Round


def queue_welcome(
    session: Session,
    *,
    ctx: ServiceContext,
    game: Game,
    credentials: list[Credentials],
    first_round: Round | None,
    now: datetime,
    key_suffix: str = "",
) -> None:
    """``key_suffix`` tells a later welcome to the same seat (a replacement player) apart.

    Each mail goes out with the seat's own bounce address and, when the first round has a
    deadline, carries it as a calendar event."""
    local, _, domain = ctx.identity.address.partition("@")
    seats = {seat.handle: seat for seat in seats_of(session, game)}
    players = list(seats) or [c.handle for c in credentials]
    calendar = deadline_attachment(ctx, game, first_round, now=now)
    for number, cred in enumerate(credentials, start=1):
        seat = seats.get(cred.handle)
        reply_address = f"{local}+{cred.reply_token}@{domain}"
        context = {
            **base_context(game, seat, first_round),
            "handle": cred.handle,
            "seat": seat.seat + 1 if seat else number,
            "players": players,
            "address": cred.address,
            "secret": cred.secret,
            "reply_address": reply_address,
            "service_address": ctx.identity.address,
            "rules_page": f"docs/rules/{game.kind}.md",
            "calendar": calendar is not None,
        }
        queue_templated(
            session,
            ctx=ctx,
            template="welcome",
            context=context,
            kind="welcome",
            to=cred.address,
            key=f"welcome:{game.id}:{cred.handle}{key_suffix}",
            now=now,
            threading=game_thread(game, ctx, reply_to=reply_address),
            game_id=game.id,
            seat_id=seat.id if seat else None,
            attachments=[calendar] if calendar else [],
        )
