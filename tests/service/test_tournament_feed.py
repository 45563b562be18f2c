"""A tournament's Atom feed (docs/tournaments.md): its archive page links
``tournaments/NAME.atom``, which holds an entry when each round is paired, one when it is over
and one for the end, newest first; valid Atom 1.0 (RFC 4287: the elements a feed and an entry
must have, read back with the standard library's XML parser) and never an address."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from playing import clock_of
from test_tournaments import FLAGS, RSP_QUIET, RSP_TAKE_BACK, RSP_WIN, _address, _play_pairing
from test_tournaments import _round_games as round_games

from adjudicator.archive.build import build_archive
from adjudicator.service.app import App
from adjudicator.service.games import PlayerSpec
from adjudicator.service.tournaments import create_tournament, start_tournament
from adjudicator.storage.db import session_scope

ATOM = "{http://www.w3.org/2005/Atom}"


def _play_round(app: App, number: int) -> None:
    """Each pairing of round ``number``: its first player wins both games."""
    games = round_games(app, "ft", number)
    pairs = {tuple(sorted(p)) for _, p in games if len(p) == 2}
    for first, second in sorted(pairs):
        clock_of(app).advance(hours=1)
        _play_pairing(
            app, games, first, second, 2, win=RSP_WIN, lose=RSP_QUIET, quiet=RSP_TAKE_BACK
        )


def test_the_tournament_page_links_its_atom_feed(app: App, tmp_path: Path) -> None:
    """Swiss of four at Rock, Scissors, Paper, two rounds played by mail: a-b and c-d, then
    a-c and b-d (Monrad), each won 2-0 by the first in seed order. The feed: five entries,
    newest first (the end, round 2 over, round 2 paired, round 1 over, round 1 paired), each
    with the required id, title, updated and link; the round's games by handle."""
    with session_scope(app.engine) as session:
        tournament = create_tournament(
            session,
            name="ft",
            kind="rock-scissors-paper",
            format="swiss",
            rounds=2,
            players=[PlayerSpec(p, _address(p)) for p in "abcd"],
            setup=FLAGS,
            schedule="72h",
            gm_address="gm@example.org",
            now=app.clock(),
        )
        start_tournament(session, tournament, ctx=app.ctx, now=app.clock())
    _play_round(app, 1)
    _play_round(app, 2)
    build_archive(app.engine, tmp_path / "site", authority="pbem.example.org")
    page = (tmp_path / "site" / "tournaments" / "ft.html").read_text()
    assert '<link rel="alternate" type="application/atom+xml"' in page
    assert 'href="ft.atom"' in page
    text = (tmp_path / "site" / "tournaments" / "ft.atom").read_text()
    assert "@" not in text  # no address, a player's nor the game master's
    feed = ET.fromstring(text.encode())
    assert feed.tag == f"{ATOM}feed"
    for name in ("id", "title", "updated"):
        assert len(feed.findall(f"{ATOM}{name}")) == 1, name
    assert feed.find(f"{ATOM}author/{ATOM}name") is not None
    assert [ln.get("href") for ln in feed.findall(f"{ATOM}link") if ln.get("rel") == "self"] == [
        "ft.atom"
    ]
    entries = feed.findall(f"{ATOM}entry")
    for entry in entries:
        for name in ("id", "title", "updated", "link", "summary", "content"):
            assert len(entry.findall(f"{ATOM}{name}")) == 1, name
        assert entry.findtext(f"{ATOM}updated", "") <= feed.findtext(f"{ATOM}updated", "")
    ids = [e.findtext(f"{ATOM}id", "") for e in entries]
    assert len(set(ids)) == len(ids)
    assert all(
        re.fullmatch(r"tag:pbem\.example\.org,\d{4}-\d\d-\d\d:tournament/ft/.+", i) for i in ids
    )
    assert [e.findtext(f"{ATOM}title") for e in entries] == [
        "ft: the tournament is over",
        "ft, round 2 of 2 over",
        "ft, round 2 of 2 paired",
        "ft, round 1 of 2 over",
        "ft, round 1 of 2 paired",
    ]
    paired = entries[-1].findtext(f"{ATOM}summary", "")
    for game, players in round_games(app, "ft", 1):
        assert f"game {game}, {' - '.join(players)}" in paired
    assert "Final standings: 1. a 4;" in entries[0].findtext(f"{ATOM}summary", "")
