"""SiSSYFiGHT 3000: named rule cases, one or more per ruling of docs/rules/sissyfight.md.

Every expected number below is worked out by hand from the ruling quoted in the docstring.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, SetupError
from adjudicator.core.game import Outcome, Setup
from adjudicator.games import get_rules
from adjudicator.games.sissyfight import RULES, Action, SissyState, retire_player

THREE = ("alice", "bob", "carol")  # red, green, blue
FOUR = ("alice", "bob", "carol", "dave")  # red, green, blue, black


def start(
    players: tuple[str, ...] = FOUR,
    *,
    colours: Mapping[str, str] | None = None,
    chips: Mapping[str, int] | None = None,
) -> SissyState:
    setup = Setup(colours=colours or {}, start={"chips": chips} if chips else {})
    return RULES.start(players, options={}, setup=setup)


def turn(state: SissyState, lines: Mapping[str, str]) -> SissyState:
    """Check every player's line (all must be accepted) and resolve the turn."""
    orders = {}
    for player, line in lines.items():
        checked = RULES.check(state, player, [line])
        assert checked.ok, checked.problems
        orders[player] = checked.orders
    return RULES.resolve(state, orders).state


def chips(state: SissyState) -> dict[str, int]:
    return dict(RULES.public_state(state)["chips"])


def codes(state: SissyState, player: str, lines: list[str]) -> list[str]:
    return [p.code for p in RULES.check(state, player, lines).problems]


# --- Setup -------------------------------------------------------------------------------------


def test_registry_finds_the_game() -> None:
    assert get_rules("sissyfight") is RULES
    assert RULES.name == "sissyfight"
    assert RULES.sequential is False


@pytest.mark.parametrize("count", [3, 4, 5, 6])
def test_three_to_six_players(count: int) -> None:
    """ "Simultaneous, 3-6 players." """
    players = ("ann", "ben", "cat", "dan", "eve", "fay")[:count]
    state = start(players)
    assert RULES.to_move(state) == players


@pytest.mark.parametrize("count", [1, 2, 7])
def test_fewer_than_three_or_more_than_six_players_refused(count: int) -> None:
    """ "Simultaneous, 3-6 players." """
    players = ("ann", "ben", "cat", "dan", "eve", "fay", "gus")[:count]
    with pytest.raises(SetupError, match="3 to 6 players"):
        start(players)


def test_colours_in_seat_order() -> None:
    """ "Colours are red, green, blue, black, white, grey, given in seat order unless the game
    master assigns them." """
    state = start(("ann", "ben", "cat", "dan", "eve", "fay"))
    assert RULES.public_state(state)["colours"] == {
        "ann": "red",
        "ben": "green",
        "cat": "blue",
        "dan": "black",
        "eve": "white",
        "fay": "grey",
    }


def test_game_master_assigns_colours_and_seat_order_fills_the_rest() -> None:
    """ "... given in seat order unless the game master assigns them." Players without an
    assigned colour take the unused colours in the usual order, by seat."""
    state = start(colours={"carol": "red", "alice": "Grey"})
    assert RULES.public_state(state)["colours"] == {
        "alice": "grey",
        "bob": "green",
        "carol": "red",
        "dave": "blue",
    }


@pytest.mark.parametrize(
    ("colours", "message"),
    [
        ({"alice": "purple"}, "not a colour"),
        ({"alice": "red", "bob": "red"}, "more than one player"),
        ({"alicia": "red"}, "did you mean 'alice'"),
    ],
)
def test_bad_colour_assignments_refused(colours: dict[str, str], message: str) -> None:
    """Colours must be known, used once, and given to players of the game."""
    with pytest.raises(SetupError, match=message):
        start(colours=colours)


def test_everyone_starts_with_ten_chips() -> None:
    """ "Everyone starts with 10 chips." """
    assert chips(start()) == {"alice": 10, "bob": 10, "carol": 10, "dave": 10}


def test_start_line_overrides_chips() -> None:
    """docs/record-format.md: ``start: chips alice=1`` sets a counter for the listed players."""
    assert chips(start(chips={"alice": 1, "dave": 3})) == {
        "alice": 1,
        "bob": 10,
        "carol": 10,
        "dave": 3,
    }


@pytest.mark.parametrize("bad", [{"chips": {"alice": 0}}, {"missiles": {"alice": 1}}])
def test_bad_start_lines_refused(bad: dict[str, dict[str, int]]) -> None:
    with pytest.raises(SetupError):
        RULES.start(FOUR, options={}, setup=Setup(start=bad))


