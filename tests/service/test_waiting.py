"""Who the round waits for, as the players read it: reminders and STATUS say which seats have
orders in and which not yet (handles only, never the orders), in a game played in turns whose
turn it is, unless the game master turned it off (setting ``show_waiting``, docs/commands.md);
a nudge to the player whose turn it is (setting ``nudge``); and ``PRESS TO ALL`` / ``PRESS TO BROADCAST`` as the public press njudge and DPjudge players
mean by it, unless a player is called so."""

from __future__ import annotations

import random
from datetime import timedelta
from email.message import EmailMessage
from itertools import count
from typing import Any

import pytest
from playing import START, clock_of, new_game, player_mail, queued
from sqlmodel import Session, select

from adjudicator.core.game import PieceSpec, Setup
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service import ServiceError
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.deadlines import wake_times
from adjudicator.service.games import Credentials, find_game
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.models import GameStatus, Press

_numbers = count()


def _send(app: App, game: str, creds: dict[str, Credentials], handle: str, body: str) -> None:
    mail = player_mail(
        game, handle, f"PASSWORD {creds[handle].secret}\n{body}", number=next(_numbers)
    )
    app.ingest(mail, channel="pipe")


def _flat(mail: EmailMessage) -> str:
    body = mail.get_body(preferencelist=("plain",))
    assert body is not None
    return " ".join(str(body.get_content()).split())


def _newest(app: App, kind: str, to: str) -> str:
    mails = [m for m in queued(app, kind) if m["To"] == to]
    assert mails, f"no {kind} mail to {to}"
    return _flat(mails[-1])


def _giveaway(app: App, **settings: Any) -> dict[str, Credentials]:
    """ann, ben and cat at Giveaway, a round every 72 hours; ann has sent her orders."""
    creds = new_game(
        app, ["ann", "ben", "cat"], name="g1", settings={"early_close": False, **settings}
    )
    _send(app, "g1", creds, "ann", "GIVE 3 TO ben\n")
    return creds


def _reminded(app: App) -> None:
    """The sweeper 24 hours before the deadline: the first reminder is due."""
    sweep(app.engine, ctx=app.ctx, now=clock_of(app).at(hours=48))


def test_a_reminder_names_who_has_ordered_and_who_not_yet(app: App) -> None:
    _giveaway(app)
    _reminded(app)
    assert sorted(m["To"] for m in queued(app, "reminder")) == [
        "ben@example.org",
        "cat@example.org",
    ]
    text = _newest(app, "reminder", "ben@example.org")
    assert "Orders in: ann. Still to order: ben (you), cat." in text
    assert "GIVE" not in text  # ann's orders stay hers
    assert "ann@example.org" not in text


def test_status_names_who_has_ordered_and_who_not_yet(app: App) -> None:
    creds = _giveaway(app)
    _send(app, "g1", creds, "cat", "STATUS\n")
    text = _newest(app, "answer", "cat@example.org")
    assert "Orders in: ann. Still to order: ben, cat (you)." in text
    assert "GIVE 3 TO ben" not in text
    assert "ann@example.org" not in text


def test_status_before_any_orders_says_none_are_in(app: App) -> None:
    creds = new_game(app, ["ann", "ben", "cat"], name="g1", settings={"early_close": False})
    _send(app, "g1", creds, "ben", "STATUS\n")
    text = _newest(app, "answer", "ben@example.org")
    assert "Orders in: none yet. Still to order: ann, ben (you), cat." in text


def test_the_game_master_can_keep_who_has_ordered_to_himself(app: App) -> None:
    creds = _giveaway(app, show_waiting=False)
    _reminded(app)
    _send(app, "g1", creds, "cat", "STATUS\n")
    for text in (
        _newest(app, "reminder", "ben@example.org"),
        _newest(app, "answer", "cat@example.org"),
    ):
        assert "Orders in" not in text
        assert "Still to order" not in text
        assert "waits for" not in text
    # the player still learns about his own orders and the deadline
    assert "You have no orders stored for this round yet." in _newest(
        app, "answer", "cat@example.org"
    )


def _turns(app: App) -> dict[str, Credentials]:
    """Rock, Scissors, Paper (played in turns): alice (white) to move; her Rock on H8 next to
    bob's Flag on I9."""
    setup = Setup(
        pieces=[
            PieceSpec("white", "flag", "A1"),
            PieceSpec("black", "flag", "I9"),
            PieceSpec("white", "rock", "H8"),
            PieceSpec("black", "rock", "B2"),
        ],
        to_move="white",
    )
    return new_game(app, ["alice", "bob"], name="rsp1", kind="rock-scissors-paper", setup=setup)


def test_status_in_a_game_played_in_turns_says_whose_turn_it_is(app: App) -> None:
    creds = _turns(app)
    _send(app, "rsp1", creds, "bob", "STATUS\n")
    _send(app, "rsp1", creds, "alice", "STATUS\n")
    assert "It is alice's turn." in _newest(app, "answer", "bob@example.org")
    assert "It is your turn." in _newest(app, "answer", "alice@example.org")


