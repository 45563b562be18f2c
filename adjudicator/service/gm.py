"""The game master's controls: pause and resume, extend a deadline, add, replace or remove a
player, change an address, and roll a game back to the start of a round.

Each is one transaction, and every player affected is told by mail from the same transaction.
The running service's scheduler follows what they change (``scheduler.py``): a deadline that
moves, a round paused, resumed or rolled back is planned again within a second or two, and
whatever a job planned before finds, no round of a game that is not running closes
(``rounds.close_round``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, update
from sqlmodel import Session, col

from adjudicator.base.security import hash_secret, new_secret, new_token, token_digest
from adjudicator.core.errors import SetupError
from adjudicator.core.schedule import duration_in_words
from adjudicator.core.text import is_handle
from adjudicator.games import game_title, kind_of
from adjudicator.notify.calendar import deadline_attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.notify.times import local_time
from adjudicator.readmodel.stored import game_state, rules_of, start_state
from adjudicator.service import ServiceError
from adjudicator.service.closing import close_if_complete
from adjudicator.service.deadlines import waiting_among
from adjudicator.service.game_context import base_context
from adjudicator.service.games import (
    NO_ADDRESS,
    Credentials,
    active_seats,
    checked_address,
    move_seat,
    seats_of,
)
from adjudicator.service.handover import hand_over
from adjudicator.service.rerun import find_round, state_before
from adjudicator.service.rounds import closes_at, open_round, open_round_of
from adjudicator.service.stand_ins import play_stand_ins, set_stand_in, take_back
from adjudicator.service.urgency import pressing_seats
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage import persons, queries
from adjudicator.storage.models import (
    Game,
    GameStatus,
    HeldNotice,
    OrderSet,
    OutboxMail,
    OutboxStatus,
    Round,
    RoundResult,
    RoundState,
    Seat,
)


def pause(session: Session, game: Game, *, ctx: ServiceContext, now: datetime) -> None:
    """No round of a paused game closes; its players are told."""
    if game.status != GameStatus.RUNNING:
        raise ServiceError(f"game {game.name} is {game.status}, not running: nothing to pause")
    game.status, game.paused_at = GameStatus.PAUSED, now
    session.add(game)
    round_ = open_round_of(session, game)
    _tell_players(
        session, game, round_, ctx=ctx, now=now, template="paused", key=str(int(now.timestamp()))
    )


def resume(
    session: Session,
    game: Game,
    *,
    ctx: ServiceContext,
    now: datetime,
    paused_unsaid: bool = False,
) -> Round | None:
    """Run a paused game again. A round whose orders all came in during the pause is
    adjudicated now; otherwise the time it closes at (its deadline, or the end of its grace
    period) moves by exactly the length of the pause, and the players get the new deadline and
    the length of the pause. A calendar schedule too: snapping to its next slot would turn a
    pause of seconds into a day's delay; the rounds after this one keep to the calendar.

    ``paused_unsaid``: the pause began in the same breath (an earlier line of the game master's
    same mail), so it lasted no time and changed nothing for the players: its notices, still
    queued, are withdrawn, and nothing is told."""
    if game.status != GameStatus.PAUSED or game.paused_at is None:
        raise ServiceError(f"game {game.name} is {game.status}, not paused: nothing to resume")
    pause_length = now - game.paused_at
    game.status, game.paused_at = GameStatus.RUNNING, None
    session.add(game)
    round_ = open_round_of(session, game)
    if paused_unsaid and not pause_length:
        # A "paused" notice with nothing after it would tell the players the game stopped.
        _withdraw_pause_notices(session, game, paused_at=now)
        return round_
    if round_ is None or round_.id is None:
        return round_
    if close_if_complete(session, round_.id, ctx=ctx, now=now) is not None:
        return open_round_of(session, game)
    old = closes_at(round_)
    if old is None:
        return round_
    _move_deadline(
        session,
        game,
        round_,
        old + pause_length,
        ctx=ctx,
        now=now,
        reason="resumed",
        old=old,
        paused_for=pause_length,
    )
    return round_


def extend(
    session: Session,
    game: Game,
    *,
    ctx: ServiceContext,
    now: datetime,
    by: timedelta | None = None,
    until: datetime | None = None,
    earlier: bool = False,
) -> Round:
    """Move the open round's deadline: later ``by`` a duration, or to ``until``. A time before
    the current deadline is refused unless ``earlier`` says the game master means it: players
    plan by the deadline they were told, and a typo must not cut their time short."""
    round_ = open_round_of(session, game)
    if round_ is None:
        raise ServiceError(f"game {game.name} has no open round", exit_code=3)
    old = closes_at(round_)
    if until is None:
        if by is None:
            raise ServiceError("say how long (--by 24h) or until when (--until ...)")
        until = (old if old and old > now else now) + by
    if until <= now:
        raise ServiceError(f"the new deadline {until:%Y-%m-%d %H:%M %Z} has passed already")
    if old is not None and until < old and not earlier:
        raise ServiceError(
            f"the new deadline {local_time(until, game.time_zone)} is before the current one, "
            f"{local_time(old, game.time_zone)}; to bring the deadline forward, add --earlier"
        )
    _move_deadline(session, game, round_, until, ctx=ctx, now=now, reason="extended", old=old)
    return round_


def _move_deadline(
    session: Session,
    game: Game,
    round_: Round,
    deadline: datetime,
    *,
    ctx: ServiceContext,
    now: datetime,
    reason: str,
    old: datetime | None,
    paused_for: timedelta | None = None,
) -> None:
    round_.deadline, round_.grace_until = deadline, None
    session.add(round_)
    session.flush()
    event = deadline_attachment(ctx, game, round_, now=now)  # replaces the calendar entry
    pressing = pressing_seats(session, game, now=now)
    for seat in _concerned_by_deadline(session, game):
        zone = seat.time_zone or game.time_zone
        queue_notice(
            session,
            Notice(
                "deadline_changed",
                seat.address,
                {
                    **base_context(game, seat, round_),
                    "reason": reason,
                    "old_deadline": local_time(old, zone) if old else None,
                    "paused_for": duration_in_words(paused_for) if paused_for else None,
                    "paused": game.status == GameStatus.PAUSED,
                },
                key=f"deadline:{round_.id}:{seat.id}:{int(deadline.timestamp())}",
                game_id=game.id,
                round_id=round_.id,
                seat_id=seat.id,
                attachments=[event] if event else [],
                may_wait=seat.id not in pressing,
            ),
            ctx=ctx,
            now=now,
        )


def _concerned_by_deadline(session: Session, game: Game) -> list[Seat]:
    """The seats a deadline concerns. In a game played in turns, both players (one moves,
    the other waits for the move); in a simultaneous one, those whose orders the game waits
    for: a player knocked out (SiSSYFiGHT) sends no more orders, and is not told of a
    deadline as though he had to."""
    seats = active_seats(session, game)
    return seats if rules_of(game).sequential else waiting_among(seats, game)


def _withdraw_pause_notices(session: Session, game: Game, *, paused_at: datetime) -> None:
    """The "paused" notices of a pause that lasted no time, still queued (or held for a
    digest), are never sent."""
    keys = [
        _notice_key("paused", game, seat, str(int(paused_at.timestamp())))
        for seat in seats_of(session, game)
    ]
    session.execute(
        delete(OutboxMail).where(
            col(OutboxMail.key).in_(keys), col(OutboxMail.status) == OutboxStatus.PENDING
        )
    )
    session.execute(
        delete(HeldNotice).where(
            col(HeldNotice.key).in_(keys), col(HeldNotice.digest_key).is_(None)
        )
    )


def _notice_key(template: str, game: Game, seat: Seat, key: str) -> str:
    return f"{template}:{game.id}:{seat.id}:{key}"


def _tell_players(
    session: Session,
    game: Game,
    round_: Round | None,
    *,
    ctx: ServiceContext,
    now: datetime,
    template: str,
    key: str,
) -> None:
    # A paused game has no deadline: the calendar entry is withdrawn until it resumes.
    event = deadline_attachment(ctx, game, round_, now=now, cancelled=True)
    pressing = pressing_seats(session, game, now=now)
    for seat in active_seats(session, game):
        queue_notice(
            session,
            Notice(
                template,
                seat.address,
                base_context(game, seat, round_),
                key=_notice_key(template, game, seat, key),
                game_id=game.id,
                seat_id=seat.id,
                attachments=[event] if event else [],
                may_wait=seat.id not in pressing,
            ),
            ctx=ctx,
            now=now,
        )


# --- players -----------------------------------------------------------------------------------


def _seat(session: Session, game: Game, handle: str) -> Seat:
    for seat in seats_of(session, game):
        if seat.handle == handle.lower():
            return seat
    names = ", ".join(s.handle for s in seats_of(session, game))
    raise ServiceError(f"game {game.name} has no player {handle!r} (players: {names})", exit_code=3)


def _restart(session: Session, game: Game) -> None:
    """Rebuild a game that has not started from its seats (after adding or removing one)."""
    handles = [seat.handle for seat in seats_of(session, game)]
    try:
        game.state = rules_of(game).dump(start_state(game, handles))
    except SetupError as error:
        raise ServiceError(str(error)) from None
    session.add(game)


def add_player(
    session: Session, game: Game, handle: str, address: str, *, ctx: ServiceContext, now: datetime
) -> Credentials:
    """Add a player to a game that has not started; they get a welcome mail."""
    handle = handle.strip().lower()
    if game.status != GameStatus.SETUP:
        raise ServiceError(
            f"game {game.name} has started: players can only be added before round 1 "
            "(replace a player instead)"
        )
    if not is_handle(handle):
        raise ServiceError(f"{handle!r} is not a usable handle (a letter, then letters or digits)")
    seats = seats_of(session, game)
    if any(seat.handle == handle for seat in seats):
        raise ServiceError(f"game {game.name} has a player {handle!r} already")
    assert game.id is not None
    secret, token = new_secret(), new_token()
    seat = Seat(
        game_id=game.id,
        seat=max((s.seat for s in seats), default=-1) + 1,
        handle=handle,
        address=checked_address(address, whose=handle),
        secret_hash=hash_secret(secret),
        reply_token=token_digest(token),
    )
    chosen = persons.seat_for(session, seat, now=now)  # the player's own settings hold here too
    session.add(seat)
    session.flush()
    _restart(session, game)
    credentials = Credentials(handle, seat.address, None if chosen else secret, token)
    queue_welcome(session, ctx=ctx, game=game, credentials=[credentials], first_round=None, now=now)
    return credentials


def replace_player(
    session: Session, game: Game, handle: str, address: str, *, ctx: ServiceContext, now: datetime
) -> Credentials:
    """A new person takes over a seat (its handle names the position in the game): new address,
    new secret and reply address, the missed-round count and marks cleared. The newcomer gets
    the game so far, the others and the replaced player are told (``handover.py``)."""
    seat = _seat(session, game, handle)
    return hand_over(session, game, seat, address, ctx=ctx, now=now, how="gm")


def remove_player(session: Session, game: Game, handle: str, *, retire: bool = True) -> None:
    """Before the start the seat goes; in a running game it stays in the game (its orders are
    missing from now on, under the game's no-orders rule) but gets no more mail. ``retire``
    False keeps the game's rule for a player taken out (e.g. Giveaway's) from applying yet: the
    seat is offered to a new player (``offers.py``)."""
    seat = _seat(session, game, handle)
    if game.status == GameStatus.SETUP:
        session.delete(seat)
        session.flush()
        _restart(session, game)
        return
    seat.active = False
    session.add(seat)
    retired = kind_of(game.kind).retire if retire else None
    if retired is not None:  # e.g. a Giveaway player may no longer be given anything, nor win
        rules = rules_of(game)
        game.state = rules.dump(retired(game_state(game), seat.handle))
        session.add(game)
    # Orders it sent for the open round no longer count (its mail stays stored): the round
    # adjudicates, and re-runs, without them.
    round_ = open_round_of(session, game)
    if round_ is not None:
        session.execute(
            delete(OrderSet).where(
                col(OrderSet.round_id) == round_.id, col(OrderSet.seat_id) == seat.id
            )
        )


def put_stand_in(
    session: Session, game: Game, handle: str, *, on: bool, ctx: ServiceContext, now: datetime
) -> list[str]:
    """Let the computer play a seat (``stand_ins.py``), or give it back (``on=False``: the
    stand-in's orders for the open round are withdrawn, and the round waits for the player's).
    In a running game the stand-in moves at once if the open round waits for it and the seat
    has no orders yet (orders its player sent stand), and the round closes if that was the
    last order; the handles that moved."""
    seat = _seat(session, game, handle)
    if on and kind_of(game.kind).stand_in is None:
        raise ServiceError(f"{game_title(game.kind)} has no stand-in player")
    if not on and seat.address == NO_ADDRESS:
        raise ServiceError(
            f"{seat.handle!r} has no address, so nobody would play the seat: give it a player "
            f"first (adjudicate player replace {game.name} {seat.handle} ADDRESS)"
        )
    round_ = open_round_of(session, game)
    if not on:  # the seat is its player's again: the computer's orders for the round go
        take_back(session, game, seat, round_)
        return []
    set_stand_in(game, seat.handle, on=True)
    session.add(game)
    if round_ is None or round_.id is None or game.status != GameStatus.RUNNING:
        return []
    moved = play_stand_ins(session, game, round_, now=now)
    close_if_complete(session, round_.id, ctx=ctx, now=now)
    return moved


def change_address(
    session: Session,
    game: Game,
    handle: str,
    address: str,
    *,
    ctx: ServiceContext,
    now: datetime,
) -> None:
    """A player's new address; clears the unreachable mark set by a bounce. Replies to the
    mails sent to the old address no longer prove the seat (``move_seat``).

    The player is told at both addresses: at the new one as the seat's mail (its reply
    address proves the seat), and at the old one, without any reply address of the seat, so
    that a seat moved behind its player's back is noticed where he still reads."""
    seat = _seat(session, game, handle)
    old = seat.address
    move_seat(seat, checked_address(address, whose=handle))
    session.add(seat)
    session.flush()
    if old.lower() == seat.address.lower():
        return
    persons.follow(session, old, seat.address, now=now, whole=False)
    round_ = open_round_of(session, game)
    context = base_context(game, seat, round_) | {"old": old, "new": seat.address}
    stamp = f"{game.id}:{seat.id}:{now.timestamp():.0f}"
    for side, to in (("new", seat.address), ("old", old)):
        if to == NO_ADDRESS:
            continue
        queue_notice(
            session,
            Notice(
                "address_changed",
                to,
                context | {"side": side},
                key=f"address_changed:{side}:{stamp}",
                game_id=game.id,
                seat_id=seat.id if side == "new" else None,
            ),
            ctx=ctx,
            now=now,
        )


