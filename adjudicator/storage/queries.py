"""The questions the service asks the database, one function each.

The use cases in ``adjudicator/service/`` read rows only through these functions, so that every
query is written once, can be read in one place next to the tables it uses, and can be batched
or indexed without hunting through the service. Functions take ids rather than rows where a
caller may only hold an id. Writes stay in the service: they are the use cases themselves.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from adjudicator.storage.models import (
    Game,
    GameStatus,
    OrderSet,
    OutboxMail,
    OutboxStatus,
    Round,
    RoundResult,
    RoundState,
    Seat,
    Submission,
    SubmissionStatus,
)

# Games


def game_named(session: Session, name: str) -> Game | None:
    return session.exec(select(Game).where(Game.name == name.strip().lower())).first()


def all_games(session: Session) -> list[Game]:
    return list(session.exec(select(Game).order_by(col(Game.id))))


def unfinished_games(session: Session) -> list[Game]:
    return list(
        session.exec(select(Game).where(Game.status != GameStatus.FINISHED).order_by(col(Game.id)))
    )


def running_games_seating(session: Session, address: str) -> list[Game]:
    """The running games with a seat registered under ``address`` (proof of nothing)."""
    return list(
        session.exec(
            select(Game)
            .join(Seat, col(Seat.game_id) == col(Game.id))
            .where(Seat.address == address, Game.status == GameStatus.RUNNING)
            .order_by(col(Game.id))
        )
    )


# Seats


def seats_of(session: Session, game_id: int | None) -> list[Seat]:
    """A game's seats in seat order."""
    return list(session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))))


def seat_with_token(session: Session, digest: str) -> Seat | None:
    """The seat whose personal reply address carries the token with this digest."""
    return session.exec(select(Seat).where(Seat.reply_token == digest)).first()


def seat_at_address(session: Session, game_id: int | None, address: str) -> Seat | None:
    """The seat of a game registered under ``address`` (proof of nothing by itself)."""
    return session.exec(
        select(Seat).where(Seat.game_id == game_id, Seat.address == address)
    ).first()


# Rounds


def open_round(session: Session, game_id: int | None) -> Round | None:
    return session.exec(
        select(Round).where(Round.game_id == game_id, Round.state == RoundState.OPEN)
    ).first()


def round_numbered(session: Session, game_id: int | None, number: int) -> Round | None:
    return session.exec(
        select(Round).where(Round.game_id == game_id, Round.number == number)
    ).first()


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


def result_of(session: Session, round_id: int | None) -> RoundResult | None:
    return session.exec(select(RoundResult).where(RoundResult.round_id == round_id)).first()


def result_of_round_numbered(
    session: Session, game_id: int | None, number: int
) -> RoundResult | None:
    return session.exec(
        select(RoundResult)
        .join(Round, col(Round.id) == col(RoundResult.round_id))
        .where(Round.game_id == game_id, Round.number == number)
    ).first()


# Orders


def order_sets_of(session: Session, round_id: int | None) -> list[OrderSet]:
    """Every accepted order set of a round, oldest first (the newest of a seat is in force)."""
    return list(
        session.exec(
            select(OrderSet).where(OrderSet.round_id == round_id).order_by(col(OrderSet.id))
        )
    )


def newest_order_set(session: Session, round_id: int, seat_id: int) -> OrderSet | None:
    """The order set of one seat in force in a round (one indexed row, not the whole round)."""
    return session.exec(
        select(OrderSet)
        .where(OrderSet.round_id == round_id, OrderSet.seat_id == seat_id)
        .order_by(col(OrderSet.id).desc())
        .limit(1)
    ).first()


# Mail


def outbox_has(session: Session, key: str) -> bool:
    return session.exec(select(OutboxMail.id).where(OutboxMail.key == key)).first() is not None


def due_mails(session: Session, *, now: datetime, limit: int) -> list[OutboxMail]:
    """Pending mails due now, oldest first; on PostgreSQL rows another instance holds are
    skipped (several instances never send the same mail at once)."""
    query = (
        select(OutboxMail)
        .where(OutboxMail.status == OutboxStatus.PENDING, OutboxMail.next_attempt_at <= now)
        .order_by(col(OutboxMail.id))
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    return list(session.exec(query))


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
