"""The ``adjudicate`` command: thin, it calls the service and the pure core."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from adjudicator import __version__
from adjudicator.base.config import Config
from adjudicator.base.logs import configure_logging
from adjudicator.cli import pipe
from adjudicator.cli.archive import app as archive_app
from adjudicator.cli.demo import DemoClock, describe, play_demo
from adjudicator.cli.gm import player_app
from adjudicator.cli.gm import register as register_game_commands
from adjudicator.cli.outbox import app as outbox_app
from adjudicator.cli.support import (
    EXIT_DIFFERENT,
    EXIT_USAGE,
    State,
    app_from_config,
    app_of,
    config_from_state,
    fail,
    make_solution,
    not_ready,
    pairs,
    schema_ready,
    settings_from_text,
    usage,
)
from adjudicator.cli.textreport import format_replay, state_lines
from adjudicator.cli.tournament import app as tournament_app
from adjudicator.core.errors import RecordError
from adjudicator.doctor import report
from adjudicator.games import (
    GAME_NAMES,
    KINDS,
    UnknownGame,
    kind_of,
    read_record,
    replay_record,
)
from adjudicator.serve.metrics import CannotListen
from adjudicator.serve.runner import serve
from adjudicator.service import ServiceError, solutions
from adjudicator.service.app import utcnow
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.creation import NewGame, set_up_game
from adjudicator.service.dry_run import ShownMail, result_mails_in_words, worth_showing
from adjudicator.service.games import PlayerSpec
from adjudicator.service.rerun import find_round, pick_game, rerun_round
from adjudicator.service.status import status_lines
from adjudicator.storage.backup import BackupError, backup
from adjudicator.storage.db import SCHEMA_HEAD, TablesOfAnotherRole, make_engine, session_scope
from adjudicator.storage.models import GameStatus, RoundState
from adjudicator.storage.opening import (
    WHAT_A_NEW_KEY_BREAKS,
    NotReady,
    move_schema,
    open_key,
)

app = typer.Typer(
    help="Run play-by-email games: take orders by mail, close rounds at their deadlines, "
    "adjudicate them by the rules and mail every player the result.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback(invoke_without_command=True)
def _main(
    context: typer.Context,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            help="Configuration file (default: $ADJUDICATOR_CONFIG, then ./adjudicator.toml).",
        ),
    ] = None,
    round_number: Annotated[
        int | None,
        typer.Option(
            "--round",
            help="Close and adjudicate round N now if it is open; if it was adjudicated, re-run "
            "it from its stored orders and show any difference from the archived result.",
        ),
    ] = None,
    game: Annotated[str | None, typer.Option(help="The game, for --round.")] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="With --round: show, store nothing, mail nothing.")
    ] = False,
) -> None:
    State.config_path = config
    if round_number is not None:
        if context.invoked_subcommand is not None:
            typer.echo("adjudicate: --round does not go with a command", err=True)
            raise typer.Exit(EXIT_USAGE)
        _round(round_number, game, dry_run=dry_run)
    elif context.invoked_subcommand is None:
        typer.echo(context.get_help())


def _show(
    kind: str, public_state: dict[str, Any], winners: list[str], draw: bool, finished: bool
) -> None:
    """A round's outcome in words, as ``adjudicate replay`` shows it."""
    for line in state_lines(kind_of(kind), public_state):
        typer.echo(line)
    if finished:
        typer.echo("  game over: " + ("a draw" if draw else " and ".join(winners) or "nobody wins"))


def _show_mails(mails: list[ShownMail]) -> None:
    """The result mails a dry run would send: the first player's, and each one that holds a
    player's own report."""
    shown = worth_showing(mails)
    others = len(mails) - len(shown)
    for mail in shown:
        typer.echo("")
        typer.echo(f"----- the result mail to {mail.handle} <{mail.address}> -----")
        typer.echo(f"Subject: {mail.subject}")
        typer.echo("")
        typer.echo(mail.text.rstrip("\n"))
    if others:
        typer.echo("")
        typer.echo(f"({others} more player(s) get the same report, each in their time zone)")


