"""Press and the player's settings at the use-case level: who may send press to whom, the game
master's settings, the rate limit and what is kept (docs/commands.md; docs/rules/sissyfight.md
"Talk"); SET WAIT and SET ADDRESS."""

from __future__ import annotations

import re
from email.message import EmailMessage
from itertools import count
from pathlib import Path

import pytest
from playing import add_orders, clock_of, close_open_round, new_game, player_mail, queued
from sqlmodel import Session, select

from adjudicator.archive.build import build_archive
from adjudicator.games import kind_of
from adjudicator.service import ServiceError
from adjudicator.service.app import App
from adjudicator.service.games import Credentials
from adjudicator.service.press import PER_ROUND, clean_text
from adjudicator.service.settings import read_settings
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, OutboxMail, Press, Seat

_numbers = count()


def start(app: App, kind: str = "giveaway", **settings: object) -> dict[str, Credentials]:
    creds = new_game(
        app, ["alice", "bob", "carol"], name="g1", kind=kind,
        settings={"early_close": False, **settings},
    )  # fmt: skip
    with session_scope(app.engine) as session:
        for mail in session.exec(select(OutboxMail)):
            session.delete(mail)
    return creds


def send(app: App, creds: dict[str, Credentials], handle: str, body: str) -> None:
    mail = player_mail(
        "g1", handle, f"PASSWORD {creds[handle].secret}\n{body}", number=next(_numbers)
    )
    app.ingest(mail, channel="pipe")


def press_mails(app: App) -> list[tuple[str, str]]:
    return [(m["To"], m["Subject"]) for m in queued(app, "press")]


def answer_text(app: App) -> str:
    answers = queued(app, "answer")
    assert answers
    body = answers[-1].get_body(preferencelist=("plain",))
    assert body is not None
    return " ".join(str(body.get_content()).split())


def test_press_to_one_player_reaches_only_that_player(app: App) -> None:
    creds = start(app)
    send(app, creds, "alice", "PRESS TO bob\nmeet me at the ring\n")
    assert press_mails(app) == [("bob@example.org", "[g1] Press from alice")]


def test_private_press_is_refused_where_the_game_master_turned_it_off(app: App) -> None:
    creds = start(app, private_press=False)
    send(app, creds, "alice", "PRESS TO bob\npsst\n")
    assert press_mails(app) == []
    assert "allows only press to every player" in answer_text(app)
    send(app, creds, "alice", "PRESS\nhello all\n")
    assert sorted(to for to, _ in press_mails(app)) == ["bob@example.org", "carol@example.org"]


def test_sissyfight_refuses_private_press_by_its_rules(app: App) -> None:
    """docs/rules/sissyfight.md: "private, one-to-one press is refused in this game"."""
    assert kind_of("sissyfight").public_press_only
    assert not kind_of("giveaway").public_press_only
    creds = start(app, "sissyfight", private_press=True)  # the setting cannot allow it
    send(app, creds, "alice", "PRESS TO bob\nteam up?\n")
    assert press_mails(app) == []
    assert "make all talk public" in answer_text(app)


def test_anonymous_press_names_nobody(app: App) -> None:
    creds = start(app, anonymous_press=True)
    send(app, creds, "alice", "PRESS\nguess who\n")
    mails = queued(app, "press")
    assert {m["Subject"] for m in mails} == {"[g1] Press from an anonymous player"}
    for mail in mails:
        body = mail.get_body(preferencelist=("plain",))
        assert body is not None
        assert "alice" not in str(body.get_content())
        assert "alice" not in mail.as_string()
    with Session(app.engine) as session:
        (kept,) = session.exec(select(Press)).all()
    assert kept.anonymous
    assert kept.sender == "alice"  # the game master can still tell who wrote it


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("PRESS TO zed\nhi\n", "no player 'zed'"),
        ("PRESS TO alice\nhi\n", "leave your own handle out"),
        ("PRESS\n\nENDPRESS\n", "the message is empty"),
        ("PRESS\n" + "x" * 5001 + "\n", "at most 5000"),
    ],
)
def test_bad_press_is_named_and_sent_to_nobody(app: App, body: str, why: str) -> None:
    creds = start(app)
    send(app, creds, "alice", body)
    assert press_mails(app) == []
    assert why in answer_text(app)


