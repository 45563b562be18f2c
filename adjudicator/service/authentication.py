"""Who a mail speaks for. The From header alone proves nothing.

A seat is proven by its personal reply address (``judge+TOKEN@...``: the token is secret and
stored only as a digest), or by the seat's password in the mail from the seat's registered
address (compared without regard to case). A mail that names no game and sets only the
player's own settings (``storage/persons.py``) speaks for the person: the password of any of
his seats in games not over proves him (:func:`authenticate_person`).

Wrong passwords are counted per seat AND per source (the sending host, ``InboundMail.source``,
an IPv6 host by its /64: :func:`source_of`): anyone can forge a player's From, so five forged
tries lock out the forger's source for an hour, not the real player, whose right password from
elsewhere still counts. Many sources together (a botnet, each host trying a few) get
:data:`SEAT_GUESSES` wrong passwords a seat an hour: after that no password for the seat is
checked until the hour ends (the reply addresses still work). A refusal is one mail, which
says which cause it was and how to fix it; wrong passwords are answered (at the registered
address, never elsewhere) once per seat and hour, whatever the number of tries and sources.

A password that is not checked (its source locked, or the seat's limit reached) may be the
real player's own: from the relay of a large provider that the forger shares (its relays serve
millions, and one address can be locked by a forger there), or from anywhere once many hosts
have guessed. So the player is told that too, once per seat and hour (cause
``password_unchecked``: until when, and that a reply to the game's mail works now), within the
answer limits; rather than his mail being dropped without a word. The moment he was told is
kept as a row of its own, for the source :data:`NOTICE`.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session

from adjudicator.base.security import (
    gm_mac_matches,
    replied_gm,
    replied_seat,
    replied_tournament_gm,
    reply_mac_matches,
    token_digest,
    tournament_gm_mac_matches,
    verify_secret,
)
from adjudicator.mail.commands import MailSection
from adjudicator.mail.parse import InboundMail
from adjudicator.service.handling import SectionHandling
from adjudicator.service.handover import answer_passed_on, former_seat, passed_on_from
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, LoginFailure, Seat
from adjudicator.storage.tournaments import Tournament, tournament_named

MAX_FAILED_LOGINS = 5
LOCKOUT = timedelta(hours=1)
SEAT_GUESSES = 20
"""Wrong passwords for one seat from all sources together within an hour."""
IPV6_HOST_PREFIX = 64
"""An IPv6 host is counted by its network of this length: a provider hands one customer (one
rented server, one home) a whole /64 (RFC 6177), whose 2**64 addresses are all one host's."""
NOTICE = "(told: not checked)"
"""The source of the row that keeps when the player was last told that a password was not
checked (its ``first_at``); never a host's: its failures stay 0."""
_TOKEN = re.compile(r"^[^+@]+\+([a-z0-9]{8,64})@", re.IGNORECASE)


def seats_from_tokens(session: Session, recipients: Iterable[str], *, key: bytes) -> list[Seat]:
    """The seats whose personal reply addresses are among ``recipients``, in their order: the
    welcome's token address, or the reply address every other mail to the seat carries
    (``security``). A reply to the one answer about several games goes to each game's seat's
    reply address (``conversation.queue_answer``)."""
    found: list[Seat] = []
    for address in recipients:
        seat = _seat_of_reply_address(session, address, key=key)
        if seat is not None and all(seat.id != other.id for other in found):
            found.append(seat)
    return found


def _seat_of_reply_address(session: Session, address: str, *, key: bytes) -> Seat | None:
    match = _TOKEN.match(address)
    if match:
        seat = queries.seat_with_token(session, token_digest(match.group(1)))
        if seat is not None:
            return seat
    replied = replied_seat(address)
    if replied is not None:
        seat = session.get(Seat, replied[0])
        if seat is not None and reply_mac_matches(key, seat.id or 0, seat.reply_token, replied[1]):
            return seat
    return None


def token_seat_of_section(
    session: Session, section: MailSection, seats: Sequence[Seat]
) -> Seat | None:
    """Of the seats whose reply addresses a mail went to, the one a section speaks for: the
    only one; of several (a reply to the answer about several games), the one of the game the
    section names (its GAME line, else the first game its subject names), and none for a
    section that names no game: which game it is about is not guessed."""
    if len(seats) <= 1:
        return seats[0] if seats else None
    if not section.game:
        return None
    game = queries.game_named(session, section.game)
    return next((s for s in seats if game is not None and s.game_id == game.id), None)


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


