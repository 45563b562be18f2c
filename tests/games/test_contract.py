"""The contract every game kind keeps, checked over the registry (in the manner of OpenSpiel's
random-simulation test): random legal play to the end, state dumps that load back, orders
that read back from their canonical text, determinism, views that show a player nothing of
another seat, and codes that the templates and the registry know.

A new game is added to ``adjudicator.games.KINDS`` and passes this file before anything else.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.base.shipped import GAME_TEMPLATES, TEMPLATES
from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.game import Setup
from adjudicator.core.kind import GameKind
from adjudicator.games import GAME_NAMES, KINDS, UnknownGame, kind_of

TEMPLATE_FOLDERS = (TEMPLATES, *GAME_TEMPLATES)
SEEDS = range(12)
MAX_ROUNDS = 400
GARBAGE = (
    "",
    "hello judge",
    "GIVE 1000 TO nobody",
    "a1-a9",
    "Z9-Z1",
    "FIRE FIRE SHIELD",
    "SCRATCH mauve",
    "move",
    "pass",
    "GIVE -1 TO bob",
    "12345",
    "B2-D2 9,9,9",
)


def _players(kind: GameKind) -> list[str]:
    count = max(kind.rules.min_players, 4 if kind.rules.max_players is None else 0)
    count = min(count, kind.rules.max_players or count)
    return [f"p{n}" for n in range(count)]


def _start(kind: GameKind, players: Sequence[str]) -> Any:
    return kind.rules.start(players, options={}, setup=Setup())


def _play(kind: GameKind, seed: int) -> tuple[list[Any], list[dict[str, list[str]]]]:
    """A random legal game: the states (the start first) and each round's order lines."""
    rules, rng = kind.rules, random.Random(seed)
    players = _players(kind)
    state = _start(kind, players)
    states, rounds = [state], []
    for _ in range(MAX_ROUNDS):
        if rules.outcome(state) is not None:
            break
        lines = {p: rules.sample_orders(state, p, rng) for p in rules.to_move(state)}
        orders = {}
        for player, texts in lines.items():
            checked = rules.check(state, player, texts)
            assert checked.ok, f"{kind.name}: sample orders {texts} refused: {checked.problems}"
            assert not checked.unrecognised
            orders[player] = list(checked.orders)
        state = rules.resolve(state, orders).state
        states.append(state)
        rounds.append(lines)
    return states, rounds


def _replay(kind: GameKind, rounds: Sequence[dict[str, list[str]]]) -> list[Any]:
    rules = kind.rules
    state = _start(kind, _players(kind))
    states = [state]
    for lines in rounds:
        orders = {p: list(rules.check(state, p, texts).orders) for p, texts in lines.items()}
        state = rules.resolve(state, orders).state
        states.append(state)
    return states


@pytest.fixture(scope="module", params=KINDS, ids=lambda kind: kind.name)
def played(request: pytest.FixtureRequest) -> tuple[GameKind, list[tuple[list[Any], Any]]]:
    kind: GameKind = request.param
    return kind, [_play(kind, seed) for seed in SEEDS]


def test_the_registry_names_each_kind_once_and_finds_it_in_any_case() -> None:
    assert len(set(GAME_NAMES)) == len(KINDS)
    for kind in KINDS:
        assert kind_of(kind.name.upper()) is kind
        assert kind.rules.name == kind.name
        assert kind.title
    with pytest.raises(UnknownGame, match="known: giveaway"):
        kind_of("chess")


def test_random_play_is_legal_and_the_games_end(played: Any) -> None:
    kind, games = played
    ended = [kind.rules.outcome(states[-1]) for states, _ in games]
    assert any(e is not None for e in ended), f"no random {kind.name} game ended"
    for outcome in ended:
        if outcome is not None:
            assert outcome.termination in kind.terminations, outcome
            assert not (outcome.draw and outcome.winners)


def test_dump_is_plain_json_and_loads_back_at_every_state(played: Any) -> None:
    kind, games = played
    rules = kind.rules
    for states, _ in games:
        for state in states:
            dumped = rules.dump(state)
            assert json.loads(json.dumps(dumped)) == dumped
            assert rules.load(dumped) == state
            assert json.loads(json.dumps(rules.public_state(state))) == rules.public_state(state)


def test_every_order_played_reads_back_from_its_canonical_text(played: Any) -> None:
    kind, games = played
    rules = kind.rules
    for states, rounds in games:
        for state, lines in zip(states, rounds, strict=False):
            for player, texts in lines.items():
                for order in rules.check(state, player, texts).orders:
                    text = rules.format_order(order)
                    assert rules.parse_order(text) == order
                    assert rules.format_order(rules.parse_order(text.lower())) == text


def test_the_same_orders_give_the_same_states(played: Any) -> None:
    kind, games = played
    for states, rounds in games[:4]:
        again = _replay(kind, rounds)
        assert [kind.rules.dump(s) for s in again] == [kind.rules.dump(s) for s in states]


