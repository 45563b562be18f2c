"""The questions the service asks the database, one function each.

The use cases in ``adjudicator/service/`` read rows only through these functions, so that every
query is written once, can be read in one place next to the tables it uses, and can be batched
or indexed without hunting through the service. Functions take ids rather than rows where a
caller may only hold an id. Writes stay in the service: they are the use cases themselves.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, String, bindparam, cast, union
from sqlmodel import Session, col, func, or_, select

from adjudicator.storage.db import aware, listed, on_postgresql
from adjudicator.storage.models import (
    Absence,
    Game,
    GameStatus,
    JoinRequest,
    LoginFailure,
    Observer,
    OrderSet,
    OutboxMail,
    OutboxStatus,
    PicturePng,
    Press,
    Round,
    RoundResult,
    RoundState,
    Seat,
    SeatHandover,
    SeatRoll,
    Standby,
    Submission,
    SubmissionStatus,
    standing_order_sets,
)
from adjudicator.storage.prefetch import ROLL, installed, remembered

# Games


def game_named(session: Session, name: str) -> Game | None:
    name = name.strip().lower()

    def ask() -> Game | None:
        return session.exec(select(Game).where(Game.name == name)).first()

    return remembered(session, lambda r: r.games, name, ask)


def all_games(session: Session) -> list[Game]:
    return list(session.exec(select(Game).order_by(col(Game.id))))


def unfinished_games(session: Session) -> list[Game]:
    return list(
        session.exec(select(Game).where(Game.status != GameStatus.FINISHED).order_by(col(Game.id)))
    )


def running_games_seating(session: Session, address: str) -> list[Game]:
    """The running games with a seat registered under ``address`` (proof of nothing)."""
    if not address.strip():
        return []  # the computer's seats with no address are nobody's

    def ask() -> list[Game]:
        return list(
            session.exec(
                select(Game)
                .join(Seat, col(Seat.game_id) == col(Game.id))
                .where(
                    func.lower(Seat.address) == address.lower(), Game.status == GameStatus.RUNNING
                )
                .order_by(col(Game.id))
            )
        )

    games = remembered(session, lambda r: r.seating, address.lower(), ask)
    return list(games)  # a copy: the kept list stays as read


def games_open_for_signup(session: Session) -> list[Game]:
    """Games not started whose game master opened them for sign-up (setting ``signup``)."""
    setup = session.exec(select(Game).where(Game.status == GameStatus.SETUP).order_by(col(Game.id)))
    return [game for game in setup if game.settings.get("signup")]


# Seats


def seats_at_address(session: Session, address: str) -> list[Seat]:
    """Every seat registered under ``address``, in any game (proof of nothing by itself)."""
    if not address.strip():
        return []
    return list(
        session.exec(
            select(Seat).where(Seat.address == address.strip().lower()).order_by(col(Seat.id))
        )
    )


def seats_of(session: Session, game_id: int | None) -> list[Seat]:
    """A game's seats in seat order."""

    def ask() -> list[Seat]:
        return list(session.exec(_SEATS_OF, params={"game": game_id}))

    seats: list[Seat] = remembered(session, lambda r: r.seats, game_id, ask)
    return list(seats)  # a copy: the kept list stays as read


_SEATS_OF = select(Seat).where(Seat.game_id == bindparam("game")).order_by(col(Seat.seat))


def seat_roll(session: Session, game_id: int | None) -> list[SeatRoll]:
    """A game's seats in seat order, as :class:`SeatRoll`."""

    def ask() -> list[SeatRoll]:
        return [SeatRoll(*row) for row in session.exec(_ROLL_OF, params={"game": game_id})]

    roll: list[SeatRoll] = remembered(session, lambda r: r.rolls, game_id, ask)
    return list(roll)  # a copy: the kept list stays as read


_ROLL_OF = ROLL.where(Seat.game_id == bindparam("game")).order_by(col(Seat.seat))


