"""What every ``adjudicate`` command shares: the configuration, the App, errors and exit codes.

Exit codes: 0 done, 1 unexpected failure, 2 usage or configuration error, 3 no such game, round
or player, 4 a re-run differs from the archive, 75 (sysexits EX_TEMPFAIL) for the mail server,
78 (sysexits EX_CONFIG) the database or the key file needs the operator first: a schema to
migrate after a backup, a key file to restore (``storage/opening.py``); the systemd unit does
not restart the service after it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn
from zoneinfo import ZoneInfo

import typer
from sqlalchemy.engine import Engine

from adjudicator.base.config import Config, ConfigError, load_config
from adjudicator.core.kind import GameKind
from adjudicator.service import ServiceError
from adjudicator.service.app import App, make_app
from adjudicator.service.solutions import make
from adjudicator.storage.db import TablesOfAnotherRole
from adjudicator.storage.opening import NotReady, OpenedKey, check_schema, open_key

EXIT_USAGE = 2
EXIT_DIFFERENT = 4  # --round re-run differs from the archive
EXIT_NOT_READY = 78  # sysexits EX_CONFIG: RestartPreventExitStatus in deploy/adjudicator.service


class State:
    """The global ``--config`` option, seen by every command."""

    config_path: Path | None = None


def config_from_state() -> Config:
    try:
        return load_config(State.config_path)
    except ConfigError as error:
        typer.echo(f"adjudicate: configuration: {error}", err=True)
        raise typer.Exit(EXIT_USAGE) from None


def app_from_config() -> App:
    return app_of(config_from_state())


def app_of(config: Config) -> App:
    """The App of ``config``, or the command ends with what keeps the database or the key
    file from being used, and the fix."""
    try:
        return make_app(config)
    except NotReady as error:
        not_ready(error)
    except TablesOfAnotherRole as error:
        fail(ServiceError(f"{error}\nfix: {error.fix}"))


def schema_ready(engine: Engine, key_file: Path, *, new_key: bool = False) -> OpenedKey:
    """What ``make_app`` checks, for a command that uses the database alone (``init``,
    ``archive build``): a new database gets its schema and key, any other is refused unless
    its schema is this version's and its key file the one its mail was made with."""
    try:
        check_schema(engine)
        return open_key(engine, key_file, now=datetime.now(UTC), new_key=new_key)
    except NotReady as error:
        not_ready(error)
    except TablesOfAnotherRole as error:
        fail(ServiceError(f"{error}\nfix: {error.fix}"))


def not_ready(error: NotReady) -> NoReturn:
    typer.echo(f"adjudicate: {error}", err=True)
    raise typer.Exit(EXIT_NOT_READY)


def fail(error: ServiceError) -> NoReturn:
    typer.echo(f"adjudicate: {error}", err=True)
    raise typer.Exit(error.exit_code)


def usage(message: str) -> NoReturn:
    typer.echo(f"adjudicate: {message}", err=True)
    raise typer.Exit(EXIT_USAGE)


def pairs(values: list[str], what: str, *, empty: bool = False) -> dict[str, str]:
    """``name=value`` options into a dict (names lower-cased); ``empty`` allows ``name=``."""
    result = {}
    for value in values:
        name, sep, setting = value.partition("=")
        if not sep or not name or not (setting or empty):
            usage(f"{what} {value!r}: expected name=value")
        result[name.strip().lower()] = setting.strip()
    return result


LIST_SETTINGS = ("reminders", "require_auth", "stand_ins")
INT_SETTINGS = ("missed_rounds_limit", "absence_days", "min_reliability")
BOOL_SETTINGS = (
    "early_close",
    "private_press",
    "anonymous_press",
    "show_waiting",
    "signup",
    "rated",
)
BOOLEANS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


def settings_from_text(raw: dict[str, str]) -> dict[str, Any]:
    """``--setting`` values into the JSON the game keeps (lists, numbers, true/false); the
    service checks them."""
    settings: dict[str, Any] = {}
    for name, text in raw.items():
        if name in LIST_SETTINGS:
            settings[name] = [part.strip().lower() for part in text.split(",") if part.strip()]
        elif name in INT_SETTINGS:
            settings[name] = int(text) if text.isdigit() else text
        elif name == "signup" and text.isdigit():
            settings[name] = int(text)
        elif name in BOOL_SETTINGS:
            settings[name] = BOOLEANS.get(text.lower(), text)
        else:
            settings[name] = text
    return settings


def local_moment(text: str, zone: str) -> datetime:
    """``2026-11-25 21:00`` (or ISO 8601 with an offset) read in ``zone`` when it has none."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        usage(f"{text!r} is not a date and time: write it like 2026-11-25 21:00")
    return moment if moment.tzinfo else moment.replace(tzinfo=ZoneInfo(zone))


def make_solution(config: Config, kind: GameKind) -> None:
    """Make the kind's complete solution now, if it has one and it is not there yet, so that
    its stand-in plays exactly from its first move (docs/stand-ins.md); says what it does."""
    if kind.solution is None:
        return
    try:
        make(config.solutions_path, kind, progress=lambda line: typer.echo(f"adjudicate: {line}"))
    except OSError as error:  # a folder this user may not write, a full disk: say which
        usage(
            f"configuration: the complete solution of {kind.title} cannot be made in "
            f"{config.solutions_path}: {error.strerror or error}; set service.solutions_dir "
            "(ADJUDICATOR_SOLUTIONS_DIR) to a folder this user may write, such as the unit's "
            "/var/cache/adjudicator/solutions (`adjudicate doctor` checks it)"
        )
