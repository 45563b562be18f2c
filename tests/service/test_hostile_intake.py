"""Hostile mail at the intake: what one forged or replayed mail can make the service do.

Each test is an attack from the reliability harness (``bench/reliability.py``) that succeeded
once; none may succeed again."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from email import message_from_bytes
from email.utils import format_datetime

import pytest
from playing import clock_of, new_game
from sqlmodel import Session, col, select
from test_intake import creds, make_mail, outbox, stored_orders

from adjudicator.notify.loop_guard import LOOP_ANSWERS
from adjudicator.notify.throttle import (
    ANSWERS_PER_HOUR,
    STRANGER_ANSWERS_PER_HOUR,
    STRANGERS_PER_HOUR,
)
from adjudicator.service import ServiceError
from adjudicator.service.app import App
from adjudicator.service.authentication import MAX_FAILED_LOGINS, SEAT_GUESSES
from adjudicator.service.games import Credentials, PlayerSpec, create_game, find_game
from adjudicator.service.intake import MAX_SECTIONS
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import LoginFailure, OutboxMail, Submission, SubmissionStatus

__all__ = ["creds"]


def test_a_mail_naming_thousands_of_games_gets_a_bounded_answer(
    app: App, creds: dict[str, Credentials]
) -> None:
    """One forged mail with thousands of GAME lines once brought thousands of answers to its forged sender.
    Only the first sections are read, and the mail gets one answer, which says how many were
    left out."""
    body = "\n".join(f"GAME nosuch{i}\nGIVE 1 TO bob" for i in range(2000))
    raw = make_mail(body, sender="victim@example.net", subject="orders")
    app.ingest(raw, channel="pipe")
    [(kind, to, text)] = outbox(app)
    assert (kind, to) == ("answer", "victim@example.net")
    assert text.count("== ") <= MAX_SECTIONS + 1  # a section per game section read, at most
    assert f"{2000 - MAX_SECTIONS} were NOT read" in " ".join(text.split())
    assert "nosuch5" in text  # the first one left out is named
    assert "nosuch1999" not in text  # ... but not every one


def test_a_rejection_lists_a_bounded_number_of_problems(
    app: App, creds: dict[str, Credentials]
) -> None:
    secret = creds["alice"].secret
    body = f"PASSWORD {secret}\n" + "\n".join(f"GIVE 1 TO nobody{i}" for i in range(2000))
    assert app.ingest(make_mail(body), channel="pipe") == SubmissionStatus.REJECTED
    [(kind, _, text)] = outbox(app)
    assert kind == "rejection"
    assert len(text) < 20_000
    assert "more, not listed here" in text


def _with_received(raw: bytes, hop: str) -> bytes:
    """The same mail as one more relay hands it on: one more Received line on top."""
    return f"Received: from {hop} by mx.pbem.test; Mon, 2 Mar 2026 12:00:00 +0000\n".encode() + raw


def test_a_copy_of_a_mail_with_one_more_received_line_is_not_new(
    app: App, creds: dict[str, Credentials]
) -> None:
    """The same Message-ID with one more Received line was processed again, and its older
    orders replaced the newer ones."""
    secret = creds["alice"].secret
    first = make_mail(f"PASSWORD {secret}\nGIVE 3 TO bob")
    newer = make_mail(f"PASSWORD {secret}\nGIVE 3 TO carol")
    assert app.ingest(first, channel="pipe") == SubmissionStatus.ACCEPTED
    assert app.ingest(newer, channel="pipe") == SubmissionStatus.ACCEPTED
    assert app.ingest(_with_received(first, "relay.example.net"), channel="pipe") == (
        SubmissionStatus.IGNORED
    )
    assert stored_orders(app) == [["GIVE 3 TO bob"], ["GIVE 3 TO carol"]]
    assert [kind for kind, _, _ in outbox(app)] == ["confirmation", "confirmation"]


def test_an_order_mail_written_before_the_round_opened_is_not_applied_to_it(
    app: App, creds: dict[str, Credentials]
) -> None:
    """An old order mail (a new Message-ID: resent by a mail program or replayed) arriving
    after its round closed was applied to the next round. Its Date says when it was written:
    before this round opened, so for an earlier one; the player is told and nothing changes."""
    secret = creds["alice"].secret
    opened = app.clock()  # the fixture's game opened round 1 now
    app.clock.advance(hours=1)  # type: ignore[attr-defined]
    old = make_mail(
        f"PASSWORD {secret}\nGIVE 3 TO bob",
        Date=format_datetime(opened - timedelta(days=3)),
    )
    assert app.ingest(old, channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app) == []
    [(kind, to, text)] = outbox(app)
    assert (kind, to) == ("stale", "alice@example.org")
    assert "before round 1 opened" in " ".join(text.split())
    # Written after it opened (or with a clock a minute slow), the same orders count.
    fresh = make_mail(
        f"PASSWORD {secret}\nGIVE 3 TO bob\n", Date=format_datetime(opened - timedelta(minutes=1))
    )
    assert app.ingest(fresh, channel="pipe") == SubmissionStatus.ACCEPTED


def _from_host(raw: bytes, ip: str) -> bytes:
    """The mail as our receiving server got it from the host at ``ip``."""
    return _with_received(raw, f"sender.example.net (sender.example.net [{ip}])")


def test_forged_tries_lock_out_the_forger_not_the_player(
    app: App, creds: dict[str, Credentials]
) -> None:
    """Five forged mails in alice's name once blocked her right password for an hour, and
    each try was answered. Now the forger's source is locked, alice is told once of the wrong
    passwords and once that mail from the locked source was not checked (it might have been
    hers, from a relay she shares with the forger), and her own mail from her own provider
    still counts."""
    forger, provider = "203.0.113.66", "198.51.100.7"
    for attempt in range(MAX_FAILED_LOGINS + 3):
        forged = make_mail(f"PASSWORD guess{attempt}\nGIVE 3 TO bob")
        assert app.ingest(_from_host(forged, forger), channel="pipe") == SubmissionStatus.REJECTED
    assert _refusals(app) == ["wrong password", "password not checked"]
    right = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO carol")
    assert app.ingest(_from_host(right, provider), channel="pipe") == SubmissionStatus.ACCEPTED
    assert stored_orders(app) == [["GIVE 3 TO carol"]]
    # From the locked source even the right password is refused until the lock ends.
    again = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob")
    assert app.ingest(_from_host(again, forger), channel="pipe") == SubmissionStatus.REJECTED


def _refusals(app: App) -> list[str]:
    """The causes, as their subjects name them, of the refusals queued (all to alice)."""
    with Session(app.engine) as session:
        mails = session.exec(select(OutboxMail).order_by(col(OutboxMail.id))).all()
    assert {(m.kind, m.recipient) for m in mails} <= {("refusal", "alice@example.org")}
    return [
        str(message_from_bytes(m.message)["Subject"]).partition("not accepted: ")[2] for m in mails
    ]


def test_guesses_from_many_hosts_are_bounded_and_told_once(
    app: App, creds: dict[str, Credentials]
) -> None:
    """A botnet once guessed alice's password MAX_FAILED_LOGINS - 1 times from each host
    without any lockout, every guess checked, and alice got a refusal from each host. Now the
    seat takes SEAT_GUESSES wrong passwords an hour from all hosts together: after that even
    the right password is not checked until the hour ends, the reply address still works,
    and alice is told once of the wrong passwords, once that passwords are not checked."""
    hosts = 2 * SEAT_GUESSES // (MAX_FAILED_LOGINS - 1) + 1
    for host in range(hosts):
        for attempt in range(MAX_FAILED_LOGINS - 1):
            forged = make_mail(f"PASSWORD guess{host}x{attempt}\nGIVE 3 TO bob")
            app.ingest(_from_host(forged, f"203.0.113.{host}"), channel="pipe")
    assert _refusals(app) == ["wrong password", "password not checked"]
    with Session(app.engine) as session:
        assert sum(f.failures for f in session.exec(select(LoginFailure))) == SEAT_GUESSES
    right = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO carol")
    assert app.ingest(_from_host(right, "198.51.100.7"), channel="pipe") == (
        SubmissionStatus.REJECTED
    )
    replied = make_mail("GIVE 3 TO carol", to=f"judge+{creds['alice'].reply_token}@pbem.test")
    assert app.ingest(replied, channel="pipe") == SubmissionStatus.ACCEPTED
    clock_of(app).advance(hours=1, minutes=1)
    later = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob")
    assert app.ingest(_from_host(later, "198.51.100.7"), channel="pipe") == (
        SubmissionStatus.ACCEPTED
    )
    assert stored_orders(app) == [["GIVE 3 TO carol"], ["GIVE 3 TO bob"]]


def test_answers_to_commands_count_towards_all_strangers_and_leave_a_reason(app: App) -> None:
    """Answers to a mail's commands (HELP) were not counted by the limit of all addresses
    without a seat together: forged HELP from many addresses got an answer each
    (backscatter). And a mail whose answer the limits held back kept no word of why."""
    for n in range(STRANGERS_PER_HOUR + 2):
        raw = make_mail("HELP", sender=f"s{n}@example.net", subject="help")
        app.ingest(raw, channel="pipe")
    answered = [to for kind, to, _ in outbox(app) if kind == "answer"]
    assert len(answered) == STRANGERS_PER_HOUR
    with Session(app.engine) as session:
        last = session.exec(select(Submission).order_by(col(Submission.id).desc())).first()
    assert last is not None
    assert "held back" in (last.note or "")


def test_a_missing_password_is_named_as_the_cause(app: App, creds: dict[str, Credentials]) -> None:
    assert app.ingest(make_mail("GIVE 3 TO bob"), channel="pipe") == SubmissionStatus.REJECTED
    [(kind, _, text)] = outbox(app)
    assert kind == "refusal"
    assert "had no password line" in " ".join(text.split())


def test_the_registered_address_is_matched_in_any_case(
    app: App, creds: dict[str, Credentials]
) -> None:
    """``Alice@Example.org`` was refused for the registered ``alice@example.org``."""
    raw = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob", sender="Alice@Example.ORG")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED


def test_forged_mail_from_many_addresses_gets_few_answers(
    app: App, creds: dict[str, Credentials]
) -> None:
    """400 of 400 forged mails were answered, one victim many times over."""
    for number in range(40):
        raw = make_mail(f"GIVE 3 TO bob {number}", sender="victim@example.net")
        app.ingest(raw, channel="pipe")
    assert len(outbox(app)) == STRANGER_ANSWERS_PER_HOUR
    app.clock.advance(hours=1, minutes=1)  # type: ignore[attr-defined]
    app.ingest(make_mail("GIVE 3 TO bob again", sender="victim@example.net"), channel="pipe")
    assert len(outbox(app)) == STRANGER_ANSWERS_PER_HOUR + 1


def test_forged_mail_read_in_one_batch_gets_as_few_answers(
    app: App, creds: dict[str, Credentials]
) -> None:
    """The same flood read from the mailbox at once: a batch holds its answers back to queue
    them together, and the answers it holds count as queued."""
    raws = [make_mail(f"GIVE 3 TO bob {n}", sender="victim@example.net") for n in range(40)]
    app.ingest_batch(raws, channel="imap")
    assert len(outbox(app)) == STRANGER_ANSWERS_PER_HOUR


def test_a_robot_answering_our_answers_is_not_answered_for_ever(
    app: App, creds: dict[str, Credentials]
) -> None:
    """A naive auto-responder without auto-reply headers, at a player's address, answers every
    answer of ours; each of its mails replies to our last one. Its first mail replies to none
    of ours; of its replies, those after ``LOOP_ANSWERS`` in ten minutes are not answered, and
    the address is told so once."""
    last = "<first@example.org>"
    for number in range(30):
        raw = make_mail(
            f"I am away until Monday. ({number})",
            subject="Re: [gw1] Mail not accepted",
            In_Reply_To=last,
        )
        app.ingest(raw, channel="pipe")
        app.clock.advance(seconds=20)  # type: ignore[attr-defined]
        with Session(app.engine) as session:
            newest = session.exec(select(OutboxMail).order_by(col(OutboxMail.id).desc())).first()
            assert newest is not None
            last = message_from_bytes(newest.message)["Message-ID"]
    kinds = Counter(kind for kind, _, _ in outbox(app))
    assert kinds == {"refusal": 1 + LOOP_ANSWERS, "held_back": 1}


@pytest.mark.parametrize(
    "subject",
    [
        "Automatische Antwort: [gw1] orders",
        "Réponse automatique : [gw1] orders",
        "Respuesta automática: [gw1] orders",
        "Risposta automatica: [gw1] orders",
        "Automatisch antwoord: [gw1] orders",
        "Resposta automática: [gw1] orders",
        "Autosvar: [gw1] orders",
        "Automatisk svar: [gw1] orders",
        "Fravær: [gw1] orders",
        "Automaattinen vastaus: [gw1] orders",
        "Automatyczna odpowiedź: [gw1] orders",
        "Автоматический ответ: [gw1] orders",
        "自動応答: [gw1] orders",
        "自动回复: [gw1] orders",
    ],
)
def test_vacation_notices_in_many_languages_are_not_answered(
    app: App, creds: dict[str, Credentials], subject: str
) -> None:
    """Nine of fourteen such subjects were answered; the mails carry no auto-reply header,
    and the subject is RFC 2047 encoded as real mail programs send it."""
    raw = make_mail("I am away.", subject=subject, sender="dave@example.net")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.IGNORED
    assert outbox(app) == []


def test_a_dkim_or_spf_pass_counts_only_for_the_from_domain(
    app: App, creds: dict[str, Credentials]
) -> None:
    """``require_auth`` took a DKIM or SPF pass of any domain: a forger signs their own mail
    and writes the player's address in From."""
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        game.settings = {"require_auth": ["dkim", "spf"]}
        session.add(game)
    secret = creds["alice"].secret
    forged = make_mail(
        f"PASSWORD {secret}\nGIVE 3 TO bob",
        Authentication_Results=(
            "mx.pbem.test; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=x@evil.example"
        ),
    )
    assert app.ingest(forged, channel="pipe") == SubmissionStatus.REJECTED
    genuine = make_mail(
        f"PASSWORD {secret}\nGIVE 3 TO carol",
        Authentication_Results=(
            "mx.pbem.test; dkim=pass header.d=mail.example.org;"
            " spf=pass smtp.mailfrom=alice@example.org"
        ),
    )
    assert app.ingest(genuine, channel="pipe") == SubmissionStatus.ACCEPTED