def seat_with_token(session: Session, digest: str) -> Seat | None:
    """The seat whose personal reply address carries the token with this digest."""
    return session.exec(select(Seat).where(Seat.reply_token == digest)).first()


def seat_at_address(session: Session, game_id: int | None, address: str) -> Seat | None:
    """The seat of a game registered under ``address``, in any case (proof of nothing by
    itself): ``Alice@Example.org`` is the player registered as ``alice@example.org``."""
    if not address.strip():
        return None
    wanted = address.lower()

    def ask() -> Seat | None:
        reads = installed(session)
        if reads is not None and game_id in reads.seats:  # the game's seats, read already
            seats = seats_of(session, game_id)
            return next((s for s in seats if s.address.lower() == wanted), None)
        return session.exec(
            select(Seat).where(Seat.game_id == game_id, func.lower(Seat.address) == wanted)
        ).first()

    return remembered(session, lambda r: r.at_address, (game_id, wanted), ask)


def clear_login_failures(session: Session, seat_id: int | None) -> None:
    for failure in session.exec(select(LoginFailure).where(LoginFailure.seat_id == seat_id)):
        session.delete(failure)


def login_failures_of(session: Session, seat_id: int) -> list[LoginFailure]:

    def ask() -> list[LoginFailure]:
        return list(session.exec(select(LoginFailure).where(LoginFailure.seat_id == seat_id)))

    failures: list[LoginFailure] = remembered(session, lambda r: r.failures, seat_id, ask)
    return list(failures)  # a copy: the kept list stays as read


# Rounds


def open_round(session: Session, game_id: int | None) -> Round | None:
    reads = installed(session)
    if reads is not None:
        kept = reads.open_rounds.get(game_id)
        if kept is not None and kept.state != RoundState.OPEN:  # closed by the batch itself
            del reads.open_rounds[game_id]

    def ask() -> Round | None:
        query = select(Round).where(Round.game_id == game_id, Round.state == RoundState.OPEN)
        return session.exec(query if reads is None else reads.locked(query)).first()

    return remembered(session, lambda r: r.open_rounds, game_id, ask)


def round_numbered(session: Session, game_id: int | None, number: int) -> Round | None:
    return session.exec(_ROUND_NUMBERED, params={"game": game_id, "number": number}).first()


_ROUND_NUMBERED = select(Round).where(
    Round.game_id == bindparam("game"), Round.number == bindparam("number")
)


def rounds_from(session: Session, game_id: int | None, number: int) -> list[Round]:
    """Round ``number`` and every later round of a game."""
    return list(
        session.exec(
            select(Round)
            .where(Round.game_id == game_id, Round.number >= number)
            .order_by(col(Round.number))
        )
    )


def failed_rounds(session: Session, game_id: int | None) -> list[Round]:
    """Rounds whose adjudication stopped with an error for the game master."""
    return list(
        session.exec(
            select(Round)
            .where(Round.game_id == game_id, col(Round.error).is_not(None))
            .order_by(col(Round.number))
        )
    )


def _past_due(now: Any) -> Any:
    """A round's close has come: its grace period's end, or its deadline where it has none."""
    return or_(
        col(Round.grace_until) <= now,
        col(Round.grace_until).is_(None) & (col(Round.deadline) <= now),
    )


def due_rounds(session: Session, *, now: datetime) -> list[int]:
    """Open rounds whose deadline (or grace period) has passed, and closing rounds not stopped by
    an error, of running games: the sweeper's work list."""
    query = (
        select(Round.id)
        .join(Game, col(Game.id) == col(Round.game_id))
        .where(Game.status == GameStatus.RUNNING)
        .where(
            or_(
                (col(Round.state) == RoundState.OPEN) & _past_due(now),
                (col(Round.state) == RoundState.CLOSING) & col(Round.error).is_(None),
            )
        )
        .order_by(col(Round.deadline))
    )
    return [i for i in session.exec(query) if i is not None]


