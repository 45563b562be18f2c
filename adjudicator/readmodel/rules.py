"""The rules pages of the games (docs/rules/<game>.md), as the package ships them.

The archive publishes each one as ``rules/<game>.html`` (:func:`~.links.rules_file`); a mail
links to that page when the archive is published, and otherwise carries the rules themselves,
so that a player never has to ask the game master for them.
"""

from __future__ import annotations

from adjudicator.base.shipped import RULES


def rules_markdown(kind: str) -> str:
    """The rules page of the game ``kind`` (its record name), as written: Markdown."""
    return (RULES / f"{kind}.md").read_text(encoding="utf-8")


def rules_asset(name: str) -> bytes | None:
    """A picture a rules page shows (``three-musketeers-start.png``), or None if not shipped."""
    path = RULES / name
    if "/" in name or not path.is_file():
        return None
    return path.read_bytes()
