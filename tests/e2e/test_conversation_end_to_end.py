"""Commands and press by mail, end to end: each mail is appended to a real Dovecot, the running
service (IMAP IDLE, SQLite, the outbox over SMTP) answers it, and the answers arrive at a real
aiosmtpd receiver. What each test asserts is what the player who gets the mail must learn
(docs/commands.md), not the words of the templates."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from mailservers import Dovecot, SmtpSink
from mailtable import SERVICE, Table, make_service, serving, started_game
from sqlmodel import Session, select

from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Press, Seat


@pytest.fixture
def table(
    tmp_path: Path, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink
) -> Iterator[tuple[Table, dict[str, Credentials]]]:
    """Giveaway gw7 (alice, bob, carol) and SiSSYFiGHT sf8 (alice, dave, erin) running; Three
    Giveaway gw9 (xan, yan, zed) open for sign-up until a fourth player joins. The welcomes are not queued: these tests start after."""
    app = make_service(tmp_path, dovecot, imap_user, smtp_sink)
    credentials: dict[str, Credentials] = {}
    with session_scope(app.engine) as session:
        for name, kind, players in (
            ("gw7", "giveaway", ("alice", "bob", "carol")),
            ("sf8", "sissyfight", ("alice", "dave", "erin")),
        ):
            _, _, creds = started_game(session, app, name, players, kind=kind)
            credentials |= {f"{name}:{c.handle}": c for c in creds}
        create_game(
            session,
            name="gw9",
            kind="giveaway",
            schedule="72h",
            settings={"signup": 4},
            options={},
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("xan", "yan", "zed")],
            now=app.clock(),
        )
    with serving(app):
        yield Table(app, dovecot, imap_user, smtp_sink), credentials


def test_a_stranger_gets_help_the_list_of_games_and_joins_one(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """HELP, LIST, JOIN and a mistyped command need no seat: a stranger is answered, once per
    mail, at the sender's address; LIST names the games open for sign-up and tells a stranger
    he has none; JOIN, confirmed with the code mailed back, gives him a seat, and the game
    starts when full."""
    t, _ = table
    t.send("someone@elsewhere.example", "help")
    help_ = t.one("Answer to your mail")
    assert help_.to == "someone@elsewhere.example"
    for command in ("LIST", "STATUS", "PRESS", "SET TIMEZONE", "SET PASSWORD", "RESIGN"):
        assert command in help_.text
    assert help_.message["Reply-To"] is None  # no seat: replies go to the service itself

    t.send("someone@elsewhere.example", "Hi judge,\nLIST\nStatsu")
    answer = t.one()
    assert "gw9" in answer.text  # open for sign-up
    assert "gw7" not in answer.text
    assert "sf8" not in answer.text
    assert "no seat in any game" in answer.flat
    assert "did you mean STATUS?" in answer.text
    assert "Statsu" in answer.text

    t.send("someone@elsewhere.example", "JOIN gw9")
    code = re.search(r"JOIN gw9 ([0-9A-F]{8})", t.one("Answer").text)
    assert code is not None
    t.send("someone@elsewhere.example", f"JOIN gw9 {code[1]} someone")
    mails = t.expect(6)  # his welcome, the start to all four, the answer
    welcome = next(m for m in mails if "Welcome" in m.subject)
    assert welcome.to == "someone@elsewhere.example"
    assert "PASSWORD " in welcome.text
    started = sorted(m.to for m in mails if "has started" in m.subject)
    assert started == [
        "someone@elsewhere.example",
        "xan@example.org",
        "yan@example.org",
        "zed@example.org",
    ]


def test_help_for_a_game_shows_an_order_valid_in_the_players_position(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """HELP gw7 to a Giveaway player: the order syntax, and an example that the game accepts
    from this player now (docs/rules/giveaway.md: give away exactly all one holds)."""
    t, _ = table
    t.send("bob@example.org", "HELP gw7")
    mail = t.one("Answer")
    assert "GIVE <points> TO <player>" in mail.text
    examples = re.findall(r"^ {4}(GIVE \d+ TO \w+)\r?$", mail.text, re.MULTILINE)
    assert examples, mail.text
    given = sum(int(line.split()[1]) for line in examples)
    assert given == 3  # a Giveaway player holds 3 points in round 1
    assert all(not line.endswith("TO bob") for line in examples)  # never to oneself

    t.send("bob@example.org", "HELP nosuchgame")
    assert 'no game called "nosuchgame"' in t.one().text


def test_a_mail_mixing_commands_and_orders_for_two_games(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """Orders for two games and commands in one mail get ONE answer: each game's orders
    confirmed (with their receipt) and every command answered, section by section in the order
    written; STATUS shows the orders this very mail stored, the deadline, and whom the round
    waits for, by handle and never by address. Replying to it reaches the service."""
    t, creds = table
    body = (
        "Hello,\n"
        "GAME gw7\n"
        f"PASSWORD {creds['gw7:alice'].secret}\n"
        "give 2 to bob\n"
        "give 1 to carol\n"
        "status\n"
        "GAME sf8\n"
        f"PASSWORD {creds['sf8:alice'].secret}\n"
        "SOLO dave\n"
        "Help\n"
    )
    t.send("alice@example.org", body)
    (answer,) = t.expect(1)
    assert answer.to == "alice@example.org"
    assert "gw7" in answer.subject
    assert "sf8" in answer.subject
    text = answer.text
    gw7 = text.index("== [gw7] Orders received for round 1 ==")
    sf8 = text.index("== [sf8] Orders received for turn 1 ==")
    assert gw7 < sf8  # the sections in the order of the mail
    assert text.count("Receipt: ") == 2
    assert "GIVE 2 TO bob" in text[gw7:sf8]
    assert "GIVE 1 TO carol" in text[gw7:sf8]
    assert "SOLO" in text[sf8:]
    assert re.search(r"Orders in: alice\.\s+Still to order: bob, carol\.", text[gw7:sf8])  # STATUS
    assert "@" not in text.split("-- ")[0].replace(SERVICE, "")  # handles, never addresses
    assert "Deadline:" in text
    assert "SOLO <colour>" in text[sf8:]  # HELP inside the sf8 section: that game's orders
    assert answer.message["Auto-Submitted"] == "auto-replied"


def test_press_to_everybody_and_to_one_player_cannot_inject_headers_or_markup(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """Press is relayed under the sender's handle, never the address; private press reaches
    only the named player; CR, LF and U+2028 in the text only break lines of the body, and
    HTML in it is shown as text. It is kept with the round and shown in HISTORY."""
    t, creds = table
    secret = creds["gw7:alice"].secret
    attack = "Hi bob\u2028Bcc: evil@attacker.example\rSubject: pwned\n<script>alert(1)</script>"
    t.send(
        "alice@example.org",
        f"GAME gw7\nPASSWORD {secret}\nPRESS TO bob\n{attack}\nENDPRESS\n"
        "PRESS\nA toast to all & <b>everyone</b>\n",
    )
    mails = t.expect(4)  # bob twice, carol once, alice's one answer
    to_bob = [m for m in mails if m.to == "bob@example.org"]
    to_carol = [m for m in mails if m.to == "carol@example.org"]
    (answer,) = [m for m in mails if m.to == "alice@example.org"]
    assert len(to_bob) == 2
    assert len(to_carol) == 1
    private = next(m for m in to_bob if "Hi bob" in m.text)
    assert private.subject == "[gw7] Press from alice"
    assert private.message["Bcc"] is None
    assert "evil" not in str(private.message["To"]) + str(private.message.get("Cc", ""))
    assert "alice@example.org" not in private.message.as_string()  # never the address
    lines = private.text.splitlines()
    assert "Bcc: evil@attacker.example" in lines  # a line of the body, nothing more
    assert "Subject: pwned" in lines
    assert "<script>" not in private.html
    assert "&lt;script&gt;" in private.html
    assert "Hi bob" not in to_carol[0].text
    assert "&lt;b&gt;everyone&lt;/b&gt;" in to_carol[0].html
    assert "bob" in answer.text
    assert "every player" in answer.text

    t.send("bob@example.org", f"GAME gw7\nPASSWORD {creds['gw7:bob'].secret}\nHISTORY\n")
    history = t.one("History")
    assert "Hi bob" in history.text
    assert "A toast to all" in history.text
    t.send("carol@example.org", f"GAME gw7\nPASSWORD {creds['gw7:carol'].secret}\nHISTORY\n")
    history = t.one("History")
    assert "A toast to all" in history.text
    assert "Hi bob" not in history.text  # private press to bob is not carol's to read
    with Session(t.app.engine) as session:
        kept = session.exec(select(Press)).all()
    assert [(p.round_number, p.recipients) for p in kept] == [(1, ["bob"]), (1, [])]


def test_sissyfight_press_is_public_only_and_strangers_cannot_press(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """docs/rules/sissyfight.md, "Talk": communication must be public, private press is
    refused. A stranger's press is refused before anybody gets it."""
    t, creds = table
    secret = creds["sf8:alice"].secret
    t.send("alice@example.org", f"GAME sf8\nPASSWORD {secret}\nPRESS TO dave\nLet us team up\n")
    refused = t.one("Answer")
    assert "PRESS TO dave" in refused.text
    assert "public" in refused.flat
    t.send("alice@example.org", f"GAME sf8\nPASSWORD {secret}\nPRESS\nI defend, promise\n")
    mails = t.expect(3)
    assert sorted(m.to for m in mails) == [
        "alice@example.org",
        "dave@example.org",
        "erin@example.org",
    ]
    t.send("mallory@elsewhere.example", "GAME sf8\nPRESS\nfake news\n")
    refusal = t.one("not accepted")
    assert refusal.to == "mallory@elsewhere.example"


