"""Standings and tie-breaks of tournaments (docs/tournaments.md), against values worked out by
hand."""

from __future__ import annotations

from fractions import Fraction

from adjudicator.core.standings import (
    Result,
    cross_table,
    figure,
    placed_points,
    placing_points,
    standings,
    two_player_points,
)

F = Fraction


def _match(number: int, a: str, b: str, a_points: int) -> list[Result]:
    """A pairing played on both sides: ``a`` won ``a_points`` of its two games."""
    games = []
    for game in range(2):
        won = game < a_points
        drew = False
        winners = (a,) if won else (b,)
        games.append(Result(number, two_player_points([a, b], winners, draw=drew), winners=winners))
    return games


def test_round_robin_of_four_on_both_sides() -> None:
    """Match points out of 2. Round 1: d-a 2-0, b-c 1-1. Round 2: b-d 1-1, c-a 0-2.
    Round 3: d-c 1-1, a-b 1-1.
    Scores: a 0+2+1 = 3, b 1+1+1 = 3, c 1+0+1 = 2, d 2+1+1 = 4 (12 points, 12 games).
    Buchholz: a d4+c2+b3 = 9, b c2+d4+a3 = 9, c b3+a3+d4 = 10, d a3+b3+c2 = 8.
    Sonneborn-Berger: a 0*4+2*2+1*3 = 7, b 1*2+1*4+1*3 = 9, c 1*3+0*3+1*4 = 7,
    d 2*3+1*3+1*2 = 11.
    Order: d 4; a and b on 3 and Buchholz 9, b ahead on Sonneborn-Berger; c."""
    results = (
        _match(1, "d", "a", 2)
        + _match(1, "b", "c", 1)
        + _match(2, "b", "d", 1)
        + _match(2, "c", "a", 0)
        + _match(3, "d", "c", 1)
        + _match(3, "a", "b", 1)
    )
    table = standings(list("abcd"), results)
    assert [(s.rank, s.player, s.score, s.buchholz, s.sonneborn_berger) for s in table] == [
        (1, "d", 4, 8, 11),
        (2, "b", 3, 9, 9),
        (3, "a", 3, 9, 7),
        (4, "c", 2, 10, 7),
    ]
    assert cross_table(results)["a", "d"] == [0, 0]


def swiss_of_nine() -> list[Result]:
    """The Swiss tournament of nine (see the test below), on both sides, byes worth 2."""
    bye = {"i": 1, "h": 2, "b": 3}
    results = [Result(r, {p: F(2)}, bye=True) for p, r in bye.items()]
    for number, a, b, points in [
        (1, "a", "b", 2), (1, "c", "d", 1), (1, "e", "f", 0), (1, "g", "h", 2),
        (2, "a", "f", 1), (2, "g", "i", 0), (2, "c", "b", 2), (2, "d", "e", 1),
        (3, "i", "a", 1), (3, "c", "f", 2), (3, "d", "g", 0), (3, "h", "e", 2),
    ]:  # fmt: skip
        results += _match(number, a, b, points)
    return results


def test_swiss_of_nine_over_three_rounds() -> None:
    """Final scores: a 2+1+1 = 4, b 0+0+2(bye) = 2, c 1+2+2 = 5, d 1+1+0 = 2, e 0+1+0 = 1,
    f 2+1+0 = 3, g 2+0+2 = 4, h 0+2(bye)+2 = 4, i 2(bye)+2+1 = 5: 30 = 24 games + 3 byes of 2.
    Buchholz (opponents' final scores; a bye adds nothing):
    a b2+f3+i5 = 10, b a4+c5 = 9, c d2+b2+f3 = 7, d c5+e1+g4 = 10, e f3+d2+h4 = 9,
    f e1+a4+c5 = 10, g h4+i5+d2 = 11, h g4+e1 = 5, i g4+a4 = 8.
    Sonneborn-Berger (points scored against each times his score):
    a 2*2+1*3+1*5 = 12, b 0, c 1*2+2*2+2*3 = 12, d 1*5+1*1+0 = 6, e 0+1*2+0 = 2,
    f 2*1+1*4+0 = 6, g 2*4+0+2*2 = 12, h 0+2*1 = 2, i 2*4+1*4 = 12.
    Order: i and c on 5, i ahead on Buchholz (8 to 7); g, a, h on 4 (Buchholz 11, 10, 5);
    f 3; d and b on 2 (Buchholz 10, 9); e 1."""
    table = standings(list("abcdefghi"), swiss_of_nine())
    assert [(s.player, s.score, s.buchholz, s.sonneborn_berger) for s in table] == [
        ("i", 5, 8, 12),
        ("c", 5, 7, 12),
        ("g", 4, 11, 12),
        ("a", 4, 10, 12),
        ("h", 4, 5, 2),
        ("f", 3, 10, 6),
        ("d", 2, 10, 6),
        ("b", 2, 9, 0),
        ("e", 1, 9, 2),
    ]
    assert [s.rank for s in table] == list(range(1, 10))


def test_equal_on_everything_shares_a_rank() -> None:
    results = _match(1, "a", "b", 1)
    table = standings(["a", "b"], results)
    assert [(s.rank, s.player) for s in table] == [(1, "a"), (1, "b")]


def test_a_draw_is_half_each() -> None:
    assert two_player_points(["a", "b"], [], draw=True) == {"a": F(1, 2), "b": F(1, 2)}


def test_placing_points() -> None:
    """Four players: places worth 3 2 1 0. One winner: 3, the others share 2+1+0 = 1 each.
    Two winners share 3+2: 2½ each, the others 1+0: ½ each. A draw: 3+2+1+0 over 4: 1½."""
    assert placing_points(list("abcd"), ["a"], draw=False) == {"a": 3, "b": 1, "c": 1, "d": 1}
    assert placing_points(list("abcd"), ["a", "c"], draw=False) == {
        "a": F(5, 2),
        "b": F(1, 2),
        "c": F(5, 2),
        "d": F(1, 2),
    }
    assert placing_points(list("abcd"), [], draw=True) == dict.fromkeys("abcd", F(3, 2))


def test_placed_points_share_the_places_of_a_tie() -> None:
    """Finer placings of four (docs/tournaments.md): a first 3; b and c share places 2 and 3,
    (2 + 1) / 2 = 1½ each; d 0. Five with three tied after the winner: (3 + 2 + 1) / 3 = 2
    each, the last 0. Everyone tied: the mean of every place."""
    assert placed_points([["a"], ["b", "c"], ["d"]]) == {"a": 3, "b": F(3, 2), "c": F(3, 2), "d": 0}
    assert placed_points([["a"], ["b", "c", "d"], ["e"]]) == {
        "a": 4,
        "b": 2,
        "c": 2,
        "d": 2,
        "e": 0,
    }
    assert placed_points([list("abcd")]) == dict.fromkeys("abcd", F(3, 2))


def test_figures() -> None:
    assert [figure(F(n, 2)) for n in range(4)] == ["0", "½", "1", "1½"]
