"""Rows read once for a batch of mails, instead of once for each mail.

The intake processes a batch of mails in one transaction (``service/batch_intake.py``). Each
order mail asks the same few questions: the game of this name, the seat at its sender's
address and the roll of the game's seats (``models.SeatRoll``: a game's seats as rows are read
only when asked for), the seat's login failures, the round open, the seats with orders in it
and the seat's newest order set, and whether a mail with this Message-ID was processed before.
:func:`prefetched` asks each of them once for every game, seat and Message-ID the batch names
(a handful of statements for the whole batch), and the functions of ``queries.py`` answer
from what it read while it is installed.

What the batch itself writes keeps the answers true. A new order set is added to them; a
round, seat, game or login failure flushed changed updates or forgets its own entry; an
UPDATE, INSERT or DELETE statement forgets what was read from its table; a rolled-back
savepoint forgets everything; and an answer is given only after the session's pending changes
are flushed, as a query would be, or taken in by the reads themselves: the new order sets and
the submissions marked processed that each order mail leaves are not flushed mail by mail,
but written together when the batch ends (or when anything else must be flushed). A question
not held goes to the database, and its answer is kept. Nothing here changes what an answer
is, only how often it is read.

The open rounds are read locked, so that no deadline closes one under the batch: a round's
orders are counted in its result exactly when the batch that took them commits first. On
SQLite the batch holds the database's single write lock from its first statement. On
PostgreSQL the rounds are read ``FOR NO KEY UPDATE`` (in the order of their ids, so that two
batches never wait for each other in a circle): the closing of a round, by a worker or another
instance, waits until the batch commits and then reads its orders. Without the lock it could
adjudicate the round while the batch stored orders for it, and the players would be told
their orders were stored for a round that was over without them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import event, inspect
from sqlalchemy.orm import ORMExecuteState
from sqlmodel import Session, col, func, select
from sqlmodel.sql.expression import SelectOfScalar

from adjudicator.storage.db import listed, on_postgresql
from adjudicator.storage.models import (
    Game,
    GameStatus,
    LoginFailure,
    OrderSet,
    Round,
    RoundState,
    Seat,
    SeatRoll,
    Submission,
    SubmissionStatus,
    standing_order_sets,
)

KEY = "adjudicator.prefetched"
"""Where the installed reads live: ``Session.info``."""

PROCESSED = (SubmissionStatus.ACCEPTED, SubmissionStatus.REJECTED, SubmissionStatus.IGNORED)


@dataclass
class BatchReads:
    """What was read for a batch; a key missing means "not read: ask the database"."""

    games: dict[str, Game | None] = field(default_factory=dict)
    """By name (as stored: lower case)."""
    seats: dict[int | None, list[Seat]] = field(default_factory=dict)
    """Each game's seats in seat order, by game id (read when first asked for: an order mail
    needs only its sender's seat, ``at_address``, and the game's ``rolls``)."""
    rolls: dict[int | None, list[SeatRoll]] = field(default_factory=dict)
    """Each game's seats in seat order, as :class:`SeatRoll`, by game id."""
    at_address: dict[tuple[int | None, str], Seat | None] = field(default_factory=dict)
    """The seat of (game id, address in lower case), for the addresses the batch was written
    from."""
    failures: dict[int, list[LoginFailure]] = field(default_factory=dict)
    """Each seat's login failures (of every source), by seat id, for the seats at an address
    the batch was written from."""
    open_rounds: dict[int | None, Round | None] = field(default_factory=dict)
    """Each game's open round, by game id (read locked on PostgreSQL: see the module's text)."""
    newest: dict[tuple[int, int], OrderSet | None] = field(default_factory=dict)
    """The newest order set of (round id, seat id), for the seats of the open rounds read at
    an address the batch was written from."""
    ordered: dict[int | None, set[int]] = field(default_factory=dict)
    """The seats with an order set, by round id."""
    seating: dict[str, list[Game]] = field(default_factory=dict)
    """The running games with a seat at an address, by the address in lower case."""
    first_processed: dict[str, int] = field(default_factory=dict)
    """The first processed submission of each Message-ID asked for (absent: none)."""
    message_ids: set[str] = field(default_factory=set)
    """The Message-IDs whose ``first_processed`` was read."""
    taken: set[int] = field(default_factory=set)
    """``id()`` of the unflushed rows whose changes the reads hold already (kept alive by the
    session until its next flush, which empties this)."""
    locks_rounds: bool = False
    """Whether open rounds are read ``FOR NO KEY UPDATE`` (PostgreSQL: see the module's
    text); ``queries.open_round`` reads them so too while the reads are installed."""

    def locked(self, query: SelectOfScalar[Round]) -> SelectOfScalar[Round]:
        """A query of open rounds as the batch reads them (see the module's text)."""
        return query.with_for_update(key_share=True) if self.locks_rounds else query

    def _by_table(self) -> dict[str, tuple[dict[Any, Any] | set[Any], ...]]:
        """What is kept of each table."""
        return {
            "game": (self.games, self.seating),
            "seat": (self.seats, self.rolls, self.at_address, self.seating),
            "loginfailure": (self.failures,),
            "round": (self.open_rounds,),
            "orderset": (self.newest, self.ordered),
            "submission": (self.first_processed, self.message_ids),
        }

    def forget(self, table: str) -> None:
        """What was read from ``table`` is no longer known."""
        for kept in self._by_table().get(table, ()):
            kept.clear()

    def forget_all(self) -> None:
        for table in self._by_table():
            self.forget(table)
        self.taken.clear()


