"""Giveaway orders: ``GIVE <n> TO <player>``, read tolerantly and checked all at once.

docs/rules/giveaway.md, Orders: "one ``GIVE <n> TO <player>`` line per recipient. A submission must
give away exactly the whole holding, in whole non-negative amounts, to other active players. Several
lines to the same recipient are added together."
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, Problem
from adjudicator.core.text import did_you_mean, is_handle, normalise_line

_GIVE_WORDS = frozenset({"give", "gives", "send", "sends"})
_POINT_WORDS = frozenset({"point", "points", "pt", "pts", "pnt", "pnts", "p"})
_NUMBER_WORDS = frozenset(
    {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
    | {"eleven", "twelve", "all", "everything", "half", "nothing"}
)
_ARROW = re.compile(r"\s*(?:-+>|=+>|[→⟶⇒➔➜➝➞>])\s*")
_LOOSE_COMMA = re.compile(r",(?![0-9])|(?<![0-9]),|[:;]")
_TOKEN_TRIM = "\"'`()[]{}<>!?*@"
_WHOLE = re.compile(r"\+?[0-9]{1,12}\Z")
_NEGATIVE = re.compile(r"[-−–][0-9]+(?:[.,/][0-9]+)?\Z")
_FRACTION = re.compile(r"\+?[0-9]*[.,/][0-9]+\Z|\+?[0-9]+[.,]\Z|[0-9]*[½¼¾⅓⅔]\Z")
_NUMBERISH = re.compile(r"[-+−–]?(?:[0-9]+(?:[.,/][0-9]*)?|[.,][0-9]+|[0-9]*[½¼¾⅓⅔])\Z")
_CANONICAL = "GIVE <points> TO <player>"


@dataclass(frozen=True)
class Gift:
    """One order line: give ``amount`` points to ``recipient`` (a lower-case handle)."""

    amount: int
    recipient: str


class GiftSyntaxError(OrderSyntaxError):
    """An order line that cannot be read; ``code`` names the problem for templates."""

    def __init__(self, code: str, message: str, *, suggestion: str | None = None) -> None:
        super().__init__(message, suggestion=suggestion)
        self.code = code


def format_gift(gift: Gift) -> str:
    return f"GIVE {gift.amount} TO {gift.recipient}"


def _tokens(text: str) -> list[str]:
    line = _ARROW.sub(" to ", normalise_line(text).lower())
    line = _LOOSE_COMMA.sub(" ", line)
    return [t for t in (word.strip(_TOKEN_TRIM).rstrip(".") for word in line.split()) if t]


def _looks_like_amount(token: str) -> bool:
    return bool(_NUMBERISH.match(token)) or token in _NUMBER_WORDS


def parse_gift(text: str) -> Gift:
    """Read one order line.

    Accepted: ``GIVE 3 TO bob``, ``give 3 points to Bob``, ``GIVE 3 -> bob``, ``give 3 → bob``,
    ``GIVE 3 bob``, ``give bob 3``, ``send 3 to bob``, ``3 to bob``, ``3 points -> bob``, with
    bullets, commas, quotes and a final full stop anywhere a person might put them.
    """
    tokens = _tokens(text)
    if tokens and tokens[0] in _GIVE_WORDS:
        words = tokens[1:]
        if not any(_looks_like_amount(t) for t in words):
            raise NotAnOrder(f"not an order: {text!r}")  # "give my regards to everyone"
    elif _is_bare_gift(tokens):
        words = tokens
    else:
        raise NotAnOrder(f"not an order: {text!r}")
    if len(words) >= 2 and not _looks_like_amount(words[0]):
        return _recipient_first(words, text)
    amount, after = words[0], _skip_points(words[1:])
    if not after or after == ["to"]:
        raise GiftSyntaxError(
            "no-recipient",
            f"{normalise_line(text)!r} does not say who gets the points: write {_CANONICAL}",
        )
    if len(after) >= 2 and after[0] == "to":
        after = after[1:]
    if len(after) > 1:
        _too_many_words(text, after[1:])
    return Gift(_amount(amount, text), _recipient(after[0], text))


def _is_bare_gift(tokens: list[str]) -> bool:
    """``3 to bob``, ``3 points -> bob``: an amount, ``to`` and a handle, without GIVE."""
    after = _skip_points(tokens[1:])
    return (
        len(after) >= 2
        and _looks_like_amount(tokens[0])
        and after[0] == "to"
        and is_handle(after[1])
    )


def _skip_points(words: list[str]) -> list[str]:
    return words[1:] if words and words[0] in _POINT_WORDS else words


def _recipient_first(words: list[str], text: str) -> Gift:
    """``give bob 3``, ``give to bob 3 points``."""
    if words[0] == "to" and len(words) >= 3:
        words = words[1:]
    name, amount, after = words[0], words[1], _skip_points(words[2:])
    if after:
        _too_many_words(text, after)
    return Gift(_amount(amount, text), _recipient(name, text))


def _amount(token: str, text: str) -> int:
    """Rule 3: "No player may give away parts of points ... or negative points"."""
    line = normalise_line(text)
    if _WHOLE.match(token):
        return int(token)
    if _NEGATIVE.match(token):
        raise GiftSyntaxError(
            "negative-amount", f"{line!r}: you cannot give away a negative number of points"
        )
    if _FRACTION.match(token):
        raise GiftSyntaxError(
            "fractional-amount",
            f"{line!r}: points cannot be split; give whole points, not {token!r}",
        )
    if token in _NUMBER_WORDS:
        raise GiftSyntaxError(
            "amount-in-words", f"{line!r}: write the number of points in digits ({_CANONICAL})"
        )
    if re.fullmatch(r"\+?[0-9]+", token):
        raise GiftSyntaxError("amount-too-large", f"{line!r}: {token!r} is far too many points")
    raise GiftSyntaxError(
        "bad-amount", f"{line!r}: {token!r} is not a number of points ({_CANONICAL})"
    )


def _recipient(token: str, text: str) -> str:
    if not is_handle(token):
        raise GiftSyntaxError(
            "bad-recipient",
            f"{normalise_line(text)!r}: {token!r} is not a player's handle ({_CANONICAL})",
        )
    return token.lower()


def _too_many_words(text: str, extra: list[str]) -> None:
    if any(_looks_like_amount(t) for t in extra):
        raise GiftSyntaxError(
            "several-gifts",
            f"{normalise_line(text)!r}: write one gift per line ({_CANONICAL})",
        )
    raise GiftSyntaxError(
        "extra-words",
        f"{normalise_line(text)!r}: unexpected {' '.join(extra)!r} after the recipient "
        f"({_CANONICAL})",
    )


def recipient_problems(
    gift: Gift,
    *,
    giver: str,
    players: Collection[str],
    inactive: Collection[str],
    line: str,
) -> list[Problem]:
    """docs/rules/giveaway.md: gifts go "to other active players"; never to oneself or a
    non-player."""
    name = gift.recipient
    if name == giver:
        return [Problem("self-gift", "you cannot give points to yourself", line=line)]
    if name not in players:
        hint = did_you_mean(name, players)
        return [
            Problem(
                "unknown-player",
                f"no player {name!r} in this game" + (f"; did you mean {hint!r}?" if hint else ""),
                line=line,
                suggestion=format_gift(Gift(gift.amount, hint)) if hint else None,
            )
        ]
    if name in inactive:
        return [Problem("inactive-player", f"{name!r} is no longer playing", line=line)]
    return []


def total_problem(gifts: Sequence[Gift], *, holding: int, unreadable: int) -> Problem | None:
    """Rule 3: "All players must give all their points away every round".

    Beside a line that could not be read, the sum of the others says nothing of what is wrong
    (the unread line may hold the missing points): the total is named only when the lines read
    already give away more than the holding."""
    total = sum(g.amount for g in gifts)
    if total == holding or (unreadable and total < holding):
        return None
    points = "point" if holding == 1 else "points"
    if not gifts and not unreadable:
        message = f"you hold {holding} {points} and must give them all away ({_CANONICAL})"
    else:
        message = f"you hold {holding} {points} but your gifts add up to {total}"
        if unreadable:
            message += ", even without the lines that could not be read"
    return Problem("wrong-total", message)
