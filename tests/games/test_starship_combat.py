"""Starship Combat: named rule cases for every ruling of docs/rules/starship-combat.md, and the sample
game of ``sources/starship-combat.txt`` checked round by round against the counts it prints.

Every expected number below is worked out by hand from the ruling quoted in the docstring, or
typed from the source text.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, SetupError
from adjudicator.core.game import Outcome, Setup
from adjudicator.games import get_rules
from adjudicator.games.starship_combat import RULES, Choice, StarshipState

FIRE, SHIELD, BOTH, NOTHING = Choice(True, False), Choice(False, True), Choice(True, True), Choice()


def start(
    *,
    missiles: Mapping[str, int] | None = None,
    power: Mapping[str, int] | None = None,
    options: Mapping[str, str] | None = None,
) -> StarshipState:
    counters = {"missiles": missiles or {}, "power": power or {}}
    setup = Setup(start={k: v for k, v in counters.items() if v})
    return RULES.start(("kirk", "kang"), options=options or {}, setup=setup)


def play(state: StarshipState, kirk: str | None, kang: str | None) -> StarshipState:
    """One round; ``None`` means the captain sends nothing. Every line sent must be accepted."""
    orders = {}
    for player, line in (("kirk", kirk), ("kang", kang)):
        if line is not None:
            checked = RULES.check(state, player, [line])
            assert checked.ok, checked.problems
            orders[player] = checked.orders
    return RULES.resolve(state, orders).state


def counts(state: StarshipState) -> dict[str, object]:
    return RULES.public_state(state)


def codes(state: StarshipState, player: str, lines: list[str]) -> list[str]:
    return [p.code for p in RULES.check(state, player, lines).problems]


# --- The sample game of the source -------------------------------------------------------------

# Typed from sources/starship-combat.txt: each round's choices (A, B) and the counts it prints,
# as (A missiles, A power, B missiles, B power).
SAMPLE = [
    ("SHIELD", "SHIELD", (3, 5, 3, 5)),  # 1. A powers shields, B powers shields.
    ("SHIELD", "NOTHING", (3, 4, 3, 5)),  # 2. A powers shields, B does nothing.
    ("FIRE SHIELD", "SHIELD", (2, 3, 3, 4)),  # 3. A fires and powers shields, B shields.
    ("NOTHING", "SHIELD", (2, 3, 3, 3)),  # 4. A does nothing, B powers shields.
    ("FIRE SHIELD", "FIRE SHIELD", (1, 2, 2, 2)),  # 5. both fire and power shields.
    ("SHIELD", "SHIELD", (1, 1, 2, 1)),  # 6. both power shields.
    ("SHIELD", "FIRE", (1, 0, 1, 1)),  # 7. A powers shields, B fires. "1 missile and no power"
]


def test_sample_game_replays_to_the_printed_counts() -> None:
    """ "The sample game in the source (8 rounds, Player B wins in round 8) must replay to
    exactly the counts it prints." """
    state = RULES.start(("a", "b"), options={}, setup=Setup())
    for number, (a, b, printed) in enumerate(SAMPLE, start=1):
        state = RULES.resolve(
            state,
            {"a": [RULES.parse_order(a)], "b": [RULES.parse_order(b)]},
        ).state
        got = (state.missiles[0], state.power[0], state.missiles[1], state.power[1])
        assert got == printed, f"round {number}"
        assert RULES.public_state(state)["destroyed"] == [], "Neither is hit."
        assert RULES.outcome(state) is None
    # 8. Player A fires a missile. Player B fires a missile and powers shields. Player A is
    # destroyed. Player B wins.
    state = RULES.resolve(
        state, {"a": [RULES.parse_order("FIRE")], "b": [RULES.parse_order("FIRE SHIELD")]}
    ).state
    assert state.round == 8
    assert RULES.public_state(state)["destroyed"] == ["a"]
    assert RULES.outcome(state) == Outcome("destroyed", ("b",))


def test_sample_record_replays_to_the_printed_counts() -> None:
    """The golden record of the sample game, replayed by ``adjudicate replay``, shows the same
    counts as the source, round by round."""
    from pathlib import Path

    from adjudicator.games import read_record, replay_record

    path = Path(__file__).parents[1] / "golden" / "starship-combat" / "sample.record"
    result = replay_record(read_record(path.read_text(encoding="utf-8")))
    for replayed, (_, _, printed) in zip(result["rounds"], SAMPLE, strict=False):
        state = replayed["state"]
        got = (state["missiles"]["a"], state["power"]["a"], state["missiles"]["b"])
        assert (*got, state["power"]["b"]) == printed, f"round {replayed['round']}"
    assert len(result["rounds"]) == 8
    assert result["rounds"][-1]["state"]["destroyed"] == ["a"]
    assert (result["finished"], result["winners"], result["draw"]) == (True, ["b"], False)


