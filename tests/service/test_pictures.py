"""A round's pictures are made once and never inside a database transaction: converting takes
tens of milliseconds, and no transaction (SQLite's single write lock above all) may wait for it.
The converter here notes, each time it is called, whether the converting thread has a
transaction open (``tests/converters.py`` watches every connection) and, on SQLite, whether
another connection could take the write lock at once; and it counts its calls."""

from __future__ import annotations

import sqlite3
from email.message import EmailMessage
from typing import Any

import pytest
from converters import OpenTransactions, QuickPictures
from playing import add_orders, clock_of, new_game, queued
from sqlalchemy import event
from sqlmodel import Session, select

from adjudicator.pictures import Picture
from adjudicator.service.app import App
from adjudicator.service.closing import close_and_adjudicate, sweep
from adjudicator.service.pictures import make_pngs
from adjudicator.service.reporting import report_round
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, PicturePng, Round, RoundState

PLAYERS = ("ann", "ben", "cat")


class LockProbe(QuickPictures):
    """Quick pictures that also try to take SQLite's write lock from a second connection."""

    def __init__(self, transactions: OpenTransactions, database: str) -> None:
        super().__init__(transactions)
        self.database = database
        self.locked = 0

    def to_png(self, svg: str) -> bytes | None:
        if self.database:
            probe = sqlite3.connect(self.database, timeout=0, isolation_level=None)
            try:
                probe.execute("BEGIN IMMEDIATE")
                probe.execute("ROLLBACK")
            except sqlite3.OperationalError:
                self.locked += 1  # somebody holds the write lock: a transaction is open
            finally:
                probe.close()
        return super().to_png(svg)


def _probe(app: App, transactions: OpenTransactions) -> LockProbe:
    sqlite = app.engine.dialect.name == "sqlite"
    probe = LockProbe(transactions, (app.engine.url.database or "") if sqlite else "")
    object.__setattr__(app.ctx, "converter", probe)
    return probe


class Broken:
    """A converter whose library fails on every picture."""

    def to_png(self, svg: str) -> bytes | None:
        raise RuntimeError("the renderer is gone")


def _game(app: App) -> dict[str, str]:
    credentials = new_game(app, PLAYERS, name="gw1", settings={"reminders": []})
    return {handle: c.secret for handle, c in credentials.items()}