def test_no_options() -> None:
    with pytest.raises(SetupError, match="unknown option"):
        RULES.start(FOUR, options={"nmr": "lose"}, setup=Setup())


# --- Orders ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("SOLO red", Action("SOLO", "red")),
        ("TEAM green", Action("TEAM", "green")),
        ("DEFEND", Action("DEFEND")),
        ("solo Red", Action("SOLO", "red")),
        ("  • team   BLUE.", Action("TEAM", "blue")),
        ("team up with grey", Action("TEAM", "grey")),
        ("TEAM → gray", Action("TEAM", "grey")),
        ("solo: black", Action("SOLO", "black")),
        ("SOLO on white", Action("SOLO", "white")),
        ("solo attack against bob", Action("SOLO", "bob")),
        ("Defend!", Action("DEFEND")),
        ("TEAM-UP blue", Action("TEAM", "blue")),
        ("TEAM -> black", Action("TEAM", "black")),
        ("DEFENCE", Action("DEFEND")),
        ("defense", Action("DEFEND")),
    ],
)
def test_canonical_orders_and_variants(text: str, action: Action) -> None:
    """ "Canonical `SOLO <colour>`, `TEAM <colour>`, `DEFEND`." Keywords and colours are
    case-insensitive; the parser accepts reasonable variants."""
    assert RULES.parse_order(text) == action


def test_a_target_named_with_defend_is_ignored() -> None:
    """ "A target named with `DEFEND` is ignored." """
    assert RULES.parse_order("DEFEND red") == Action("DEFEND")
    checked = RULES.check(start(), "alice", ["DEFEND red"])
    assert checked.ok
    assert [RULES.format_order(a) for a in checked.orders] == ["DEFEND"]


def test_a_handle_may_be_used_instead_of_a_colour() -> None:
    """ "A player handle may be used instead of a colour." The canonical order names the
    colour."""
    checked = RULES.check(start(), "alice", ["TEAM Carol"])
    assert checked.ok
    assert [RULES.format_order(a) for a in checked.orders] == ["TEAM blue"]


def test_chatter_is_not_an_order() -> None:
    with pytest.raises(NotAnOrder):
        RULES.parse_order("Hi all, shall we gang up on red?")
    checked = RULES.check(start(), "alice", ["Hello!", "SOLO green", "cheers, alice"])
    assert checked.ok
    assert checked.unrecognised == ("Hello!", "cheers, alice")


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [("SOLO", None), ("sollo red", "SOLO red"), ("TEAM red blue", None), ("SOLO 42", None)],
)
def test_broken_orders_are_syntax_errors(text: str, suggestion: str | None) -> None:
    with pytest.raises(OrderSyntaxError) as caught:
        RULES.parse_order(text)
    assert caught.value.suggestion == suggestion


def test_one_action_per_turn() -> None:
    """ "One action per turn." Two order lines are rejected, as is two actions on one line."""
    state = start()
    assert codes(state, "alice", ["SOLO green", "DEFEND"]) == ["one-action"]
    assert codes(state, "alice", ["SOLO green TEAM blue"]) == ["syntax"]


def test_targeting_oneself_is_rejected() -> None:
    """ "Targeting oneself or an eliminated player is rejected at submission." """
    state = start()
    assert codes(state, "alice", ["SOLO red"]) == ["self-target"]
    assert codes(state, "alice", ["TEAM alice"]) == ["self-target"]


def test_targeting_an_eliminated_player_is_rejected() -> None:
    """ "Targeting oneself or an eliminated player is rejected at submission." """
    state = start(chips={"dave": 1})
    state = turn(state, {"alice": "SOLO black", "bob": "SOLO black", "carol": "DEFEND"})
    assert RULES.public_state(state)["out"] == ["dave"]
    assert codes(state, "alice", ["SOLO black"]) == ["target-out"]
    assert codes(state, "alice", ["SOLO dave"]) == ["target-out"]


def test_an_eliminated_player_sends_no_orders() -> None:
    """ "Players at 0 are out." An eliminated player is not waited for and cannot act."""
    state = start(chips={"dave": 1})
    # dave sends nothing: an untargeted DEFEND, 1 chip, and he is out.
    state = turn(state, {"alice": "SOLO green", "bob": "SOLO red", "carol": "DEFEND"})
    assert RULES.to_move(state) == ("alice", "bob", "carol")
    assert codes(state, "dave", ["SOLO red"]) == ["player-out"]