def tournament_from_gm_address(
    session: Session, recipients: Iterable[str], *, key: bytes
) -> Tournament | None:
    """The tournament whose game master's reply address
    (``security.tournament_gm_reply_address``) is among ``recipients``: the proof that the mail
    is its game master's (``tournament_gm.py``)."""
    for address in recipients:
        replied = replied_tournament_gm(address)
        if replied is None:
            continue
        tournament = session.get(Tournament, replied[0])
        if (
            tournament is not None
            and tournament.gm_address
            and tournament_gm_mac_matches(key, replied[0], tournament.gm_address, replied[1])
        ):
            return tournament
    return None


@dataclass(frozen=True)
class Addressing:
    """What the addresses a mail went to prove, read once for all its sections: the seats
    whose personal reply addresses they are (:func:`seats_from_tokens`), the game whose game
    master's reply address is among them (:func:`game_from_gm_address`), and, when no seat's
    is, the seat whose old reply address one is (``handover.former_seat``: it passed on); and
    the tournament whose game master's reply address is among them
    (:func:`tournament_from_gm_address`)."""

    token_seats: tuple[Seat, ...] = ()
    gm_game: Game | None = None
    former: Seat | None = None
    gm_tournament: Tournament | None = None

    @classmethod
    def of(cls, session: Session, mail: InboundMail, *, key: bytes) -> Addressing:
        recipients = (*mail.to, *mail.cc, *mail.delivered_to)
        token_seats = seats_from_tokens(session, recipients, key=key)
        gm_game = game_from_gm_address(session, recipients, key=key)
        # An old reply address of a seat that passed on?
        former = None if token_seats else former_seat(session, recipients, key=key)
        gm_tournament = tournament_from_gm_address(session, recipients, key=key)
        return cls(tuple(token_seats), gm_game, former, gm_tournament)

    def token_seat(self, session: Session, section: MailSection) -> Seat | None:
        """The seat ``section`` speaks for by its reply address (:func:`token_seat_of_section`)."""
        return token_seat_of_section(session, section, self.token_seats)


def find_game(
    handling: SectionHandling, section: MailSection, token_seat: Seat | None
) -> Game | None:
    """The game a section is about: named in it, the reply token's, the game master's reply
    address's, or the only running game the sender has a seat in. A section that names a
    tournament is the reply token's game."""
    session = handling.session
    if section.game:
        game = queries.game_named(session, section.game)
        if game is None and token_seat is not None and tournament_named(session, section.game):
            # A reply to a tournament's mail (its tag in the subject) that went to the reply
            # address of one seat of his: that seat's game (``tournament_news.py``).
            return session.get(Game, token_seat.game_id)
        return game
    if token_seat is not None:
        return session.get(Game, token_seat.game_id)
    if handling.gm_game is not None:
        return handling.gm_game
    games = queries.running_games_seating(session, handling.sender)
    return games[0] if len(games) == 1 else None


def authenticate(
    handling: SectionHandling, game: Game, section: MailSection, token_seat: Seat | None
) -> Seat | None:
    """The seat of ``game`` this section speaks for, or None (and the refusal is answered)."""
    if token_seat is not None and token_seat.game_id == game.id:
        return token_seat
    listed = queries.seat_at_address(handling.session, game.id, handling.sender)
    if listed is None:
        former = passed_on_from(handling.session, game, handling.sender)
        if former is not None:  # his seat passed on: say so, in this game's name
            answer_passed_on(handling, former)
        elif _to_old_reply_address(handling, game):  # the seat moved to another address
            _refuse(handling, game, "moved")
        else:
            _refuse(handling, game, "not_registered")
        return None
    if not section.secret:
        _refuse(handling, game, "password_missing", listed)
        return None
    return _prove(handling, game, listed, section.secret)


def person_seats(handling: SectionHandling) -> list[tuple[Seat, Game]]:
    """The sender's seats in games not over, with their games, the newest first: through them
    a section with no game may speak for the person (his own settings, ``storage/persons.py``)."""
    found = []
    for seat in reversed(queries.seats_at_address(handling.session, handling.sender)):
        game = handling.session.get(Game, seat.game_id)
        if seat.active and game is not None and game.status != GameStatus.FINISHED:
            found.append((seat, game))
    return found


