"""The daily digest (``SET DIGEST DAILY HH:MM``): a player's mail that can wait comes as one
mail a day, at the time he chose in his own time zone.

A notice the use-case marked as one that can wait (``Notice.may_wait``: a result, press, an
announcement, an observer's mail, a game master's news; never an answer to his own mail, a
reminder, his turn, a code to confirm) is held when it is queued for an address whose person
takes a digest: rendered as it would have been sent and kept as a row (:class:`HeldNotice`),
in the transaction that decided it, under the key it would have had in the outbox, so doing the
step again holds nothing twice. At his time of day the held rows of each address are claimed,
and one mail that holds them all, game by game, with each picture attached once, is queued in
the same transaction (:func:`queue_due_digests`, which ``adjudicate serve`` runs every
``DIGEST_SECONDS``): a crash before the commit leaves them held, one after it leaves nothing to
do, and two processes never send the same notice twice (a row is claimed by a compare-and-set
on ``digest_key``). ``SET DIGEST OFF`` sends what is held at once (:func:`queue_held_now`).

The digest answers like the mail of several games: its Reply-To holds each game's seat's reply
address, and a reply speaks for the game each of its ``GAME`` lines names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from adjudicator.base.faults import crash_point
from adjudicator.base.security import seat_reply_address
from adjudicator.core.away import last_daily, next_daily, parse_time_of_day
from adjudicator.mail.compose import Attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.mail import render_mail, seat_return_path
from adjudicator.notify.notice import Threading
from adjudicator.notify.outbox import PendingMail, queue_pending
from adjudicator.notify.times import local_time, zone_name
from adjudicator.storage import persons, queries
from adjudicator.storage.db import insert_new
from adjudicator.storage.models import Game, HeldNotice, Person, Seat

DIGEST_SECONDS = 30
"""How often ``adjudicate serve`` looks for digests due: a digest comes at most this late."""

_TAKERS = "adjudicator.digest.takers"
"""``Session.info``: the addresses whose person takes a digest, read once a transaction."""


# --- holding -----------------------------------------------------------------------------------


def takes_digest(session: Session, address: str) -> bool:
    """Whether the person at ``address`` takes a digest: read once a transaction for all the
    notices it queues (a round's results to hundreds of seats ask it of each)."""
    return address.strip().lower() in _takers(session)


def anyone_takes_digest(session: Session) -> bool:
    """Whether anybody takes a digest (else what can wait need not be weighed at all)."""
    return bool(_takers(session))


def _takers(session: Session) -> frozenset[str]:
    transaction = session.get_transaction()
    cached = session.info.get(_TAKERS)
    if cached is None or cached[0] is not transaction:
        query = select(Person.address).where(col(Person.digest).is_not(None))
        cached = session.info[_TAKERS] = (transaction, frozenset(session.exec(query)))
    found: frozenset[str] = cached[1]
    return found


def forget_takers(session: Session) -> None:
    """A person's digest changed in this transaction: read the takers again."""
    session.info.pop(_TAKERS, None)


def hold(session: Session, mail: PendingMail, *, now: datetime) -> bool:
    """Hold ``mail`` for its recipient's digest, unless a mail with its key is queued or held
    already; True when held now."""
    if queries.queued_key(session, mail.key):
        return False
    values = {
        "key": mail.key,
        "address": mail.recipient.strip().lower(),
        "kind": mail.kind,
        "game_id": mail.game_id,
        "round_id": mail.round_id,
        "message": mail.message,
        "held_at": now,
        "digest_key": None,
    }
    return insert_new(session, HeldNotice, values, key="key")


def held_count(session: Session, address: str) -> int:
    """How many notices are held for ``address`` now."""
    return len(_held_ids(session, address))


# --- when ----------------------------------------------------------------------------------------


def zone_of(session: Session, person: Person) -> str:
    """The zone the person's digest keeps: his own (SET TIMEZONE), else his first game's."""
    if person.time_zone:
        return person.time_zone
    for seat in queries.seats_at_address(session, person.address):
        game = session.get(Game, seat.game_id)
        if game is not None:
            return game.time_zone
    return "UTC"


def next_digest(session: Session, person: Person, *, now: datetime) -> datetime | None:
    """When the person's next digest comes (if anything is held then); None: he takes none."""
    if not person.digest:
        return None
    return next_daily(parse_time_of_day(person.digest), zone_of(session, person), now)


# --- sending -------------------------------------------------------------------------------------


def queue_due_digests(session: Session, *, ctx: ServiceContext, now: datetime) -> int:
    """Queue every digest due at ``now``; how many. An address's held notices are due once its
    person's time of day has come since the first of them was held; those of an address whose
    person takes no digest (any more) go at once."""
    queued = 0
    for address in _holding_addresses(session):
        person = persons.person_at(session, address)
        if person is not None and person.digest:
            due = last_daily(parse_time_of_day(person.digest), zone_of(session, person), now)
            first = session.exec(
                select(HeldNotice.held_at)
                .where(HeldNotice.address == address, col(HeldNotice.digest_key).is_(None))
                .order_by(col(HeldNotice.held_at))
            ).first()
            if first is None or first >= due:
                continue
        queued += queue_held_now(session, address, ctx=ctx, now=now)
    return queued


def queue_held_now(session: Session, address: str, *, ctx: ServiceContext, now: datetime) -> int:
    """Queue the digest of every notice held for ``address`` now, in this transaction, and
    mark them carried by it; 1 when queued, 0 when nothing was held (or another process
    claimed it first)."""
    ids = _held_ids(session, address)
    if not ids:
        return 0
    key = f"digest:{ids[0]}"  # a held row is carried once: its id names the digest
    claimed = session.execute(
        update(HeldNotice)
        .where(col(HeldNotice.id).in_(ids), col(HeldNotice.digest_key).is_(None))
        .values(digest_key=key)
        .execution_options(synchronize_session=False)
    )
    if getattr(claimed, "rowcount", 0) != len(ids):
        # Another process took some of them meanwhile: it sends them; this one sends none.
        session.execute(
            update(HeldNotice)
            .where(col(HeldNotice.id).in_(ids), col(HeldNotice.digest_key) == key)
            .values(digest_key=None)
            .execution_options(synchronize_session=False)
        )
        return 0
    rows = list(
        session.exec(
            select(HeldNotice).where(col(HeldNotice.id).in_(ids)).order_by(col(HeldNotice.id))
        )
    )
    mail = _digest_mail(session, address, rows, key=key, ctx=ctx, now=now)
    queue_pending(session, mail, now=now)
    session.execute(
        update(HeldNotice)
        .where(col(HeldNotice.id).in_(ids))
        .values(message=b"")
        .execution_options(synchronize_session=False)
    )
    crash_point("digest")  # queued and marked, not committed: all of it held still on restart
    return 1


def _holding_addresses(session: Session) -> list[str]:
    query = select(HeldNotice.address).where(col(HeldNotice.digest_key).is_(None)).distinct()
    return sorted(session.exec(query))


def _held_ids(session: Session, address: str) -> list[int]:
    query = (
        select(HeldNotice.id)
        .where(HeldNotice.address == address.strip().lower())
        .where(col(HeldNotice.digest_key).is_(None))
        .order_by(col(HeldNotice.id))
    )
    return [i for i in session.exec(query) if i is not None]


@dataclass(frozen=True)
class _Shown:
    """One held mail as the digest shows it."""

    heading: str
    text: str
    pictures: tuple[Attachment, ...]  # and the other attachments: a calendar entry


def _digest_mail(
    session: Session,
    address: str,
    rows: Sequence[HeldNotice],
    *,
    key: str,
    ctx: ServiceContext,
    now: datetime,
) -> PendingMail:
    """One mail holding ``rows``, game by game (by name; in each, in the order held), each
    picture attached once; its reply address is each game's seat's."""
    person = persons.person_at(session, address)
    zone = zone_of(session, person) if person is not None else "UTC"
    by_game: dict[int | None, list[_Shown]] = {}
    for row in rows:
        by_game.setdefault(row.game_id, []).append(_shown(row.message))
    games: list[dict[str, Any]] = []
    seats: list[Seat] = []
    attached: dict[str, Attachment] = {}
    for game_id, shown in by_game.items():
        game = session.get(Game, game_id) if game_id is not None else None
        name = game.name if game is not None else None
        seat = queries.seat_at_address(session, game.id, address) if game is not None else None
        if seat is not None and seat.active:
            seats.append(seat)
        pictures = []
        for item in shown:
            for picture in item.pictures:
                # The same picture in several of a game's mails is attached once.
                same = f"{name}:{hashlib.sha256(picture.content).hexdigest()}"
                if same not in attached:
                    attached[same] = _named(picture, name, attached.values())
                pictures.append(attached[same].filename)
        games.append(
            {
                "name": name,
                "kind": game.kind if game is not None else None,
                "handle": seat.handle if seat is not None else None,
                "mails": [{"heading": i.heading, "text": i.text} for i in shown],
                "pictures": list(dict.fromkeys(pictures)),
            }
        )
    games.sort(key=lambda g: (g["name"] is None, g["name"] or ""))
    handles = {g["handle"] for g in games if g["handle"]}
    context = {
        "games": games,
        "count": len(rows),
        "handle": next(iter(handles)) if len(handles) == 1 else None,
        "at": person.digest if person is not None else None,
        "zone": zone_name(zone),
        "since": local_time(min(r.held_at for r in rows), zone),
        "attached": [a.filename for a in attached.values()],
        "answerable": [s.handle for s in seats],
        "service_address": ctx.identity.address,
    }
    reply_to = ", ".join(
        seat_reply_address(ctx.receipt_key, ctx.identity.address, s.id, s.reply_token)
        for s in seats
        if s.id is not None
    )
    only = seats[0].id if len(seats) == 1 else None
    bounce = seat_return_path(ctx, only) if only is not None else None
    message = render_mail(
        ctx,
        template="digest",
        context=context,
        to=address,
        key=key,
        now=now,
        threading=Threading(reply_to=reply_to or None),
        attachments=list(attached.values()),
    )
    return PendingMail(
        key=key,
        kind="digest",
        recipient=address,
        message=message,
        game_id=next(iter(by_game)) if len(by_game) == 1 else None,
        envelope_sender=bounce,
    )


def _shown(message: bytes) -> _Shown:
    """A held mail as the digest shows it: its subject as the heading, its plain part without
    the greeting and the footer (the digest has its own), its pictures and other attachments
    (a deadline's calendar entry)."""
    parsed = message_from_bytes(message, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    body = parsed.get_body(preferencelist=("plain",))
    text = str(body.get_content()) if body is not None else ""
    text = text.replace("\r\n", "\n").partition("\n-- \n")[0].strip("\n")
    greeting, blank, rest = text.partition("\n\n")
    if blank and greeting.startswith("Hello"):
        text = rest
    pictures = []
    for part in parsed.walk():
        name = part.get_filename()
        if part.is_multipart() or not name:
            continue  # the text and HTML parts have no file name
        content = part.get_content()
        raw = content.encode() if isinstance(content, str) else content
        maintype, subtype = part.get_content_maintype(), part.get_content_subtype()
        method = part.get_param("method")
        params = f"method={method}" if isinstance(method, str) else ""
        pictures.append(Attachment(name, raw, maintype, subtype, params))
    return _Shown(str(parsed["Subject"] or ""), text, tuple(pictures))


def _named(picture: Attachment, game: str | None, taken: Any) -> Attachment:
    """``picture`` named after its game, and numbered when the name is taken already."""
    names = {a.filename for a in taken}
    own = game is None or picture.filename.startswith(f"{game}-")
    base = picture.filename if own else f"{game}-{picture.filename}"
    stem, dot, ext = base.rpartition(".")
    name, number = base, 2
    while name in names:
        name = f"{stem}-{number}{dot}{ext}" if dot else f"{base}-{number}"
        number += 1
    return Attachment(name, picture.content, picture.maintype, picture.subtype)
