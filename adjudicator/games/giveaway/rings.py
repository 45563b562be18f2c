"""Rules 5 and 6 of Giveaway: co-operation rings and the equal-amount cycles rule 6 broke.

docs/rules/giveaway.md: "A co-operation ring is a directed cycle of length >= 2 whose edges all
carry the
same amount k >= 1, such that no other gift (of any amount, in either direction) exists between
any two members of the cycle: a chordless cycle of equal-amount gifts."

The number of such cycles can be astronomical (a chain of diamond shapes has 2^n of them), so
both searches count their work in steps (no clock: the same round always does the same work)
and stop at a fixed budget. The ring search then raises :class:`AdjudicationLimitError`, since a
round cannot be scored without all its rings; the broken-cycle listing, which is only reported,
gives up quietly and says so (:attr:`BrokenCycles.total` is ``None``).

How the ring search stays small, per amount k:

* only gifts of exactly k can form a ring of amount k;
* a gift whose reverse gift exists (of any amount) is a chord of every cycle of 3 or more that
  uses it, so only 2-rings may use it, and those are found directly;
* a cycle lies inside one strongly connected component of what remains;
* each component is searched from its alphabetically first player only, for chordless paths
  that come back to it; that player is then removed and what stays strongly connected is
  searched again (as Johnson's algorithm does for simple cycles);
* a path may only be extended by a player next to (giving to or receiving from) its last player
  and to no other player of the path: a count per player of its neighbours on the path makes
  this test one lookup.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from adjudicator.core.errors import AdjudicationLimitError
from adjudicator.core.text import counted

RING_SEARCH_BUDGET = 10_000_000
"""Steps the ring search of one round may take: at most a second or two of work."""
RING_COST = 40
"""Steps charged for each ring found, besides its length: scoring and reporting it is work too."""
BROKEN_SEARCH_BUDGET = 1_000_000
"""Steps the search for broken cycles of one round may take before it gives up listing them."""
BROKEN_LIST_LIMIT = 100
"""At most this many broken cycles are listed in a report (the shortest first)."""

Gifts = Mapping[tuple[str, str], int]
"""Each player's total gift to each other player: (giver, recipient) -> points."""


@dataclass(frozen=True, order=True)
class Ring:
    """A co-operation ring: ``members`` in ring order, starting with the alphabetically first."""

    members: tuple[str, ...]
    amount: int

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def bonus(self) -> int:
        """Rule 5: each gift of the ring pays k x size instead of k, a bonus of k x (size - 1)."""
        return self.amount * (self.size - 1)

    def gifts(self) -> tuple[tuple[str, str], ...]:
        """The ring's gifts as (giver, recipient) pairs, in ring order."""
        members = self.members
        return tuple(zip(members, members[1:] + members[:1], strict=True))


@dataclass(frozen=True)
class BrokenCycle:
    """An equal-amount cycle that rule 6 broke, and the gifts that broke it."""

    members: tuple[str, ...]
    amount: int
    broken_by: tuple[tuple[str, str, int], ...]
    """Every other gift between two members: (giver, recipient, amount), sorted."""


@dataclass(frozen=True)
class BrokenCycles:
    """The broken cycles of a round as reported: the shortest first, at most a fixed number.

    ``total`` counts them all; it is ``None`` when there were too many to search through, and
    then ``cycles`` is empty.
    """

    cycles: tuple[BrokenCycle, ...] = ()
    total: int | None = 0
    steps: int = field(default=0, compare=False)
    """The steps the search took (to see how far a game is from the budget)."""


class _GiftGraph:
    """The gifts of a round as a graph on player numbers in alphabetical order of handles."""

    def __init__(self, gifts: Gifts) -> None:
        self.names = sorted({player for pair in gifts for player in pair})
        number = {name: i for i, name in enumerate(self.names)}
        self.out: list[dict[int, int]] = [{} for _ in self.names]
        self.near: list[set[int]] = [set() for _ in self.names]
        self.by_amount: dict[int, list[tuple[int, int]]] = {}
        for (giver, recipient), amount in sorted(gifts.items()):
            u, v = number[giver], number[recipient]
            if amount <= 0 or u == v:
                continue  # only positive gifts to others make the graph of rule 5
            self.out[u][v] = amount
            self.near[u].add(v)
            self.near[v].add(u)
            self.by_amount.setdefault(amount, []).append((u, v))

    def successors(self, amount: int, *, one_way_only: bool) -> dict[int, list[int]]:
        """The gifts of exactly ``amount``; with ``one_way_only``, only those not given back."""
        succ: dict[int, list[int]] = {}
        for u, v in self.by_amount[amount]:
            if not (one_way_only and u in self.out[v]):
                succ.setdefault(u, []).append(v)
        return succ


