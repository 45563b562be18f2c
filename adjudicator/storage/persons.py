"""A player as one person across games (:class:`Person`), known by his registered address.

His own settings (time zone, chosen password, quiet hours, weekend days) are the person's: set
once, they hold in every game he plays, now and later. Each seat carries a copy of them
(:func:`give_settings`), written here whenever they change (:func:`change`), when a seat is
made for his address and when a seat moves to it (:func:`follow`); nothing else writes those
columns of a seat. What is truly per game (an absence, SET WAIT, orders) stays on the seat.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from adjudicator.storage import queries
from adjudicator.storage.models import Person, Seat

SETTINGS = ("time_zone", "password_hash", "quiet_hours", "weekend")
"""A person's settings, as :class:`Person` holds them."""


def person_at(session: Session, address: str) -> Person | None:
    """The person registered under ``address`` (compared in lower case), if any."""
    if not address.strip():
        return None
    return session.exec(select(Person).where(Person.address == address.strip().lower())).first()


def person_for(session: Session, address: str, *, now: datetime) -> Person:
    """The person at ``address``, made (with no settings) if there is none yet."""
    person = person_at(session, address)
    if person is None:
        person = Person(address=address.strip().lower(), changed_at=now)
        session.add(person)
    return person


def give_settings(seat: Seat, person: Person | None) -> None:
    """``seat`` is played by ``person`` (None: a person with no settings yet): it takes his
    settings, and his chosen password if he has one (else it keeps its own)."""
    seat.time_zone = person.time_zone if person else None
    seat.quiet_hours = person.quiet_hours if person else None
    seat.weekend = person.weekend if person else None
    if person is not None and person.password_hash is not None:
        seat.secret_hash = person.password_hash


def seat_for(session: Session, seat: Seat, *, now: datetime) -> bool:
    """A new seat (or one that passed to a newcomer) takes the settings of the person at its
    address, made if new (every address that plays is a person's); whether that person chose
    a password (the seat's is then his, not a new one)."""
    if not seat.address.strip():  # a seat the computer plays, with nobody to mail
        return False
    person = person_for(session, seat.address, now=now)
    give_settings(seat, person)
    return person.password_hash is not None


def change(session: Session, address: str, *, now: datetime, **settings: str | None) -> Person:
    """Set some of the person's :data:`SETTINGS` at ``address`` (made if new), and give them to
    every seat registered there, in every game."""
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise ValueError(f"not a person's setting: {sorted(unknown)}")
    person = person_for(session, address, now=now)
    for name, value in settings.items():
        setattr(person, name, value)
    person.changed_at = now
    session.add(person)
    for seat in queries.seats_at_address(session, address):
        give_settings(seat, person)
        session.add(seat)
    return person


def follow(session: Session, old: str, new: str, *, now: datetime, whole: bool) -> None:
    """Seats moved from ``old`` to ``new``: their player's settings go with him. ``whole``:
    the person moved himself (SET ADDRESS, proven at both addresses), so his settings are
    those at ``new`` from now on; else (the game master moved one seat) a person already at
    ``new`` (somebody plays from there) keeps his own, and one new there starts with those of
    ``old``. The person at ``old`` is gone once no seat is left there. Every seat at ``new``
    takes the result."""
    before = person_at(session, old)
    after = person_at(session, new)
    if after is None or (whole and before is not None):
        after = person_for(session, new, now=now)
        if before is not None:
            for name in SETTINGS:
                setattr(after, name, getattr(before, name))
            after.changed_at = now
        session.add(after)
    session.flush()
    if before is not None and not queries.seats_at_address(session, old):
        session.delete(before)
    for seat in queries.seats_at_address(session, new):
        give_settings(seat, after)
        session.add(seat)
