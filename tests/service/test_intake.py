"""Mail intake at the use-case level: stored before processed, never applied twice, never for
someone else, and always answered (or, for robots, never answered)."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from sqlmodel import Session, select

from adjudicator.service.app import App
from adjudicator.service.authentication import MAX_FAILED_LOGINS
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.intake import store_raw
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import (
    Game,
    OrderSet,
    OutboxMail,
    Round,
    Submission,
    SubmissionStatus,
)

PLAYERS = ["alice", "bob", "carol"]


def make_mail(
    body: str,
    *,
    sender: str = "alice@example.org",
    subject: str = "[gw1] orders",
    to: str = "judge@pbem.test",
    **headers: str,
) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = f"<{abs(hash((body, sender, subject, to)))}@example.org>"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message.as_bytes()


@pytest.fixture
def creds(app: App) -> dict[str, Credentials]:
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="gw1",
            kind="giveaway",
            time_zone="Europe/London",
            schedule="72h",
            settings={"early_close": False},  # the round stays open: intake is tested here
            players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
            options={},
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())
        session.exec(select(OutboxMail)).all()
    with session_scope(app.engine) as session:  # forget the welcome mails: not tested here
        for mail in session.exec(select(OutboxMail)):
            session.delete(mail)
    return {c.handle: c for c in credentials}


def outbox(app: App) -> list[tuple[str, str, str]]:
    """(kind, recipient, text) of every queued mail, oldest first."""
    with Session(app.engine) as session:
        mails = session.exec(select(OutboxMail).order_by(OutboxMail.id)).all()  # type: ignore[arg-type]
        out = []
        for mail in mails:
            parsed = message_from_bytes(mail.message, policy=policy.default)
            body = parsed.get_body(preferencelist=("plain",))
            assert body is not None
            out.append((mail.kind, mail.recipient, body.get_content()))
        return out


def stored_orders(app: App) -> list[list[str]]:
    with Session(app.engine) as session:
        return [o.lines for o in session.exec(select(OrderSet).order_by(OrderSet.id))]  # type: ignore[arg-type]


def test_valid_orders_are_stored_canonically_and_confirmed(
    app: App, creds: dict[str, Credentials]
) -> None:
    raw = make_mail(f"Hi!\n\npassword {creds['alice'].secret}\ngive 2 to Bob\n- give 1 to carol.\n")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    assert stored_orders(app) == [["GIVE 2 TO bob", "GIVE 1 TO carol"]]
    [(kind, to, text)] = outbox(app)
    assert (kind, to) == ("confirmation", "alice@example.org")
    assert "GIVE 2 TO bob" in text
    assert "GIVE 1 TO carol" in text
    assert "Hi!" in text  # listed back as not read
    assert "Receipt: " in text
    # The deadline is given in the game's time zone: 72 h after 2 March 12:00 UTC is
    # Thursday 5 March, 12:00 GMT in London.
    assert "Thursday 05 March 2026, 12:00 GMT (Europe/London)" in text
    assert creds["alice"].secret not in text


def test_replacing_orders_keeps_the_last_valid_set_and_says_what_it_replaced(
    app: App, creds: dict[str, Credentials]
) -> None:
    secret = creds["alice"].secret
    app.ingest(make_mail(f"PASSWORD {secret}\nGIVE 3 TO bob"), channel="pipe")
    app.ingest(make_mail(f"PASSWORD {secret}\nGIVE 3 TO carol"), channel="pipe")
    assert stored_orders(app) == [["GIVE 3 TO bob"], ["GIVE 3 TO carol"]]
    text = outbox(app)[-1][2]
    assert "They replace your earlier orders" in text
    assert "GIVE 3 TO bob" in text


def test_bad_orders_are_not_applied_and_every_bad_line_is_named(
    app: App, creds: dict[str, Credentials]
) -> None:
    secret = creds["alice"].secret
    app.ingest(make_mail(f"PASSWORD {secret}\nGIVE 3 TO bob"), channel="pipe")
    raw = make_mail(f"PASSWORD {secret}\nGIVE 2 TO bobb\nGIVE 2 TO alice\n")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app) == [["GIVE 3 TO bob"]]  # the earlier orders stay in force
    kind, _, text = outbox(app)[-1]
    assert kind == "rejection"
    assert "GIVE 2 TO bobb" in text
    assert "bob" in text.split("GIVE 2 TO bobb", 1)[1]  # a suggestion follows
    assert "GIVE 2 TO alice" in text
    assert "stay in force" in text


def test_the_same_message_delivered_twice_is_applied_once(
    app: App, creds: dict[str, Credentials]
) -> None:
    raw = make_mail(f"PASSWORD {creds['bob'].secret}\nGIVE 3 TO alice", sender="bob@example.org")
    assert app.ingest(raw, channel="imap") == SubmissionStatus.ACCEPTED
    assert app.ingest(raw, channel="imap") is None
    assert app.ingest(raw, channel="maildir") is None
    assert stored_orders(app) == [["GIVE 3 TO alice"]]
    assert len(outbox(app)) == 1


def test_a_crash_after_storing_loses_nothing_and_repeats_nothing(
    app: App, creds: dict[str, Credentials]
) -> None:
    """The raw mail is committed first; a process that dies before processing it leaves it
    'received', and the restart processes it exactly once."""
    raw = make_mail(f"PASSWORD {creds['bob'].secret}\nGIVE 3 TO alice", sender="bob@example.org")
    with session_scope(app.engine) as session:
        assert store_raw(session, raw, channel="pipe", now=app.clock()) is not None
    # ... the process dies here ...
    assert app.process_pending() == 1
    assert app.process_pending() == 0
    assert stored_orders(app) == [["GIVE 3 TO alice"]]
    assert len(outbox(app)) == 1


def test_the_from_header_alone_is_not_trusted(app: App, creds: dict[str, Credentials]) -> None:
    """Mail from alice's address without her password is refused, and refused in words that
    reveal nothing about the game's players."""
    assert app.ingest(make_mail("GIVE 3 TO bob"), channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app) == []
    [(kind, to, text)] = outbox(app)
    assert (kind, to) == ("refusal", "alice@example.org")
    assert "alice" not in text.lower().replace("alice@example.org", "")


