"""Seats changing hands (issues #12, #15; docs/commands.md "Seats"): a replacement that
informs, the standby list, seat offers taken by TAKE (two takers, one seat), a RESIGN or
missed rounds that offer the seat, and JOIN waiting for the game master's approval."""

from __future__ import annotations

import re
import threading
import time
from itertools import count

import pytest
from playing import SERVICE, add_orders, close_open_round, new_game, plain, plain_mail, queued
from sqlalchemy import text
from sqlmodel import Session, select

from adjudicator.base.security import approval_code, seat_reply_address, standby_code, take_code
from adjudicator.service import ServiceError
from adjudicator.service.app import App
from adjudicator.service.approval import decide, request_of
from adjudicator.service.conversation import example_orders
from adjudicator.service.games import find_game
from adjudicator.service.gm import replace_player
from adjudicator.service.handover import find_seat
from adjudicator.service.offers import _claim, offer_seat
from adjudicator.service.settings import read_settings
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, GameStatus, JoinRequest, Seat, SeatOffer, Standby

_numbers = count()


def mail(sender: str, body: str, *, to: str = SERVICE, subject: str = "commands") -> bytes:
    message_id = f"<seats-{next(_numbers)}@example.org>"
    return plain_mail(sender, body, subject=subject, message_id=message_id, to=to)


def last_answer(app: App, to: str) -> str:
    answers = [m for m in queued(app, "answer") if m["To"] == to]
    assert answers, f"no answer to {to}"
    return " ".join(plain(answers[-1]).split())


def on_standby(app: App, address: str, kind: str = "giveaway") -> None:
    app.ingest(mail(address, f"STANDBY {kind}\n"), channel="pipe")
    code = standby_code(app.ctx.receipt_key, kind, address)
    assert f"STANDBY {kind} {code}" in last_answer(app, address)
    app.ingest(mail(address, f"STANDBY {kind} {code}\n"), channel="pipe")
    assert "You are on the standby list" in last_answer(app, address)


def offer(app: App, handle: str, game: str = "gw1") -> int:
    with session_scope(app.engine) as session:
        found = find_game(session, game)
        made = offer_seat(
            session,
            found,
            find_seat(session, found, handle),
            ctx=app.ctx,
            now=app.clock(),
            reason="gm",
        )
        assert made.id is not None
        return made.id


def seat(app: App, handle: str, game: str = "gw1") -> Seat:
    with Session(app.engine) as session:
        return find_seat(session, find_game(session, game), handle)


# --- a replacement that informs ----------------------------------------------------------


def test_a_replacement_gets_the_game_so_far_and_everybody_is_told(app: App) -> None:
    """#12: the newcomer gets the position and standings, the round open and its deadline (not
    "First deadline"), a password and a personal address; the others are told who took which
    seat; the replaced player is told."""
    new_game(app, ["alice", "bob", "carol"], gm_address="gm@example.org")
    add_orders(app, "gw1", "alice", "GIVE 3 TO bob")
    close_open_round(app, "gw1")
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        replace_player(session, game, "carol", "dora@example.net", ctx=app.ctx, now=app.clock())
    (takeover,) = queued(app, "takeover")
    assert takeover["To"] == "dora@example.net"
    text = plain(takeover)
    assert "you now play the seat carol" in text
    assert "1 round played" in text
    assert "* carol (your seat): points received" in text  # the standings, every player
    assert "* alice: points received" in text
    assert "Round 2 is open. Deadline:" in text
    assert "First deadline" not in text
    assert re.search(r"PASSWORD [a-z2-9]{12}", text)
    assert takeover["Reply-To"].startswith("judge+")
    told = queued(app, "seat_taken")
    assert sorted(m["To"] for m in told) == ["alice@example.org", "bob@example.org"]
    assert "the seat carol in game gw1 has a new player" in " ".join(plain(told[0]).split())
    assert "dora@example.net" not in told[0].as_string()  # a handle, never an address
    (passed,) = queued(app, "seat_passed_on")
    assert passed["To"] == "carol@example.org"
    assert "no longer work" in plain(passed)
    # The game master replaced him himself: the command's own answer says so, no notice too.
    assert queued(app, "gm:replaced") == []


