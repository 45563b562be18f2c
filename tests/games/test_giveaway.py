"""Giveaway: named rule cases for every ruling of docs/rules/giveaway.md, and the worked examples
of rules 5 and 6 of ``sources/giveaway-v0.02.txt``.

Every expected number below is worked out by hand from the ruling quoted in the docstring.
Players are alice, bob, carol, ... in that seat order unless a test says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from adjudicator.core.errors import SetupError
from adjudicator.core.game import Report, Setup
from adjudicator.games import get_rules
from adjudicator.games.giveaway import RULES, GiveawayState, Ring, retire_player

PLAYERS = ("alice", "bob", "carol", "dave", "erin")


def start(
    players: Sequence[str] = PLAYERS[:3],
    *,
    holdings: Mapping[str, int] | None = None,
    nmr: str | None = None,
) -> GiveawayState:
    setup = Setup(start={"holdings": dict(holdings)} if holdings else {})
    options = {"nmr": nmr} if nmr else {}
    return RULES.start(players, options=options, setup=setup)


def play(state: GiveawayState, orders: Mapping[str, Sequence[str]]) -> tuple[GiveawayState, Report]:
    """One round; players left out send nothing. Every submission must be accepted."""
    checked = {}
    for player, lines in orders.items():
        result = RULES.check(state, player, lines)
        assert result.ok, result.problems
        checked[player] = result.orders
    resolution = RULES.resolve(state, checked)
    return resolution.state, resolution.report


def scores(state: GiveawayState) -> dict[str, int]:
    return dict(RULES.public_state(state)["scores"])


def holdings(state: GiveawayState) -> dict[str, int]:
    return dict(RULES.public_state(state)["holdings"])


def problem_codes(state: GiveawayState, player: str, lines: Sequence[str]) -> list[str]:
    return [p.code for p in RULES.check(state, player, lines).problems]


def paid(report: Report) -> dict[tuple[str, str], int]:
    return {(g["from"], g["to"]): g["paid"] for g in report.public["gifts"]}


# --- Players and options -------------------------------------------------------------------


def test_registered_under_its_record_name() -> None:
    assert get_rules("giveaway") is RULES
    assert RULES.option_defaults == {"nmr": "spread"}


def test_three_or_more_players_and_no_upper_limit() -> None:
    """ "Simultaneous, 3 or more players (no upper limit: mass games must work)." """
    with pytest.raises(SetupError):
        start(("alice", "bob"))
    many = [f"p{i}" for i in range(2000)]
    assert RULES.to_move(start(many)) == tuple(many)


def test_unknown_nmr_option_is_refused() -> None:
    with pytest.raises(SetupError):
        start(nmr="keep")
    with pytest.raises(SetupError):
        RULES.start(PLAYERS[:3], options={"nrm": "lose"}, setup=Setup())


# --- Holdings ------------------------------------------------------------------------------


def test_everyone_holds_three_points_in_round_one() -> None:
    """ "Everyone holds 3 points in round 1." """
    assert holdings(start()) == {"alice": 3, "bob": 3, "carol": 3}


def test_later_holdings_are_points_received_plus_three() -> None:
    """ "Later rounds: points received in the previous round (gifts plus ring bonus) + 3."

    alice and bob give each other 1 (a 2-ring: each receives 2), alice gives 2 to carol,
    bob 2 to carol, carol 3 to alice. alice: 2 + 3 = 5, bob: 2, carol: 2 + 2 = 4.
    """
    state, _ = play(
        start(),
        {
            "alice": ["GIVE 1 TO bob", "GIVE 2 TO carol"],
            "bob": ["GIVE 1 TO alice", "GIVE 2 TO carol"],
            "carol": ["GIVE 3 TO alice"],
        },
    )
    assert scores(state) == {"alice": 5, "bob": 2, "carol": 4}
    assert holdings(state) == {"alice": 8, "bob": 5, "carol": 7}


def test_a_records_start_line_overrides_round_one_holdings() -> None:
    """docs/record-format.md: ``start: holdings alice=5`` sets alice's round-1 holding."""
    state = start(holdings={"alice": 5})
    assert holdings(state) == {"alice": 5, "bob": 3, "carol": 3}
    assert problem_codes(state, "alice", ["GIVE 3 TO bob"]) == ["wrong-total"]
    with pytest.raises(SetupError):
        start(holdings={"zed": 5})
    with pytest.raises(SetupError):
        RULES.start(PLAYERS[:3], options={}, setup=Setup(start={"chips": {"alice": 1}}))


