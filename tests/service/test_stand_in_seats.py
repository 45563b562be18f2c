"""Seats the computer plays (``service/stand_ins.py``): a human against the computer by mail,
the computer moving first, a stand-in for a player who keeps missing rounds, and the game
master's command. The stand-in's orders are stored like a player's and every result says which
seats it played."""

from __future__ import annotations

import random
from itertools import count

import pytest
from playing import add_orders, close_open_round, new_game, plain, player_mail, queued
from sqlmodel import Session, col, select

from adjudicator.games import kind_of
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service import ServiceError
from adjudicator.service.announcements import tell_created
from adjudicator.service.app import App
from adjudicator.service.closing import begin_game
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.gm import put_stand_in, replace_player
from adjudicator.service.stand_ins import STAND_IN, stand_in_seats
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, OrderSet, OutboxMail, Round, RoundState, Seat

_numbers = count(1)


def _create(
    app: App, name: str, kind: str, handles: list[str], **settings: object
) -> dict[str, str]:
    """A started game with a game master; the players' passwords by handle."""
    credentials = new_game(
        app,
        handles,
        name=name,
        kind=kind,
        settings={"reminders": [], **settings},
        gm_address="gm@example.org",
    )
    return {handle: c.secret for handle, c in credentials.items()}


def _rounds(app: App, name: str) -> list[Round]:
    with Session(app.engine) as session:
        game = find_game(session, name)
        return list(
            session.exec(select(Round).where(Round.game_id == game.id).order_by(col(Round.number)))
        )


def _orders_of(app: App, round_id: int | None) -> list[tuple[str, list[str], str]]:
    """(handle, lines, receipt) of every order set of a round."""
    with Session(app.engine) as session:
        rows = session.exec(
            select(Seat.handle, OrderSet.lines, OrderSet.receipt)
            .join(Seat, col(Seat.id) == col(OrderSet.seat_id))
            .where(OrderSet.round_id == round_id)
        )
        return [(handle, list(lines), receipt) for handle, lines, receipt in rows]


def _a_legal_move(app: App, name: str, handle: str) -> list[str]:
    """Some move the game accepts from ``handle`` now (drawn by the game's own stand-in)."""
    with Session(app.engine) as session:
        game = find_game(session, name)
        stand_in = kind_of(game.kind).stand_in
        assert stand_in is not None
        return stand_in(game_state(game), handle, random.Random(7))


def test_a_human_plays_the_computer_by_mail_and_the_computer_answers_each_move_at_once(
    app: App,
) -> None:
    # docs/rules/three-musketeers.md: the first seat plays the Musketeers, who move first.
    secrets = _create(app, "duel", "three-musketeers", ["ann", "cpu"], stand_ins=["cpu"])
    (first,) = _rounds(app, "duel")
    assert first.state == RoundState.OPEN  # waiting for ann: the computer does not move first

    move = _a_legal_move(app, "duel", "ann")
    body = f"PASSWORD {secrets['ann']}\n" + "\n".join(move) + "\n"
    app.ingest(player_mail("duel", "ann", body, number=next(_numbers)), channel="pipe")

    rounds = _rounds(app, "duel")
    assert [r.state for r in rounds] == [RoundState.REPORTED, RoundState.REPORTED, RoundState.OPEN]
    (answer,) = _orders_of(app, rounds[1].id)
    handle, lines, receipt = answer
    assert (handle, receipt) == ("cpu", STAND_IN)
    assert len(lines) == 1  # one move, as a player writes it
    with Session(app.engine) as session:
        game = find_game(session, "duel")
        # the Cardinal's move was legal in the position after ann's move (the replayed record
        # would refuse it otherwise), and the open round waits for ann again
        assert rules_of(game).to_move(game_state(game)) == ("ann",)
    # One mail to ann for the move and the computer's answer (issue 40, finding 19).
    (result,) = [m for m in queued(app) if m["To"] == "ann@example.org"]
    text = plain(result)
    assert "Played by a stand-in (the computer) this round: cpu." in text
    assert text.index("your move in game duel, round 1") < text.index("in round 2:")
    assert "cpu is played by the computer" in " ".join(text.split())


def test_when_the_computer_moves_first_its_round_closes_as_the_game_starts(app: App) -> None:
    _create(app, "duel", "three-musketeers", ["cpu", "bea"], stand_ins=["cpu"])
    rounds = _rounds(app, "duel")
    assert [r.state for r in rounds] == [RoundState.ADJUDICATED, RoundState.OPEN]
    assert [(h, r) for h, _, r in _orders_of(app, rounds[0].id)] == [("cpu", STAND_IN)]


