"""The game master's overview: games, their open round, and who has ordered."""

from __future__ import annotations

from sqlmodel import Session, col, select

from adjudicator.service.games import find_game, game_state, rules_of, seats_of
from adjudicator.service.rounds import open_round_of, orders_in_force
from adjudicator.storage.models import Game, Round


def _game_lines(session: Session, game: Game) -> list[str]:
    lines = [f"{game.name:<12} {game.kind:<20} {game.status:<9} round {game.current_round}"]
    round_ = open_round_of(session, game)
    stuck = session.exec(
        select(Round).where(Round.game_id == game.id, col(Round.error).is_not(None))
    ).all()
    for bad in stuck:
        lines.append(f"  round {bad.number} NOT ADJUDICATED ({bad.state}): {bad.error}")
    if round_ is None:
        return lines
    deadline = round_.deadline.strftime("%Y-%m-%d %H:%M UTC") if round_.deadline else "none"
    lines.append(f"  round {round_.number} open, deadline {deadline}")
    ordered = orders_in_force(session, round_)
    waiting_for = set(rules_of(game).to_move(game_state(game)))
    for seat in seats_of(session, game):
        if seat.handle not in waiting_for:
            mark = "-"
        else:
            mark = "ordered" if seat.id in ordered else "waiting"
        flags = " (unreachable)" if seat.unreachable else ""
        lines.append(f"    {seat.handle:<16} {mark}{flags}")
    return lines


def status_lines(session: Session, *, name: str | None = None) -> list[str]:
    games = [find_game(session, name)] if name else list(session.exec(select(Game)))
    if not games:
        return ["no games yet: create one with `adjudicate game create`"]
    lines: list[str] = []
    for game in games:
        lines += _game_lines(session, game)
    return lines