# --- Orders --------------------------------------------------------------------------------


def test_orders_give_the_whole_holding_to_other_players() -> None:
    """ "A submission must give away exactly the whole holding, in whole non-negative
    amounts, to other active players." """
    state = start()
    assert RULES.check(state, "alice", ["GIVE 3 TO bob"]).ok
    assert RULES.check(state, "alice", ["GIVE 0 TO carol", "GIVE 3 TO bob"]).ok
    assert problem_codes(state, "alice", ["GIVE 2 TO bob"]) == ["wrong-total"]
    assert problem_codes(state, "alice", ["GIVE 4 TO bob"]) == ["wrong-total"]


def test_several_lines_to_one_recipient_are_added_together() -> None:
    """ "Several lines to the same recipient are added together."

    alice's 1 + 1 to bob is one gift of 2, so with bob's 2 to alice it makes a 2-ring of 2:
    each receives 2 x 2 = 4.
    """
    state = start(holdings={"alice": 2, "bob": 2, "carol": 0})
    state, report = play(
        state, {"alice": ["GIVE 1 TO bob", "give 1 to bob"], "bob": ["GIVE 2 TO alice"]}
    )
    assert [g["amount"] for g in report.public["gifts"]] == [2, 2]
    assert state.rings == (Ring(("alice", "bob"), 2),)
    assert scores(state) == {"alice": 4, "bob": 4, "carol": 0}


def test_a_bad_submission_lists_every_problem_with_the_holding() -> None:
    """ "A submission that gives to oneself, to a non-player, a negative or fractional amount,
    or a total different from the holding is rejected at once with an error that says what is
    wrong and what the holding is." """
    state = start(holdings={"alice": 7})
    checked = RULES.check(
        state,
        "alice",
        [
            "GIVE 2 TO alice",
            "GIVE 1 TO bobb",
            "GIVE -1 TO bob",
            "GIVE 1.5 TO carol",
            "GIVE 6 TO bob",
        ],
    )
    assert not checked.ok
    codes = [p.code for p in checked.problems]
    assert codes == [
        "self-gift",
        "unknown-player",
        "negative-amount",
        "fractional-amount",
        "wrong-total",
    ]
    messages = {p.code: p.message for p in checked.problems}
    assert "did you mean 'bob'?" in messages["unknown-player"]
    assert checked.problems[1].suggestion == "GIVE 1 TO bob"
    assert messages["wrong-total"].startswith("you hold 7 points but your gifts add up to 9")
    assert all("you hold 7 points" in p.message for p in checked.problems)


def test_the_total_message_names_holding_and_sum() -> None:
    state = start(holdings={"alice": 7})
    [problem] = RULES.check(state, "alice", ["GIVE 4 TO bob", "GIVE 5 TO carol"]).problems
    assert problem.message == "you hold 7 points but your gifts add up to 9"
    assert problem.line is None


def test_gifts_to_players_no_longer_playing_are_refused() -> None:
    """Gifts go "to other active players": not to one the game master took out."""
    state = retire_player(start(PLAYERS[:4]), "dave")
    assert problem_codes(state, "alice", ["GIVE 3 TO dave"]) == ["inactive-player"]
    assert problem_codes(state, "dave", ["GIVE 3 TO alice"]) == ["not-playing"]
    assert RULES.to_move(state) == ("alice", "bob", "carol")
    assert "dave" not in scores(state)
    assert RULES.load(RULES.dump(state)) == state
    # bob and carol send nothing; dave is skipped: bob's 3 go 2 to carol and 1 to alice,
    # carol's 3 go 2 to alice and 1 to bob.
    state, _ = play(state, {"alice": ["GIVE 3 TO bob"]})
    assert scores(state) == {"alice": 1 + 2, "bob": 3 + 1, "carol": 2}