@dataclass(frozen=True)
class Overdue:
    """A round past its deadline (or its grace period) that is not closed."""

    game: str
    number: int
    due: datetime
    error: str | None


def overdue_rounds(session: Session, *, now: datetime) -> list[Overdue]:
    """The rounds of running games past their close and not closed (open, or closing: stopped
    by an error or still at work), the longest overdue first: what ``/healthz`` judges."""
    late = []
    for game, round_ in session.exec(_OVERDUE, params={"now": now}):
        due = round_.grace_until or round_.deadline
        if due is not None:
            late.append(Overdue(game, round_.number, aware(due), round_.error))
    return sorted(late, key=lambda r: r.due)


_OVERDUE = (
    select(Game.name, Round)
    .join(Game, col(Game.id) == col(Round.game_id))
    .where(Game.status == GameStatus.RUNNING)
    .where(col(Round.state).in_([RoundState.OPEN, RoundState.CLOSING]))
    .where(_past_due(bindparam("now")))
)


def open_rounds(session: Session, *, of_rounds: Collection[int] | None = None) -> list[Round]:
    """Every open round with a deadline, of running games; with ``of_rounds``, only those of
    the games these rounds belong to (the round a closing opened, or a grace period)."""
    query = (
        select(Round)
        .join(Game, col(Game.id) == col(Round.game_id))
        .where(Round.state == RoundState.OPEN, Game.status == GameStatus.RUNNING)
        .where(col(Round.deadline).is_not(None))
    )
    if of_rounds is not None:
        games = select(Round.game_id).where(col(Round.id).in_(of_rounds))
        query = query.where(col(Round.game_id).in_(games.scalar_subquery()))
    return list(session.exec(query))


def closing_times(session: Session) -> frozenset[tuple[int | None, str | None, str | None]]:
    """(id, deadline, grace period's end) of every open round with a deadline, of running
    games: a few columns the scheduler reads every second or two to see whether another
    process (a game master's command, another instance) paused, resumed, rolled back or moved
    a round since it planned them (``scheduler.DeadlineScheduler.follow``). The times as the
    database writes them, only to be compared: read as text, not made datetimes, which took
    several times as long."""
    query = (
        select(Round.id, cast(Round.deadline, String), cast(Round.grace_until, String))
        .join(Game, col(Game.id) == col(Round.game_id))
        .where(Round.state == RoundState.OPEN, Game.status == GameStatus.RUNNING)
        .where(col(Round.deadline).is_not(None))
    )
    return frozenset((i, deadline, grace) for i, deadline, grace in session.exec(query))


def completed_rounds(session: Session) -> list[int]:
    """Open rounds whose last orders came in (``Round.complete_at``): to be closed early."""
    rows = session.exec(
        select(Round.id)
        .where(Round.state == RoundState.OPEN, col(Round.complete_at).is_not(None))
        .order_by(col(Round.id))
    )
    return [i for i in rows if i is not None]


def adjudicated_rounds(session: Session) -> list[int]:
    """Rounds adjudicated and not yet reported (a crash in between, or another instance)."""
    rows = session.exec(
        select(Round.id).where(Round.state == RoundState.ADJUDICATED).order_by(col(Round.id))
    )
    return [i for i in rows if i is not None]


def result_of(session: Session, round_id: int | None) -> RoundResult | None:
    return session.exec(_RESULT_OF, params={"round": round_id}).first()


_RESULT_OF = select(RoundResult).where(RoundResult.round_id == bindparam("round"))


def result_of_round_numbered(
    session: Session, game_id: int | None, number: int
) -> RoundResult | None:
    return session.exec(
        select(RoundResult)
        .join(Round, col(Round.id) == col(RoundResult.round_id))
        .where(Round.game_id == game_id, Round.number == number)
    ).first()


