"""Welcome mails: each new player gets the rules, their secret or reply address, and the first
deadline. The secrets exist in clear only here, on their way into the outbox."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from adjudicator.service.context import ServiceContext
from adjudicator.service.games import Credentials
from adjudicator.service.replies import base_context, game_thread, queue_templated
from adjudicator.storage.models import Game, Round

TITLES = {
    "giveaway": "Giveaway",
    "sissyfight": "SiSSYFiGHT 3000",
    "three-musketeers": "Three Musketeers",
    "rock-scissors-paper": "Rock, Scissors, Paper",
    "starship-combat": "Starship Combat",
}


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
    """``key_suffix`` tells a later welcome to the same seat (a replacement player) apart."""
    local, _, domain = ctx.identity.address.partition("@")
    players = [c.handle for c in credentials]
    for seat, cred in enumerate(credentials, start=1):
        reply_address = f"{local}+{cred.reply_token}@{domain}"
        context = {
            **base_context(game, None, first_round),
            "handle": cred.handle,
            "seat": seat,
            "players": players,
            "address": cred.address,
            "secret": cred.secret,
            "reply_address": reply_address,
            "service_address": ctx.identity.address,
            "game_title": TITLES.get(game.kind, game.kind),
            "rules_page": f"docs/rules/{game.kind}.md",
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
        )