def authenticate_person(
    handling: SectionHandling, section: MailSection, seats: list[tuple[Seat, Game]]
) -> Seat | None:
    """The seat through which a section that names no game speaks for its person (``seats``:
    :func:`person_seats`, not empty), or None (and the refusal is answered). The password of
    any of his seats proves him: each was mailed to his address alone, and the one he chose
    is every seat's. Wrong passwords count, and lock out, as the newest seat's: a forger's
    tries are no more than against one seat; and while any of his seats is locked for this
    mail's source (or for all), no password is checked, so that no game's lock is got round
    by writing with no game. The section speaks for the person from here on
    (``for_person``): its answers, a refusal too, are about no one game."""
    listed, game = next((pair for pair in seats if _locked(handling, pair[0])), seats[0])
    handling.for_person = True
    if not section.secret:
        _refuse(handling, game, "password_missing", listed)
        return None
    others = [s for s, _ in seats if s.id != listed.id]
    return _prove(handling, game, listed, section.secret, others=others)


def _locked(handling: SectionHandling, seat: Seat) -> bool:
    """Whether no password for ``seat`` is checked now from this mail's source: the source
    is locked for it, or the seat's wrong passwords of the hour reached the limit."""
    assert seat.id is not None
    counted = [
        f for f in queries.login_failures_of(handling.session, seat.id) if f.source != NOTICE
    ]
    source = _source(handling)
    own = next((f for f in counted if f.source == source), None)
    if own is not None and own.locked_until is not None and own.locked_until > handling.now:
        return True
    return sum(f.failures for f in _recent_failures(handling, counted)) >= SEAT_GUESSES


def _prove(
    handling: SectionHandling,
    game: Game,
    listed: Seat,
    secret: str,
    *,
    others: Sequence[Seat] = (),
) -> Seat | None:
    """The seat ``secret`` is the password of (``listed``, a seat of ``game``, or one of
    ``others`` of the same person), unless wrong passwords locked ``listed`` for this mail's
    source; a wrong one is counted against ``listed``."""
    assert listed.id is not None
    counted = queries.login_failures_of(handling.session, listed.id)  # every source's
    notice = next((f for f in counted if f.source == NOTICE), None)
    counted = [f for f in counted if f.source != NOTICE]
    failure = _failures(handling, counted)
    locked_until = failure.locked_until if failure is not None else None
    if locked_until is not None and locked_until > handling.now:
        _not_checked(handling, game, listed, notice, until=locked_until, seat_wide=False)
        return None
    recent = _recent_failures(handling, counted)
    if sum(f.failures for f in recent) >= SEAT_GUESSES:
        until = _checked_again_at(handling, recent)
        _not_checked(handling, game, listed, notice, until=until, seat_wide=True)
        return None
    proven = next((s for s in (listed, *others) if verify_secret(secret, s.secret_hash)), None)
    if proven is not None:
        if failure is not None and failure.id is not None:
            handling.session.delete(failure)
        return proven
    if failure is None:
        failure = LoginFailure(seat_id=listed.id, source=_source(handling), first_at=handling.now)
    _count_failure(handling, game, listed, failure, told=any(f.told for f in recent))
    return None


def _to_old_reply_address(handling: SectionHandling, game: Game) -> bool:
    """Whether the mail went to a reply address of a seat of ``game`` that no longer proves
    it (the seat moved to another address since that mail was sent), or to a welcome's
    personal reply address that no seat holds now: the refusal must not tell its sender to
    reply to a mail of the game, which he just did."""
    for address in handling.mail.recipients:
        replied = replied_seat(address)
        seat = handling.session.get(Seat, replied[0]) if replied is not None else None
        if (seat is not None and seat.game_id == game.id) or _voided_token(handling, address):
            return True
    return False


def _voided_token(handling: SectionHandling, address: str) -> bool:
    """Whether ``address`` is a personal reply address of the service (the welcome's,
    ``judge+TOKEN@...``) that no seat holds: a move gave the seat a new token
    (``games.move_seat``) and keeps no record of the old, whose game is not known then. (A
    seat passed on to someone else is told apart before: ``handover.former_seat``.)"""
    match = _TOKEN.match(address)
    local, _, domain = handling.ctx.identity.address.lower().partition("@")
    if match is None or not address.lower().startswith(f"{local}+"):
        return False
    if address.lower().rpartition("@")[2] != domain:
        return False
    return queries.seat_with_token(handling.session, token_digest(match.group(1))) is None


