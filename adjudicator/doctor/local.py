"""The checks that need no network: the configuration, the database and its schema, the key
file, the games' complete solutions (the folders the service writes: ``paths.py``)."""

from __future__ import annotations

import os
import re
import socket
import stat
import tomllib
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url

from adjudicator.base.config import CONFIG_ENV, DEFAULT_FILE, Config, ConfigError, load_config
from adjudicator.base.logs import log_file_problem, log_problems
from adjudicator.base.security import key_id
from adjudicator.doctor.check import FAIL, OK, SKIP, WARN, Check, words
from adjudicator.games import KINDS
from adjudicator.serve.metrics import cannot_listen
from adjudicator.service.solutions import file_of, old_files, ready
from adjudicator.storage.db import (
    SCHEMA_HEAD,
    TablesOfAnotherRole,
    alembic_config,
    make_engine,
    schema_revision,
    session_scope,
)
from adjudicator.storage.opening import MIGRATE_FIX, holds_games, recorded_key_id

# A plain address as the service sends From: a dot-atom local part and a host name (or
# localhost, or an address literal). Display names belong in service.name.
_ADDRESS = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?"
    r"|\[[0-9A-Fa-f.:]+\])"
)
_KEY = re.compile(rb"[0-9a-f]{64}")  # what security.load_or_create_key writes
_LOST_FIX = (
    "restore the key file from the backup taken with this database (deploy/BACKUP.md), or point "
    "service.secret_key_file (ADJUDICATOR_SECRET_KEY_FILE) at it: every reply address, bounce "
    "address, receipt and code mailed to players works only with that key. Only if it is lost "
    "for good: `adjudicate init --new-key` (what it breaks: deploy/BACKUP.md)"
)
_KEY_FIX = (
    "run `adjudicate init` to create it, or point service.secret_key_file "
    "(ADJUDICATOR_SECRET_KEY_FILE) at the key every instance shares"
)


def config_file(path: Path | None) -> Path | None:
    """The file ``load_config`` reads, found the same way."""
    if path is None and os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV])
    if path is None and DEFAULT_FILE.exists():
        return DEFAULT_FILE
    return path


def check_configuration(path: Path | None) -> tuple[Config | None, list[Check]]:
    """Load the configuration, then look at the values that can be judged without a network."""
    file = config_file(path)
    try:
        config = load_config(path)
    except ConfigError as error:
        return None, [Check("configuration", FAIL, str(error), _config_fix(str(error), file))]
    checks = [Check("configuration", OK, f"read {file or 'the defaults and environment'}")]
    checks += _values(config)
    if file is not None and _holds_passwords(file) and file.stat().st_mode & stat.S_IROTH:
        checks.append(
            Check(
                "configuration",
                WARN,
                f"{file} holds passwords and every user of this machine may read it",
                f"chmod 600 {file} (or 640 with the service's group), or move the passwords "
                "to ADJUDICATOR_SMTP_PASSWORD / ADJUDICATOR_IMAP_PASSWORD",
            )
        )
    return config, checks


def _config_fix(message: str, file: Path | None) -> str:
    if message.startswith("ADJUDICATOR_"):
        return f"correct or unset the environment variable {message.split(':', maxsplit=1)[0]}"
    if message.startswith("no configuration file"):
        return (
            "give --config (or ADJUDICATOR_CONFIG) the path of the configuration file; "
            "config/adjudicator.example.toml is a commented example"
        )
    return f"correct the key it names in {file}"


def _values(config: Config) -> list[Check]:
    checks = []
    if config.smtp.tls not in ("none", "starttls", "implicit"):
        checks.append(
            Check(
                "configuration",
                FAIL,
                f"smtp.tls is {config.smtp.tls!r}; it must be none, starttls or implicit",
                "set smtp.tls (ADJUDICATOR_SMTP_TLS) to starttls for port 587, implicit for "
                "port 465, none only for a relay on this machine",
            )
        )
    if not _ADDRESS.fullmatch(config.service.address):
        checks.append(
            Check(
                "configuration",
                FAIL,
                f"service.address {config.service.address!r} is not a mail address",
                "set service.address (ADJUDICATOR_ADDRESS) to the plain address players write "
                "to, e.g. judge@pbem.example.org (the display name is service.name)",
            )
        )
    url = config.service.archive_url
    parts = urlsplit(url)
    if url and (parts.scheme not in ("http", "https") or not parts.netloc):
        checks.append(
            Check(
                "configuration",
                FAIL,
                f"service.archive_url {url!r} is not an http(s) address",
                "set service.archive_url (ADJUDICATOR_ARCHIVE_URL) to where the archive is "
                "published, e.g. https://pbem.example.org/games/, or leave it empty",
            )
        )
    return [*checks, *check_logging(config)]


