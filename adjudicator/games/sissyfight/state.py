"""The fight between turns (docs/rules/sissyfight.md): seats, colours, chips, who is out, who
is targeted, and the end of the game."""

from __future__ import annotations

from dataclasses import dataclass, replace

from adjudicator.core.game import Outcome
from adjudicator.core.text import did_you_mean

COLOURS: tuple[str, ...] = ("red", "green", "blue", "black", "white", "grey")
"""The six target colours, in the order they are given out by seat."""

START_CHIPS = 10

_COLOUR_ALIASES = {"gray": "grey"}


@dataclass(frozen=True)
class SissyState:
    """The fight between turns: seats, their colours and chips, and turns played so far.

    A player with 0 chips is out.
    """

    players: tuple[str, ...]
    colours: tuple[str, ...]
    chips: tuple[int, ...]
    turn: int = 0
    leaving: frozenset[int] = frozenset()
    """Seats the game master took out during the turn (:func:`retire_player`): out at its end."""


class TargetError(ValueError):
    """A target that names nobody who can be attacked; ``code`` is the Problem code and
    ``suggestion`` the colour the player probably meant."""

    def __init__(self, code: str, message: str, *, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.suggestion = suggestion


def read_colour(word: str) -> str | None:
    """The colour ``word`` names (``gray`` is ``grey``), or ``None``."""
    word = _COLOUR_ALIASES.get(word.lower(), word.lower())
    return word if word in COLOURS else None


def seat_of(state: SissyState, player: str) -> int | None:
    """The seat of ``player`` (handles are case-insensitive), or ``None``."""
    wanted = player.lower()
    return next((i for i, p in enumerate(state.players) if p.lower() == wanted), None)


def target_seat(state: SissyState, seat: int, target: str) -> int:
    """The seat that ``target`` (a colour or handle) names for the player in ``seat``.

    Ruling 2: "Targeting oneself or an eliminated player is rejected at submission."
    """
    word = target.lower()
    colour = read_colour(word)
    by_colour = state.colours.index(colour) if colour in state.colours else None
    by_handle = seat_of(state, word)
    if by_colour is not None and by_handle is not None and by_colour != by_handle:
        a, b = state.players[by_colour], state.players[by_handle]
        raise TargetError(
            "ambiguous-target",
            f"{word!r} is {a}'s colour and also the handle of {b} (who is "
            f"{state.colours[by_handle]}): write the colour you mean",
        )
    found = by_colour if by_colour is not None else by_handle
    if found is None:
        targets = [s for s in remaining(state) if s != seat]
        names = [*(state.colours[s] for s in targets), *(state.players[s].lower() for s in targets)]
        hint = did_you_mean(word, names)
        seat_meant = None if hint is None else seat_of(state, hint)
        meant = read_colour(hint or "") or (
            None if seat_meant is None else state.colours[seat_meant]
        )
        in_play = ", ".join(f"{c} ({p})" for p, c in zip(state.players, state.colours, strict=True))
        raise TargetError(
            "unknown-target",
            f"no player is {word!r} in this game (in play: {in_play})"
            + (f"; did you mean {hint!r}?" if hint else ""),
            suggestion=meant,
        )
    if found == seat:
        raise TargetError(
            "self-target", f"you cannot target yourself (you are {state.colours[seat]})"
        )
    if state.chips[found] == 0:
        raise TargetError(
            "target-out",
            f"{state.players[found]} ({state.colours[found]}) is out of the game and cannot "
            "be targeted",
        )
    return found


def remaining(state: SissyState) -> tuple[int, ...]:
    """Seats still in the game (rule 4: "When a player runs out of chips, that player is out")."""
    return tuple(i for i, c in enumerate(state.chips) if c > 0)


def retire_player(state: SissyState, player: str) -> SissyState:
    """The game master takes ``player`` out of the fight (docs/rules/sissyfight.md, "Players
    taken out"): as if knocked out in the turn under way, he sends no more orders, counts as
    DEFENDing in it (the no-orders rule), may still be targeted in it, and is out at its end,
    when the End rule is checked as after every turn."""
    seat = seat_of(state, player)
    if seat is None or state.chips[seat] == 0:
        return state
    return replace(state, leaving=state.leaving | {seat})


def end_of_game(state: SissyState) -> Outcome | None:
    """Ruling 2, End: one or two remaining win jointly; nobody remaining means no winner.

    The game starts with at least 3 players holding chips, so nobody remaining can only come
    from everyone still in dropping to 0 in the same turn.
    """
    seats = remaining(state)
    if not seats:
        return Outcome("all-out")
    if len(seats) <= 2:
        return Outcome("last-standing", tuple(state.players[i] for i in seats))
    return None