def _round(number: int, game_name: str | None, *, dry_run: bool) -> None:
    application = app_from_config()
    now = application.clock()
    try:
        with session_scope(application.engine) as session:
            game = pick_game(session, game_name)
            round_ = find_round(session, game, number)
            assert round_.id is not None
            if dry_run or round_.state in (RoundState.ADJUDICATED, RoundState.REPORTED):
                rerun = rerun_round(session, game, round_)
                session.rollback()
                label = "dry run (nothing stored or mailed)" if dry_run else "re-run"
                typer.echo(f"game {game.name}, round {number}: {label}")
                _show(game.kind, rerun.public_state, rerun.winners, rerun.draw, rerun.finished)
                if rerun.differences:
                    typer.echo("DIFFERENT from the archived result:")
                    for line in rerun.differences:
                        typer.echo(f"  {line}")
                    raise typer.Exit(EXIT_DIFFERENT)
                if not dry_run:
                    typer.echo("identical to the archived result")
                    return
                _show_mails(result_mails_in_words(session, round_, ctx=application.ctx, now=now))
                session.rollback()  # the round closed to render its mails: stored nothing
                return
            if round_.state == RoundState.OPEN and game.status != GameStatus.RUNNING:
                raise ServiceError(
                    f"game {game.name} is {game.status}: no round of it closes; resume it "
                    f"first (adjudicate game resume {game.name})"
                )
            closed = close_and_adjudicate(
                session, round_.id, ctx=application.ctx, now=now, force=True
            )
            if closed is None or closed.adjudicated is None:
                why = closed.error if closed else "another process is closing it"
                raise ServiceError(f"round {number} of {game.name} was not adjudicated: {why}")
            result = closed.adjudicated.result
        application.report()  # its pictures, then its result mails
        typer.echo(f"game {game.name}, round {number}: adjudicated, results queued")
        _show(game.kind, result.public_state, result.winners, result.draw, result.finished)
    except ServiceError as error:
        fail(error)


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(f"adjudicator {__version__}")


@app.command()
def init(
    new_key: Annotated[
        bool,
        typer.Option(
            "--new-key",
            help="Only when the key file is lost for good: make the database take a new key "
            "(the key file as it is, or a new one where it is missing). The reply addresses, "
            "bounce addresses, receipts and codes already mailed stop working.",
        ),
    ] = False,
) -> None:
    """Create the database and the key file, or check those there: an older schema is left
    to `adjudicate migrate` (after a backup), a missing or different key file is refused."""
    config = config_from_state()
    engine = make_engine(config.database_url)
    try:
        opened = schema_ready(engine, config.secret_key_path, new_key=new_key)
    finally:
        engine.dispose()
    typer.echo(f"database ready: {engine.url.render_as_string(hide_password=True)}")
    typer.echo(f"key file ready: {config.secret_key_path} (key id {opened.key_id})")
    if new_key and opened.change in ("made", "replaced"):
        typer.echo(f"adjudicate: the database now takes a new key: {WHAT_A_NEW_KEY_BREAKS}")


@app.command("migrate")
def migrate_command(
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            help="The revision to go to (default: this version's). An older one takes the "
            "schema back (Alembic downgrade) for the older version that needs it "
            "(deploy/README.md, 'Rolling back').",
        ),
    ] = None,
) -> None:
    """Bring the database's schema to this version's (Alembic migrations). Back it up first:
    `adjudicate backup FILE` (deploy/BACKUP.md)."""
    config = config_from_state()
    engine = make_engine(config.database_url)
    try:
        before, after = move_schema(engine, to or SCHEMA_HEAD)
        shown = engine.url.render_as_string(hide_password=True)
        typer.echo(f"database {shown}: schema {before or '(none)'} -> {after}")
        if after == SCHEMA_HEAD:
            opened = open_key(engine, config.secret_key_path, now=utcnow())
            typer.echo(f"key file ready: {config.secret_key_path} (key id {opened.key_id})")
    except NotReady as error:
        not_ready(error)
    except TablesOfAnotherRole as error:
        fail(ServiceError(f"{error}\nfix: {error.fix}"))
    finally:
        engine.dispose()


@app.command("backup")
def backup_command(
    target: Annotated[Path, typer.Argument(help="The backup file to write (a new file).")],
) -> None:
    """A consistent backup of the database while the service runs (SQLite's online backup, or
    pg_dump for PostgreSQL). Keep the key file with it: it is not in the database."""
    config = config_from_state()
    try:
        typer.echo(backup(config.database_url, target))
    except BackupError as error:
        fail(ServiceError(str(error)))
    typer.echo(f"keep a copy of the key file with it: {config.secret_key_path}")


