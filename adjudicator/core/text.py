"""Small text helpers shared by the order parsers."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TypeVar

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, Problem, SetupError

T = TypeVar("T")

HANDLE = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")
"""A player handle, after lower-casing (docs/rules/README.md)."""

_SPACES = re.compile(r"\s+")


def normalise_line(text: str) -> str:
    """Fold the harmless differences between how people type an order line.

    Non-breaking and other Unicode spaces become one space, the ends are trimmed, a trailing
    full stop or semicolon is dropped, and bullets (``-``, ``*``, ``•``, ``1.``) in front are
    removed, so that ``  • give 3 to Bob.`` reads as ``give 3 to Bob``.
    """
    line = _SPACES.sub(" ", text.replace("\ufeff", "")).strip()
    line = re.sub(r"^(?:[-*\u2022\u2013\u2014]+|\d{1,2}[.)])\s+", "", line)
    return line.rstrip(" .;,").strip()


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 round``, ``3 rounds``, ``0 rounds``: a number with its noun in the right number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to ``word``, if one is close enough to be a likely typo."""
    matches = difflib.get_close_matches(word.lower(), list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def setup_word(text: str, words: Collection[str], *, what: str, noun: str, choices: str) -> str:
    """``text`` trimmed and lower-cased, when it is one of a setup's ``words`` (a side, a kind
    of piece); otherwise a :class:`SetupError` that names ``what`` was being read, the unknown
    ``noun``, the ``choices`` in words and the likely typo."""
    word = text.strip().lower()
    if word not in words:
        hint = did_you_mean(word, words)
        raise SetupError(
            f"{what}: unknown {noun} {text!r} ({choices})"
            + (f"; did you mean {hint!r}?" if hint else "")
        )
    return word


def is_handle(text: str) -> bool:
    return HANDLE.match(text.lower()) is not None


def read_order_lines(
    lines: Sequence[str], parse: Callable[[str], T]
) -> tuple[list[tuple[T, str]], list[Problem], list[str]]:
    """Read each non-blank line with ``parse``: the orders read (each with its line), a
    ``syntax`` problem for every line that looks like an order but is not one, and the lines
    that are not orders at all (chatter), in that order."""
    read: list[tuple[T, str]] = []
    problems: list[Problem] = []
    unrecognised: list[str] = []
    for raw in lines:
        line = raw.strip()
        if not normalise_line(line):
            continue
        try:
            read.append((parse(line), line))
        except NotAnOrder:
            unrecognised.append(raw)
        except OrderSyntaxError as error:
            problems.append(Problem("syntax", str(error), line, error.suggestion))
    return read, problems, unrecognised


def handle_for(address: str, taken: Sequence[str]) -> str:
    """A handle made from the address (``Jane.Doe@...``: ``janedoe``), numbered if taken."""
    base = re.sub(r"[^a-z0-9]", "", address.partition("@")[0].lower())[:24]
    if not base or not base[0].isalpha():
        base = "player" + base
    handle, number = base, 2
    while handle in taken:
        handle, number = f"{base}{number}", number + 1
    return handle