def test_a_replaced_player_is_answered_in_the_name_of_his_old_game(app: App) -> None:
    """#12: a replaced player writing to his old reply address (he has a seat in another game
    too) is told that seat passed on, naming its game, not refused in another game's name; the
    same from his address with the game named and his old password."""
    creds = new_game(app, ["alice", "bob", "carol"])
    new_game(app, ["carol", "dan", "eve"], name="gw2")
    before = seat(app, "carol", game="gw1")
    assert before.id is not None
    old_reply = seat_reply_address(app.ctx.receipt_key, SERVICE, before.id, before.reply_token)
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        replace_player(session, game, "carol", "dora@example.net", ctx=app.ctx, now=app.clock())
    local, _, domain = SERVICE.partition("@")
    old_personal = f"{local}+{creds['carol'].reply_token}@{domain}"
    for address in (old_reply, old_personal):
        sent = mail("carol@example.org", "GIVE 1 TO bob\n", to=address)
        assert app.ingest(sent, channel="pipe") == "rejected"
    answers = queued(app, "passed_on")
    assert [m["To"] for m in answers] == ["carol@example.org"] * 2
    assert all(m["Subject"].startswith("[gw1] The seat carol is no longer yours") for m in answers)
    assert "refusal" not in {m["X-Test-Kind"] for m in queued(app)}
    with_password = mail(
        "carol@example.org",
        f"PASSWORD {creds['carol'].secret}\nGIVE 1 TO bob\n",
        subject="[gw1] orders",
    )
    assert app.ingest(with_password, channel="pipe") == "rejected"
    assert len(queued(app, "passed_on")) == 3
    assert "refusal" not in {m["X-Test-Kind"] for m in queued(app)}


# --- the standby list, seat offers, TAKE --------------------------------------------------


def test_standby_needs_the_code_mailed_to_the_address_and_list_shows_it(app: App) -> None:
    app.ingest(mail("sam@example.net", "STANDBY giveaway 12345678\n"), channel="pipe")
    assert "not the code" in last_answer(app, "sam@example.net")
    app.ingest(mail("sam@example.net", "STANDBY chess\n"), channel="pipe")
    assert "no kind of game 'chess'" in last_answer(app, "sam@example.net")
    on_standby(app, "sam@example.net")
    app.ingest(mail("sam@example.net", "LIST\n"), channel="pipe")
    assert "standby list for: giveaway" in last_answer(app, "sam@example.net")
    app.ingest(mail("sam@example.net", "STANDBY OFF\n"), channel="pipe")
    assert "off the standby list for giveaway" in last_answer(app, "sam@example.net")
    with Session(app.engine) as session:
        assert session.exec(select(Standby)).all() == []


def test_an_offered_seat_goes_to_the_first_taker_and_the_second_is_told(app: App) -> None:
    """#15: standby players of the kind get the offer, each with a code of his own; the first
    valid TAKE takes the seat (position, standings, password), later ones are told it is
    taken; everybody is told."""
    new_game(app, ["alice", "bob", "carol"], gm_address="gm@example.org")
    on_standby(app, "sam@example.net")
    on_standby(app, "tia@example.net")
    on_standby(app, "ugo@example.net", kind="sissyfight")  # another kind: not offered
    offer_id = offer(app, "carol")
    offers = queued(app, "seat_offer")
    assert sorted(m["To"] for m in offers) == ["sam@example.net", "tia@example.net"]
    sams = next(m for m in offers if m["To"] == "sam@example.net")
    sam_code = take_code(app.ctx.receipt_key, offer_id, "sam@example.net")
    tia_code = take_code(app.ctx.receipt_key, offer_id, "tia@example.net")
    assert f"TAKE gw1 {sam_code}" in plain(sams)
    assert tia_code not in plain(sams)
    # A code is the address's own: sam's code from tia's address takes nothing.
    app.ingest(mail("tia@example.net", f"TAKE gw1 {sam_code}\n"), channel="pipe")
    assert "not a code of a seat" in last_answer(app, "tia@example.net")
    app.ingest(mail("tia@example.net", f"TAKE gw1 {tia_code}\n"), channel="pipe")
    assert "is yours" in last_answer(app, "tia@example.net")
    app.ingest(mail("sam@example.net", f"Re: seat\n\nTAKE gw1 {sam_code}\n"), channel="pipe")
    assert "taken by someone who was faster" in last_answer(app, "sam@example.net")
    assert seat(app, "carol").address == "tia@example.net"
    assert [m["To"] for m in queued(app, "takeover")] == ["tia@example.net"]
    assert sorted(m["To"] for m in queued(app, "seat_taken")) == [
        "alice@example.org",
        "bob@example.org",
    ]
    assert [m["To"] for m in queued(app, "seat_passed_on")] == ["carol@example.org"]
    assert [m["To"] for m in queued(app, "gm:offered")] == ["gm@example.org"]
    assert [m["To"] for m in queued(app, "gm:replaced")] == ["gm@example.org"]  # taken: told


