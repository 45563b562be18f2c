"""The game master's overview: games, their open round, and who has ordered."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from adjudicator.notify.times import local_time
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.games import find_game, seats_of
from adjudicator.service.rounds import open_round_of, orders_in_force
from adjudicator.service.stand_ins import STAND_IN, stand_in_seats
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, RoundResult


def _ending(final: RoundResult) -> str:
    if final.draw:
        return "a draw"
    return f"won by {' and '.join(final.winners)}" if final.winners else "nobody wins"


def _game_lines(session: Session, game: Game, now: datetime | None) -> list[str]:
    schedule = game.schedule or "by hand"
    lines = [
        f"{game.name:<12} {game.kind:<20} {game.status:<9} round {game.current_round:<4} "
        f"schedule {schedule} ({game.time_zone})"
    ]
    if game.paused_at is not None:
        lines.append(f"  paused since {local_time(game.paused_at, game.time_zone)}")
    stuck = queries.failed_rounds(session, game.id)
    for bad in stuck:
        lines.append(f"  round {bad.number} NOT ADJUDICATED ({bad.state}): {bad.error}")
    if game.status == GameStatus.FINISHED:
        final = queries.result_of_round_numbered(session, game.id, game.current_round)
        if final is not None:
            lines.append(f"  game over in round {game.current_round}: {_ending(final)}")
    round_ = open_round_of(session, game)
    if round_ is None:
        return lines
    lines.append(
        f"  round {round_.number} open, deadline {local_time(round_.deadline, game.time_zone)}"
    )
    if round_.grace_until is not None:
        lines.append(
            f"  in its grace period until {local_time(round_.grace_until, game.time_zone)}"
        )
    ordered = orders_in_force(session, round_)
    computer = stand_in_seats(game)
    away = queries.absent_at(session, game.id, now) if now is not None else {}
    waiting_for = set(rules_of(game).to_move(game_state(game)))
    lines.append(f"    {'player':<16} {'orders':<8} {'missed':>6}  address")
    for seat in seats_of(session, game):
        if not seat.active:
            mark = "removed"
        elif seat.handle not in waiting_for:
            mark = "-"
        else:
            mark = "in" if seat.id in ordered else "MISSING"
        flags = " (unreachable: mail bounced)" if seat.unreachable else ""
        if seat.handle in computer:
            flags += " (played by a stand-in)"
        if seat.id in ordered and ordered[seat.id].receipt == STAND_IN:
            flags += " (the orders in are the stand-in's)"
        if seat.id in away:
            flags += f" (away until {local_time(away[seat.id].ends_at, game.time_zone)})"
        address = seat.address or "(none: nobody is mailed)"
        lines.append(f"    {seat.handle:<16} {mark:<8} {seat.missed_rounds:>6}  {address}{flags}")
    return lines


def status_lines(
    session: Session, *, name: str | None = None, now: datetime | None = None
) -> list[str]:
    """``now``: mark the players away at that moment (``SET ABSENCE``)."""
    games = [find_game(session, name)] if name else queries.all_games(session)
    if not games:
        return ["no games yet: create one with `adjudicate game create`"]
    lines: list[str] = []
    for game in games:
        lines += _game_lines(session, game, now)
    return lines