@pytest.mark.parametrize(
    "header",
    [
        "<a\x00b@example.org>",
        "<a\x0cb@example.org>",
        "<a\u2028b@example.org>",
        "<" + "x" * 5000 + "@example.org>",
    ],
)
def test_hostile_message_ids_never_reach_our_headers(
    app: App, creds: dict[str, Credentials], header: str
) -> None:
    """NUL, form feed, U+2028 and a 5,029-byte line reached In-Reply-To and References."""
    raw = make_mail("GIVE 3 TO bob", sender="dave@example.net").replace(
        b"Message-ID:", f"In-Reply-To: {header}\nReferences: {header}\nMessage-ID:".encode(), 1
    )
    app.ingest(raw, channel="pipe")
    with Session(app.engine) as session:
        [answer] = session.exec(select(OutboxMail)).all()
    head = answer.message.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    assert max(len(line) for line in head.split(b"\n")) <= 998
    for bad in (b"\x00", b"\x0c", "\u2028".encode(), b"x" * 100):
        assert bad not in head


def test_a_sender_address_that_could_break_the_envelope_is_not_answered(
    app: App, creds: dict[str, Credentials]
) -> None:
    """``root>x@evil.example`` became ``RCPT TO:<root>``."""
    raw = make_mail("GIVE 3 TO bob", sender="root>x@evil.example")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.IGNORED
    assert outbox(app) == []


