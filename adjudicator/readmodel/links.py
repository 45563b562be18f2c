"""The names of the archive's files, shared by the pages that link to each other and by mails
that link to the pages (with ``archive_url`` set)."""

from __future__ import annotations


def round_file(number: int) -> str:
    """The page of one reported round."""
    return f"round-{number}.html"


def rules_file(kind: str) -> str:
    """The rules page of a game kind, from the archive's root."""
    return f"rules/{kind}.html"