def test_unknown_target_suggests_the_closest_name() -> None:
    problems = RULES.check(start(), "alice", ["SOLO bobb"]).problems
    assert [(p.code, p.suggestion) for p in problems] == [("unknown-target", "SOLO green")]
    assert "did you mean 'bob'" in problems[0].message
    assert codes(start(THREE), "alice", ["SOLO black"]) == ["unknown-target"]


def test_every_problem_at_once() -> None:
    problems = codes(start(), "alice", ["SOLO red", "TEAM zed", "DEFEND me now"])
    assert sorted(problems) == ["one-action", "self-target", "syntax", "unknown-target"]


def test_a_handle_that_is_another_players_colour_is_ambiguous() -> None:
    """A handle may stand for a colour; when a word is one player's colour and another's
    handle, the player must say which colour they mean."""
    state = RULES.start(("red", "bob", "carol"), options={}, setup=Setup())
    # red is seat 0 and coloured red: no ambiguity.
    assert RULES.check(state, "bob", ["SOLO red"]).ok
    state = RULES.start(("blue", "bob", "carol"), options={}, setup=Setup())
    # the player "blue" is red; carol is blue.
    assert codes(state, "bob", ["SOLO blue"]) == ["ambiguous-target"]


# --- Resolution --------------------------------------------------------------------------------


def test_one_chip_per_solo() -> None:
    """ "For each target: 1 per SOLO on it." """
    state = turn(start(THREE), {"alice": "SOLO blue", "bob": "SOLO blue", "carol": "SOLO red"})
    assert chips(state) == {"alice": 9, "bob": 10, "carol": 8}


def test_a_lone_team_does_nothing() -> None:
    """ "plus 2 per TEAM on it if at least two TEAMs name it (a lone TEAM does nothing)." """
    state = turn(start(THREE), {"alice": "TEAM blue", "bob": "SOLO red", "carol": "SOLO red"})
    assert chips(state) == {"alice": 8, "bob": 10, "carol": 10}


def test_two_teams_cost_two_each() -> None:
    """ "plus 2 per TEAM on it if at least two TEAMs name it." Two TEAMs: 4."""
    state = turn(start(THREE), {"alice": "TEAM blue", "bob": "TEAM blue", "carol": "SOLO red"})
    assert chips(state) == {"alice": 9, "bob": 10, "carol": 6}


def test_three_teams_and_a_solo() -> None:
    """ "1 per SOLO on it, plus 2 per TEAM on it if at least two TEAMs name it": 1 + 3 x 2."""
    state = start(("ann", "ben", "cat", "dan", "eve"))  # red green blue black white
    state = turn(
        state,
        {
            "ann": "TEAM white",
            "ben": "TEAM white",
            "cat": "TEAM white",
            "dan": "SOLO white",
            "eve": "SOLO red",
        },
    )
    assert chips(state) == {"ann": 9, "ben": 10, "cat": 10, "dan": 10, "eve": 3}


def test_a_defender_loses_half_rounded_down() -> None:
    """ "A player who DEFENDs loses floor(total / 2) if any SOLO or TEAM ... named them": two
    TEAMs and a SOLO make 5, halved to 2."""
    state = turn(
        start(), {"alice": "TEAM blue", "bob": "TEAM blue", "carol": "DEFEND", "dave": "SOLO blue"}
    )
    # alice and bob are not attacked; dave is not attacked either.
    assert chips(state) == {"alice": 10, "bob": 10, "carol": 8, "dave": 10}


def test_a_defender_hit_by_one_solo_loses_nothing() -> None:
    """ "loses floor(total / 2) if any SOLO ... named them": floor(1 / 2) = 0."""
    state = turn(start(THREE), {"alice": "SOLO blue", "bob": "DEFEND", "carol": "DEFEND"})
    # bob is not named: exactly 1.
    assert chips(state) == {"alice": 10, "bob": 9, "carol": 10}


def test_a_lone_harmless_team_still_protects_a_defender() -> None:
    """ "A player who DEFENDs loses floor(total / 2) if any SOLO or TEAM (even a lone, harmless
    TEAM) named them, otherwise exactly 1." A lone TEAM makes a total of 0, halved to 0."""
    state = turn(start(THREE), {"alice": "TEAM blue", "bob": "DEFEND", "carol": "DEFEND"})
    assert chips(state) == {"alice": 10, "bob": 9, "carol": 10}


