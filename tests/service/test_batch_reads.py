"""The reads of a batch (``storage/prefetch.py``): a batch of mails asks the database its
questions once, whatever the number of its mails, and every mail of the batch still sees what
the mails before it wrote, exactly as when each mail is processed alone."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest
from playing import (
    close_open_round,
    fail_processing_of,
    new_game,
    plain_mail,
    plans_of_reads,
    player_mail,
    poll,
)
from sqlalchemy import event, text
from sqlmodel import Session, col, select

from adjudicator.service import batch_intake
from adjudicator.service.app import App
from adjudicator.service.authentication import MAX_FAILED_LOGINS
from adjudicator.service.games import Credentials
from adjudicator.storage import queries
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import (
    LoginFailure,
    OrderSet,
    OutboxMail,
    Round,
    RoundResult,
    RoundState,
    Submission,
)
from adjudicator.storage.prefetch import prefetched

PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank")


def orders(game: str, creds: dict[str, Credentials], handle: str, gift: str, n: int) -> bytes:
    body = f"PASSWORD {creds[handle].secret}\nGIVE 3 TO {gift}"
    return player_mail(game, handle, body, number=n)


def selects_while(app: App, raws: list[bytes]) -> int:
    """The SELECT statements run while these mails are stored and processed as one batch."""
    results: list[Any] = []
    count = selects_in(app, lambda: results.extend(app.ingest_batch(raws, channel="imap")))
    assert [status for _, status in results] == ["accepted"] * len(raws)
    return count


def test_a_batch_asks_the_same_questions_whatever_its_number_of_mails(app: App) -> None:
    """Games, seats, login failures, open rounds, order sets and earlier copies are read once
    for the batch: twelve order mails cost the database no more reads than four."""
    keep_open = {"early_close": False}
    games = {name: new_game(app, PLAYERS, name=name, settings=keep_open) for name in ("g1", "g2")}

    def batch(handles: tuple[str, ...], n: int) -> list[bytes]:
        return [
            orders(name, creds, h, "alice" if h != "alice" else "bob", 10 * n + g)
            for g, (name, creds) in enumerate(games.items())
            for h in handles
        ]

    few = selects_while(app, batch(PLAYERS[:2], 1))
    many = selects_while(app, batch(PLAYERS, 2))
    assert many == few
    with Session(app.engine) as session:
        assert len(session.exec(select(OrderSet)).all()) == 16


def statements_of_batches(
    app: App, *, early_close: bool = False
) -> Callable[[tuple[str, ...], int], Counter[str]]:
    """Two games of six (rounds kept open unless ``early_close``); the returned function sends
    one batch of order mails from ``handles`` in both games (``n`` makes the mails new) and
    counts the statements
    the batch sent the database: ``INSERT INTO <table>``, ``UPDATE <table> SET``, or the first
    word (SELECT, SAVEPOINT, ...)."""
    settings = {"early_close": early_close}
    games = {name: new_game(app, PLAYERS, name=name, settings=settings) for name in ("g1", "g2")}

    def statements(handles: tuple[str, ...], n: int) -> Counter[str]:
        raws = [
            orders(name, creds, h, "alice" if h != "alice" else "bob", 10 * n + g)
            for g, (name, creds) in enumerate(games.items())
            for h in handles
        ]
        sent: Counter[str] = Counter()

        def counted(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            words = [word.strip('"') for word in statement.split()]
            sent[" ".join(words[:3]) if words[0] in ("INSERT", "UPDATE") else words[0]] += 1

        event.listen(app.engine, "before_cursor_execute", counted)
        try:
            statuses = [status for _, status in app.ingest_batch(raws, channel="imap")]
        finally:
            event.remove(app.engine, "before_cursor_execute", counted)
        assert statuses == ["accepted"] * len(raws)
        return sent

    return statements


def test_a_batch_writes_its_orders_and_marks_its_mails_together(app: App) -> None:
    """A batch's mails are marked processed in one statement for twelve mails as for four, in
    the flush at the batch's end, with the order sets they brought: not a flush per mail (each
    mail still sees the orders of the mails before it: see the test below). Their answers are
    queued in one statement too."""
    statements = statements_of_batches(app)
    few, many = statements(PLAYERS[:2], 1), statements(PLAYERS, 2)
    # The claim (SQLite: the write lock taken) and the marks, whatever the number of mails.
    assert few["UPDATE submission SET"] == many["UPDATE submission SET"] == 2
    assert (few["INSERT INTO orderset"], many["INSERT INTO orderset"]) == (4, 12)  # a row each
    assert few["INSERT INTO outboxmail"] == many["INSERT INTO outboxmail"] == 1  # together
    with Session(app.engine) as session:
        assert len(session.exec(select(OrderSet)).all()) == 16
        assert {s.status for s in session.exec(select(Submission))} == {"accepted"}


def test_a_round_its_last_orders_complete_does_not_split_the_batchs_writes(app: App) -> None:
    """The last orders of both games come in the middle of one batch: each round is noted
    complete (it closes after the batch), and the batch still writes its order sets and marks
    its mails in the one flush at its end, not in a flush when a round is noted."""
    statements = statements_of_batches(app, early_close=True)
    sent = statements(PLAYERS, 1)
    assert sent["UPDATE submission SET"] == 2  # the claim and the marks of all twelve
    with Session(app.engine) as session:  # both rounds closed early, after the batch
        closed = [r for r in session.exec(select(Round)) if r.number == 1]
        assert len(closed) == 2
        assert all(r.complete_at is not None and r.state != RoundState.OPEN for r in closed)


def test_on_postgresql_a_batch_costs_the_same_round_trips_whatever_its_number_of_mails(
    pg_app: App,
) -> None:
    """Every statement a batch sends PostgreSQL, reads and writes alike, counted: twelve order
    mails cost the same round trips as four (their order sets, answers and processed marks
    each go in one statement for the batch)."""
    statements = statements_of_batches(pg_app)
    few, many = statements(PLAYERS[:2], 1), statements(PLAYERS, 2)
    assert many == few
    assert few["INSERT INTO orderset"] == few["INSERT INTO outboxmail"] == 1
    with Session(pg_app.engine) as session:
        assert len(session.exec(select(OrderSet)).all()) == 16


def batch_and_alone(app: App, twin: App, mails: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same mails (``mails(creds)``) as one batch in ``app``, one at a time in ``twin``;
    what each decided."""
    settings = {"early_close": True}
    in_app, in_twin = (
        new_game(app, PLAYERS[:3], settings=settings),
        new_game(twin, PLAYERS[:3], settings=settings),
    )
    app.ingest_batch(mails(in_app), channel="imap")
    for raw in mails(in_twin):
        twin.ingest(raw, channel="imap")
    return decided(app), decided(twin)


