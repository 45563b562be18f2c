"""Three Musketeers: random play and property tests.

Thousands of random games through the fast path, a few hundred through the public protocol,
and hypothesis properties of the order parser and of ``check``.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.game import Setup
from adjudicator.games.three_musketeers import (
    RULES,
    Move,
    State,
    has_legal_move,
    legal_moves,
    musketeers_in_line,
    outcome,
    play,
)

START = State(("alice", "bob"))
MOST_MOVES = 2 * 22 + 1
"""22 men can be captured at most, one per Musketeer move, with a Cardinal move in between."""


def random_game(rng: random.Random) -> list[State]:
    states = [START]
    while outcome(states[-1]) is None:
        states.append(play(states[-1], rng.choice(legal_moves(states[-1]))))
    return states


def test_thousands_of_random_games_end_with_a_result() -> None:
    """Every game ends, within 45 moves, with exactly one winner, and no position repeats
    (so the game needs no repetition rule)."""
    rng = random.Random(3)
    endings: Counter[str] = Counter()
    for _ in range(3000):
        states = random_game(rng)
        assert len(states) - 1 <= MOST_MOVES
        assert len({(s.cells, s.turn) for s in states}) == len(states)
        for before, after in itertools.pairwise(states):
            assert after.turn != before.turn
            assert after.cells.count("M") == 3
            assert len(after.cells) == 25
            captured = before.cells.count("C") - after.cells.count("C")
            assert captured == (1 if before.turn == "musketeers" else 0)
        ended = outcome(states[-1])
        assert ended is not None
        assert len(ended.winners) == 1
        assert not ended.draw
        if ended.termination == "musketeers-in-line":
            assert ended.winners == ("bob",)
            assert musketeers_in_line(states[-1].cells)
        else:
            assert ended.termination == "no-legal-move"
            assert ended.winners == ("alice",)
            assert not has_legal_move(states[-1])
        endings[ended.termination] += 1
    # Random play reaches both endings.
    assert endings["musketeers-in-line"] > 100
    assert endings["no-legal-move"] > 100


def _protocol_game(seed: int) -> list[tuple[dict[str, object], dict[str, object], str]]:
    """A random game through the public protocol: (public state, dump, order) per move."""
    rng = random.Random(seed)
    state = RULES.start(["alice", "bob"], options={}, setup=Setup())
    trail = []
    while movers := RULES.to_move(state):
        (player,) = movers
        lines = RULES.sample_orders(state, player, rng)
        other = "bob" if player == "alice" else "alice"
        assert RULES.sample_orders(state, other, rng) == []
        checked = RULES.check(state, player, lines)
        assert checked.ok, checked.problems
        assert [RULES.format_order(o) for o in checked.orders] == lines
        assert not RULES.check(state, other, lines).ok
        resolution = RULES.resolve(state, {player: checked.orders})
        state = resolution.state
        assert RULES.load(RULES.dump(state)) == state
        public = RULES.public_state(state)
        assert list(public) == ["board", "to_move"]
        assert resolution.report.public["last_move"] == lines[0]
        assert RULES.player_view(state, player)["last_move"] == lines[0]
        trail.append((public, RULES.dump(state), lines[0]))
    assert RULES.outcome(state) is not None
    assert RULES.sample_orders(state, "alice", rng) == []
    return trail


@given(st.integers(0, 24), st.integers(0, 24))
def test_parse_of_format_round_trips(origin: int, target: int) -> None:
    move = Move(origin, target)
    assert RULES.parse_order(RULES.format_order(move)) == move
    assert RULES.parse_order(RULES.format_order(move).upper()) == move


@given(st.text())
def test_arbitrary_text_raises_only_the_parser_errors(text: str) -> None:
    try:
        move = RULES.parse_order(text)
    except (NotAnOrder, OrderSyntaxError):
        return
    assert RULES.parse_order(RULES.format_order(move)) == move


@given(
    st.from_regex(
        r"\s*(move:?\s*)?[a-zA-Z][0-9]{1,2}\s*[-x:, →]?\s*[a-zA-Z][0-9]{1,2}\.?\s*",
        fullmatch=True,
    )
)
def test_move_shaped_text_is_a_move_or_a_syntax_error(text: str) -> None:
    try:
        move = RULES.parse_order(text)
    except OrderSyntaxError as error:
        message = str(error)
    else:
        origin, target = RULES.format_order(move).split("-")
        assert origin in text.lower()
        assert target in text.lower()
        return
    assert "not on the board" in message or "two squares" in message


@settings(max_examples=60)
@given(st.integers(0, 10_000), st.lists(st.text(max_size=20), max_size=4), st.data())
def test_check_never_raises_and_accepts_exactly_the_legal_moves(
    seed: int, lines: list[str], data: st.DataObject
) -> None:
    states = random_game(random.Random(seed))
    state = data.draw(st.sampled_from(states))
    for player in ("alice", "bob", "carol"):
        checked = RULES.check(state, player, lines)
        assert len(checked.orders) + len(checked.unrecognised) <= len(lines)
    if outcome(state) is None:
        player = RULES.to_move(state)[0]
        move = Move(data.draw(st.integers(0, 24)), data.draw(st.integers(0, 24)))
        checked = RULES.check(state, player, [RULES.format_order(move)])
        assert checked.ok == (move in legal_moves(state))
        if not checked.ok:
            assert checked.problems[0].message
