"""The players' rules pages (docs/rules/) state the binding rulings: each game's options with
their defaults as the code has them, and the facts players most need, as the rulings fix them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adjudicator.core.kind import GameKind
from adjudicator.games import KINDS

RULES = Path(__file__).resolve().parents[1] / "docs" / "rules"

FACTS: dict[str, tuple[str, ...]] = {
    # The rulings' numbers and words a player must find on the page, game by game.
    "giveaway": ("3 points", "100", "nmr=spread", "nmr=lose", "ring"),
    "sissyfight": (
        "10 chips",
        "red",
        "green",
        "blue",
        "black",
        "white",
        "grey",
        "DEFEND",
        "SOLO",
        "TEAM",
        "public",
    ),
    "three-musketeers": ("a1", "c3", "e5", "22", "a1-a2", "forfeit"),
    "rock-scissors-paper": (
        "61",
        "flags=1",
        "flags=2",
        "third time",
        "reconstruction",
        "I8",
        "B2-D2",
        "C4-E4 1,2",
        "forfeit",
    ),
    "starship-combat": ("3 missiles", "6", "FIRE", "SHIELD", "FIRE SHIELD", "NOTHING", "30"),
}


def _page(kind: GameKind) -> str:
    return (RULES / f"{kind.name}.md").read_text(encoding="utf-8")


def test_every_game_has_a_page_listed_in_the_index() -> None:
    index = (RULES / "README.md").read_text(encoding="utf-8")
    for kind in KINDS:
        assert f"({kind.name}.md)" in index, kind.name
        assert f"Record name: `{kind.name}`" in _page(kind) or kind.name in _page(kind)
    assert "[a-z][a-z0-9_-]{0,31}" in index  # the handle rule of every game


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_each_option_is_documented_with_its_default(kind: GameKind) -> None:
    page = _page(kind)
    for option, default in kind.rules.option_defaults.items():
        documented = re.search(
            rf"`{re.escape(option)}`[^\n]*`?{re.escape(default)}`?|"
            rf"`{re.escape(option)}={re.escape(default)}`",
            page,
        )
        assert documented, f"{kind.name}: option {option} (default {default}) not on the page"


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_the_rulings_facts_are_on_the_page(kind: GameKind) -> None:
    page = _page(kind)
    assert [fact for fact in FACTS[kind.name] if fact not in page] == []