def decided(app: App) -> dict[str, Any]:
    with Session(app.engine) as session:
        rounds = {r.id: (r.number, r.state) for r in session.exec(select(Round))}
        submissions = session.exec(select(Submission).order_by(col(Submission.id))).all()
        order_sets = session.exec(select(OrderSet).order_by(col(OrderSet.id))).all()
        confirmations = session.exec(
            select(OutboxMail).where(OutboxMail.kind == "confirmation").order_by(col(OutboxMail.id))
        )
        return {
            "statuses": [(s.sender, s.status, s.note) for s in submissions],
            "orders": [(rounds[o.round_id][0], o.lines) for o in order_sets],
            "rounds": sorted(rounds.values()),
            "failures": len(session.exec(select(LoginFailure)).all()),
            "replaced": [_replaced(m.message) for m in confirmations],
        }


def _replaced(message: bytes) -> str | None:
    """The earlier orders a confirmation says the new ones replace, if any."""
    mail = message_from_bytes(message, policy=policy.default)
    assert isinstance(mail, EmailMessage)
    body = mail.get_body(("plain",))
    assert body is not None
    text = body.get_content()
    if "They replace your earlier orders:" not in text:
        return None
    return text.split("They replace your earlier orders:")[1].split("\n\n")[1].strip()


