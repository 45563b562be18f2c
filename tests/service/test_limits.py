"""What README.md promises about limits ("What one mail can make the service do is bounded"),
mail in and mail out through the service: the gaps an attacker found in them (IPv6 hosts
counted as many, two answer budgets per address, Dates in ``-0000``, vacation subjects), and
the promises no other test held. The other promises are tested in ``test_hostile_intake.py``
(named in each docstring here where they are)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from email import message_from_bytes
from email.utils import formatdate

import pytest
from playing import clock_of
from sqlmodel import Session, col, select
from test_intake import creds, make_mail, outbox, stored_orders

from adjudicator.notify.throttle import ANSWERS_PER_HOUR, STRANGER_ANSWERS_PER_HOUR
from adjudicator.service.app import App
from adjudicator.service.authentication import MAX_FAILED_LOGINS, SEAT_GUESSES
from adjudicator.service.games import Credentials
from adjudicator.storage.models import OutboxMail, Submission, SubmissionStatus

__all__ = ["creds"]


def _from_host(raw: bytes, address: str) -> bytes:
    """The mail as our receiving server got it from the host at ``address`` (Postfix writes an
    IPv6 address as ``[IPv6:...]``)."""
    literal = f"IPv6:{address}" if ":" in address else address
    hop = f"Received: from mail.example.net (mail.example.net [{literal}]) by mx.pbem.test"
    return f"{hop} with ESMTPS id A1; Mon, 2 Mar 2026 12:00:00 +0000\n".encode() + raw


def _subjects(app: App, to: str) -> list[str]:
    with Session(app.engine) as session:
        mails = session.exec(
            select(OutboxMail).where(OutboxMail.recipient == to).order_by(col(OutboxMail.id))
        ).all()
    return [str(message_from_bytes(m.message)["Subject"]) for m in mails]


def _note(app: App, body_part: str) -> str:
    """The note of the newest submission whose stored text holds ``body_part``."""
    with Session(app.engine) as session:
        for submission in session.exec(select(Submission).order_by(col(Submission.id).desc())):
            if body_part.encode() in submission.raw:
                return submission.note or ""
    raise AssertionError(f"no submission holds {body_part!r}")


# --- wrong passwords: per sending host, an IPv6 host by its /64 ------------------------------


def test_the_addresses_of_one_ipv6_network_are_one_host(
    app: App, creds: dict[str, Credentials]
) -> None:
    """README: "five from one host lock that host out for an hour and the real player ... is
    not locked out". A host with an IPv6 /64 (any rented server) counted as 2**64 hosts: four
    of its addresses, five wrong passwords each, reached the seat's limit of 20, and alice's
    right password from her own relay was neither applied nor answered. Its addresses are
    one host: it is locked after five, and alice's mail counts."""
    for host in range(1, 5):
        for attempt in range(MAX_FAILED_LOGINS):
            forged = make_mail(f"PASSWORD wrong{host}x{attempt}\nGIVE 3 TO bob")
            assert app.ingest(_from_host(forged, f"2001:db8:66:1::{host}"), channel="pipe") == (
                SubmissionStatus.REJECTED
            )
    right = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO carol")
    assert app.ingest(_from_host(right, "198.51.100.20"), channel="pipe") == (
        SubmissionStatus.ACCEPTED
    )
    assert stored_orders(app) == [["GIVE 3 TO carol"]]
    assert ("confirmation", "alice@example.org") in [(kind, to) for kind, to, _ in outbox(app)]


def test_ipv6_networks_apart_are_hosts_apart(app: App, creds: dict[str, Credentials]) -> None:
    """Two /64s are two hosts (two customers of a provider): the lock of one leaves the
    other's mail checked; an IPv4 address written as IPv6 (``::ffff:``) is that IPv4 host."""
    for attempt in range(MAX_FAILED_LOGINS):
        forged = make_mail(f"PASSWORD wrong{attempt}\nGIVE 3 TO bob")
        app.ingest(_from_host(forged, "2001:db8:66:1::1"), channel="pipe")
    right = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO carol")
    assert app.ingest(_from_host(right, "2001:db8:66:2::1"), channel="pipe") == (
        SubmissionStatus.ACCEPTED
    )
    for attempt in range(MAX_FAILED_LOGINS):
        forged = make_mail(f"PASSWORD other{attempt}\nGIVE 3 TO bob")
        app.ingest(_from_host(forged, "203.0.113.9"), channel="pipe")
    mapped = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob")
    assert app.ingest(_from_host(mapped, "::ffff:203.0.113.9"), channel="pipe") == (
        SubmissionStatus.REJECTED
    )
    assert "source locked" in _note(app, "GIVE 3 TO bob\n")


