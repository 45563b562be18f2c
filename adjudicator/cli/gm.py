"""The game master's commands on running games: ``adjudicate game pause|resume|extend|start|
rollback`` and ``adjudicate player add|replace|remove|offer|approve|decline|address|record``.
Thin: each opens one transaction, calls the service and says what happened."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, TypeVar

import typer
from sqlmodel import Session

from adjudicator.cli.support import app_from_config, fail, local_moment, make_solution
from adjudicator.core.schedule import ScheduleError, parse_duration
from adjudicator.games import kind_of
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.times import local_time
from adjudicator.readmodel.club import record_of
from adjudicator.service import ServiceError, gm, gm_mail, gm_news
from adjudicator.service.announcements import tell_started
from adjudicator.service.app import App
from adjudicator.service.approval import decide, request_of
from adjudicator.service.closing import begin_game
from adjudicator.service.games import find_game
from adjudicator.service.handover import find_seat
from adjudicator.service.offers import offer_seat
from adjudicator.service.signup import close_waiting_joins
from adjudicator.service.standby import standby_addresses
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game

T = TypeVar("T")
GameName = Annotated[str, typer.Argument(help="The game's name.")]
Handle = Annotated[str, typer.Argument(help="The player's handle in the game.")]
Address = Annotated[str, typer.Argument(help="The player's mail address.")]

player_app = typer.Typer(help="Add, replace or remove players; change an address.")


def _run(
    name: str,
    action: Callable[[Session, Game, ServiceContext, datetime], T],
    *,
    solved: bool = False,
) -> T:
    """Run ``action`` on game ``name`` in one transaction; errors become exit codes. With
    ``solved``, the game's complete solution is made first, if it has one (a stand-in is put
    in: it then plays exactly from its first move)."""
    application: App = app_from_config()
    try:
        if solved:
            with session_scope(application.engine) as session:
                kind = kind_of(find_game(session, name).kind)
            make_solution(application.config, kind)
        with session_scope(application.engine) as session:
            game = find_game(session, name)
            done = action(session, game, application.ctx, application.clock())
    except ServiceError as error:
        fail(error)
    application.report()  # a round the command closed (a resume with every order in)
    return done


def register(game_app: typer.Typer) -> None:
    """Add the commands on existing games to ``adjudicate game``."""
    game_app.command("start")(start)
    game_app.command("pause")(pause)
    game_app.command("resume")(resume)
    game_app.command("extend")(extend)
    game_app.command("rollback")(rollback)
    game_app.command("gm")(game_master)


def start(name: GameName) -> None:
    """Open round 1 of a game created with --no-start; every player (and the game master) is
    told, with the players and the deadline."""

    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> str:
        round_ = begin_game(session, game, ctx=ctx, now=now)
        session.flush()
        tell_started(session, ctx=ctx, game=game, first_round=round_, now=now)
        close_waiting_joins(session, ctx=ctx, game=game, now=now)
        if round_.deadline is None:
            return f"no deadline: close it with adjudicate --round 1 --game {game.name}"
        return f"deadline {local_time(round_.deadline, game.time_zone)}"

    deadline = _run(name, action)
    typer.echo(f"game {name}: round 1 open ({deadline}); every player told")


def pause(name: GameName) -> None:
    """Pause a game: no round closes until it is resumed. The players are told."""
    _run(name, lambda session, game, ctx, now: gm.pause(session, game, ctx=ctx, now=now))
    typer.echo(f"game {name}: paused; players told")


def resume(name: GameName) -> None:
    """Resume a paused game; the deadline moves by the length of the pause."""

    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> str:
        round_ = gm.resume(session, game, ctx=ctx, now=now)
        return local_time(round_.deadline if round_ else None, game.time_zone)

    deadline = _run(name, action)
    typer.echo(f"game {name}: running again, deadline {deadline}; players told")


def extend(
    name: GameName,
    by: Annotated[str | None, typer.Option(help="How much later: 24h, 2d, 90m.")] = None,
    until: Annotated[
        str | None,
        typer.Option(help="The new deadline, in the game's time zone: 2026-11-25 21:00."),
    ] = None,
    earlier: Annotated[
        bool,
        typer.Option("--earlier", help="Allow --until to bring the deadline forward."),
    ] = False,
) -> None:
    """Move the deadline of the open round; the players are told."""
    if (by is None) == (until is None):
        fail(ServiceError("give either --by or --until", exit_code=2))
    try:
        duration = parse_duration(by) if by else None
    except ScheduleError as error:
        fail(ServiceError(str(error), exit_code=2))

    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> str:
        moment = local_moment(until, game.time_zone) if until else None
        round_ = gm.extend(
            session, game, ctx=ctx, now=now, by=duration, until=moment, earlier=earlier
        )
        return f"round {round_.number} deadline {local_time(round_.deadline, game.time_zone)}"

    typer.echo(f"game {name}: {_run(name, action)}; players told")


def rollback(
    name: GameName,
    round_number: Annotated[int, typer.Option("--round", help="Go back to the start of it.")],
) -> None:
    """Discard the results of round N and later; round N opens again with its orders."""

    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> str:
        done = gm.rollback(session, game, round_number, ctx=ctx, now=now)
        return (
            f"round {done.round.number} open again (deadline "
            f"{local_time(done.round.deadline, game.time_zone)}); {done.discarded_rounds} "
            f"round(s) discarded, {done.cancelled_mails} unsent mail(s) cancelled"
        )

    typer.echo(f"game {name}: {_run(name, action)}")


def game_master(
    name: GameName,
    address: Annotated[
        str | None, typer.Argument(help="A new game master's address (default: the same).")
    ] = None,
) -> None:
    """Give the game master a new reply address (and, if given, a new mail address): the
    addresses in earlier mails no longer run the game by mail. The game master is mailed the
    new one."""

    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> str:
        return gm_mail.renew_game_master(session, game, address=address, ctx=ctx, now=now)

    to = _run(name, action)
    typer.echo(f"game {name}: new game master's address mailed to {to}; the old one is void")


@player_app.command("add")
def add(game_name: GameName, handle: Handle, address: Address) -> None:
    """Add a player to a game that has not started; they get a welcome mail."""
    _seat_at(game_name, handle, address, gm.add_player, f"{handle} added, welcome mail queued")


@player_app.command("replace")
def replace(game_name: GameName, handle: Handle, address: Address) -> None:
    """Hand a seat to a new person: new address and secret; they get a welcome mail."""
    done = f"{handle} is now played from {address}, welcome mail queued"
    _seat_at(game_name, handle, address, gm.replace_player, done)


def _seat_at(
    game_name: str, handle: str, address: str, change: Callable[..., object], done: str
) -> None:
    """Put the seat ``handle`` at ``address`` with the service's ``change``, called as
    ``change(session, game, handle, address, ctx=ctx, now=now)`` (``gm.add_player``,
    ``gm.replace_player``, ``gm.change_address``), and say what was ``done``."""
    _run(
        game_name,
        lambda session, game, ctx, now: change(session, game, handle, address, ctx=ctx, now=now),
    )
    typer.echo(f"game {game_name}: {done}")


@player_app.command("remove")
def remove(game_name: GameName, handle: Handle) -> None:
    """Remove a player: before the start, the seat goes; later, the seat stays under the
    game's no-orders rule and gets no more mail."""

    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> int:
        gm.remove_player(session, game, handle)
        return gm_news.tell_change(
            session, game, change="removed", handle=handle.lower(), ctx=ctx, now=now
        )

    told = _run(game_name, action)
    typer.echo(f"game {game_name}: {handle} removed; {told} player(s) told")


