"""The use-cases: create and run games, accept submissions, close rounds, queue the reports.

The scheduler, the mail intake and the command line all call these functions; each takes a
database session and ``now`` (aware, UTC), and guards every step in the database so that doing
it twice is harmless.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A use-case refused; the message is for the game master, ``exit_code`` for the CLI."""

    def __init__(self, message: str, *, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code
