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
    assert texts.count("A 1→3") == 3  # a ring gift shows its ring, what it gave and paid
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


# --- issue 47: rings and gifts that do not rely on colour, and text equivalents -------------


def _luminance(colour: str) -> float:
    def linear(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def _contrast(one: str, other: str) -> float:
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _two_rings() -> gw.Round:
    report = {
        "round": 2,
        "gifts": [
            {"from": "alice", "to": "bob", "amount": 1, "paid": 2},
            {"from": "bob", "to": "alice", "amount": 1, "paid": 2},
            {"from": "carol", "to": "dave", "amount": 2, "paid": 4},
            {"from": "dave", "to": "carol", "amount": 2, "paid": 4},
            {"from": "erin", "to": "alice", "amount": 3, "paid": 3},
        ],
        "rings": [
            {"members": ["alice", "bob"], "amount": 1},
            {"members": ["carol", "dave"], "amount": 2},
        ],
        "scores": {"alice": 5, "bob": 2, "carol": 4, "dave": 4, "erin": 0},
    }
    return gw.read_round({}, report)


def test_every_gift_line_and_ring_colour_has_3_to_1_contrast_with_the_paper() -> None:
    """WCAG 1.4.11: the parts of a graphic needed to understand it have a contrast of at
    least 3:1 against what is next to them (issue 47: grey gifts were 2.26:1)."""
    root = ET.fromstring(gw.gifts_svg(_two_rings()))
    strokes = {e.get("stroke") for e in root.iter(f"{SVG}path") if e.get("class")}
    assert len(strokes) == 3
    for colour in {*strokes, *gw.RING_COLOURS}:
        assert colour is not None
        assert _contrast(colour, gw.PAPER) >= 3, colour


def test_rings_differ_by_letter_and_dash_not_by_colour_alone() -> None:
    """Issue 47: "Rings in the gift graph differ only by colour": each ring's arrows carry its
    letter, and the rings' strokes differ in pattern as they do in its legend."""
    root = ET.fromstring(gw.gifts_svg(_two_rings()))
    labels = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert labels.count("A 1→2") == 2
    assert labels.count("B 2→4") == 2
    dashes = {
        e.get("stroke-dasharray") for e in root.iter(f"{SVG}path") if e.get("class") == "ring-gift"
    }
    assert len(dashes) == 2
    legend = {e.get("stroke-dasharray") for e in root.iter(f"{SVG}line")}
    assert legend == dashes


def test_the_lowest_players_name_stays_clear_of_the_legend() -> None:
    """Issue 40: "the bottom player's name sits on the gift graph's legend"."""
    for count in (2, 4, 5, 6):
        players = [f"player{i}" for i in range(count)]
        round_ = gw.read_round({}, {"scores": dict.fromkeys(players, 0), "rings": []})
        root = ET.fromstring(gw.gifts_svg(round_))
        texts = list(root.iter(f"{SVG}text"))
        names = [float(t.get("y", 0)) for t in texts if (t.text or "") in players]
        legend = [float(t.get("y", 0)) for t in texts if (t.text or "").startswith("No ring")]
        # Baselines of a 15-pixel name and a 13-pixel legend line: a full line apart.
        assert min(legend) - max(names) >= 18, count


def test_the_pictures_say_in_words_what_they_show() -> None:
    """Issue 47: every picture has a text equivalent that carries what it says: the gifts
    and rings, and the scores."""
    gifts, standings = kind_of("giveaway").pictures(STATE, REPORT)
    assert gifts.words.startswith("alice gave bob 1 (ring A, pays 3) and dave 2.")
    assert "dave gave alice 1, bob 1 and carol 1 (no orders: spread)." in gifts.words
    assert "Ring A: alice to bob to carol to alice: 1 point each, times 3." in gifts.words
    assert standings.words == (
        "Highest first: dave 6 points; alice 4 points; bob 4 points; carol 4 points. "
        "Nobody has reached 100 yet."
    )
    assert gifts.words != gifts.title
    assert standings.words != standings.title


def test_a_score_label_does_not_run_across_the_dashed_100_line() -> None:
    """Issue 40: "'85 wins' runs across the dashed 100 line"."""
    report = {"round": 9, "scores": {"alice": 85, "bob": 100, "carol": 100}, "winner": "alice"}
    root = ET.fromstring(gw.standings_svg(gw.read_round({}, report)))
    line = next(e for e in root.iter(f"{SVG}line") if e.get("class") == "target")
    x = float(line.get("x1", 0))
    label = next(t for t in root.iter(f"{SVG}text") if t.text == "85  wins")
    assert float(label.get("x", 0)) > x