def test_each_mail_of_a_batch_sees_what_the_mails_before_it_wrote(app: App, twin: App) -> None:
    """Replaced orders, the last orders of a round that closes early, a copy under the same
    Message-ID, a mail without the game's name, and wrong passwords that lock their source:
    the batch decides all of it as mail by mail would."""

    def mails(creds: dict[str, Credentials]) -> list[bytes]:
        alice_again = orders("gw1", creds, "alice", "carol", 2)
        return [
            orders("gw1", creds, "alice", "bob", 1),
            alice_again,  # replaces her first orders
            alice_again.replace(b"Subject:", b"X-Relayed: yes\nSubject:"),  # the same mail
            orders("gw1", creds, "bob", "carol", 3),
            plain_mail(  # no game named: the sender's only game
                "carol@example.org",
                f"PASSWORD {creds['carol'].secret}\nGIVE 3 TO alice",
                subject="my orders",
                message_id="<carol-4@example.org>",
            ),  # the last orders in: round 1 closes after the batch, round 2 opens
            *[
                player_mail("gw1", "carol", "PASSWORD wrong\nGIVE 3 TO bob", number=10 + n)
                for n in range(MAX_FAILED_LOGINS)
            ],
            orders("gw1", creds, "carol", "bob", 20),  # its source is locked now
        ]

    batch, alone = batch_and_alone(app, twin, mails)
    assert batch == alone
    assert batch["orders"] == [
        (1, ["GIVE 3 TO bob"]),
        (1, ["GIVE 3 TO carol"]),
        (1, ["GIVE 3 TO carol"]),
        (1, ["GIVE 3 TO alice"]),
    ]
    assert batch["rounds"] == [(1, "reported"), (2, "open")]
    assert batch["replaced"] == [None, "GIVE 3 TO bob", None, None]
    notes = [note or "" for _, _, note in batch["statuses"]]
    assert notes[2].startswith("replay of submission")
    assert notes[-1] == (
        "refused for game gw1: source locked (5 wrong passwords from it within the hour),"
        " password not checked, the player told"
    )
    assert batch["failures"] == 2  # the source's count, and when the player was told


@pytest.mark.parametrize(
    ("taken", "rounds"),
    [(4, [(1, "open")]), (6, [(1, "reported"), (2, "open")])],
    ids=["held-by-wait", "closed-after-nowait"],
)
def test_a_wait_asked_for_in_a_batch_counts_for_the_mails_after_it(
    app: App, twin: App, taken: int, rounds: list[tuple[int, str]]
) -> None:
    """The batch reads each game's roll of seats once (who moves, who asked for the full
    time). A SET WAIT earlier in the same batch still holds the round when the last orders
    come after it, and a SET NOWAIT lets the next last orders close it, as mail by mail would
    (``docs/commands.md``: SET WAIT keeps every round open to its deadline)."""

    def mails(creds: dict[str, Credentials]) -> list[bytes]:
        def command(handle: str, text: str, n: int) -> bytes:
            body = f"PASSWORD {creds[handle].secret}\n{text}\n"
            return player_mail("gw1", handle, body, number=n)

        return [
            orders("gw1", creds, "alice", "bob", 1),
            command("bob", "SET WAIT", 2),
            orders("gw1", creds, "bob", "carol", 3),
            orders("gw1", creds, "carol", "alice", 4),  # every order in, but bob waits
            command("bob", "SET NOWAIT", 5),
            orders("gw1", creds, "carol", "bob", 6),  # replaces carol's: the round closes
        ][:taken]

    batch, alone = batch_and_alone(app, twin, mails)
    assert batch == alone
    assert batch["rounds"] == rounds