def test_a_defender_named_by_two_solos_and_a_lone_team() -> None:
    """ "loses floor(total / 2)": two SOLOs (2) and a lone TEAM (0) make 2, halved to 1."""
    state = turn(
        start(),
        {"alice": "SOLO black", "bob": "SOLO black", "carol": "TEAM black", "dave": "DEFEND"},
    )
    assert chips(state) == {"alice": 10, "bob": 10, "carol": 10, "dave": 9}


def test_an_untargeted_defender_loses_exactly_one() -> None:
    """ "... otherwise exactly 1." """
    state = turn(start(THREE), {"alice": "DEFEND", "bob": "DEFEND", "carol": "DEFEND"})
    assert chips(state) == {"alice": 9, "bob": 9, "carol": 9}


def test_losses_never_go_below_zero_and_zero_is_out() -> None:
    """ "Subtract all losses at once, never below 0. Players at 0 are out." """
    state = start(chips={"carol": 3})
    state = turn(
        state, {"alice": "TEAM blue", "bob": "TEAM blue", "carol": "SOLO red", "dave": "DEFEND"}
    )
    assert chips(state) == {"alice": 9, "bob": 10, "carol": 0, "dave": 9}
    assert RULES.public_state(state)["out"] == ["carol"]
    assert RULES.to_move(state) == ("alice", "bob", "dave")


def test_all_losses_are_taken_at_once() -> None:
    """ "Subtract all losses at once": players knocked out this turn still deal their damage."""
    state = start(("ann", "ben", "cat", "dan", "eve"), chips={"ann": 1, "ben": 1})
    state = turn(
        state,
        {
            "ann": "SOLO green",
            "ben": "SOLO red",
            "cat": "SOLO white",
            "dan": "DEFEND",
            "eve": "DEFEND",
        },
    )
    # ann and ben knock each other out; eve (named by one SOLO) loses floor(1/2) = 0; dan loses 1.
    assert chips(state) == {"ann": 0, "ben": 0, "cat": 10, "dan": 9, "eve": 10}
    assert RULES.outcome(state) is None


def test_report_lists_actions_damage_chips_and_who_is_out() -> None:
    """Report data per round: each action and target, damage taken, chips, who is out."""
    state = start(chips={"dave": 1})
    checked = {
        p: RULES.check(state, p, [line]).orders
        for p, line in {"alice": "TEAM black", "bob": "team dave", "carol": "DEFEND"}.items()
    }
    report = RULES.resolve(state, checked).report
    public = report.public
    assert public["actions"] == {
        "alice": {"action": "TEAM", "target": "black"},
        "bob": {"action": "TEAM", "target": "black"},
        "carol": {"action": "DEFEND", "target": None},
        "dave": {"action": "DEFEND", "target": None},
    }
    assert public["no_orders"] == ["dave"]
    # dave DEFENDs (no orders) against two TEAMs: floor(4 / 2) = 2, but holds only 1.
    assert public["damage"] == {"alice": 0, "bob": 0, "carol": 1, "dave": 2}
    assert public["chips_lost"] == {"alice": 0, "bob": 0, "carol": 1, "dave": 1}
    assert public["knocked_out"] == ["dave"]
    assert public["out"] == ["dave"]
    assert public["chips"] == {"alice": 10, "bob": 10, "carol": 9, "dave": 0}
    assert report.codes == {
        "alice": ["applied"],
        "bob": ["applied"],
        "carol": ["applied"],
        "dave": ["nmr-defend"],
    }


# --- No orders ---------------------------------------------------------------------------------


def test_no_orders_is_defend_untargeted() -> None:
    """ "NMR. Treated as `DEFEND` (lose 1 if untargeted, else half)." """
    state = start(THREE)
    state = RULES.resolve(state, {}).state
    assert chips(state) == {"alice": 9, "bob": 9, "carol": 9}


def test_no_orders_is_defend_targeted() -> None:
    """ "NMR. Treated as `DEFEND` (lose 1 if untargeted, else half)": two TEAMs, 4, halved."""
    state = start(THREE)
    orders = {p: RULES.check(state, p, ["TEAM blue"]).orders for p in ("alice", "bob")}
    state = RULES.resolve(state, orders).state
    assert chips(state) == {"alice": 10, "bob": 10, "carol": 8}


def test_rejected_orders_count_as_no_orders() -> None:
    """docs/record-format.md: a rejected submission is treated as no orders, so as DEFEND."""
    state = start(THREE)
    assert not RULES.check(state, "carol", ["SOLO blue"]).ok
    state = RULES.resolve(state, {"carol": ()}).state
    assert chips(state) == {"alice": 9, "bob": 9, "carol": 9}