@player_app.command("stand-in")
def stand_in(
    game_name: GameName,
    handle: Handle,
    off: Annotated[bool, typer.Option("--off", help="Give the seat back to its player.")] = False,
) -> None:
    """Let the computer play a seat (docs/stand-ins.md) until --off or a replacement; its
    orders are stored like a player's, and every result says which seats it played."""

    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> list[str]:
        moved = gm.put_stand_in(session, game, handle, on=not off, ctx=ctx, now=now)
        change = "stand_in_off" if off else "stand_in"
        gm_news.tell_change(session, game, change=change, handle=handle.lower(), ctx=ctx, now=now)
        return moved

    moved = _run(game_name, action, solved=not off)
    if off:
        typer.echo(f"game {game_name}: {handle} plays their own seat again")
    else:
        played = "; it has sent its orders for the open round" if moved else ""
        typer.echo(f"game {game_name}: a stand-in plays {handle}'s seat{played}")


@player_app.command("offer")
def offer(game_name: GameName, handle: Handle) -> None:
    """Offer a seat to the players on the standby list for the game's kind: the first to
    accept by mail takes it over, and everybody is told."""

    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> int:
        seat = find_seat(session, game, handle)
        offer_seat(session, game, seat, ctx=ctx, now=now, reason="gm")
        return len(standby_addresses(session, game.kind))

    waiting = _run(game_name, action)
    typer.echo(f"game {game_name}: {handle}'s seat offered; {waiting} address(es) on standby")


@player_app.command("approve")
def approve(game_name: GameName, address: Address) -> None:
    """Let in a player whose JOIN waits for you (setting join=approve); he is told."""
    _decide(game_name, address, approve=True)


@player_app.command("decline")
def decline(game_name: GameName, address: Address) -> None:
    """Turn away a player whose JOIN waits for you (setting join=approve); he is told."""
    _decide(game_name, address, approve=False)


def _decide(game_name: str, address: str, *, approve: bool) -> None:
    def action(session: Session, game: Game, ctx: ServiceContext, now: datetime) -> bool:
        request = request_of(session, game, address)
        return decide(session, game, request, approve=approve, ctx=ctx, now=now)

    started = _run(game_name, action)
    done = "let in" if approve else "turned away"
    typer.echo(
        f"game {game_name}: {address} {done} and told"
        + ("; the game has started" if started else "")
    )


@player_app.command("address")
def address(game_name: GameName, handle: Handle, new_address: Address) -> None:
    """Change a player's address (clears the unreachable mark of a bounce); replies to mails
    sent to the old address no longer count."""
    done = f"{handle} now at {new_address}; told at both addresses"
    _seat_at(game_name, handle, new_address, gm.change_address, done)


@player_app.command("record")
def record(address: Address) -> None:
    """A person's record across every game, and his reliability (docs/club.md)."""
    application: App = app_from_config()
    with session_scope(application.engine) as session:
        found = record_of(session, address, now=application.clock())
    typer.echo(f"{address.strip().lower()}:")
    typer.echo(f"  games: {found.played} played, {found.finished} finished, {found.won} won")
    typer.echo(
        f"  seats: {found.taken_over} taken over, {found.abandoned} left before the end "
        f"({found.resigned} resigned)"
    )
    typer.echo(f"  rounds: {found.on_time} on time, {found.late} late, {found.missed} missed")
    typer.echo(
        f"  reliability: {found.reliability} (last {len(found.recent)} rounds, "
        f"{found.recent_abandoned} seats left this past year)"
    )