def test_press_is_rate_limited_per_player_and_round(app: App) -> None:
    creds = start(app)
    send(app, creds, "alice", "".join(f"PRESS TO bob\nnote {n}\n" for n in range(PER_ROUND - 1)))
    send(app, creds, "alice", "PRESS TO bob\none more\nPRESS TO bob\ntoo many\n")
    texts = [str(m.get_body(preferencelist=("plain",)).get_content()) for m in queued(app, "press")]  # type: ignore[union-attr]
    assert len(texts) == PER_ROUND
    assert any("one more" in t for t in texts)
    assert not any("too many" in t for t in texts)
    assert f"at most {PER_ROUND} press messages a round" in answer_text(app)
    send(app, creds, "bob", "PRESS TO alice\nmy own limit is untouched\n")
    assert ("alice@example.org", "[g1] Press from bob") in press_mails(app)


def test_a_stranger_or_a_removed_player_cannot_send_press(app: App) -> None:
    creds = start(app)
    stranger = player_mail("g1", "mallory", "PRESS\nfake\n", number=next(_numbers))
    app.ingest(stranger, channel="pipe")
    assert press_mails(app) == []
    with session_scope(app.engine) as session:
        carol = session.exec(select(Seat).where(Seat.handle == "carol")).one()
        carol.active = False
        session.add(carol)
    send(app, creds, "carol", "PRESS\nstill here\n")
    assert press_mails(app) == []
    send(app, creds, "alice", "PRESS TO carol\nare you there?\n")
    assert press_mails(app) == []
    assert "no player 'carol'" in answer_text(app)


@pytest.mark.parametrize(
    "text",
    [
        "a\rb",
        "a\nb",
        "a\r\nb",
        "a\u2028b",
        "a\u2029b",
        "a\x85b",
        "a\x0bb",
    ],
)
def test_every_kind_of_line_break_ends_a_line_and_nothing_else_survives(text: str) -> None:
    assert clean_text(text) == "a\nb"


def test_control_and_direction_characters_are_taken_out() -> None:
    assert clean_text("x\x00y\x1b[31mz\u202e\tw") == "xy[31mz w"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"private_press": "no"}, "'private_press' is true or false"),
        ({"anonymous_press": 1}, "'anonymous_press' is true or false"),
        ({"signup": "yes"}, "'signup' is true, false, or the number"),
        ({"signup": 1}, "'signup' is true, false, or the number"),
    ],
)
def test_press_settings_are_checked(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ServiceError, match=message):
        read_settings("giveaway", "72h", "UTC", settings)


def test_press_defaults() -> None:
    settings = read_settings("giveaway", "72h", "UTC", {})
    assert settings.private_press
    assert not settings.anonymous_press


def test_press_is_kept_with_its_round(app: App) -> None:
    creds = start(app)
    send(app, creds, "bob", "PRESS\nround one talk\n")
    with Session(app.engine) as session:
        game = session.exec(select(Game)).one()
        (kept,) = session.exec(select(Press)).all()
    assert kept.round_number == game.current_round == 1
    assert kept.recipients == []
    assert kept.text == "round one talk"


def test_the_archive_shows_public_press_with_its_round_and_never_private_press(
    app: App, tmp_path: Path
) -> None:
    """Press to every player is part of the game's public story: the round's archive page
    shows it (escaped); press to some players only is never published."""
    creds = start(app)
    send(app, creds, "alice", "PRESS\nall <b>bold</b> & fair\nsecond line\n")
    send(app, creds, "bob", "PRESS TO carol\nour secret\n")
    add_orders(app, "g1", "alice", "GIVE 3 TO bob")
    close_open_round(app, "g1")
    build_archive(app.engine, tmp_path / "site")
    page = (tmp_path / "site" / "g1" / "round-1.html").read_text(encoding="utf-8")
    assert "Press to every player" in page
    assert "all &lt;b&gt;bold&lt;/b&gt; &amp; fair<br>second line" in page
    assert "alice:" in page
    assert "our secret" not in page
    assert "<b>bold</b>" not in page