# --- Setup -------------------------------------------------------------------------------------


def test_registry_finds_the_game() -> None:
    assert get_rules("starship-combat") is RULES
    assert RULES.sequential is False
    assert RULES.option_defaults == {"max_rounds": "30"}


def test_two_players_with_three_missiles_and_six_power() -> None:
    """ "Simultaneous, 2 players. Each ship starts with 3 missiles and 6 shield powers." """
    state = start()
    assert counts(state) == {
        "missiles": {"kirk": 3, "kang": 3},
        "power": {"kirk": 6, "kang": 6},
        "destroyed": [],
    }
    assert RULES.to_move(state) == ("kirk", "kang")


@pytest.mark.parametrize("players", [("kirk",), ("kirk", "kang", "spock"), ("kirk", "KIRK")])
def test_exactly_two_different_players(players: tuple[str, ...]) -> None:
    """ "Simultaneous, 2 players." """
    with pytest.raises(SetupError):
        RULES.start(players, options={}, setup=Setup())


def test_start_lines_override_missiles_and_power() -> None:
    state = start(missiles={"kang": 1}, power={"kirk": 0})
    assert counts(state)["missiles"] == {"kirk": 3, "kang": 1}
    assert counts(state)["power"] == {"kirk": 0, "kang": 6}


@pytest.mark.parametrize(
    "options", [{"max_rounds": "0"}, {"max_rounds": "many"}, {"max_round": "5"}]
)
def test_bad_options_refused(options: dict[str, str]) -> None:
    with pytest.raises(SetupError):
        start(options=options)


# --- Orders ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("FIRE", FIRE),
        ("SHIELD", SHIELD),
        ("FIRE SHIELD", BOTH),
        ("NOTHING", NOTHING),
        ("shields", SHIELD),
        ("Both", BOTH),
        ("fire and shield", BOTH),
        ("SHIELD FIRE", BOTH),
        ("fire + shields", BOTH),
        ("Fire a missile and power shields.", BOTH),
        ("raise shields", SHIELD),
        ("shields up!", SHIELD),
        ("PASS", NOTHING),
        ("none", NOTHING),
        ("do nothing", NOTHING),
        ("  - fire", FIRE),
        ("SHIELD AND FIRE", BOTH),
        ("FIRE & SHIELD", BOTH),
        ("launch", FIRE),
        ("shoot", FIRE),
        ("Nothing!", NOTHING),
    ],
)
def test_canonical_orders_and_variants(text: str, choice: Choice) -> None:
    """ "Canonical `FIRE`, `SHIELD`, `FIRE SHIELD`, `NOTHING`. Variants such as `SHIELDS`,
    `BOTH`, `FIRE AND SHIELD`, `PASS`, `NONE` are accepted." """
    assert RULES.parse_order(text) == choice


@pytest.mark.parametrize(
    ("choice", "text"),
    [(FIRE, "FIRE"), (SHIELD, "SHIELD"), (BOTH, "FIRE SHIELD"), (NOTHING, "NOTHING")],
)
def test_canonical_form(choice: Choice, text: str) -> None:
    assert RULES.format_order(choice) == text


@pytest.mark.parametrize("text", ["Good luck, captain", "do you want to make peace", "hello"])
def test_chatter_is_not_an_order(text: str) -> None:
    with pytest.raises(NotAnOrder):
        RULES.parse_order(text)


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("shiled", "SHIELD"),
        ("fire fire", "FIRE"),
        ("nothing and fire", None),
        ("power", "SHIELD"),
        ("fire at will", None),
    ],
)
def test_broken_orders_are_syntax_errors(text: str, suggestion: str | None) -> None:
    with pytest.raises(OrderSyntaxError) as caught:
        RULES.parse_order(text)
    assert caught.value.suggestion == suggestion