def test_taking_is_a_compare_and_set(app: App) -> None:
    """Two takers who both read the offer open: the second claim, on its stale copy, fails."""
    new_game(app, ["alice", "bob", "carol"])
    offer_id = offer(app, "carol")
    with Session(app.engine) as first, Session(app.engine) as second:
        mine, theirs = first.get(SeatOffer, offer_id), second.get(SeatOffer, offer_id)
        assert mine is not None
        assert theirs is not None
        assert theirs.taken_at is None
        assert _claim(first, mine, address="sam@example.net", now=app.clock())
        first.commit()
        assert not _claim(second, theirs, address="tia@example.net", now=app.clock())
        second.commit()
    with Session(app.engine) as session:
        done = session.get(SeatOffer, offer_id)
        assert done is not None
        assert done.taken_by == "sam@example.net"


def test_two_takers_at_once_on_postgresql_one_waits_and_loses(pg_app: App) -> None:
    """Two instances claim the same offer at the same time: the second's UPDATE waits for the
    first's row lock and, once the first commits, finds the offer taken."""
    new_game(pg_app, ["alice", "bob", "carol"])
    offer_id = offer(pg_app, "carol")
    outcome: list[bool] = []
    with Session(pg_app.engine) as first:
        mine = first.get(SeatOffer, offer_id)
        assert mine is not None
        assert _claim(first, mine, address="sam@example.net", now=pg_app.clock())

        def second_taker() -> None:
            with Session(pg_app.engine) as second:
                theirs = second.get(SeatOffer, offer_id)
                assert theirs is not None
                outcome.append(
                    _claim(second, theirs, address="tia@example.net", now=pg_app.clock())
                )
                second.commit()

        thread = threading.Thread(target=second_taker)
        thread.start()
        _wait_until_a_query_waits_for_a_lock(pg_app)
        first.commit()
    thread.join(30)
    assert outcome == [False]
    with Session(pg_app.engine) as session:
        done = session.get(SeatOffer, offer_id)
        assert done is not None
        assert done.taken_by == "sam@example.net"


def _wait_until_a_query_waits_for_a_lock(app: App) -> None:
    """A bounded poll: the second taker is blocked on the first's row lock."""
    query = text(
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    for _ in range(300):
        with app.engine.connect() as connection:
            if connection.execute(query).scalar_one() > 0:
                return
        time.sleep(0.1)
    raise AssertionError("the second taker never waited for the first's lock")


def test_standby_joined_later_gets_the_seats_on_offer_now(app: App) -> None:
    new_game(app, ["alice", "bob", "carol"])
    offer_id = offer(app, "bob")
    on_standby(app, "sam@example.net")
    code = take_code(app.ctx.receipt_key, offer_id, "sam@example.net")
    assert f"TAKE gw1 {code}" in last_answer(app, "sam@example.net")


def test_a_seat_on_offer_in_a_game_that_ended_is_neither_listed_nor_taken(app: App) -> None:
    """A game ends with a seat still on offer: a newcomer to the standby list is not offered it,
    and a TAKE with a code mailed earlier is told the game is over, leaving the offer as it was
    (it used to be claimed, and the newcomer was offered a seat in a finished game)."""
    new_game(app, ["alice", "bob", "carol"])
    on_standby(app, "sam@example.net")
    offer_id = offer(app, "bob")
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        game.status = GameStatus.FINISHED  # as its last round would
        session.add(game)
    on_standby(app, "tia@example.net")
    assert "TAKE gw1" not in last_answer(app, "tia@example.net")
    code = take_code(app.ctx.receipt_key, offer_id, "sam@example.net")
    app.ingest(mail("sam@example.net", f"TAKE gw1 {code}\n"), channel="pipe")
    assert "game gw1 is over" in last_answer(app, "sam@example.net")
    with Session(app.engine) as session:
        kept = session.get(SeatOffer, offer_id)
        assert kept is not None
        assert kept.taken_at is None
    assert seat(app, "bob").address == "bob@example.org"


def test_a_resignation_offers_the_seat(app: App) -> None:
    """#15: RESIGN, confirmed, offers the seat to the standby list; the seat is not retired
    while a newcomer may take it."""
    from adjudicator.base.security import resign_code

    creds = new_game(app, ["alice", "bob", "carol"], gm_address="gm@example.org")
    on_standby(app, "sam@example.net")
    carol = seat(app, "carol")
    assert carol.id is not None
    code = resign_code(app.ctx.receipt_key, carol.id, carol.reply_token)
    app.ingest(
        mail(
            "carol@example.org",
            f"PASSWORD {creds['carol'].secret}\nRESIGN {code}\n",
            subject="[gw1] x",
        ),
        channel="pipe",
    )
    assert not seat(app, "carol").active
    (offered,) = queued(app, "seat_offer")
    assert offered["To"] == "sam@example.net"
    assert "Its player has resigned" in plain(offered)
    told = queued(app, "resigned")
    assert "offered to the players waiting" in " ".join(plain(told[0]).split())
    with Session(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "gw1")).one()
        assert "carol" not in (game.state or {}).get("retired", [])
    offer_id = session_offer_id(app)
    take = take_code(app.ctx.receipt_key, offer_id, "sam@example.net")
    app.ingest(mail("sam@example.net", f"TAKE gw1 {take}\n"), channel="pipe")
    now = seat(app, "carol")
    assert (now.address, now.active) == ("sam@example.net", True)