def test_handles_are_case_insensitive_and_chatter_is_unrecognised() -> None:
    """ "Player handles are case-insensitive" and the parser accepts "reasonable variants"."""
    checked = RULES.check(
        start(), "Alice", ["Hello all!", "  • give 2 points to Bob.", "1 → CAROL"]
    )
    assert checked.ok
    assert checked.unrecognised == ("Hello all!",)
    assert [RULES.format_order(o) for o in checked.orders] == ["GIVE 2 TO bob", "GIVE 1 TO carol"]


# --- Rings: the worked examples of rules 5 and 6 -------------------------------------------


def test_rule_5_first_example_two_ring() -> None:
    """Rule 5: "A gives B 1 point. B gives A 1 point. This sets up a co-operation ring between
    A and B ... If A and B give each other 1 point, they end up with 2 points each because of
    the co-operation ring." (carol holds nothing and gives nothing.)"""
    state = start(holdings={"alice": 1, "bob": 1, "carol": 0})
    state, report = play(state, {"alice": ["GIVE 1 TO bob"], "bob": ["GIVE 1 TO alice"]})
    assert scores(state) == {"alice": 2, "bob": 2, "carol": 0}
    assert report.public["rings"] == [
        {"members": ["alice", "bob"], "amount": 1, "size": 2, "bonus": 1}
    ]


def test_rule_5_second_example_three_ring() -> None:
    """Rule 5: "A gives B 1 point. B gives C 1 point. C gives A 1 point. This sets up a
    co-operation ring between A, B and C ... A, B and C end up with 3 points each because of
    the transaction ring." """
    state = start(holdings={"alice": 1, "bob": 1, "carol": 1})
    state, _ = play(
        state,
        {"alice": ["GIVE 1 TO bob"], "bob": ["GIVE 1 TO carol"], "carol": ["GIVE 1 TO alice"]},
    )
    assert scores(state) == {"alice": 3, "bob": 3, "carol": 3}
    assert state.rings == (Ring(("alice", "bob", "carol"), 1),)


def test_rule_6_example_breaks_the_larger_ring_only() -> None:
    """Rule 6: "A gives B 1 point. B gives A 1 point. B gives C 1 point. C gives A 1 point.
    Without rule 6, this would set up a co-operation ring between A, B and C, and also set up
    a co-operation ring between A and B. Rule 6 means that the larger co-operation ring doesn't
    exist ... However, there's no reason that the ring between A and B shouldn't exist."

    alice receives 1 x 2 from bob and 1 from carol: 3; bob 1 x 2 from alice: 2; carol 1.
    """
    state = start(holdings={"alice": 1, "bob": 2, "carol": 1})
    state, report = play(
        state,
        {
            "alice": ["GIVE 1 TO bob"],
            "bob": ["GIVE 1 TO alice", "GIVE 1 TO carol"],
            "carol": ["GIVE 1 TO alice"],
        },
    )
    assert state.rings == (Ring(("alice", "bob"), 1),)
    assert scores(state) == {"alice": 3, "bob": 2, "carol": 1}
    assert report.public["broken_cycles"] == [
        {
            "members": ["alice", "bob", "carol"],
            "amount": 1,
            "broken_by": [{"from": "bob", "to": "alice", "amount": 1}],
        }
    ]
    assert report.public["broken_cycles_total"] == 1


def six_ring() -> dict[str, list[str]]:
    ring = ["alice", "bob", "carol", "dave", "erin", "frank"]
    return {p: [f"GIVE 1 TO {ring[(i + 1) % 6]}"] for i, p in enumerate(ring)}


SIX = ("alice", "bob", "carol", "dave", "erin", "frank")


def test_a_ring_of_six_multiplies_by_six() -> None:
    """Rule 5: "The effect of setting up a co-operation ring is to multiply the value of the
    number of points changing hands by the number of people involved in the ring"."""
    state = start(SIX, holdings=dict.fromkeys(SIX, 1))
    state, _ = play(state, six_ring())
    assert set(scores(state).values()) == {6}
    assert state.rings == (Ring(SIX, 1),)


