"""The commands about time away: ``SET ABSENCE`` for one game, ``SET QUIET`` and ``SET WEEKEND``
for the person.

``SET ABSENCE`` is for the section's game: its allowance is that game's (``absence.py``). A
window that costs more than the days left, overlaps an absence already announced or has passed
is refused with the reason and the days left; a window taken is announced to every player and
the game master. ``SET ABSENCE OFF`` ends the absence in course (its days begun stay spent) and
withdraws those not begun (their days come back).

Quiet hours and weekend days belong to the person, like a time zone (``storage/persons.py``):
they hold in every game he plays under the proven seat's address, now and later, and are read
in his own time zone (the game's when he has set none).
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.core.away import AwayError, Window, absence_window, days_used, weekend_text
from adjudicator.core.schedule import DAYS
from adjudicator.core.text import counted
from adjudicator.games import kind_of
from adjudicator.mail.commands import Command, CommandProblem, SetAbsence, SetQuiet, SetWeekend
from adjudicator.notify.times import local_time
from adjudicator.service import conversation
from adjudicator.service.absence import announce, days_left, record_absence
from adjudicator.service.handling import PersonHandling, SeatedHandling, SectionHandling
from adjudicator.service.rounds import open_round_of
from adjudicator.service.settings import settings_of
from adjudicator.storage import persons, queries
from adjudicator.storage.models import Absence, Game, GameStatus, Seat

DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def set_absence(
    handling: SeatedHandling, commands: Sequence[Command], problems: Sequence[CommandProblem]
) -> bool:
    game, seat = handling.game, handling.seat
    bad = list(problems)
    for command in commands:
        assert isinstance(command, SetAbsence)
        why = _refusal(game)
        if why is None:
            why = _take(handling, game, seat, command) if command.asked else _end(handling, seat)
        if why is not None:
            bad.append(CommandProblem(SetAbsence, command.line, why))
    if bad:
        conversation.answer_problems(handling, [], bad)
    return not bad


def _refusal(game: Game) -> str | None:
    if game.status == GameStatus.FINISHED:
        return f"game {game.name} is over: there is nothing to be away from"
    if not settings_of(game).absence_days:
        return (
            f"game {game.name} has no absence allowance (its game master has not set one); "
            "ask the game master if you must be away"
        )
    return None


def _zone(game: Game, seat: Seat) -> str:
    return seat.time_zone or game.time_zone


def _take(handling: SectionHandling, game: Game, seat: Seat, command: SetAbsence) -> str | None:
    """Store and announce the window asked for; why not, if it is refused."""
    assert command.asked is not None
    now, session = handling.now, handling.session
    settings = settings_of(game)
    zone = _zone(game, seat)
    try:
        window = absence_window(command.asked, now=now, zone=zone)
    except AwayError as error:
        return str(error)
    left = days_left(session, settings, seat.id)
    if window.days > left:
        return (
            f"that is {window.days} day{'s' if window.days != 1 else ''} away, and you have "
            f"{left} of your {counted(settings.absence_days, 'day')} of absence in game "
            f"{game.name} left; nothing was changed"
        )
    for other in _announced(handling, seat):
        if window.starts_at < other.ends_at and other.starts_at < window.ends_at:
            return (
                f"you are away already from {local_time(other.starts_at, zone)} until "
                f"{local_time(other.ends_at, zone)}; write SET ABSENCE OFF first to change it"
            )
    record_absence(
        session,
        game=game,
        seat=seat,
        window=window,
        key=f"asked:{handling.key}:{command.line.number}",
        automatic=False,
        now=now,
    )
    left -= window.days
    details = {
        "player": seat.handle,
        "starts": window.starts_at,
        "ends": window.ends_at,
        "days": window.days,
        "days_left": left,
        "wait": settings.absence_wait,
    }
    round_ = open_round_of(session, game)
    announce(
        session,
        ctx=handling.ctx,
        game=game,
        round_=round_,
        event_name="set",
        key=f"set:{handling.key}:{command.line.number}",
        now=now,
        **details,
    )
    shown = details | {"starts": local_time(window.starts_at, zone)}
    shown["ends"] = local_time(window.ends_at, zone)
    handling.answer_seat(
        seat,
        "set_absence",
        shown | {"game": game.name, "off": False, "round_word": kind_of(game.kind).round_word},
    )
    handling.notes.append(f"absence of {window.days} day(s) taken")
    return None


def _announced(handling: SectionHandling, seat: Seat) -> list[Absence]:
    """The seat's absences asked for that have not ended."""
    return [
        a
        for a in queries.absences_of(handling.session, seat.id)
        if not a.automatic and a.ends_at > handling.now and a.ends_at > a.starts_at
    ]