# --- rollback ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RolledBack:
    round: Round
    discarded_rounds: int
    cancelled_mails: int


def rollback(
    session: Session, game: Game, number: int, *, ctx: ServiceContext, now: datetime
) -> RolledBack:
    """Back to the start of round ``number``: the results of it and every later round are
    discarded, the orders of later rounds too; the orders already sent for round ``number``
    stand. Round ``number`` opens again with a fresh deadline, and unsent mails of the discarded
    rounds are cancelled. The players get the new deadline, and each new result of a round
    whose result was mailed says that it replaces that one. A paused game stays paused."""
    target = find_round(session, game, number)
    if target.state == RoundState.OPEN:
        raise ServiceError(f"round {number} of {game.name} is open: nothing to roll back")
    state = state_before(session, game, target)
    later = queries.rounds_from(session, game.id, number)
    ids = [r.id for r in later if r.id is not None]
    # Each result mailed for these rounds is replaced by the one the round gets again; its
    # mail says so, with the date of the one it replaces.
    replaced = dict(game.replaced_results or {})
    replaced |= {str(r.number): r.reported_at.isoformat() for r in later if r.reported_at}
    game.replaced_results = replaced
    cancelled = session.execute(
        update(OutboxMail)
        .where(col(OutboxMail.round_id).in_(ids), col(OutboxMail.status) == OutboxStatus.PENDING)
        .values(status=OutboxStatus.FAILED, last_error="cancelled: the game was rolled back")
    )
    session.execute(
        update(OutboxMail).where(col(OutboxMail.round_id).in_(ids)).values(round_id=None)
    )
    kept = queries.order_sets_of(session, target.id)
    missed = _missed_before(session, game, number)
    for seat in seats_of(session, game):
        seat.missed_rounds = missed.get(seat.handle, 0)
        session.add(seat)
    session.execute(delete(RoundResult).where(col(RoundResult.round_id).in_(ids)))
    session.execute(delete(OrderSet).where(col(OrderSet.round_id).in_(ids)))
    session.execute(delete(Round).where(col(Round.id).in_(ids)))
    session.flush()
    game.state = rules_of(game).dump(state)
    game.current_round = number - 1
    # A paused game stays paused (the game master may be mending it): its reopened round
    # keeps no deadline until it resumes, which moves this one by the pause from now on.
    paused = game.status == GameStatus.PAUSED
    game.status = GameStatus.PAUSED if paused else GameStatus.RUNNING
    game.finished_at, game.paused_at = None, now if paused else None
    round_ = open_round(session, game, now=now)  # a new row: new mail keys for its result
    assert round_.id is not None
    for order_set in kept:
        session.add(
            OrderSet(
                round_id=round_.id,
                seat_id=order_set.seat_id,
                submission_id=order_set.submission_id,
                lines=order_set.lines,
                receipt=order_set.receipt,
                created_at=order_set.created_at,
            )
        )
    session.flush()
    if round_.deadline is not None:
        _move_deadline(
            session, game, round_, round_.deadline, ctx=ctx, now=now, reason="rolled_back", old=None
        )
    return RolledBack(round_, len(ids), int(getattr(cancelled, "rowcount", 0)))