def installed(session: Session) -> BatchReads | None:
    """The reads installed on this session, if any, brought up to date first with what the
    session holds unflushed, as a query would be by autoflush: without a flush where the
    reads can take in every unflushed change themselves (:func:`_take_in_unflushed`), so that
    the batch's writes go to the database together, at its end."""
    reads = session.info.get(KEY)
    if not isinstance(reads, BatchReads):
        return None
    if session.autoflush and not _take_in_unflushed(reads, session):
        session.flush()
    return reads


def _take_in_unflushed(reads: BatchReads, session: Session) -> bool:
    """Bring the reads up to date with the session's unflushed changes, as the flush would
    (:func:`_changed`), when they are only of the kinds an order mail makes: new order sets,
    submissions marked processed, and a round its last orders completed. False for any other
    change: the caller flushes. Each new set and submission is taken in once
    (``BatchReads.taken``); the new ones in the order they were added, so that a seat's newest
    set is the last one added. A changed round is taken in each time: it may change again."""
    if session.deleted:
        return False
    new = [row for row in session.new if id(row) not in reads.taken]
    dirty = [row for row in session.dirty if id(row) not in reads.taken]
    if not all(isinstance(row, OrderSet) for row in new):
        return False
    if not all(isinstance(row, Submission | Round) for row in dirty):
        return False
    for row in sorted(new, key=lambda row: inspect(row).insert_order or 0):
        assert isinstance(row, OrderSet)
        _note_order_set(reads, row)
        reads.taken.add(id(row))
    for row in dirty:
        _changed(reads, row, new=False)
        if isinstance(row, Submission):
            reads.taken.add(id(row))
    return True


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def remembered(
    session: Session, kept: Callable[[BatchReads], dict[K, V]], key: K, ask: Callable[[], V]
) -> V:
    """The answer to one question of ``queries.py`` (``ask``): from the batch's reads where they
    hold it (``kept``: where they keep this question's answers, by ``key``); else asked, and
    kept while the reads are installed. Without reads, simply asked. ``ask`` builds its
    statement itself: building one costs as much as the lookup saves. Callers copy a kept
    list or set before they hand it out."""
    reads = installed(session)
    if reads is None:
        return ask()
    answers = kept(reads)
    if key not in answers:
        answers[key] = ask()
    return answers[key]


@contextmanager
def prefetched(
    session: Session,
    *,
    game_names: Collection[str],
    senders: Collection[str],
    message_ids: Collection[str],
    writers: Collection[str] = (),
) -> Iterator[BatchReads]:
    """Read what a batch naming these games, from these senders (those of its mails that name
    no game), with these Message-IDs, written from these addresses (every mail's sender) will
    ask, and answer the questions of ``queries.py`` from it until the block ends."""
    reads = read_batch(
        session,
        game_names=game_names,
        senders=senders,
        message_ids=message_ids,
        writers=writers,
    )

    def flushed(session_: Session, _context: Any) -> None:
        _after_flush(reads, session_)

    def executed(state: ORMExecuteState) -> None:
        if not (state.is_update or state.is_delete or state.is_insert):
            return
        table = str(getattr(getattr(state.statement, "table", None), "name", ""))
        if table == "round" and state.is_update:
            # The ORM brings the session's Round rows up to date with the statement, and an
            # open round read is used only while it is still open (queries.open_round); only
            # "no open round" may have become untrue.
            for game_id in [g for g, r in reads.open_rounds.items() if r is None]:
                del reads.open_rounds[game_id]
        else:
            reads.forget(table)

    def rolled_back(_session: Session, _previous: Any) -> None:
        reads.forget_all()

    hooks: list[tuple[str, Callable[..., None]]] = [
        ("after_flush", flushed),
        ("do_orm_execute", executed),
        ("after_soft_rollback", rolled_back),
    ]
    for name, hook in hooks:
        event.listen(session, name, hook)
    session.info[KEY] = reads
    try:
        yield reads
    finally:
        session.info.pop(KEY, None)
        for name, hook in hooks:
            event.remove(session, name, hook)


