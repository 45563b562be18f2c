"""A seat the computer plays, given back to a person in the middle of a round (issue 40,
finding 1; docs/stand-ins.md): a newcomer who TAKEs it, the game master's ``STAND-IN x OFF``,
the seat's own player ordering again. "A seat given back to a human has no orders but the
human's; the round waits for them (or the deadline), and STATUS and the result say whose
orders stood." Everything goes by mail through the service, as players and the game master
play."""

from __future__ import annotations

import re
from email.message import EmailMessage
from itertools import count

from playing import SERVICE, close_open_round, new_game, plain, queued
from sqlmodel import Session, col, select

from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.gm import put_stand_in
from adjudicator.service.notices import gm_reply_to
from adjudicator.service.stand_ins import STAND_IN, stand_in_seats
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OrderSet, Round, RoundResult, RoundState

_numbers = count(1)


def _mail(app: App, sender: str, body: str, *, to: str = SERVICE, game: str = "gw") -> None:
    """``body`` from ``sender`` (a handle at example.org, or an address) to ``to``."""
    message = EmailMessage()
    message["From"] = sender if "@" in sender else f"{sender}@example.org"
    message["To"] = to
    message["Subject"] = f"[{game}] orders"
    message["Message-ID"] = f"<given-back-{next(_numbers)}@example.org>"
    message.set_content(body)
    app.ingest(message.as_bytes(), channel="test")
    app.report()


def _orders(app: App, secrets: dict[str, str], handle: str, line: str) -> None:
    _mail(app, handle, f"PASSWORD {secrets[handle]}\n{line}\n")


def _rounds(app: App) -> list[Round]:
    with Session(app.engine) as session:
        game = find_game(session, "gw")
        return list(
            session.exec(select(Round).where(Round.game_id == game.id).order_by(col(Round.number)))
        )


def _result(app: App, number: int) -> RoundResult:
    with Session(app.engine) as session:
        round_ = _rounds(app)[number - 1]
        return session.exec(select(RoundResult).where(RoundResult.round_id == round_.id)).one()


def _last_to(app: App, address: str, kind: str) -> EmailMessage:
    return [m for m in queued(app, kind) if m["To"] == address][-1]


def _game(app: App, **settings: object) -> dict[str, str]:
    credentials = new_game(
        app,
        ["alice", "bob", "carol"],
        name="gw",
        settings={"reminders": [], **settings},  # early close: the default
        gm_address="gm@example.org",
    )
    return {handle: c.secret for handle, c in credentials.items()}


def _stand_in_for_carol(app: App) -> None:
    """The game master lets the computer play carol; it moves in the open round at once."""
    with session_scope(app.engine) as session:
        game = find_game(session, "gw")
        assert put_stand_in(session, game, "carol", on=True, ctx=app.ctx, now=app.clock()) == [
            "carol"
        ]


def test_a_newcomer_who_takes_the_seat_from_the_stand_in_is_waited_for_and_his_orders_stand(
    app: App,
) -> None:
    secrets = _game(app, absent="stand-in,offer", missed_rounds_limit=1)
    # sam waits for a seat in a Giveaway game
    _mail(app, "sam", "STANDBY giveaway")
    code = re.search(r"STANDBY giveaway ([0-9A-F]{8})", plain(queued(app, "answer")[-1]))
    assert code is not None
    _mail(app, "sam", f"STANDBY giveaway {code[1]}")

    _orders(app, secrets, "alice", "GIVE 3 TO bob")
    _orders(app, secrets, "bob", "GIVE 3 TO alice")
    close_open_round(app, "gw")  # carol sent nothing: a stand-in plays her, the seat is offered
    with Session(app.engine) as session:
        assert stand_in_seats(find_game(session, "gw")) == ("carol",)

    offer = _last_to(app, "sam@example.org", "seat_offer")
    take = re.search(r"TAKE gw ([0-9A-F]{8})", plain(offer))
    assert take is not None
    _mail(app, "sam", f"TAKE gw {take[1]}")
    takeover = plain(_last_to(app, "sam@example.org", "takeover"))
    password = re.search(r"PASSWORD ([a-z2-9]{12})", takeover)
    assert password is not None

    # Every other order is in, but the round waits for the newcomer: not for the computer's.
    holdings = _result(app, 1).public_state["holdings"]
    _orders(app, secrets, "alice", f"GIVE {holdings['alice']} TO carol")
    _orders(app, secrets, "bob", f"GIVE {holdings['bob']} TO carol")
    assert _rounds(app)[1].state == RoundState.OPEN

    _mail(app, "sam", "STATUS")
    status = plain(_last_to(app, "sam@example.org", "answer"))
    assert "You have no orders stored for this round yet." in status
    assert "Still to order: carol (you)." in status, status

    _mail(app, "sam", f"PASSWORD {password[1]}\nGIVE {holdings['carol']} TO alice\n")
    assert _rounds(app)[1].state != RoundState.OPEN  # every player's orders in: closed now
    assert _result(app, 2).orders["carol"] == [f"GIVE {holdings['carol']} TO alice"]

    mine = plain(_last_to(app, "sam@example.org", "result"))
    assert "Played by a stand-in" not in mine
    flat = " ".join(mine.split())
    assert "Your seat went back from the stand-in (the computer) to you" in flat
    assert "your own orders stood." in flat
    others = " ".join(plain(_last_to(app, "alice@example.org", "result")).split())
    assert "The seat carol went back from the stand-in (the computer) to its player" in others
    assert "the player's own orders stood." in others


