"""The built site: every page parses strictly, every link and asset resolves inside the site,
no script and no outside asset, nothing private, times in the game's zone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from archivesite import CODES_CANARY, GAMES, PLAYER_DOMAIN, PRIVATE_CANARY, Played, seats
from sitecheck import check_page, is_external, target_of

from adjudicator.archive.render import picture_file
from adjudicator.games import kind_of

KINDS = {"giveaway", "sissyfight", "starship-combat", "three-musketeers", "rock-scissors-paper"}


def _pages(played: Played) -> list[Path]:
    return sorted(played.out.rglob("*.html"))


def test_the_site_has_every_page_kind_for_all_five_kinds(played: Played) -> None:
    assert {g.kind for g in GAMES} == KINDS
    out = played.out
    assert (out / "index.html").is_file()
    assert (out / "style.css").is_file()
    for game in GAMES:
        rounds = played.results(game.name)
        assert rounds, f"{game.name} played no round"
        folder = out / game.name
        for name in ("index.html", "feed.atom", f"{game.name}.record"):
            assert (folder / name).is_file(), f"{game.name}/{name} is missing"
        for number in range(1, len(rounds) + 1):
            assert (folder / f"round-{number}.html").is_file()
        assert not (folder / f"round-{len(rounds) + 1}.html").exists()
    # the game that has not started yet has its page, and no round page
    assert (out / "soon" / "index.html").is_file()
    assert not list((out / "soon").glob("round-*.html"))


def test_every_page_parses_strictly(played: Played) -> None:
    pages = _pages(played)
    assert len(pages) > 20
    for page in pages:
        check = check_page(page)
        assert check.problems == [], f"{page.relative_to(played.out)}: {check.problems}"
        assert check.doctype is not None
        assert check.doctype.lower() == "doctype html"
        assert check.tags["html"] == 1
        assert check.tags["title"] >= 1
        assert check.tags["h1"] == 1, f"{page}: one heading per page"
        assert check.tags["main"] == 1


def test_every_link_and_asset_resolves_inside_the_site(played: Played) -> None:
    root = played.out.resolve()
    checked = 0
    for page in _pages(played):
        for link in check_page(page).links:
            where = (
                f"{page.relative_to(played.out)} line {link.line}: {link.attribute}={link.value!r}"
            )
            assert not is_external(link.value), f"{where} leaves the site"
            assert not link.value.startswith("/"), f"{where} is not relative"
            target = target_of(page, link.value)
            assert target.is_relative_to(root), f"{where} points outside the site"
            assert target.is_file(), f"{where} does not exist"
            checked += 1
    assert checked > 100


def test_pages_use_no_script_and_one_local_stylesheet(played: Played) -> None:
    for page in _pages(played):
        check = check_page(page)
        assert check.tags["script"] == 0, page
        stylesheets = [
            ln for ln in check.links if ln.tag == "link" and ln.value.endswith("style.css")
        ]
        assert len(stylesheets) == 1, page
    css = played.text("style.css")
    assert "prefers-color-scheme: dark" in css
    assert "@import" not in css  # no outside fonts
    assert "url(" not in css  # nor images


def test_round_pages_link_to_the_previous_and_next_round_and_to_the_game(played: Played) -> None:
    for game in GAMES:
        count = len(played.results(game.name))
        for number in range(1, count + 1):
            page = played.out / game.name / f"round-{number}.html"
            targets = {ln.value for ln in check_page(page).links if ln.tag == "a"}
            assert "index.html" in targets
            assert (f"round-{number - 1}.html" in targets) == (number > 1), page
            assert (f"round-{number + 1}.html" in targets) == (number < count), page
        game_page = check_page(played.out / game.name / "index.html")
        listed = {ln.value for ln in game_page.links if ln.tag == "a"}
        assert {f"round-{n}.html" for n in range(1, count + 1)} <= listed
        assert {f"{game.name}.record", "feed.atom", "../index.html"} <= listed
    index = {ln.value for ln in check_page(played.out / "index.html").links if ln.tag == "a"}
    assert {f"{g.name}/index.html" for g in GAMES} | {"soon/index.html"} <= index


def test_nothing_private_is_published(played: Played) -> None:
    """Players see handles only: no address, no secret hash, no reply token, and nothing of
    a report's private part or its per-player codes."""
    forbidden = [PRIVATE_CANARY, CODES_CANARY, PLAYER_DOMAIN]
    for seat in seats(played.app):
        forbidden += [seat.address, seat.secret_hash]
        if seat.reply_token:
            forbidden.append(seat.reply_token)
    files = [p for p in played.out.rglob("*") if p.is_file()]
    assert len(files) > 40
    for path in files:
        text = path.read_text(encoding="utf-8")
        for value in forbidden:
            assert value not in text, f"{value!r} appears in {path.relative_to(played.out)}"
        assert "@" not in re.sub(r"@(media|import|supports|font-face)", "", text), path


