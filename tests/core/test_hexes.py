"""The 61-cell hex board of docs/rules/rock-scissors-paper.md (adjudicator.core.hexes)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.core import hexes

cells = st.integers(min_value=0, max_value=hexes.SIZE - 1)


def test_rows_are_named_as_on_an_abalone_board() -> None:
    """“row A is A1-A5, B is B1-B6, C is C1-C7, D is D1-D8, E is E1-E9, F is F2-F9, G is G3-G9,
    H is H4-H9, I is I5-I9” (61 cells)."""
    expected = {
        "A": range(1, 6), "B": range(1, 7), "C": range(1, 8), "D": range(1, 9),
        "E": range(1, 10), "F": range(2, 10), "G": range(3, 10), "H": range(4, 10),
        "I": range(5, 10),
    }  # fmt: skip
    names = [f"{row}{d}" for row, diagonals in expected.items() for d in diagonals]
    assert list(hexes.CELL_NAMES) == names
    assert len(names) == hexes.SIZE == 61


@given(cells)
def test_parse_and_name_round_trip(cell: int) -> None:
    name = hexes.cell_name(cell)
    assert hexes.parse_cell(name) == cell
    assert hexes.parse_cell(f"  {name.lower()} ") == cell


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("F1", "'F1' is not on the board: row F runs from F2 to F9"),
        ("A6", "'A6' is not on the board: row A runs from A1 to A5"),
        ("J3", "'J3' is not on the board: rows run from A to I"),
        ("E0", "'E0' is not on the board: row E runs from E1 to E9"),
        ("E05", "'E05' is not on the board: row E runs from E1 to E9"),
        ("E", "'E' is not a cell name"),
        ("5E", "'5E' is not a cell name"),
    ],
)
def test_invalid_cells_are_refused_with_the_row_range(text: str, message: str) -> None:
    with pytest.raises(hexes.InvalidCell) as error:
        hexes.parse_cell(text)
    assert message.replace("'", "") in str(error.value).replace("'", "")


def test_neighbours_follow_the_ruling() -> None:
    """“Cell (row r, diagonal d) neighbours (r, d+-1), (r+1, d), (r+1, d+1), (r-1, d),
    (r-1, d-1).” Checked against the formula for every cell."""
    for cell in range(hexes.SIZE):
        r, d = hexes.COORDINATES[cell]
        offsets = [(0, 1), (0, -1), (1, 0), (1, 1), (-1, 0), (-1, -1)]
        expected = {
            hexes.cell(r + dr, d + dd) for dr, dd in offsets if hexes.on_board(r + dr, d + dd)
        }
        assert set(hexes.NEIGHBOURS[cell]) == expected


def test_named_neighbourhoods() -> None:
    """Worked by hand from the ruling: E5 has six neighbours, the corner A1 three, A3 four."""
    names = lambda cell: sorted(hexes.CELL_NAMES[n] for n in hexes.NEIGHBOURS[cell])  # noqa: E731
    assert names(hexes.parse_cell("E5")) == ["D4", "D5", "E4", "E6", "F5", "F6"]
    assert names(hexes.parse_cell("A1")) == ["A2", "B1", "B2"]
    assert names(hexes.parse_cell("A3")) == ["A2", "A4", "B3", "B4"]
    assert names(hexes.parse_cell("I9")) == ["H8", "H9", "I8"]


@given(cells, st.integers(min_value=0, max_value=5))
def test_a_step_and_the_opposite_step_cancel(cell: int, direction: int) -> None:
    nxt = hexes.step(cell, direction)
    if nxt is not None:
        assert hexes.step(nxt, hexes.opposite(direction)) == cell
        assert hexes.direction_between(cell, nxt) == direction
        assert hexes.distance(cell, nxt) == 1


def test_lines_run_to_the_edge() -> None:
    """A straight line is a run of cells in one of the six directions."""
    e1 = hexes.parse_cell("E1")
    east = hexes.RAYS[e1][hexes.DIRECTIONS.index(hexes.EAST)]
    assert [hexes.CELL_NAMES[c] for c in east] == [f"E{d}" for d in range(2, 10)]
    a1 = hexes.parse_cell("A1")
    north_west = hexes.RAYS[a1][hexes.DIRECTIONS.index(hexes.NORTH_WEST)]
    assert [hexes.CELL_NAMES[c] for c in north_west] == ["B1", "C1", "D1", "E1"]
    assert hexes.line_between(a1, hexes.parse_cell("E1")) == (2, 4)
    assert hexes.line_between(a1, hexes.parse_cell("E2")) is None


@given(cells, cells)
def test_distance_is_a_metric_matching_lines(a: int, b: int) -> None:
    assert hexes.distance(a, b) == hexes.distance(b, a)
    assert (hexes.distance(a, b) == 0) == (a == b)
    line = hexes.line_between(a, b)
    if line is not None:
        assert line[1] == hexes.distance(a, b)


def test_reflection_matches_the_setup_ruling() -> None:
    """“Black is the point reflection (row r <-> 8-r, diagonal d <-> 10-d)”: A2 <-> I8,
    B1 <-> H9, C4 <-> G6, E5 stays."""
    pairs = {"A2": "I8", "B1": "H9", "C4": "G6", "E5": "E5", "A1": "I9", "B6": "H4"}
    for white, black in pairs.items():
        assert hexes.CELL_NAMES[hexes.reflect(hexes.parse_cell(white))] == black
    assert all(hexes.reflect(hexes.reflect(c)) == c for c in range(hexes.SIZE))


def test_columns_make_a_hexagon() -> None:
    """Drawn with A at the bottom, rows A and I span the same columns and E is widest."""
    by_row: dict[int, list[int]] = {}
    for cell in range(hexes.SIZE):
        by_row.setdefault(hexes.row_of(cell), []).append(hexes.column(cell))
    assert by_row[0] == by_row[8] == [2, 4, 6, 8, 10]
    assert by_row[4] == list(range(-2, 15, 2))
