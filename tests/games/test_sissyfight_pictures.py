"""The SiSSYFiGHT chips chart: chips after the turn in each player's colour, the chips lost this
turn faded after the bar, and who is out."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from adjudicator.games import kind_of
from adjudicator.games.sissyfight.pictures import COLOUR_FILLS

SVG = "{http://www.w3.org/2000/svg}"
REPORT = {
    "turn": 2,
    "chips": {"alice": 4, "bob": 5, "carol": 0},
    "colours": {"alice": "green", "bob": "blue", "carol": "black"},
    "out": ["carol"],
    "chips_lost": {"alice": 0, "bob": 2, "carol": 1},
}


def test_text_chart_shows_chips_losses_and_who_is_out() -> None:
    (picture,) = kind_of("sissyfight").pictures({}, REPORT)
    assert picture.title == "Chips after turn 2"
    assert picture.text.splitlines() == [
        " alice (green)  ####        4",
        " bob (blue)     #####..     5  lost 2",
        " carol (black)  .           0  lost 1, out",
        "# a chip, . a chip lost this turn",
    ]


def test_svg_bars_are_in_each_players_colour_with_the_loss_faded() -> None:
    (picture,) = kind_of("sissyfight").pictures({}, REPORT)
    root = ET.fromstring(picture.svg)
    bars = [e for e in root.iter(f"{SVG}rect") if e.get("fill") in COLOUR_FILLS.values()]
    solid = [b.get("fill") for b in bars if b.get("class") != "lost"]
    faded = [b.get("fill") for b in bars if b.get("class") == "lost"]
    assert solid == [COLOUR_FILLS["green"], COLOUR_FILLS["blue"]]  # carol has no chips left
    assert faded == [COLOUR_FILLS["blue"], COLOUR_FILLS["black"]]


def test_before_the_first_turn_the_state_is_enough() -> None:
    state = {
        "chips": {"a": 10, "b": 10, "c": 10},
        "colours": {"a": "red", "b": "green", "c": "blue"},
        "out": [],
    }
    (picture,) = kind_of("sissyfight").pictures(state, {})
    assert picture.title == "Chips"
    assert picture.text.splitlines()[0] == " a (red)    ##########  10"


def test_the_chart_in_words_gives_every_players_chips() -> None:
    """Issue 47: the picture's text equivalent carries what it shows."""
    (picture,) = kind_of("sissyfight").pictures({}, REPORT)
    assert picture.words == (
        "alice (green) 4 chips; bob (blue) 5 chips (lost 2); carol (black) 0 chips (lost 1, out)."
    )
