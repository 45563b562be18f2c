"""The club by mail (docs/club.md): ``WHOIS handle``, ``RATING``, ``SET PUBLIC ON|OFF``, the
game master's ``RECORD address``, and the gate a game's ``min_reliability`` and ``rating``
settings put before a JOIN or a TAKE.

Players are named by their handles only: no answer to one player holds another's address.
WHOIS of a player who said SET PUBLIC OFF tells nothing of him but that. The game master's
RECORD names the address he gave, and no handle.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session

from adjudicator.core.club import PlayerRecord
from adjudicator.games import GAME_NAMES, game_title
from adjudicator.mail.commands import (
    Command,
    CommandProblem,
    RatingAsked,
    SetPublic,
    SetWebhook,
    WhoIs,
)
from adjudicator.notify.webhook_formats import guess_format
from adjudicator.readmodel.club import address_of_handle, handle_of, is_public, record_of
from adjudicator.readmodel.ratings import ratings_of_kind
from adjudicator.service.handling import PersonHandling, SectionHandling
from adjudicator.service.settings import GameSettings, settings_of
from adjudicator.storage import persons
from adjudicator.storage.models import Game


def record_context(record: PlayerRecord) -> dict[str, Any]:
    """A record as the templates word it (``templates/mail/_record.txt.j2``)."""
    return {
        "played": record.played,
        "finished": record.finished,
        "won": record.won,
        "resigned": record.resigned,
        "taken_over": record.taken_over,
        "abandoned": record.abandoned,
        "on_time": record.on_time,
        "late": record.late,
        "missed": record.missed,
        "recent": len(record.recent),
        "recent_abandoned": record.recent_abandoned,
        "reliability": record.reliability,
    }


# --- the gate ----------------------------------------------------------------------------------


def refusal_to_seat(
    session: Session, game: Game, address: str, *, now: datetime, joining: bool
) -> str | None:
    """Why the person at ``address`` may not JOIN (``joining``) or TAKE a seat of ``game``
    under its ``min_reliability`` and ``rating`` settings, with his figure and the game's; None
    when he may."""
    return refusal_under(
        session,
        settings_of(game),
        f"game {game.name}",
        kind=game.kind,
        address=address,
        now=now,
        joining=joining,
    )


def refusal_under(
    session: Session,
    settings: GameSettings,
    what: str,
    *,
    kind: str,
    address: str,
    now: datetime,
    joining: bool,
) -> str | None:
    """The gate of ``refusal_to_seat`` for ``what`` (``game g2``, ``tournament cup``) with
    these settings, of a game of ``kind``: why the person at ``address`` may not come in."""
    wanted = settings.min_reliability
    if wanted is not None:
        figure = record_of(session, address, now=now).reliability
        if figure < wanted:
            handle = handle_of(session, address)
            whois = f"WHOIS {handle}" if handle else "WHOIS and your name in a game"
            return (
                f"{what} asks for a reliability of {wanted} or more, and yours is "
                f"{figure} ({whois} shows your record, and how reliability is counted)"
            )
    band = settings.rating_band
    if joining and band is not None:
        rating = ratings_of_kind(session, kind).of(address).shown
        if not band.admits(rating):
            return (
                f"{what} is open to players rated {_band_words(band.low, band.high)} "
                f"in {game_title(kind)}, and your rating there is {rating}"
            )
    return None


def _band_words(low: int | None, high: int | None) -> str:
    if low is None:
        return f"{high} or less"
    if high is None:
        return f"{low} or more"
    return f"{low} to {high}"


# --- WHOIS -------------------------------------------------------------------------------------


def whois(
    handling: SectionHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    """Each WHOIS answered to the sender: the record behind the handle, by the handle."""
    for command in commands:
        assert isinstance(command, WhoIs)
        address = address_of_handle(handling.session, command.handle)
        context: dict[str, Any] = {"handle": command.handle, "known": address is not None}
        mine = address is not None and address == handling.sender.strip().lower()
        if address is not None and not mine and not is_public(handling.session, address):
            context |= {"private": True}
        elif address is not None:
            context |= {"private": False, "mine": mine}
            context |= record_context(record_of(handling.session, address, now=handling.now))
            context["ratings"] = _ratings(handling.session, address)
        handling.answer_sender("whois", context)
        handling.notes.append(f"whois {command.handle}")
    return True


def _ratings(session: Session, address: str) -> list[dict[str, Any]]:
    """The person's rating in each kind he has a rated game of."""
    found = []
    for kind in GAME_NAMES:
        ratings = ratings_of_kind(session, kind)
        rating = ratings.ratings.get(address.strip().lower())
        if rating is None:
            continue
        ranked = [a for a, _ in ratings.ranked()]
        found.append(
            {
                "kind": game_title(kind),
                "rating": rating.shown,
                "spread": rating.spread,
                "games": rating.games,
                "place": ranked.index(address.strip().lower()) + 1,
                "of": len(ranked),
            }
        )
    return found


# --- RATING ------------------------------------------------------------------------------------


def rating(
    handling: SectionHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    """The sender's ratings, to the sender's own address (a rating is no secret, but an
    answer goes where the asking address is)."""
    assert all(isinstance(c, RatingAsked) for c in commands)
    ratings = _ratings(handling.session, handling.sender)
    handling.answer_sender("rating", {"ratings": ratings, "start": 1500})
    handling.notes.append("rating sent")
    return True


# --- SET PUBLIC --------------------------------------------------------------------------------


def set_public(
    handling: PersonHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    """SET PUBLIC ON or OFF for the proven seat's person."""
    seat = handling.seat
    for command in commands:
        assert isinstance(command, SetPublic)
        persons.set_public(handling.session, seat.address, public=command.public, now=handling.now)
        handling.answer_seat(seat, "set_public", {"public": command.public})
        handling.notes.append(f"public {'on' if command.public else 'off'}")
    return True


# --- SET WEBHOOK -------------------------------------------------------------------------------


def set_webhook(
    handling: PersonHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    """SET WEBHOOK URL or OFF for the proven seat's person: a new secret each time a URL is
    set, given in the answer (which goes to his registered address only), the posts signed
    with it (docs/webhooks.md)."""
    seat = handling.seat
    for command in commands:
        assert isinstance(command, SetWebhook)
        secret = secrets.token_urlsafe(24) if command.url else None
        persons.set_webhook(
            handling.session, seat.address, url=command.url, secret=secret, now=handling.now
        )
        handling.answer_seat(
            seat,
            "set_webhook",
            {"url": command.url, "secret": secret, "format": guess_format(command.url or "")},
        )
        handling.notes.append("webhook on" if command.url else "webhook off")
    return True
