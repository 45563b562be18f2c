"""The round archive: a static website built from the database.

An index of games; per game a page (players, standings over time as a chart, the game record to
download), a page per reported round (its public report in words and its pictures) and an Atom
feed. :mod:`.read` is the only module that reads the database, :mod:`.render` turns what it read
into files, :mod:`.write` puts them in place atomically, :mod:`.build` joins the three.
"""

from adjudicator.archive.build import BuildReport, build_archive, update_game, write_rules
from adjudicator.readmodel.read import ArchiveError

__all__ = ["ArchiveError", "BuildReport", "build_archive", "update_game", "write_rules"]