def test_a_players_view_shows_nothing_of_another_seat(played: Any) -> None:
    """A view is the public state plus what belongs to the player alone; an outsider sees the
    public state and nothing personal."""
    kind, games = played
    rules = kind.rules
    players = _players(kind)
    for states, _ in games[:3]:
        for state in states[:: max(1, len(states) // 10)]:
            public = rules.public_state(state)
            for player in [*players, "outsider"]:
                view = rules.player_view(state, player)
                assert {k: view[k] for k in public} == public
                own = json.dumps({k: v for k, v in view.items() if k not in public})
                others = [p for p in players if p != player]
                assert not [p for p in others if f'"{p}"' in own], (player, own)
                if player == "outsider":
                    assert not [p for p in players if f'"{p}"' in own], own


def test_every_problem_the_game_gives_has_a_declared_code(played: Any) -> None:
    kind, games = played
    rules = kind.rules
    players = _players(kind)
    seen: set[str] = set()
    for states, rounds in games[:3]:
        for state, lines in zip(states, [*rounds, {}], strict=False):
            for player in [*players, "outsider"]:
                candidates = [[text] for text in GARBAGE]
                candidates += [texts * 2 for texts in lines.values()]  # twice, or another's
                for texts in candidates:
                    for problem in rules.check(state, player, texts).problems:
                        seen.add(problem.code)
    assert seen, f"{kind.name}: no problem found at all"
    assert seen <= kind.problem_codes, seen - kind.problem_codes


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(KINDS), st.lists(st.text(max_size=30), max_size=3))
def test_arbitrary_text_is_read_or_refused_never_crashes(kind: GameKind, lines: list[str]) -> None:
    """Reading raises only the reader's own errors; checking never raises at all."""
    rules = kind.rules
    for text in lines:
        try:
            order = rules.parse_order(text)
        except (NotAnOrder, OrderSyntaxError):
            continue
        assert rules.parse_order(rules.format_order(order)) == order
    state = _start(kind, _players(kind))
    for player in (_players(kind)[0], "outsider"):
        checked = rules.check(state, player, lines)
        assert set(checked.unrecognised) <= set(lines)  # only what was written is named


def test_every_termination_is_worded_in_the_games_templates() -> None:
    for kind in KINDS:
        texts = [
            path
            for folder in TEMPLATE_FOLDERS
            for path in (
                *(folder / "mail" / kind.name).glob("*.j2"),
                folder / "archive" / "report" / f"{kind.name}.html.j2",
            )
        ]
        words = "\n".join(path.read_text(encoding="utf-8") for path in texts if path.exists())
        for code in kind.terminations:
            assert f'"{code}"' in words, f"{kind.name}: no words for the ending {code!r}"


def test_every_measure_reads_a_number_for_every_player(played: Any) -> None:
    kind, games = played
    players = _players(kind)
    for states, _ in games[:2]:
        for state in (states[0], states[-1]):
            public = kind.rules.public_state(state)
            for measure in kind.measures:
                counts = measure.read(public, players)
                assert set(counts) == set(players[: len(counts)]), (measure.key, counts)
                assert all(isinstance(v, int) and v >= 0 for v in counts.values())


def test_every_position_has_pictures_in_both_forms(played: Any) -> None:
    kind, games = played
    states, _ = games[0]
    for state in (states[0], states[-1]):
        for picture in kind.pictures(kind.rules.public_state(state), {}):
            assert picture.text.strip()
            assert picture.svg.startswith("<svg")


STAND_IN_SEEDS = range(2)


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_every_kind_has_a_stand_in_whose_orders_are_always_legal(kind: GameKind) -> None:
    """Each seat in turn is the stand-in's, the others play at random, to the end: every order
    the stand-in sends is accepted by the game's own checker, and it always has one when the
    game waits for its seat."""
    assert kind.stand_in is not None, f"{kind.name} has no stand-in"
    rules = kind.rules
    players = _players(kind)
    for seed in STAND_IN_SEEDS:
        for seat in players[:2]:
            rng = random.Random(seed)
            state = _start(kind, players)
            for _ in range(MAX_ROUNDS):
                if rules.outcome(state) is not None:
                    break
                orders = {}
                for player in rules.to_move(state):
                    if player == seat:
                        texts = kind.stand_in(state, player, random.Random(rng.random()))
                        assert texts, f"{kind.name}: the stand-in sent nothing"
                    else:
                        texts = rules.sample_orders(state, player, rng)
                    checked = rules.check(state, player, texts)
                    assert checked.ok, f"{kind.name}: stand-in orders {texts}: {checked.problems}"
                    assert not checked.unrecognised
                    orders[player] = list(checked.orders)
                state = rules.resolve(state, orders).state