def results_of_game(session: Session, game_id: int | None) -> list[RoundResult]:
    """The results of a game's adjudicated rounds, in round order."""
    return list(
        session.exec(
            select(RoundResult)
            .join(Round, col(Round.id) == col(RoundResult.round_id))
            .where(Round.game_id == game_id)
            .order_by(col(Round.number))
        )
    )


def reported_round_ids(session: Session, game_id: int | None) -> dict[int, int]:
    """The reported rounds of a game: their ids by number."""
    rows = session.exec(
        select(Round.number, Round.id).where(
            Round.game_id == game_id, Round.state == RoundState.REPORTED
        )
    )
    return {number: round_id for number, round_id in rows if round_id is not None}


def round_with_result(session: Session, round_id: int) -> tuple[Round, RoundResult]:
    return session.exec(
        select(Round, RoundResult)
        .join(RoundResult, col(RoundResult.round_id) == col(Round.id))
        .where(Round.id == round_id)
    ).one()


# Orders


def order_sets_of(session: Session, round_id: int | None) -> list[OrderSet]:
    """Every accepted order set of a round not withdrawn, oldest first (the newest of a seat
    is in force)."""
    return list(session.exec(_ORDER_SETS_OF, params={"round": round_id}))


_ORDER_SETS_OF = (
    select(OrderSet)
    .where(OrderSet.round_id == bindparam("round"), standing_order_sets())
    .order_by(col(OrderSet.id))
)


def withdrawn_order_sets(session: Session, round_id: int | None) -> list[OrderSet]:
    """The order sets of a round withdrawn when their seat passed on (``models.WITHDRAWN``)."""
    return list(
        session.exec(
            select(OrderSet)
            .where(OrderSet.round_id == round_id, ~standing_order_sets())
            .order_by(col(OrderSet.id))
        )
    )


def queued_key(session: Session, key: str) -> bool:
    """Whether the mail of ``key`` is in the outbox (queued, sent or given up; on the unique
    index of keys)."""
    return session.exec(select(OutboxMail.id).where(OutboxMail.key == key)).first() is not None


def seats_with_orders(session: Session, round_id: int | None) -> set[int]:
    """The seats with an accepted order set in a round (their ids only: no rows to load)."""

    def ask() -> set[int]:
        return set(
            session.exec(
                select(OrderSet.seat_id)
                .where(OrderSet.round_id == round_id, standing_order_sets())
                .distinct()
            )
        )

    seats: set[int] = remembered(session, lambda r: r.ordered, round_id, ask)
    return set(seats)  # a copy: the kept set stays as read


def newest_order_set(session: Session, round_id: int, seat_id: int) -> OrderSet | None:
    """The order set of one seat in force in a round (one indexed row, not the whole round)."""

    def ask() -> OrderSet | None:
        return session.exec(
            select(OrderSet)
            .where(
                OrderSet.round_id == round_id, OrderSet.seat_id == seat_id, standing_order_sets()
            )
            .order_by(col(OrderSet.id).desc())
            .limit(1)
        ).first()

    return remembered(session, lambda r: r.newest, (round_id, seat_id), ask)


# Mail


def seat_id_of(session: Session, game_id: int | None, handle: str) -> int | None:
    return session.exec(
        select(Seat.id).where(Seat.game_id == game_id, Seat.handle == handle)
    ).first()


def answers_queued_since(
    session: Session, *, game_id: int | None, kinds: Sequence[str], recipient: str, since: datetime
) -> int:
    """Mails of ``kinds`` queued for ``recipient`` about a game since a moment."""
    count = session.exec(
        select(func.count(col(OutboxMail.id))).where(
            OutboxMail.game_id == game_id,
            col(OutboxMail.kind).in_(kinds),
            OutboxMail.recipient == recipient,
            OutboxMail.created_at > since,
        )
    ).one()
    return int(count)


