"""The narrow errors of the pure layer.

Like python-chess, bad input raises a ``ValueError`` subclass whose message repeats the input
with ``!r``. Checking a set of orders never raises: it returns every :class:`Problem` at once.
"""

from __future__ import annotations

from dataclasses import dataclass


class NotAnOrder(ValueError):
    """The text does not look like an order of this game at all (chatter, a greeting).

    Mail intake lists such lines back to the player as "not understood" without rejecting the
    submission for them.
    """


class OrderSyntaxError(ValueError):
    """The text looks like an order of this game but cannot be read.

    The message says what is wrong in words a player understands.
    """

    def __init__(self, message: str, *, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.suggestion = suggestion


class SetupError(ValueError):
    """A game cannot be started as asked: bad players, options or starting position."""


class RecordError(ValueError):
    """A game record is not well formed. ``line`` is the 1-based line number."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a player's orders.

    ``code`` is a stable machine name (templates turn it into words in other languages);
    ``message`` is the plain-English explanation; ``line`` is the order line it is about, or
    ``None`` when it is about the orders as a whole (for example a total that does not match).
    """

    code: str
    message: str
    line: str | None = None
    suggestion: str | None = None


class AdjudicationLimitError(RuntimeError):
    """A round is too complex to adjudicate within the game's work budget.

    Raised instead of running for ever on a pathological position (for example a Giveaway gift
    graph with an astronomical number of cycles). The service leaves the round closed but
    unadjudicated and tells the game master this message.
    """