def test_a_right_password_refused_during_the_seats_limit_is_told_once(
    app: App, creds: dict[str, Credentials]
) -> None:
    """README: "from many hosts together a seat takes 20 wrong passwords an hour, after which
    no password for it is checked until the hour ends (replies to the service's mails still
    work)". alice's own right password was then dropped with no word ("password not checked,
    not answered"): she never learnt that her orders were not in. Now she is told, once an
    hour, when passwords are checked again and that a reply to the game's mail works."""
    networks = SEAT_GUESSES // MAX_FAILED_LOGINS
    for network in range(networks):
        for attempt in range(MAX_FAILED_LOGINS):
            forged = make_mail(f"PASSWORD guess{network}x{attempt}\nGIVE 3 TO bob")
            app.ingest(_from_host(forged, f"2001:db8:{network}::7"), channel="pipe")
    told_before = len(_subjects(app, "alice@example.org"))
    for attempt in range(3):
        right = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO carol\n{'.' * attempt}")
        assert app.ingest(_from_host(right, "198.51.100.20"), channel="pipe") == (
            SubmissionStatus.REJECTED
        )
    assert stored_orders(app) == []
    [notice] = [text for kind, to, text in outbox(app)[told_before:] if to == "alice@example.org"]
    words = " ".join(notice.split())
    assert "without its password being checked" in words
    assert f"{SEAT_GUESSES} wrong passwords for your seat" in words
    until = clock_of(app).now + timedelta(hours=1)
    assert f"no password for it is checked until {until:%Y-%m-%d %H:%M} UTC" in words
    assert "reply to any mail the game sent you" in words
    assert _subjects(app, "alice@example.org")[-1] == (
        "[gw1] Mail not accepted: password not checked"
    )
    # What the notice says works: a reply to the game's mail, without a password.
    replied = make_mail("GIVE 3 TO carol", to=f"judge+{creds['alice'].reply_token}@pbem.test")
    assert app.ingest(replied, channel="pipe") == SubmissionStatus.ACCEPTED
    # An hour later (the wrong passwords of the hour forgotten) she is told again, if it
    # happens again.
    clock_of(app).advance(hours=1, minutes=1)
    for network in range(networks, 2 * networks):
        for attempt in range(MAX_FAILED_LOGINS):
            forged = make_mail(f"PASSWORD again{network}x{attempt}\nGIVE 3 TO bob")
            app.ingest(_from_host(forged, f"2001:db8:{network}::7"), channel="pipe")
    later = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob\nlater")
    assert app.ingest(_from_host(later, "198.51.100.20"), channel="pipe") == (
        SubmissionStatus.REJECTED
    )
    assert (
        _subjects(app, "alice@example.org").count("[gw1] Mail not accepted: password not checked")
        == 2
    )


# --- one answer budget per address, every answer counted -------------------------------------


def _answers(app: App) -> Counter[str]:
    return Counter(to for _, to, _ in outbox(app))


def test_an_address_with_no_seat_gets_three_answers_an_hour_help_included(
    app: App, creds: dict[str, Credentials]
) -> None:
    """README: "an address with no seat 3 ..., answers to commands such as HELP included".
    Answers to HELP and refusals had a budget each: 30 HELP answers of about 11 KB and 3
    refusals an hour reached a third party in whose name anyone wrote."""
    for number in range(35):
        app.ingest(
            make_mail("HELP", sender="victim@victim.test", subject=f"help {number}"), channel="t"
        )
    for number in range(5):
        app.ingest(make_mail(f"GIVE 3 TO bob\n{number}", sender="victim@victim.test"), channel="t")
    assert _answers(app)["victim@victim.test"] == STRANGER_ANSWERS_PER_HOUR
    assert "held back" in _note(app, "GIVE 3 TO bob\n4")
    clock_of(app).advance(hours=1, minutes=1)
    app.ingest(make_mail("HELP", sender="victim@victim.test", subject="help later"), channel="t")
    assert _answers(app)["victim@victim.test"] == STRANGER_ANSWERS_PER_HOUR + 1


