"""Building the archive: read the database, render the pages, write them atomically.

:func:`build_archive` writes every game; :func:`update_game` writes one game and the index, and
is what the service calls after each reported round. Both write the rules pages too;
:func:`write_rules` writes only those (the service's first pass, before any round is reported:
the welcome mails link to them).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session

from adjudicator.archive.render import ArchiveRenderer, Page, Site
from adjudicator.archive.tournaments import tournament_pages
from adjudicator.archive.write import write_atomic
from adjudicator.mail.compose import Renderer
from adjudicator.readmodel.club_pages import read_club
from adjudicator.readmodel.read import read_archive
from adjudicator.readmodel.tournaments import tournament_views


@dataclass(frozen=True)
class BuildReport:
    """What a build did: the games it rendered and the files it changed or left alone."""

    out_dir: Path
    games: tuple[str, ...]
    written: tuple[str, ...]  # paths relative to ``out_dir``, changed by this build
    unchanged: int


def _write(out_dir: Path, pages: list[Page], games: tuple[str, ...]) -> BuildReport:
    written = []
    for page in pages:
        if write_atomic(out_dir.joinpath(*page.path.split("/")), page.content):
            written.append(page.path)
    return BuildReport(out_dir, games, tuple(written), len(pages) - len(written))


def _build(
    engine: Engine,
    out_dir: Path,
    *,
    game_name: str | None,
    base_url: str | None,
    authority: str,
    renderer: Renderer | None,
    now: datetime | None,
) -> BuildReport:
    archive = read_archive(engine, game_name=game_name)
    site = Site(base_url=base_url, authority=authority)
    archive_renderer = ArchiveRenderer(renderer, site=site)
    with Session(engine) as session:
        views = tournament_views(session)
    pages = archive_renderer.archive(archive, tournaments=len(views))
    # The players' page and the rating lists change with every game: written each time.
    pages += archive_renderer.club(read_club(engine, now=now or datetime.now(UTC)))
    pages += tournament_pages(archive_renderer.renderer, views, site=site)
    return _write(out_dir, pages, tuple(g.name for g in archive.games))


def build_archive(
    engine: Engine,
    out_dir: Path,
    *,
    base_url: str | None = None,
    authority: str = "localhost",
    renderer: Renderer | None = None,
    now: datetime | None = None,
) -> BuildReport:
    """Write the whole site into ``out_dir``: the index, every game's pages, records, feeds.

    ``base_url`` (where the site is served) makes the feeds' links absolute; ``authority``
    (the service's domain) goes into the feeds' tag: ids and must not change once published.
    ``now`` (default: the clock) is when the players' reliability is counted.
    """
    return _build(
        engine,
        out_dir,
        game_name=None,
        base_url=base_url,
        authority=authority,
        renderer=renderer,
        now=now,
    )


def write_rules(out_dir: Path, *, renderer: Renderer | None = None) -> BuildReport:
    """Write the rules page of every game (``rules/<game>.html``) and the style sheet."""
    archive_renderer = ArchiveRenderer(renderer)
    pages = [archive_renderer.stylesheet(), *archive_renderer.rules()]
    return _write(out_dir, pages, ())


def update_game(
    engine: Engine,
    game_name: str,
    out_dir: Path,
    *,
    base_url: str | None = None,
    authority: str = "localhost",
    renderer: Renderer | None = None,
    now: datetime | None = None,
) -> BuildReport:
    """Write one game's pages, the index and the club's pages (after a round of that game
    was reported).

    Raises :class:`~adjudicator.readmodel.read.ArchiveError` when there is no such game.
    """
    return _build(
        engine,
        out_dir,
        game_name=game_name,
        base_url=base_url,
        authority=authority,
        renderer=renderer,
        now=now,
    )
