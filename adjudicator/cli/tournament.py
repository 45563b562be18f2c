"""``adjudicate tournament create|show|withdraw|replace``: tournaments by mail
(docs/tournaments.md). Thin: each command opens one transaction, calls the service and says
what happened."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer
from sqlmodel import Session

from adjudicator.cli.support import app_from_config, fail, pairs, settings_from_text
from adjudicator.core.standings import figure
from adjudicator.games import GAME_NAMES
from adjudicator.readmodel.tournaments import standings_of
from adjudicator.service import ServiceError
from adjudicator.service.app import App
from adjudicator.service.games import PlayerSpec
from adjudicator.service.tournament_signup import decide_join
from adjudicator.service.tournaments import (
    advance,
    club_ratings,
    create_tournament,
    find_tournament,
    replace_player,
    start_tournament,
    withdraw,
)
from adjudicator.storage.db import session_scope
from adjudicator.storage.tournaments import Tournament, entrants_of, games_of, players_of

app = typer.Typer(help="Run tournaments: round-robin or Swiss, each pairing a game.")
Name = Annotated[str, typer.Argument(help="The tournament's name (its games are NAMErNgM).")]


@app.command("create")
def create(  # noqa: PLR0917 - Typer maps function parameters to options
    name: Name,
    kind: Annotated[str, typer.Option(help=f"One of: {', '.join(GAME_NAMES)}.")],
    format: Annotated[str, typer.Option(help="round-robin or swiss.")],
    player: Annotated[
        list[str] | None, typer.Option(help="handle=address, once per player, in seed order.")
    ] = None,
    rounds: Annotated[
        int | None, typer.Option(help="How many rounds (Swiss, multiplayer games).")
    ] = None,
    sides: Annotated[
        str, typer.Option(help="both: a pairing plays a game on each side; one: one game.")
    ] = "both",
    table_size: Annotated[
        int | None, typer.Option(help="Most players a game (Giveaway, SiSSYFiGHT).")
    ] = None,
    schedule: Annotated[str | None, typer.Option(help="Each game's schedule (72h).")] = None,
    setting: Annotated[
        list[str] | None,
        typer.Option(help="name=value, for each game (min_reliability, rating: JOIN too)."),
    ] = None,
    option: Annotated[list[str] | None, typer.Option(help="name=value game option.")] = None,
    gm: Annotated[str | None, typer.Option(help="The game master's address.")] = None,
    signup: Annotated[
        bool, typer.Option(help="Open to JOIN NAME by mail; start it with 'tournament start'.")
    ] = False,
    approve: Annotated[bool, typer.Option(help="Each JOIN waits for your approval.")] = False,
) -> None:
    """Create a tournament and start its first round (with --signup: open it to JOIN by mail
    instead): each player gets the round's mail and a welcome for each of his games."""
    application = app_from_config()
    players = [PlayerSpec(h, a) for h, a in pairs(player or [], "--player").items()]
    now = application.clock()
    try:
        with session_scope(application.engine) as session:
            tournament = create_tournament(
                session,
                name=name,
                kind=kind,
                format=format,
                players=players,
                rounds=rounds,
                sides=sides,
                table_size=table_size,
                schedule=schedule,
                settings=settings_from_text(pairs(setting or [], "--setting")),
                options=pairs(option or [], "--option"),
                gm_address=gm,
                signup=signup,
                join_approve=approve,
                ratings=club_ratings(session),
                now=now,
            )
            if signup:
                typer.echo(f"tournament {tournament.name} created, open to JOIN by mail")
                return
            facts = [tournament.kind, tournament.format, f"{len(players)} players"]
            _start(session, tournament, application, now=now, verb="created", facts=facts)
    except ServiceError as error:
        fail(error)
    application.report()


@app.command("start")
def start(name: Name) -> None:
    """Close the sign-up and start round 1."""
    application = app_from_config()
    now = application.clock()
    try:
        with session_scope(application.engine) as session:
            tournament = find_tournament(session, name)
            _start(session, tournament, application, now=now, verb="started", facts=[])
    except ServiceError as error:
        fail(error)
    application.report()


