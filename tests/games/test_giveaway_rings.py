"""Giveaway's ring finder (rules 5 and 6): checked against networkx, and kept from exploding.

docs/rules/giveaway.md: "A co-operation ring is a directed cycle of length >= 2 whose edges all carry the
same amount k >= 1, such that no other gift (of any amount, in either direction) exists between
any two members of the cycle: a chordless cycle of equal-amount gifts."
"""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.core.errors import AdjudicationLimitError
from adjudicator.games.giveaway.rings import (
    BROKEN_LIST_LIMIT,
    Ring,
    find_broken_cycles,
    find_rings,
)

Gifts = dict[tuple[str, str], int]


def reference(gifts: Gifts) -> tuple[tuple[Ring, ...], set[tuple[tuple[str, ...], int]]]:
    """The ruling word for word: every equal-amount cycle (networkx), split by its chords."""
    rings, broken = [], set()
    for amount in set(gifts.values()):
        graph = nx.DiGraph([pair for pair, a in gifts.items() if a == amount])
        for cycle in nx.simple_cycles(graph):
            first = cycle.index(min(cycle))
            members = tuple(cycle[first:] + cycle[:first])
            own = set(zip(members, members[1:] + members[:1], strict=True))
            chords = [p for p in gifts if set(p) <= set(members) and p not in own]
            if chords:
                broken.add((members, amount))
            else:
                rings.append(Ring(members, amount))
    return tuple(sorted(rings)), broken


@st.composite
def gift_graphs(draw: st.DrawFn) -> Gifts:
    """Small random gift graphs, dense enough to have chords, few amounts to have rings."""
    n = draw(st.integers(min_value=2, max_value=8))
    names = [f"p{i}" for i in range(n)]
    pairs = [(u, v) for u in names for v in names if u != v]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    return {pair: draw(st.sampled_from([1, 1, 1, 2, 3])) for pair in chosen}


@st.composite
def sparse_gift_graphs(draw: st.DrawFn) -> Gifts:
    """Bigger graphs shaped like real play: each player gives to 1 to 3 others."""
    n = draw(st.integers(min_value=3, max_value=30))
    names = [f"p{i:02d}" for i in range(n)]
    gifts: Gifts = {}
    for giver in names:
        others = [p for p in names if p != giver]
        for recipient in draw(st.lists(st.sampled_from(others), min_size=1, max_size=3)):
            gifts[giver, recipient] = draw(st.sampled_from([1, 1, 2]))
    return gifts


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.one_of(gift_graphs(), sparse_gift_graphs()))
def test_rings_and_broken_cycles_match_networkx(gifts: Gifts) -> None:
    rings, broken = reference(gifts)
    assert find_rings(gifts) == rings
    found = find_broken_cycles(gifts, limit=10**6)
    assert found.total == len(broken)
    assert {(c.members, c.amount) for c in found.cycles} == broken


@settings(max_examples=200, deadline=None)
@given(gift_graphs())
def test_rings_are_found_in_networkx_chordless_cycles_of_the_whole_graph(gifts: Gifts) -> None:
    """A second view: a ring is a chordless cycle of the whole gift graph with equal amounts."""
    expected = set()
    for cycle in nx.chordless_cycles(nx.DiGraph(list(gifts))):
        if len(cycle) < 2:
            continue
        first = cycle.index(min(cycle))
        members = tuple(cycle[first:] + cycle[:first])
        amounts = {gifts[p] for p in zip(members, members[1:] + members[:1], strict=True)}
        if len(amounts) == 1:
            expected.add(Ring(members, amounts.pop()))
    assert set(find_rings(gifts)) == expected


def test_a_2_ring_is_never_broken() -> None:
    """Gifts to one recipient are added together, so the two gifts of a 2-cycle are the only
    gifts between its members."""
    gifts = {("a", "b"): 2, ("b", "a"): 2, ("b", "c"): 2, ("c", "a"): 2, ("a", "c"): 1}
    assert find_rings(gifts) == (Ring(("a", "b"), 2),)


def diamond_chain(n: int) -> Gifts:
    gifts: Gifts = {}
    for i in range(n):
        x, a, b, y = f"x{i:03d}", f"a{i:03d}", f"b{i:03d}", f"x{(i + 1) % n:03d}"
        gifts |= {(x, a): 1, (x, b): 1, (a, y): 1, (b, y): 1}
    return gifts


def test_a_chain_of_diamonds_has_two_to_the_n_rings() -> None:
    """Each ring passes every x and one of a/b per diamond: 2^8 rings of 16 players."""
    rings = find_rings(diamond_chain(8))
    assert len(rings) == 2**8
    assert all(r.size == 16 and r.amount == 1 for r in rings)


def test_an_astronomical_number_of_rings_stops_at_the_work_budget() -> None:
    """2^60 rings: the search gives up with a message for the game master."""
    with pytest.raises(AdjudicationLimitError) as error:
        find_rings(diamond_chain(60))
    message = str(error.value)
    assert "exactly 1 point (" in message
    assert "180 players" in message
    assert "a000, a001" in message
    assert "chordless paths" in message


def test_the_budget_is_counted_in_steps_not_time() -> None:
    """The same graph stops at the same point whatever the machine: the error repeats."""
    messages = set()
    for _ in range(2):
        with pytest.raises(AdjudicationLimitError) as error:
            find_rings(diamond_chain(12), budget=20_000)
        messages.add(str(error.value))
    assert len(messages) == 1
    assert len(find_rings(diamond_chain(12), budget=10**7)) == 2**12


def test_broken_cycles_of_a_dense_clique_are_not_listed_but_rings_are_found() -> None:
    """Everyone gives 1 to everyone of 25: 300 2-rings, and more broken cycles than can be
    searched; the listing gives up (total None) instead of hanging."""
    names = [f"c{i:02d}" for i in range(25)]
    gifts = {(u, v): 1 for u in names for v in names if u != v}
    assert len(find_rings(gifts)) == 300
    broken = find_broken_cycles(gifts)
    assert broken.total is None
    assert broken.cycles == ()


def test_broken_cycles_are_listed_shortest_first_up_to_the_limit() -> None:
    """In a clique of 6 with equal gifts every cycle of 3 or more is broken: 40 triangles,
    90 cycles of 4, 144 of 5, 120 of 6 (sum over k of C(6, k) (k - 1)!)."""
    names = [f"c{i}" for i in range(6)]
    gifts = {(u, v): 1 for u in names for v in names if u != v}
    broken = find_broken_cycles(gifts)
    assert broken.total == 40 + 90 + 144 + 120
    assert len(broken.cycles) == BROKEN_LIST_LIMIT
    sizes = [len(c.members) for c in broken.cycles]
    assert sizes == [3] * 40 + [4] * 60
    assert broken.cycles[0].members == ("c0", "c1", "c2")
