"""Pictures of Three Musketeers positions: the plain-text diagram and the SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping

import pytest

from adjudicator.games import kind_of
from adjudicator.games.three_musketeers.pictures import position_words, svg_diagram, text_diagram

START = {"board": ["CCCCM", "CCCCC", "CCMCC", "CCCCC", "MCCCC"], "to_move": "musketeers"}
AFTER_C3_C4 = {
    "board": ["CCCCM", "CCMCC", "CC.CC", "CCCCC", "MCCCC"],
    "to_move": "cardinal",
    "last_move": "c3-c4",
}
SVG = "{http://www.w3.org/2000/svg}"


def test_text_diagram_of_the_start() -> None:
    assert text_diagram(START) == (
        "     a   b   c   d   e\n"
        "   +---+---+---+---+---+\n"
        " 5 | o | o | o | o | M | 5\n"
        "   +---+---+---+---+---+\n"
        " 4 | o | o | o | o | o | 4\n"
        "   +---+---+---+---+---+\n"
        " 3 | o | o | M | o | o | 3\n"
        "   +---+---+---+---+---+\n"
        " 2 | o | o | o | o | o | 2\n"
        "   +---+---+---+---+---+\n"
        " 1 | M | o | o | o | o | 1\n"
        "   +---+---+---+---+---+\n"
        "     a   b   c   d   e\n"
        "M Musketeer   o Cardinal's man\n"
        "Musketeers to move\n"
    )


def test_text_diagram_marks_the_last_move() -> None:
    lines = text_diagram(AFTER_C3_C4).splitlines()
    assert lines[4] == " 4 | o | o |[M]| o | o | 4"
    assert lines[6] == " 3 | o | o |[ ]| o | o | 3"
    assert lines[-1] == "last move c3-c4 in [ ]; Cardinal to move"
    board = lines[:13]
    assert len({len(line.rstrip()) for line in board[1:12]}) <= 2  # grid rows line up
    assert all(line.index("|") == 3 for line in board if "|" in line)


def test_last_move_can_be_given_explicitly() -> None:
    state = {"board": AFTER_C3_C4["board"], "to_move": "cardinal"}
    assert text_diagram(state, last_move="c3-c4") == text_diagram(AFTER_C3_C4)
    assert svg_diagram(state, last_move="c3-c4") == svg_diagram(AFTER_C3_C4)


def _svg(state: Mapping[str, object]) -> ET.Element:
    return ET.fromstring(svg_diagram(state))


def _classes(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == name]


def test_svg_shows_every_piece_and_the_coordinates() -> None:
    root = _svg(START)
    assert root.tag == f"{SVG}svg"
    assert len(_classes(root, "musketeer")) == 3
    assert len(_classes(root, "man")) == 22
    assert _classes(root, "highlight") == []
    assert _classes(root, "last-move") == []
    labels = sorted(t.text or "" for t in root.iter(f"{SVG}text"))
    assert labels == sorted(list("abcde") * 2 + list("12345") * 2)
    title = root.find(f"{SVG}title")
    assert title is not None
    assert title.text == "Three Musketeers, Musketeers to move"


def test_svg_marks_the_last_move_with_squares_and_an_arrow() -> None:
    root = _svg(AFTER_C3_C4)
    assert len(_classes(root, "man")) == 21
    assert len(_classes(root, "highlight")) == 2
    (arrow,) = _classes(root, "last-move")
    # c3 is the third file and third rank from the bottom: the arrow goes straight up.
    assert arrow.get("x1") == arrow.get("x2")
    assert float(arrow.get("y1", 0)) > float(arrow.get("y2", 0))
    title = root.find(f"{SVG}title")
    assert title is not None
    assert title.text == "Three Musketeers, Cardinal to move, last move c3-c4"


@pytest.mark.parametrize(
    "state",
    [
        {"board": ["CCCCM"] * 4},
        {"board": ["CCCCM", "CCCCC", "CCXCC", "CCCCC", "MCCCC"]},
        {**START, "last_move": "c3-c9"},
    ],
)
def test_bad_states_are_refused(state: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="not"):
        text_diagram(state)
    with pytest.raises(ValueError, match="not"):
        svg_diagram(state)


def test_the_position_in_words_places_every_piece() -> None:
    """Issue 47: "Board positions reach HTML readers only as a picture": the alt text tells
    the position. After c3-c4 (a capture) the Musketeers stand on a1, c4 and e5, c3 is empty
    and every other square holds one of the Cardinal's 21 men left of 22
    (docs/rules/three-musketeers.md, Setup)."""
    words = position_words(AFTER_C3_C4)
    assert words == (
        "Musketeers on a1, c4, e5. The Cardinal's men (21) on every other square but the "
        "empty c3. Last move c3-c4. Cardinal to move."
    )
    (picture,) = kind_of("three-musketeers").pictures(AFTER_C3_C4, {"last_move": "c3-c4"})
    assert picture.words == words


def test_the_position_in_words_lists_the_men_once_they_are_few() -> None:
    state = {"board": ["M....", ".C...", "..M..", "...C.", "M...."], "to_move": "cardinal"}
    assert position_words(state) == (
        "Musketeers on a1, a5, c3. The Cardinal's men (2) on b4, d2. Cardinal to move."
    )
