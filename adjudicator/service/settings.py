"""A game's pace: its schedule and the settings around deadlines, read once with their defaults.

Settings live in ``Game.settings`` (JSON), all optional:

- ``reminders``: durations before the deadline at which players without orders are reminded
  (default ``["24h", "2h"]``; ``[]`` for none).
- ``grace``: how long a round waits past its deadline for missing orders (default none for
  simultaneous games, ``24h`` for sequential games: their timeout rule starts a grace period).
- ``early_close``: close as soon as every player has valid orders in (default on, except for
  games with a calendar schedule, whose players count on the fixed deadline).
- ``missed_rounds_limit``: after this many missed rounds in a row the game master is told
  (default 2).
- ``require_auth``: the checks of our receiving server that a player's mail must have passed,
  among ``dkim``, ``spf`` and ``dmarc`` (default none).
- ``private_press``: whether players may send press to some players only (default on; a game
  whose rules forbid private talk, such as SiSSYFiGHT, never allows it).
- ``anonymous_press``: gunboat press, relayed and kept without the sender's handle (default
  off).
- ``show_waiting``: reminders and STATUS say which seats have orders in for the open round and
  which the round still waits for, by handle only, never their orders (default on).
- ``nudge``: in a game played in turns, how long a turn waits before the player whose turn it
  is gets a nudge by mail, once a turn (default none).
- ``signup``: a game not started yet is open for sign-up: listed by ``LIST``, joined by
  ``JOIN`` (default off). A number instead of true: the game starts by itself once it has that
  many players.
- ``stand_ins``: the handles of the seats the computer plays (``stand_ins.py``; default none).
- ``absent``: what becomes of a seat whose player missed ``missed_rounds_limit`` rounds in a
  row: ``no-orders`` (the game's no-orders rule goes on applying; the default), ``stand-in``
  (a stand-in plays the seat until a person takes it back; refused at creation for a game
  played in turns, whose forfeit comes at the same moment, ``games.refuse_absent_stand_in``),
  ``offer`` (the seat is offered to the standby list, ``offers.py``) or ``stand-in,offer``
  (both: the stand-in plays while the offer is open).
- ``join``: ``open`` (a JOIN with its code takes a seat; the default) or ``approve`` (each
  JOIN waits for the game master's APPROVE or DECLINE, ``approval.py``).
- ``absence_days``: each player's absence allowance in this game, in days (default 0: no
  absences). Spent by ``SET ABSENCE`` and, in games whose deadlines wait, a day at a time when
  a deadline would pass without the player's orders (``absence.py``).
- ``absence``: what an absence does: ``wait`` (the round's deadline waits for the absent
  player) or ``nmr`` (the game's no-orders rule applies to him meanwhile, without reminders or
  missed rounds counted). Default ``nmr``; sequential games always wait, since their no-orders
  rule is a forfeit.
- ``min_reliability``: a JOIN or a TAKE by a player whose reliability (docs/club.md) is below
  this number, 0 to 100, is refused with his figure and this one (default none).
- ``rating``: the rating band the game is open to, ``1400-1800`` (or ``1400-``, ``-1800``): a
  JOIN by a player whose rating in the game's kind is outside it is refused (default none).
- ``webhook``: an https address the game's public notices are posted to besides mail (round
  opened, result, still waiting, game over, whose turn: docs/webhooks.md); ``webhook_secret``
  signs each post; ``webhook_format`` is ``discord``, ``slack`` or ``json`` (default: guessed
  from the address, else ``json``); ``webhook_mentions`` maps handles to their chat names,
  ``alice:<@123456>,bob:<@U0123ABC>``, mentioned in the posts that wait on them (whose turn,
  still to order). Default none.
- ``rated``: whether the game counts for the ratings when it ends (default: yes, unless a
  seat was played by the computer, from the start or as a stand-in).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from adjudicator.core.club import Band, BandError, parse_band
from adjudicator.core.schedule import (
    Schedule,
    ScheduleError,
    parse_duration,
    parse_schedule,
    zone_info,
)
from adjudicator.games import get_rules
from adjudicator.notify.webhook_address import RefusedAddress, split_url
from adjudicator.notify.webhook_formats import FORMATS, parse_mentions
from adjudicator.service import ServiceError
from adjudicator.storage.models import Game

DEFAULT_REMINDERS = ("24h", "2h")
SEQUENTIAL_GRACE = "24h"
SETTINGS = (
    "reminders",
    "grace",
    "early_close",
    "missed_rounds_limit",
    "require_auth",
    "private_press",
    "anonymous_press",
    "show_waiting",
    "nudge",
    "signup",
    "stand_ins",
    "absent",
    "absence_days",
    "absence",
    "join",
    "min_reliability",
    "rating",
    "rated",
    "webhook",
    "webhook_secret",
    "webhook_format",
    "webhook_mentions",
)
ABSENT = ("no-orders", "stand-in", "offer")
ABSENCE = ("wait", "nmr")
JOIN = ("open", "approve")
AUTH_CHECKS = ("dkim", "spf", "dmarc")


@dataclass(frozen=True)
class GameSettings:
    schedule: Schedule | None
    time_zone: str
    reminders: tuple[timedelta, ...]  # longest first
    grace: timedelta | None
    early_close: bool
    missed_rounds_limit: int
    require_auth: tuple[str, ...] = ()
    private_press: bool = True
    anonymous_press: bool = False
    stand_ins: tuple[str, ...] = ()
    absent_stand_in: bool = False
    absence_days: int = 0
    absence_wait: bool = False  # an absence holds the deadline (else: the no-orders rule)
    absent_offer: bool = False
    join_approve: bool = False
    min_reliability: int | None = None
    rating_band: Band | None = None
    show_waiting: bool = True
    nudge: timedelta | None = None  # after how long a turn's player is nudged

    def deadline(self, opened_at: datetime) -> datetime | None:
        return self.schedule.deadline(opened_at, self.time_zone) if self.schedule else None

    def grace_end(self, deadline: datetime | None) -> datetime | None:
        """Until when late orders count after ``deadline`` (None: not after it)."""
        return deadline + self.grace if deadline is not None and self.grace else None


def settings_of(game: Game) -> GameSettings:
    """The pace of a stored game (its settings were checked when they were stored). Read once
    for each set of values: a mail asks for them several times, and every mail of a game the
    same."""
    settings = json.dumps(game.settings, sort_keys=True)
    return _read_stored(game.kind, game.schedule, game.time_zone, settings)


@functools.lru_cache(maxsize=1024)
def _read_stored(kind: str, schedule: str | None, time_zone: str, settings: str) -> GameSettings:
    return read_settings(kind, schedule, time_zone, json.loads(settings))


def read_settings(
    kind: str, schedule: str | None, time_zone: str, settings: Mapping[str, Any]
) -> GameSettings:
    """Check and read; ``ServiceError`` names the bad setting and what it expects."""
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ServiceError(f"unknown setting {unknown[0]!r}: known are {', '.join(SETTINGS)}")
    try:
        zone_info(time_zone)
        parsed = parse_schedule(schedule) if schedule else None
        reminders = settings.get("reminders", DEFAULT_REMINDERS)
        if not isinstance(reminders, list | tuple):
            raise ServiceError('setting \'reminders\' is a list of durations, e.g. ["24h", "2h"]')
        sequential = get_rules(kind).sequential
        grace = settings.get("grace", SEQUENTIAL_GRACE if sequential else None)
        limit = settings.get("missed_rounds_limit", 2)
        if not isinstance(limit, int) or limit < 1:
            raise ServiceError(
                "setting 'missed_rounds_limit' is a whole number of rounds, 1 or more"
            )
        early = settings.get("early_close", parsed is None or not parsed.is_calendar)
        if not isinstance(early, bool):
            raise ServiceError("setting 'early_close' is true or false")
        required = settings.get("require_auth", [])
        if not isinstance(required, list | tuple) or not set(required) <= set(AUTH_CHECKS):
            raise ServiceError(
                "setting 'require_auth' is a list of checks among "
                f'{", ".join(AUTH_CHECKS)}, e.g. ["dkim", "spf"]'
            )
        signup = settings.get("signup", False)
        if not isinstance(signup, bool) and not (isinstance(signup, int) and signup >= 2):
            raise ServiceError(
                "setting 'signup' is true, false, or the number of players at which the game "
                "starts (2 or more)"
            )
        flags = ("private_press", "anonymous_press", "show_waiting")
        switches = {k: settings.get(k, k != "anonymous_press") for k in flags}
        for name, value in switches.items():
            if not isinstance(value, bool):
                raise ServiceError(f"setting {name!r} is true or false")
        stand_ins = settings.get("stand_ins", [])
        if not isinstance(stand_ins, list | tuple) or not all(
            isinstance(h, str) for h in stand_ins
        ):
            raise ServiceError("setting 'stand_ins' is a list of handles, e.g. [\"cat\"]")
        absent = _absent(settings.get("absent", "no-orders"))
        absence_days, absence_wait = _absence(settings, sequential=sequential)
        if settings.get("rated", True) not in (True, False):
            raise ServiceError("setting 'rated' is true or false")
        nudge = settings.get("nudge")
        if nudge and not sequential:
            raise ServiceError(
                "setting 'nudge' is for games played in turns; the others have reminders"
            )
        _check_webhook(settings)
        join = settings.get("join", "open")
        if join not in JOIN:
            raise ServiceError(f"setting 'join' is one of {', '.join(JOIN)}")
        return GameSettings(
            schedule=parsed,
            time_zone=time_zone,
            reminders=tuple(sorted((parse_duration(str(r)) for r in reminders), reverse=True)),
            grace=parse_duration(str(grace)) if grace else None,
            early_close=early,
            missed_rounds_limit=limit,
            require_auth=tuple(required),
            private_press=switches["private_press"],
            anonymous_press=switches["anonymous_press"],
            stand_ins=tuple(h.strip().lower() for h in stand_ins),
            absent_stand_in="stand-in" in absent,
            absent_offer="offer" in absent,
            join_approve=join == "approve",
            absence_days=absence_days,
            absence_wait=absence_wait,
            min_reliability=_min_reliability(settings.get("min_reliability")),
            rating_band=_band(settings.get("rating")),
            show_waiting=switches["show_waiting"],
            nudge=parse_duration(str(nudge)) if nudge else None,
        )
    except ScheduleError as error:
        raise ServiceError(str(error)) from None


def _check_webhook(settings: Mapping[str, Any]) -> None:
    """The webhook's settings: a URL of the right shape (what it resolves to is checked at
    each post, ``notify/webhook_address.py``), a secret, a known format."""
    url = settings.get("webhook")
    if url is not None and url != "":
        try:
            split_url(str(url), allow_http=True)
        except RefusedAddress as refused:
            raise ServiceError(f"setting 'webhook': {refused}") from None
    secret = settings.get("webhook_secret")
    if secret is not None and (not isinstance(secret, str) or len(secret) > 256):
        raise ServiceError("setting 'webhook_secret' is a text of at most 256 characters")
    chosen = settings.get("webhook_format")
    if chosen and str(chosen).lower() not in FORMATS:
        raise ServiceError(f"setting 'webhook_format' is one of {', '.join(FORMATS)}")
    try:
        parse_mentions(settings.get("webhook_mentions") or "")
    except ValueError as error:
        raise ServiceError(f"setting 'webhook_mentions': {error}") from None


def _min_reliability(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise ServiceError(
            "setting 'min_reliability' is a whole number from 0 to 100 (docs/club.md)"
        )
    return value


def _band(value: Any) -> Band | None:
    if value is None:
        return None
    try:
        return parse_band(str(value))
    except BandError:
        raise ServiceError(
            "setting 'rating' is a band of ratings, e.g. 1400-1800 (or 1400- for 1400 or "
            "more, -1800 for 1800 or less)"
        ) from None


def _absence(settings: Mapping[str, Any], *, sequential: bool) -> tuple[int, bool]:
    """The allowance in days, and whether an absence holds the deadline."""
    days = settings.get("absence_days", 0)
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= 366:
        raise ServiceError(
            "setting 'absence_days' is each player's absence allowance in days, 0 to 366 "
            "(0: no absences)"
        )
    effect = settings.get("absence", "wait" if sequential else "nmr")
    if effect not in ABSENCE:
        raise ServiceError(f"setting 'absence' is one of {', '.join(ABSENCE)}")
    if sequential and effect == "nmr":
        raise ServiceError(
            "setting 'absence' must be wait in a game played in turns: its no-orders rule "
            "is a forfeit, which an absence must never bring"
        )
    return days, effect == "wait"


def _absent(value: Any) -> frozenset[str]:
    """``absent``: one of :data:`ABSENT`, or ``stand-in,offer`` (the stand-in plays the seat
    while it is on offer)."""
    parts = value if isinstance(value, list | tuple) else str(value).replace("+", ",").split(",")
    chosen = frozenset(str(p).strip().lower() for p in parts if str(p).strip())
    if not chosen or not chosen <= set(ABSENT) or ("no-orders" in chosen and len(chosen) > 1):
        raise ServiceError(f"setting 'absent' is one of {', '.join(ABSENT)}, or stand-in,offer")
    return chosen
