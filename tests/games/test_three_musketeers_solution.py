"""The complete solution of Three Musketeers (docs/stand-ins.md): its layout, its values against
a plain minimax written in the stand-in tests (only the game's public functions), the start's
value against the published result (the Cardinal wins, J. Laire 2009; 17 Musketeer moves, 33
plies), and the stand-in and hints that read it. The table keeps the exact value in its first
layers (the opening) and who wins after them: where it keeps only who wins, that is what is
checked, and the exact value wherever one is known."""

from __future__ import annotations

import bisect
import random
from itertools import combinations
from math import comb

import pytest
from tm_minimax import START, as_value, minimax, random_positions

from adjudicator.base.config import Config
from adjudicator.core.layered import colex_rank
from adjudicator.games.three_musketeers import (
    CARDINAL,
    MUSKETEERS,
    RULES,
    legal_moves,
    outcome,
    solution,
)
from adjudicator.games.three_musketeers import play as play_move
from adjudicator.games.three_musketeers import standin as tm
from adjudicator.games.three_musketeers.board import State
from adjudicator.games.three_musketeers.hints import decisive_move
from adjudicator.games.three_musketeers.kind import KIND
from adjudicator.service import solutions
from adjudicator.solving.layered import Array, build, stored


def test_the_layout_gives_every_set_of_empty_squares_its_own_place() -> None:
    assert solution.layer_offsets()[-1] == solution.SIZE
    # The opening's layers a byte a value, the others a bit: within three times the one-bit
    # floor of the 526,871,061 positions that exist (docs/stand-ins.md).
    assert solution.SIZE <= 3 * 526_871_061 // 8
    for captures in (0, 1, 2, 3):
        ranks = {colex_rank(s) for s in combinations(range(solution.FREE), captures)}
        assert ranks == set(range(comb(solution.FREE, captures)))
    placements = solution.classes()
    # Each class holds the placements of one symmetry orbit: 2,300 placements in all.
    sizes = [placements.class_of.count(k) for k in range(placements.count)]
    assert sum(sizes) == comb(25, 3)
    assert all(size in (1, 2, 4, 8) for size in sizes)


class _Layers:
    """The late layers of the table, read by a global index like the file."""

    def __init__(self, layers: dict[int, bytes]) -> None:
        self.layers = layers
        self.offsets = solution.layer_offsets()

    def __getitem__(self, index: int) -> int:
        captures = bisect.bisect_right(self.offsets, index) - 1
        return self.layers[captures][index - self.offsets[captures]]

    def __len__(self) -> int:
        return solution.SIZE


def _table_value(table: solution.Table, state: State) -> int:
    return tm.value_in(table, tm.position_of(state))


def _agrees(value: int, expected: int) -> bool:
    """The same winner, and the same plies wherever both know them."""
    known = tm.plies_known(value) and tm.plies_known(expected)
    return (value > 0) == (expected > 0) and (value == expected or not known)


@pytest.mark.slow
def test_the_last_layers_agree_with_the_plainminimax() -> None:
    """Built from the end down to 15 captures (7 men): every value the solver computes, and
    the winner the table keeps, of random positions, either side to move, is the minimax's."""
    exact: dict[int, bytes] = {}
    kept: dict[int, bytes] = {}
    game = solution.layered_game()

    def keep(captures: int, layer: Array) -> None:
        exact[captures] = layer.tobytes()
        kept[captures] = b"".join(stored(game, captures, layer))

    build(game, keep, down_to=15)
    table = solution.Table(_Layers(kept))
    checked = 0
    for men in (3, 5, 7):
        for state in random_positions(men, 25, seed=men + 100):
            if state.turn == MUSKETEERS and state.cells.count("C") == 7:
                continue  # one ply further: layer 14, not built here
            expected = as_value(*minimax(state.cells, state.turn))
            value = _table_value(table, state)
            assert (value > 0) == (expected > 0), (state.cells, state.turn)
            checked += 1
            if state.turn == CARDINAL:  # the solver's exact value, before it became a bit
                m, c, _ = tm.position_of(state)
                empty = ((1 << 25) - 1) & ~(m | c)
                captures, index = solution.entry_of(m, empty)
                won, plies = solution.decode(exact[captures][index])
                assert as_value(won, plies) == expected, (state.cells, state.turn)
    assert checked > 50


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> solution.Table:
    """The whole table, made once for the machine (a few minutes) and read from its file; in
    a folder of this run if the machine's cannot be written."""
    try:
        assert solutions.make(Config().solutions_path, KIND)
    except OSError:
        assert solutions.make(tmp_path_factory.mktemp("solutions"), KIND)
    return tm.SOLUTION[0]


