"""The tournaments' pages of the archive: ``tournaments/index.html`` and a page per tournament
(standings, cross-table, every game linked to its own pages) with its Atom feed
(``tournaments/NAME.atom``: an entry per round paired, per round over, and for the end).
Players by handle only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

from adjudicator.archive.feed import Entry, Feed, atom_document, tag_uri
from adjudicator.archive.render import Page, Site
from adjudicator.core.standings import figure
from adjudicator.mail.compose import Renderer
from adjudicator.readmodel.tournaments import TournamentView


def tournament_pages(
    renderer: Renderer, views: Sequence[TournamentView], *, site: Site
) -> list[Page]:
    """Nothing without a tournament: a site without one is as it was."""
    if not views:
        return []
    renderer.env.filters.setdefault("score", figure)
    common = {"site_name": site.name, "root": "../"}
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
        feed = tournament_feed(renderer, view, site=site)
        pages.append(Page(f"tournaments/{view.name}.atom", feed.encode()))
    return pages


def tournament_feed(renderer: Renderer, view: TournamentView, *, site: Site) -> str:
    """The tournament's Atom feed, newest first: an entry when each round is paired, one when
    it is over, and one for the end. Ids are tag URIs of the tournament's creation day and
    name, stable however often the site is built."""
    texts = renderer.env.get_template("archive/tournament_feed.txt.j2").module
    base = (site.base_url or "").rstrip("/")
    page = f"{base}/tournaments/{view.name}.html" if base else f"{view.name}.html"
    created = view.created_at or datetime.min
    entries: list[Entry] = []

    def entry(specific: str, texts_of: str, updated: datetime, *about: object) -> Entry:
        """The entry ``specific``, its title and summary the template's macros
        ``<texts_of>_title`` and ``<texts_of>_summary`` of ``about``."""
        title = str(getattr(texts, f"{texts_of}_title")(*about)).strip()
        summary = str(getattr(texts, f"{texts_of}_summary")(*about)).strip()
        return Entry(
            id=tag_uri(site.authority, created, f"tournament/{view.name}/{specific}"),
            title=title,
            updated=updated,
            link=page,
            summary=summary,
            html=f"<p>{escape(summary)}</p>",
        )

    for r in view.rounds_played:
        entries.append(entry(f"round-{r.number}/paired", "paired", r.paired_at, view, r))
        if r.finished_at is not None:
            entries.append(entry(f"round-{r.number}/over", "finished", r.finished_at, view, r))
    if view.finished_at is not None:
        entries.append(entry("over", "over", view.finished_at, view))
    entries.reverse()  # newest first; made in the order things happened
    updated = max((e.updated for e in entries), default=created)
    return atom_document(
        Feed(
            id=tag_uri(site.authority, created, f"tournament/{view.name}"),
            title=str(texts.feed_title(view)).strip(),  # type: ignore[attr-defined]
            subtitle=str(texts.feed_subtitle(view)).strip(),  # type: ignore[attr-defined]
            updated=updated,
            author=site.name,
            link=page,
            self_link=page.removesuffix(".html") + ".atom",
            entries=entries,
        )
    )
