"""The Starship Combat stand-in plays an equilibrium of the whole game (docs/rules/
starship-combat.md), checked against an independent linear-program solver (SciPy's HiGHS) and
against every pure strategy of the other captain."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from adjudicator.core.game import Setup
from adjudicator.games.starship_combat import RULES, Choice, StarshipState
from adjudicator.games.starship_combat import standin as sc

linprog = pytest.importorskip("scipy.optimize").linprog

START = sc.position(RULES.start(["kirk", "kang"], options={}, setup=Setup()), 0)


def _result(own_m: int, other_m: int, mine: Choice, theirs: Choice) -> float | None:
    """Our own reading of the End rules for one pair of choices: a value, or None if the game
    goes on."""
    own_left, other_left = own_m - mine.fire, other_m - theirs.fire
    destroyed_me, destroyed_them = theirs.fire and not mine.shield, mine.fire and not theirs.shield
    if destroyed_me or destroyed_them:
        return float(destroyed_them) - float(destroyed_me)
    if own_left == 0 and other_left == 0:
        return 0.0
    if own_left == 0:
        return -1.0
    if other_left == 0:
        return 1.0
    return None


def _lp_value(matrix: list[list[float]]) -> float:
    """The value of a matrix game for the row player, by SciPy: maximise v subject to
    sum_i x_i a_ij >= v for every column, x a distribution."""
    rows, cols = len(matrix), len(matrix[0])
    cost = [0.0] * rows + [-1.0]
    upper = [[-matrix[i][j] for i in range(rows)] + [1.0] for j in range(cols)]
    result = linprog(
        cost,
        A_ub=upper,
        b_ub=[0.0] * cols,
        A_eq=[[1.0] * rows + [0.0]],
        b_eq=[1.0],
        bounds=[(0, None)] * rows + [(None, None)],
        method="highs",
    )
    assert result.success
    return float(-result.fun)


def _independent_values(limit: int) -> dict[tuple[int, int, int, int, int], float]:
    """Backward induction over every (missiles, power, rounds left) with at most 3 missiles
    and 6 power, uncapped, each round solved by SciPy."""
    choices = [Choice(f, s) for f in (False, True) for s in (False, True)]
    values: dict[tuple[int, int, int, int, int], float] = {}
    for left in range(1, limit + 1):
        for om in range(1, 4):
            for xm in range(1, 4):
                for op in range(7):
                    for xp in range(7):
                        own = [c for c in choices if (om or not c.fire) and (op or not c.shield)]
                        other = [c for c in choices if (xm or not c.fire) and (xp or not c.shield)]
                        matrix = []
                        for a in own:
                            row = []
                            for b in other:
                                ended = _result(om, xm, a, b)
                                if ended is None:
                                    nxt = (om - a.fire, xm - b.fire, op - a.shield, xp - b.shield)
                                    ended = values[(*nxt, left - 1)] if left > 1 else 0.0
                                row.append(ended)
                            matrix.append(row)
                        values[(om, xm, op, xp, left)] = _lp_value(matrix)
    return values


def test_the_start_is_worth_exactly_nothing_to_either_captain() -> None:
    """The game is symmetric: neither captain can expect more than the other."""
    assert sc.solve(START).value == 0
    assert isinstance(sc.solve(START).value, Fraction)


def test_round_one_mixes_shield_fire_shield_and_nothing_never_fire_alone() -> None:
    solution = sc.solve(START)
    mix = {
        RULES.format_order(a): float(w) for a, w in zip(solution.actions, solution.mix, strict=True)
    }
    assert mix["FIRE"] == 0
    assert mix["SHIELD"] == pytest.approx(0.618, abs=0.001)
    assert mix["FIRE SHIELD"] == pytest.approx(0.236, abs=0.001)
    assert mix["NOTHING"] == pytest.approx(0.146, abs=0.001)
    assert sum(solution.mix) == 1


@pytest.mark.slow
def test_an_independent_solver_agrees_on_every_position_of_the_first_ten_rounds_left() -> None:
    expected = _independent_values(10)
    for (om, xm, op, xp, left), value in expected.items():
        ours = sc.solve(
            sc.position(StarshipState(("a", "b"), (om, xm), (op, xp), max_rounds=left), 0)
        )
        assert float(ours.value) == pytest.approx(value, abs=1e-7), (om, xm, op, xp, left)


@pytest.fixture(scope="module")
def built() -> dict[sc.Position, sc.Solution]:
    """Every position the standard start leads to, built from nothing (no shipped table)."""
    sc.SOLVED.clear()
    sc.solve(START, shipped=False)
    return dict(sc.SOLVED)


@pytest.mark.slow
def test_the_shipped_table_holds_the_values_built_from_nothing(
    built: dict[sc.Position, sc.Solution],
) -> None:
    """The table that ships with the package (so that the first move needs no build) is the
    build's, position for position; regenerate it with bench/starship_table.py."""
    assert sc.shipped_values() == {pos: solution.value for pos, solution in built.items()}
    assert sc.parse_table(sc.format_table(sc.shipped_values())) == sc.shipped_values()