def test_the_planted_report_is_still_shown_in_its_public_part(played: Played) -> None:
    """The round whose private part was planted still shows its public report."""
    text = check_page(played.out / "gw1" / "round-1.html").text
    # Round 1 was scripted: alice -> bob -> carol -> alice with 3 points each is a ring of 3.
    assert "alice → bob → carol → alice" in text
    assert "a ring of 3" in text


def test_times_are_shown_in_the_game_time_zone_with_the_zone_named(played: Played) -> None:
    """gw1 is played in Europe/Berlin. Its round 1 opened when the game was created, Monday
    2 March 2026 09:00 UTC, and was adjudicated two clock steps later, 23:00 UTC: that is
    10:00 and 00:00 (next day) in Berlin, in CET."""
    text = check_page(played.out / "gw1" / "round-1.html").text
    assert "Adjudicated Tue 3 Mar 2026, 00:00 CET" in text
    assert "Opened Mon 2 Mar 2026, 10:00 CET" in text
    game_text = check_page(played.out / "gw1" / "index.html").text
    assert "Europe/Berlin" in game_text


def test_the_index_shows_every_last_change_in_one_time_zone_and_names_it(played: Played) -> None:
    """Issue 40, finding 21: the games are played in Berlin, New York, Tokyo and UTC; the
    index's "Last change" column, one column, is in one zone, UTC, and the page says so."""
    html = (played.out / "index.html").read_text()
    changes = re.findall(r'<td><time datetime="[^"]+">([^<]+)</time></td>\s*</tr>', html)
    assert len(changes) >= len(GAMES)
    assert all(change.endswith(" UTC") for change in changes), changes
    assert "Times are shown in UTC." in check_page(played.out / "index.html").text


def test_a_finished_game_shows_its_winner(played: Played) -> None:
    """duel: ann fires her last missile in round 4 while ben still has one: ben wins."""
    last = played.results("duel")[-1]
    assert last.finished
    assert last.winners == ["ben"]
    game_text = check_page(played.out / "duel" / "index.html").text
    assert "ben wins the game." in game_text
    round_text = check_page(played.out / "duel" / "round-4.html").text
    assert "ann is out of missiles while the other ship still has one: ben wins." in round_text


def test_the_index_has_a_row_per_game_with_its_players_rounds_and_outcome(
    played: Played,
) -> None:
    """Each game's row (read for all games at once) names its players in seat order, counts
    its reported rounds, and tells a finished game's outcome: ben won the duel (round 4),
    and late ended by richelieu's forfeit (athos wins); the game not started has no round."""
    html = played.text("index.html")
    rows = {}
    for row in re.findall(r"<tr>\s*<th scope=\"row\">(.*?)</tr>", html, flags=re.DOTALL):
        name = re.search(r'href="([^/"]+)/index.html"', row)
        assert name is not None
        # the cells after the name: kind, players, rounds, state, last change
        cells = [re.sub(r"<[^>]+>", "", cell).split(">")[-1].strip() for cell in row.split("<td")]
        rows[name.group(1)] = dict(
            zip(("kind", "players", "rounds", "state"), cells[1:], strict=False)
        )
    for game in GAMES:
        assert rows[game.name]["players"] == ", ".join(game.players)
        assert rows[game.name]["rounds"] == str(len(played.results(game.name)))
    assert "ben wins" in rows["duel"]["state"]
    assert "athos wins" in rows["late"]["state"]
    assert rows["soon"]["rounds"] == "0"
    assert "finished" not in rows["gw1"]["state"]


def test_a_forfeit_is_told_in_words(played: Played) -> None:
    text = check_page(played.out / "late" / "round-2.html").text
    assert "richelieu (the Cardinal) made no move in time and forfeits." in text
    assert "athos wins by forfeit" in text


def test_the_standings_chart_has_a_line_per_player(played: Played) -> None:
    page = played.text("brawl/index.html")
    chart = page[
        page.index('<svg class="chart"') : page.index("</svg>", page.index('<svg class="chart"'))
    ]
    assert chart.count("<polyline") == 4  # kim, lou, max, ned
    assert "<title" in chart


@pytest.mark.parametrize("game", [g.name for g in GAMES])
def test_round_pages_show_their_pictures_as_files(played: Played, game: str) -> None:
    """Every picture of the round's position, each one an SVG file of that round."""
    kind = next(g.kind for g in GAMES if g.name == game)
    for number, result in enumerate(played.results(game), start=1):
        page = played.out / game / f"round-{number}.html"
        images = [ln.value for ln in check_page(page).links if ln.tag == "img"]
        pictures = kind_of(kind).pictures(result.public_state, result.report["public"])
        assert images == [picture_file(number, p) for p in pictures]
        assert images  # every kind draws its position
        for src in images:
            assert re.fullmatch(rf"round-{number}-[a-z0-9-]+\.svg", src), src
            assert (page.parent / src).read_text(encoding="utf-8").lstrip().startswith("<")
