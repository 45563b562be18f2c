"""The tournaments' pages of the archive: ``tournaments/index.html`` and a page per tournament
(standings, cross-table, every game linked to its own pages). Players by handle only."""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.archive.render import Page
from adjudicator.core.standings import figure
from adjudicator.mail.compose import Renderer
from adjudicator.readmodel.tournaments import TournamentView


def tournament_pages(
    renderer: Renderer, views: Sequence[TournamentView], *, site_name: str
) -> list[Page]:
    """Nothing without a tournament: a site without one is as it was."""
    if not views:
        return []
    renderer.env.filters.setdefault("score", figure)
    common = {"site_name": site_name, "root": "../"}
    pages = [
        Page(
            "tournaments/index.html",
            renderer.render(
                "archive/tournaments.html.j2", {**common, "tournaments": views}
            ).encode(),
        )
    ]
    for view in views:
        html = renderer.render("archive/tournament.html.j2", {**common, "t": view})
        pages.append(Page(f"tournaments/{view.name}.html", html.encode()))
    return pages
