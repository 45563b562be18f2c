"""A seat changing hands by mail, end to end (issues #12, #15; docs/commands.md "Seats"): each
mail is appended to a real Dovecot, the running service (IMAP, SQLite, the outbox over SMTP)
answers it, and the answers arrive at a real aiosmtpd receiver.

A player resigns; the seat is offered to the two addresses on the standby list; the first to
send TAKE gets the seat (the game so far and a password), the second is told it is taken;
every player, the former player and the game master are told."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from mailservers import Dovecot, SmtpSink
from mailtable import Mail, Table, make_service, serving, started_game
from sqlmodel import Session, select

from adjudicator.service.games import Credentials
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Seat, SeatOffer

STANDBY = ("sam@elsewhere.example", "tia@elsewhere.example")


@pytest.fixture
def table(
    tmp_path: Path, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink
) -> Iterator[tuple[Table, dict[str, Credentials]]]:
    """Giveaway gw7 (alice, bob, carol) running, with a game master; no welcome queued."""
    app = make_service(tmp_path, dovecot, imap_user, smtp_sink)
    with session_scope(app.engine) as session:
        _, _, creds = started_game(session, app, "gw7", ("alice", "bob", "carol"))
    with serving(app):
        yield Table(app, dovecot, imap_user, smtp_sink), {c.handle: c for c in creds}


def _code(pattern: str, mail: Mail) -> str:
    found = re.search(pattern, mail.text)
    assert found is not None, mail.text
    return found[1]


def test_a_resigned_seat_goes_to_the_first_of_two_takers_and_everybody_is_told(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    t, creds = table
    for address in STANDBY:  # on the standby list for Giveaway, with the code mailed back
        t.send(address, "STANDBY giveaway")
        code = _code(r"STANDBY giveaway ([0-9A-F]{8})", t.one("Answer"))
        t.send(address, f"STANDBY giveaway {code}")
        assert "on the standby list" in t.one("Answer").flat

    carol = f"PASSWORD {creds['carol'].secret}\n"
    t.send("carol@example.org", carol + "RESIGN", subject="[gw7] leaving")
    code = _code(r"RESIGN ([0-9A-F]{8})", t.one("Answer"))
    t.send("carol@example.org", carol + f"RESIGN {code}", subject="[gw7] leaving")
    mails = t.expect(6)  # her answer, alice and bob told, the game master, two offers
    offers = {m.to: m for m in mails if "A seat is free" in m.subject}
    assert sorted(offers) == sorted(STANDBY)
    codes = {a: _code(r"TAKE gw7 ([0-9A-F]{8})", m) for a, m in offers.items()}
    assert len(set(codes.values())) == 2  # each address its own code
    (gm,) = [m for m in mails if m.to == "gm@example.org"]
    assert "carol has resigned" in gm.subject
    assert "offered to the players on the standby list" in gm.flat

    # One accepts, then the other: the first takes the seat, the second is told it is taken.
    # (Two claims at the same instant are a compare-and-set: tests/service/test_seats.py.)
    winner, loser = STANDBY
    t.send(winner, f"> A seat is free\n\nTAKE gw7 {codes[winner]}", subject="Re: [gw7] seat")
    mails = t.expect(6)  # the answer, the takeover, alice, bob, carol, the game master
    t.send(loser, f"TAKE gw7 {codes[loser]}", subject="Re: [gw7] seat")
    mails += t.expect(1)  # the answer: taken
    takeover = [m for m in mails if "You take over the seat carol" in m.subject]
    assert len(takeover) == 1
    assert takeover[0].to == winner
    assert "Round 1 is open" in takeover[0].text
    assert re.search(r"PASSWORD [a-z2-9]{12}", takeover[0].text)
    assert str(takeover[0].message["Reply-To"]).startswith("judge+")
    answers = {m.to: m for m in mails if "Answer" in m.subject}
    assert "is yours" in answers[winner].flat
    assert "taken by someone who was faster" in answers[loser].flat
    told = sorted(m.to for m in mails if "A new player plays carol" in m.subject)
    assert told == ["alice@example.org", "bob@example.org"]
    players = ("alice@example.org", "bob@example.org", "carol@example.org")
    assert all(winner not in m.text for m in mails if m.to in players)  # a handle, no address
    passed = [m for m in mails if m.to == "carol@example.org"]
    assert len(passed) == 1
    assert "passed to a new player" in passed[0].subject
    assert any(m.to == "gm@example.org" and "new player" in m.subject for m in mails)
    with Session(t.app.engine) as session:
        seat = session.exec(select(Seat).where(Seat.handle == "carol")).one()
        offer = session.exec(select(SeatOffer)).one()
    assert (seat.address, seat.active) == (winner, True)
    assert offer.taken_by == winner

    # carol's later mail, with her old password: answered in gw7's name, nothing applied.
    t.send("carol@example.org", carol + "GIVE 3 TO alice", subject="[gw7] orders")
    later = t.one("[gw7] The seat carol is no longer yours")
    assert later.to == "carol@example.org"