def test_orders_through_a_reply_address_from_elsewhere_replace_the_seats_own(app: App) -> None:
    """The batch loads the newest orders of the seats its senders' addresses hold; a player
    writing from another address through the seat's reply address (its token is the proof)
    still sees the orders it replaces, in a batch as mail by mail."""
    creds = new_game(app, PLAYERS[:3], settings={"early_close": True})
    app.ingest_batch([orders("gw1", creds, "alice", "bob", 1)], channel="imap")
    from_work = plain_mail(
        "alice.at.work@example.com",
        "GIVE 3 TO carol",
        subject="orders",
        message_id="<alice-work@example.com>",
        to=f"judge+{creds['alice'].reply_token}@pbem.test",
    )
    mails = [orders("gw1", creds, "bob", "carol", 2), from_work]
    statuses = app.ingest_batch(mails, channel="imap")
    assert [status for _, status in statuses] == ["accepted", "accepted"]
    assert decided(app)["replaced"] == [None, None, "GIVE 3 TO bob"]


def test_a_mail_rolled_back_leaves_nothing_for_the_mails_after_it(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carol's orders complete the round, then her mail fails and its savepoint is rolled
    back: the mails after hers find round 1 without her orders, and it stays open."""
    creds = new_game(app, PLAYERS[:3], settings={"early_close": True})
    fail_processing_of(monkeypatch, "carol@example.org")
    mails = [
        orders("gw1", creds, "alice", "bob", 1),
        orders("gw1", creds, "bob", "carol", 2),
        orders("gw1", creds, "carol", "alice", 3),
        orders("gw1", creds, "alice", "carol", 4),
    ]
    statuses = [status for _, status in app.ingest_batch(mails, channel="imap")]
    assert statuses == ["accepted", "accepted", "failed", "accepted"]
    result = decided(app)
    assert result["rounds"] == [(1, "open")]
    assert result["orders"] == [
        (1, ["GIVE 3 TO bob"]),
        (1, ["GIVE 3 TO carol"]),
        (1, ["GIVE 3 TO carol"]),
    ]
    assert result["replaced"] == [None, None, "GIVE 3 TO bob"]


def test_on_postgresql_a_deadline_waits_for_the_batch_taking_orders_for_its_round(
    pg_app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice's orders are stored and the batch has not committed yet when the deadline comes
    (another connection, as a worker or another instance closes rounds): the closing waits
    for the batch, and the result counts the orders she is told were stored."""
    creds = new_game(pg_app, PLAYERS[:3], settings={"early_close": False})
    stored, release = threading.Event(), threading.Event()
    real = batch_intake.process_claimed

    def held(session: Session, submission: Submission, raw: bytes, **kw: Any) -> Any:
        status = real(session, submission, raw, **kw)
        stored.set()
        release.wait(60)  # the batch stays open until the closing has had its chance
        return status

    monkeypatch.setattr(batch_intake, "process_claimed", held)
    alice = orders("gw1", creds, "alice", "bob", 1)
    intake = threading.Thread(
        target=pg_app.ingest_batch, args=([alice],), kwargs={"channel": "imap"}
    )
    closing = threading.Thread(target=close_open_round, args=(pg_app, "gw1"))
    intake.start()
    try:
        assert stored.wait(30)
        closing.start()
        assert poll(lambda: not closing.is_alive() or waiting_for_a_lock(pg_app), timeout=30)
    finally:
        release.set()
        intake.join(60)
    closing.join(60)
    with Session(pg_app.engine) as session:
        (result,) = session.exec(select(RoundResult)).all()
        assert result.orders["alice"] == ["GIVE 3 TO bob"]
        (submission,) = session.exec(select(Submission)).all()
        assert submission.status == "accepted"


def waiting_for_a_lock(app: App) -> bool:
    """Whether a connection to the app's database waits for a lock (PostgreSQL)."""
    with app.engine.connect() as connection:
        waiting = connection.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
        ).scalar_one()
    return bool(waiting)


