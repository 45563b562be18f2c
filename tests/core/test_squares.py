"""adjudicator.core.squares: naming squares a1.. and finding their neighbours."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.core.squares import (
    DIAGONAL,
    EAST,
    NORTH,
    NORTH_EAST,
    ORTHOGONAL,
    SOUTH,
    SOUTH_WEST,
    WEST,
    InvalidSquare,
    SquareGrid,
)

FIVE = SquareGrid(files=5, ranks=5)
grids = st.builds(SquareGrid, files=st.integers(1, 26), ranks=st.integers(1, 40))


def test_a1_is_square_zero_and_files_run_left_to_right() -> None:
    assert FIVE.parse_square("a1") == 0
    assert FIVE.parse_square("e1") == 4
    assert FIVE.parse_square("a2") == 5
    assert FIVE.parse_square("e5") == 24
    assert FIVE.square_name(12) == "c3"


def test_names_are_case_insensitive_and_spaces_are_ignored() -> None:
    assert FIVE.parse_square(" C3 ") == FIVE.parse_square("c3") == 12


@pytest.mark.parametrize("text", ["f1", "a0", "a6", "a01", "", "1a", "aa", "c 3", "c3c", "é1"])
def test_names_off_the_board_or_malformed_are_refused(text: str) -> None:
    with pytest.raises(InvalidSquare, match="a1 to e5"):
        FIVE.parse_square(text)


def test_square_name_refuses_numbers_off_the_grid() -> None:
    with pytest.raises(ValueError, match="no square"):
        FIVE.square_name(25)


@given(grids, st.data())
def test_parse_and_name_round_trip(grid: SquareGrid, data: st.DataObject) -> None:
    square = data.draw(st.integers(0, grid.size - 1))
    assert grid.parse_square(grid.square_name(square)) == square
    assert grid.parse_square(grid.square_name(square).upper()) == square


@given(grids)
def test_every_name_is_distinct(grid: SquareGrid) -> None:
    names = [grid.square_name(sq) for sq in grid.squares()]
    assert len(set(names)) == grid.size


def test_orthogonal_neighbours_of_corner_edge_and_centre() -> None:
    names = {
        name: sorted(
            FIVE.square_name(n) for n in FIVE.orthogonal_neighbours[FIVE.parse_square(name)]
        )
        for name in ("a1", "c1", "c3", "e5")
    }
    assert names == {
        "a1": ["a2", "b1"],
        "c1": ["b1", "c2", "d1"],
        "c3": ["b3", "c2", "c4", "d3"],
        "e5": ["d5", "e4"],
    }


def test_all_neighbours_include_diagonals() -> None:
    assert len(FIVE.all_neighbours[FIVE.parse_square("a1")]) == 3
    assert len(FIVE.all_neighbours[FIVE.parse_square("c3")]) == 8
    assert len(FIVE.all_neighbours[FIVE.parse_square("c5")]) == 5


def test_steps_and_directions() -> None:
    c3 = FIVE.parse_square("c3")
    assert FIVE.step(c3, NORTH) == FIVE.parse_square("c4")
    assert FIVE.step(c3, EAST) == FIVE.parse_square("d3")
    assert FIVE.step(c3, SOUTH_WEST) == FIVE.parse_square("b2")
    assert FIVE.step(FIVE.parse_square("a1"), WEST) is None
    assert FIVE.step(FIVE.parse_square("e5"), NORTH_EAST) is None
    assert FIVE.direction_between(c3, FIVE.parse_square("c2")) == SOUTH
    assert FIVE.direction_between(c3, FIVE.parse_square("d4")) == NORTH_EAST
    assert FIVE.direction_between(c3, FIVE.parse_square("c5")) is None
    assert FIVE.direction_between(c3, c3) is None


def test_no_wrap_around_between_the_e_and_a_files() -> None:
    e1, a2 = FIVE.parse_square("e1"), FIVE.parse_square("a2")
    assert e1 + 1 == a2
    assert a2 not in FIVE.orthogonal_neighbours[e1]
    assert FIVE.step(e1, EAST) is None


@given(grids)
def test_neighbourhood_is_symmetric(grid: SquareGrid) -> None:
    for square in grid.squares():
        for other in grid.all_neighbours[square]:
            assert square in grid.all_neighbours[other]
            assert grid.direction_between(square, other) in ORTHOGONAL + DIAGONAL


def test_grids_need_one_to_26_files() -> None:
    with pytest.raises(ValueError, match="no grid"):
        SquareGrid(files=27, ranks=5)
    with pytest.raises(ValueError, match="no grid"):
        SquareGrid(files=5, ranks=0)


@pytest.mark.parametrize("side", [1, 2, 5, 8])
def test_a_square_grid_has_8_symmetries_that_keep_every_neighbourhood(side: int) -> None:
    grid = SquareGrid(files=side, ranks=side)
    maps = grid.symmetries
    assert len(maps) == 8
    assert maps[0] == tuple(grid.squares())
    if side > 1:
        assert len(set(maps)) == 8  # all different
    for image in maps:
        assert sorted(image) == list(grid.squares())  # a bijection
        for square in grid.squares():  # orthogonal neighbours stay orthogonal neighbours
            assert {image[n] for n in grid.orthogonal_neighbours[square]} == set(
                grid.orthogonal_neighbours[image[square]]
            )


def test_only_a_square_grid_has_8_symmetries() -> None:
    with pytest.raises(ValueError, match="square grid"):
        _ = SquareGrid(files=5, ranks=4).symmetries
