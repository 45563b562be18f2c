"""Starship Combat orders: ``FIRE``, ``SHIELD``, ``FIRE SHIELD`` or ``NOTHING`` a round, read
tolerantly and written canonically (docs/rules/starship-combat.md, Orders)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.text import normalise_line

_FIRE_WORDS = frozenset({"fire", "fires", "launch", "shoot"})
_SHIELD_WORDS = frozenset({"shield", "shields"})
_BOTH_WORDS = frozenset({"both"})
_NOTHING_WORDS = frozenset({"nothing", "pass", "none"})
_FILLER_WORDS = frozenset({"and", "a", "the", "my", "missile", "power", "raise", "up", "do"})
_FIRST_WORDS = _FIRE_WORDS | _SHIELD_WORDS | _BOTH_WORDS | _NOTHING_WORDS | {"do", "power", "raise"}
_ALL_WORDS = _FIRE_WORDS | _SHIELD_WORDS | _BOTH_WORDS | _NOTHING_WORDS | _FILLER_WORDS
_SEPARATORS = re.compile(r"[\s,+&/!]+")
_LONGEST_TYPO = 3
"""Longer lines with a word we do not know are chatter ("do you want peace?"), not orders."""


@dataclass(frozen=True)
class Choice:
    """What a ship does in a round: fire a missile, power its shields, both or neither."""

    fire: bool = False
    shield: bool = False


NOTHING = Choice()


def parse_choice(text: str) -> Choice:
    """Read ``FIRE``, ``SHIELD``, ``FIRE SHIELD`` or ``NOTHING``, or a variant of them.

    Accepted: ``SHIELDS``, ``BOTH``, ``FIRE AND SHIELD``, ``SHIELD FIRE``, ``FIRE + SHIELDS``,
    ``POWER SHIELDS``, ``SHIELDS UP``, ``FIRE A MISSILE``, ``PASS``, ``NONE``, ``DO NOTHING``...
    """
    line = normalise_line(text)
    words = [w for w in _SEPARATORS.split(line.lower()) if w]
    if not words:
        raise NotAnOrder(f"not an order: {text!r}")
    if words[0] not in _FIRST_WORDS:
        close = difflib.get_close_matches(words[0], sorted(_FIRST_WORDS), n=1, cutoff=0.75)
        if close and len(words) <= _LONGEST_TYPO:
            raise OrderSyntaxError(
                f"unknown word {words[0]!r} in {line!r}: write FIRE, SHIELD, FIRE SHIELD or "
                "NOTHING",
                suggestion=_canonical_guess([close[0], *words[1:]]),
            )
        raise NotAnOrder(f"not an order: {text!r}")
    for word in words:
        if word not in _ALL_WORDS:
            if len(words) > _LONGEST_TYPO:
                raise NotAnOrder(f"not an order: {text!r}")
            close = difflib.get_close_matches(word, sorted(_ALL_WORDS), n=1, cutoff=0.75)
            raise OrderSyntaxError(
                f"cannot read {word!r} in {line!r}: write FIRE, SHIELD, FIRE SHIELD or NOTHING",
                suggestion=_canonical_guess([close[0] if w == word else w for w in words])
                if close
                else None,
            )
    return _choice_of_words(words, line)


def _choice_of_words(words: list[str], line: str) -> Choice:
    fires = sum(w in _FIRE_WORDS or w in _BOTH_WORDS for w in words)
    shields = sum(w in _SHIELD_WORDS or w in _BOTH_WORDS for w in words)
    nothing = any(w in _NOTHING_WORDS for w in words)
    if fires > 1 or shields > 1:
        raise OrderSyntaxError(
            f"{line!r} says the same thing twice: a ship fires at most one missile and powers "
            "its shields at most once a round",
            suggestion=format_choice(Choice(fire=fires > 0, shield=shields > 0)),
        )
    if nothing and (fires or shields):
        raise OrderSyntaxError(f"{line!r} says both NOTHING and something else: choose one")
    if not (nothing or fires or shields):
        raise OrderSyntaxError(
            f"{line!r} does not say what to do: write FIRE, SHIELD, FIRE SHIELD or NOTHING",
            suggestion="SHIELD" if "power" in words or "raise" in words else None,
        )
    return Choice(fire=fires == 1, shield=shields == 1)


def _canonical_guess(words: list[str]) -> str | None:
    try:
        return format_choice(_choice_of_words(words, " ".join(words)))
    except OrderSyntaxError:
        return None


def format_choice(choice: Choice) -> str:
    parts = [name for name, on in (("FIRE", choice.fire), ("SHIELD", choice.shield)) if on]
    return " ".join(parts) or "NOTHING"
