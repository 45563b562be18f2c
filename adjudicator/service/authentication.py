"""Who a mail speaks for. The From header alone proves nothing.

A seat is proven by its personal reply address (``judge+TOKEN@...``: the token is secret and
stored only as a digest), or by the seat's password in the mail from the seat's registered
address. Five wrong passwords lock the seat for an hour; the real player is told of every
failed try (at the registered address, never the sender's) until the lock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import timedelta

from sqlmodel import Session

from adjudicator.mail.commands import MailSection
from adjudicator.security import replied_seat, reply_mac_matches, token_digest, verify_secret
from adjudicator.service.handling import SectionHandling
from adjudicator.storage import queries
from adjudicator.storage.models import Game, Seat

MAX_FAILED_LOGINS = 5
LOCKOUT = timedelta(hours=1)
_TOKEN = re.compile(r"^[^+@]+\+([a-z0-9]{8,64})@", re.IGNORECASE)


def seat_from_token(session: Session, recipients: Iterable[str], *, key: bytes) -> Seat | None:
    """The seat whose personal reply address is among ``recipients``: the welcome's token
    address, or the reply address every other mail to the seat carries (``security``)."""
    for address in recipients:
        match = _TOKEN.match(address)
        if match:
            seat = queries.seat_with_token(session, token_digest(match.group(1)))
            if seat is not None:
                return seat
        replied = replied_seat(address)
        if replied is not None:
            seat = session.get(Seat, replied[0])
            if seat is not None and reply_mac_matches(
                key, seat.id or 0, seat.reply_token, replied[1]
            ):
                return seat
    return None


def find_game(
    handling: SectionHandling, section: MailSection, token_seat: Seat | None
) -> Game | None:
    """The game a section is about: named in it, the reply token's, or the only running game
    the sender has a seat in."""
    session = handling.session
    if section.game:
        return queries.game_named(session, section.game)
    if token_seat is not None:
        return session.get(Game, token_seat.game_id)
    games = queries.running_games_seating(session, handling.sender)
    return games[0] if len(games) == 1 else None


def _locked(seat: Seat, handling: SectionHandling) -> bool:
    return seat.locked_until is not None and seat.locked_until > handling.now


def authenticate(
    handling: SectionHandling, section: MailSection, token_seat: Seat | None
) -> Seat | None:
    """The seat this section speaks for, or None (and the refusal is answered)."""
    game = handling.game
    assert game is not None
    if token_seat is not None and token_seat.game_id == game.id:
        return token_seat
    listed = queries.seat_at_address(handling.session, game.id, handling.sender)
    proven = (
        listed is not None
        and section.secret is not None
        and not _locked(listed, handling)
        and verify_secret(section.secret, listed.secret_hash)
    )
    if proven and listed is not None:
        listed.failed_logins = 0
        handling.session.add(listed)
        return listed
    _refuse(handling, section, listed)
    return None


def _refuse(handling: SectionHandling, section: MailSection, seat: Seat | None) -> None:
    game = handling.game
    assert game is not None
    handling.notes.append(f"refused for game {game.name}")
    if seat is not None and section.secret:
        if _locked(seat, handling):
            return  # rate-limited: no more answers until the lock ends
        seat.failed_logins += 1
        if seat.failed_logins >= MAX_FAILED_LOGINS:
            seat.locked_until = handling.now + LOCKOUT
            seat.failed_logins = 0
        handling.session.add(seat)
        handling.reply(
            "intrusion",
            seat.address,
            {
                "game": game.name,
                "handle": seat.handle,
                "sender": handling.mail.sender,
                "when": handling.now,
                "locked_until": seat.locked_until,
            },
            game_id=game.id,
        )
    handling.reply("refusal", handling.sender, {"game": game.name}, game_id=game.id)