def test_status_of_a_finished_game_says_it_is_over_and_nothing_of_orders(app: App) -> None:
    creds = _turns(app)
    _send(app, "rsp1", creds, "alice", "H8-I9\n")  # her Rock takes the Flag: she wins
    with Session(app.engine) as session:
        assert find_game(session, "rsp1").status == GameStatus.FINISHED
    _send(app, "rsp1", creds, "bob", "STATUS\n")
    text = _newest(app, "answer", "bob@example.org")
    assert "it is over" in text
    assert "turn" not in text
    assert "Still to order" not in text


def _press_mails(app: App) -> list[tuple[str, str]]:
    return sorted((str(m["To"]), str(m["Subject"])) for m in queued(app, "press"))


@pytest.mark.parametrize("line", ["PRESS TO ALL", "press to all", "PRESS TO BROADCAST"])
def test_press_to_all_is_public_press(app: App, line: str) -> None:
    creds = new_game(app, ["ann", "ben", "cat"], name="g1")
    _send(app, "g1", creds, "ann", f"{line}\nhello everybody\nENDPRESS\n")
    assert _press_mails(app) == [
        ("ben@example.org", "[g1] Press from ann"),
        ("cat@example.org", "[g1] Press from ann"),
    ]
    with Session(app.engine) as session:
        (kept,) = session.exec(select(Press)).all()
    assert kept.recipients == []  # public: every player reads it in HISTORY
    assert "no player" not in _newest(app, "answer", "ann@example.org")


def test_press_to_all_is_public_where_private_press_is_off(app: App) -> None:
    creds = new_game(app, ["ann", "ben", "cat"], name="g1", settings={"private_press": False})
    _send(app, "g1", creds, "ann", "PRESS TO ALL\nhello everybody\n")
    assert [to for to, _ in _press_mails(app)] == ["ben@example.org", "cat@example.org"]


def test_press_to_all_goes_to_the_player_called_all_where_there_is_one(app: App) -> None:
    creds = new_game(app, ["ann", "all", "cat"], name="g1")
    _send(app, "g1", creds, "ann", "PRESS TO ALL\njust you\n")
    assert _press_mails(app) == [("all@example.org", "[g1] Press from ann")]


def test_press_to_all_and_a_player_is_press_to_two_players(app: App) -> None:
    """Only ALL alone means everybody: beside a handle it is a handle, and the game has no
    player of that name (the answer as for any unknown player)."""
    creds = new_game(app, ["ann", "ben", "cat"], name="g1")
    _send(app, "g1", creds, "ann", "PRESS TO ben all\nhi\n")
    assert _press_mails(app) == []
    assert "game g1 has no player 'all'" in _newest(app, "answer", "ann@example.org")


def _a_move(app: App, game: str, handle: str) -> str:
    """A legal move of ``handle``'s now, as a player writes it."""
    with Session(app.engine) as session:
        found = find_game(session, game)
        rules, state = rules_of(found), game_state(found)
        orders = rules.sample_orders(state, handle, random.Random(1))
        return "\n".join(rules.format_order(order) for order in orders)


def _nudges(app: App) -> list[tuple[str, str]]:
    return [(str(m["To"]), str(m["Subject"])) for m in queued(app, "nudge")]


def test_the_player_whose_turn_it_is_is_nudged_once_a_turn(app: App) -> None:
    """Setting ``nudge=24h``: a day into a turn its player gets one nudge; the next turn, the
    next player."""
    creds = new_game(
        app, ["alice", "bob"], name="tm1", kind="three-musketeers", schedule="72h",
        settings={"nudge": "24h", "reminders": []},
    )  # fmt: skip
    clock = clock_of(app)
    with Session(app.engine) as session:
        round_ = open_round_of(session, find_game(session, "tm1"))
        assert round_ is not None
        assert START + timedelta(hours=24) in wake_times(session, round_)  # the scheduler's
    sweep(app.engine, ctx=app.ctx, now=clock.at(hours=23, minutes=59))
    assert _nudges(app) == []
    sweep(app.engine, ctx=app.ctx, now=clock.at(hours=24))
    sweep(app.engine, ctx=app.ctx, now=clock.at(hours=30))
    assert _nudges(app) == [("alice@example.org", "[tm1] Your move: round 1 waits for you")]
    text = _flat(queued(app, "nudge")[0])
    assert "the game has waited 1 day for your move" in text
    assert "The deadline is Thursday 05 March 2026, 12:00 UTC." in text
    clock.at(hours=31)
    _send(app, "tm1", creds, "alice", _a_move(app, "tm1", "alice"))  # bob's turn from now
    sweep(app.engine, ctx=app.ctx, now=clock.at(hours=54, minutes=59))
    assert len(_nudges(app)) == 1
    sweep(app.engine, ctx=app.ctx, now=clock.at(hours=55))
    assert _nudges(app)[1:] == [("bob@example.org", "[tm1] Your move: round 2 waits for you")]


def test_a_game_not_played_in_turns_has_reminders_not_nudges(app: App) -> None:
    with pytest.raises(ServiceError, match="'nudge' is for games played in turns"):
        new_game(app, ["ann", "ben"], name="g1", settings={"nudge": "24h"})
