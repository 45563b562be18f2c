"""Whether a line of a mail reads as an order of any game or as a service command.

The reader never takes such a line for a signature or a disclaimer by a guess, and reads a text
attachment only when it holds such lines (``quotes.py``, ``parse.py``). Pure: each game's own
order parser decides, so a new game's orders are protected as soon as it is in ``KINDS``.
"""

from __future__ import annotations

import functools
import re

from adjudicator.core.errors import NotAnOrder
from adjudicator.core.text import normalise_line
from adjudicator.games import KINDS
from adjudicator.mail.command_specs import command_words

GAME_LINE = re.compile(r"game\s*[:=]?\s*([a-z0-9][a-z0-9_.-]{0,63})", re.IGNORECASE)
"""``GAME <name>``: the start of one game's section (``parse.split_sections``)."""
SECRET_LINE = re.compile(
    r"\s*(?:[-*\u2022]\s*)?(?:password|secret)\b\s*[:=]?\s*(\S+)\s*\Z", re.IGNORECASE
)
"""``PASSWORD <secret>`` (or ``SECRET``, one word)."""
_REQUEST = re.compile(
    r"(?:send\s+)?(?:the\s+)?(?:game\s+)?history|(?:send\s+)?reports?\b(?:\s+\S+){0,4}",
    re.IGNORECASE,
)
"""A request line (``mail/requests.py``): HISTORY, or REPORT and a few words."""
MAX_ORDER = 200  # characters: longer lines are prose
MAX_COMMAND_WORDS = 6
_CODED = re.compile(r"(?i)(?:take|approve|decline)\s+\S+\s+[0-9a-f]{8}")
"""``TAKE gw42 8963B1C3``: a coded answer to an offer or a join request is a command, never a
signature's phone number, though "Take care," alone may well be a sign-off."""
_REPLACE = re.compile(
    r"(?i)replace\s+(?:player\s+)?[a-z][a-z0-9_-]{0,31}\s+(?:(?:with|by)\s+)?<?[^@\s<>]+@[^@\s<>]+>?"
)
"""``REPLACE cat WITH new@example.org``: the game master's command (a game's or a tournament's)
is one, never a signature's contact line for the address it ends with."""


@functools.lru_cache(maxsize=4096)
def reads_as_order(line: str) -> bool:
    """Whether ``line`` reads as an order of any game (even a wrongly written one: the game's
    parser says so with ``OrderSyntaxError`` rather than ``NotAnOrder``) or a command. Kept
    for the last few thousand lines asked: the same lines (orders, greetings, signatures)
    come in mail after mail, and each is tried against every game's parser."""
    text = normalise_line(line)
    if not text or len(text) > MAX_ORDER:
        return False
    if any(p.fullmatch(text) for p in (GAME_LINE, SECRET_LINE, _REQUEST, _CODED, _REPLACE)):
        return True
    words = text.split()
    # A command word in front (``command_specs.command_words``: a line that starts with one
    # and has a few words after it, ``JOIN sf9 4F2A09C1``, is a command, never a signature's
    # phone number), and not a label ("Status : File name violation").
    if (
        words[0].lower() in command_words()
        and len(words) <= MAX_COMMAND_WORDS
        and words[1:2] != [":"]
    ):
        return True
    for kind in KINDS:
        try:
            kind.rules.parse_order(text)
        except NotAnOrder:
            continue
        except Exception:  # OrderSyntaxError, or a parser failing: treat it as an order
            return True
        return True
    return False
