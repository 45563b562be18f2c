"""Giveaway pictures: the gift graph (rings highlighted, readable with twenty players) and the
standings, from a round's public report."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET

from adjudicator.games import kind_of
from adjudicator.games.giveaway import pictures as gw

SVG = "{http://www.w3.org/2000/svg}"
# docs/rules/giveaway.md: alice -> bob -> carol -> alice with 1 each is a ring of 3 (each gift pays 3);
# dave sent nothing and his 3 points were spread.
REPORT = {
    "round": 1,
    "gifts": [
        {"from": "alice", "to": "bob", "amount": 1, "paid": 3},
        {"from": "alice", "to": "dave", "amount": 2, "paid": 2},
        {"from": "bob", "to": "carol", "amount": 1, "paid": 3},
        {"from": "bob", "to": "dave", "amount": 2, "paid": 2},
        {"from": "carol", "to": "alice", "amount": 1, "paid": 3},
        {"from": "carol", "to": "dave", "amount": 2, "paid": 2},
        {"from": "dave", "to": "alice", "amount": 1, "paid": 1},
        {"from": "dave", "to": "bob", "amount": 1, "paid": 1},
        {"from": "dave", "to": "carol", "amount": 1, "paid": 1},
    ],
    "no_orders": [{"player": "dave", "holding": 3, "rule": "spread"}],
    "rings": [{"members": ["alice", "bob", "carol"], "amount": 1, "size": 3, "bonus": 2}],
    "scores": {"alice": 4, "bob": 4, "carol": 4, "dave": 6},
    "winner": None,
}
STATE = {
    "scores": REPORT["scores"],
    "holdings": {},
    "rings": [{"members": ["alice", "bob", "carol"], "amount": 1}],
}


def _round() -> gw.Round:
    return gw.read_round(STATE, REPORT)


def test_gift_text_lists_every_gift_by_giver_with_ring_tags() -> None:
    assert gw.gifts_text(_round()).splitlines() == [
        "  alice  -> bob 1 [A], dave 2",
        "  bob    -> carol 1 [A], dave 2",
        "  carol  -> alice 1 [A], dave 2",
        "  dave   -> alice 1, bob 1, carol 1 (no orders)",
        "",
        "  [A] alice -> bob -> carol -> alice: 1 point each, x3",
    ]


def test_gift_graph_draws_ring_gifts_apart_from_the_others() -> None:
    root = ET.fromstring(gw.gifts_svg(_round()))
    rings = [e for e in root.iter(f"{SVG}path") if e.get("class") == "ring-gift"]
    plain = [e for e in root.iter(f"{SVG}path") if e.get("class") == "gift"]
    assert len(rings) == 3
    assert len(plain) == 6
    assert {e.get("stroke") for e in rings} == {gw.RING_COLOURS[0]}
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts.count("1→3") == 3  # a ring gift shows what it gave and what it paid
    assert any(t and t.startswith("Ring A: alice → bob → carol → alice") for t in texts)


def test_twenty_players_keep_apart_and_named() -> None:
    players = [f"player{i:02d}" for i in range(20)]
    report = {
        "round": 4,
        "gifts": [
            {"from": p, "to": players[(i + 1) % 20], "amount": 2, "paid": 2}
            for i, p in enumerate(players)
        ],
        "rings": [],
        "scores": dict.fromkeys(players, 2),
    }
    round_ = gw.read_round({}, report)
    root = ET.fromstring(gw.gifts_svg(round_))
    nodes = [e.find(f"{SVG}circle") for e in root.iter(f"{SVG}g") if e.get("class") == "player"]
    centres = [(float(n.get("cx")), float(n.get("cy"))) for n in nodes if n is not None]
    radius = float(nodes[0].get("r"))  # type: ignore[union-attr, arg-type]
    assert len(centres) == 20
    gap = min(math.dist(a, b) for a, b in itertools.combinations(centres, 2))
    assert gap > 2 * radius + 10
    width = float(root.get("width"))  # type: ignore[arg-type]
    assert all(radius < x < width - radius for x, _ in centres)
    names = {t.text for t in root.iter(f"{SVG}text")}
    assert set(players) <= names


def test_standings_put_the_highest_first_and_explain_rule_1() -> None:
    report = {
        "round": 9,
        "gifts": [],
        "rings": [],
        "winner": "carol",
        "scores": {"alice": 103, "bob": 103, "carol": 11, "dave": 3},
    }
    text = gw.standings_text(gw.read_round({}, report)).splitlines()
    assert [line.split()[0] for line in text[:4]] == ["alice", "bob", "*carol", "dave"]
    assert text[0].endswith("103  tied")
    assert text[2].endswith("11  wins")
    assert text[4].startswith("Rule 1")
    root = ET.fromstring(gw.standings_svg(gw.read_round({}, report)))
    assert [e for e in root.iter(f"{SVG}line") if e.get("class") == "target"]


def test_the_painter_is_registered_for_mail_and_archive() -> None:
    pictures = kind_of("giveaway").pictures(STATE, REPORT)
    assert [p.name for p in pictures] == ["gifts", "standings"]
    before_round_1 = kind_of("giveaway").pictures(
        {"scores": {"a": 0, "b": 0, "c": 0}, "rings": []}, {}
    )
    assert "No ring this round." in before_round_1[0].text