def test_fire_with_no_missiles_left_is_rejected() -> None:
    """ "`FIRE` with no missiles left or `SHIELD` with no power left is rejected at submission." """
    state = start(missiles={"kirk": 0})
    assert codes(state, "kirk", ["FIRE"]) == ["no-missiles"]
    assert codes(state, "kirk", ["FIRE SHIELD"]) == ["no-missiles"]
    assert codes(state, "kang", ["FIRE"]) == []


def test_shield_with_no_power_left_is_rejected() -> None:
    """ "`FIRE` with no missiles left or `SHIELD` with no power left is rejected at submission." """
    state = start(power={"kang": 0}, missiles={"kang": 0})
    assert codes(state, "kang", ["SHIELD"]) == ["no-power"]
    assert codes(state, "kang", ["both"]) == ["no-missiles", "no-power"]
    assert codes(state, "kang", ["NOTHING"]) == []


def test_one_order_line_per_round() -> None:
    state = start()
    problems = RULES.check(state, "kirk", ["FIRE", "SHIELD"]).problems
    assert [(p.code, p.suggestion) for p in problems] == [("one-choice", "FIRE SHIELD")]


def test_chatter_around_an_order_is_set_aside() -> None:
    checked = RULES.check(start(), "kirk", ["Good luck, captain", "", "FIRE", "Kirk out"])
    assert checked.ok
    assert checked.orders == (FIRE,)
    assert checked.unrecognised == ("Good luck, captain", "Kirk out")


# --- Resolution --------------------------------------------------------------------------------


def test_a_missile_destroys_an_unshielded_ship() -> None:
    """ "A fired missile destroys the other ship unless that ship powered its shields this
    round." """
    state = play(start(), "FIRE", "NOTHING")
    assert counts(state)["destroyed"] == ["kang"]
    assert counts(state)["missiles"] == {"kirk": 2, "kang": 3}


def test_shields_stop_a_missile() -> None:
    """ "A fired missile destroys the other ship unless that ship powered its shields this
    round." """
    state = play(start(), "FIRE", "SHIELD")
    assert counts(state)["destroyed"] == []
    assert counts(state) == {
        "missiles": {"kirk": 2, "kang": 3},
        "power": {"kirk": 6, "kang": 5},
        "destroyed": [],
    }


def test_shields_use_power_even_when_nothing_is_fired() -> None:
    """ "Powering shields uses one power whether or not anything was fired." """
    state = play(start(), "SHIELD", "FIRE SHIELD")
    assert counts(state)["power"] == {"kirk": 5, "kang": 5}
    assert counts(state)["missiles"] == {"kirk": 3, "kang": 2}


def test_firing_uses_a_missile_whether_or_not_it_hits() -> None:
    state = play(start(), "FIRE SHIELD", "FIRE SHIELD")
    assert counts(state)["missiles"] == {"kirk": 2, "kang": 2}
    assert counts(state)["destroyed"] == []


def test_report_shows_both_choices_and_counts() -> None:
    """ "Both choices and both ships' missiles and power are public after each round." """
    state = start()
    orders = {"kirk": RULES.check(state, "kirk", ["fire and shield"]).orders}
    report = RULES.resolve(state, orders).report
    assert report.public == {
        "round": 1,
        "choices": {"kirk": "FIRE SHIELD", "kang": "NOTHING"},
        "no_orders": ["kang"],
        "missiles": {"kirk": 2, "kang": 3},
        "power": {"kirk": 5, "kang": 6},
        "destroyed": ["kang"],
    }
    assert report.codes == {"kirk": ["applied"], "kang": ["nmr-nothing"]}


# --- No orders ---------------------------------------------------------------------------------


def test_no_orders_is_nothing() -> None:
    """ "NMR. Treated as `NOTHING`." An absent captain neither shields nor fires."""
    state = play(start(), "FIRE", None)
    assert counts(state)["destroyed"] == ["kang"]
    assert counts(state)["power"] == {"kirk": 6, "kang": 6}
    assert RULES.outcome(state) == Outcome("destroyed", ("kirk",))


# --- End, in the ruled order -------------------------------------------------------------------


def test_exactly_one_ship_destroyed_the_other_player_wins() -> None:
    """ "(1) Exactly one ship destroyed: the other player wins." """
    state = play(start(), "SHIELD", "FIRE")
    assert RULES.outcome(state) is None
    state = play(state, "NOTHING", "FIRE")
    assert RULES.outcome(state) == Outcome("destroyed", ("kang",))
    assert RULES.to_move(state) == ()
    assert codes(state, "kirk", ["FIRE"]) == ["game-over"]