def test_sabotage_with_a_gift_of_another_amount() -> None:
    """Rule 6: "Players can sabotage co-operation rings easily. Suppose A, B, C, D, E and F
    decide to form a co-operation ring in that order." docs/rules/giveaway.md: "no other gift (of any
    amount, in either direction) exists between any two members". erin also gives 2 to bob:
    no ring at all, everyone receives just the gifts (bob 1 + 2)."""
    state = start(SIX, holdings={**dict.fromkeys(SIX, 1), "erin": 3})
    orders = six_ring()
    orders["erin"] = ["GIVE 1 TO frank", "GIVE 2 TO bob"]
    state, report = play(state, orders)
    assert state.rings == ()
    assert scores(state) == {**dict.fromkeys(SIX, 1), "bob": 3}
    [broken] = report.public["broken_cycles"]
    assert broken["members"] == list(SIX)
    assert broken["broken_by"] == [{"from": "erin", "to": "bob", "amount": 2}]


def test_sabotage_with_an_equal_gift_makes_a_smaller_ring() -> None:
    """A chord of the same amount breaks the big ring but closes a chordless smaller one:
    dave's extra 1 to alice makes alice -> bob -> carol -> dave -> alice a ring of 4 (the only
    gifts between those four), and breaks the ring of six. alice gets 1 x 4 from dave and 1
    from frank; bob, carol, dave 4 each; erin and frank 1."""
    state = start(SIX, holdings={**dict.fromkeys(SIX, 1), "dave": 2})
    orders = six_ring()
    orders["dave"] = ["GIVE 1 TO erin", "GIVE 1 TO alice"]
    state, report = play(state, orders)
    assert state.rings == (Ring(("alice", "bob", "carol", "dave"), 1),)
    assert scores(state) == {
        "alice": 5, "bob": 4, "carol": 4, "dave": 4, "erin": 1, "frank": 1
    }  # fmt: skip
    assert report.public["broken_cycles"][0]["broken_by"] == [
        {"from": "dave", "to": "alice", "amount": 1}
    ]


def test_a_gift_back_of_any_amount_breaks_a_longer_ring() -> None:
    """ "no other gift (of any amount, in either direction) exists between any two members":
    carol's 2 back to bob breaks alice -> bob -> carol -> alice."""
    state = start(holdings={"alice": 1, "bob": 1, "carol": 3})
    state, _ = play(
        state,
        {
            "alice": ["GIVE 1 TO bob"],
            "bob": ["GIVE 1 TO carol"],
            "carol": ["GIVE 1 TO alice", "GIVE 2 TO bob"],
        },
    )
    assert state.rings == ()
    assert scores(state) == {"alice": 1, "bob": 3, "carol": 1}


def test_a_gift_in_two_rings_collects_both_bonuses() -> None:
    """ "A gift in several rings. Possible (A->B->X->A and A->B->Y->A). The bonuses add: the
    gift pays k + sum over its rings of k x (size_i - 1)."

    alice -> bob pays 1 + 2 + 2 = 5; bob -> carol, carol -> alice, bob -> dave, dave -> alice
    each pay 1 x 3 = 3. alice receives 3 + 3 = 6.
    """
    state = start(PLAYERS[:4], holdings={"alice": 1, "bob": 2, "carol": 1, "dave": 1})
    state, report = play(
        state,
        {
            "alice": ["GIVE 1 TO bob"],
            "bob": ["GIVE 1 TO carol", "GIVE 1 TO dave"],
            "carol": ["GIVE 1 TO alice"],
            "dave": ["GIVE 1 TO alice"],
        },
    )
    assert state.rings == (Ring(("alice", "bob", "carol"), 1), Ring(("alice", "bob", "dave"), 1))
    assert paid(report)["alice", "bob"] == 5
    assert scores(state) == {"alice": 6, "bob": 5, "carol": 3, "dave": 3}


def test_unequal_amounts_make_no_ring() -> None:
    """ "whose edges all carry the same amount k >= 1": 1 one way, 2 the other is no ring."""
    state = start(holdings={"alice": 1, "bob": 2, "carol": 0})
    state, _ = play(state, {"alice": ["GIVE 1 TO bob"], "bob": ["GIVE 2 TO alice"]})
    assert state.rings == ()
    assert scores(state) == {"alice": 2, "bob": 1, "carol": 0}


