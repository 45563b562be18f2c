"""adjudicator: a play-by-email game service."""

__version__ = "0.19.0"