class _Steps:
    """A work budget counted in steps, so that the same round always stops at the same point."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0

    def spend(self, steps: int) -> bool:
        """Spend ``steps``; False once the budget is exhausted."""
        self.used += steps
        return self.used <= self.budget


def _strong_components(succ: Mapping[int, Sequence[int]], *, min_size: int) -> list[list[int]]:
    """Tarjan's strongly connected components of ``succ`` with at least ``min_size`` players."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    found: list[list[int]] = []
    for start in sorted(succ):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(succ.get(start, ())))]
        while work:
            v, successors = work[-1]
            for w in successors:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ.get(w, ()))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) >= min_size:
                        found.append(sorted(component))
    return found


def _rooted_components(
    succ: Mapping[int, Sequence[int]], *, min_size: int, steps: _Steps
) -> Iterator[tuple[int, list[int]]]:
    """Each (root, component) to search: every cycle has its lowest player as the root once.

    Johnson's decomposition: search a strongly connected component from its lowest player, then
    drop that player and go on with what stays strongly connected.
    """
    work = _strong_components(succ, min_size=min_size)
    while work:
        component = work.pop()
        root = component[0]
        yield root, component
        inside = set(component[1:])
        rest = {u: [v for v in succ[u] if v in inside] for u in component[1:]}
        if not steps.spend(sum(len(succ[u]) for u in component)):
            return
        work += _strong_components(rest, min_size=min_size)


class _RingSearch:
    """Finds the rings of 3 or more players of one round (docs/rules/giveaway.md, rules 5 and 6)."""

    def __init__(self, graph: _GiftGraph, *, budget: int) -> None:
        self.graph = graph
        self.steps = _Steps(budget)
        self.paths = 0
        self.found: list[tuple[int, ...]] = []
        self.neighbours_on_path = [0] * len(graph.names)

    def run(self, amount: int) -> list[tuple[int, ...]]:
        found_before = len(self.found)
        succ = self.graph.successors(amount, one_way_only=True)
        for root, component in _rooted_components(succ, min_size=3, steps=self.steps):
            self._search_from(root, component, succ=succ, amount=amount)
        if self.steps.used > self.steps.budget:
            self._give_up(amount, sorted(succ))
        return self.found[found_before:]

    def _search_from(
        self,
        root: int,
        component: list[int],
        *,
        succ: Mapping[int, Sequence[int]],
        amount: int,
    ) -> None:
        """Every chordless cycle through ``root`` inside ``component`` (root its lowest player)."""
        inside = set(component)
        count = self.neighbours_on_path
        forward = {u: [v for v in succ[u] if v in inside] for u in component}
        near = {u: [w for w in self.graph.near[u] if w in inside] for u in component}
        closing = {u for u in component if root in forward[u]}
        if not self.steps.spend(sum(len(self.graph.near[u]) for u in component)):
            self._give_up(amount, component)
        path = [root]
        for w in near[root]:
            count[w] += 1
        stack = [iter(forward[root])]
        while stack:
            for w in stack[-1]:
                if w == root:
                    continue
                on_path = count[w]  # neighbours of w on the path, the last player included
                if on_path == 1:
                    # Adjacent to the last player only: the path stays chordless.
                    path.append(w)
                    for x in near[w]:
                        count[x] += 1
                    self.paths += 1
                    if not self.steps.spend(len(near[w]) + len(forward[w]) + 1):
                        self._give_up(amount, component)
                    stack.append(iter(forward[w]))
                    break
                if on_path == 2 and w in closing and len(path) > 1:
                    # Adjacent to the last player and to the root only, by its gift to the
                    # root (a gift back from the root would have removed this gift): a ring.
                    self.found.append((*path, w))
                    if not self.steps.spend(RING_COST + 2 * len(path)):
                        self._give_up(amount, component)
            else:
                stack.pop()
                for x in near[path.pop()]:
                    count[x] -= 1

    def _give_up(self, amount: int, players: Sequence[int]) -> None:
        names = [self.graph.names[p] for p in players]
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        raise AdjudicationLimitError(
            f"Giveaway: the search for co-operation rings is too large to finish. Among the "
            f"{len(names)} players who give each other exactly {counted(amount, 'point')} "
            f"({shown}) it "
            f"examined {self.paths:,} chordless paths and found {len(self.found):,} rings of "
            f"3 or more players before reaching its limit of {self.steps.budget:,} steps. "
            f"The round cannot be scored automatically; adjudicate it by hand or void it."
        )


