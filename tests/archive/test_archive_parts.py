"""The archive's small parts on their own: the chart, the standings, the atomic writer, and
``update_game`` after a new round."""

from __future__ import annotations

import os
import random
import re
import stat
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest
from archivesite import START, make_test_app
from samplegames import SampleGame, play_round, play_samples
from sitecheck import check_page

from adjudicator.archive import ArchiveError, build_archive, update_game
from adjudicator.archive.chart import line_chart, nice_step
from adjudicator.archive.write import write_atomic
from adjudicator.base.config import Config, ServiceConfig
from adjudicator.core.game import Setup
from adjudicator.games import get_rules
from adjudicator.readmodel.model import GameView, Player
from adjudicator.readmodel.standings import measures_of
from adjudicator.service.app import make_app

SVG = "{http://www.w3.org/2000/svg}"


def _points(polyline: ET.Element) -> list[tuple[float, float]]:
    pairs = str(polyline.get("points")).split()
    return [(float(x), float(y)) for x, y in (p.split(",") for p in pairs)]


def test_the_chart_draws_one_line_per_player_higher_values_higher() -> None:
    svg = line_chart(
        [0, 1, 2, 3],
        {"ann": [6, 5, 4, 3], "ben": [6, 6, 5, 5], "cy": [0, 10, 20, 40]},
        title="Shield power <left>",
        chart_id="c1",
    )
    root = ET.fromstring(svg)  # well-formed XML, the title escaped
    assert root.findtext(f"{SVG}title") == "Shield power <left>"
    lines = {
        str(g.findtext(f"{SVG}title")): _points(g.find(f"{SVG}polyline"))  # type: ignore[arg-type]
        for g in root.iter(f"{SVG}g")
        if "series" in str(g.get("class"))
    }
    assert set(lines) == {"ann", "ben", "cy"}
    assert all(len(points) == 4 for points in lines.values())
    xs = [x for x, _ in lines["cy"]]
    assert xs == sorted(xs)  # rounds left to right
    assert len(set(xs)) == 4
    cy = [y for _, y in lines["cy"]]
    assert cy == sorted(cy, reverse=True)  # SVG y grows downwards: rising values go up
    # ann and ben start level; ben stays above ann afterwards
    assert all(b < a for (_, a), (_, b) in list(zip(lines["ann"], lines["ben"], strict=True))[1:])


def test_the_chart_of_one_round_and_of_missing_values_still_draws() -> None:
    root = ET.fromstring(line_chart([0], {"a": [3], "b": [None]}, title="t", chart_id="c2"))
    assert root.find(f"{SVG}g[@class='series series-0']/{SVG}circle") is not None


def test_nice_steps_are_one_two_or_five_times_a_power_of_ten() -> None:
    assert [nice_step(s) for s in (1, 4, 7, 10, 40, 100, 333, 1000)] == [
        1,
        1,
        2,
        5,
        10,
        50,
        100,
        500,
    ]


def _view(kind: str, players: tuple[str, ...]) -> GameView:
    rules = get_rules(kind)
    start = rules.public_state(rules.start(players, options={}, setup=Setup()))
    return GameView(
        name="g",
        kind=kind,
        status="running",
        time_zone="UTC",
        created_at=START,
        finished_at=None,
        options={},
        setup=Setup(),
        players=tuple(Player(h, i) for i, h in enumerate(players)),
        start_state=start,
    )


def test_standings_at_the_start_of_each_kind_follow_the_rulings() -> None:
    """docs/rules/: Giveaway scores start at 0, SiSSYFiGHT chips at 10, Starship Combat ships
    at 3 missiles and 6 power, Three Musketeers 3 Musketeers against 22 men, Rock, Scissors,
    Paper 12 pieces a side besides the flags, no flag lost."""

    def start(kind: str, players: tuple[str, ...]) -> dict[str, dict[str, int | None]]:
        return {m.key: {p: m.at(p, 0) for p in players} for m in measures_of(_view(kind, players))}

    assert start("giveaway", ("a", "b", "c")) == {"scores": {"a": 0, "b": 0, "c": 0}}
    assert start("sissyfight", ("a", "b", "c")) == {"chips": {"a": 10, "b": 10, "c": 10}}
    assert start("starship-combat", ("a", "b")) == {
        "missiles": {"a": 3, "b": 3},
        "power": {"a": 6, "b": 6},
    }
    assert start("three-musketeers", ("m", "c")) == {"pieces": {"m": 3, "c": 22}}
    assert start("rock-scissors-paper", ("w", "b")) == {
        "pieces": {"w": 12, "b": 12},
        "flags_lost": {"w": 0, "b": 0},
    }


def test_write_atomic_replaces_in_one_step_and_skips_unchanged_files(tmp_path: Path) -> None:
    target = tmp_path / "a" / "page.html"
    assert write_atomic(target, b"one")
    assert not write_atomic(target, b"one")
    inode = target.stat().st_ino
    assert write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert target.stat().st_ino != inode  # a new file renamed over the old one
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert os.listdir(target.parent) == ["page.html"]  # no temporary file left behind