def test_set_wait_holds_the_round_to_its_deadline_until_set_nowait(app: App) -> None:
    """SET WAIT: the round does not close early when every order is in; SET NOWAIT lets it
    close, at once if every order is in by then."""
    creds = new_game(app, ["alice", "bob", "carol"], name="g1", settings={"early_close": True})
    send(app, creds, "bob", "SET WAIT\n")
    assert "runs to its deadline" in answer_text(app)
    for handle, orders in (("alice", "GIVE 3 TO bob"), ("bob", "GIVE 3 TO carol")):
        send(app, creds, handle, orders)
    send(app, creds, "carol", "GIVE 3 TO alice\nSTATUS\n")
    assert "SET WAIT" in answer_text(app)
    with Session(app.engine) as session:
        assert session.exec(select(Game)).one().current_round == 1  # still open
    send(app, creds, "bob", "SET NOWAIT\n")
    with Session(app.engine) as session:
        assert session.exec(select(Game)).one().current_round == 2  # closed at once


def test_set_address_moves_the_seat_only_with_the_code_mailed_to_the_new_address(
    app: App,
) -> None:
    """SET ADDRESS mails a code to the new address only (and tells the old one); a wrong code
    changes nothing; the right one moves the seat, both addresses are told, and orders with
    the password then come from the new address."""
    creds = start(app)
    send(app, creds, "bob", "SET ADDRESS <Bob.New@Example.net>\n")
    answers = {m["To"]: m for m in queued(app, "answer")}
    assert set(answers) == {"bob@example.org", "bob.new@example.net"}
    told_old = plain_text(answers["bob@example.org"])
    code_mail = plain_text(answers["bob.new@example.net"])
    found = re.search(r"SET ADDRESS bob\.new@example\.net ([0-9A-F]{8})", code_mail)
    assert found is not None
    assert found[1] not in told_old  # the code goes to the new address only
    send(app, creds, "bob", "SET ADDRESS bob.new@example.net 00000000\n")
    assert "not the code" in answer_text(app)
    with Session(app.engine) as session:
        assert session.exec(select(Seat).where(Seat.handle == "bob")).one().address == (
            "bob@example.org"
        )
    send(app, creds, "bob", f"SET ADDRESS bob.new@example.net {found[1].lower()}\n")
    with Session(app.engine) as session:
        assert session.exec(select(Seat).where(Seat.handle == "bob")).one().address == (
            "bob.new@example.net"
        )
    moved = [m["To"] for m in queued(app, "answer")][-2:]
    assert sorted(moved) == ["bob.new@example.net", "bob@example.org"]
    raw = player_mail("g1", "x", f"PASSWORD {creds['bob'].secret}\nGIVE 3 TO alice\n", number=99)
    raw = raw.replace(b"x@example.org", b"bob.new@example.net")
    app.ingest(raw, channel="pipe")
    assert queued(app, "confirmation")[-1]["To"] == "bob.new@example.net"


