"""A round's deadline as a calendar event, attached to the mails that announce it."""

from __future__ import annotations

from datetime import datetime

from adjudicator.games import game_title
from adjudicator.mail.calendar import deadline_event, event_uid
from adjudicator.mail.compose import Attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.storage.models import Game, Round


def deadline_attachment(
    ctx: ServiceContext, game: Game, round_: Round | None, *, now: datetime, cancelled: bool = False
) -> Attachment | None:
    """The ``.ics`` event of a round's deadline (None without a deadline). Send it again,
    written later, when the deadline moves: calendars replace the event (same UID, higher
    SEQUENCE); ``cancelled`` withdraws it (a paused game)."""
    if round_ is None or round_.deadline is None:
        return None
    title = game_title(game.kind)
    event = deadline_event(
        uid=event_uid(game.name, round_.number, ctx.identity.domain),
        summary=f"[{game.name}] Orders due: round {round_.number}",
        description=(
            f"The deadline for your orders for round {round_.number} of {title} game "
            f"{game.name}. Orders go by mail to {ctx.identity.address}."
        ),
        deadline=round_.deadline,
        issued=now,
        cancelled=cancelled,
    )
    return Attachment(
        f"{game.name}-round-{round_.number}.ics", event, "text", "calendar", "method=PUBLISH"
    )