def test_the_start_is_a_cardinal_win_in_33_plies(solved: solution.Table) -> None:
    """J. Laire (2009): with perfect play the Cardinal's men win; a perfect game lasts 17
    Musketeer moves, 33 plies (the Musketeers move first)."""
    assert _table_value(solved, START) == 33 - tm.WIN  # the Musketeers, to move, lose in 33


@pytest.mark.slow
def test_the_whole_table_agrees_with_the_plainminimax(solved: solution.Table) -> None:
    for men in (6, 8):
        for state in random_positions(men, 20, seed=men):
            expected = as_value(*minimax(state.cells, state.turn))
            assert _agrees(_table_value(solved, state), expected), (state.cells, state.turn)


def test_positions_the_symmetries_map_onto_each_other_are_worth_the_same(
    solved: solution.Table,
) -> None:
    rng = random.Random(3)
    for men in (10, 14, 18):
        for state in random_positions(men, 10, seed=rng.randrange(10**6)):
            worth = _table_value(solved, state)
            for image in solution.SYMMETRIES:
                cells = [""] * 25
                for square, piece in enumerate(state.cells):
                    cells[image[square]] = piece
                turned = State(state.players, "".join(cells), state.turn)
                assert _table_value(solved, turned) == worth


def test_perfect_play_from_the_start_keeps_the_cardinals_win_in_33_plies(
    solved: solution.Table,
) -> None:
    """The stand-in against itself: every move is legal and keeps its position's value, so the
    Cardinal wins; while the table keeps how soon (the opening), the winner hurries and the
    loser delays, so the end stays exactly 33 plies from the start."""
    rng = random.Random(5)
    state, plies = START, 0
    while outcome(state) is None:
        worth = _table_value(solved, state)
        choice = tm.choose(state, rng)
        assert choice.exact
        assert _agrees(choice.value, worth)
        if tm.plies_known(worth):
            assert tm.WIN - abs(worth) == 33 - plies
        assert RULES.check(state, state.player_of(state.turn), [str(choice.move)]).ok
        state, plies = play_move(state, choice.move), plies + 1
    ended = outcome(state)
    assert ended is not None
    assert ended.winners == (START.players[1],)
    assert plies <= tm.MOST_PLIES


@pytest.mark.parametrize("side", [MUSKETEERS, CARDINAL])
def test_the_stand_in_never_gives_away_a_won_position(side: str, solved: solution.Table) -> None:
    """Against random moves, every move of the stand-in keeps the value of its position: a
    win stays a win (no further away where the table says how far), a loss is put off as long
    as it can be where the table says how long."""
    rng = random.Random(side)
    for _game in range(6):
        state = START
        while outcome(state) is None:
            if state.turn == side:
                worth = _table_value(solved, state)
                choice = tm.choose(state, rng)
                assert _agrees(choice.value, worth)
                state = play_move(state, choice.move)
            else:
                state = play_move(state, rng.choice(legal_moves(state)))
        if side == CARDINAL:  # the Cardinal wins from the start whatever the Musketeers do
            ended = outcome(state)
            assert ended is not None
            assert ended.winners == (START.players[1],)


def test_the_hint_names_the_move_that_threw_the_win_away(solved: solution.Table) -> None:
    """The Cardinal wins from the start; random Cardinal moves sooner or later give the win
    away. The decisive move is the last that turned a won position into a lost one."""
    rng = random.Random(11)
    for _ in range(50):
        state, moves = START, []
        while outcome(state) is None:
            move = rng.choice(legal_moves(state))
            moves.append(move)
            state = play_move(state, move)
        ended = outcome(state)
        if ended is not None and ended.winners == (START.players[0],):
            break  # the Musketeers won: somebody threw the Cardinal's win away
    else:
        pytest.fail("no random game was won by the Musketeers")
    found = decisive_move(START, moves)
    assert found is not None
    before = START
    for move in moves[: found.number - 1]:
        before = play_move(before, move)
    mover_worth = _table_value(solved, before)
    after_worth = _table_value(solved, play_move(before, found.played))
    assert mover_worth > 0 > -after_worth  # a win before, a loss after
    kept = _table_value(solved, play_move(before, found.keeping))
    assert -kept > 0  # the better move keeps the win
    state = before
    for number, move in enumerate(moves[found.number - 1 :], start=found.number):
        after = play_move(state, move)
        if number > found.number and outcome(after) is None:  # no later move threw a win away
            assert not _table_value(solved, state) > 0 > -_table_value(solved, after)
        state = after
