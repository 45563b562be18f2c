"""Giveaway orders: the canonical form, the variants people write, and what is not an order.

docs/rules/README.md: "the parser accepts the canonical form plus reasonable variants (extra
spaces, commas, lower case, ``to``/``→``, etc.)"; section 1: "Canonical: one
``GIVE <n> TO <player>`` line per recipient."
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.game import Setup
from adjudicator.games.giveaway import RULES, Gift
from adjudicator.games.giveaway.orders import GiftSyntaxError


@pytest.mark.parametrize(
    "text",
    [
        "GIVE 3 TO bob",
        "give 3 to bob",
        "Give 3 to Bob.",
        "GIVE  3   TO   bob",
        "GIVE 3 POINTS TO bob",
        "give 3 pts to bob",
        "GIVE 3 -> bob",
        "GIVE 3 --> bob",
        "GIVE 3 => bob",
        "give 3 → bob",
        "GIVE 3, TO bob,",
        "GIVE 3: bob",
        "GIVE 3 bob",
        "give bob 3",
        "give to bob 3 points",
        "send 3 to bob",
        "3 to bob",
        "3 points -> bob",
        "3 → bob",
        "- GIVE 3 TO bob",
        "* give 3 to bob;",
        "• give 3 to bob",
        "1. GIVE 3 TO bob",
        "GIVE\u00a03 TO bob",
        'give 3 to "bob"',
        "GIVE 03 TO bob",
        "give +3 to bob!",
    ],
)
def test_variants_read_as_the_canonical_order(text: str) -> None:
    assert RULES.parse_order(text) == Gift(3, "bob")
    assert RULES.format_order(RULES.parse_order(text)) == "GIVE 3 TO bob"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Hello everybody!",
        "Thanks for the points, bob",
        "Give my regards to everyone",
        "10 to 1 odds on carol",
        "See you in round 3",
        "give",
        "-- ",
        "I will give you nothing",
    ],
)
def test_chatter_is_not_an_order(text: str) -> None:
    with pytest.raises(NotAnOrder):
        RULES.parse_order(text)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("GIVE -3 TO bob", "negative-amount"),
        ("GIVE 1.5 TO bob", "fractional-amount"),
        ("give 1,5 to bob", "fractional-amount"),
        ("give ½ to bob", "fractional-amount"),
        ("GIVE 3/2 TO bob", "fractional-amount"),
        ("give three to bob", "amount-in-words"),
        ("give all to bob", "amount-in-words"),
        ("GIVE 3", "no-recipient"),
        ("GIVE 3 TO", "no-recipient"),
        ("GIVE 3 TO bob and 2 TO carol", "several-gifts"),
        ("GIVE 3 TO bob please", "extra-words"),
        ("GIVE 3 TO b$b", "bad-recipient"),
        ("GIVE 3 TO 7bob", "bad-recipient"),
        ("give 10000000000000000000 to bob", "amount-too-large"),
    ],
)
def test_attempts_that_cannot_be_read_say_why(text: str, code: str) -> None:
    with pytest.raises(GiftSyntaxError) as error:
        RULES.parse_order(text)
    assert error.value.code == code
    assert repr(text.strip()) in str(error.value) or text.strip() in str(error.value)


def test_handles_with_digits_dashes_and_odd_words() -> None:
    assert RULES.parse_order("give bob2 3") == Gift(3, "bob2")
    assert RULES.parse_order("GIVE 3 TO bob_") == Gift(3, "bob_")
    assert RULES.parse_order("GIVE 3 TO to") == Gift(3, "to")
    assert RULES.parse_order("GIVE 3 TO points") == Gift(3, "points")
    assert RULES.parse_order("GIVE 3 TO give") == Gift(3, "give")


def test_check_skips_blank_lines_and_reports_chatter() -> None:
    state = RULES.start(("alice", "bob", "carol"), options={}, setup=Setup())
    checked = RULES.check(state, "alice", ["", "Dear all,", "GIVE 3 TO bob", "   ", "cheers"])
    assert checked.ok
    assert checked.unrecognised == ("Dear all,", "cheers")


def test_no_gift_at_all_says_what_to_do() -> None:
    state = RULES.start(("alice", "bob", "carol"), options={}, setup=Setup())
    [problem] = RULES.check(state, "alice", ["hello"]).problems
    assert problem.code == "wrong-total"
    assert problem.message.startswith("you hold 3 points and must give them all away")


HANDLES = st.from_regex(r"[a-z][a-z0-9_-]{0,31}", fullmatch=True)


@given(st.integers(min_value=0, max_value=10**12 - 1), HANDLES)
def test_parse_of_format_round_trips(amount: int, recipient: str) -> None:
    gift = Gift(amount, recipient)
    assert RULES.parse_order(RULES.format_order(gift)) == gift


WORDS = ["give", "GIVE", "to", "->", "→", "3", "-2", "1.5", "points", "bob", ",", "and", "½"]
LINES = st.one_of(
    st.text(max_size=50),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=5)), max_size=6).map(" ".join),
)


@given(LINES)
def test_arbitrary_text_raises_only_the_parsers_own_errors(text: str) -> None:
    try:
        gift = RULES.parse_order(text)
    except (NotAnOrder, OrderSyntaxError):
        return
    assert gift.amount >= 0
    assert RULES.parse_order(RULES.format_order(gift)) == gift


@given(st.lists(LINES, max_size=5), st.sampled_from(["alice", "BOB", "zed"]))
def test_check_never_raises(lines: list[str], player: str) -> None:
    state = RULES.start(("alice", "bob", "carol"), options={}, setup=Setup())
    checked = RULES.check(state, player, lines)
    assert all(p.message for p in checked.problems)