def mails_to_since(session: Session, *, kind: str, recipient: str, since: datetime) -> int:
    """Mails of one kind queued for ``recipient`` since a moment, whatever their game."""
    count = session.exec(
        select(func.count(col(OutboxMail.id))).where(
            OutboxMail.kind == kind,
            OutboxMail.recipient == recipient,
            OutboxMail.created_at > since,
        )
    ).one()
    return int(count)


def stored_pngs(session: Session, digests: Sequence[str]) -> dict[str, bytes]:
    """The kept PNGs of pictures, by the digest of their SVG."""
    rows = session.exec(_PNGS, params={"digests": list(digests)})
    return dict(rows.all())  # a Result has keys(): dict() would take it for a mapping


_PNGS = select(PicturePng.digest, PicturePng.png).where(
    col(PicturePng.digest).in_(listed("digests"))
)


def stored_digests(session: Session, digests: Sequence[str]) -> set[str]:
    """Which of these raw-mail digests are stored already."""
    return set(session.exec(select(Submission.digest).where(col(Submission.digest).in_(digests))))


def received_with_digests(session: Session, digests: Sequence[str]) -> list[int]:
    """The submissions with these raw-mail digests that are stored but not processed."""
    rows = session.exec(
        select(Submission.id).where(
            col(Submission.digest).in_(digests),
            Submission.status == SubmissionStatus.RECEIVED,
        )
    )
    return sorted(i for i in rows if i is not None)


def processed_with_message_id(session: Session, message_id: str, *, before: int) -> int | None:
    """The first submission before ``before`` with this Message-ID that was processed."""
    reads = installed(session)
    if reads is not None and message_id in reads.message_ids:
        first = reads.first_processed.get(message_id)
        return first if first is not None and first < before else None
    done = (SubmissionStatus.ACCEPTED, SubmissionStatus.REJECTED, SubmissionStatus.IGNORED)
    return session.exec(
        select(Submission.id)
        .where(
            Submission.message_id == message_id,
            col(Submission.id) < before,
            col(Submission.status).in_(done),
        )
        .order_by(col(Submission.id))
    ).first()


ANSWER_KEYS = ("reply:%", "answer:%", "report:%", "history:%", "request_problem:%")
"""Outbox keys of answers to inbound mail (``SectionHandling.key``, ``conversation.py``,
``report_requests.py``): every one counts towards its address's one budget (``throttle.py``),
the answers to a mail's commands (``answer:``) as much as confirmations and refusals."""


def _is_answer() -> Any:
    return or_(*(col(OutboxMail.key).like(pattern) for pattern in ANSWER_KEYS))


def answers_to(
    session: Session, recipient: str, *, since: datetime, as_stranger: bool = False
) -> int:
    """Answers to inbound mail queued for ``recipient`` since a moment; ``as_stranger``: only
    those that went to no seat (without a seat's bounce address), leaving out the answers a
    former player or a moved address got while it still played."""
    query = select(func.count(col(OutboxMail.id))).where(
        OutboxMail.recipient == recipient,
        _is_answer(),
        OutboxMail.created_at > since,
    )
    if as_stranger:
        query = query.where(col(OutboxMail.envelope_sender).is_(None))
    return int(session.exec(query).one())


def answers_to_strangers(session: Session, *, since: datetime) -> int:
    """Answers queued since a moment to addresses the service does not know
    (:func:`address_is_known`)."""
    count = session.exec(
        select(func.count(col(OutboxMail.id))).where(
            _is_answer(),
            OutboxMail.created_at > since,
            func.lower(OutboxMail.recipient).not_in(_KNOWN_ADDRESSES),
        )
    ).one()
    return int(count)


def automatic_mails_from(session: Session, sender: str, *, since: datetime) -> int:
    """Mails from ``sender`` (any case) received since a moment that looked automatic
    (``Submission.automatic``)."""
    count = session.exec(
        select(func.count(col(Submission.id))).where(
            func.lower(Submission.sender) == sender.strip().lower(),
            Submission.received_at > since,
            col(Submission.automatic).is_not(None),
        )
    ).one()
    return int(count)


