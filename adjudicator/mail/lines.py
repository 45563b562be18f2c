"""One line of a mail's game section, numbered as the sender wrote it: what every reader of
the mail (``parse.py``, the command readers) hands on. Pure."""

from __future__ import annotations

from typing import NamedTuple


class SectionLine(NamedTuple):
    number: int  # 1-based line number within the mail's lines, for error replies
    text: str