@app.command("doctor")
def doctor_command(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Configuration file to check.")
    ] = None,
    send_to: Annotated[
        str | None, typer.Option("--send-to", help="Also send one test mail to this address.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object, for monitoring.")
    ] = False,
    unit: Annotated[
        Path | None,
        typer.Option(
            "--unit",
            help="The service's systemd unit, whose sandbox decides what it may write "
            "(default: /etc/systemd/system/adjudicator.service if installed).",
        ),
    ] = None,
) -> None:
    """Check the configuration, the paths the service writes, database, key file, IMAP, SMTP
    and DNS; say how to fix what is wrong. Exit code 0 only when everything is ready."""
    path = config or State.config_path
    raise typer.Exit(report(path, send_to=send_to, as_json=as_json, echo=typer.echo, unit=unit))


@app.command("replay")
def replay_command(
    record: Annotated[str, typer.Argument(help="A game record file, or - for standard input.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the JSON of docs/record-format.md.")
    ] = False,
) -> None:
    """Adjudicate a game record from its start and print every round's result."""
    try:
        text = sys.stdin.read() if record == "-" else Path(record).read_text(encoding="utf-8")
    except OSError as error:
        typer.echo(f"adjudicate: cannot read {record}: {error.strerror}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    except UnicodeDecodeError:
        typer.echo(f"adjudicate: {record} is not UTF-8 text", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    name = "<stdin>" if record == "-" else record
    try:
        result = replay_record(read_record(text))
    except (RecordError, UnknownGame) as error:
        typer.echo(f"adjudicate: {name}: {error}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    if as_json:
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        typer.echo(format_replay(result), nl=False)


def _logging(config: Config, *, level: str | None = None) -> None:
    try:
        configure_logging(
            log_format=config.service.log_format,
            level=level or config.service.log_level,
            log_file=config.service.log_file,
        )
    except (ValueError, OSError) as error:
        usage(f"configuration: {error}")


@app.command("serve")
def serve_command(
    once: Annotated[bool, typer.Option(help="One pass over everything, then exit.")] = False,
) -> None:
    """Run the service: read orders, close rounds at their deadlines, send the mails."""
    config = config_from_state()
    _logging(config)
    try:
        serve(app_of(config), once=once)
    except CannotListen as error:
        usage(str(error))


@app.command("demo")
def demo_command(
    keep_running: Annotated[
        bool, typer.Option("--keep-running", help="Afterwards, run the service for real.")
    ] = False,
    max_turns: Annotated[int, typer.Option(help="Stop after this many turns.")] = 300,
) -> None:
    """Play one game of every kind to its end by mail, through the real service on a fast
    clock, and say what happened and where to look (the README's first command)."""
    config = config_from_state()
    _logging(config, level="warning")  # the demonstration says what happens itself
    application = app_of(config)
    application.clock = DemoClock(utcnow())
    typer.echo(
        f"demo: the service runs on {config.database_url.split(':')[0]} in {config.data_path}/, "
        f"players' mail arrives in {config.maildir_path}/"
    )
    summary = play_demo(application, say=typer.echo, max_turns=max_turns)
    for line in describe(summary):
        typer.echo(line)
    if keep_running:
        application.clock = utcnow
        _logging(config)
        typer.echo("\nThe service keeps running; stop it with Ctrl-C.")
        try:
            serve(application)
        except CannotListen as error:
            usage(str(error))


game_app = typer.Typer(help="Create and manage games.", no_args_is_help=True)
app.add_typer(game_app, name="game")
register_game_commands(game_app)
app.add_typer(player_app, name="player", no_args_is_help=True)
app.add_typer(archive_app, name="archive", no_args_is_help=True)
app.add_typer(tournament_app, name="tournament", no_args_is_help=True)
app.add_typer(outbox_app, name="outbox", no_args_is_help=True)


@game_app.command("create")
def game_create(
    name: Annotated[str, typer.Argument(help="The game's tag, used in subjects: [NAME].")],
    kind: Annotated[str, typer.Option(help=f"One of: {', '.join(GAME_NAMES)}.")],
    player: Annotated[
        list[str],
        typer.Option(
            help="handle=address, once per player, in seat order; handle= (no address) for a "
            "seat the computer plays (--setting stand_ins=handle), which is mailed nothing."
        ),
    ],
    option: Annotated[list[str] | None, typer.Option(help="name=value game option.")] = None,
    time_zone: Annotated[str, typer.Option(help="The game's time zone.")] = "UTC",
    schedule: Annotated[
        str | None,
        typer.Option(
            help="When rounds close: a time after opening (72h, 2d) or days and times in the "
            "game's time zone ('tue,fri 21:00', 'daily 21:00 min 12h'). None: by hand."
        ),
    ] = None,
    gm: Annotated[str | None, typer.Option(help="The game master's address, for notices.")] = None,
    setting: Annotated[
        list[str] | None,
        typer.Option(
            help="name=value: reminders=24h,2h  grace=12h  early_close=false  "
            "missed_rounds_limit=2  require_auth=dkim,spf  private_press=false  "
            "anonymous_press=true  show_waiting=false  nudge=24h  signup=true  "
            "absence_days=14  absence=wait"
        ),
    ] = None,
    start: Annotated[bool, typer.Option(help="Open round 1 at once.")] = True,
) -> None:
    """Create a game; every player is mailed a welcome with their password."""
    application = app_from_config()
    players = [PlayerSpec(h, a) for h, a in pairs(player, "--player", empty=True).items()]
    try:
        new = NewGame(
            name=name,
            kind=kind,
            players=players,
            options=pairs(option or [], "--option"),
            time_zone=time_zone,
            schedule=schedule,
            settings=settings_from_text(pairs(setting or [], "--setting")),
            gm_address=gm,
        )
        # An unknown game is refused by set_up_game, after the game's name is checked.
        if kind.lower() in GAME_NAMES and new.stand_ins_may_play:  # exact from move 1
            make_solution(application.config, kind_of(kind))
        with session_scope(application.engine) as session:
            game, credentials = set_up_game(
                session, new, ctx=application.ctx, now=application.clock(), start=start
            )
    except ServiceError as error:
        fail(error)
    typer.echo(
        f"game {game.name} created ({game.kind}, {len(players)} players)"
        + (", round 1 open" if start else "")
        + (f"; summary mailed to the game master {gm}" if gm else "")
    )
    for cred in credentials:
        if cred.address:
            typer.echo(f"  {cred.handle:<16} {cred.address:<32} welcome mail queued")
        else:
            typer.echo(f"  {cred.handle:<16} {'(no address)':<32} played by the computer")


@app.command("solve")
def solve_command() -> None:
    """Make the complete solution of every game that has one (Three Musketeers: 0.18 GB, a few
    minutes), so that its stand-in plays exactly from its first move (docs/stand-ins.md). A
    game created with computer seats makes it too; this makes it ahead. A table of an earlier
    layout is replaced."""
    config = config_from_state()
    for kind in KINDS:
        if kind.solution is not None:
            there = solutions.ready(config.solutions_path, kind.solution)
            old = solutions.old_files(config.solutions_path, kind.solution)
            make_solution(config, kind)
            path = solutions.file_of(config.solutions_path, kind.solution)
            replaced = f" (replaces {', '.join(p.name for p in old)})" if old else ""
            typer.echo(f"{kind.title}: {'already made' if there else 'made'}, {path}{replaced}")


@app.command()
def status(
    name: Annotated[str | None, typer.Argument(help="One game (default: all).")] = None,
) -> None:
    """Show games, their rounds and who has ordered."""
    application = app_from_config()
    with session_scope(application.engine) as session:
        try:
            lines = status_lines(session, name=name, now=application.clock())
        except ServiceError as error:
            fail(error)
    typer.echo("\n".join(lines))


@app.command()
def receive() -> None:
    """Read one message on standard input (for procmail, .forward or a Postfix alias) into
    the service's Maildir, where the running service reads it (``pipe.py``)."""
    status = pipe.receive(State.config_path, source=sys.stdin.buffer, errors=sys.stderr)
    if status:
        raise typer.Exit(status)


def main() -> None:
    app()