def test_a_players_address_gets_thirty_answers_an_hour_in_all(
    app: App, creds: dict[str, Credentials]
) -> None:
    """README: "an address at most 30 an hour ..., answers to commands such as HELP
    included". A player's address got 60: 30 HELP answers and 30 "password missing"
    refusals, each in a budget of its own."""
    for number in range(35):
        app.ingest(make_mail("HELP", subject=f"help {number}"), channel="t")
    for number in range(35):
        app.ingest(make_mail(f"GIVE 3 TO bob\n{number}"), channel="t")
    assert _answers(app)["alice@example.org"] == ANSWERS_PER_HOUR
    # ... and the refusals count as much as the answers to HELP, whichever come first.
    for number in range(35):
        app.ingest(make_mail(f"GIVE 3 TO carol\n{number}", sender="bob@example.org"), channel="t")
    for number in range(35):
        app.ingest(
            make_mail("HELP", sender="bob@example.org", subject=f"help {number}"), channel="t"
        )
    assert _answers(app)["bob@example.org"] == ANSWERS_PER_HOUR


def test_a_players_confirmations_are_never_held_back_but_count(
    app: App, creds: dict[str, Credentials]
) -> None:
    """README: "(a player's confirmations are never held back)": not even when the address
    has had its answers of the hour; they count towards them all the same."""
    secret = creds["alice"].secret
    for number in range(5):
        app.ingest(make_mail(f"PASSWORD {secret}\nGIVE 3 TO bob\n{number}"), channel="t")
    for number in range(ANSWERS_PER_HOUR):
        app.ingest(make_mail("HELP", subject=f"help {number}"), channel="t")
    kinds = Counter(kind for kind, to, _ in outbox(app) if to == "alice@example.org")
    assert kinds == {"confirmation": 5, "answer": ANSWERS_PER_HOUR - 5}
    app.ingest(make_mail(f"PASSWORD {secret}\nGIVE 3 TO carol\n99"), channel="t")
    assert Counter(kind for kind, _, _ in outbox(app))["confirmation"] == 6, outbox(app)[-1]


def test_an_observer_is_no_stranger(app: App, creds: dict[str, Credentials]) -> None:
    """An address that confirmed an OBSERVE with the code mailed to it is no forger's victim:
    it has the budget of an address the service knows, not of a stranger (which its first
    three answers, the code among them, used up)."""
    fan = "fan@elsewhere.test"
    app.ingest(make_mail("HELP", sender=fan, subject="help"), channel="t")
    app.ingest(make_mail("OBSERVE gw1", sender=fan, subject="observe"), channel="t")
    [*_, (_, _, asked)] = outbox(app)
    code = asked.split("OBSERVE gw1 ")[1].split()[0]
    app.ingest(make_mail(f"OBSERVE gw1 {code}", sender=fan, subject="observe"), channel="t")
    for number in range(3):
        app.ingest(make_mail("HELP", sender=fan, subject=f"help {number}"), channel="t")
    assert _answers(app)[fan] == STRANGER_ANSWERS_PER_HOUR + 3


# --- Dates in -0000 --------------------------------------------------------------------------


def test_an_order_mail_dated_in_the_zone_minus_0000_before_the_round_opened_is_not_applied(
    app: App, creds: dict[str, Credentials]
) -> None:
    """README: "orders dated ... more than five minutes before their round opened are not
    applied to it". RFC 5322 3.3: ``-0000`` says the time is UTC and the writer's zone
    unknown; ``email.utils.formatdate()`` and qmail write it. It was read as no Date at all, so
    a replayed copy (a new Message-ID) of a mail of the day before was applied; written
    ``+0000`` the same moment was refused."""
    secret = creds["alice"].secret
    opened = app.clock()
    clock_of(app).advance(hours=1)
    day_before = (opened - timedelta(days=1)).timestamp()
    old = make_mail(f"PASSWORD {secret}\nGIVE 3 TO bob", Date=formatdate(day_before))
    assert b"-0000" in old
    assert app.ingest(old, channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app) == []
    [(kind, to, text)] = outbox(app)
    assert (kind, to) == ("stale", "alice@example.org")
    assert "before round 1 opened" in " ".join(text.split())
    # Written now, in -0000 too, the orders count.
    fresh = make_mail(
        f"PASSWORD {secret}\nGIVE 3 TO carol", Date=formatdate(clock_of(app).now.timestamp())
    )
    assert app.ingest(fresh, channel="pipe") == SubmissionStatus.ACCEPTED
    # A Date without any zone still says nothing: the mail is judged as one with no Date.
    undated = make_mail(f"PASSWORD {secret}\nGIVE 3 TO bob\n", Date=formatdate(day_before))
    undated = undated.replace(b" -0000\n", b"\n")
    assert app.ingest(undated, channel="pipe") == SubmissionStatus.ACCEPTED


