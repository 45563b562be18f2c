"""What the mails that teach a game share: the welcome, the "game started" mail and HELP for a
game tell a player their side or colour and resources, and where the full rules are (the
archive's page, or the rules themselves in the mail)."""

from __future__ import annotations

from typing import Any

from adjudicator.games import kind_of
from adjudicator.mail.markdown import markdown_html, markdown_text
from adjudicator.notify.context import ServiceContext
from adjudicator.readmodel.rules import rules_markdown
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.storage.models import Game

RULES_RULE = "-" * 72
"""The line above and below the rules in a mail's plain part."""

NO_POSITION: dict[str, Any] = {"position": None, "position_text": None}
"""For a mail to somebody without a seat, or before the game has started."""


def seat_position(ctx: ServiceContext, game: Game, handle: str) -> dict[str, Any]:
    """``position``: the seat's side or colour and resources now, as the game gives them
    (GameKind.seat_position), and ``position_text``: the game's template that words them."""
    kind, rules, state = kind_of(game.kind), rules_of(game), game_state(game)
    template = f"mail/{game.kind}/position.txt.j2"
    return {
        "position": kind.seat_position(rules.player_view(state, handle), handle),
        "position_text": template if ctx.renderer.exists(template) else None,
    }


def rules_reference(ctx: ServiceContext, kind: str) -> dict[str, Any]:
    """``rules_link``: the game's rules page in the published archive; without an archive,
    the rules themselves for the end of the mail: ``rules_text`` for the plain part and
    ``rules_html`` for the HTML part, which shows them in place of the text between the two
    ``rules_rule`` lines."""
    link = ctx.rules_link(kind)
    if link:
        return {"rules_link": link, "rules_text": None, "rules_html": None}
    source = rules_markdown(kind)
    return {
        "rules_link": None,
        "rules_text": markdown_text(source),
        "rules_html": markdown_html(source),
        "rules_rule": RULES_RULE,
    }
