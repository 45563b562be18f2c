"""A Giveaway round whose gift graph has an astronomical number of rings must not hang the
service: adjudication stops with a clear error for the game master, and the round stays closed
but unadjudicated (issue: scale and safety)."""

from __future__ import annotations

from sqlmodel import Session, select

from adjudicator.service.app import App
from adjudicator.service.closing import close_and_adjudicate, sweep
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.service.status import status_lines
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OrderSet, Round, RoundResult, RoundState, Seat

STAGES = 24  # 3**24 equal-amount cycles through the chain of diamonds


def diamond_chain_orders() -> dict[str, list[str]]:
    """v0 -> {a1,b1,c1} -> v1 -> ... -> v24 -> v0, every ring gift worth 1: each v gives 1 to
    each of the next three branch players; each branch player gives 1 on to the next v and its
    other 2 points to a sink player outside every cycle."""
    orders: dict[str, list[str]] = {}
    for i in range(STAGES):
        branch = [f"{x}{i + 1}" for x in "abc"]
        orders[f"v{i}"] = [f"GIVE 1 TO {b}" for b in branch]
        nxt = f"v{(i + 1) % STAGES}"
        for b in branch:
            orders[b] = [f"GIVE 1 TO {nxt}", "GIVE 2 TO sink"]
    orders["sink"] = ["GIVE 3 TO v0"]
    return orders


def test_a_pathological_round_stays_closed_with_a_clear_error(app: App) -> None:
    orders = diamond_chain_orders()
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name="diamonds",
            kind="giveaway",
            options={},
            players=[PlayerSpec(p, f"{p}@example.org") for p in orders],
            now=app.clock(),
        )
        round_ = start_game(session, game, now=app.clock())
        seats = {s.handle: s.id for s in session.exec(select(Seat))}
        for handle, lines in orders.items():
            session.add(
                OrderSet(
                    round_id=round_.id,
                    seat_id=seats[handle],
                    lines=lines,
                    receipt="-",
                    created_at=app.clock(),
                )
            )
        round_id = round_.id
    assert round_id is not None
    with session_scope(app.engine) as session:
        closed = close_and_adjudicate(session, round_id, ctx=app.ctx, now=app.clock(), force=True)
    assert closed is not None
    assert closed.adjudicated is None
    assert closed.error
    with Session(app.engine) as session:
        stored = session.get(Round, round_id)
        assert stored is not None
        assert stored.state == RoundState.CLOSING
        assert stored.error == closed.error
        assert session.exec(select(RoundResult)).all() == []
        assert any("NOT ADJUDICATED" in line for line in status_lines(session))
    # The sweeper does not retry it over and over: the game master decides.
    assert sweep(app.engine, ctx=app.ctx, now=app.clock()) == []
