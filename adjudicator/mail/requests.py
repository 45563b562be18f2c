"""The grammar of the requests a player may make besides orders: a round's report and the
game's history (the commands themselves are in :mod:`adjudicator.mail.commands`).

A line ``REPORT`` asks for the last reported round, ``REPORT 7`` (or ``REPORT ROUND 7``,
``REPORT 3-5``, ``REPORT 3, 5``) for those rounds, and ``HISTORY`` for the whole game so far.
Any case, bullets and a trailing full stop are allowed, as for orders. A line that starts with
``REPORT`` and then names rounds badly (``REPORT 0``, ``REPORT round seven``) is a request with
a problem, to be answered as such; any other line, ``Report me if you like`` included, is left
with the orders.

Pure: text in, round numbers out.
"""

from __future__ import annotations

import re

MAX_REPORTS = 10
"""Reports one mail may ask for; HISTORY is the way to get a whole game."""

LATEST = 0
"""The round number that stands for "the last reported round" (``REPORT`` alone)."""

_HISTORY = re.compile(r"(?:send\s+)?(?:the\s+)?(?:game\s+)?history", re.IGNORECASE)
_REPORT = re.compile(r"(?:send\s+)?reports?\b\s*(.*)", re.IGNORECASE)
_LATEST_WORDS = re.compile(r"(?:(?:of\s+)?(?:the\s+)?(?:last|latest)(?:\s+round)?)?", re.IGNORECASE)
_ROUNDS = re.compile(
    r"(?:(?:for\s+|of\s+)?rounds?\s*|#)?"
    r"(\d+(?:\s*(?:-|to)\s*\d+)?(?:\s*(?:,|and|\s)\s*\d+(?:\s*(?:-|to)\s*\d+)?)*)",
    re.IGNORECASE,
)
_SPAN = re.compile(r"(\d+)\s*(?:-|to)\s*(\d+)|(\d+)", re.IGNORECASE)
_LOOKS_LIKE_ROUNDS = re.compile(r"(?:rounds?\b|#|\d)", re.IGNORECASE)

HOW = "write REPORT and a round number, e.g. REPORT 3, or REPORT alone for the last round"
TOO_MANY = (
    f"one mail may ask for at most {MAX_REPORTS} round reports; ask for HISTORY to get the "
    "whole game"
)


def is_history(text: str) -> bool:
    """Whether a (normalised) line asks for the history."""
    return _HISTORY.fullmatch(text) is not None


def rounds_asked(text: str) -> list[int] | str | None:
    """The rounds a (normalised) ``REPORT`` line asks for (:data:`LATEST` for the last one),
    what is wrong with them (a string), or None when the line is no request."""
    report = _REPORT.fullmatch(text)
    return _rounds_of(report.group(1).strip()) if report else None


def _rounds_of(words: str) -> list[int] | str | None:
    """The rounds named by what follows REPORT, or what is wrong with them (a string), or
    None when the words name no rounds at all (the line is no request)."""
    if _LATEST_WORDS.fullmatch(words):
        return [LATEST]
    match = _ROUNDS.fullmatch(words)
    if match is None:
        return f"could not read which rounds: {HOW}" if _LOOKS_LIKE_ROUNDS.match(words) else None
    numbers: list[int] = []
    for span in _SPAN.finditer(match.group(1)):
        if span.group(3) is not None:
            first = last = int(span.group(3))
        else:
            first, last = int(span.group(1)), int(span.group(2))
        if first < 1 or last < 1:
            return f"rounds are numbered from 1: {HOW}"
        if last < first:
            return f"the range {first}-{last} runs backwards: write REPORT {last}-{first}"
        if last - first >= MAX_REPORTS:
            return TOO_MANY
        numbers += [n for n in range(first, last + 1) if n not in numbers]
    return numbers