def test_a_move_from_the_shipped_table_is_the_move_built_from_nothing(
    built: dict[sc.Position, sc.Solution],
) -> None:
    """With the table, a position is solved from its own round alone, to the same mixes."""
    sc.SOLVED.clear()
    assert sc.solve(START) == built[START]
    assert len(sc.SOLVED) == 1
    middle = (2, 1, 3, 4, 12)
    assert sc.solve(middle) == built[middle]


def test_no_pure_strategy_of_the_other_captain_beats_the_equilibrium(
    built: dict[sc.Position, sc.Solution],
) -> None:
    """Exact expected payoff of every pure reply to the stand-in's mix, in every position the
    start can lead to: none brings the stand-in below the position's value. So no strategy of
    the other captain (a pure one chosen round by round) beats it in expectation."""
    for pos, solution in built.items():
        for j, reply in enumerate(solution.replies):
            expected = Fraction(0)
            for mine, weight in zip(solution.actions, solution.mix, strict=True):
                result = sc.outcome_value(pos, mine, reply)
                after = built[result].value if isinstance(result, tuple) else result
                expected += weight * after
            # The values kept are rounded (sc.PRECISION): allow that rounding, no more.
            assert expected >= solution.value - Fraction(1, sc.PRECISION), (pos, reply, j)
        assert all(w >= 0 for w in solution.mix)
        assert sum(solution.mix) == 1


@pytest.mark.slow
def test_the_whole_game_best_reply_to_the_stand_in_gains_nothing() -> None:
    """Backward induction of the other captain's best reply to the stand-in's behaviour over
    the whole game: from the start he can expect at best 0 (the stand-in at least 0)."""
    best: dict[tuple[int, int, int, int, int], Fraction] = {}

    def worst_for_us(pos: tuple[int, int, int, int, int]) -> Fraction:
        if pos not in best:
            solution = sc.solve(pos)
            replies = []
            for reply in solution.replies:
                total = Fraction(0)
                for mine, weight in zip(solution.actions, solution.mix, strict=True):
                    if weight:
                        result = sc.outcome_value(pos, mine, reply)
                        total += weight * (
                            worst_for_us(result) if isinstance(result, tuple) else result
                        )
                replies.append(total)
            best[pos] = min(replies)
        return best[pos]

    assert float(worst_for_us(START)) == pytest.approx(0, abs=1e-9)
    assert worst_for_us(START) >= -Fraction(30, sc.PRECISION)


def test_the_stand_ins_orders_are_legal_and_follow_the_mix() -> None:
    rng = random.Random(15)
    state = RULES.start(["kirk", "kang"], options={}, setup=Setup())
    counts: dict[str, int] = {}
    for _ in range(2000):
        (line,) = sc.stand_in(state, "kirk", rng)
        assert RULES.check(state, "kirk", [line]).ok
        counts[line] = counts.get(line, 0) + 1
    assert "FIRE" not in counts
    assert 1150 < counts["SHIELD"] < 1320  # 61.8 % of 2000 is 1236


def test_a_ship_without_power_or_missiles_is_never_ordered_what_it_cannot_do() -> None:
    rng = random.Random(3)
    for missiles, power in ((1, 0), (0, 2), (0, 0), (2, 0)):
        state = StarshipState(("kirk", "kang"), (missiles, 2), (power, 1))
        for _ in range(50):
            lines = sc.stand_in(state, "kirk", rng)
            assert RULES.check(state, "kirk", lines).ok, (missiles, power, lines)
