"""A round's pictures are made once and never inside a database transaction: converting takes
tens of milliseconds, and SQLite's single write lock must not wait for it. The converter here
checks, each time it is called, that no transaction holds the write lock (a second connection
takes it at once), and counts its calls."""

from __future__ import annotations

import io
import sqlite3
from email.message import EmailMessage

from PIL import Image
from playing import add_orders, clock_of, queued
from sqlmodel import Session, select

from adjudicator.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import PicturePng

PLAYERS = ("ann", "ben", "cat")


class LockProbe:
    """A converter that makes a small real PNG and records whether the write lock was free."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.calls = 0
        self.locked = 0

    def to_png(self, svg: str) -> bytes | None:
        self.calls += 1
        probe = sqlite3.connect(self.database, timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
        except sqlite3.OperationalError:
            self.locked += 1  # somebody holds the write lock: a transaction is open
        finally:
            probe.close()
        out = io.BytesIO()
        Image.new("P", (4, 4)).save(out, format="PNG")
        return out.getvalue()


def _probe(app: App) -> LockProbe:
    probe = LockProbe(app.engine.url.database or "")
    object.__setattr__(app.ctx, "converter", probe)
    return probe


def _game(app: App) -> dict[str, str]:
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="gw1",
            kind="giveaway",
            schedule="72h",
            settings={"reminders": []},
            players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
            options={},
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())
    return {c.handle: c.secret for c in credentials}


def _mail(handle: str, body: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"{handle}@example.org"
    message["To"] = "judge@pbem.test"
    message["Subject"] = "[gw1] orders"
    message["Message-ID"] = f"<{handle}-{number}@example.org>"
    message.set_content(body)
    return message.as_bytes()


def test_pictures_of_an_early_close_are_made_once_outside_the_intake_transaction(
    app: App,
) -> None:
    probe = _probe(app)
    secrets = _game(app)
    for number, (handle, other) in enumerate(zip(PLAYERS, PLAYERS[1:] + PLAYERS[:1], strict=True)):
        body = f"PASSWORD {secrets[handle]}\nGIVE 3 TO {other}"
        app.ingest(_mail(handle, body, number), channel="pipe")
    results = queued(app, "result")
    assert len(results) == 3  # the last orders closed the round early
    assert probe.calls == 2  # the gift graph and the scores, once for all three mails
    assert probe.locked == 0
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
    app: App,
) -> None:
    probe = _probe(app)
    _game(app)
    add_orders(app, "gw1", "ann", "GIVE 3 TO ben")
    clock_of(app).advance(hours=73)
    closed = sweep(app.engine, ctx=app.ctx, now=app.clock())
    assert [c.adjudicated is not None for c in closed] == [True]
    assert len(queued(app, "result")) == 3
    assert probe.calls == 2
    assert probe.locked == 0
