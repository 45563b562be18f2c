"""Hints after the game (issue 15, part 5): the move where the result was decided."""

from __future__ import annotations

import random

import pytest

from adjudicator.games import kind_of
from adjudicator.games.starship_combat import RULES as STARSHIP
from adjudicator.games.starship_combat import Choice, StarshipState
from adjudicator.games.starship_combat.hints import costly_choices, decisive_choice
from adjudicator.games.three_musketeers import State, legal_moves, outcome, play
from adjudicator.games.three_musketeers import standin as tm
from adjudicator.games.three_musketeers.hints import decisive_move, thrown_wins

FIRE, SHIELD = Choice(fire=True), Choice(shield=True)
BOTH = Choice(fire=True, shield=True)


def _plain_wins(state: State) -> bool:
    """Whether the side to move wins with best play: a plain search over the game's own
    functions, apart from the stand-in's."""
    for move in legal_moves(state):
        after = play(state, move)
        ended = outcome(after)
        if ended is not None:
            if ended.winners == (state.player_of(state.turn),):
                return True
        elif not _plain_wins(after):
            return True
    return False


def _positions_with_a_choice(count: int) -> list[State]:
    """Positions with few men where the side to move has a winning and a losing move."""
    rng = random.Random(5)
    found: list[State] = []
    while len(found) < count:
        state = State(("athos", "richelieu"))
        while outcome(state) is None:
            if state.cells.count("C") <= 5:
                results = set()
                for move in legal_moves(state):
                    after = play(state, move)
                    ended = outcome(after)
                    mover_won = (
                        ended.winners == (state.player_of(state.turn),)
                        if ended is not None
                        else not _plain_wins(after)
                    )
                    results.add(mover_won)
                if results == {True, False}:
                    found.append(state)
                break
            state = play(state, rng.choice(legal_moves(state)))
    return found


@pytest.mark.slow
def test_a_move_from_a_won_to_a_lost_position_is_named_with_a_move_that_kept_the_win() -> None:
    for state in _positions_with_a_choice(15):
        losing = next(
            m
            for m in legal_moves(state)
            if outcome(play(state, m)) is None and _plain_wins(play(state, m))
        )
        (thrown,) = thrown_wins(state, [losing])
        assert (thrown.number, thrown.side, thrown.played) == (1, state.turn, losing)
        kept = play(state, thrown.keeping)
        ended = outcome(kept)
        assert (
            ended.winners == (state.player_of(state.turn),)
            if ended is not None
            else not _plain_wins(kept)
        )


def test_perfect_play_throws_nothing_away() -> None:
    rng = random.Random(2)
    for start in _positions_with_a_choice(5):
        state, moves = start, []
        while outcome(state) is None:
            move = tm.choose(state, rng).move
            moves.append(move)
            state = play(state, move)
        assert decisive_move(start, moves) is None


def test_fire_alone_in_round_one_is_the_costly_choice() -> None:
    """FIRE alone is outside the round-1 equilibrium mix: against the other captain's mix it is
    worth less than the round's value 0, and a captain who played it is named."""
    start = StarshipState(("kirk", "kang"), (3, 3), (6, 6))
    hint = decisive_choice(start, [(FIRE, SHIELD), (SHIELD, BOTH)])
    assert hint is not None
    assert (hint.round, hint.seat, hint.chose) == (1, 0, FIRE)
    assert hint.worth < 0 == hint.value
    assert STARSHIP.format_order(hint.best) == "SHIELD"


def test_choices_inside_the_equilibrium_cost_nothing() -> None:
    start = StarshipState(("kirk", "kang"), (3, 3), (6, 6))
    assert costly_choices(start, [(SHIELD, BOTH)]) == []
    assert costly_choices(start, [(BOTH, Choice())]) == []


def test_the_kinds_hint_names_the_round_player_and_move_that_threw_the_win_away() -> None:
    """GameKind.hint for Three Musketeers: a game from a position where the side to move has a
    winning and a losing move, the losing one played, then best play to the end: the hint is
    that move, by that player, in round 1, with a move that wins by a plain search."""
    kind = kind_of("three-musketeers")
    assert kind.hint is not None
    rng = random.Random(3)
    for start in _positions_with_a_choice(5):
        losing = next(
            m
            for m in legal_moves(start)
            if outcome(play(start, m)) is None and _plain_wins(play(start, m))
        )
        state, rounds = play(start, losing), [{start.player_of(start.turn): [losing]}]
        while outcome(state) is None:
            move = tm.choose(state, rng).move
            rounds.append({state.player_of(state.turn): [move]})
            state = play(state, move)
        hint = kind.hint(start, rounds)
        assert hint is not None
        assert (hint.round, hint.player, hint.played, hint.exact) == (
            1,
            start.player_of(start.turn),
            str(losing),
            True,
        )
        kept = play(start, next(m for m in legal_moves(start) if str(m) == hint.better))
        ended = outcome(kept)
        assert (
            ended.winners == (start.player_of(start.turn),)
            if ended is not None
            else not _plain_wins(kept)
        )


@pytest.mark.usefixtures("searching")
def test_no_move_is_named_where_the_search_cannot_finish_within_its_budget() -> None:
    for start in _positions_with_a_choice(2):
        losing = next(m for m in legal_moves(start) if outcome(play(start, m)) is None)
        tm.SOLVED.clear()
        assert decisive_move(start, [losing], budget=0) is None
    # The opening, with every man on the board, is never judged: nothing is claimed.
    opening = State(("athos", "richelieu"))
    assert decisive_move(opening, [legal_moves(opening)[0]]) is None


def test_the_kinds_hint_for_starship_combat_is_the_costliest_choice_in_the_game_words() -> None:
    """A round-1 FIRE alone (outside the equilibrium mix) and then a hit: the hint names it."""
    kind = kind_of("starship-combat")
    assert kind.hint is not None
    start = StarshipState(("kirk", "kang"), (3, 3), (6, 6))
    rounds = [{"kirk": [FIRE], "kang": [SHIELD]}, {"kirk": [SHIELD], "kang": [BOTH]}]
    expected = decisive_choice(start, [(FIRE, SHIELD), (SHIELD, BOTH)])
    assert expected is not None
    hint = kind.hint(start, rounds)
    assert hint is not None
    assert (hint.round, hint.player, hint.played, hint.better, hint.exact) == (
        1,
        "kirk",
        "FIRE",
        "SHIELD",
        False,
    )
    assert hint.worth is not None
    assert hint.value is not None
    assert hint.worth < hint.value == 0


def test_a_start_outside_the_shipped_table_gets_no_hint_rather_than_a_long_build() -> None:
    kind = kind_of("starship-combat")
    assert kind.hint is not None
    start = StarshipState(("kirk", "kang"), (9, 9), (9, 9), max_rounds=40)
    assert kind.hint(start, [{"kirk": [FIRE], "kang": [SHIELD]}]) is None
