"""Commands about a player's own seats: ``SET TIMEZONE``, ``SET PASSWORD``, ``SET ADDRESS``,
``SET WAIT`` / ``SET NOWAIT``, ``FORGOT`` and ``RESIGN``.

A time zone and a password belong to the person, not to one game (``storage/persons.py``): they
hold in every game he plays under the proven seat's address, now and later, and so does the
address (moved only with a code mailed to the new address, so nobody moves a seat to an address
he does not read, or somebody else's; his settings go with him). ``SET WAIT`` is for the
section's game only. ``FORGOT`` needs no proof and changes nothing: it mails each seat's
personal reply address (which needs no password) to the registered address only, so a forged
request only reminds the real player of it. ``RESIGN`` takes effect only with the code its
first answer gives, in a second mail; the seat is then taken out as the game master's
``player remove`` does (the game's no-orders rule applies) and, in a game under way, offered to
the players waiting for a seat (``offers.py``); the other players and the game master are told.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from sqlmodel import Session

from adjudicator.base.security import address_code, hash_password, resign_code, seat_reply_address
from adjudicator.mail.commands import (
    Command,
    CommandProblem,
    Resign,
    SetAddress,
    SetPassword,
    SetTimeZone,
    SetWait,
)
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.times import local_time
from adjudicator.readmodel.stored import rules_of
from adjudicator.service import conversation
from adjudicator.service.closing import close_if_complete
from adjudicator.service.games import move_seat
from adjudicator.service.gm import remove_player
from adjudicator.service.gm_news import tell_every_seat
from adjudicator.service.handling import (
    AnswerPart,
    PersonHandling,
    SeatedHandling,
    SectionHandling,
)
from adjudicator.service.notices import queue_gm_notice
from adjudicator.service.offers import offer_seat
from adjudicator.service.rounds import open_round_of
from adjudicator.storage import persons, queries
from adjudicator.storage.models import Game, GameStatus, Seat


def _seats_of_person(session: Session, seat: Seat) -> list[tuple[Seat, Game]]:
    """The seats registered under ``seat``'s address in games not over (``seat`` first)."""
    found = []
    for other in queries.seats_at_address(session, seat.address):
        game = session.get(Game, other.game_id)
        if game is not None and game.status != GameStatus.FINISHED and other.active:
            found.append((other, game))
    found.sort(key=lambda pair: pair[0].id != seat.id)
    return found


@cache
def _zones_by_lower_case() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()}


def zone_named(text: str) -> str | None:
    """The IANA zone ``text`` names, in its own spelling (``europe/paris``: Europe/Paris)."""
    name = _zones_by_lower_case().get(text.strip().lower())
    if name is None:
        return None
    ZoneInfo(name)
    return name


# --- SET ---------------------------------------------------------------------------------------


def set_account(
    handling: PersonHandling, commands: Sequence[Command], problems: Sequence[CommandProblem]
) -> bool:
    """SET TIMEZONE and SET PASSWORD for the proven seat (and the person's other seats); SET
    WAIT and SET ADDRESS, which are no settings of the person's, only in a game's section."""
    seat = handling.seat
    bad = list(problems)
    for command in commands:
        if isinstance(command, SetTimeZone):
            zone = zone_named(command.zone)
            if zone is None:
                bad.append(
                    CommandProblem(
                        SetTimeZone,
                        command.line,
                        f"there is no time zone {command.zone!r}: write a zone of the IANA "
                        "database, e.g. Europe/Paris, America/New_York, Asia/Tokyo or UTC",
                    )
                )
                continue
            _set_zone(handling, seat, zone)
        elif isinstance(command, SetPassword):
            _set_password(handling, seat, command.password)
        elif isinstance(command, SetWait) and isinstance(handling, SeatedHandling):
            # Always seated: SET WAIT is no setting of the person's (its spec is not
            # ``personal``), so it never reaches a section without a game.
            _set_wait(handling, seat, wait=command.wait)
        elif isinstance(command, SetAddress):
            problem = _set_address(handling, seat, command)
            if problem is not None:
                bad.append(problem)
    if bad:
        conversation.answer_problems(handling, [], bad)
    return not bad


def _set_zone(handling: SectionHandling, seat: Seat, zone: str) -> None:
    persons.change(handling.session, seat.address, now=handling.now, time_zone=zone)
    games = []
    for _other, game in _seats_of_person(handling.session, seat):
        round_ = open_round_of(handling.session, game)
        games.append(
            {
                "game": game.name,
                "deadline": local_time(round_.deadline if round_ else None, zone),
            }
        )
    handling.answer_seat(seat, "set_timezone", {"zone": zone, "games": games})
    handling.notes.append(f"time zone set to {zone}")


def _set_password(handling: SectionHandling, seat: Seat, password: str) -> None:
    stored = hash_password(password)
    persons.change(handling.session, seat.address, now=handling.now, password_hash=stored)
    games = []
    for other, game in _seats_of_person(handling.session, seat):
        other.failed_logins, other.locked_until = 0, None
        handling.session.add(other)
        games.append(game.name)
    handling.answer_seat(seat, "set_password", {"games": games})
    handling.notes.append("password changed")