def _start(
    session: Session,
    tournament: Tournament,
    application: App,
    *,
    now: datetime,
    verb: str,
    facts: list[str],
) -> None:
    """Start round 1, the players seeded by the club's ratings, and say so: what was done
    (``verb``), the ``facts`` and the number of rounds (known once started), round 1's games."""
    games = start_tournament(
        session, tournament, ctx=application.ctx, now=now, ratings=club_ratings(session)
    )
    rounds = f"{tournament.rounds} round" + ("" if tournament.rounds == 1 else "s")
    said = ", ".join([*facts, rounds])
    typer.echo(
        f"tournament {tournament.name} {verb} ({said}); round 1: "
        + ", ".join(g.name for g in games)
    )


@app.command("advance")
def advance_round(name: Name) -> None:
    """Pair the next round (or end the tournament) if every game of the round is decided: what
    the end of the round's last game does, again (after a pairing that failed)."""
    application = app_from_config()
    now = application.clock()
    try:
        with session_scope(application.engine) as session:
            tournament = find_tournament(session, name)
            moved = advance(session, tournament, ctx=application.ctx, now=now)
            state = "over" if tournament.finished_at else f"at round {tournament.current_round}"
    except ServiceError as error:
        fail(error)
    typer.echo(f"tournament {name} is {state}" + ("" if moved else ": nothing to do"))


@app.command("approve")
def approve_join(
    name: Name, handle: Annotated[str, typer.Argument(help="Who asked to join.")]
) -> None:
    """Let a JOIN waiting for you in."""
    _decide(name, handle, approve=True)


@app.command("decline")
def decline_join(
    name: Name, handle: Annotated[str, typer.Argument(help="Who asked to join.")]
) -> None:
    """Turn a JOIN waiting for you away."""
    _decide(name, handle, approve=False)


def _decide(name: str, handle: str, *, approve: bool) -> None:
    application = app_from_config()
    try:
        with session_scope(application.engine) as session:
            tournament = find_tournament(session, name)
            decide_join(
                session,
                tournament,
                handle,
                approve=approve,
                ctx=application.ctx,
                now=application.clock(),
            )
    except ServiceError as error:
        fail(error)
    typer.echo(f"{handle} {'joins' if approve else 'is turned away from'} tournament {name}")


@app.command("show")
def show(name: Name) -> None:
    """The standings and the games of each round."""
    application = app_from_config()
    try:
        with session_scope(application.engine) as session:
            tournament = find_tournament(session, name)
            state = "over" if tournament.finished_at else f"round {tournament.current_round}"
            typer.echo(f"{tournament.name}: {tournament.kind}, {tournament.format}, {state}")
            for line in standings_of(session, tournament):
                typer.echo(
                    f"{line.rank:>3}. {line.player:<16} {figure(line.score):>5}"
                    f" {figure(line.buchholz):>5} {figure(line.sonneborn_berger):>5}"
                    + ("  (withdrawn)" if line.withdrawn else "")
                )
            for entrant in entrants_of(session, tournament):
                if entrant.status == "waiting":
                    typer.echo(f"  {entrant.handle} asks to join ({entrant.address})")
            known = {p.handle for p in players_of(session, tournament)}
            for row in games_of(session, tournament):
                who = " - ".join(p for p in row.players if p in known)
                what = "bye" if len(row.players) == 1 else f"game {row.game_id or 'forfeited'}"
                typer.echo(f"  round {row.round}: {who} ({what})")
    except ServiceError as error:
        fail(error)


@app.command("withdraw")
def withdraw_player(
    name: Name, handle: Annotated[str, typer.Argument(help="The player's handle.")]
) -> None:
    """A player leaves: his games under way are forfeited, he is paired no more."""
    application = app_from_config()
    now = application.clock()
    try:
        with session_scope(application.engine) as session:
            tournament = find_tournament(session, name)
            withdraw(session, tournament, handle, ctx=application.ctx, now=now)
    except ServiceError as error:
        fail(error)
    typer.echo(f"{handle} withdrew from tournament {name}")


@app.command("replace")
def replace(
    name: Name,
    handle: Annotated[str, typer.Argument(help="The player's handle.")],
    address: Annotated[str, typer.Argument(help="The new player's address.")],
) -> None:
    """Another person takes a player's place: his results, his games under way and to come."""
    application = app_from_config()
    now = application.clock()
    try:
        with session_scope(application.engine) as session:
            tournament = find_tournament(session, name)
            games = replace_player(
                session, tournament, handle, address, ctx=application.ctx, now=now
            )
    except ServiceError as error:
        fail(error)
    typer.echo(
        f"{handle} of tournament {name} is played from {address} now"
        + (f"; seats handed over in {', '.join(g.name for g in games)}" if games else "")
    )