def test_a_player_who_keeps_missing_rounds_gets_a_stand_in_and_the_game_master_is_told(
    app: App,
) -> None:
    _create(
        app,
        "gw",
        "giveaway",
        ["alice", "bob", "carol"],
        absent="stand-in",
        missed_rounds_limit=1,
        early_close=False,
    )
    add_orders(app, "gw", "alice", "GIVE 3 TO bob")
    add_orders(app, "gw", "bob", "GIVE 3 TO alice")
    close_open_round(app, "gw")  # carol sent nothing: one missed round is the limit here

    with Session(app.engine) as session:
        assert stand_in_seats(find_game(session, "gw")) == ("carol",)
    second = _rounds(app, "gw")[1]
    assert [(h, r) for h, _, r in _orders_of(app, second.id)] == [("carol", STAND_IN)]
    (notice,) = queued(app, "gm:missed_rounds")
    assert "a stand-in (the computer) plays the seat" in plain(notice)

    # A replacement takes the seat back from the stand-in.
    with session_scope(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "gw")).one()
        replace_player(session, game, "carol", "cara@example.org", ctx=app.ctx, now=app.clock())
        assert stand_in_seats(game) == ()


def test_the_game_master_puts_a_stand_in_in_the_last_missing_seat_and_the_round_closes(
    app: App,
) -> None:
    _create(app, "gw", "giveaway", ["alice", "bob", "carol"])  # early close: the default
    add_orders(app, "gw", "alice", "GIVE 3 TO bob")
    add_orders(app, "gw", "bob", "GIVE 3 TO carol")
    with session_scope(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "gw")).one()
        moved = put_stand_in(session, game, "carol", on=True, ctx=app.ctx, now=app.clock())
    assert moved == ["carol"]
    first = _rounds(app, "gw")[0]
    assert first.state == RoundState.ADJUDICATED  # every order in: closed at once
    with session_scope(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "gw")).one()
        put_stand_in(session, game, "carol", on=False, ctx=app.ctx, now=app.clock())
        assert stand_in_seats(game) == ()


def test_a_seat_the_computer_plays_from_the_start_needs_no_address_and_gets_no_mail(
    app: App,
) -> None:
    """Issue 15: the computer's seat may have no address; nothing is queued for it (so
    nothing can bounce), and the human's results still name it as played by the computer."""
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="solo",
            kind="three-musketeers",
            players=[PlayerSpec("ann", "ann@example.org"), PlayerSpec("cpu", "")],
            options={},
            schedule="72h",
            settings={"reminders": ["1h"], "stand_ins": ["cpu"]},
            gm_address="gm@example.org",
            now=app.clock(),
        )
        first = begin_game(session, game, ctx=app.ctx, now=app.clock())
        queue_welcome(
            session,
            ctx=app.ctx,
            game=game,
            credentials=credentials,
            first_round=first,
            now=app.clock(),
        )
        tell_created(session, ctx=app.ctx, game=game, first_round=first, now=app.clock())
    secret = next(c.secret for c in credentials if c.handle == "ann")
    for _ in range(3):  # ann moves by mail; the computer answers each move at once
        move = _a_legal_move(app, "solo", "ann")
        body = f"PASSWORD {secret}\n" + "\n".join(move) + "\n"
        app.ingest(player_mail("solo", "ann", body, number=next(_numbers)), channel="pipe")
        app.report()
    with Session(app.engine) as session:
        recipients = set(session.exec(select(OutboxMail.recipient)))
    assert recipients == {"ann@example.org", "gm@example.org"}
    results = queued(app, "result")
    assert results
    assert all(mail["To"] == "ann@example.org" for mail in results)
    assert any(
        "stand-in (the computer)" in plain(mail) and "cpu" in plain(mail) for mail in results
    )
    (created,) = [m for m in queued(app) if m["To"] == "gm@example.org"][:1]
    assert "cpu" in plain(created)
    assert "no address" in plain(created)


def test_only_a_seat_the_computer_plays_may_have_no_address(app: App) -> None:
    with session_scope(app.engine) as session, pytest.raises(ServiceError, match="no address"):
        create_game(
            session,
            name="nobody",
            kind="three-musketeers",
            players=[PlayerSpec("ann", "ann@example.org"), PlayerSpec("bob", "")],
            options={},
            now=app.clock(),
        )


def test_the_game_master_cannot_give_back_a_seat_nobody_would_play(app: App) -> None:
    _create(app, "solo", "three-musketeers", ["ann", "cpu"], stand_ins=["cpu"])
    with session_scope(app.engine) as session:
        game = find_game(session, "solo")
        seat = session.exec(select(Seat).where(Seat.handle == "cpu")).one()
        seat.address = ""  # as created with no address
        with pytest.raises(ServiceError, match="nobody would play the seat"):
            put_stand_in(session, game, "cpu", on=False, ctx=app.ctx, now=app.clock())