def test_zero_gifts_are_not_gifts() -> None:
    """ "Build the directed graph of positive gifts": a gift of 0 breaks nothing."""
    state = start(holdings={"alice": 1, "bob": 1, "carol": 1})
    state, report = play(
        state,
        {
            "alice": ["GIVE 1 TO bob"],
            "bob": ["GIVE 1 TO carol", "GIVE 0 TO alice"],
            "carol": ["GIVE 1 TO alice"],
        },
    )
    assert state.rings == (Ring(("alice", "bob", "carol"), 1),)
    assert len(report.public["gifts"]) == 3


# --- Score and victory ---------------------------------------------------------------------


def test_score_is_everything_received_before_the_three() -> None:
    """ "A player's score for a round is everything received that round (gifts plus bonus),
    before the +3 of the next round." """
    state = start(holdings={"alice": 1, "bob": 1, "carol": 0})
    state, _ = play(state, {"alice": ["GIVE 1 TO bob"], "bob": ["GIVE 1 TO alice"]})
    assert scores(state) == {"alice": 2, "bob": 2, "carol": 0}
    assert holdings(state) == {"alice": 5, "bob": 5, "carol": 3}


FOUR = PLAYERS[:4]


def test_victory_goes_to_the_highest_score_once_someone_has_100() -> None:
    """Rule 1: "The winning player is the player with the highest score at the end of a round
    when at least one player has at least 100 points." dave 120 to alice, alice 7 to carol,
    carol 5 to bob: alice 120 wins."""
    state = start(FOUR, holdings={"alice": 7, "bob": 0, "carol": 5, "dave": 120})
    state, report = play(
        state,
        {"alice": ["GIVE 7 TO carol"], "carol": ["GIVE 5 TO bob"], "dave": ["GIVE 120 TO alice"]},
    )
    assert scores(state) == {"alice": 120, "bob": 5, "carol": 7, "dave": 0}
    assert RULES.outcome(state) is not None
    assert RULES.outcome(state).winners == ("alice",)  # type: ignore[union-attr]
    assert report.public["result"] == "victory"
    assert report.public["winner"] == "alice"
    assert RULES.to_move(state) == ()


def test_victory_tied_top_scores_are_out_of_consideration() -> None:
    """ "After each round, if any score is >= 100: consider only scores held by exactly one
    player; the highest of those wins. Tied players are out of consideration even when they
    are top." alice and bob tie on 120, carol has 7, dave 0: carol wins with 7."""
    state = start(FOUR, holdings={"alice": 7, "bob": 0, "carol": 120, "dave": 120})
    state, report = play(
        state,
        {"alice": ["GIVE 7 TO carol"], "carol": ["GIVE 120 TO bob"], "dave": ["GIVE 120 TO alice"]},
    )
    assert scores(state) == {"alice": 120, "bob": 120, "carol": 7, "dave": 0}
    assert report.public["winner"] == "carol"
    assert RULES.outcome(state).winners == ("carol",)  # type: ignore[union-attr]


def test_victory_no_unique_score_plays_another_round() -> None:
    """ "If no score is unique, play another round." alice and bob 100, carol and dave 5."""
    state = start(FOUR, holdings={"alice": 5, "bob": 5, "carol": 100, "dave": 100})
    state, report = play(
        state,
        {
            "alice": ["GIVE 5 TO carol"],
            "bob": ["GIVE 5 TO dave"],
            "carol": ["GIVE 100 TO bob"],
            "dave": ["GIVE 100 TO alice"],
        },
    )
    assert scores(state) == {"alice": 100, "bob": 100, "carol": 5, "dave": 5}
    assert report.public["result"] == "no-unique-score-yet"
    assert report.public["winner"] is None
    assert RULES.outcome(state) is None
    assert RULES.to_move(state) == FOUR


def test_no_victory_below_100_even_with_a_unique_top() -> None:
    """Rule 1 looks for a winner only "when at least one player has at least 100 points"."""
    state = start(FOUR, holdings={"alice": 0, "bob": 0, "carol": 0, "dave": 99})
    state, report = play(state, {"dave": ["GIVE 99 TO alice"]})
    assert report.public["result"] == "no-score-of-100-yet"
    assert RULES.outcome(state) is None