def test_a_wrong_password_is_refused_and_the_real_player_told(
    app: App, creds: dict[str, Credentials]
) -> None:
    """One mail per refusal (two once came: a refusal and a warning, to the same address),
    saying the password was wrong and what to do if it was not the player who wrote."""
    raw = make_mail("PASSWORD guessed\nGIVE 3 TO bob")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.REJECTED
    [(kind, to, text)] = outbox(app)
    assert (kind, to) == ("refusal", "alice@example.org")
    assert "wrong password" in " ".join(text.split())
    assert "If it was not you" in text
    assert stored_orders(app) == []


def test_a_right_password_from_another_address_is_refused(
    app: App, creds: dict[str, Credentials]
) -> None:
    raw = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob", sender="eve@evil.test")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app) == []
    [(kind, to, text)] = outbox(app)
    assert (kind, to) == ("refusal", "eve@evil.test")
    assert "has no seat in that game" in " ".join(text.split())


def test_repeated_failures_are_rate_limited(app: App, creds: dict[str, Credentials]) -> None:
    for attempt in range(MAX_FAILED_LOGINS):
        app.ingest(make_mail(f"PASSWORD wrong{attempt}\nGIVE 3 TO bob"), channel="pipe")
    before = len(outbox(app))
    # Locked now: even the right password is refused; the player is told once that it was
    # not checked (it may have been his own), and how to get in all the same.
    for attempt in range(2):
        raw = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob\n{'x' * attempt}")
        assert app.ingest(raw, channel="pipe") == SubmissionStatus.REJECTED
    [(kind, to, text)] = outbox(app)[before:]
    assert (kind, to) == ("refusal", "alice@example.org")
    assert "without its password being checked" in " ".join(text.split())
    assert stored_orders(app) == []
    # After the lock the right password works again.
    app.clock.advance(hours=2)  # type: ignore[attr-defined]
    raw = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO carol")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED


def test_the_reply_token_address_authenticates_without_password(
    app: App, creds: dict[str, Credentials]
) -> None:
    token = creds["carol"].reply_token
    raw = make_mail(
        "GIVE 3 TO alice",
        sender="carol.at.work@example.com",
        subject="orders",
        to=f"judge+{token}@pbem.test",
    )
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    assert stored_orders(app) == [["GIVE 3 TO alice"]]
    # The confirmation goes to the registered address, not to whoever wrote.
    assert outbox(app)[0][1] == "carol@example.org"


def test_orders_after_the_deadline_are_refused_as_late(
    app: App, creds: dict[str, Credentials]
) -> None:
    app.clock.advance(hours=73)  # type: ignore[attr-defined]
    raw = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app) == []
    assert outbox(app)[0][0] == "late"


def _set_settings(app: App, **settings: object) -> None:
    with session_scope(app.engine) as session:
        game = session.exec(select(Game)).one()
        game.settings = settings
        session.add(game)


def test_the_last_orders_in_close_the_round_early(app: App, creds: dict[str, Credentials]) -> None:
    _set_settings(app)  # the default for a game with a 72h schedule: early close on
    gifts = {"alice": "bob", "bob": "carol", "carol": "alice"}
    for handle, to in gifts.items():
        raw = make_mail(
            f"PASSWORD {creds[handle].secret}\nGIVE 3 TO {to}", sender=f"{handle}@example.org"
        )
        assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    kinds = [kind for kind, _, _ in outbox(app)]
    assert kinds == ["confirmation"] * 3 + ["result"] * 3  # closed on carol's orders
    with Session(app.engine) as session:
        assert session.exec(select(Round).where(Round.number == 1)).one().state == "reported"


