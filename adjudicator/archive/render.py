"""Rendering the site: :mod:`.model` values in, files' bytes out. No I/O but the templates.

The words are in ``templates/archive``: one page template per page kind and, per game kind, a
partial ``report/<kind>.html.j2`` that tells a round's public report in words (the game code
holds data, not prose; the partial is in the game's package, under ``templates/archive/``).
Every link is relative, so the site works from ``file://`` and from any sub-path of a web
server; only the Atom feed uses ``base_url``, where absolute links are better.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from adjudicator.archive.chart import legend_marker, line_chart
from adjudicator.archive.feed import Entry, Feed, atom_document, tag_uri
from adjudicator.archive.rules import rules_page
from adjudicator.archive.times import local_time, rfc3339
from adjudicator.core.kind import Hint, game_hint
from adjudicator.games import GAME_NAMES, kind_of
from adjudicator.mail.compose import Renderer
from adjudicator.pictures import Picture
from adjudicator.readmodel.club_pages import Club, RatingLine
from adjudicator.readmodel.links import round_file, rules_file
from adjudicator.readmodel.model import Archive, GameSummary, GameView, ReportedRound
from adjudicator.readmodel.record import game_record
from adjudicator.readmodel.standings import Measure, measures_of, player_standing
from adjudicator.service import solutions


@dataclass(frozen=True)
class Site:
    """Settings of the whole site."""

    base_url: str | None = None  # where the site is served, for the feeds' absolute links
    authority: str = "localhost"  # the service's domain, for the feeds' tag: ids
    name: str = "Adjudicator"


@dataclass(frozen=True)
class Page:
    """One file of the site: ``path`` is relative to the site's root, with ``/``."""

    path: str
    content: bytes


@dataclass(frozen=True)
class Figure:
    """A picture file of a round, its caption and its text equivalent (``Picture.words``)."""

    file: str
    title: str
    svg: str
    words: str


@dataclass(frozen=True)
class Chart:
    measure: Measure
    svg: Markup
    legend: tuple[tuple[str, Markup], ...]


def picture_file(number: int, picture: Picture) -> str:
    stem = re.sub(r"[^a-z0-9-]+", "-", picture.name.lower()).strip("-") or "picture"
    return f"round-{number}-{stem}.svg"


def figures(game: GameView, round_: ReportedRound) -> list[Figure]:
    return [
        Figure(picture_file(round_.number, p), p.title, p.svg, p.words)
        for p in kind_of(game.kind).pictures(round_.public_state, round_.report)
    ]


def hint_of(game: GameView) -> Hint | None:
    """Where a finished game was decided, if its kind can say within its budget."""
    if game.last is None or not game.last.finished:
        return None
    kind = kind_of(game.kind)
    solutions.refresh(kind)  # made since this process started: the hint is exact with it
    return game_hint(
        kind,
        players=[p.handle for p in game.players],
        options=game.options,
        setup=game.setup,
        rounds=[r.orders for r in game.rounds],
    )


def charts(game: GameView, measures: Sequence[Measure]) -> list[Chart]:
    handles = [p.handle for p in game.players]
    return [
        Chart(
            measure,
            Markup(  # line_chart escapes every text it draws
                line_chart(
                    measure.rounds,
                    measure.values,
                    title=f"{measure.label} after each round",
                    chart_id=f"chart-{measure.key}",
                )
            ),
            tuple(
                (h, Markup(legend_marker(i)))  # fixed markup, no text
                for i, h in enumerate(handles)
            ),
        )
        for measure in measures
    ]


def rating_file(kind: str) -> str:
    return f"ratings/{kind}.html"


def rating_chart(kind: str, index: int, line: RatingLine) -> Markup:
    """One player's rating after each of his rated games of ``kind``, from the start."""
    series = line.series
    return Markup(  # line_chart escapes every text it draws
        line_chart(
            tuple(range(len(series))),
            {line.handle: series},
            title=f"{line.handle}'s rating after each rated game",
            chart_id=f"rating-{kind}-{index}",
            x_label="rated game (0 = start)",
            from_zero=False,
        )
    )