def _holds_passwords(file: Path) -> bool:
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return any(data.get(table, {}).get("password") for table in ("smtp", "imap"))


def check_logging(config: Config) -> list[Check]:
    """The log settings ``serve`` would refuse (``logs.log_problems``): a format or a level it
    does not know, a log file that is a folder. Whether the service's user may write the log
    file is ``check_paths``'s."""
    service = config.service
    problems = log_problems(log_format=service.log_format, level=service.log_level, log_file="")
    if service.log_file and Path(service.log_file).is_dir():
        problems += filter(None, [log_file_problem(Path(service.log_file))])
    if problems:
        return [Check("logging", FAIL, p.message, p.fix) for p in problems]
    where = service.log_file or "standard error (systemd's journal under the unit)"
    return [Check("logging", OK, f"{service.log_format} lines at {service.log_level} to {where}")]


def check_metrics_port(config: Config) -> list[Check]:
    """Whether ``serve`` will be able to listen on the metrics port: bound here and let go at
    once. A port that answers as this service's metrics is fine (the service runs)."""
    metrics = config.metrics
    if not metrics.port:
        return [Check("metrics", SKIP, "metrics.port is 0: no /metrics and no /healthz")]
    name = f"metrics {metrics.address}:{metrics.port}"
    try:
        with socket.create_server((metrics.address, metrics.port)):
            pass  # create_server sets SO_REUSEADDR, as the service's HTTP server does
    except OSError as error:
        if _answers_as_ours(metrics.address, metrics.port):
            return [
                Check(name, OK, "in use by a running adjudicator service (its /healthz answers)")
            ]
        message, _, fix = cannot_listen(metrics.address, metrics.port, error).partition("; ")
        return [Check(name, FAIL, message, fix)]
    return [Check(name, OK, "free: the service will serve /metrics and /healthz there")]


def _answers_as_ours(address: str, port: int) -> bool:
    """Whether the program on the port serves this service's metrics."""
    host = f"[{address}]" if ":" in address else address
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=2) as reply:
            return b"adjudicator_" in reply.read(1 << 20)
    except (OSError, ValueError):
        return False


def check_database(config: Config) -> Check:
    url = config.database_url
    shown = make_url(url).render_as_string(hide_password=True)
    file = url.split("///", 1)[-1] if url.startswith("sqlite") else ""
    if file and file != ":memory:" and not Path(file).exists():
        return Check(
            "database", FAIL, f"no database at {file}", "run `adjudicate init` to create it"
        )
    from alembic.script import ScriptDirectory  # noqa: PLC0415 - only here

    engine = make_engine(url)
    try:
        current = schema_revision(engine)
        scripts = ScriptDirectory.from_config(alembic_config(engine))
        head = scripts.get_current_head()
    except TablesOfAnotherRole as error:
        return Check("database", FAIL, f"{shown}: {error}", error.fix)
    except Exception as error:  # any driver error: say it as the driver did
        return Check(
            "database",
            FAIL,
            f"cannot connect to {shown}: {error.__class__.__name__}: {words(error)}",
            "check service.database_url (ADJUDICATOR_DATABASE_URL), that the database server "
            "runs and that this user may connect",
        )
    finally:
        engine.dispose()
    if current == head:
        return Check("database", OK, f"{shown}, schema at revision {head} (the latest)")
    if current is None:
        return Check(
            "database",
            FAIL,
            f"{shown} has no schema (the database is empty)",
            "run `adjudicate init` to create the schema",
        )
    if current not in {script.revision for script in scripts.walk_revisions()}:
        return Check(
            "database",
            FAIL,
            f"the schema is at revision {current}, which this version does not know: a newer "
            "version of adjudicator made it",
            "run the version that made it, or restore a backup made with this version",
        )
    return Check(
        "database",
        FAIL,
        f"the schema is at revision {current}, this version needs {head}",
        MIGRATE_FIX,
    )


