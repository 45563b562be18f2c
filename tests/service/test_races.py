"""Races between the scheduler, the sweeper and the game master's ``adjudicate --round``, run
for real: threads released together by a barrier, each with its own database connection, on
PostgreSQL and on SQLite. Exactly one of them adjudicates."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from playing import new_game
from sqlmodel import Session, select

from adjudicator.serve.scheduler import DeadlineScheduler
from adjudicator.service.app import App
from adjudicator.service.closing import close_and_adjudicate, sweep
from adjudicator.service.games import find_game
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.claims import claimed
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail, Round, RoundResult, RoundState

RACERS = 6


def _duel(app: App) -> int:
    new_game(
        app, ["ann", "ben"], name="duel", kind="starship-combat", schedule="1h",
        settings={"reminders": []},
    )  # fmt: skip
    with Session(app.engine) as session:
        round_ = open_round_of(session, find_game(session, "duel"))
        assert round_ is not None
        assert round_.id is not None
        return round_.id


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_scheduler_sweeper_and_game_master_race_and_one_adjudicates(
    database: str, request: pytest.FixtureRequest
) -> None:
    app: App = request.getfixturevalue("app" if database == "sqlite" else "pg_app")
    round_id = _duel(app)
    app.clock.advance(hours=1)  # type: ignore[attr-defined]
    scheduler = DeadlineScheduler(app)
    barrier = threading.Barrier(RACERS)
    errors: list[BaseException] = []

    def by_hand() -> None:  # adjudicate --round 1: close, then report
        with session_scope(app.engine) as session:
            close_and_adjudicate(session, round_id, ctx=app.ctx, now=app.clock(), force=True)
        app.report()

    racers: list[Any] = [
        lambda: scheduler.round_is_due(round_id),
        lambda: sweep(app.engine, ctx=app.ctx, now=app.clock()),
        by_hand,
    ]

    def run(action: Any) -> None:
        try:
            barrier.wait(10)
            action()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(racers[n % len(racers)],)) for n in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a racer is stuck"
    assert errors == []
    with Session(app.engine) as session:
        assert len(session.exec(select(RoundResult)).all()) == 1
        rounds = {r.number: r.state for r in session.exec(select(Round))}
        assert rounds == {1: RoundState.REPORTED, 2: RoundState.OPEN}
        results = session.exec(select(OutboxMail).where(OutboxMail.kind == "result")).all()
        assert sorted(m.recipient for m in results) == ["ann@example.org", "ben@example.org"]
    app.clock.advance(hours=1, minutes=1)  # type: ignore[attr-defined]
    assert len(sweep(app.engine, ctx=app.ctx, now=app.clock())) == 1  # round 2: business as usual


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_round_another_reporter_has_in_hand_is_left_to_it(
    database: str, request: pytest.FixtureRequest
) -> None:
    """The pass after a batch of mail (``app.report``) sees a round waiting to be reported
    while its closer is still reporting it: it leaves the round, pictures and mails unmade, and
    the round is reported once, by the claim's holder."""
    app: App = request.getfixturevalue("app" if database == "sqlite" else "pg_app")
    round_id = _duel(app)
    app.clock.advance(hours=1)  # type: ignore[attr-defined]
    with session_scope(app.engine) as session:
        assert close_and_adjudicate(session, round_id, ctx=app.ctx, now=app.clock()) is not None
    pictures = request.getfixturevalue("quick_pictures")
    converted = sum(c.calls for c in pictures)
    with claimed(app.engine, round_id) as mine:  # as the closer does, reporting it
        assert mine
        assert app.report() == []
        with Session(app.engine) as session:
            round_ = session.get(Round, round_id)
            assert round_ is not None
            assert round_.state == RoundState.ADJUDICATED
            assert session.exec(select(OutboxMail).where(OutboxMail.kind == "result")).all() == []
        assert sum(c.calls for c in pictures) == converted  # no pictures made for nothing
    assert app.report() == [round_id]  # the holder gave up (or died): the next pass reports it
    assert sum(c.calls for c in pictures) > converted  # its pictures made now, by this pass
    assert app.report() == []
    with Session(app.engine) as session:
        results = session.exec(select(OutboxMail).where(OutboxMail.kind == "result")).all()
        assert sorted(m.recipient for m in results) == ["ann@example.org", "ben@example.org"]
