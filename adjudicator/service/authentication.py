"""Who a mail speaks for. The From header alone proves nothing.

A seat is proven by its personal reply address (``judge+TOKEN@...``: the token is secret and
stored only as a digest), or by the seat's password in the mail from the seat's registered
address (compared without regard to case).

Wrong passwords are counted per seat AND per source (the sending host, ``InboundMail.source``):
anyone can forge a player's From, so five forged tries lock out the forger's source for an
hour, not the real player, whose right password from elsewhere still counts. Many sources
together (a botnet, each host trying a few) get :data:`SEAT_GUESSES` wrong passwords a seat
an hour: after that no password for the seat is checked until the hour ends (the reply
addresses still work). A refusal is one mail, which says which cause it was and how to fix
it; wrong passwords are answered (at the registered address, never elsewhere) once per seat
and hour, whatever the number of tries and sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import timedelta

from sqlmodel import Session

from adjudicator.mail.commands import MailSection
from adjudicator.security import (
    gm_mac_matches,
    replied_gm,
    replied_seat,
    reply_mac_matches,
    token_digest,
    verify_secret,
)
from adjudicator.service.handling import SectionHandling
from adjudicator.service.handover import answer_passed_on, passed_on_from
from adjudicator.storage import queries
from adjudicator.storage.models import Game, LoginFailure, Seat

MAX_FAILED_LOGINS = 5
LOCKOUT = timedelta(hours=1)
SEAT_GUESSES = 20
"""Wrong passwords for one seat from all sources together within an hour."""
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


def game_from_gm_address(session: Session, recipients: Iterable[str], *, key: bytes) -> Game | None:
    """The game whose game master's reply address (``security.gm_reply_address``) is among
    ``recipients``: the proof that the mail is the game master's (``gm_mail.py``)."""
    for address in recipients:
        replied = replied_gm(address)
        if replied is None:
            continue
        game = session.get(Game, replied[0])
        if game is not None and gm_mac_matches(key, replied[0], game.gm_token, replied[1]):
            return game
    return None


def find_game(
    handling: SectionHandling, section: MailSection, token_seat: Seat | None
) -> Game | None:
    """The game a section is about: named in it, the reply token's, the game master's reply
    address's, or the only running game the sender has a seat in."""
    session = handling.session
    if section.game:
        return queries.game_named(session, section.game)
    if token_seat is not None:
        return session.get(Game, token_seat.game_id)
    if handling.gm_game is not None:
        return handling.gm_game
    games = queries.running_games_seating(session, handling.sender)
    return games[0] if len(games) == 1 else None


def authenticate(
    handling: SectionHandling, section: MailSection, token_seat: Seat | None
) -> Seat | None:
    """The seat this section speaks for, or None (and the refusal is answered)."""
    game = handling.game
    assert game is not None
    if token_seat is not None and token_seat.game_id == game.id:
        return token_seat
    listed = queries.seat_at_address(handling.session, game.id, handling.sender)
    if listed is None:
        former = passed_on_from(handling.session, game, handling.sender)
        if former is not None:  # his seat passed on: say so, in this game's name
            answer_passed_on(handling, former)
        elif _to_old_reply_address(handling, game):  # the seat moved to another address
            _refuse(handling, "moved")
        else:
            _refuse(handling, "not_registered")
        return None
    if not section.secret:
        _refuse(handling, "password_missing", listed)
        return None
    assert listed.id is not None
    counted = queries.login_failures_of(handling.session, listed.id)  # every source's
    failure = _failures(handling, counted)
    locked_until = failure.locked_until if failure is not None else None
    if locked_until is not None and locked_until > handling.now:
        handling.notes.append(f"refused for game {game.name}: source locked, not answered")
        return None
    recent = _recent_failures(handling, counted)
    if sum(f.failures for f in recent) >= SEAT_GUESSES:
        handling.notes.append(
            f"refused for game {game.name}: {SEAT_GUESSES} wrong passwords for the seat within"
            " the hour, password not checked, not answered"
        )
        return None
    if verify_secret(section.secret, listed.secret_hash):
        if failure is not None and failure.id is not None:
            handling.session.delete(failure)
        return listed
    if failure is None:
        failure = LoginFailure(seat_id=listed.id, source=_source(handling), first_at=handling.now)
    _count_failure(handling, listed, failure, told=any(f.told for f in recent))
    return None


def _to_old_reply_address(handling: SectionHandling, game: Game) -> bool:
    """Whether the mail went to a reply address of a seat of ``game`` that no longer proves
    it (the seat moved to another address since that mail was sent): the refusal must not
    tell its sender to reply to a mail of the game, which he just did."""
    for address in handling.mail.recipients:
        replied = replied_seat(address)
        seat = handling.session.get(Seat, replied[0]) if replied is not None else None
        if seat is not None and seat.game_id == game.id:
            return True
    return False


def _recent_failures(handling: SectionHandling, counted: list[LoginFailure]) -> list[LoginFailure]:
    """The seat's failure counts (``counted``: of every source) whose window has not ended."""
    return [f for f in counted if (f.locked_until or f.first_at + LOCKOUT) > handling.now]


def _source(handling: SectionHandling) -> str:
    return handling.mail.source or "unknown"


def _failures(handling: SectionHandling, counted: list[LoginFailure]) -> LoginFailure | None:
    """This seat's failure count from this mail's source (``counted``: the seat's, of every
    source), a new window once the last ended; None when the source has none (a row is made
    only when a password is wrong)."""
    source = _source(handling)
    failure = next((f for f in counted if f.source == source), None)
    if failure is None:
        return None
    ended = failure.locked_until or failure.first_at + LOCKOUT
    if ended <= handling.now:
        failure.failures, failure.told, failure.locked_until = 0, False, None
        failure.first_at = handling.now
    return failure


def _count_failure(
    handling: SectionHandling, seat: Seat, failure: LoginFailure, *, told: bool
) -> None:
    """One more wrong password from this source; the player is told unless ``told`` already
    within the hour (from any source)."""
    failure.failures += 1
    if failure.failures >= MAX_FAILED_LOGINS:
        failure.locked_until = handling.now + LOCKOUT
    handling.session.add(failure)
    if told or failure.told:
        assert handling.game is not None
        handling.notes.append(f"refused for game {handling.game.name}: wrong password again")
        return
    failure.told = True
    _refuse(handling, "password_wrong", seat)


def _refuse(handling: SectionHandling, cause: str, seat: Seat | None = None) -> None:
    """One mail to the sender. With a seat, the sender is the seat's registered address: the
    cause may be told without telling a stranger anything."""
    game = handling.game
    assert game is not None
    handling.notes.append(f"refused for game {game.name}: {cause.replace('_', ' ')}")
    handling.reply(
        "refusal",
        handling.sender,
        {
            "game": game.name,
            "cause": cause,
            "sender": handling.sender,
            "when": handling.now,
            "tries": MAX_FAILED_LOGINS,
            "lockout_minutes": int(LOCKOUT.total_seconds() // 60),
        },
        game_id=game.id,
        seat_id=seat.id if seat is not None else None,
    )
