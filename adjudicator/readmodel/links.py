"""The names of the archive's files, shared by the pages that link to each other and by mails
that link to the pages (with ``archive_url`` set)."""

from __future__ import annotations


def round_file(number: int) -> str:
    """The page of one reported round."""
    return f"round-{number}.html"
