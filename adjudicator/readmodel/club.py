"""A person's record across games, read from what the games stored (docs/club.md): his seats
and who held them before and after him (``SeatHandover``), the seats offered on his
resignation (``SeatOffer``), each round's result, orders and deadline. Nothing of it is kept
apart: a round replayed or rolled back changes the record with it.

A seat's holders are its handovers' old addresses in order, then its address now. A holder's
time in the seat runs from the handover that gave it to him (the game's start for the first)
to the one that took it away. The rounds he is answerable for are those that closed in that
time and in which the game's rules had him move (``Rules.to_move`` of the state before the
round); a round in an absence he announced is not counted, nor one a stand-in played for him
while he had sent nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from adjudicator.core.club import ABANDON_DAYS, WINDOW, Mark, PlayerRecord
from adjudicator.readmodel.stored import rules_of, start_state
from adjudicator.storage import queries
from adjudicator.storage.models import (
    Absence,
    Game,
    GameStatus,
    OrderSet,
    Person,
    Round,
    RoundResult,
    Seat,
    SeatHandover,
    SeatOffer,
)

STAND_IN_RECEIPT = "stand-in"
"""The receipt of an order set a stand-in sent (``service/stand_ins.py``)."""


@dataclass(frozen=True)
class Tenure:
    """One person's time in one seat: from ``start`` to ``end`` (None: he holds it still)."""

    seat: Seat
    game: Game
    start: datetime
    end: datetime | None
    first: bool  # he was the seat's first holder

    def holds_at(self, moment: datetime) -> bool:
        return self.start <= moment and (self.end is None or moment < self.end)

    def left_by(self, moment: datetime) -> bool:
        """Whether an act of his at ``moment`` (a resignation) falls in his time: after the
        seat came to him (the moment it came is his predecessor's), up to and including the
        moment it passed on, which the act may have brought about."""
        after_start = self.start < moment or (self.first and self.start <= moment)
        return after_start and (self.end is None or moment <= self.end)


def tenures_of(session: Session, address: str) -> list[Tenure]:
    """Every seat ``address`` held, in any game, oldest game first."""
    wanted = address.strip().lower()
    if not wanted:
        return []
    passed = select(SeatHandover.seat_id).where(SeatHandover.old_address == wanted)
    seats = {s.id: s for s in queries.seats_at_address(session, wanted)}
    for seat in session.exec(select(Seat).where(col(Seat.id).in_(passed))):
        seats[seat.id] = seat
    found: list[Tenure] = []
    for seat in sorted(seats.values(), key=lambda s: s.id or 0):
        game = session.get(Game, seat.game_id)
        if game is not None:
            held = _holders(session, seat, game)
            found += [tenure for holder, tenure in held if holder == wanted]
    return found


def _holders(session: Session, seat: Seat, game: Game) -> Iterator[tuple[str, Tenure]]:
    handovers = session.exec(
        select(SeatHandover)
        .where(SeatHandover.seat_id == seat.id)
        .order_by(col(SeatHandover.created_at), col(SeatHandover.id))
    ).all()
    holders = [h.old_address.strip().lower() for h in handovers] + [seat.address.lower()]
    starts = [game.created_at] + [h.created_at for h in handovers]
    ends: list[datetime | None] = [h.created_at for h in handovers] + [None]
    for index, holder in enumerate(holders):
        yield holder, Tenure(seat, game, starts[index], ends[index], first=index == 0)


def record_of(
    session: Session, address: str, *, now: datetime, cache: GameRounds | None = None
) -> PlayerRecord:
    """The record of the person at ``address`` (docs/club.md, "A player's record").
    ``cache``: the rounds kept of the games read so far, when many persons are asked for."""
    cache = {} if cache is None else cache
    tenures = tenures_of(session, address)
    counts = {"finished": 0, "won": 0, "resigned": 0, "taken_over": 0, "abandoned": 0}
    recent_abandoned = 0
    marks: list[tuple[datetime, Mark]] = []
    for tenure in tenures:
        seat, game = tenure.seat, tenure.game
        counts["taken_over"] += not tenure.first
        left = tenure.end is not None or not seat.active
        if left:
            counts["abandoned"] += 1
            recent_abandoned += now - game.created_at <= timedelta(days=ABANDON_DAYS)
        elif game.status == GameStatus.FINISHED:
            counts["finished"] += 1
            counts["won"] += seat.handle in _winners(session, game)
        counts["resigned"] += _resignations(session, tenure)
        marks += _marks(session, tenure, cache)
    marks.sort(key=lambda pair: pair[0], reverse=True)
    kinds = [mark for _, mark in marks]
    return PlayerRecord(
        played=len({t.game.id for t in tenures}),
        **counts,
        on_time=kinds.count(Mark.ON_TIME),
        late=kinds.count(Mark.LATE),
        missed=kinds.count(Mark.MISSED),
        recent=tuple(kinds[:WINDOW]),
        recent_abandoned=recent_abandoned,
    )


