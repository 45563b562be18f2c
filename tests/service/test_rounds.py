"""A round's life cycle, guarded in the database: open -> closing -> adjudicated -> reported.
Every step is a compare-and-set, so doing it twice (or racing) is harmless."""

from __future__ import annotations

from email import message_from_bytes, policy

import pytest
from sqlmodel import Session, select

from adjudicator.service import ServiceError
from adjudicator.service.app import App
from adjudicator.service.closing import close_and_adjudicate, sweep
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.rounds import close_round, open_round_of, start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import (
    GameStatus,
    OrderSet,
    OutboxMail,
    Round,
    RoundResult,
    RoundState,
    Seat,
)
from adjudicator.storage.queries import due_rounds


def _starship(app: App, *, schedule: str | None = "48h") -> int:
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name="duel",
            kind="starship-combat",
            players=[PlayerSpec("ann", "ann@example.org"), PlayerSpec("ben", "ben@example.org")],
            options={},
            schedule=schedule,
            now=app.clock(),
        )
        round_ = start_game(session, game, now=app.clock())
        assert round_.id is not None
        return round_.id


def _order(app: App, round_id: int, handle: str, lines: list[str]) -> None:
    with session_scope(app.engine) as session:
        seat = session.exec(select(Seat).where(Seat.handle == handle)).one()
        assert seat.id is not None
        session.add(
            OrderSet(
                round_id=round_id, seat_id=seat.id, lines=lines, receipt="x", created_at=app.clock()
            )
        )


def test_round_one_opens_with_the_scheduled_deadline(app: App) -> None:
    round_id = _starship(app)
    with Session(app.engine) as session:
        round_ = session.get(Round, round_id)
        assert round_ is not None
        assert round_.number == 1
        assert round_.state == RoundState.OPEN
        assert round_.deadline is not None
        assert (round_.deadline - round_.opened_at).total_seconds() == 48 * 3600


def test_a_round_is_not_closed_before_its_deadline(app: App) -> None:
    round_id = _starship(app)
    with session_scope(app.engine) as session:
        assert close_and_adjudicate(session, round_id, ctx=app.ctx, now=app.clock()) is None
        assert due_rounds(session, now=app.clock()) == []


def test_closing_adjudicates_from_the_orders_in_force_and_reports(app: App) -> None:
    """The newest order set counts; missing orders get the no-orders rule (NOTHING)."""
    round_id = _starship(app)
    _order(app, round_id, "ann", ["SHIELD"])
    _order(app, round_id, "ann", ["FIRE"])  # replaces the first
    app.clock.advance(hours=49)  # type: ignore[attr-defined]
    closed = sweep(app.engine, ctx=app.ctx, now=app.clock())
    assert [c.round_id for c in closed] == [round_id]
    with Session(app.engine) as session:
        round_ = session.get(Round, round_id)
        assert round_ is not None
        assert round_.state == RoundState.REPORTED
        result = session.exec(select(RoundResult)).one()
        assert result.orders == {"ann": ["FIRE"]}
        # ben did nothing and was unshielded: ann's missile destroys him; ann wins.
        assert result.public_state["destroyed"] == ["ben"]
        assert result.finished
        assert result.winners == ["ann"]
        game = find_game(session, "duel")
        assert game.status == GameStatus.FINISHED
        assert open_round_of(session, game) is None
        mails = session.exec(select(OutboxMail).where(OutboxMail.kind == "result")).all()
        assert sorted(m.recipient for m in mails) == ["ann@example.org", "ben@example.org"]
        text = message_from_bytes(mails[0].message, policy=policy.default)
        assert text["Auto-Submitted"] == "auto-generated"
        plain = text.get_body(preferencelist=("plain",))
        assert plain is not None
        assert "ann wins" in plain.get_content()