def _ring_of(graph: _GiftGraph, cycle: Sequence[int], amount: int) -> Ring:
    """The cycle's players are numbered alphabetically, so it already starts with the first."""
    return Ring(tuple(graph.names[p] for p in cycle), amount)


def find_rings(gifts: Gifts, *, budget: int = RING_SEARCH_BUDGET) -> tuple[Ring, ...]:
    """Every co-operation ring of a round's gifts, sorted by members.

    Raises :class:`AdjudicationLimitError` when the search would take more than ``budget``
    steps.
    """
    return find_rings_counting_steps(gifts, budget=budget)[0]


def find_rings_counting_steps(
    gifts: Gifts, *, budget: int = RING_SEARCH_BUDGET
) -> tuple[tuple[Ring, ...], int]:
    """:func:`find_rings` and the steps it took (to see how far a game is from the budget)."""
    graph = _GiftGraph(gifts)
    rings = [
        # A gift given back with the same amount is a 2-ring: the two gifts are all there is
        # between the pair (a player's gifts to one recipient are added together).
        _ring_of(graph, (u, v), amount)
        for amount, edges in graph.by_amount.items()
        for u, v in edges
        if u < v and graph.out[v].get(u) == amount
    ]
    search = _RingSearch(graph, budget=budget)
    for amount in sorted(graph.by_amount):
        rings += [_ring_of(graph, cycle, amount) for cycle in search.run(amount)]
    return tuple(sorted(rings)), search.steps.used


def _breaking_gifts(graph: _GiftGraph, cycle: Sequence[int]) -> tuple[tuple[str, str, int], ...]:
    """Rule 6: every gift between two members other than the cycle's own gifts."""
    members = set(cycle)
    own = set(zip(cycle, [*cycle[1:], cycle[0]], strict=True))
    names = graph.names
    return tuple(
        sorted(
            (names[u], names[v], amount)
            for u in cycle
            for v, amount in graph.out[u].items()
            if v in members and (u, v) not in own
        )
    )


def _equal_amount_cycles(
    graph: _GiftGraph, amount: int, *, steps: _Steps
) -> Iterator[tuple[int, ...]]:
    """Every directed cycle of 3 or more players along gifts of exactly ``amount``."""
    succ = graph.successors(amount, one_way_only=False)
    for root, component in _rooted_components(succ, min_size=3, steps=steps):
        inside = set(component)
        forward = {u: [v for v in succ[u] if v in inside] for u in component}
        if not steps.spend(sum(len(succ[u]) for u in component)):
            return
        path, on_path = [root], {root}
        stack = [iter(forward[root])]
        while stack:
            for w in stack[-1]:
                if not steps.spend(1):
                    return
                if w == root and len(path) >= 3:
                    yield tuple(path)
                elif w not in on_path:
                    path.append(w)
                    on_path.add(w)
                    stack.append(iter(forward[w]))
                    break
            else:
                stack.pop()
                on_path.discard(path.pop())


def find_broken_cycles(
    gifts: Gifts,
    *,
    budget: int = BROKEN_SEARCH_BUDGET,
    limit: int = BROKEN_LIST_LIMIT,
) -> BrokenCycles:
    """The equal-amount cycles of 3 or more players that rule 6 broke (a 2-cycle cannot break).

    All of them are counted and the ``limit`` shortest listed (ties by members, then amount),
    unless the search takes more than ``budget`` steps: then none is listed and the total is
    ``None``.
    """
    graph = _GiftGraph(gifts)
    steps = _Steps(budget)
    broken = []
    for amount in sorted(graph.by_amount):
        for cycle in _equal_amount_cycles(graph, amount, steps=steps):
            if not steps.spend(sum(len(graph.out[u]) for u in cycle)):
                break
            breakers = _breaking_gifts(graph, cycle)
            if breakers:
                members = tuple(graph.names[p] for p in cycle)
                broken.append(BrokenCycle(members, amount, breakers))
        if steps.used > steps.budget:
            return BrokenCycles((), None, steps.used)
    broken.sort(key=lambda c: (len(c.members), c.members, c.amount))
    return BrokenCycles(tuple(broken[:limit]), len(broken), steps.used)