def _missed_before(session: Session, game: Game, number: int) -> dict[str, int]:
    """Each seat's missed rounds in a row at the start of round ``number``, counted again from
    the rounds that stay (the counts of the discarded rounds would tell the game master of
    misses that no longer happened): going back from the round before, a round in which the
    game waited for the seat adds one when none of its orders were adjudicated, and ends the
    count when some were; a round that did not wait for it (another's turn) changes nothing.
    The count is the present player's: it stops at a round closed before he took the seat."""
    rules = rules_of(game)
    missed: dict[str, int] = {}
    counted_out: set[str] = set()
    began = queries.tenures_began(session, game.id)
    tenures = {seat.handle: began.get(seat.id or 0) for seat in seats_of(session, game)}
    for earlier in range(number - 1, 0, -1):
        result = queries.result_of_round_numbered(session, game.id, earlier)
        if result is None:
            break
        round_ = find_round(session, game, earlier)
        # A round that closed before the seat's player took it over was his predecessor's.
        counted_out |= {
            handle
            for handle, start in tenures.items()
            if start is not None and (round_.closed_at is None or round_.closed_at <= start)
        }
        movers = set(rules.to_move(state_before(session, game, round_)))
        for handle in movers - counted_out:
            if handle in result.orders:
                counted_out.add(handle)
            else:
                missed[handle] = missed.get(handle, 0) + 1
    return missed
