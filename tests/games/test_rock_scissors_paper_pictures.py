"""Pictures of Rock, Scissors, Paper positions: the text diagram and the SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from adjudicator.core.game import PieceSpec, Setup
from adjudicator.games.rock_scissors_paper import RULES, State
from adjudicator.games.rock_scissors_paper.pictures import (
    last_move_cells,
    position_words,
    svg_diagram,
    text_diagram,
)

SVG = "{http://www.w3.org/2000/svg}"


def start() -> State:
    return RULES.start(["alice", "bob"], options={}, setup=Setup())


def after(state: State, *orders: str) -> State:
    for order in orders:
        player = RULES.to_move(state)[0]
        state = RULES.resolve(state, {player: RULES.check(state, player, [order]).orders}).state
    return state


def test_start_diagram_is_a_hexagon_with_coordinates() -> None:
    """Row I at the top, row A at the bottom; row A and row I span the same columns, row E is
    the widest; diagonal numbers 1-5 under row A and 6-9 at the right of rows A-D."""
    text = text_diagram(RULES.player_view(start(), "alice"))
    rows = [line for line in text.splitlines() if line.strip()][:10]
    assert [row.split()[0] for row in rows[:9]] == list("IHGFEDCBA")
    cells = [[t for t in row.split()[1:] if not t.isdigit()] for row in rows[:9]]
    assert [len(row) for row in cells] == [5, 6, 7, 8, 9, 8, 7, 6, 5]
    assert rows[0].split()[1:] == ["bS", "bF", "bR", "bF", "bS"]
    assert rows[8].split()[1:] == ["wS", "wF", "wR", "wF", "wS", "6"]
    assert rows[7].split()[-1] == "7"
    assert rows[5].split()[-1] == "9"
    assert rows[9].split() == ["1", "2", "3", "4", "5"]
    # I5 sits exactly above A1 and I9 above A5; E1 is the leftmost cell, E9 the rightmost.
    assert rows[0].index("bS") == rows[8].index("wS")
    assert rows[0].rindex("bS") == rows[8].rindex("wS")
    cells_e = rows[4].split()[1:]
    assert cells_e == ["."] * 9
    left = min(row.index(row.split()[1]) for row in rows[:9])
    assert rows[4].index(".") == left
    # Neighbours in a row are six characters apart, rows are offset by half a cell.
    assert rows[8].index("wF") - rows[8].index("wS") == 6
    assert rows[7].index("wR") - rows[8].index("wS") == -3
    assert "White to move" in text


def test_last_move_is_marked_in_the_text_diagram() -> None:
    text = text_diagram(RULES.player_view(after(start(), "B2-E5"), "alice"))
    assert "(.)" in text  # B2, left empty
    assert "[wS]" in text  # E5
    assert "last move B2-E5" in text
    assert "from ( ) to [ ]" in text


def test_a_spread_marks_every_cell_it_dropped_on() -> None:
    setup = Setup(
        pieces=[
            PieceSpec("white", "flag", "A1"),
            PieceSpec("black", "flag", "I9"),
            PieceSpec("white", "paper", "C4", 3),
        ]
    )
    state = after(RULES.start(["alice", "bob"], options={}, setup=setup), "C4-E4 1,2")
    view = RULES.player_view(state, "bob")
    assert view["last_move"] == "C4-E4 1,2"
    origin, cells = last_move_cells(view) or (None, [])
    assert (origin, cells) == (14, [21, 29])  # C4; D4 and E4
    text = text_diagram(view)
    assert "[wP]" in text
    assert "[wP2]" in text


def test_svg_is_well_formed_with_cells_pieces_and_coordinates() -> None:
    state = after(start(), "B3-C4", "H6-G6", "C4-E4 1,1", "H5-F5", "C2-C3")
    root = ET.fromstring(svg_diagram(RULES.player_view(state, "alice")))
    polygons = root.findall(f"{SVG}polygon[@class='cell']")
    assert len(polygons) == 61
    groups = [g.get("class") for g in root.iter(f"{SVG}g")]
    assert groups.count("scissors") == 8
    assert groups.count("flag") == 4
    assert groups.count("paper") == 5 + 4  # White: B4, C3, C6, D4, E4; Black: G4, G6, G8, H7
    assert len(root.findall(f"{SVG}polygon[@class='rock']")) == 6
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert set("ABCDEFGHI123456789") <= set(texts)
    assert "2" in texts  # the height badge of Black's stack on G6
    assert root.findall(f"{SVG}line[@class='last-move']")
    title = root.find(f"{SVG}title")
    assert title is not None
    assert title.text is not None
    assert "last move C2-C3" in title.text


def test_pictures_refuse_a_bad_board() -> None:
    with pytest.raises(ValueError, match="piece"):
        text_diagram({"board": {"E5": "xQ"}, "to_move": "white"})
    with pytest.raises(ValueError, match="not on the board"):
        svg_diagram({"board": {"J5": "wR"}, "to_move": "white"})


def test_the_position_in_words_names_every_piece_and_its_cell() -> None:
    """Issue 47: the board reaches a reader who cannot see it in words. The start
    (docs/rules/rock-scissors-paper.md, Setup: its table, cell by cell), White to move."""
    words = position_words(RULES.player_view(start(), "alice"))
    assert words.startswith(
        "White: Flags on A2, A4; Rocks on A3, B1, B6; Scissors on A1, A5, B2, B5; "
        "Papers on B3, B4, C2, C4, C6. "
        "Black: Flags on I6, I8; Rocks on H4, H9, I7; Scissors on H5, H8, I5, I9; "
        "Papers on G4, G6, G8, H6, H7. "
    )
    assert words.endswith("White to move; flags lost: alice 0, bob 0.")
    moved = after(start(), "B3-C4")  # the worked example: White joins two Papers
    told = position_words(RULES.player_view(moved, "alice"))
    assert "Papers on B4, C2, C4 (2 high), C6" in told
    assert "Last move B3-C4" in told
    assert "Black to move" in told
