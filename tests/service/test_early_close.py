"""A round that closes early (the game's ``early_close`` setting: close as soon as every order
is in) is closed once the batch of mail bringing its last orders has committed, not by the
thread reading the mail (``closing.mark_if_complete`` and ``close_completed``). The round is noted complete in the batch's transaction, so that a crash
between the commit and the close loses nothing: the sweeper closes it."""

from __future__ import annotations

from playing import new_game, plain, player_mail, queued
from sqlmodel import Session, col, select

from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.games import Credentials
from adjudicator.storage.models import OrderSet, Round, RoundResult, RoundState

TRIO = ("alice", "bob", "carol")


def orders(creds: dict[str, Credentials], handle: str, body: str, n: int) -> bytes:
    return player_mail("gw1", handle, f"PASSWORD {creds[handle].secret}\n{body}", number=n)


def rounds(app: App) -> list[tuple[int, str, bool]]:
    """(number, state, noted complete) of each round of the game."""
    with Session(app.engine) as session:
        found = session.exec(select(Round).order_by(col(Round.number)))
        return [(r.number, r.state, r.complete_at is not None) for r in found]


def orders_of_round(app: App, number: int) -> list[list[str]]:
    with Session(app.engine) as session:
        query = (
            select(OrderSet)
            .join(Round, col(Round.id) == col(OrderSet.round_id))
            .where(Round.number == number)
            .order_by(col(OrderSet.id))
        )
        return [o.lines for o in session.exec(query)]


def test_the_round_closes_once_the_batch_with_its_last_orders_commits(app: App) -> None:
    """The last orders come in, then a player's second mail in the same batch: both count for
    round 1, which closes right after the batch and is reported to every player; a mail of
    the next batch is for round 2."""
    creds = new_game(app, TRIO, settings={"early_close": True})
    first_batch = [
        orders(creds, "alice", "GIVE 3 TO bob", 1),
        orders(creds, "bob", "GIVE 3 TO carol", 2),
        orders(creds, "carol", "GIVE 3 TO alice", 3),  # the last orders in
        orders(creds, "alice", "GIVE 3 TO carol", 4),  # read in the same batch: round 1
    ]
    statuses = [status for _, status in app.ingest_batch(first_batch, channel="imap")]
    assert statuses == ["accepted"] * 4
    assert rounds(app) == [(1, RoundState.REPORTED, True), (2, RoundState.OPEN, False)]
    assert len(orders_of_round(app, 1)) == 4
    assert {m["To"] for m in queued(app, "result")} == {f"{p}@example.org" for p in TRIO}
    confirmations = queued(app, "confirmation")
    assert [m["To"] for m in confirmations] == [f"{p}@example.org" for p in (*TRIO, "alice")]
    assert all("for round 1" in str(m["Subject"]) for m in confirmations)
    # Those before the last orders: they may still change them until the deadline. From the
    # last orders on: the round is adjudicated now, the result follows.
    for mail, completes in zip(confirmations, (False, False, True, True), strict=True):
        text = plain(mail)
        assert ("adjudicated now" in text) is completes, text
        assert ("Deadline:" in text) is not completes, text
    with Session(app.engine) as session:
        result = session.exec(select(RoundResult)).one()
    assert result.orders["alice"] == ["GIVE 3 TO carol"]  # her newest orders

    app.ingest_batch([orders(creds, "bob", "GIVE 3 TO alice", 5)], channel="imap")
    assert orders_of_round(app, 2) == [["GIVE 3 TO alice"]]


def test_a_round_noted_complete_before_a_crash_is_closed_by_the_sweeper(app: App) -> None:
    """The batch with the last orders commits, then the service dies before closing the round
    (nothing runs after the batch): the round waits, noted complete, and the sweeper of the
    next start closes it and queues its results; a second sweep does nothing more."""
    creds = new_game(app, TRIO, settings={"early_close": True})
    app.report_later = lambda: None  # the service is killed right after the commit
    mails = [
        orders(creds, "alice", "GIVE 3 TO bob", 1),
        orders(creds, "bob", "GIVE 3 TO carol", 2),
        orders(creds, "carol", "GIVE 3 TO alice", 3),
    ]
    app.ingest_batch(mails, channel="imap")
    assert rounds(app) == [(1, RoundState.OPEN, True)]
    assert queued(app, "result") == []

    closed = sweep(app.engine, ctx=app.ctx, now=app.clock())
    assert [outcome.adjudicated is not None for outcome in closed] == [True]
    assert rounds(app) == [(1, RoundState.REPORTED, True), (2, RoundState.OPEN, False)]
    assert len(queued(app, "result")) == len(TRIO)
    assert sweep(app.engine, ctx=app.ctx, now=app.clock()) == []
    assert len(queued(app, "result")) == len(TRIO)


def test_a_round_no_longer_complete_when_its_turn_comes_waits_for_its_deadline(
    app: App,
) -> None:
    """Every order is in, but before the round is closed a player asks for the full time (SET
    WAIT): the round stays open, loses its note, and the closing pass leaves it alone."""
    creds = new_game(app, TRIO, settings={"early_close": True})
    app.report_later = lambda: None  # the closing pass comes later
    app.ingest_batch(
        [
            orders(creds, "alice", "GIVE 3 TO bob", 1),
            orders(creds, "bob", "GIVE 3 TO carol", 2),
            orders(creds, "carol", "GIVE 3 TO alice", 3),
            player_mail("gw1", "bob", f"PASSWORD {creds['bob'].secret}\nSET WAIT\n", number=4),
        ],
        channel="imap",
    )
    assert rounds(app) == [(1, RoundState.OPEN, True)]
    app.report()
    assert rounds(app) == [(1, RoundState.OPEN, False)]
    assert queued(app, "result") == []