def test_checking_after_the_game_is_over() -> None:
    state = start(FOUR, holdings={"alice": 0, "bob": 0, "carol": 0, "dave": 100})
    state, _ = play(state, {"dave": ["GIVE 100 TO alice"]})
    assert RULES.outcome(state) is not None
    assert problem_codes(state, "alice", ["GIVE 103 TO bob"]) == ["game-over"]


# --- No orders -----------------------------------------------------------------------------


def test_nmr_spread_remainder_goes_to_the_following_seats() -> None:
    """ "The holding is split as evenly as possible among all other active players; the
    remainder goes 1 point each to the players following the NMR player in seat order."

    dave (seat 4 of 5) holds 7 and sends nothing: 7 = 4 x 1 + 3, so the three players after
    him, erin, alice and bob, get 2 and carol gets 1.
    """
    state = start(PLAYERS, holdings={"alice": 0, "bob": 0, "carol": 0, "dave": 7, "erin": 0})
    state, report = play(state, {})
    assert scores(state) == {"alice": 2, "bob": 2, "carol": 1, "dave": 0, "erin": 2}
    assert report.public["no_orders"] == [
        {"player": p, "holding": h, "rule": "spread"}
        for p, h in (("alice", 0), ("bob", 0), ("carol", 0), ("dave", 7), ("erin", 0))
    ]
    assert report.codes["dave"] == ["no-orders-spread"]


def test_nmr_spread_gives_nothing_to_anyone_when_less_than_one_each() -> None:
    """The split of 2 points among 4 others: 0 each, remainder 1 to erin and alice."""
    state = start(PLAYERS, holdings={"alice": 0, "bob": 0, "carol": 0, "dave": 2, "erin": 0})
    _, report = play(state, {})
    assert paid(report) == {("dave", "erin"): 1, ("dave", "alice"): 1}


def test_nmr_spread_gifts_make_and_break_rings() -> None:
    """ "These gifts are ordinary gifts: they count for rings and they break rings."

    alice 1 to bob, bob 1 to carol; carol (3 points) sends nothing: 1 each to dave, alice and
    bob. carol's 1 to alice would close alice -> bob -> carol -> alice, but carol's 1 to bob
    breaks it, and itself makes the 2-ring bob <-> carol. alice 1, bob 1 + 2, carol 2, dave 1.
    """
    state = start(FOUR, holdings={"alice": 1, "bob": 1, "carol": 3, "dave": 0})
    state, report = play(
        state, {"alice": ["GIVE 1 TO bob"], "bob": ["GIVE 1 TO carol"], "dave": []}
    )
    assert state.rings == (Ring(("bob", "carol"), 1),)
    assert scores(state) == {"alice": 1, "bob": 3, "carol": 2, "dave": 1}
    [broken] = report.public["broken_cycles"]
    assert broken["members"] == ["alice", "bob", "carol"]
    assert broken["broken_by"] == [{"from": "carol", "to": "bob", "amount": 1}]


def test_nmr_lose_option_loses_the_holding() -> None:
    """ "Option nmr=lose: the holding is lost instead (a house variant; it breaks rule 3)." """
    state = start(nmr="lose")
    state, report = play(state, {"alice": ["GIVE 3 TO bob"]})
    assert scores(state) == {"alice": 0, "bob": 3, "carol": 0}
    assert report.public["no_orders"] == [
        {"player": "bob", "holding": 3, "rule": "lose"},
        {"player": "carol", "holding": 3, "rule": "lose"},
    ]
    assert report.codes == {
        "alice": ["given"],
        "bob": ["no-orders-lost"],
        "carol": ["no-orders-lost"],
    }


# --- Report and replay state ---------------------------------------------------------------