def mails_to_recently(
    session: Session, recipient: str, *, since: datetime
) -> list[tuple[str, datetime, datetime | None]]:
    """(key, created_at, sent_at) of the mails queued for ``recipient`` (any case) since a
    moment: the mail a reply answers is found among them by its Message-ID, made of its key."""
    rows = session.exec(
        select(OutboxMail.key, OutboxMail.created_at, OutboxMail.sent_at).where(
            OutboxMail.created_at > since,
            func.lower(OutboxMail.recipient) == recipient.strip().lower(),
        )
    )
    return [(key, created, sent) for key, created, sent in rows]


HELD_BACK = "held back: "
"""In front of ``Submission.automatic`` when the mail's answers were held back as a loop."""


def last_answered_automatic(session: Session, sender: str) -> datetime | None:
    """When the newest mail from ``sender`` that looked automatic and was answered all the
    same came (before the loop guard held answers back)."""
    found: datetime | None = session.exec(
        select(func.max(Submission.received_at)).where(
            func.lower(Submission.sender) == sender.strip().lower(),
            col(Submission.automatic).is_not(None),
            col(Submission.automatic).not_like(f"{HELD_BACK}%"),
        )
    ).one()
    return found


_KNOWN_ADDRESSES = union(
    select(func.lower(Seat.address)),
    select(func.lower(Observer.address)),
    select(func.lower(Standby.address)),
    select(func.lower(JoinRequest.address)),
    select(func.lower(SeatHandover.old_address)),
)
"""Addresses that hold a seat or held one that passed on, observe a game, stand by for one, or
asked to join one: each was given by a game master or confirmed with a code mailed to it, so
an answer to it is no forger's backscatter."""


def address_is_known(session: Session, address: str) -> bool:
    """Whether ``address`` (any case) has a seat of any game or had one, or observes one,
    stands by, or asked to join one (:data:`_KNOWN_ADDRESSES`)."""
    if not address.strip():
        return False
    wanted = address.lower()
    columns = (
        Seat.address,
        Observer.address,
        Standby.address,
        JoinRequest.address,
        SeatHandover.old_address,
    )
    return any(_holds_address(session, col(column), wanted) for column in columns)


def _holds_address(session: Session, column: Any, wanted: str) -> bool:
    found = session.exec(select(column).where(func.lower(column) == wanted).limit(1)).first()
    return found is not None


def due_mails(
    session: Session, *, now: datetime, limit: int, channel: str = "mail"
) -> list[OutboxMail]:
    """Pending mails of one channel's lane due now: answers to players' own mails first,
    then the rest, oldest first in each; on PostgreSQL rows another instance holds are skipped
    (several instances never send the same mail at once)."""
    query = _DUE_SKIPPING_LOCKED if on_postgresql(session) else _DUE
    return list(session.exec(query, params={"now": now, "limit": limit, "channel": channel}))


_DUE = (
    select(OutboxMail)
    .where(
        OutboxMail.status == OutboxStatus.PENDING,
        col(OutboxMail.next_attempt_at) <= bindparam("now"),
        OutboxMail.channel == bindparam("channel"),
    )
    .order_by(col(OutboxMail.answer).desc(), col(OutboxMail.id))
    .limit(bindparam("limit", type_=Integer))
)
"""Built once: the outbox asks for its due mails after every batch of mail (``due_mails``)."""
_DUE_SKIPPING_LOCKED = _DUE.with_for_update(skip_locked=True)


def submission_stored(session: Session, digest: str) -> bool:
    return (
        session.exec(select(Submission.id).where(Submission.digest == digest)).first() is not None
    )