def test_a_resigned_player_writing_is_told_he_resigned(app: App) -> None:
    """A player who resigned and writes again is told his mail was not applied because he
    resigned, not that the game master took him out (docs/commands.md: RESIGN)."""
    from adjudicator.base.security import resign_code

    creds = new_game(app, ["alice", "bob", "carol"], gm_address="gm@example.org")
    carol = seat(app, "carol")
    assert carol.id is not None
    code = resign_code(app.ctx.receipt_key, carol.id, carol.reply_token)
    password = f"PASSWORD {creds['carol'].secret}"
    app.ingest(
        mail("carol@example.org", f"{password}\nRESIGN {code}\n", subject="[gw1] x"),
        channel="pipe",
    )
    app.ingest(
        mail("carol@example.org", f"{password}\nGIVE 3 TO bob\n", subject="[gw1] x"), channel="pipe"
    )
    (told,) = queued(app, "removed")
    text = " ".join(plain(told).split())
    assert "you have resigned from game gw1" in text
    assert "the game master has taken you out" not in text


def session_offer_id(app: App) -> int:
    with Session(app.engine) as session:
        found = session.exec(select(SeatOffer)).one()
        assert found.id is not None
        return found.id


@pytest.mark.parametrize("absent", ["offer", "stand-in,offer"])
def test_missed_rounds_offer_the_seat_under_absent_offer(app: App, absent: str) -> None:
    """#15: after missed_rounds_limit rounds the seat is offered (its player told); with
    stand-in,offer the computer plays it while the offer is open, until a newcomer takes it."""
    new_game(
        app,
        ["alice", "bob", "carol"],
        settings={"absent": absent, "missed_rounds_limit": 2},
        gm_address="gm@example.org",
    )
    on_standby(app, "sam@example.net")
    for _ in range(2):  # alice and bob send orders valid in their position; carol none
        with Session(app.engine) as session:
            game = find_game(session, "gw1")
            valid = {h: example_orders(game, h) for h in ("alice", "bob")}
        for handle, lines in valid.items():
            add_orders(app, "gw1", handle, *lines)
        close_open_round(app, "gw1")
    (offered,) = queued(app, "seat_offer")
    assert "carol in game gw1" in " ".join(plain(offered).split())
    assert "missed too many rounds" in plain(offered)
    notice = plain(queued(app, "gm:missed_rounds")[0])
    assert "offered to the players on the standby list" in " ".join(notice.split())
    (holder,) = queued(app, "seat_offered")
    assert holder["To"] == "carol@example.org"
    assert "the seat is still yours" in plain(holder)
    with Session(app.engine) as session:
        game = find_game(session, "gw1")
        assert ("carol" in game.settings.get("stand_ins", [])) == (absent != "offer")
    offer_id = session_offer_id(app)
    take = take_code(app.ctx.receipt_key, offer_id, "sam@example.net")
    app.ingest(mail("sam@example.net", f"TAKE gw1 {take}\n"), channel="pipe")
    with Session(app.engine) as session:
        game = find_game(session, "gw1")
        assert "carol" not in game.settings.get("stand_ins", [])  # the newcomer plays it
    assert seat(app, "carol").address == "sam@example.net"


@pytest.mark.parametrize(
    ("absent", "ok"),
    [("offer", True), ("stand-in,offer", True), ("no-orders,offer", False), ("later", False)],
)
def test_absent_setting_values(absent: str, ok: bool) -> None:
    if ok:
        read_settings("giveaway", "72h", "UTC", {"absent": absent})
    else:
        with pytest.raises(ServiceError, match="absent"):
            read_settings("giveaway", "72h", "UTC", {"absent": absent})


# --- JOIN with the game master's approval -------------------------------------------------