def test_time_zone_and_password_are_set_by_mail(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """SET TIMEZONE shows deadlines in the player's zone from then on; a zone that does not
    exist is refused and named; SET PASSWORD replaces the password (the old one then fails) and
    is never echoed; nobody sets them without proving the seat."""
    t, creds = table
    secret = creds["gw7:bob"].secret
    t.send(
        "bob@example.org",
        f"GAME gw7\nPASSWORD {secret}\nSET TIMEZONE asia/tokyo\nSET TIMEZONE Mars/Olympus\n"
        "SET PASSWORD short\n",
    )
    answer = t.one("Time zone set")
    assert "Asia/Tokyo" in answer.text
    assert "JST (Asia/Tokyo)" in answer.flat  # the deadline, shown in bob's zone
    assert "Mars/Olympus" in answer.text
    assert "short" not in answer.text  # a password is never echoed, not even a bad one
    t.send("bob@example.org", f"GAME gw7\nPASSWORD {secret}\nSTATUS\n")
    assert "JST (Asia/Tokyo)" in t.one().flat  # STATUS shows the deadline in his zone

    t.send("bob@example.org", f"GAME gw7\nPASSWORD {secret}\nSET PASSWORD Tr0mbone-42\n")
    changed = t.one("Answer")
    assert "Tr0mbone-42" not in changed.text
    assert "changed" in changed.text
    t.send("bob@example.org", f"GAME gw7\nPASSWORD {secret}\nGIVE 3 TO alice\n")
    # the old password no longer works (a wrong password also warns the player: any count)
    assert any("not accepted" in m.subject for m in t.expect())
    t.send("bob@example.org", "GAME gw7\nPASSWORD Tr0mbone-42\nGIVE 3 TO alice\n")
    assert "Orders received" in t.one().subject
    with Session(t.app.engine) as session:
        bob = session.exec(select(Seat).where(Seat.handle == "bob")).one()
    assert bob.secret_hash.startswith("scrypt$")

    t.send("carol@example.org", "GAME gw7\nSET TIMEZONE Europe/Paris\n")  # no password
    assert "not accepted" in t.one().subject
    with Session(t.app.engine) as session:
        carol = session.exec(select(Seat).where(Seat.handle == "carol")).one()
    assert carol.time_zone is None


def test_a_forgotten_password_is_answered_only_at_the_registered_address(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """FORGOT mails the seat's personal reply address to the registered address; a reply to
    that mail needs no password (its orders and STATUS get one answer). Nothing is sent
    anywhere else."""
    t, _ = table
    t.send("Carol <carol@example.org>", "FORGOT")
    mail = t.one("Answer")
    assert mail.to == "carol@example.org"
    personal = re.search(r"judge\+r\d+-[0-9a-f]{16}@pbem\.test", mail.text)
    assert personal is not None
    t.send("carol@example.org", "STATUS\nGIVE 3 TO alice\n", subject="Re: x", to=personal[0])
    answer = t.one("Orders received")  # the orders and STATUS: one answer
    assert answer.to == "carol@example.org"
    assert "GIVE 3 TO alice" in answer.text

    t.send("nobody@elsewhere.example", "I forgot my password\nFORGOT\n")
    none = t.one()
    assert none.to == "nobody@elsewhere.example"
    assert "no seat" in none.flat


def test_resignation_needs_a_confirmation_code_then_everybody_is_told(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """RESIGN alone changes nothing and answers with a code; a wrong code changes nothing;
    RESIGN and the code takes the seat out, and the others and the game master are told."""
    t, creds = table
    secret = creds["gw7:carol"].secret
    t.send("carol@example.org", f"GAME gw7\nPASSWORD {secret}\nRESIGN\n")
    ask = t.one("Answer")
    code = re.search(r"RESIGN ([0-9A-F]{8})", ask.text)
    assert code is not None
    t.send("carol@example.org", f"GAME gw7\nPASSWORD {secret}\nresign 00000000\n")
    assert "still in the game" in t.one().flat
    t.send("carol@example.org", f"GAME gw7\nPASSWORD {secret}\nRESIGN {code[1].lower()}\n")
    mails = t.expect(4)  # alice, bob, the game master, and carol's answer
    told = {m.to: m for m in mails}
    assert set(told) == {
        "alice@example.org",
        "bob@example.org",
        "gm@example.org",
        "carol@example.org",
    }
    assert "carol has resigned" in told["alice@example.org"].subject
    assert "carol has resigned" in told["gm@example.org"].subject
    with Session(t.app.engine) as session:
        carol = session.exec(select(Seat).where(Seat.handle == "carol")).one()
    assert not carol.active