def test_orders_in_the_grace_period_count(app: App, creds: dict[str, Credentials]) -> None:
    _set_settings(app, early_close=False, grace="6h")
    app.clock.advance(hours=75)  # type: ignore[attr-defined]  # 3 h into the grace period
    raw = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    app.clock.advance(hours=3)  # type: ignore[attr-defined]  # the grace period is over
    raw = make_mail(f"PASSWORD {creds['bob'].secret}\nGIVE 3 TO carol", sender="bob@example.org")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.REJECTED
    assert [kind for kind, _, _ in outbox(app)] == ["confirmation", "late"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto_Submitted": "auto-replied"},
        {"Precedence": "bulk"},
        {"X_Loop": "judge@pbem.test"},
        {"Return_Path": "<>", "sender": "MAILER-DAEMON@mx.example.org"},
    ],
    ids=["auto-submitted", "precedence", "x-loop", "bounce"],
)
def test_robots_are_logged_and_never_answered(
    app: App, creds: dict[str, Credentials], headers: dict[str, str]
) -> None:
    raw = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob", **headers)
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.IGNORED
    assert outbox(app) == []
    assert stored_orders(app) == []


def test_mail_from_the_service_itself_is_ignored(app: App, creds: dict[str, Credentials]) -> None:
    raw = make_mail("GIVE 3 TO bob", sender="judge@pbem.test")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.IGNORED
    assert outbox(app) == []


def test_a_mail_without_a_game_is_answered_with_how_to_name_one(
    app: App, creds: dict[str, Credentials]
) -> None:
    raw = make_mail("GIVE 3 TO bob", subject="my orders", sender="stranger@example.net")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.REJECTED
    [(kind, _, text)] = outbox(app)
    assert kind == "no_game"
    assert "does not say which game" in text
    assert "in the subject" in text
    assert "GAME " in text


def test_one_mail_may_carry_orders_for_several_games(
    app: App, creds: dict[str, Credentials]
) -> None:
    with session_scope(app.engine) as session:
        game, second = create_game(
            session,
            name="duel",
            kind="starship-combat",
            options={},
            players=[PlayerSpec("alice", "alice@example.org"), PlayerSpec("zed", "z@example.org")],
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())
    body = (
        f"GAME gw1\nPASSWORD {creds['alice'].secret}\nGIVE 3 TO bob\n\n"
        f"GAME duel\nPASSWORD {second[0].secret}\nfire and shield\n"
    )
    assert app.ingest(make_mail(body, subject="orders"), channel="pipe") == (
        SubmissionStatus.ACCEPTED
    )
    assert stored_orders(app) == [["GIVE 3 TO bob"], ["FIRE SHIELD"]]
    # One answer to the one mail: both confirmations in it, in the order of the sections.
    answers = [(k, to, t) for k, to, t in outbox(app) if k != "welcome"]
    assert [(k, to) for k, to, _ in answers] == [("answer", "alice@example.org")]
    text = answers[0][2]
    gw1 = text.index("your orders for game gw1, round 1, are stored as:".capitalize())
    duel = text.index("Your orders for game duel, round 1, are stored as:")
    assert gw1 < duel
    assert "GIVE 3 TO bob" in text[gw1:duel]
    assert "FIRE SHIELD" in text[duel:]
    assert text.count("Receipt: ") == 2


def test_a_game_may_require_verified_mail(app: App, creds: dict[str, Credentials]) -> None:
    from adjudicator.service.games import find_game

    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        game.settings = {"require_auth": ["dkim"]}
        session.add(game)
    secret = creds["alice"].secret
    unsigned = make_mail(f"PASSWORD {secret}\nGIVE 3 TO bob")
    assert app.ingest(unsigned, channel="pipe") == SubmissionStatus.REJECTED
    signed = make_mail(
        f"PASSWORD {secret}\nGIVE 3 TO carol",
        Authentication_Results=(
            "mx.pbem.test; dkim=pass header.d=example.org; spf=pass; dmarc=pass"
        ),
    )
    assert app.ingest(signed, channel="pipe") == SubmissionStatus.ACCEPTED
    with Session(app.engine) as session:
        stored = session.exec(select(Submission).order_by(Submission.id)).all()  # type: ignore[arg-type]
        assert stored[-1].auth_results is not None
        assert "dkim=pass" in stored[-1].auth_results