def _end(handling: SeatedHandling, seat: Seat) -> str | None:
    """SET ABSENCE OFF: the absence in course ends now, those to come are withdrawn."""
    game, now, session = handling.game, handling.now, handling.session
    ended = _announced(handling, seat)
    if not ended:
        return f"you have no absence in game {game.name} to end"
    for absence in ended:
        window = Window(absence.starts_at, absence.ends_at, absence.days)
        absence.days = days_used(window, now=now)
        absence.ends_at = max(min(absence.ends_at, now), absence.starts_at)
        session.add(absence)
    session.flush()
    left = days_left(session, settings_of(game), seat.id)
    first = ended[0]
    details = {
        "player": seat.handle,
        "starts": first.starts_at if len(ended) == 1 else None,
        "ends": first.ends_at if len(ended) == 1 else None,
        "days_left": left,
    }
    announce(
        session,
        ctx=handling.ctx,
        game=game,
        round_=open_round_of(session, game),
        event_name="off",
        key=f"off:{handling.key}",
        now=now,
        **details,
    )
    context = {"game": game.name, "off": True, "days_left": left, "player": seat.handle}
    handling.answer_seat(seat, "set_absence", context)
    handling.notes.append("absence ended")
    return None


# --- quiet hours and weekend days --------------------------------------------------------------


def set_quiet_times(
    handling: PersonHandling, commands: Sequence[Command], problems: Sequence[CommandProblem]
) -> bool:
    """SET QUIET and SET WEEKEND, for every seat of the person."""
    seat = handling.seat
    seats = _seats_of_person(handling, seat)
    for command in commands:
        if isinstance(command, SetQuiet):
            hours = str(command.hours) if command.hours else None
            persons.change(handling.session, seat.address, now=handling.now, quiet_hours=hours)
        elif isinstance(command, SetWeekend):
            days = weekend_text(command.days) if command.days else None
            persons.change(handling.session, seat.address, now=handling.now, weekend=days)
    if commands:
        zone = seat.time_zone or (seats[0][1].time_zone if seats else "UTC")
        context = {
            "quiet": seat.quiet_hours,
            "weekend": seat.weekend,
            "weekend_words": _day_names(seat.weekend),
            "zone": zone,
            "games": [game.name for _, game in seats],
        }
        handling.answer_seat(seat, "set_quiet", context)
        handling.notes.append(f"quiet hours {seat.quiet_hours}, weekend {seat.weekend}")
    if problems:
        conversation.answer_problems(handling, [], problems)
    return not problems


def _seats_of_person(handling: SectionHandling, seat: Seat) -> list[tuple[Seat, Game]]:
    """The seats registered under ``seat``'s address in games not over (``seat`` first)."""
    found = []
    for other in queries.seats_at_address(handling.session, seat.address):
        game = handling.session.get(Game, other.game_id)
        if game is not None and game.status != GameStatus.FINISHED and other.active:
            found.append((other, game))
    found.sort(key=lambda pair: pair[0].id != seat.id)
    return found


def _day_names(weekend: str | None) -> str:
    """``sat,sun`` as a player says it: ``Saturdays and Sundays``."""
    names = [f"{DAY_NAMES[DAYS.index(d)]}s" for d in (weekend or "").split(",") if d in DAYS]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