def _winners(session: Session, game: Game) -> list[str]:
    results = queries.results_of_game(session, game.id)
    return list(results[-1].winners) if results and results[-1].finished else []


def _resignations(session: Session, tenure: Tenure) -> int:
    offers = session.exec(
        select(SeatOffer).where(SeatOffer.seat_id == tenure.seat.id, SeatOffer.reason == "resigned")
    )
    return sum(1 for offer in offers if tenure.left_by(offer.opened_at))


@dataclass(frozen=True)
class RoundKept:
    """One seat's part in one round it was to order in."""

    seat_id: int
    closed: datetime  # when the round closed: the holder then answers for it
    first_sent: datetime | None  # his first orders of the round (not a stand-in's), if any
    mark: Mark | None  # None: an absence he announced covered the round


GameRounds = dict[int, list[RoundKept]]
"""The rounds kept in each game, by game id: read once for every person of a game."""


def _marks(session: Session, tenure: Tenure, cache: GameRounds) -> list[tuple[datetime, Mark]]:
    """How he kept each round he was to order in, with the moment it closed."""
    game_id = tenure.game.id
    assert game_id is not None
    if game_id not in cache:
        cache[game_id] = rounds_kept(session, tenure.game)
    return [
        (kept.closed, kept.mark)
        for kept in cache[game_id]
        if kept.seat_id == tenure.seat.id
        and kept.mark is not None
        and tenure.holds_at(kept.closed)
        and (kept.first_sent is None or kept.first_sent >= tenure.start)
    ]


def rounds_kept(session: Session, game: Game) -> list[RoundKept]:
    """Every round of ``game`` with a result, for each seat the rules had move in it: one
    replay of the game's stored states (the state before a round is the one after the
    round before it)."""
    rules = rules_of(game)
    seats = sorted(queries.seats_of(session, game.id), key=lambda s: s.seat)
    by_handle = {s.handle: s for s in seats if s.id is not None}
    rows = session.exec(
        select(Round, RoundResult)
        .join(RoundResult, col(RoundResult.round_id) == col(Round.id))
        .where(Round.game_id == game.id)
        .order_by(col(Round.number))
    ).all()
    absences = session.exec(select(Absence).where(Absence.game_id == game.id)).all()
    before: Any = None
    found = []
    for round_, result in rows:
        state = before if before is not None else start_state(game, [s.handle for s in seats])
        before = rules.load(result.state)
        closed = round_.closed_at or round_.adjudicated_at or round_.opened_at
        sent = _first_orders(session, round_)
        for handle in rules.to_move(state):
            seat = by_handle.get(handle)
            if seat is None or seat.id is None:
                continue
            first = sent.get(seat.id)
            if first is not None and handle in result.orders:
                on_time = round_.deadline is None or first <= round_.deadline
                mark: Mark | None = Mark.ON_TIME if on_time else Mark.LATE
            elif any(a.seat_id == seat.id and a.starts_at <= closed < a.ends_at for a in absences):
                mark = None
            else:
                mark = Mark.MISSED
            found.append(RoundKept(seat.id, closed, first, mark))
    return found


def _first_orders(session: Session, round_: Round) -> dict[int, datetime]:
    """When each seat first sent orders for ``round_`` (a stand-in's are not his)."""
    first: dict[int, datetime] = {}
    sets = session.exec(
        select(OrderSet)
        .where(OrderSet.round_id == round_.id, OrderSet.receipt != STAND_IN_RECEIPT)
        .order_by(col(OrderSet.created_at), col(OrderSet.id))
    )
    for order_set in sets:
        first.setdefault(order_set.seat_id, order_set.created_at)
    return first


# --- who is who --------------------------------------------------------------------------------


def address_of_handle(session: Session, handle: str) -> str | None:
    """The address of the person who played ``handle`` most recently (a handle is a seat's,
    in one game: the newest seat of that name answers). Never shown to anybody but the
    service itself."""
    seat = session.exec(
        select(Seat)
        .where(Seat.handle == handle.strip().lower(), Seat.address != "")
        .order_by(col(Seat.id).desc())
    ).first()
    return seat.address if seat is not None else None


def handle_of(session: Session, address: str) -> str | None:
    """The handle of the person's newest seat: the name the club knows him by."""
    seats = queries.seats_at_address(session, address)
    return seats[-1].handle if seats else None


def is_public(session: Session, address: str) -> bool:
    """Whether the person shows on the archive's pages (``SET PUBLIC OFF``: not)."""
    person = session.exec(select(Person).where(Person.address == address.strip().lower())).first()
    return person is None or person.public