def test_report_is_all_public_data() -> None:
    """ "After adjudication every gift is public: the full gift list, each ring formed (members
    in ring order, amount, size), each equal-amount cycle that rule 6 broke and the gift that
    broke it, each player's score and next holding, and the winner or 'no unique score
    yet'." """
    state = start(holdings={"alice": 1, "bob": 2, "carol": 1})
    state, report = play(
        state,
        {
            "alice": ["GIVE 1 TO bob"],
            "bob": ["GIVE 1 TO alice", "GIVE 1 TO carol"],
            "carol": ["GIVE 1 TO alice"],
        },
    )
    assert report.public == {
        "round": 1,
        "gifts": [
            {"from": "alice", "to": "bob", "amount": 1, "paid": 2},
            {"from": "bob", "to": "alice", "amount": 1, "paid": 2},
            {"from": "bob", "to": "carol", "amount": 1, "paid": 1},
            {"from": "carol", "to": "alice", "amount": 1, "paid": 1},
        ],
        "no_orders": [],
        "rings": [{"members": ["alice", "bob"], "amount": 1, "size": 2, "bonus": 1}],
        "broken_cycles": [
            {
                "members": ["alice", "bob", "carol"],
                "amount": 1,
                "broken_by": [{"from": "bob", "to": "alice", "amount": 1}],
            }
        ],
        "broken_cycles_total": 1,
        "scores": {"alice": 3, "bob": 2, "carol": 1},
        "holdings": {"alice": 6, "bob": 5, "carol": 4},
        "result": "no-score-of-100-yet",
        "winner": None,
    }
    assert report.codes == {"alice": ["given"], "bob": ["given", "given"], "carol": ["given"]}


def test_replay_state_rings_start_with_the_alphabetically_first_and_are_sorted() -> None:
    """docs/record-format.md: ``rings`` [{members: [players in ring order, starting with the
    alphabetically first], amount}] sorted by members. dave -> carol -> bob -> dave (amount 2)
    is written bob, dave, carol; alice <-> erin (1) comes first."""
    state = start(PLAYERS, holdings={"alice": 1, "bob": 2, "carol": 2, "dave": 2, "erin": 1})
    state, _ = play(
        state,
        {
            "alice": ["GIVE 1 TO erin"],
            "erin": ["GIVE 1 TO alice"],
            "dave": ["GIVE 2 TO carol"],
            "carol": ["GIVE 2 TO bob"],
            "bob": ["GIVE 2 TO dave"],
        },
    )
    assert RULES.public_state(state) == {
        "scores": {"alice": 2, "bob": 6, "carol": 6, "dave": 6, "erin": 2},
        "holdings": {"alice": 5, "bob": 9, "carol": 9, "dave": 9, "erin": 5},
        "rings": [
            {"members": ["alice", "erin"], "amount": 1},
            {"members": ["bob", "dave", "carol"], "amount": 2},
        ],
    }


def test_player_view_adds_the_own_holding() -> None:
    view = RULES.player_view(start(holdings={"bob": 8}), "bob")
    assert view["holding"] == 8
    assert view["round"] == 0


def test_resolve_refuses_unchecked_orders() -> None:
    """ "resolve never raises on checked orders"; orders that would not pass check are a bug."""
    state = start()
    with pytest.raises(ValueError, match="not checked"):
        RULES.resolve(state, {"alice": [RULES.parse_order("GIVE 9 TO bob")]})


def test_placings_are_the_winner_then_last_round_scores_with_ties_shared() -> None:
    """docs/tournaments.md, finer placings: the winner, then the players still in by their
    score of the last round (equal scores share a place), then those taken out. alice holds
    58, bob and carol 25, dave 8: rings alice-bob and alice-carol of 25 pay 50 each way, and
    alice-dave of 8 pays 16: alice 116 wins, bob and carol 50 tie, dave 16."""
    state = start(PLAYERS[:4], holdings={"alice": 58, "bob": 25, "carol": 25, "dave": 8})
    state, _ = play(
        state,
        {
            "alice": ["GIVE 25 TO bob", "GIVE 25 TO carol", "GIVE 8 TO dave"],
            "bob": ["GIVE 25 TO alice"],
            "carol": ["GIVE 25 TO alice"],
            "dave": ["GIVE 8 TO alice"],
        },
    )
    assert RULES.placings(state) == (("alice",), ("bob", "carol"), ("dave",))
