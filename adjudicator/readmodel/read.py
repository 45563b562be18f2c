"""The archive's one reading function: the database in, :mod:`.model` values out.

Only what players may see leaves this module: seats give their handles (their addresses, secrets
and tokens are never selected), rounds give their public state and ``report["public"]``. Only
rounds in state ``reported`` are shown: a result is public once its mails are queued.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from adjudicator.readmodel.model import (
    Archive,
    GameSummary,
    GameView,
    OpenRound,
    Player,
    PublicPress,
    ReportedRound,
)
from adjudicator.readmodel.stored import (
    rules_of,
    setup_from_json,
    start_state,
    termination_of,
)
from adjudicator.storage.models import Game, Press, Round, RoundResult, RoundState, Seat


class ArchiveError(ValueError):
    """The archive cannot be built as asked (e.g. no game of that name)."""


def read_archive(engine: Engine, *, game_name: str | None = None) -> Archive:
    """Every game's index row, and the full view of one game (``game_name``) or of all."""
    with Session(engine) as session:
        games = list(session.exec(select(Game).order_by(col(Game.created_at), col(Game.name))))
        index = _summaries(session, games)
        if game_name is not None:
            games = [g for g in games if g.name == game_name.strip().lower()]
            if not games:
                raise ArchiveError(f"no game called {game_name!r}")
        return Archive(games=tuple(game_view(session, game) for game in games), index=index)


def _handles(session: Session, game: Game) -> list[tuple[str, int, bool]]:
    rows = session.exec(
        select(Seat.handle, Seat.seat, Seat.active)
        .where(Seat.game_id == game.id)
        .order_by(col(Seat.seat))
    )
    return [(handle, seat, active) for handle, seat, active in rows]


def _reported(session: Session, game: Game) -> list[tuple[Round, RoundResult]]:
    rows = session.exec(
        select(Round, RoundResult)
        .join(RoundResult, col(RoundResult.round_id) == col(Round.id))
        .where(Round.game_id == game.id, Round.state == RoundState.REPORTED)
        .order_by(col(Round.number))
    )
    return [(round_, result) for round_, result in rows]


def _summaries(session: Session, games: list[Game]) -> tuple[GameSummary, ...]:
    """Every game's index row, in three queries whatever the number of games (the index is
    rewritten with each game's pages, so that one game's rebuild costs the same with 5 games
    or 5,000)."""
    reported = Round.state == RoundState.REPORTED
    counts: dict[int, tuple[int, datetime | None]] = {
        game_id: (int(count), newest)
        for game_id, count, newest in session.exec(
            select(Round.game_id, func.count(col(Round.id)), func.max(col(Round.adjudicated_at)))
            .where(reported)
            .group_by(col(Round.game_id))
        )
    }
    newest_number = (
        select(Round.game_id, func.max(col(Round.number)).label("number"))
        .where(reported)
        .group_by(col(Round.game_id))
        .subquery()
    )
    newest_result = (
        select(Round.game_id, RoundResult)
        .join(RoundResult, col(RoundResult.round_id) == col(Round.id))
        .join(
            newest_number,
            (newest_number.c.game_id == col(Round.game_id))
            & (newest_number.c.number == col(Round.number)),
        )
        .where(reported)
    )
    last: dict[int, RoundResult] = dict(session.exec(newest_result).all())
    players: dict[int, list[str]] = {}
    for game_id, handle in session.exec(
        select(Seat.game_id, Seat.handle).order_by(col(Seat.game_id), col(Seat.seat))
    ):
        players.setdefault(game_id, []).append(handle)
    summaries = []
    for game in games:
        assert game.id is not None
        count, newest = counts.get(game.id, (0, None))
        result = last.get(game.id)
        summaries.append(
            GameSummary(
                name=game.name,
                kind=game.kind,
                status=str(game.status),
                time_zone=game.time_zone,
                created_at=game.created_at,
                updated_at=max(game.created_at, newest) if newest is not None else game.created_at,
                players=tuple(players.get(game.id, ())),
                rounds=count,
                winners=tuple(result.winners) if result else (),
                draw=bool(result.draw) if result else False,
                termination=termination_of(game, result) if result else None,
            )
        )
    return tuple(summaries)


def _public_press(session: Session, game: Game) -> dict[int, tuple[PublicPress, ...]]:
    """The press sent to every player, by round; private press is never published."""
    found: dict[int, list[PublicPress]] = {}
    for row in session.exec(select(Press).where(Press.game_id == game.id).order_by(col(Press.id))):
        if not row.recipients:
            sender = None if row.anonymous else row.sender
            found.setdefault(row.round_number, []).append(PublicPress(sender, row.text))
    return {number: tuple(items) for number, items in found.items()}


def game_view(session: Session, game: Game) -> GameView:
    """Everything players may see of one game (its pages, and the history a player asks for)."""
    seats = _handles(session, game)
    press = _public_press(session, game)
    rounds = tuple(
        ReportedRound(
            number=round_.number,
            opened_at=round_.opened_at,
            deadline=round_.deadline,
            adjudicated_at=round_.adjudicated_at,
            orders={handle: tuple(lines) for handle, lines in result.orders.items()},
            public_state=result.public_state,
            report=result.report.get("public", {}),
            finished=result.finished,
            winners=tuple(result.winners),
            draw=result.draw,
            termination=termination_of(game, result),
            press=press.get(round_.number, ()),
        )
        for round_, result in _reported(session, game)
    )
    open_ = session.exec(
        select(Round).where(Round.game_id == game.id, Round.state == RoundState.OPEN)
    ).first()
    return GameView(
        name=game.name,
        kind=game.kind,
        status=str(game.status),
        time_zone=game.time_zone,
        created_at=game.created_at,
        finished_at=game.finished_at,
        options=dict(game.options),
        setup=setup_from_json(game.setup),
        players=tuple(Player(handle, seat, active) for handle, seat, active in seats),
        start_state=rules_of(game).public_state(
            start_state(game, [handle for handle, _, _ in seats])
        ),
        rounds=rounds,
        open_round=OpenRound(open_.number, open_.opened_at, open_.deadline) if open_ else None,
        sequential=rules_of(game).sequential,
    )
