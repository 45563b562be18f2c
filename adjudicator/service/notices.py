"""Mail to the game master: the game's life (created, started, over; ``announcements.py``) and
things a human must look at (a player who keeps missing rounds, a bounced address or one the
SMTP server refused, a round that could not be adjudicated or closed late).

A game without ``gm_address`` has nobody to tell; the notice is then only logged. Each notice has
an idempotency key, so that a notice repeated by a retry or a second instance is sent once.

Every mail to the game master carries the game master's own reply address as Reply-To
(:func:`gm_reply_to`): answering any of them reaches the game's controls (``gm_mail.py``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlmodel import Session

from adjudicator.base.security import gm_reply_address
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.service.game_context import base_context
from adjudicator.storage.models import Game, Round

log = logging.getLogger(__name__)

NOTICES = (
    "created",
    "started",
    "game_over",
    "missed_rounds",
    "bounced",
    "refused",
    "webhook_gave_up",
    "adjudication_failed",
    "closed_late",
    "resigned",
    "game_master",
    "gm_handed_over",
    "replaced",
    "offered",
    "join_request",
    "stand_in_returned",
)
"""The notices ``templates/mail/gm_notice.txt.j2`` knows how to word."""


def queue_gm_notice(
    session: Session,
    *,
    ctx: ServiceContext,
    game: Game,
    notice: str,
    key: str,
    now: datetime,
    round_: Round | None = None,
    former: str | None = None,
    **details: Any,
) -> bool:
    """Queue ``notice`` (one of ``NOTICES``) to the game master; False if there is none.
    ``former``: to a game master who no longer runs the game, at that address, without the
    game master's reply address (which is the new game master's)."""
    if notice not in NOTICES:
        raise ValueError(f"unknown game master notice {notice!r}")
    if not game.gm_address:
        log.info(
            "game %s has no game master address: the %s notice goes to nobody", game.name, notice
        )
        return False
    told = Notice(
        "gm_notice",
        former or game.gm_address,
        {**base_context(game, None, round_), "notice": notice, **details},
        key=f"gm:{notice}:{key}",
        game_id=game.id,
        round_id=round_.id if round_ else None,
        reply_to=None if former else gm_reply_to(ctx, game),
        label=f"gm:{notice}",
    )
    queue_notice(session, told, ctx=ctx, now=now)
    return True


def gm_reply_to(ctx: ServiceContext, game: Game) -> str:
    """The game master's reply address for ``game`` (``security.gm_reply_address``)."""
    assert game.id is not None
    return gm_reply_address(ctx.receipt_key, ctx.identity.address, game.id, game.gm_token)
