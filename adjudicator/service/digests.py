"""SET DIGEST DAILY HH:MM and SET DIGEST OFF by mail: the person's daily digest
(``notify/digest.py``), his setting in all his games, and in those he joins later.

SET DIGEST OFF sends what is held at once, as one last digest, in the transaction that turns
it off: nothing held is left behind, nor waits for a time of day that no longer comes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.engine import Engine

from adjudicator.base.faults import crash_point
from adjudicator.mail.commands import Command, CommandProblem, SetDigest
from adjudicator.notify import digest
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.times import local_time, zone_name
from adjudicator.service import conversation
from adjudicator.service.handling import PersonHandling
from adjudicator.storage import persons, queries
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, GameStatus
from adjudicator.storage.write_lock import sqlite_write_lock


def set_digest(
    handling: PersonHandling, commands: Sequence[Command], problems: Sequence[CommandProblem]
) -> bool:
    """SET DIGEST for the proven seat's person: answered with when it comes, in his zone, and
    what is held; OFF sends what is held now."""
    session, seat, now = handling.session, handling.seat, handling.now
    for command in commands:
        assert isinstance(command, SetDigest)
        person = persons.set_digest(session, seat.address, at=command.at, now=now)
        digest.forget_takers(session)
        zone = digest.zone_of(session, person)
        held = digest.held_count(session, seat.address)
        sent = 0
        if command.at is None and held:
            digest.queue_held_now(session, seat.address, ctx=handling.ctx, now=now)
            sent = held
        context = {
            "at": command.at,
            "zone": zone_name(zone),
            "next": local_time(digest.next_digest(session, person, now=now), zone),
            "held": held,
            "sent": sent,
            "games": _games(handling),
        }
        handling.answer_seat(seat, "set_digest", context)
        handling.notes.append(f"digest {command.at or 'off'}" + (f", {sent} sent" if sent else ""))
    if problems:
        conversation.answer_problems(handling, [], problems)
    return not problems


def _games(handling: PersonHandling) -> list[str]:
    """The games not over of the person's seats."""
    names = []
    for seat in queries.seats_at_address(handling.session, handling.seat.address):
        game = handling.session.get(Game, seat.game_id)
        if game is not None and game.status != GameStatus.FINISHED and seat.active:
            names.append(game.name)
    return names


def send_due_digests(engine: Engine, *, ctx: ServiceContext, now: datetime) -> int:
    """Queue every daily digest due at ``now``, in one transaction (``adjudicate serve`` runs
    it every ``digest.DIGEST_SECONDS``); how many were queued."""
    with sqlite_write_lock(engine), session_scope(engine) as session:
        queued = digest.queue_due_digests(session, ctx=ctx, now=now)
    crash_point("digested")  # committed, not sent: the outbox sends it after a restart
    return queued
