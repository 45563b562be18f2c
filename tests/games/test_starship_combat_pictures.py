"""Starship Combat: both ships' missiles and power after a round, the choices, and what each
missile did (docs/rules/starship-combat.md, Report)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from adjudicator.games import kind_of

SVG = "{http://www.w3.org/2000/svg}"
# kirk fires and shields, kang sent nothing: kirk's missile destroys kang's unshielded ship.
REPORT = {
    "round": 3,
    "choices": {"kirk": "FIRE SHIELD", "kang": "NOTHING"},
    "no_orders": ["kang"],
    "missiles": {"kirk": 0, "kang": 3},
    "power": {"kirk": 3, "kang": 0},
    "destroyed": ["kang"],
}


def _classes(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == name]


def test_text_table_has_a_column_per_ship() -> None:
    (picture,) = kind_of("starship-combat").pictures({}, REPORT)
    assert picture.title == "Both ships' missiles and power after round 3"
    assert picture.text.splitlines() == [
        "            kirk              kang",
        "this round  FIRE SHIELD       NOTHING (no orders)",
        "missiles    ...  0 left       ###  3 left",
        "power       ###...  3 left    ......  0 left",
        "ship        intact            DESTROYED",
    ]


def test_svg_counts_missiles_and_power_and_shows_the_hit() -> None:
    (picture,) = kind_of("starship-combat").pictures({}, REPORT)
    root = ET.fromstring(picture.svg)
    assert len(_classes(root, "missile")) == 3  # kang's three, all left
    assert len(_classes(root, "missile used")) == 3  # kirk's, all fired
    assert len(_classes(root, "power")) == 3
    assert len(_classes(root, "power used")) == 9
    assert len(_classes(root, "shield")) == 1  # kirk's
    assert len(_classes(root, "missile-flight")) == 1
    assert len(_classes(root, "destroyed")) == 1
    assert _classes(root, "blocked") == []


def test_a_missile_on_shields_is_drawn_as_stopped() -> None:
    report = {
        **REPORT,
        "choices": {"kirk": "FIRE", "kang": "SHIELD"},
        "no_orders": [],
        "destroyed": [],
    }
    root = ET.fromstring(kind_of("starship-combat").pictures({}, report)[0].svg)
    assert len(_classes(root, "blocked")) == 1
    assert _classes(root, "destroyed") == []


def test_before_round_one_there_are_no_choices() -> None:
    state = {"missiles": {"a": 3, "b": 3}, "power": {"a": 6, "b": 6}, "destroyed": []}
    (picture,) = kind_of("starship-combat").pictures(state, {})
    assert "this round" not in picture.text
    assert picture.title == "Both ships' missiles and power"


def test_the_ships_in_words() -> None:
    """Issue 47: the picture's text equivalent carries what it shows."""
    (picture,) = kind_of("starship-combat").pictures({}, REPORT)
    assert picture.words == (
        "kirk's ship: chose FIRE SHIELD; 0 missiles and 3 shield power left; intact. "
        "kang's ship: chose NOTHING (no orders); 3 missiles and 0 shield power left; "
        "destroyed."
    )