def _mail(handle: str, body: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"{handle}@example.org"
    message["To"] = "judge@pbem.test"
    message["Subject"] = "[gw1] orders"
    message["Message-ID"] = f"<{handle}-{number}@example.org>"
    message.set_content(body)
    return message.as_bytes()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_pictures_of_an_early_close_are_made_once_outside_the_intake_transaction(
    database: str, request: pytest.FixtureRequest, open_transactions: OpenTransactions
) -> None:
    app: App = request.getfixturevalue("app" if database == "sqlite" else "pg_app")
    probe = _probe(app, open_transactions)
    secrets = _game(app)
    for number, (handle, other) in enumerate(zip(PLAYERS, PLAYERS[1:] + PLAYERS[:1], strict=True)):
        body = f"PASSWORD {secrets[handle]}\nGIVE 3 TO {other}"
        app.ingest(_mail(handle, body, number), channel="pipe")
    results = queued(app, "result")
    assert len(results) == 3  # the last orders closed the round early
    assert probe.calls == 2  # the gift graph and the scores, once for all three mails
    assert (probe.inside_transactions, probe.locked) == (0, 0)
    with Session(app.engine) as session:
        assert len(session.exec(select(PicturePng)).all()) == 2
    html = results[0].get_body(preferencelist=("related",))
    assert html is not None
    assert [p.get_content_type() for p in html.iter_parts()].count("image/png") == 2

    # Asked for again, the report shows the same pictures: nothing converted again.
    app.ingest(_mail("ann", f"PASSWORD {secrets['ann']}\nREPORT 1\nHISTORY", 9), channel="pipe")
    assert len(queued(app, "report")) == 1
    assert len(queued(app, "history")) == 1
    assert probe.calls == 2


def test_pictures_of_a_round_closed_at_its_deadline_are_made_outside_the_closing(
    app: App, open_transactions: OpenTransactions
) -> None:
    probe = _probe(app, open_transactions)
    _game(app)
    add_orders(app, "gw1", "ann", "GIVE 3 TO ben")
    clock_of(app).advance(hours=73)
    closed = sweep(app.engine, ctx=app.ctx, now=app.clock())
    assert [c.adjudicated is not None for c in closed] == [True]
    assert len(queued(app, "result")) == 3
    assert probe.calls == 2
    assert (probe.inside_transactions, probe.locked) == (0, 0)


def test_the_probe_sees_a_conversion_inside_a_transaction(
    app: App, open_transactions: OpenTransactions
) -> None:
    """The check above can fail: a read opens a transaction (SQLite's write lock still free),
    a write takes the lock too."""
    probe = _probe(app, open_transactions)
    picture = Picture(
        "board", "The board", "text", '<svg width="4" height="4"></svg>', "The board in words"
    )
    with session_scope(app.engine) as session:
        session.exec(select(Game)).all()
        make_pngs(app.ctx, [picture])
        assert (probe.inside_transactions, probe.locked) == (1, 0)
        session.add(Game(name="gw9", kind="giveaway", created_at=app.clock()))
        session.flush()
        make_pngs(app.ctx, [picture])
        assert (probe.inside_transactions, probe.locked) == (2, 1)
    make_pngs(app.ctx, [picture])
    assert (probe.calls, probe.inside_transactions, probe.locked) == (3, 2, 1)


def _round_one(app: App) -> int:
    with Session(app.engine) as session:
        round_ = session.exec(select(Round).where(Round.number == 1)).one()
        assert round_.id is not None
        return round_.id


def _adjudicated(app: App) -> None:
    """The game of three, ann's orders in, round 1 closed and adjudicated (not reported)."""
    _game(app)
    add_orders(app, "gw1", "ann", "GIVE 3 TO ben")
    with session_scope(app.engine) as session:
        round_ = open_round_of(session, session.exec(select(Game)).one())
        assert round_ is not None
        assert round_.id is not None
        close_and_adjudicate(session, round_.id, ctx=app.ctx, now=app.clock(), force=True)


def test_a_round_is_reported_once_however_often_it_is_asked(
    app: App, open_transactions: OpenTransactions
) -> None:
    """The second reporter (a sweep after a crash, another instance) loses the compare-and-set
    adjudicated -> reported and queues nothing; the pictures were kept, so it converts nothing."""
    probe = _probe(app, open_transactions)
    _adjudicated(app)
    round_id = _round_one(app)
    assert report_round(app.engine, round_id, ctx=app.ctx, now=app.clock())
    app.ctx.pngs.clear()  # as in another process
    assert not report_round(app.engine, round_id, ctx=app.ctx, now=app.clock())
    assert len(queued(app, "result")) == 3
    assert probe.calls == 2


def test_a_rounds_result_mails_are_queued_in_one_statement(app: App) -> None:
    """Reporting a round writes its mails to the outbox in one statement for all the players
    (the transaction holds SQLite's write lock: one round trip, not one a player)."""
    _adjudicated(app)
    inserts: list[str] = []

    def counted(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("INSERT INTO outboxmail"):
            inserts.append(statement)

    event.listen(app.engine, "before_cursor_execute", counted)
    try:
        assert report_round(app.engine, _round_one(app), ctx=app.ctx, now=app.clock())
    finally:
        event.remove(app.engine, "before_cursor_execute", counted)
    assert len(inserts) == 1
    assert sorted(m["To"].addresses[0].username for m in queued(app, "result")) == list(PLAYERS)


def test_a_converter_that_fails_stops_no_result_mail(app: App) -> None:
    """Without its pictures a result mail still goes, its diagrams in the plain part."""
    object.__setattr__(app.ctx, "converter", Broken())
    _game(app)
    add_orders(app, "gw1", "ann", "GIVE 3 TO ben")
    clock_of(app).advance(hours=73)
    sweep(app.engine, ctx=app.ctx, now=app.clock())
    results = queued(app, "result")
    assert len(results) == 3
    assert all(p.get_content_type() != "image/png" for m in results for p in m.walk())
    with Session(app.engine) as session:
        round_ = session.get(Round, _round_one(app))
        assert round_ is not None
        assert round_.state == RoundState.REPORTED
        assert session.exec(select(PicturePng)).all() == []