def _set_wait(handling: SeatedHandling, seat: Seat, *, wait: bool) -> None:
    """For this game only: a game's pace is its own."""
    game = handling.game
    seat.wait = wait
    handling.session.add(seat)
    sequential = rules_of(game).sequential
    handling.answer_seat(
        seat,
        "set_wait",
        {"game": game.name, "wait": wait, "sequential": sequential},
    )
    handling.notes.append(f"{'wait' if wait else 'nowait'} set")
    round_ = open_round_of(handling.session, game)
    if not wait and round_ is not None and round_.id is not None:
        handling.session.flush()
        # The round may have waited only for this: it closes now if every order is in.
        close_if_complete(handling.session, round_.id, ctx=handling.ctx, now=handling.now)


def _set_address(
    handling: SectionHandling, seat: Seat, command: SetAddress
) -> CommandProblem | None:
    """Step 1 mails a code to the new address (and tells the old one); step 2, with the code,
    moves every seat of the person to the new address and tells both addresses."""
    old, new = seat.address, command.address
    if new == old:
        return CommandProblem(SetAddress, command.line, f"{new} is your address already")
    code = address_code(handling.ctx.receipt_key, old, new)
    seats = _seats_of_person(handling.session, seat)
    games = [game.name for _, game in seats]
    context = {"old": old, "new": new, "games": games, "code": code}
    if command.code is None:
        handling.answer_seat(seat, "set_address", context | {"step": "asked"})
        # To the new address only: whoever reads it there owns it.
        handling.answer.add(new, AnswerPart("set_address", context | {"step": "code"}))
        handling.notes.append("address change asked")
        return None
    if command.code != code:
        return CommandProblem(
            SetAddress,
            command.line,
            f"that is not the code that was mailed to {new}; nothing was changed. Write SET "
            f"ADDRESS {new} alone to have a code mailed there",
        )
    for other, _game in seats:
        move_seat(other, new)  # the old mailbox's mails stop proving the seats
        handling.session.add(other)
    persons.follow(handling.session, old, new, now=handling.now, whole=True)
    done = context | {"step": "done"}
    handling.answer.add(old, AnswerPart("set_address", done))
    handling.answer.add(new, AnswerPart("set_address", done, seat_id=seat.id))
    handling.notes.append("address changed")
    return None


# --- FORGOT ------------------------------------------------------------------------------------


def forgot(
    handling: SectionHandling, _commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    """Each seat under the sender's address (in the section's game when it names one) gets its
    personal reply address, at its registered address."""
    session, ctx = handling.session, handling.ctx
    seats = [
        s
        for s in queries.seats_at_address(session, handling.sender)
        if s.active
        and (handling.game is None or not handling.named or s.game_id == handling.game.id)
    ]
    told = 0
    for seat in seats:
        game = session.get(Game, seat.game_id)
        if game is None or game.status == GameStatus.FINISHED or seat.id is None:
            continue
        address = seat_reply_address(
            ctx.receipt_key, ctx.identity.address, seat.id, seat.reply_token
        )
        handling.answer_seat(
            seat, "forgot", {"game": game.name, "player": seat.handle, "reply_address": address}
        )
        told += 1
    if not told:
        # Only to the sender's own address: a forger learns nothing from it.
        handling.answer_sender("forgot_none", {"named": handling.named})
    handling.notes.append(f"forgotten password: {told} seat(s) told")
    return told > 0


# --- RESIGN ------------------------------------------------------------------------------------


def resign(
    handling: SeatedHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    game, seat, ctx = handling.game, handling.seat, handling.ctx
    assert seat.id is not None
    code = resign_code(ctx.receipt_key, seat.id, seat.reply_token)
    asked = [c for c in commands if isinstance(c, Resign)]
    context = {"game": game.name, "player": seat.handle, "code": code}
    if game.status == GameStatus.FINISHED:
        handling.answer_seat(seat, "resign", context | {"step": "over"})
        return False
    given = next((c.code for c in asked if c.code is not None), None)
    if given is None:
        handling.answer_seat(seat, "resign", context | {"step": "confirm"})
        handling.notes.append(f"resignation from {game.name} asked")
        return True
    if given != code:
        handling.answer_seat(seat, "resign", context | {"step": "wrong", "given": given})
        return False
    _resign_seat(handling.session, ctx=ctx, game=game, seat=seat, now=handling.now)
    handling.answer_seat(seat, "resign", context | {"step": "done"})
    handling.notes.append(f"{seat.handle} resigned from {game.name}")
    return True


def _resign_seat(
    session: Session, *, ctx: ServiceContext, game: Game, seat: Seat, now: datetime
) -> None:
    """Take the seat out and tell the game: the others, and the game master."""
    handle, address, seat_id = seat.handle, seat.address, seat.id
    # A seat of a game under way is offered to the standby list (offers.py): it is not retired
    # under the game's rule for a player taken out while a newcomer may take it over.
    offered = game.status in (GameStatus.RUNNING, GameStatus.PAUSED)
    remove_player(session, game, handle, retire=not offered)
    if offered:
        offer_seat(session, game, seat, ctx=ctx, now=now, reason="resigned")
    tell_every_seat(
        session,
        game,
        template="resigned",
        extra={"player": handle, "offered": offered},
        key=lambda other: f"resigned:{game.id}:{seat_id}:{other.id}:{now.timestamp():.0f}",
        ctx=ctx,
        now=now,
        but=seat,
    )
    round_ = open_round_of(session, game)
    queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="resigned",
        key=f"{game.id}:{seat_id}:{now.timestamp():.0f}",
        now=now,
        round_=round_,
        player=handle,
        address=address,
        offered=offered,
    )
    if round_ is not None and round_.id is not None:
        # A round that waited only for the resigned player closes now (where it may early).
        close_if_complete(session, round_.id, ctx=ctx, now=now)
