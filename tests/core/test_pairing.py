"""Pairing rules of tournaments (docs/tournaments.md), against pairings worked out by hand."""

from __future__ import annotations

from itertools import combinations

from adjudicator.core.pairing import (
    Met,
    Pairing,
    meetings_of,
    round_robin,
    round_robin_rounds,
    swiss,
    tables,
)


def test_the_circle_method_for_four() -> None:
    """The last player, d, stays put; a b c turn one place a round: rings abc, bca, cab.
    Round 1: d-a (d first in odd rounds), b-c. Round 2: b-d, c-a. Round 3: d-c, a-b."""
    players = ["a", "b", "c", "d"]
    assert round_robin_rounds(4) == 3
    assert [round_robin(players, n) for n in (1, 2, 3)] == [
        [Pairing("d", "a"), Pairing("b", "c")],
        [Pairing("b", "d"), Pairing("c", "a")],
        [Pairing("d", "c"), Pairing("a", "b")],
    ]


def test_a_round_robin_of_five_meets_everybody_once_with_one_bye_each() -> None:
    players = list("abcde")
    rounds = [round_robin(players, n) for n in range(1, round_robin_rounds(5) + 1)]
    assert len(rounds) == 5
    met = [frozenset(p.players()) for r in rounds for p in r if not p.bye]
    assert sorted(map(sorted, met)) == sorted(map(sorted, map(set, combinations(players, 2))))
    byes = [p.first for r in rounds for p in r if p.bye]
    assert sorted(byes) == players
    for r in rounds:
        assert sorted(x for p in r for x in p.players()) == players


def test_monrad_first_round_pairs_neighbours_and_gives_the_last_the_bye() -> None:
    """Round 1, all on 0: ranked by seed; the lowest-ranked (i) sits out; then 1-2, 3-4..."""
    assert swiss(list("abcdefghi"), []) == [
        Pairing("a", "b"),
        Pairing("c", "d"),
        Pairing("e", "f"),
        Pairing("g", "h"),
        Pairing("i", None),
    ]


def _round(number: int, pairings: list[Pairing]) -> list[Met]:
    del number
    games: list[Met] = []
    for p in pairings:
        games.append(Met(p.first, p.second, 0))
        if p.second is not None:
            games.append(Met(p.second, p.first, 1))
    return games


def test_monrad_skips_a_repeat_and_the_bye_goes_to_one_without_one() -> None:
    """After round 1 (a-b, c-d, e-f, g-h, i bye) ranked i a c f d g h e b (see the Swiss test
    of tests/service/test_tournaments.py for the scores), round 2's ranking is
    a f g i c d b e h: h is the lowest without a bye. a-f; g-i; c-d met, so c takes b; d-e."""
    history = _round(1, swiss(list("abcdefghi"), []))
    ranked = list("afgicdbeh")
    pairs = swiss(ranked, history)
    assert [set(p.players()) for p in pairs] == [
        {"a", "f"},
        {"g", "i"},
        {"c", "b"},
        {"d", "e"},
        {"h"},
    ]


def test_monrad_backtracks_rather_than_repeat() -> None:
    """a b c d; a has met b and c, b has met d: a's first partner he has not met is d, which
    leaves b-c, not met either."""
    history = [
        Met("a", "b"),
        Met("b", "a"),
        Met("a", "c"),
        Met("c", "a"),
        Met("b", "d"),
        Met("d", "b"),
    ]
    assert {frozenset(p.players()) for p in swiss(list("abcd"), history)} == {
        frozenset("ad"),
        frozenset("bc"),
    }


def test_monrad_backtracking_undoes_the_top_choice() -> None:
    """a b c d: c met d. The top pair a-b would leave c-d, a repeat: backtrack to a-c, b-d."""
    history = [Met("c", "d"), Met("d", "c")]
    assert {frozenset(p.players()) for p in swiss(list("abcd"), history)} == {
        frozenset("ac"),
        frozenset("bd"),
    }


def test_a_repeat_only_when_nothing_else_is_possible() -> None:
    history = [Met("a", "b"), Met("b", "a")]
    assert [set(p.players()) for p in swiss(["a", "b"], history)] == [{"a", "b"}]


def test_sides_balance_the_first_seats() -> None:
    """a had the first seat twice, b once: b takes it. Equal counts: the one whose last game
    was in the second seat takes the first; equal histories: the higher-ranked."""
    history = [Met("a", "x", 0), Met("a", "y", 0), Met("b", "z", 0), Met("b", "w", 1)]
    assert swiss(["a", "b"], history) == [Pairing("b", "a")]
    history = [Met("a", "x", 0), Met("a", "y", 1), Met("b", "z", 1), Met("b", "w", 0)]
    assert swiss(["a", "b"], history) == [Pairing("a", "b")]
    assert swiss(["b", "a"], []) == [Pairing("b", "a")]


def test_tables_spread_the_meetings() -> None:
    """Nine players at tables of three. Round 1, nobody has met: every table ties at 0, so
    each player takes the first table with room: abc, def, ghi.
    Round 2: a -> T1; b has met a: T2; c met a and b: T3; d: T1 (a, not met); e: T1 has d
    (met), T2 has b (not met): T2; f: T3; g, h, i likewise: adg, beh, cfi, no meeting twice."""
    first = tables(list("abcdefghi"), size=3, meetings={})
    assert first == [list("abc"), list("def"), list("ghi")]
    second = tables(list("abcdefghi"), size=3, meetings=meetings_of(first))
    assert second == [list("adg"), list("beh"), list("cfi")]


def test_tables_are_as_even_as_may_be() -> None:
    """Seven at tables of at most four: two tables, of four and three."""
    seated = tables(list("abcdefg"), size=4, meetings={})
    assert [len(t) for t in seated] == [4, 3]


def test_no_table_is_left_short() -> None:
    """Seven at tables of three for a game of three or more: three tables would leave two of
    them with two players, so there are two, of four and three."""
    seated = tables(list("abcdefg"), size=3, meetings={}, minimum=3)
    assert [len(t) for t in seated] == [4, 3]