def test_both_ships_destroyed_is_a_draw() -> None:
    """ "Both destroyed: draw." """
    state = play(start(), "FIRE", "FIRE")
    assert counts(state)["destroyed"] == ["kirk", "kang"]
    assert RULES.outcome(state) == Outcome("both-destroyed", draw=True)


def test_destruction_is_checked_before_running_out_of_missiles() -> None:
    """ "(1) Exactly one ship destroyed: the other player wins." comes before "(2) Both ships
    out of missiles: draw.": both fire their last missile, only one ship shielded."""
    state = play(start(missiles={"kirk": 1, "kang": 1}), "FIRE SHIELD", "FIRE")
    assert counts(state)["missiles"] == {"kirk": 0, "kang": 0}
    assert RULES.outcome(state) == Outcome("destroyed", ("kirk",))


def test_destruction_is_checked_before_one_ship_out_of_missiles() -> None:
    """(1) comes before "(3) One ship out of missiles while the other still has one: the ship
    out of missiles loses": kirk's last missile destroys kang, who still has missiles."""
    state = play(start(missiles={"kirk": 1}), "FIRE", "NOTHING")
    assert counts(state)["missiles"] == {"kirk": 0, "kang": 3}
    assert RULES.outcome(state) == Outcome("destroyed", ("kirk",))


def test_both_out_of_missiles_is_a_draw() -> None:
    """ "(2) Both ships out of missiles: draw." """
    state = play(start(missiles={"kirk": 1, "kang": 1}), "FIRE SHIELD", "FIRE SHIELD")
    assert counts(state)["destroyed"] == []
    assert RULES.outcome(state) == Outcome("both-out-of-missiles", draw=True)


def test_the_ship_out_of_missiles_loses_at_once() -> None:
    """ "(3) One ship out of missiles while the other still has one: the ship out of missiles
    loses, at once." """
    state = play(start(missiles={"kang": 1}), "SHIELD", "FIRE")
    assert counts(state)["missiles"] == {"kirk": 3, "kang": 0}
    assert RULES.outcome(state) == Outcome("out-of-missiles", ("kirk",))


def test_running_out_of_missiles_is_checked_before_the_round_limit() -> None:
    """(3) comes before "(4) (option `max_rounds=30`) the round limit reached: draw."."""
    state = start(missiles={"kirk": 1}, options={"max_rounds": "1"})
    state = play(state, "FIRE", "SHIELD")
    assert RULES.outcome(state) == Outcome("out-of-missiles", ("kang",))


def test_the_round_limit_is_a_draw() -> None:
    """ "(4) (option `max_rounds=30`) the round limit reached: draw." """
    state = start()
    for _ in range(29):
        state = play(state, None, None)
    assert state.round == 29
    assert RULES.outcome(state) is None
    state = play(state, None, None)
    assert RULES.outcome(state) == Outcome("round-limit", draw=True)


def test_the_round_limit_is_an_option() -> None:
    """ "(4) (option `max_rounds=30`) the round limit reached: draw." """
    state = start(options={"max_rounds": "2"})
    state = play(state, "SHIELD", None)
    assert RULES.outcome(state) is None
    state = play(state, "SHIELD", "SHIELD")
    assert RULES.outcome(state) == Outcome("round-limit", draw=True)


def test_the_end_is_only_checked_after_a_round() -> None:
    """ "End, checked after each round": a start with a ship already out of missiles is
    played for one round first."""
    state = start(missiles={"kirk": 0})
    assert RULES.outcome(state) is None
    state = play(state, "SHIELD", "FIRE")
    assert RULES.outcome(state) == Outcome("out-of-missiles", ("kang",))


# --- Round trips -------------------------------------------------------------------------------


def test_dump_and_load_round_trip() -> None:
    state = play(start(options={"max_rounds": "7"}), "FIRE", "SHIELD")
    assert RULES.load(RULES.dump(state)) == state
    # python-chess style: the repr is the code that rebuilds the value.
    assert eval(repr(state)) == state


def test_player_view_shows_the_public_counts_and_the_round() -> None:
    view = RULES.player_view(play(start(), "FIRE", "SHIELD"), "KIRK")
    assert view["you"] == "kirk"
    assert (view["round"], view["max_rounds"]) == (1, 30)
    assert view["missiles"] == {"kirk": 2, "kang": 3}
