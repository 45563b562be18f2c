"""A player as one person across games (:class:`Person`), known by his registered address.

Whether he shows on the archive's pages (``public``, SET PUBLIC) is his too, set here by
:func:`set_public`, the time of day his daily digest comes (``digest``, SET DIGEST,
:func:`set_digest`) and his webhook (SET WEBHOOK, :func:`set_webhook`); they stay on the
person (no seat carries them).

His own settings (time zone, chosen password, quiet hours, weekend days) are the person's: set
once, they hold in every game he plays, now and later. Each seat carries a copy of them
(:func:`give_settings`), written here whenever they change (:func:`change`), when a seat is
made for his address and when a seat moves to it (:func:`follow`); nothing else writes those
columns of a seat. What is truly per game (an absence, SET WAIT, orders) stays on the seat.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import update
from sqlmodel import Session, col, select

from adjudicator.storage import queries
from adjudicator.storage.db import insert_new
from adjudicator.storage.models import HeldNotice, Person, Seat

SETTINGS = ("time_zone", "password_hash", "quiet_hours", "weekend")
"""A person's settings, as :class:`Person` holds them."""
BATCH = 500
"""Addresses asked for in one query (SQLite binds at most 32766 values in one)."""


def person_at(session: Session, address: str) -> Person | None:
    """The person registered under ``address`` (compared in lower case), if any."""
    if not address.strip():
        return None
    return session.exec(select(Person).where(Person.address == address.strip().lower())).first()


def person_for(session: Session, address: str, *, now: datetime) -> Person:
    """The person at ``address``, made (with no settings) if there is none yet."""
    person = person_at(session, address)
    if person is None:
        # Two mails from a new address may make it a person at once, in two processes.
        values = {"address": address.strip().lower(), "changed_at": now}
        insert_new(session, Person, values, key="address")
        person = person_at(session, address)
        assert person is not None
    return person


def people_for(session: Session, addresses: Iterable[str], *, now: datetime) -> dict[str, Person]:
    """The persons at ``addresses`` by address in lower case, those not yet known made: a
    query for every :data:`BATCH` addresses, however many players a game has."""
    wanted = sorted({a.strip().lower() for a in addresses if a.strip()})
    found = _people_at(session, wanted)
    missing = [address for address in wanted if address not in found]
    for address in missing:
        insert_new(session, Person, {"address": address, "changed_at": now}, key="address")
    return found | _people_at(session, missing)


def _people_at(session: Session, addresses: list[str]) -> dict[str, Person]:
    found: dict[str, Person] = {}
    for start in range(0, len(addresses), BATCH):
        batch = addresses[start : start + BATCH]
        query = select(Person).where(col(Person.address).in_(batch))
        found |= {person.address: person for person in session.exec(query)}
    return found


def give_settings(seat: Seat, person: Person | None) -> bool:
    """``seat`` is played by ``person`` (None: a person with no settings yet): it takes his
    settings, and his chosen password if he has one (else it keeps its own); whether it did
    (the seat's password is then his, not one to mail)."""
    seat.time_zone = person.time_zone if person else None
    seat.quiet_hours = person.quiet_hours if person else None
    seat.weekend = person.weekend if person else None
    if person is None or person.password_hash is None:
        return False
    seat.secret_hash = person.password_hash
    return True


def seat_for(session: Session, seat: Seat, *, now: datetime) -> bool:
    """A new seat (or one that passed to a newcomer) takes the settings of the person at its
    address, made if new (every address that plays is a person's); whether that person chose
    a password (the seat's is then his, not a new one)."""
    if not seat.address.strip():  # a seat the computer plays, with nobody to mail
        return False
    return give_settings(seat, person_for(session, seat.address, now=now))


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


def set_public(session: Session, address: str, *, public: bool, now: datetime) -> Person:
    """SET PUBLIC ON or OFF for the person at ``address`` (made if new)."""
    person = person_for(session, address, now=now)
    person.public, person.changed_at = public, now
    session.add(person)
    return person


def set_digest(session: Session, address: str, *, at: str | None, now: datetime) -> Person:
    """SET DIGEST DAILY ``at`` (``08:00``, his own zone) or OFF (``at`` None) for the person at
    ``address`` (made if new)."""
    person = person_for(session, address, now=now)
    person.digest, person.changed_at = at, now
    session.add(person)
    return person


_WEBHOOKS = "persons.webhooks"


def with_webhooks(session: Session) -> dict[str, Person]:
    """Every person with a webhook (SET WEBHOOK), by address: asked once in a session, so that
    a batch of mail asks the same questions whatever its number of mails (each mail queued is
    looked up here); :func:`set_webhook` forgets it."""
    found: dict[str, Person] | None = session.info.get(_WEBHOOKS)
    if found is None:
        query = select(Person).where(col(Person.webhook_url).is_not(None))
        found = {person.address: person for person in session.exec(query)}
        session.info[_WEBHOOKS] = found
    return found


def set_webhook(
    session: Session, address: str, *, url: str | None, secret: str | None, now: datetime
) -> Person:
    """SET WEBHOOK URL (with the secret its posts are signed with) or SET WEBHOOK OFF (None)
    for the person at ``address`` (made if new)."""
    person = person_for(session, address, now=now)
    person.webhook_url, person.webhook_secret, person.changed_at = url, secret, now
    session.add(person)
    session.info.pop(_WEBHOOKS, None)
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
            for name in (*SETTINGS, "public", "digest", "webhook_url", "webhook_secret"):
                setattr(after, name, getattr(before, name))
            after.changed_at = now
        session.add(after)
    session.flush()
    _held_follow(session, old, new, whole=whole)
    if before is not None and not queries.seats_at_address(session, old):
        session.delete(before)
    for seat in queries.seats_at_address(session, new):
        give_settings(seat, after)
        session.add(seat)


def _held_follow(session: Session, old: str, new: str, *, whole: bool) -> None:
    """The notices held for the digest at ``old`` about the games that moved go to ``new``
    (all of them when the person moved himself): whoever reads the old mailbox next is told
    nothing of a seat that left it."""
    moved = {s.game_id for s in queries.seats_at_address(session, new)}
    moved -= {s.game_id for s in queries.seats_at_address(session, old)}
    query = update(HeldNotice).where(
        col(HeldNotice.address) == old.strip().lower(), col(HeldNotice.digest_key).is_(None)
    )
    if not whole:
        query = query.where(col(HeldNotice.game_id).in_(moved))
    session.execute(
        query.values(address=new.strip().lower()).execution_options(synchronize_session=False)
    )