def test_update_game_writes_that_game_and_the_index_only(tmp_path: Path) -> None:
    app = make_test_app(tmp_path)
    duel = SampleGame(
        "duel",
        "starship-combat",
        ("ann", "ben"),
        1,
        script={1: {"ann": ["SHIELD"], "ben": ["SHIELD"]}},
    )
    race = SampleGame("race", "sissyfight", ("kim", "lou", "max"), 1)
    play_samples(app, datetime(2026, 3, 2, tzinfo=UTC), [duel, race])
    out = tmp_path / "site"
    first = update_game(app.engine, "duel", out)
    assert first.games == ("duel",)
    assert not (out / "race").exists()
    assert (out / "duel" / "round-1.html").is_file()
    assert not update_game(app.engine, "duel", out).written  # nothing changed since
    assert "tournaments/" not in (out / "index.html").read_text()  # a site without any

    # A second round of duel is played and reported: only duel's files, the index and the
    # club's pages (its players' records, docs/club.md) change.
    app.clock = lambda: datetime(2026, 3, 5, tzinfo=UTC)
    assert play_round(app, duel, 2, rng=random.Random(1))
    second = update_game(app.engine, "duel", out)
    assert "duel/round-2.html" in second.written
    changed = {p.split("/")[0] for p in second.written}
    assert changed <= {"duel", "index.html", "players.html", "ratings"}
    assert {"duel/index.html", "duel/feed.atom", "duel/duel.record"} <= set(second.written)
    assert 'href="round-2.html"' in (out / "duel" / "round-1.html").read_text(encoding="utf-8")
    app.engine.dispose()


def test_update_game_of_an_unknown_game_says_so(tmp_path: Path) -> None:
    app = make_test_app(tmp_path)
    with pytest.raises(ArchiveError, match="no game called 'nope'"):
        update_game(app.engine, "nope", tmp_path / "site")
    app.engine.dispose()


def test_the_archive_builds_from_postgresql(tmp_path: Path, pg_url: str) -> None:
    """The same reading code on the other supported database (times come back aware)."""
    config = Config(
        service=ServiceConfig(
            data_dir=str(tmp_path / "data"), database_url=pg_url, address="judge@pbem.example.org"
        )
    )
    app = make_app(config)
    games = [
        SampleGame("duel", "starship-combat", ("ann", "ben"), 2, time_zone="Asia/Tokyo"),
        SampleGame("race", "sissyfight", ("kim", "lou", "max"), 2),
    ]
    play_samples(app, datetime(2026, 3, 2, 9, 0, tzinfo=UTC), games)
    report = build_archive(app.engine, tmp_path / "site")
    app.engine.dispose()
    assert report.games == ("duel", "race")
    text = check_page(tmp_path / "site" / "duel" / "round-1.html").text
    # Round 1 opened at 09:00 UTC, 18:00 in Tokyo.
    assert "Opened Mon 2 Mar 2026, 18:00 JST" in text


def test_a_rating_chart_spans_its_values_and_has_room_for_four_digits() -> None:
    """A rating history (docs/club.md) near 1500 is drawn on a scale of its own values, not
    from 0, with its four-digit tick labels inside the picture."""
    svg = line_chart(
        [0, 1, 2],
        {"ann": [1500, 1658, 1493]},
        title="ann's rating",
        chart_id="r",
        x_label="rated game (0 = start)",
        from_zero=False,
    )
    root = ET.fromstring(svg)
    ticks = [
        int(t.text or "")
        for t in root.iter("{http://www.w3.org/2000/svg}text")
        if t.get("class") == "tick" and t.get("text-anchor") == "end"
    ]
    assert min(ticks) > 0
    assert min(ticks) <= 1493
    assert max(ticks) >= 1658
    xs = [
        float(t.get("x") or 0)
        for t in root.iter("{http://www.w3.org/2000/svg}text")
        if t.get("text-anchor") == "end"
    ]
    assert all(x >= 4 * 8 for x in xs)  # four digits of about 8 px left of the axis fit
    assert "rated game (0 = start)" in svg


def _luminance(colour: str) -> float:
    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def _contrast(one: str, other: str) -> float:
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_every_chart_line_has_3_to_1_contrast_with_its_card_in_both_schemes() -> None:
    """Issue 47, WCAG 1.4.11: the lines of the archive's charts (the standings over time, each
    player's rating history) are graphics needed to read them: each of the eight series
    colours has at least 3:1 against the card the chart is drawn on, light and dark."""
    css = (Path(__file__).resolve().parents[2] / "templates" / "archive" / "style.css").read_text()
    assert ".chart-figure { background: var(--card);" in css
    light, _, dark = css.partition("@media (prefers-color-scheme: dark)")
    for scheme in (light, dark):
        values = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-f]{6})", scheme))
        series = [values[f"s{i}"] for i in range(8)]
        for colour in series:
            assert _contrast(colour, values["card"]) >= 3, (colour, values["card"])
