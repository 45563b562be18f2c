"""SiSSYFiGHT orders: one action card a turn, ``SOLO <colour>``, ``TEAM <colour>`` or
``DEFEND``, read tolerantly and written canonically (docs/rules/sissyfight.md, Orders)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.text import is_handle, normalise_line
from adjudicator.games.sissyfight.state import read_colour

SOLO, TEAM, DEFEND = "SOLO", "TEAM", "DEFEND"
ACTIONS: tuple[str, ...] = (SOLO, TEAM, DEFEND)

_KEYWORDS = (
    {"solo": SOLO}
    | dict.fromkeys(("team", "teamup", "team-up"), TEAM)
    | dict.fromkeys(("defend", "defence", "defense"), DEFEND)
)
_FILLERS = frozenset({"attack", "on", "at", "against", "to", "vs", "versus", "target", "with"})
_SEPARATORS = re.compile(r"\s*(?:→|->|=>|:|,|!)\s*|\s+")


@dataclass(frozen=True)
class Action:
    """One action card: ``kind`` is SOLO, TEAM or DEFEND; ``target`` a colour or a handle.

    ``parse_order`` keeps the target as written (lower case, handle or colour); ``check`` gives
    the canonical action, whose target is always the target's colour. DEFEND has no target.
    """

    kind: str
    target: str | None = None


def parse_action(text: str) -> Action:
    """Read ``SOLO <colour>``, ``TEAM <colour>`` or ``DEFEND`` (a target after DEFEND is ignored).

    Handles may stand for colours; ``team up``, ``on``/``at``/``against``, ``:``, ``,`` and ``→``
    are accepted around the target.
    """
    line = normalise_line(text)
    words = [w for w in _SEPARATORS.split(line.lower()) if w]
    if not words:
        raise NotAnOrder(f"not an order: {text!r}")
    if len(words) > 2 and words[0] == "team" and words[1] == "up":
        words = ["teamup", *words[2:]]
    kind = _KEYWORDS.get(words[0])
    if kind is None:
        close = difflib.get_close_matches(words[0], list(_KEYWORDS), n=1, cutoff=0.75)
        if close and len(words) <= 2:
            hint = f"{_KEYWORDS[close[0]]} {' '.join(words[1:])}".strip()
            raise OrderSyntaxError(
                f"unknown action {words[0]!r} in {line!r}: the actions are SOLO, TEAM and DEFEND",
                suggestion=hint,
            )
        raise NotAnOrder(f"not an order: {text!r}")
    rest = words[1:]
    while len(rest) > 1 and rest[0] in _FILLERS:  # "SOLO on red", but a player may be "on"
        rest = rest[1:]
    if any(w in _KEYWORDS for w in rest):
        raise OrderSyntaxError(f"one action per turn, but {line!r} holds more than one")
    if kind == DEFEND:
        # Ruling 2: "A target named with DEFEND is ignored."
        if len(rest) > 1 or (rest and not _is_target_word(rest[0])):
            raise OrderSyntaxError(
                f"cannot read {line!r}: write DEFEND on its own", suggestion="DEFEND"
            )
        return Action(DEFEND)
    if not rest:
        raise OrderSyntaxError(
            f"{kind} needs a target: write {kind} <colour>, e.g. {kind} red",
        )
    if len(rest) > 1:
        raise OrderSyntaxError(
            f"{kind} takes one target, but {line!r} names {len(rest)}: {' '.join(rest)!r}"
        )
    if not _is_target_word(rest[0]):
        raise OrderSyntaxError(f"{rest[0]!r} in {line!r} is neither a colour nor a player")
    return Action(kind, read_colour(rest[0]) or rest[0])


def _is_target_word(word: str) -> bool:
    return read_colour(word) is not None or is_handle(word)


def format_action(action: Action) -> str:
    return action.kind if action.target is None else f"{action.kind} {action.target}"