def test_after_the_game_masters_stand_in_off_the_round_waits_for_the_player(app: App) -> None:
    secrets = _game(app)
    _stand_in_for_carol(app)
    with Session(app.engine) as session:
        gm_address = gm_reply_to(app.ctx, find_game(session, "gw"))
    _mail(app, "gm@example.org", "STAND-IN carol OFF", to=gm_address)
    told = plain(_last_to(app, "carol@example.org", "game_change"))
    assert "has given your seat in game gw back to you" in " ".join(told.split())

    _orders(app, secrets, "alice", "GIVE 3 TO bob")
    _orders(app, secrets, "bob", "GIVE 3 TO carol")
    assert _rounds(app)[0].state == RoundState.OPEN  # not closed on the computer's orders

    _mail(app, "carol", "STATUS")
    status = plain(_last_to(app, "carol@example.org", "answer"))
    assert "You have no orders stored for this round yet." in status
    assert "stand-in" not in status

    _orders(app, secrets, "carol", "GIVE 3 TO alice")
    assert _rounds(app)[0].state != RoundState.OPEN
    assert _result(app, 1).orders["carol"] == ["GIVE 3 TO alice"]
    result = " ".join(plain(_last_to(app, "carol@example.org", "result")).split())
    assert "Your seat went back from the stand-in (the computer) to you" in result
    assert "your own orders stood." in result


def test_at_the_deadline_a_seat_given_back_with_no_orders_has_none(app: App) -> None:
    """The computer's orders withdrawn stay withdrawn: the player's silence is no orders."""
    secrets = _game(app)
    _stand_in_for_carol(app)
    with Session(app.engine) as session:
        gm_address = gm_reply_to(app.ctx, find_game(session, "gw"))
    _mail(app, "gm@example.org", "STAND-IN carol OFF", to=gm_address)
    _orders(app, secrets, "alice", "GIVE 3 TO bob")
    close_open_round(app, "gw")
    result = _result(app, 1)
    assert "carol" not in result.orders  # docs/rules/giveaway.md: the no-orders rule applies
    flat = " ".join(plain(_last_to(app, "bob@example.org", "result")).split())
    assert "The seat carol went back from the stand-in (the computer) to its player" in flat
    assert "no orders stood (the game's no-orders rule applied)." in flat