def _signup_game(app: App) -> None:
    new_game(
        app, ["alice", "bob", "carol"], name="sf9", kind="sissyfight",
        settings={"signup": 4, "join": "approve"}, gm_address="gm@example.org", start=False,
    )  # fmt: skip


def _join(app: App, address: str) -> None:
    app.ingest(mail(address, "JOIN sf9\n"), channel="pipe")
    code = re.search(r"JOIN sf9 ([0-9A-F]{8})", last_answer(app, address))
    assert code is not None
    app.ingest(mail(address, f"JOIN sf9 {code[1]}\n"), channel="pipe")


def test_a_join_waits_for_the_game_masters_approve_by_mail(app: App) -> None:
    """#12: under join=approve a confirmed JOIN waits; the game master gets a code that alone
    proves the answer came through his mailbox; the joiner is told the outcome; the game
    starts when full."""
    _signup_game(app)
    _join(app, "jane@elsewhere.example")
    assert "waits for an answer" in last_answer(app, "jane@elsewhere.example")
    assert queued(app, "welcome") == []
    (request,) = queued(app, "gm:join_request")
    assert request["To"] == "gm@example.org"
    code = re.search(r"APPROVE sf9 ([0-9A-F]{8})", plain(request))
    assert code is not None
    app.ingest(mail("mallory@example.net", "APPROVE sf9 0123ABCD\n"), channel="pipe")
    assert "not the code" in last_answer(app, "mallory@example.net")
    # The game master answers from another of his addresses: the code is the proof.
    app.ingest(mail("gm@home.example", f"> quoted\n\nAPPROVE sf9 {code[1]}\n"), channel="pipe")
    assert "is in game sf9 as jane" in last_answer(app, "gm@home.example")
    (decided,) = queued(app, "join_decided")
    assert decided["To"] == "jane@elsewhere.example"
    assert "has let you in" in plain(decided)
    assert [m["To"] for m in queued(app, "welcome")][-1] == "jane@elsewhere.example"
    with Session(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "sf9")).one()
        assert game.status == GameStatus.RUNNING  # four players: full
    app.ingest(mail("gm@home.example", f"APPROVE sf9 {code[1]}\n"), channel="pipe")
    assert "not the code of a request" in last_answer(app, "gm@home.example")


def test_a_declined_join_is_told_and_the_command_line_decides_too(app: App) -> None:
    _signup_game(app)
    _join(app, "jane@elsewhere.example")
    _join(app, "kim@elsewhere.example")
    with Session(app.engine) as session:
        jane = session.exec(
            select(JoinRequest).where(JoinRequest.address == "jane@elsewhere.example")
        ).one()
        assert jane.id is not None
        code = approval_code(app.ctx.receipt_key, "sf9", jane.id, jane.address)
    app.ingest(mail("gm@example.org", f"DECLINE sf9 {code}\n"), channel="pipe")
    (declined,) = queued(app, "join_decided")
    assert "declined your request" in plain(declined)
    _join(app, "jane@elsewhere.example")
    assert "has declined your request" in last_answer(app, "jane@elsewhere.example")
    with session_scope(app.engine) as session:
        game = find_game(session, "sf9")
        started = decide(
            session,
            game,
            request_of(session, game, "kim@elsewhere.example"),
            approve=True,
            ctx=app.ctx,
            now=app.clock(),
        )
    assert started
    app.ingest(mail("lou@elsewhere.example", "JOIN sf9\n"), channel="pipe")
    assert "not open for sign-up" in last_answer(app, "lou@elsewhere.example")
    with Session(app.engine) as session:
        handles = {s.handle for s in session.exec(select(Seat))}
    assert "kim" in handles
    assert "jane" not in handles


def test_a_join_still_waiting_when_the_game_starts_is_closed_and_told(app: App) -> None:
    _signup_game(app)
    _join(app, "jane@elsewhere.example")
    _join(app, "kim@elsewhere.example")
    with session_scope(app.engine) as session:
        game = find_game(session, "sf9")
        decide(
            session,
            game,
            request_of(session, game, "jane@elsewhere.example"),
            approve=True,
            ctx=app.ctx,
            now=app.clock(),
        )  # four players: the game starts
    told = {m["To"]: plain(m) for m in queued(app, "join_decided")}
    assert "has let you in" in told["jane@elsewhere.example"]
    assert "has started before its game master answered" in " ".join(
        told["kim@elsewhere.example"].split()
    )
    with Session(app.engine) as session:
        kim = session.exec(
            select(JoinRequest).where(JoinRequest.address == "kim@elsewhere.example")
        ).one()
    assert kim.status == "closed"