def test_mail_processed_after_a_restart_is_read_with_its_batch_not_one_query_a_mail(
    app: App,
) -> None:
    """Mail stored and left unprocessed (a crash between the two steps) is processed by id on
    the next start (``process_pending``): its raw bytes come with the batch's claim, so twelve
    mails cost no more reads than four, as when the reader hands them over with their bytes."""
    keep_open = {"early_close": False}
    games = {name: new_game(app, PLAYERS, name=name, settings=keep_open) for name in ("g1", "g2")}

    def stored(handles: tuple[str, ...], n: int) -> None:
        raws = [
            orders(name, creds, h, "alice" if h != "alice" else "bob", 10 * n + g)
            for g, (name, creds) in enumerate(games.items())
            for h in handles
        ]
        with session_scope(app.engine) as session:
            assert len(batch_intake.store_batch(session, raws, channel="imap", now=app.clock()))

    stored(PLAYERS[:2], 1)
    few = selects_in(app, app.process_pending)
    stored(PLAYERS, 2)
    many = selects_in(app, app.process_pending)
    assert many == few
    with Session(app.engine) as session:
        statuses = session.exec(select(Submission.status)).all()
        assert statuses == ["accepted"] * 16


def test_a_question_the_batch_did_not_read_is_asked_once(app: App) -> None:
    """A game the batch's mails did not name (reached through a reply address, say): its seats
    and open round are read when first asked, then kept for the rest of the batch."""
    new_game(app, PLAYERS[:3])
    with (
        Session(app.engine) as session,
        prefetched(session, game_names=[], senders=[], message_ids=[]),
    ):
        game = queries.game_named(session, "gw1")
        assert game is not None
        before = selects_in(app, lambda: queries.seats_of(session, game.id))
        again = selects_in(app, lambda: queries.seats_of(session, game.id))
        round_ = selects_in(app, lambda: queries.open_round(session, game.id))
        round_again = selects_in(app, lambda: queries.open_round(session, game.id))
    assert (before, again, round_, round_again) == (1, 0, 1, 0)


def selects_in(app: App, work: Callable[[], object]) -> int:
    """The SELECT statements ``work`` runs."""
    count = 0

    def counted(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        nonlocal count
        count += statement.lstrip().upper().startswith("SELECT")

    event.listen(app.engine, "before_cursor_execute", counted)
    try:
        work()
    finally:
        event.remove(app.engine, "before_cursor_execute", counted)
    return count


def test_no_read_of_a_batch_goes_through_the_mail_history(app: App) -> None:
    """The questions a batch asks of the stored mail (copies by digest, earlier mails with the
    same Message-ID, the mails claimed) are answered through the index of what is asked, not
    by going through every mail processed so far: their cost must not grow with the
    service's history. Checked on SQLite's own plan of each statement the batch runs."""
    creds = new_game(app, PLAYERS, settings={"early_close": False})
    app.ingest_batch(
        [
            orders("gw1", creds, h, "alice" if h != "alice" else "bob", n)
            for n, h in enumerate(PLAYERS)
        ],
        channel="imap",
    )
    again = [
        orders("gw1", creds, h, "erin" if h != "erin" else "bob", 10 + n)
        for n, h in enumerate(PLAYERS * 3)
    ]
    statuses: list[tuple[int, Any]] = []
    plans = plans_of_reads(
        app, "submission", lambda: statuses.extend(app.ingest_batch(again, channel="imap"))
    )
    assert [s for _, s in statuses] == ["accepted"] * 18
    assert plans  # the copies and the earlier Message-IDs were asked about
    # By status alone: every mail ever processed (with "received": the few waiting).
    walks = ("SCAN submission", "ix_submission_status (status=?)")
    for steps in plans:
        assert not any(walk in step for walk in walks for step in steps), steps