def plain_text(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def test_an_observer_confirms_then_gets_public_results_only_until_unobserve(app: App) -> None:
    """OBSERVE from anybody: a code comes back to the asking address; with it, each round's
    public result comes there, with no player's private report and no address; UNOBSERVE
    stops it."""
    start(app)
    stranger = "fan@elsewhere.example"

    def from_fan(body: str) -> None:
        raw = player_mail("g1", "fan", body, number=next(_numbers))
        app.ingest(raw.replace(b"fan@example.org", stranger.encode()), channel="pipe")

    from_fan("OBSERVE g1\n")
    asked = queued(app, "answer")[-1]
    assert asked["To"] == stranger
    code = re.search(r"OBSERVE g1 ([0-9A-F]{8})", plain_text(asked))
    assert code is not None
    from_fan("OBSERVE g1 00000000\n")
    assert "not the code" in answer_text(app)
    from_fan(f"observe g1 {code[1]}\n")
    assert "You now observe game g1" in answer_text(app)
    add_orders(app, "g1", "alice", "GIVE 3 TO bob")
    close_open_round(app, "g1")
    (observed,) = queued(app, "observed")
    assert observed["To"] == stranger
    text = plain_text(observed)
    assert "alice: GIVE 3 TO bob" in text
    assert "bob: no orders" in text
    assert "@example.org" not in observed.as_string()  # never a player's address
    assert "Your gifts" not in text  # nothing of a player's own report
    from_fan("UNOBSERVE g1\n")
    assert "no longer observe" in answer_text(app)
    close_open_round(app, "g1")
    assert len(queued(app, "observed")) == 1


def test_join_takes_a_seat_with_the_code_and_a_full_game_starts(app: App) -> None:
    """JOIN from anybody: a code to the asking address; with it a seat and a welcome; the game
    starts by itself when it has the ``signup`` number of players, and every player is told.
    A game not open for sign-up, or already joined, is refused."""
    new_game(
        app, ["alice", "bob", "carol"], name="sf9", kind="sissyfight", settings={"signup": 4},
        start=False,
    )  # fmt: skip
    newcomer = "Jane.Doe@elsewhere.example"

    def from_jane(body: str) -> None:
        raw = player_mail("sf9", "jane", body, number=next(_numbers))
        app.ingest(raw.replace(b"jane@example.org", newcomer.encode()), channel="pipe")

    from_jane("LIST\nJOIN sf9\n")
    asked = plain_text(queued(app, "answer")[-1])
    assert "sf9" in asked.split("JOIN sf9")[0]  # LIST names it open for sign-up
    code = re.search(r"JOIN sf9 ([0-9A-F]{8})", asked)
    assert code is not None
    from_jane("JOIN sf9 12345678\n")
    assert "not the code" in answer_text(app)
    from_jane(f"JOIN sf9 {code[1]}\n")
    assert "joined game sf9 as janedoe" in answer_text(app)
    (welcome,) = queued(app, "welcome")
    assert welcome["To"] == "jane.doe@elsewhere.example"
    started = queued(app, "started")
    assert sorted(m["To"] for m in started) == [
        "alice@example.org",
        "bob@example.org",
        "carol@example.org",
        "jane.doe@elsewhere.example",
    ]
    assert "Turn 1 is open" in plain_text(started[0])  # SiSSYFiGHT says turn
    with Session(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "sf9")).one()
    assert game.status == "running"
    from_jane(f"JOIN sf9 {code[1]}\n")
    assert "not open for sign-up" in answer_text(app)
    creds = start(app)  # g1: not open for sign-up
    assert creds
    from_jane("JOIN g1\n")
    assert "not open for sign-up" in answer_text(app)


def test_answers_to_one_address_are_capped_per_hour(app: App) -> None:
    """HELP from a forged sender, or a robot, cannot make the service mail one address
    without end: at most ANSWERS_PER_HOUR answers an hour to a player's address (fewer to an
    address with no seat, ``test_hostile_intake.py``); an hour later it answers again."""
    from adjudicator.notify.throttle import ANSWERS_PER_HOUR

    start(app)
    for _ in range(ANSWERS_PER_HOUR + 3):
        app.ingest(player_mail("g1", "alice", "HELP\n", number=next(_numbers)), channel="pipe")
    assert len(queued(app, "answer")) == ANSWERS_PER_HOUR
    clock_of(app).advance(hours=1, minutes=1)
    app.ingest(player_mail("g1", "alice", "HELP\n", number=next(_numbers)), channel="pipe")
    assert len(queued(app, "answer")) == ANSWERS_PER_HOUR + 1


def test_press_to_a_mistyped_handle_suggests_the_player_and_quotes_the_unsent_text(
    app: App,
) -> None:
    """Issue 40, finding 18: ``PRESS TO alcie`` says "did you mean alice?" and gives the
    message back, so that it can be sent again; nobody receives it."""
    creds = start(app)
    send(app, creds, "bob", "PRESS TO alcie\nLet us share the ring.\nYours, Bob\nENDPRESS\n")
    assert press_mails(app) == []
    (answer,) = queued(app, "answer")
    assert answer["To"] == "bob@example.org"
    text = plain_text(answer)
    assert "no player 'alcie'; did you mean alice?" in text
    assert "> Let us share the ring." in text
    assert "> Yours, Bob" in text