def check_key(config: Config) -> Check:
    """The key file: there, readable, a key, private, and the key the database's mail was made
    with (``storage/opening.py``: a command refuses it otherwise)."""
    path = config.secret_key_path.absolute()
    in_use, known = _database_key(config)
    if not path.exists():
        if in_use:
            return Check(
                "key file", FAIL, f"no key at {path}, and the database holds games", _LOST_FIX
            )
        return Check("key file", FAIL, f"no key at {path}", _KEY_FIX)
    try:
        key = path.read_bytes().strip()
    except OSError as error:
        return Check(
            "key file",
            FAIL,
            f"cannot read {path}: {error.strerror}",
            f"chown it to the service's user and chmod 600 {path}",
        )
    if not _KEY.fullmatch(key):
        what = "is empty" if not key else "does not hold a key (64 hexadecimal digits)"
        return Check(
            "key file",
            FAIL,
            f"{path} {what}",
            _LOST_FIX
            if in_use
            else f"restore the key from a backup, or remove {path} and run `adjudicate init` "
            "to make a new one",
        )
    ident = key_id(key)
    if in_use and known not in (None, ident):
        return Check(
            "key file",
            FAIL,
            f"{path} (key id {ident}) is not the key the database's mail was made with "
            f"(key id {known})",
            _LOST_FIX,
        )
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        who = "its group and others" if mode & stat.S_IROTH else "its group"
        return Check(
            "key file", WARN, f"{who} may read {path} (mode {mode:04o})", f"chmod 600 {path}"
        )
    return Check("key file", OK, f"{path} (key id {ident})")


def _database_key(config: Config) -> tuple[bool, str | None]:
    """Whether the database holds games, and the id of the key it recorded: (False, None)
    where it cannot tell (no database, or a schema not this version's: the database check
    says so)."""
    url = config.database_url
    file = url.split("///", 1)[-1] if url.startswith("sqlite") else ""
    if file and (file == ":memory:" or not Path(file).exists()):
        return False, None
    engine = make_engine(url)
    try:
        if schema_revision(engine) != SCHEMA_HEAD:
            return False, None
        with session_scope(engine) as session:
            return holds_games(session), recorded_key_id(session)
    except Exception:
        return False, None
    finally:
        engine.dispose()


def check_solutions(config: Config) -> list[Check]:
    """Each game's complete solution (docs/stand-ins.md): made, or not yet, which is no
    problem (it is made when first needed) but delays that first need by a few minutes. A file
    of an earlier layout is never read: it is named, with the command that replaces it."""
    checks = []
    for kind in KINDS:
        if kind.solution is None:
            continue
        path = file_of(config.solutions_path, kind.solution)
        name = f"{kind.title} solution"
        old = old_files(config.solutions_path, kind.solution)
        if ready(config.solutions_path, kind.solution):
            checks.append(Check(name, OK, f"{path}: its stand-in and hints are exact"))
        elif old:
            checks.append(
                Check(
                    name,
                    WARN,
                    f"{', '.join(map(str, old))}: a table of an earlier layout, not read "
                    f"(its stand-in plays by its own search until the new one, "
                    f"{kind.solution.size / 1e9:.2f} GB, is made)",
                    "run `adjudicate solve` to make the new table (a few minutes); it removes "
                    "the old one",
                )
            )
        else:
            checks.append(
                Check(
                    name,
                    SKIP,
                    f"not made yet in {config.solutions_path} "
                    f"({kind.solution.size / 1e9:.2f} GB, made when a stand-in first needs it)",
                    "run `adjudicate solve` to make it now (a few minutes), or set "
                    "service.solutions_dir (ADJUDICATOR_SOLUTIONS_DIR) to where it is",
                )
            )
    return checks
