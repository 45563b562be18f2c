"""The read model: what people may see of a game, read from the database as plain values.

Both the service (reports and histories by mail) and the archive site stand on it: the game view
and its rounds (:mod:`.model`, filled by :mod:`.read`), the standings over time
(:mod:`.standings`), the downloadable game record (:mod:`.record`) and the names of the archive's
pages (:mod:`.links`), so that a mail can link to a page without knowing how pages are made.
"""
