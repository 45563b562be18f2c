"""Creating games and reading their state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlmodel import Session

from adjudicator.base.security import hash_secret, new_gm_token, new_secret, new_token, token_digest
from adjudicator.core.errors import SetupError
from adjudicator.core.game import Setup
from adjudicator.core.text import is_handle
from adjudicator.games import UnknownGame, game_title, get_rules
from adjudicator.mail.parse import bare_address
from adjudicator.readmodel.stored import setup_to_json
from adjudicator.service import ServiceError
from adjudicator.service.settings import GameSettings, read_settings
from adjudicator.storage import persons, queries
from adjudicator.storage.models import Game, Seat


@dataclass(frozen=True)
class PlayerSpec:
    handle: str
    address: str  # NO_ADDRESS only for a seat the computer plays from the start
    time_zone: str | None = None


NO_ADDRESS = ""
"""The address of a seat the computer plays from the start with nobody to mail
(``--setting stand_ins=cpu`` and ``--player cpu=``): no mail is queued for it
(``outbox.queue_pending``), and no mail is ever read as coming from it."""


@dataclass(frozen=True)
class Credentials:
    """What a new player is told once, in the welcome mail; only hashes are stored."""

    handle: str
    address: str
    secret: str | None  # None: the password the person chose (SET PASSWORD) is the seat's
    reply_token: str


def check_time_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ServiceError(f"unknown time zone {name!r} (use a name like Europe/London)") from None
    return name


def seats_of(session: Session, game: Game) -> list[Seat]:
    return queries.seats_of(session, game.id)


def active_seats(session: Session, game: Game) -> list[Seat]:
    """The seats still in play by mail: a seat the game master removed gets no mail, and its
    mail is refused."""
    return [seat for seat in seats_of(session, game) if seat.active]


def find_game(session: Session, name: str) -> Game:
    game = queries.game_named(session, name)
    if game is None:
        raise ServiceError(f"no game called {name!r}", exit_code=3)
    return game


def checked_address(text: str, *, whose: str) -> str:
    """A player's or game master's address as given, checked (a bad one would be refused by
    the mail server at best, and at worst name another recipient), in lower case."""
    address = bare_address(text.strip())
    if address is None:
        raise ServiceError(f"{text!r} is not a usable mail address for {whose}")
    return address.lower()


def _seat_address(player: PlayerSpec, *, stand_ins: Sequence[str]) -> str:
    """A player's checked address; none (:data:`NO_ADDRESS`) only for a computer's seat."""
    if player.address.strip():
        return checked_address(player.address, whose=player.handle)
    if player.handle.lower() in stand_ins:
        return NO_ADDRESS
    raise ServiceError(
        f"{player.handle!r} has no address: every player needs one, except a seat the computer "
        f"plays from the start (--setting stand_ins={player.handle.lower()})"
    )


def move_seat(seat: Seat, address: str) -> None:
    """The seat is played from ``address`` from now on, with a new reply token: the mails sent
    to the old address (the welcome's token address, every mail's reply address) stop proving
    the seat, for whoever reads the old mailbox next. The password stays the person's."""
    seat.address, seat.unreachable = address, False
    seat.reply_token = token_digest(new_token())


def refuse_absent_stand_in(kind: str, read: GameSettings) -> None:
    """``absent=stand-in`` in a game played in turns: refused, since it could never act. Its
    no-orders rule is a forfeit at the end of the grace period, the very moment the missed
    round is counted, so the game would be over when the stand-in was to start playing."""
    if read.absent_stand_in and get_rules(kind).sequential:
        raise ServiceError(
            f"setting absent=stand-in does not work in {game_title(kind)}: a game played in "
            "turns forfeits a player who misses his move deadline and its grace period, so the "
            "game is over before a stand-in could play. Leave it out (the forfeit rule "
            "applies), or let the computer play the seat from the start (--setting "
            "stand_ins=HANDLE) or when you decide (adjudicate player stand-in GAME HANDLE)"
        )


def create_game(
    session: Session,
    *,
    name: str,
    kind: str,
    players: Sequence[PlayerSpec],
    options: Mapping[str, str],
    setup: Setup = Setup(),  # noqa: B008 - an immutable default
    time_zone: str = "UTC",
    schedule: str | None = None,
    settings: Mapping[str, Any] | None = None,
    gm_address: str | None = None,
    read: GameSettings | None = None,
    now: datetime,
) -> tuple[Game, list[Credentials]]:
    """Create a game and its seats; return the players' credentials (shown once). ``read``:
    ``settings`` read already by the caller (``creation.NewGame.read``), not read again."""
    name = name.strip().lower()
    if gm_address:
        gm_address = checked_address(gm_address, whose="the game master")
    if not is_handle(name):
        raise ServiceError(f"{name!r} is not a usable game name (a letter, then letters or digits)")
    if queries.game_named(session, name) is not None:
        raise ServiceError(f"a game called {name!r} exists already")
    try:
        rules = get_rules(kind)
        if read is None:
            read = read_settings(kind, schedule, check_time_zone(time_zone), settings or {})
            refuse_absent_stand_in(kind, read)
        handles = [p.handle.lower() for p in players]
        strangers = sorted(set(read.stand_ins) - set(handles))
        if strangers:
            raise ServiceError(
                f"setting 'stand_ins' names {strangers[0]!r}, who is not a player of the game"
            )
        state = rules.start(handles, options=options, setup=setup)
    except (UnknownGame, SetupError) as error:
        raise ServiceError(str(error)) from None
    game = Game(
        name=name,
        kind=rules.name,
        options=dict(options),
        setup=setup_to_json(setup),
        settings=dict(settings or {}),
        gm_address=gm_address,
        gm_token=token_digest(new_gm_token()) if gm_address else None,
        time_zone=check_time_zone(time_zone),
        schedule=schedule,
        state=rules.dump(state),
        created_at=now,
    )
    session.add(game)
    session.flush()
    assert game.id is not None
    credentials = []
    addresses = [_seat_address(player, stand_ins=read.stand_ins) for player in players]
    people = persons.people_for(session, addresses, now=now)  # each seat is a person's
    for seat_number, (player, address) in enumerate(zip(players, addresses, strict=True)):
        secret, token = new_secret(), new_token()
        seat = Seat(
            game_id=game.id,
            seat=seat_number,
            handle=player.handle.lower(),
            address=address,
            secret_hash=hash_secret(secret),
            reply_token=token_digest(token),
        )
        person = people.get(address)
        if person is not None and player.time_zone and person.time_zone is None:
            # The zone the game master gave the player, unless he chose one himself.
            person.time_zone = check_time_zone(player.time_zone)
        chosen = persons.give_settings(seat, person)
        session.add(seat)
        credentials.append(
            Credentials(
                player.handle.lower(), player.address.strip(), None if chosen else secret, token
            )
        )
    session.flush()
    return game, credentials