class ArchiveRenderer:
    """The site's templates, with the filters they use."""

    def __init__(self, renderer: Renderer | None = None, *, site: Site | None = None) -> None:
        self.renderer = renderer or Renderer()
        self.site = site or Site()
        filters = self.renderer.env.filters
        filters.setdefault("local_time", local_time)
        filters.setdefault("rfc3339", rfc3339)

    def _render(self, template: str, **context: Any) -> str:
        return self.renderer.render(f"archive/{template}", {"site_name": self.site.name, **context})

    def stylesheet(self) -> Page:
        env = self.renderer.env
        assert env.loader is not None
        source, _, _ = env.loader.get_source(env, "archive/style.css")
        return Page("style.css", source.encode())

    def index(self, summaries: Sequence[GameSummary], *, tournaments: int = 0) -> Page:
        """The front page; it leads to the tournaments' list when there are any."""
        rules = [(kind, rules_file(kind)) for kind in GAME_NAMES]
        html = self._render(
            "index.html.j2", root="", games=summaries, rules=rules, tournaments=tournaments
        )
        return Page("index.html", html.encode())

    def rules(self) -> list[Page]:
        """Every game's rules page (``rules/<game>.html``) and the pictures it shows."""
        pages = []
        for kind in GAME_NAMES:
            page = rules_page(kind)
            html = self._render("rules.html.j2", root="../", page=page)
            pages.append(Page(rules_file(kind), html.encode()))
            pages += [Page(f"rules/{name}", data) for name, data in page.pictures]
        return pages

    def report_html(self, game: GameView, round_: ReportedRound) -> Markup:
        """A round's public report in words (the kind's partial, or a plain list of values)."""
        name = f"archive/report/{game.kind}.html.j2"
        if not self.renderer.exists(name):
            name = "archive/report/_generic.html.j2"
        html = self.renderer.render(
            name,
            {
                "r": round_.report,
                "state": round_.public_state,
                "round": round_,
                "players": [p.handle for p in game.players],
            },
        )
        return Markup(html)  # rendered with autoescape

    def game(self, game: GameView) -> list[Page]:
        """The game's page, its rounds' pages and pictures, its record and its feed."""
        measures = measures_of(game)
        folder = game.name
        reports = {r.number: self.report_html(game, r) for r in game.rounds}
        pages = [
            Page(
                f"{folder}/index.html",
                self._render(
                    "game.html.j2",
                    root="../",
                    game=game,
                    measures=measures,
                    charts=charts(game, measures),
                    standing={p.handle: player_standing(game, p.handle) for p in game.players},
                    latest=figures(game, game.last) if game.last else [],
                    record_file=f"{game.name}.record",
                    rules_link=f"../{rules_file(game.kind)}",
                    hint=hint_of(game),
                ).encode(),
            ),
            Page(f"{folder}/{game.name}.record", game_record(game).encode()),
            Page(f"{folder}/feed.atom", self.feed(game, reports).encode()),
        ]
        for index, round_ in enumerate(game.rounds):
            shown = figures(game, round_)
            pages += [Page(f"{folder}/{f.file}", f.svg.encode()) for f in shown]
            previous = game.rounds[index - 1] if index > 0 else None
            following = game.rounds[index + 1] if index + 1 < len(game.rounds) else None
            html = self._render(
                "round.html.j2",
                root="../",
                game=game,
                round=round_,
                previous=previous,
                following=following,
                figures=shown,
                report=reports[round_.number],
                measures=measures,
            )
            pages.append(Page(f"{folder}/{round_file(round_.number)}", html.encode()))
        return pages

    def feed(self, game: GameView, reports: Mapping[int, Markup]) -> str:
        """The Atom feed, newest round first; its short texts are macros of ``feed.txt.j2``."""
        texts = self.renderer.env.get_template("archive/feed.txt.j2").module
        base = (self.site.base_url or "").rstrip("/")
        prefix = f"{base}/{game.name}/" if base else ""
        entries = [
            Entry(
                id=tag_uri(self.site.authority, game.created_at, f"{game.name}/round-{r.number}"),
                title=str(texts.entry_title(game, r)).strip(),  # type: ignore[attr-defined]
                updated=r.adjudicated_at or r.opened_at,
                link=prefix + round_file(r.number),
                summary=str(texts.entry_summary(game, r)).strip(),  # type: ignore[attr-defined]
                html=str(reports[r.number]),
            )
            for r in reversed(game.rounds)
        ]
        return atom_document(
            Feed(
                id=tag_uri(self.site.authority, game.created_at, game.name),
                title=str(texts.feed_title(game)).strip(),  # type: ignore[attr-defined]
                subtitle=str(texts.feed_subtitle(game)).strip(),  # type: ignore[attr-defined]
                updated=game.updated_at,
                author=self.site.name,
                link=prefix + "index.html",
                self_link=prefix + "feed.atom",
                entries=entries,
            )
        )

    def club(self, club: Club) -> list[Page]:
        """The players' page and each kind's rating list (docs/club.md): handles only."""
        kinds = [(kind, rating_file(kind)) for kind in GAME_NAMES]
        pages = [
            Page(
                "players.html",
                self._render(
                    "players.html.j2", root="", players=club.players, kinds=kinds
                ).encode(),
            )
        ]
        for kind, path in kinds:
            lines = club.ratings.get(kind, ())
            html = self._render(
                "ratings.html.j2",
                root="../",
                kind=kind,
                lines=lines,
                charts=[rating_chart(kind, index, line) for index, line in enumerate(lines)],
            )
            pages.append(Page(path, html.encode()))
        return pages

    def archive(self, archive: Archive, *, tournaments: int = 0) -> list[Page]:
        index = self.index(archive.index, tournaments=tournaments)
        pages = [self.stylesheet(), index, *self.rules()]
        for game in archive.games:
            pages += self.game(game)
        return pages