def test_a_greeting_above_the_game_lines_is_not_a_section_of_its_own(
    app: App, creds: dict[str, Credentials]
) -> None:
    """Only the confirmation is sent: no refusal for the greeting before GAME."""
    body = f"Hi judge,\n\nGAME gw1\nPASSWORD {creds['alice'].secret}\nGIVE 3 TO bob\n"
    assert app.ingest(make_mail(body, subject="orders"), channel="pipe") == (
        SubmissionStatus.ACCEPTED
    )
    assert [kind for kind, _, _ in outbox(app)] == ["confirmation"]


def test_a_command_that_needs_no_seat_is_answered_to_a_stranger(
    app: App, creds: dict[str, Credentials], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dispatcher proves a seat only for commands that need one: a command without that
    need (a new one: one spec and one handler) reaches its handler from an unknown sender,
    with no password and no refusal; mixed with orders, the seat is proven as before for the
    orders, and the command is still answered (it needed no proof)."""
    from collections.abc import Sequence
    from dataclasses import dataclass

    from adjudicator.mail import command_specs, commands
    from adjudicator.mail.command_types import CommandSpec
    from adjudicator.mail.parse import SectionLine
    from adjudicator.service import command_handlers
    from adjudicator.service.handling import SectionHandling

    @dataclass(frozen=True)
    class Ping(commands.Command):
        pass

    def read_ping(text: str, line: SectionLine) -> list[commands.Command] | None:
        return [Ping()] if text.lower() == "ping" else None

    answered: list[str | None] = []

    def pong(
        handling: SectionHandling,
        found: Sequence[commands.Command],
        problems: Sequence[commands.CommandProblem],
    ) -> bool:
        answered.append(handling.sender)
        return True

    spec = CommandSpec(Ping, read_ping, needs_seat=False, answers=("answer/help",))
    handles = command_handlers.Handles((Ping,), SectionHandling, pong)
    monkeypatch.setattr(command_specs, "SPECS", (*command_specs.SPECS, spec))
    monkeypatch.setattr(command_handlers, "HANDLERS", (*command_handlers.HANDLERS, handles))
    stranger = make_mail("ping", sender="stranger@elsewhere.example")
    assert app.ingest(stranger, channel="pipe") == SubmissionStatus.ACCEPTED
    assert answered == ["stranger@elsewhere.example"]
    assert outbox(app) == []  # no refusal: nothing needed proving
    mixed = make_mail("ping\nGIVE 3 TO bob", sender="stranger@elsewhere.example")
    assert app.ingest(mixed, channel="pipe") == SubmissionStatus.REJECTED
    assert answered == ["stranger@elsewhere.example"] * 2
    assert [kind for kind, _, _ in outbox(app)] == ["refusal"]  # the orders needed a seat


def test_a_reply_to_any_mail_of_the_service_reaches_the_seat(
    app: App, creds: dict[str, Credentials]
) -> None:
    """Every mail to a player carries the seat's reply address (Reply-To): answering a
    confirmation from any address, with no password, gives orders for that seat. The address
    is bound to the seat's current reply token: once the seat is handed to someone else, the
    old player's replies are refused, and a forged code never works."""
    first = make_mail(f"password {creds['alice'].secret}\ngive 3 to bob")
    assert app.ingest(first, channel="pipe") == SubmissionStatus.ACCEPTED
    with Session(app.engine) as session:
        mail = session.exec(select(OutboxMail).where(OutboxMail.kind == "confirmation")).one()
    reply_to = str(message_from_bytes(mail.message, policy=policy.default)["Reply-To"])
    assert reply_to.startswith("judge+r")
    assert reply_to.endswith("@pbem.test")
    answer = make_mail(
        "GIVE 3 TO carol", sender="alice@phone.example", subject="Re: x", to=reply_to
    )
    assert app.ingest(answer, channel="pipe") == SubmissionStatus.ACCEPTED
    assert stored_orders(app)[-1] == ["GIVE 3 TO carol"]

    local, _, domain = reply_to.partition("@")
    mac = local.rsplit("-", 1)[1]
    forged = f"{local[: -len(mac)]}{'f' * 16 if mac != 'f' * 16 else '0' * 16}@{domain}"
    wrong = make_mail("GIVE 3 TO bob", sender="alice@phone.example", subject="x", to=forged)
    assert app.ingest(wrong, channel="pipe") == SubmissionStatus.REJECTED

    from adjudicator.service import gm
    from adjudicator.service.games import find_game

    with session_scope(app.engine) as session:
        gm.replace_player(
            session, find_game(session, "gw1"), "alice", "amy@example.org", ctx=app.ctx,
            now=app.clock(),
        )  # fmt: skip
    late = make_mail("GIVE 3 TO bob", sender="alice@phone.example", subject="Re: y", to=reply_to)
    assert app.ingest(late, channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app)[-1] == ["GIVE 3 TO carol"]