def pending_submission_ids(session: Session) -> list[int]:
    """Submissions stored but not processed (after a crash, or by another instance)."""
    rows = session.exec(
        select(Submission.id)
        .where(Submission.status == SubmissionStatus.RECEIVED)
        .order_by(col(Submission.id))
    )
    return [i for i in rows if i is not None]


# Press


def press_sent(session: Session, *, seat_id: int, round_number: int) -> int:
    """Press messages one seat sent in one round of its game."""
    count = session.exec(
        select(func.count(col(Press.id))).where(
            Press.seat_id == seat_id, Press.round_number == round_number
        )
    ).one()
    return int(count)


def press_of(session: Session, game_id: int | None) -> list[Press]:
    """A game's press, oldest first."""
    return list(session.exec(select(Press).where(Press.game_id == game_id).order_by(col(Press.id))))


# Observers


def observers_of(session: Session, game_id: int | None) -> list[Observer]:
    return list(session.exec(_OBSERVERS_OF, params={"game": game_id}))


_OBSERVERS_OF = (
    select(Observer).where(Observer.game_id == bindparam("game")).order_by(col(Observer.id))
)


def observer_at(session: Session, game_id: int | None, address: str) -> Observer | None:
    return session.exec(
        select(Observer).where(Observer.game_id == game_id, Observer.address == address)
    ).first()


# Absences and quiet times


def quiet_seats(session: Session, game_ids: Collection[int]) -> dict[int, list[Seat]]:
    """The active seats with quiet hours or weekend days of these games (those being played:
    not every seat ever), by game id: one query for every open round the sweeper looks at."""
    query = select(Seat).where(
        col(Seat.game_id).in_(list(game_ids)),
        col(Seat.active),
        or_(col(Seat.quiet_hours).is_not(None), col(Seat.weekend).is_not(None)),
    )
    found: dict[int, list[Seat]] = {}
    for seat in session.exec(query):
        found.setdefault(seat.game_id, []).append(seat)
    return found


def _of_this_player() -> Any:
    """The condition that an absence was taken by the seat's present player: the seat did not
    pass to a newcomer since (a newcomer neither spent nor takes his predecessor's days)."""
    since = select(SeatHandover.id).where(
        col(SeatHandover.seat_id) == col(Absence.seat_id),
        col(SeatHandover.created_at) >= col(Absence.created_at),
    )
    return ~since.exists()


def absences_of(session: Session, seat_id: int | None) -> list[Absence]:
    """The absences of a seat's present player, asked for and automatic, the earliest first."""
    query = (
        select(Absence)
        .where(Absence.seat_id == seat_id, _of_this_player())
        .order_by(col(Absence.starts_at))
    )
    return list(session.exec(query))


def tenures_began(session: Session, game_id: int | None) -> dict[int, datetime]:
    """When each seat of a game that passed to a new person passed last, by seat id: its
    present player's missed rounds and absences count from then."""
    rows = session.exec(
        select(SeatHandover.seat_id, func.max(SeatHandover.created_at))
        .where(SeatHandover.game_id == game_id)
        .group_by(col(SeatHandover.seat_id))
    )
    return dict(rows.all())


def absent_at(session: Session, game_id: int | None, moment: datetime) -> dict[int, Absence]:
    """The absences of a game's players that ``moment`` falls in, by seat id."""
    absences = session.exec(_ABSENT_AT, params={"game": game_id, "moment": moment})
    return {a.seat_id: a for a in absences}


_ABSENT_AT = select(Absence).where(
    Absence.game_id == bindparam("game"),
    col(Absence.starts_at) <= bindparam("moment"),
    col(Absence.ends_at) > bindparam("moment"),
    _of_this_player(),
)


def standby_kinds(session: Session, address: str) -> list[str]:
    """The kinds of game ``address`` waits for a seat in (``STANDBY``)."""
    rows = session.exec(select(Standby.kind).where(Standby.address == address.strip().lower()))
    return sorted(rows)