# --- vacation notices known by their subject -------------------------------------------------


VACATION_SUBJECTS = [
    "Auto: [gw1] orders",
    "Vacation: [gw1] orders",
    "[gw1] I am away until Monday",
    "Out of Office: [gw1] orders",
    "Automatic reply: [gw1] orders",
    "Réponse automatique : [gw1] orders",
    "Absence: [gw1] orders",
    "Abwesenheitsnotiz: [gw1] orders",
    "Automatische Antwort: [gw1] orders",
    "Risposta automatica: [gw1] orders",
    "Fuori sede: [gw1] orders",
    "Respuesta automática: [gw1] orders",
    "Ausente: [gw1] orders",
    "Resposta automática: [gw1] orders",
    "Automatisch antwoord: [gw1] orders",
    "Afwezig: [gw1] orders",
    "Autosvar: [gw1] orders",
    "Frånvaro: [gw1] orders",
    "Automaattinen vastaus: [gw1] orders",
    "Poza biurem: [gw1] orders",
    "Odpowiedź automatyczna: [gw1] orders",
    "自動返信: [gw1] orders",
    "自动回复: [gw1] orders",
    "Автоответ: [gw1] orders",
]


@pytest.mark.parametrize("subject", VACATION_SUBJECTS)
def test_a_vacation_notice_known_by_its_subject_alone_is_not_answered(
    app: App, creds: dict[str, Credentials], subject: str
) -> None:
    """README: "vacation subjects in the common languages count as auto-replies". A player's
    vacation notice with no auto-reply header (subject RFC 2047 encoded as mail programs
    send it) was answered: "Auto:", "Vacation:", "I am away until Monday", and forms of Italian,
    Swedish and Polish mail programs."""
    body = "I am out of the office until Monday, with no access to my mail.\n\nKind regards,\nAlice"
    raw = make_mail(body, subject=subject)
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.IGNORED
    assert outbox(app) == []


@pytest.mark.parametrize(
    "subject", ["[gw1] I am away until Monday", "Auto: [gw1] orders", "[gw1] away until Monday"]
)
def test_orders_under_a_vacation_subject_are_read(
    app: App, creds: dict[str, Credentials], subject: str
) -> None:
    """A subject is no proof of a robot: a player leaving writes "I am away until Monday"
    over the orders he leaves behind. Orders are never dropped for a subject: they are
    applied and confirmed."""
    raw = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob", subject=subject)
    assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
    assert stored_orders(app) == [["GIVE 3 TO bob"]]
    assert [(kind, to) for kind, to, _ in outbox(app)] == [("confirmation", "alice@example.org")]


@pytest.mark.parametrize(
    "subject",
    ["[gw1] orders, I may be away next week", "[gw1] give away 3", "[gw1] absence of bob",
     "Re: [gw1] Auto-pilot question", "[gw1] out of moves?"],
)  # fmt: skip
def test_a_subject_merely_mentioning_absence_is_answered(
    app: App, creds: dict[str, Credentials], subject: str
) -> None:
    """Words of absence in a subject that is no vacation notice's leave the mail a player's:
    a mail with no orders in it is answered (here: how to write them) as any other."""
    raw = make_mail("What should I do this round?", subject=subject)
    assert app.ingest(raw, channel="pipe") != SubmissionStatus.IGNORED
    assert [to for _, to, _ in outbox(app)] == ["alice@example.org"]


# --- what one mail can make the service write ------------------------------------------------


def test_an_answer_lists_at_most_thirty_problems(app: App, creds: dict[str, Credentials]) -> None:
    """README: "an answer lists at most 30 problems": 2,000 bad lines are answered with the
    first 30, and how many more there were."""
    secret = creds["alice"].secret
    body = f"PASSWORD {secret}\n" + "\n".join(f"GIVE 1 TO nobody{i}" for i in range(2000))
    assert app.ingest(make_mail(body), channel="pipe") == SubmissionStatus.REJECTED
    [(kind, _, text)] = outbox(app)
    assert kind == "rejection"
    listed = [line for line in text.splitlines() if line.startswith("  * ")]
    assert len(listed) == 30
    assert '"GIVE 1 TO nobody29"' in listed[-1]
    words = " ".join(text.split())
    total = int(words.split("Please fix these ")[1].split()[0])
    assert total >= 2000
    assert f"... and {total - 30} more, not listed here." in words
