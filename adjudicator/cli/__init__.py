"""The ``adjudicate`` command: ``entry.py`` is its entry point, ``main.py`` its commands
(Typer), thin, calling the service's functions.

Kept empty of imports: ``adjudicate receive``, which a mail server runs for every message, goes
from ``entry.py`` to ``pipe.py`` without loading the rest.
"""
