"""Drawing helpers shared by the games' pictures: charts as monospace text and as SVG.

Each game draws its own pictures (``adjudicator/games/<game>/pictures.py``) from its public
state and report, and offers them through its ``GameKind.pictures``; this package holds only
what is not about one game. Pure: no I/O.
"""

from adjudicator.core.kind import Picture

__all__ = ["Picture"]