def test_a_player_who_orders_again_takes_the_seat_back_for_the_rounds_after(app: App) -> None:
    """The player's orders replace the computer's in the round he sends them for, and the
    next round waits for him again rather than closing on the computer's orders."""
    secrets = _game(app)
    _stand_in_for_carol(app)
    _orders(app, secrets, "alice", "GIVE 3 TO bob")
    _orders(app, secrets, "carol", "GIVE 3 TO bob")  # back: his own orders
    _orders(app, secrets, "bob", "GIVE 3 TO carol")
    assert _rounds(app)[0].state != RoundState.OPEN
    assert _result(app, 1).orders["carol"] == ["GIVE 3 TO bob"]
    confirmation = " ".join(plain(_last_to(app, "carol@example.org", "confirmation")).split())
    assert "You play your seat yourself again" in confirmation
    assert "They replace your earlier orders" not in confirmation  # they were the computer's
    (notice,) = queued(app, "gm:stand_in_returned")
    assert "carol plays their own seat again" in str(notice["Subject"])

    with Session(app.engine) as session:
        assert stand_in_seats(find_game(session, "gw")) == ()
    second = _rounds(app)[1]
    holdings = _result(app, 1).public_state["holdings"]
    _orders(app, secrets, "alice", f"GIVE {holdings['alice']} TO bob")
    _orders(app, secrets, "bob", f"GIVE {holdings['bob']} TO alice")
    assert _rounds(app)[1].state == RoundState.OPEN  # round 2 waits for carol
    with Session(app.engine) as session:
        receipts = session.exec(select(OrderSet.receipt).where(OrderSet.round_id == second.id))
        assert STAND_IN not in set(receipts)  # the computer no longer moves for the seat


def test_a_stand_in_put_in_when_the_player_had_ordered_leaves_his_orders_standing(
    app: App,
) -> None:
    """The converse: the human's orders stand; the computer sends none over them."""
    secrets = _game(app)
    _orders(app, secrets, "carol", "GIVE 3 TO alice")
    with session_scope(app.engine) as session:
        game = find_game(session, "gw")
        assert put_stand_in(session, game, "carol", on=True, ctx=app.ctx, now=app.clock()) == []
    _orders(app, secrets, "alice", "GIVE 3 TO bob")
    _orders(app, secrets, "bob", "GIVE 3 TO carol")
    assert _result(app, 1).orders["carol"] == ["GIVE 3 TO alice"]
    result = plain(_last_to(app, "alice@example.org", "result"))
    assert "Played by a stand-in" not in result


def _sf_turn(app: App, number: int) -> tuple[Round, RoundResult | None]:
    with Session(app.engine) as session:
        game = find_game(session, "sf")
        turn = session.exec(
            select(Round).where(Round.game_id == game.id, Round.number == number)
        ).one()
        result = session.exec(select(RoundResult).where(RoundResult.round_id == turn.id)).first()
        return turn, result


def test_a_sissyfight_player_back_from_the_stand_in_fights_with_his_own_orders(app: App) -> None:
    """The play-test's third case: a SiSSYFiGHT player the computer stood in for orders again.
    His DEFEND stands in the open turn, not the stand-in's action; the next turn waits for
    him, and the computer no longer acts for him (docs/rules/sissyfight.md)."""
    credentials = new_game(
        app,
        ["alice", "bob", "carol"],
        name="sf",
        kind="sissyfight",
        settings={"reminders": []},  # early close: the default
        gm_address="gm@example.org",
    )
    secrets = {handle: c.secret for handle, c in credentials.items()}
    with session_scope(app.engine) as session:
        game = find_game(session, "sf")
        assert put_stand_in(session, game, "carol", on=True, ctx=app.ctx, now=app.clock()) == [
            "carol"
        ]
    _mail(app, "carol", f"PASSWORD {secrets['carol']}\nDEFEND\n", game="sf")
    _mail(app, "alice", f"PASSWORD {secrets['alice']}\nSOLO carol\n", game="sf")
    assert _sf_turn(app, 1)[0].state == RoundState.OPEN  # bob's action is still to come
    _mail(app, "bob", f"PASSWORD {secrets['bob']}\nSOLO carol\n", game="sf")
    first, result = _sf_turn(app, 1)
    assert first.state != RoundState.OPEN
    assert result is not None
    assert result.orders["carol"] == ["DEFEND"]
    mine = " ".join(plain(_last_to(app, "carol@example.org", "result")).split())
    assert "Played by a stand-in" not in mine

    _mail(app, "alice", f"PASSWORD {secrets['alice']}\nDEFEND\n", game="sf")
    _mail(app, "bob", f"PASSWORD {secrets['bob']}\nDEFEND\n", game="sf")
    second, _ = _sf_turn(app, 2)
    assert second.state == RoundState.OPEN  # turn 2 waits for carol, not for the computer
    with Session(app.engine) as session:
        receipts = session.exec(select(OrderSet.receipt).where(OrderSet.round_id == second.id))
        assert STAND_IN not in set(receipts)