@pytest.mark.parametrize(
    "address", ["root>x@evil.example", "gm@example.org\nBcc: all@example.net", "not an address"]
)
def test_a_game_master_address_is_checked_when_given(app: App, address: str) -> None:
    with session_scope(app.engine) as session, pytest.raises(ServiceError, match="mail address"):
        create_game(
            session,
            name="gw9",
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("a", "b", "c")],
            options={},
            gm_address=address,
            now=app.clock(),
        )


def _seed(app: App) -> dict[str, Credentials]:
    return new_game(app, ["alice", "bob", "carol"], settings={"early_close": False})


def test_the_limits_hold_on_postgresql(pg_app: App) -> None:
    """The same counts on PostgreSQL: answers to strangers (to HELP and refusals in one
    budget), tries per source (an IPv6 host by its /64), the not-checked notice, replays."""
    credentials = _seed(pg_app)
    for number in range(2):
        help_mail = make_mail("HELP", sender="v@example.net", subject=f"help {number}")
        pg_app.ingest(help_mail, channel="t")
    for number in range(10):
        pg_app.ingest(make_mail(f"GIVE 3 TO bob {number}", sender="v@example.net"), channel="t")
    assert len([m for m in outbox(pg_app) if m[1] == "v@example.net"]) == (
        STRANGER_ANSWERS_PER_HOUR
    )
    for attempt in range(MAX_FAILED_LOGINS + 1):
        forged = make_mail(f"PASSWORD guess{attempt}\nGIVE 3 TO bob")
        pg_app.ingest(_from_host(forged, f"IPv6:2001:db8::{attempt + 1}"), channel="t")
    assert [m[0] for m in outbox(pg_app) if m[1] == "alice@example.org"] == [
        "refusal",
        "refusal",
    ]
    right = make_mail(f"PASSWORD {credentials['alice'].secret}\nGIVE 3 TO carol")
    assert pg_app.ingest(_from_host(right, "198.51.100.7"), channel="t") == (
        SubmissionStatus.ACCEPTED
    )
    again = _with_received(right, "relay.example.net")
    assert pg_app.ingest(again, channel="t") == SubmissionStatus.IGNORED