_GAMES_NAMED = select(Game).where(col(Game.name).in_(listed("names")))
_SEATED = func.lower(Seat.address)
_RUNNING_AT = (
    select(Game, _SEATED)
    .join(Seat, col(Seat.game_id) == col(Game.id))
    .where(_SEATED.in_(listed("addresses")), Game.status == GameStatus.RUNNING)
    .order_by(col(Game.id))
)
ROLL = select(Seat.id, Seat.handle, Seat.active, Seat.wait)
"""The columns of a :class:`SeatRoll`."""
_ROLLS = (
    ROLL.add_columns(col(Seat.game_id))
    .where(col(Seat.game_id).in_(listed("games")))
    .order_by(col(Seat.seat))
)
_WRITERS = select(Seat).where(
    col(Seat.game_id).in_(listed("games")), func.lower(Seat.address).in_(listed("addresses"))
)
_FAILURES = select(LoginFailure).where(col(LoginFailure.seat_id).in_(listed("seats")))
_OPEN_ROUNDS = (
    select(Round)
    .where(col(Round.game_id).in_(listed("games")), Round.state == RoundState.OPEN)
    .order_by(col(Round.id))
)
_IN_ROUNDS = col(OrderSet.round_id).in_(listed("rounds"))
_ORDERED = (
    select(OrderSet.round_id, OrderSet.seat_id).where(_IN_ROUNDS, standing_order_sets()).distinct()
)
_NEWEST = select(OrderSet).where(
    col(OrderSet.id).in_(
        select(func.max(OrderSet.id))
        .where(_IN_ROUNDS, col(OrderSet.seat_id).in_(listed("seats")), standing_order_sets())
        .group_by(col(OrderSet.round_id), col(OrderSet.seat_id))
    )
)
_WITH_MESSAGE_IDS = select(Submission.message_id, Submission.id, Submission.status).where(
    col(Submission.message_id).in_(listed("ids"))
)
"""Every submission with these Message-IDs (a handful), the processed ones picked out here:
asked for "processed" as well, SQLite would go through every processed submission by the
status index, a search that grows with the service's history."""


def read_batch(
    session: Session,
    *,
    game_names: Collection[str],
    senders: Collection[str],
    message_ids: Collection[str],
    writers: Collection[str] = (),
) -> BatchReads:
    """The batch's reads: at most nine statements, whatever the number of mails."""
    reads = BatchReads(locks_rounds=on_postgresql(session))
    names = {name.strip().lower() for name in game_names if name.strip()}
    if names:
        found = {g.name: g for g in session.exec(_GAMES_NAMED, params={"names": list(names)})}
        reads.games = {name: found.get(name) for name in names}
    addresses = {address.lower() for address in senders if address.strip()}
    if addresses:  # a mail without a GAME line is about its sender's only running game
        reads.seating = {address: [] for address in addresses}
        for game, address in session.exec(_RUNNING_AT, params={"addresses": list(addresses)}):
            reads.seating[address].append(game)
            reads.games[game.name] = game
    game_ids = sorted({g.id for g in reads.games.values() if g is not None and g.id is not None})
    if game_ids:
        _read_games(session, reads, game_ids, {a.lower() for a in writers})
    ids = {m for m in message_ids if m}
    if ids:
        rows = session.exec(_WITH_MESSAGE_IDS, params={"ids": list(ids)})
        for message_id, submission_id, status in rows:
            if message_id is not None and submission_id is not None and status in PROCESSED:
                first = reads.first_processed.get(message_id, submission_id)
                reads.first_processed[message_id] = min(first, submission_id)
        reads.message_ids = ids
    return reads