def test_closing_twice_is_harmless(app: App) -> None:
    round_id = _starship(app)
    app.clock.advance(hours=49)  # type: ignore[attr-defined]
    with session_scope(app.engine) as session:
        first = close_and_adjudicate(session, round_id, ctx=app.ctx, now=app.clock())
        second = close_and_adjudicate(session, round_id, ctx=app.ctx, now=app.clock())
    assert first is not None
    assert first.adjudicated is not None
    assert second is None
    assert sweep(app.engine, ctx=app.ctx, now=app.clock()) == []
    with Session(app.engine) as session:
        assert len(session.exec(select(RoundResult)).all()) == 1
        # round 2 opened once, and only once
        assert [r.number for r in session.exec(select(Round))] == [1, 2]
        assert len(session.exec(select(OutboxMail)).all()) == 2


def test_the_compare_and_set_lets_only_one_closer_win(app: App) -> None:
    round_id = _starship(app)
    with session_scope(app.engine) as session:
        assert close_round(session, round_id, now=app.clock())
        assert not close_round(session, round_id, now=app.clock())


def test_a_step_brings_the_round_the_session_holds_up_to_date(app: App) -> None:
    """The step is a statement on the table; the Round row a session already holds must say
    what the database now says (as the ORM's own update would have made it), and a change
    of that row still pending is stored too, not lost."""
    round_id = _starship(app)
    with session_scope(app.engine) as session:
        held = session.get(Round, round_id)
        assert held is not None
        held.error = "noted before the step"  # pending when the step runs
        assert close_round(session, round_id, now=app.clock())
        assert held.state == RoundState.CLOSING
        assert held.closed_at is not None
        assert held not in session.dirty  # as stored: nothing left for a flush to write
    with Session(app.engine) as session:
        stored = session.get(Round, round_id)
        assert stored is not None
        assert stored.state == RoundState.CLOSING
        assert stored.closed_at is not None
        assert stored.error == "noted before the step"


def test_a_round_that_fails_to_commit_stays_open(app: App) -> None:
    """A crash before the commit loses nothing: the round is still open and closes later."""
    round_id = _starship(app)
    app.clock.advance(hours=49)  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError), session_scope(app.engine) as session:
        assert close_and_adjudicate(session, round_id, ctx=app.ctx, now=app.clock())
        raise RuntimeError("the process dies before the commit")
    with Session(app.engine) as session:
        round_ = session.get(Round, round_id)
        assert round_ is not None
        assert round_.state == RoundState.OPEN
        assert session.exec(select(RoundResult)).all() == []
    assert len(sweep(app.engine, ctx=app.ctx, now=app.clock())) == 1


def test_a_game_starts_once(app: App) -> None:
    _starship(app)
    with pytest.raises(ServiceError, match="started already"), session_scope(app.engine) as s:
        start_game(s, find_game(s, "duel"), now=app.clock())


def test_game_creation_errors_are_clear(app: App) -> None:
    with pytest.raises(ServiceError, match="unknown game"), session_scope(app.engine) as s:
        create_game(s, name="x1", kind="chess", players=[], options={}, now=app.clock())
    with pytest.raises(ServiceError, match="unknown option"), session_scope(app.engine) as s:
        create_game(
            s,
            name="x2",
            kind="starship-combat",
            options={"max_round": "3"},
            players=[PlayerSpec("a", "a@x.org"), PlayerSpec("b", "b@x.org")],
            now=app.clock(),
        )
    with pytest.raises(ServiceError, match="time zone"), session_scope(app.engine) as s:
        create_game(
            s,
            name="x3",
            kind="starship-combat",
            options={},
            time_zone="Mars/Base",
            players=[PlayerSpec("a", "a@x.org"), PlayerSpec("b", "b@x.org")],
            now=app.clock(),
        )


def test_secrets_are_stored_hashed(app: App) -> None:
    with session_scope(app.engine) as session:
        _, credentials = create_game(
            session,
            name="duel2",
            kind="starship-combat",
            options={},
            players=[PlayerSpec("ann", "ann@x.org"), PlayerSpec("ben", "ben@x.org")],
            now=app.clock(),
        )
    with Session(app.engine) as session:
        stored = {s.handle: s for s in session.exec(select(Seat))}
    for cred in credentials:
        seat = stored[cred.handle]
        assert cred.secret not in seat.secret_hash
        assert seat.secret_hash.startswith("sha256$")
        assert seat.reply_token != cred.reply_token
