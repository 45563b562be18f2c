"""A seat passing to a new person: the game master's ``player replace`` (or REPLACE by mail),
a taken seat offer (``offers.py``). The seat keeps its handle, the name the game and its
record know the position by; everything personal is new.

The newcomer takes the seat from any stand-in, with no orders for the open round but his own
(``stand_ins.take_back``). He gets the game so far (position, standings, the round and its
deadline), his password and personal reply address; every other player is told who took which
seat; the replaced player is told. What the replaced player held (address, reply token) is kept in a
:class:`SeatHandover`, so that his later mails, to an old reply address or from his address,
are answered with the seat's own game and that it passed on, never as a stranger's mail to
another game.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from adjudicator.base.security import (
    hash_secret,
    new_secret,
    new_token,
    replied_seat,
    reply_mac_matches,
    token_digest,
)
from adjudicator.notify.calendar import deadline_attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.readmodel.read import game_view
from adjudicator.readmodel.standings import measures_of, player_standing
from adjudicator.service import ServiceError
from adjudicator.service.game_context import base_context
from adjudicator.service.games import Credentials, checked_address, seats_of
from adjudicator.service.gm_news import tell_every_seat
from adjudicator.service.handling import SectionHandling
from adjudicator.service.notices import queue_gm_notice
from adjudicator.service.round_results import round_extras
from adjudicator.service.rounds import open_round_of
from adjudicator.service.stand_ins import take_back
from adjudicator.service.welcome import how_to_play, queue_welcome
from adjudicator.storage import persons, queries
from adjudicator.storage.models import Game, GameStatus, Seat, SeatHandover, SeatOffer

HOW = ("gm", "offer")
"""How a seat changed hands: the game master gave it, or a standby player took its offer."""


def find_seat(session: Session, game: Game, handle: str) -> Seat:
    for seat in seats_of(session, game):
        if seat.handle == handle.strip().lower():
            return seat
    names = ", ".join(s.handle for s in seats_of(session, game))
    raise ServiceError(f"game {game.name} has no player {handle!r} (players: {names})", exit_code=3)


def hand_over(
    session: Session,
    game: Game,
    seat: Seat,
    address: str,
    *,
    ctx: ServiceContext,
    now: datetime,
    how: str = "gm",
) -> Credentials:
    """``seat`` passes to the person at ``address``; every mail it takes is queued here."""
    if how not in HOW:
        raise ValueError(f"unknown way for a seat to change hands: {how!r}")
    new_address = checked_address(address, whose=seat.handle)
    if game.status == GameStatus.FINISHED:
        raise ServiceError(f"game {game.name} is over: its seats stay with their players")
    old_address, old_token = seat.address, seat.reply_token
    secret, token = new_secret(), new_token()
    seat.address = new_address
    seat.secret_hash, seat.reply_token = hash_secret(secret), token_digest(token)
    seat.missed_rounds, seat.failed_logins, seat.locked_until = 0, 0, None
    seat.unreachable, seat.active, seat.wait = False, True, False
    # The newcomer's own settings, never his predecessor's (``storage/persons.py``).
    chosen = old_address != new_address and persons.seat_for(session, seat, now=now)
    session.add(seat)
    # The seat is the newcomer's from now: no orders stand for it in the open round but his
    # own (neither a stand-in's nor his predecessor's), and the round waits for them.
    take_back(
        session, game, seat, open_round_of(session, game), newcomer=old_address != new_address
    )
    queries.clear_login_failures(session, seat.id)  # the newcomer starts with a clean slate
    assert game.id is not None
    assert seat.id is not None
    if old_address != new_address:
        session.add(
            SeatHandover(
                game_id=game.id,
                seat_id=seat.id,
                old_address=old_address,
                old_reply_token=old_token,
                created_at=now,
            )
        )
    _close_offers(session, seat, taken_by=new_address, now=now)
    session.flush()
    credentials = Credentials(seat.handle, seat.address, None if chosen else secret, token)
    stamp = f"{now.timestamp():.0f}"
    if game.status == GameStatus.SETUP:  # nothing played yet: an ordinary welcome
        queue_welcome(
            session,
            ctx=ctx,
            game=game,
            credentials=[credentials],
            first_round=None,
            now=now,
            key_suffix=f":{stamp}",
        )
    else:
        _queue_takeover(session, ctx=ctx, game=game, seat=seat, credentials=credentials, now=now)
        _tell_others(session, ctx=ctx, game=game, seat=seat, how=how, now=now)
    if old_address != new_address:
        _tell_replaced(session, ctx=ctx, game=game, seat=seat, to=old_address, how=how, now=now)
    if how == "gm":  # the game master did it: the command line or his mail's answer says so
        return credentials
    queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="replaced",
        key=f"{game.id}:{seat.id}:{stamp}",
        now=now,
        round_=open_round_of(session, game),
        player=seat.handle,
        address=new_address,
        old_address=old_address,
        how=how,
    )
    return credentials


def _close_offers(session: Session, seat: Seat, *, taken_by: str, now: datetime) -> None:
    """An open offer of the seat is over once the seat has a new player."""
    for offer in session.exec(
        select(SeatOffer).where(SeatOffer.seat_id == seat.id, col(SeatOffer.taken_at).is_(None))
    ):
        offer.taken_at, offer.taken_by = now, taken_by
        session.add(offer)


def game_so_far(session: Session, game: Game, handle: str) -> dict[str, Any]:
    """What a newcomer to a running game reads: the rounds played, where every player stands
    (each of the game's measures after the last round) and the last round's number."""
    view = game_view(session, game)
    measures = measures_of(view)
    standings = [
        {
            "handle": player.handle,
            "you": player.handle == handle,
            "standing": player_standing(view, player.handle),
            "measures": [
                {"label": m.label, "value": m.latest(player.handle)}
                for m in measures
                if m.latest(player.handle) is not None
            ],
        }
        for player in view.players
    ]
    return {"played": view.last.number if view.last else 0, "standings": standings}


def _queue_takeover(
    session: Session,
    *,
    ctx: ServiceContext,
    game: Game,
    seat: Seat,
    credentials: Credentials,
    now: datetime,
) -> None:
    local, _, domain = ctx.identity.address.partition("@")
    reply_address = f"{local}+{credentials.reply_token}@{domain}"
    round_ = open_round_of(session, game)
    view = game_view(session, game)
    extras = None
    if view.last is not None:  # the position after the last round, as its result showed it
        extras = round_extras(
            session, ctx, game, view.last.public_state, view.last.report, next_round=None, now=now
        )
    calendar = deadline_attachment(ctx, game, round_, now=now)
    context = {
        **base_context(game, seat, round_),
        **game_so_far(session, game, seat.handle),
        **how_to_play(ctx, game, seat.handle, seat_index=seat.seat, started=True),
        "handle": seat.handle,
        "seat": seat.seat + 1,
        "players": [s.handle for s in seats_of(session, game)],
        "address": seat.address,
        "secret": credentials.secret,
        "reply_address": reply_address,
        "service_address": ctx.identity.address,
        "paused": game.status == GameStatus.PAUSED,
        "pictures": extras.picture_context() if extras else [],
        "calendar": calendar is not None,
        "game_link": ctx.archive_link(game.name),
    }
    queue_notice(
        session,
        Notice(  # it holds the password: dropped from the outbox once sent (outbox.py)
            "takeover",
            seat.address,
            context,
            key=f"takeover:{game.id}:{seat.id}:{now.timestamp():.0f}",
            game_id=game.id,
            seat_id=seat.id,
            reply_to=reply_address,
            attachments=[calendar] if calendar else [],
            images=extras.images if extras else [],
        ),
        ctx=ctx,
        now=now,
    )


def _tell_others(
    session: Session, *, ctx: ServiceContext, game: Game, seat: Seat, how: str, now: datetime
) -> None:
    tell_every_seat(
        session,
        game,
        template="seat_taken",
        extra={"player": seat.handle, "how": how},
        key=lambda other: f"seat_taken:{game.id}:{seat.id}:{other.id}:{now.timestamp():.0f}",
        ctx=ctx,
        now=now,
        but=seat,
    )


def _tell_replaced(
    session: Session,
    *,
    ctx: ServiceContext,
    game: Game,
    seat: Seat,
    to: str,
    how: str,
    now: datetime,
) -> None:
    """To the old address, not as the seat's mail: no reply address of the seat, no bounce
    address naming it (the seat is somebody else's now)."""
    queue_notice(
        session,
        Notice(
            "seat_passed_on",
            to,
            {**base_context(game, None, None), "player": seat.handle, "how": how},
            key=f"seat_passed_on:{game.id}:{seat.id}:{now.timestamp():.0f}",
            game_id=game.id,
        ),
        ctx=ctx,
        now=now,
    )


# --- the replaced player's later mails -------------------------------------------------


def former_seat(session: Session, recipients: tuple[str, ...], *, key: bytes) -> Seat | None:
    """The seat whose old personal or reply address (before it passed on) is among
    ``recipients``: the mail is its replaced player's."""
    for address in recipients:
        local = address.strip().strip("<>").partition("@")[0].lower()
        _, plus, tag = local.partition("+")
        if plus and tag:
            found = _handover_with_token(session, token_digest(tag))
            if found is not None:
                return session.get(Seat, found.seat_id)
        replied = replied_seat(address)
        if replied is None:
            continue
        seat_id, mac = replied
        for handover in session.exec(select(SeatHandover).where(SeatHandover.seat_id == seat_id)):
            if reply_mac_matches(key, seat_id, handover.old_reply_token, mac):
                return session.get(Seat, seat_id)
    return None


def _handover_with_token(session: Session, digest: str) -> SeatHandover | None:
    return session.exec(select(SeatHandover).where(SeatHandover.old_reply_token == digest)).first()


def passed_on_from(session: Session, game: Game, address: str) -> Seat | None:
    """The seat of ``game`` that passed on from ``address``, if it holds none there now."""
    address = address.strip().lower()
    if queries.seat_at_address(session, game.id, address) is not None:
        return None
    found = session.exec(
        select(SeatHandover).where(
            SeatHandover.game_id == game.id, SeatHandover.old_address == address
        )
    ).first()
    return session.get(Seat, found.seat_id) if found is not None else None


def answer_passed_on(handling: SectionHandling, former: Seat) -> None:
    """One answer to the sender: the seat's game, and that the seat passed on."""
    game = handling.session.get(Game, former.game_id)
    assert game is not None
    handling.notes.append(f"{former.handle} of {game.name} passed on: mail from its former player")
    handling.reply(
        "passed_on",
        handling.sender,
        {**base_context(game, None, None), "player": former.handle},
        game_id=game.id,
    )