def _read_games(
    session: Session, reads: BatchReads, game_ids: list[int], writers: Collection[str]
) -> None:
    """The roll of these games' seats and their open rounds, the seats with orders in those
    rounds, and each seat at an address of ``writers`` (lower case) with its login failures
    and newest order set."""
    reads.rolls = {game_id: [] for game_id in game_ids}
    for *roll, game_id in session.execute(_ROLLS, {"games": game_ids}):
        reads.rolls[game_id].append(SeatRoll(*roll))
    # The seats at the batch's senders' addresses (their games, by seat id): those its mails
    # prove with a password, and whose newest orders their confirmations show as replaced.
    # Another seat, its login failures or newest orders are read when asked.
    reads.at_address = {(game_id, address): None for game_id in game_ids for address in writers}
    writing: dict[int, int] = {}  # seat id: game id
    if writers:
        params = {"games": game_ids, "addresses": sorted(writers)}
        for seat in session.exec(_WRITERS, params=params):
            reads.at_address[(seat.game_id, seat.address.lower())] = seat
            if seat.id is not None:
                writing[seat.id] = seat.game_id
    reads.failures = {seat_id: [] for seat_id in writing}
    if writing:
        for failure in session.exec(_FAILURES, params={"seats": sorted(writing)}):
            reads.failures[failure.seat_id].append(failure)
    rounds = list(session.exec(reads.locked(_OPEN_ROUNDS), params={"games": game_ids}))
    reads.open_rounds = dict.fromkeys(game_ids)
    reads.open_rounds |= {round_.game_id: round_ for round_ in rounds}
    round_ids = [r.id for r in rounds if r.id is not None]
    if not round_ids:
        return
    reads.ordered = {round_id: set() for round_id in round_ids}
    for round_id, seat_id in session.exec(_ORDERED, params={"rounds": round_ids}):
        reads.ordered[round_id].add(seat_id)
    rounds_of: dict[int, list[int]] = {}
    for r in rounds:
        if r.id is not None:
            rounds_of.setdefault(r.game_id, []).append(r.id)
    reads.newest = {
        (round_id, seat_id): None
        for seat_id, game_id in writing.items()
        for round_id in rounds_of.get(game_id, ())
    }
    if not reads.newest:
        return
    seats = sorted({seat_id for _, seat_id in reads.newest})
    for order_set in session.exec(_NEWEST, params={"rounds": round_ids, "seats": seats}):
        reads.newest[(order_set.round_id, order_set.seat_id)] = order_set


def _after_flush(reads: BatchReads, session: Session) -> None:
    """Keep the reads true after a flush of changed rows (see :func:`_changed`)."""
    reads.taken.clear()
    for row in session.new:
        _changed(reads, row, new=True)
    for row in session.dirty:
        _changed(reads, row, new=False)
    for row in session.deleted:
        reads.forget(_table(row))


def _changed(reads: BatchReads, row: object, *, new: bool) -> None:
    """A row added or changed: the reads it concerns are kept or forgotten, row by row."""
    if isinstance(row, OrderSet) and new:
        _note_order_set(reads, row)
    elif isinstance(row, Round):
        if row.state == RoundState.OPEN:
            reads.open_rounds[row.game_id] = row
        elif reads.open_rounds.get(row.game_id) is row:
            del reads.open_rounds[row.game_id]
    elif isinstance(row, Game):
        if row.name in reads.games:
            reads.games[row.name] = row
        if new or inspect(row).attrs.status.history.has_changes():
            reads.seating.clear()
    elif isinstance(row, Seat):
        reads.seats.pop(row.game_id, None)
        reads.rolls.pop(row.game_id, None)
        for key in [key for key in reads.at_address if key[0] == row.game_id]:
            del reads.at_address[key]
        reads.seating.clear()
    elif isinstance(row, LoginFailure):
        reads.failures.pop(row.seat_id, None)
    elif isinstance(row, Submission) and not new:
        _note_processed(reads, row)
    else:
        reads.forget(_table(row))


def _note_order_set(reads: BatchReads, row: OrderSet) -> None:
    """A new order set: its seat has orders in its round, and it is the seat's newest (after
    a flush of several, the one with the highest id)."""
    if row.round_id in reads.ordered:
        reads.ordered[row.round_id].add(row.seat_id)
    key = (row.round_id, row.seat_id)
    kept = reads.newest.get(key)
    if kept is None or kept.id is None or row.id is None or row.id >= kept.id:
        reads.newest[key] = row


def _note_processed(reads: BatchReads, submission: Submission) -> None:
    message_id = submission.message_id
    if message_id is None or submission.id is None or submission.status not in PROCESSED:
        return
    if message_id in reads.message_ids:
        first = reads.first_processed.get(message_id)
        if first is None or submission.id < first:
            reads.first_processed[message_id] = submission.id


def _table(row: object) -> str:
    table = getattr(type(row), "__tablename__", "")
    return table if isinstance(table, str) else ""
