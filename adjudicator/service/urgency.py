"""Which of a game's mail can wait for a player's daily digest (``SET DIGEST``,
``notify/digest.py``), and which cannot.

The use-cases mark what can wait (``Notice.may_wait``): a round's result, press, the game
master's news and announcements, an observer's mail. None of it can wait for a player the game
waits on now: whose turn it is in a game played in turns, or whose orders are missing for a
deadline less than :data:`PRESSING` away. That player gets the game's mail at once, as he gets
its reminders, his codes to confirm and every answer to his own mails (never marked).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session

from adjudicator.notify import digest
from adjudicator.readmodel.stored import rules_of
from adjudicator.service.deadlines import missing_seats
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.models import Game, GameStatus

PRESSING = timedelta(hours=24)
"""A deadline this near, with a player's orders missing, makes his mail about the game urgent."""


def pressing_seats(session: Session, game: Game, *, now: datetime) -> frozenset[int]:
    """The seats of ``game`` whose mail about it cannot wait now: the game waits for their
    orders, and it is their turn in a game played in turns, or the deadline is near. None
    while nobody takes a digest (the answer would change nothing)."""
    if game.status != GameStatus.RUNNING or not digest.anyone_takes_digest(session):
        return frozenset()  # nobody's mail is held: nothing to weigh
    round_ = open_round_of(session, game)
    if round_ is None:
        return frozenset()
    near = round_.deadline is not None and round_.deadline - now < PRESSING
    if not near and not rules_of(game).sequential:
        return frozenset()
    return frozenset(seat.id for seat in missing_seats(session, game, round_) if seat.id)