def source_of(address: str) -> str:
    """The source a sending host's ``address`` counts as: an IPv4 address itself, an IPv6
    address its /64 (:data:`IPV6_HOST_PREFIX`), so that one host cannot count as many.

    An IPv4 address is not widened: the relays of a large provider serve millions of people
    from a few networks, and a /24 would lump a player with every forger there. A forger who
    shares the player's very relay can lock it; the player is then told (:func:`_not_checked`).
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{IPV6_HOST_PREFIX}", strict=False))
    return str(ip)


def _checked_again_at(handling: SectionHandling, recent: list[LoginFailure]) -> datetime:
    """When the seat's wrong passwords of the last hour (``recent``) fall below the limit
    again: their windows end one after another."""
    left = sum(f.failures for f in recent)
    for failure in sorted(recent, key=_window_end):
        left -= failure.failures
        if left < SEAT_GUESSES:
            return _window_end(failure)
    return handling.now + LOCKOUT


def _window_end(failure: LoginFailure) -> datetime:
    return failure.locked_until or failure.first_at + LOCKOUT


def _not_checked(
    handling: SectionHandling,
    game: Game,
    seat: Seat,
    notice: LoginFailure | None,
    *,
    until: datetime,
    seat_wide: bool,
) -> None:
    """The password of this mail is not checked (its source locked, or, ``seat_wide``, the
    seat's limit reached). It may be the player's own right password: he is told, once per
    seat and hour (``notice`` keeps when), and within the answer limits (``throttle.py``)."""
    why = (
        f"{SEAT_GUESSES} wrong passwords for the seat within the hour"
        if seat_wide
        else f"source locked ({MAX_FAILED_LOGINS} wrong passwords from it within the hour)"
    )
    refused = f"refused for game {game.name}: {why}, password not checked"
    if notice is not None and notice.first_at + LOCKOUT > handling.now:
        handling.notes.append(f"{refused}, not answered: the player was told this hour")
        return
    if notice is None:
        assert seat.id is not None
        notice = LoginFailure(seat_id=seat.id, source=NOTICE, first_at=handling.now, told=True)
    notice.first_at = handling.now
    handling.session.add(notice)
    handling.notes.append(f"{refused}, the player told")
    _refuse(
        handling,
        game,
        "password_unchecked",
        seat,
        until=until,
        seat_wide=seat_wide,
        source=_source(handling),
    )


def _recent_failures(handling: SectionHandling, counted: list[LoginFailure]) -> list[LoginFailure]:
    """The seat's failure counts (``counted``: of every source) whose window has not ended."""
    return [f for f in counted if _window_end(f) > handling.now]


def _source(handling: SectionHandling) -> str:
    return source_of(handling.mail.source)


def _failures(handling: SectionHandling, counted: list[LoginFailure]) -> LoginFailure | None:
    """This seat's failure count from this mail's source (``counted``: the seat's, of every
    source), a new window once the last ended; None when the source has none (a row is made
    only when a password is wrong)."""
    source = _source(handling)
    failure = next((f for f in counted if f.source == source), None)
    if failure is None:
        return None
    if _window_end(failure) <= handling.now:
        failure.failures, failure.told, failure.locked_until = 0, False, None
        failure.first_at = handling.now
    return failure


def _count_failure(
    handling: SectionHandling, game: Game, seat: Seat, failure: LoginFailure, *, told: bool
) -> None:
    """One more wrong password from this source; the player is told unless ``told`` already
    within the hour (from any source)."""
    failure.failures += 1
    if failure.failures >= MAX_FAILED_LOGINS:
        failure.locked_until = handling.now + LOCKOUT
    handling.session.add(failure)
    if told or failure.told:
        handling.notes.append(f"refused for game {game.name}: wrong password again")
        return
    failure.told = True
    _refuse(handling, game, "password_wrong", seat)


def _refuse(
    handling: SectionHandling,
    game: Game,
    cause: str,
    seat: Seat | None = None,
    **details: object,
) -> None:
    """One mail to the sender about ``game``. With a seat, the sender is the seat's registered
    address: the cause may be told without telling a stranger anything. ``details`` go to the
    template."""
    if cause != "password_unchecked":  # its note is written with its reason
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
            "tries_in_all": SEAT_GUESSES,
            "lockout_minutes": int(LOCKOUT.total_seconds() // 60),
            "person": handling.for_person,
            **details,
        },
        game_id=game.id,
        seat_id=seat.id if seat is not None else None,
    )
