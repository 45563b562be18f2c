"""The rules pages of the archive: each game's docs/rules/<game>.md published as
rules/<game>.html with its pictures, linked from the index and from every game's page, and
written by the service before any round is reported (the welcome mails link to them)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from archivesite import GAMES, Played, make_test_app
from needs import require_extra
from sitecheck import check_page

from adjudicator.archive import write_rules
from adjudicator.games import GAME_NAMES, kind_of
from adjudicator.serve.archiving import ArchiveKeeper
from adjudicator.storage.db import make_engine

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"


def test_every_game_has_its_rules_page_with_the_pages_words(played: Played) -> None:
    for kind in GAME_NAMES:
        page = played.out / "rules" / f"{kind}.html"
        check = check_page(page)
        assert check.problems == []
        title = kind_of(kind).title
        source = (RULES / f"{kind}.md").read_text(encoding="utf-8")
        assert check.text.count(title) >= 1
        # Every heading of the Markdown page is a heading of the HTML page.
        headings = [
            line.lstrip("#").strip() for line in source.splitlines() if line.startswith("## ")
        ]
        assert headings
        for heading in headings:
            assert f">{heading}</h2>" in page.read_text(encoding="utf-8"), (kind, heading)
        assert "**" not in check.text  # Markdown rendered, not shown


def test_the_rules_pages_show_their_pictures(played: Played) -> None:
    # docs/rules/three-musketeers.md shows the starting position.
    page = played.out / "rules" / "three-musketeers.html"
    images = [ln.value for ln in check_page(page).links if ln.tag == "img"]
    assert images == ["three-musketeers-start.svg"]
    assert (played.out / "rules" / "three-musketeers-start.svg").read_text().startswith("<")


def test_the_index_and_every_game_page_link_to_the_rules(played: Played) -> None:
    index = {ln.value for ln in check_page(played.out / "index.html").links if ln.tag == "a"}
    assert {f"rules/{kind}.html" for kind in GAME_NAMES} <= index
    for game in GAMES:
        page = check_page(played.out / game.name / "index.html")
        links = {ln.value for ln in page.links if ln.tag == "a"}
        assert f"../rules/{game.kind}.html" in links, game.name


def test_the_rules_pages_are_written_without_any_game(tmp_path: Path) -> None:
    report = write_rules(tmp_path)
    assert {f"rules/{kind}.html" for kind in GAME_NAMES} <= set(report.written)
    assert (tmp_path / "style.css").is_file()
    again = write_rules(tmp_path)
    assert again.written == ()  # unchanged pages are left alone


def test_the_running_service_writes_the_rules_pages_on_its_first_pass(tmp_path: Path) -> None:
    """The welcome of a game created before any round is reported links to its rules page:
    the service's first archive pass writes the rules pages, even with no game at all."""
    app = make_test_app(tmp_path)
    try:
        keeper = ArchiveKeeper(app.engine, app.config, authority="pbem.example.org")
        assert keeper.run_once() == []  # no game to rebuild
        for kind in GAME_NAMES:
            assert (app.config.archive_path / "rules" / f"{kind}.html").is_file(), kind
    finally:
        app.engine.dispose()


def test_a_pass_with_the_database_away_is_skipped_with_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The service's archive pass runs in a thread beside the mail; with the database away it
    says so in one line and ends, and the next pass tries again. It used to raise, and the
    service, awaiting the failed pass when told to stop, exited 1 instead of 0."""
    app = make_test_app(tmp_path)
    require_extra("psycopg", package="psycopg", extra="postgresql")
    away = make_engine("postgresql://postgres@127.0.0.1:1/nowhere")  # nothing listens on 1
    try:
        keeper = ArchiveKeeper(away, app.config, authority="pbem.example.org")
        with caplog.at_level(logging.WARNING, logger="adjudicator.archive"):
            assert keeper.run_once() == []
        assert [r.getMessage().split(",")[0] for r in caplog.records] == ["archive pass skipped"]
        assert all(r.exc_info is None for r in caplog.records)  # no traceback every pass
        assert keeper.since is None  # nothing was taken for archived
    finally:
        away.dispose()
        app.engine.dispose()