def test_a_player_is_confirmed_every_order_mail_however_many(
    app: App, creds: dict[str, Credentials]
) -> None:
    """The answer limits are for mail that proves nothing; a proven seat's confirmations
    cannot be forged in bulk and are never held back."""
    secret = creds["alice"].secret
    for number in range(ANSWERS_PER_HOUR + 5):
        other = ("bob", "carol")[number % 2]
        app.ingest(make_mail(f"PASSWORD {secret}\nGIVE 3 TO {other}\n{number}"), channel="t")
    kinds = Counter(kind for kind, _, _ in outbox(app))
    assert kinds["confirmation"] == ANSWERS_PER_HOUR + 5


def test_a_processed_mail_keeps_no_password_and_a_redelivery_is_still_a_copy(
    app: App, creds: dict[str, Credentials]
) -> None:
    """Secrets at rest: a PASSWORD line and a SET PASSWORD line stayed in the stored mail, so
    the database (or a backup of it) held the players' passwords in clear. Once processed, the
    stored bytes hold neither; the bytes received are still recognised when delivered again."""
    secret = creds["alice"].secret
    raw = make_mail(f"PASSWORD {secret}\nSET PASSWORD tulip-river-42\nGIVE 3 TO bob\n")
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    assert stored_orders(app) == [["GIVE 3 TO bob"]]
    with Session(app.engine) as session:
        [stored] = session.exec(select(Submission)).all()
    assert secret.encode() not in stored.raw
    assert b"tulip-river-42" not in stored.raw
    assert b"GIVE 3 TO bob" in stored.raw  # the rest is the mail as received
    assert app.ingest(raw, channel="pipe") is None  # a re-delivery: a copy, not a new mail
    again = make_mail("PASSWORD tulip-river-42\nGIVE 2 TO bob\nGIVE 1 TO carol\n")
    assert app.ingest(again, channel="pipe") == SubmissionStatus.ACCEPTED  # the new one holds


def test_a_processed_mail_keeps_no_personal_reply_address(
    app: App, creds: dict[str, Credentials]
) -> None:
    """A mail to a player's personal reply address proves the seat by that address alone: the
    stored copy keeps the address without its tag, in every header and quote that held it."""
    token = creds["bob"].reply_token
    personal = f"judge+{token}@pbem.test"
    raw = make_mail(
        f"GIVE 3 TO carol\n\nOn Monday the judge <{personal}> wrote:\n> Welcome\n",
        sender="bob@example.org",
        to=personal,
        Delivered_To=personal,
    )
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    with Session(app.engine) as session:
        [stored] = session.exec(select(Submission)).all()
    assert token.encode() not in stored.raw
    assert b"To: judge+" in stored.raw  # the header is there, its tag starred
    assert app.ingest(raw, channel="pipe") is None  # a re-delivery is still a copy