# --- End ---------------------------------------------------------------------------------------


def test_one_player_left_wins() -> None:
    """ "If at the end of a turn one or two players remain, they win." """
    state = start(THREE, chips={"alice": 1, "bob": 1})
    state = turn(state, {"alice": "SOLO green", "bob": "SOLO red", "carol": "SOLO red"})
    assert chips(state) == {"alice": 0, "bob": 0, "carol": 10}
    assert RULES.outcome(state) == Outcome("last-standing", ("carol",))
    assert RULES.to_move(state) == ()


def test_two_players_left_win_jointly() -> None:
    """ "If at the end of a turn one or two players remain, they win (jointly)." """
    state = start(chips={"carol": 2, "dave": 1})
    state = turn(
        state, {"alice": "TEAM blue", "bob": "TEAM blue", "carol": "SOLO black", "dave": "DEFEND"}
    )
    # carol: two TEAMs, 4 -> 0. dave DEFENDs against one SOLO: floor(1/2) = 0, stays on 1.
    assert chips(state) == {"alice": 10, "bob": 10, "carol": 0, "dave": 1}
    assert RULES.outcome(state) is None
    state = turn(state, {"alice": "SOLO black", "bob": "DEFEND", "dave": "SOLO green"})
    # dave: one SOLO, 1 -> 0. bob DEFENDs against one SOLO: 0.
    assert chips(state) == {"alice": 10, "bob": 10, "carol": 0, "dave": 0}
    assert RULES.outcome(state) == Outcome("last-standing", ("alice", "bob"))


def test_everyone_at_zero_in_the_same_turn_means_no_winner() -> None:
    """ "If every remaining player reaches 0 in the same turn, the game ends with no winner."
    Decided: finished, no winners, and not a draw."""
    state = start(THREE, chips={"alice": 1, "bob": 1, "carol": 1})
    state = RULES.resolve(state, {}).state  # three untargeted DEFENDs: 1 each
    assert chips(state) == {"alice": 0, "bob": 0, "carol": 0}
    assert RULES.outcome(state) == Outcome("all-out", (), draw=False)
    assert RULES.to_move(state) == ()
    assert codes(state, "alice", ["DEFEND"]) == ["game-over"]


# --- Talk --------------------------------------------------------------------------------------


def test_press_must_be_public() -> None:
    """ "Communication must be public: the service relays a player's press message to every
    player of the game and refuses private (one-to-one) press in this game." """
    assert RULES.press_policy == "public-only"


# --- Round trips -------------------------------------------------------------------------------


def test_dump_and_load_round_trip() -> None:
    state = turn(start(colours={"dave": "grey"}), {"alice": "SOLO grey"})
    assert RULES.load(RULES.dump(state)) == state
    # python-chess style: the repr is the code that rebuilds the value.
    assert eval(repr(state)) == state


def test_player_view_names_the_players_colour() -> None:
    view = RULES.player_view(start(), "Carol")
    assert view["you"] == {"player": "carol", "colour": "blue"}
    assert view["chips"]["carol"] == 10


def test_a_player_taken_out_defends_in_the_turn_under_way_and_is_out_at_its_end() -> None:
    """docs/rules/sissyfight.md, "Players taken out": "in the turn under way that player sends
    no more orders, counts as having played DEFEND and may still be targeted; at the end of
    the turn the player is out ... and the End of the game is checked as after every turn"."""
    state = retire_player(start(), "dave")
    assert RULES.to_move(state) == ("alice", "bob", "carol")
    assert RULES.check(state, "dave", ["DEFEND"]).problems[0].code == "player-out"
    assert RULES.load(RULES.dump(state)) == state  # kept between the mails of the turn
    resolution = RULES.resolve(state, {"alice": [Action("SOLO", "black")]})
    public = resolution.report.public
    assert public["actions"]["dave"] == {"action": "DEFEND", "target": None}
    assert public["damage"]["dave"] == 0  # a lone SOLO on a DEFENDer: half of 1, rounded down
    assert public["removed"] == ["dave"]
    assert public["knocked_out"] == []
    assert RULES.public_state(resolution.state)["out"] == ["dave"]
    assert RULES.outcome(resolution.state) is None  # three are left

    last = RULES.resolve(retire_player(resolution.state, "carol"), {})
    assert RULES.outcome(last.state) == Outcome("last-standing", ("alice", "bob"))
