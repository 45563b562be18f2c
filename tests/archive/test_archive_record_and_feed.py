"""The downloads: the game record replays to the stored results (docs/record-format.md), and the
Atom feed is valid Atom 1.0 with stable ids."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest
from archivesite import GAMES, Played, make_test_app

from adjudicator.archive import build_archive
from adjudicator.games import read_record, replay_record

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.mark.parametrize("game", [g.name for g in GAMES])
def test_the_record_replays_to_the_stored_rounds(played: Played, game: str) -> None:
    """``adjudicate replay`` of the download gives, round by round, the public state that the
    service stored, and the same ending."""
    results = played.results(game)
    replayed = replay_record(read_record(played.text(f"{game}/{game}.record")))
    rounds = replayed["rounds"]
    if game == "late":
        # A forfeit has no move to write down: the record stops before that round.
        assert len(rounds) == len(results) - 1
        assert results[-1].finished
        assert not replayed["finished"]
        assert "forfeit" in played.text("late/late.record")
    else:
        assert len(rounds) == len(results)
        assert replayed["finished"] == results[-1].finished
        assert replayed["winners"] == results[-1].winners
    for replayed_round, stored in zip(rounds, results, strict=False):
        assert replayed_round["rejected"] == []
        assert replayed_round["state"] == stored.public_state


def test_a_finished_game_record_replays_to_its_end(played: Played) -> None:
    replayed = replay_record(read_record(played.text("duel/duel.record")))
    assert replayed["finished"] is True
    assert replayed["winners"] == ["ben"]


def test_the_record_of_a_game_not_started_holds_its_header(played: Played) -> None:
    record = read_record(played.text("soon/soon.record"))
    assert record.game == "giveaway"
    assert record.players == ("una", "vic", "wes")
    assert record.options == {"nmr": "lose"}
    assert record.rounds == ()


def _feed(played: Played, game: str) -> ET.Element:
    return ET.fromstring(played.text(f"{game}/feed.atom").encode())


def _rfc3339(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert moment.tzinfo is not None, text
    return moment


@pytest.mark.parametrize("game", [g.name for g in GAMES])
def test_the_feed_is_atom_with_the_required_elements(played: Played, game: str) -> None:
    """RFC 4287: a feed has id, title, updated and an author (or every entry has one); every
    entry has id, title, updated, and content or an alternate link."""
    feed = _feed(played, game)
    assert feed.tag == f"{ATOM}feed"
    for name in ("id", "title", "updated"):
        assert len(feed.findall(f"{ATOM}{name}")) == 1, name
    assert feed.find(f"{ATOM}author/{ATOM}name") is not None
    self_links = [ln for ln in feed.findall(f"{ATOM}link") if ln.get("rel") == "self"]
    assert [ln.get("href") for ln in self_links] == ["feed.atom"]
    updated = _rfc3339(feed.findtext(f"{ATOM}updated", ""))
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == len(played.results(game))  # one per reported round
    ids = []
    for entry in entries:
        for name in ("id", "title", "updated", "summary"):
            assert len(entry.findall(f"{ATOM}{name}")) == 1, name
        assert _rfc3339(entry.findtext(f"{ATOM}updated", "")) <= updated
        content = entry.find(f"{ATOM}content")
        assert content is not None
        assert content.get("type") == "html"
        assert content.text
        link = entry.find(f"{ATOM}link")
        assert link is not None
        assert link.get("rel") == "alternate"
        assert (played.out / game / str(link.get("href"))).is_file()
        ids.append(entry.findtext(f"{ATOM}id", ""))
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("tag:pbem.example.org,2026-03-") for i in ids)


def test_feed_ids_stay_the_same_when_the_site_is_rebuilt_elsewhere(
    played: Played, tmp_path: Path
) -> None:
    """Moving the site (another folder, a base URL) changes links, never ids."""
    build_archive(
        played.app.engine, tmp_path, authority="pbem.example.org", base_url="https://x.test/a/"
    )
    before, after = _feed(played, "gw1"), ET.parse(tmp_path / "gw1" / "feed.atom").getroot()

    def ids(feed: ET.Element) -> list[str]:
        return [e.findtext(f"{ATOM}id", "") for e in feed.iter(f"{ATOM}entry")]

    assert ids(before) == ids(after)
    assert before.findtext(f"{ATOM}id") == after.findtext(f"{ATOM}id")
    hrefs = [ln.get("href") for ln in after.iter(f"{ATOM}link")]
    assert "https://x.test/a/gw1/feed.atom" in hrefs
    assert "https://x.test/a/gw1/round-1.html" in hrefs


def test_the_feed_content_words_the_round(played: Played) -> None:
    feed = _feed(played, "duel")
    newest = feed.find(f"{ATOM}entry")
    assert newest is not None
    assert newest.findtext(f"{ATOM}title") == "duel, round 4 - game over"
    assert "ben wins" in (newest.findtext(f"{ATOM}summary") or "")
    assert "ann's ship fired a missile" in (newest.findtext(f"{ATOM}content") or "")


def test_an_empty_database_builds_an_index_of_no_games(tmp_path: Path) -> None:
    app = make_test_app(tmp_path)
    report = build_archive(app.engine, tmp_path / "site")
    assert report.games == ()
    assert "No games yet." in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    app.engine.dispose()
