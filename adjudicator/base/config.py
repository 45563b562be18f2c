"""Configuration: one TOML file, overridden by environment variables, with defaults that run on
one machine with no external server (SQLite and Maildir folders under the data folder).

Environment overrides are ``ADJUDICATOR_<KEY>`` for the ``[service]`` table and
``ADJUDICATOR_<TABLE>_<KEY>`` for the others, e.g. ``ADJUDICATOR_DATABASE_URL`` or
``ADJUDICATOR_SMTP_HOST``.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CONFIG_ENV = "ADJUDICATOR_CONFIG"
DEFAULT_FILE = Path("adjudicator.toml")


class ConfigError(ValueError):
    """The configuration cannot be used; the message names the key."""


class MissingExtra(ConfigError):
    """A feature asked for needs a package of one of the package's extras (pyproject.toml's
    optional dependencies), and it is not installed here; the message says what to install."""

    def __init__(self, *, feature: str, package: str, extra: str) -> None:
        super().__init__(
            f"{feature} needs {package}, which is not installed: pip install 'adjudicator[{extra}]'"
        )
        self.feature, self.package, self.extra = feature, package, extra


def require_extra(module: str, *, feature: str, extra: str, package: str = "") -> None:
    """Raise :class:`MissingExtra` unless ``module`` (of the distribution ``package``, in the
    extra ``extra``) can be imported."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise MissingExtra(feature=feature, package=package or module, extra=extra) from None


@dataclass(frozen=True)
class ServiceConfig:
    data_dir: str = "data"
    database_url: str = ""  # empty: sqlite file <data_dir>/adjudicator.db
    address: str = "judge@localhost"  # the service's own address: From of every mail it sends
    name: str = "Adjudicator"
    secret_key_file: str = ""  # empty: <data_dir>/secret.key, created on first use
    archive_dir: str = ""  # empty: <data_dir>/archive
    archive_url: str = ""  # where the archive is published, e.g. https://pbem.example/games/
    max_message_bytes: int = 1_000_000
    log_format: str = "text"  # text (for people) | json (one object a line, for collectors)
    log_level: str = "info"  # debug | info | warning | error
    log_file: str = ""  # empty: standard error (systemd's journal under the unit)
    # processes that close due rounds (workers.py), and with more than one a mail reader
    # (reader_process.py); 0: one per core; 1: none
    workers: int = 0
    solutions_dir: str = ""  # empty: adjudicator/solutions in the user cache folder (solutions.py)


@dataclass(frozen=True)
class SmtpConfig:
    host: str = ""  # empty: no SMTP; outgoing mail is written to <data_dir>/outbox-maildir
    port: int = 25
    username: str = ""
    password: str = ""
    tls: str = "none"  # none | starttls | implicit
    connections: int = 4  # sent over this many connections at once, each kept open


@dataclass(frozen=True)
class ImapConfig:
    host: str = ""  # empty: no IMAP poller
    port: int = 143
    username: str = ""
    password: str = ""
    ssl: bool = False
    folder: str = "INBOX"
    processed_folder: str = ""  # empty: flag handled mail instead of moving it
    poll_seconds: int = 15  # without IDLE the interval; with IDLE the safety net (imap.py)


@dataclass(frozen=True)
class MaildirConfig:
    path: str = ""  # empty: <data_dir>/maildir


@dataclass(frozen=True)
class MetricsConfig:
    port: int = 0  # 0: off; else Prometheus text at /metrics and a health check at /healthz
    address: str = "127.0.0.1"  # keep it local; put a proxy in front to publish it


@dataclass(frozen=True)
class HealthConfig:
    """How long a part may be stuck before ``/healthz`` says 503 (``metrics.py``)."""

    # the IMAP intake not connected or not read for this long: 503, and systemd's watchdog is
    # no longer fed (under WatchdogSec= systemd then restarts the service)
    intake_seconds: int = 300
    outbox_seconds: int = 1800  # the oldest mail waiting to be sent was queued this long ago
    overdue_seconds: int = 600  # a round past its deadline is still not closed


@dataclass(frozen=True)
class WebhooksConfig:
    """Webhooks (``notify/webhook.py``, docs/webhooks.md): what the operator lets through. A
    webhook's address is chosen by a game master or a player, so by default only ``https`` to a
    public address is posted to; ``allow_hosts`` lists the host names or addresses (``127.0.0.1``,
    ``hooks.lan``) the operator trusts besides, loopback and private ones included."""

    allow_hosts: tuple[str, ...] = ()
    allow_http: bool = False  # plain http too (to any host; meant for a local receiver)
    timeout_seconds: int = 10  # to connect, and for each read of the answer
    give_up_hours: int = 24  # a notice no receiver took within this long is given up
    max_response_bytes: int = 65536  # the most of a receiver's answer that is read
    per_host_per_minute: int = 120  # posts to one host in a minute at most (0: no limit)


@dataclass(frozen=True)
class Config:
    service: ServiceConfig = field(default_factory=ServiceConfig)
    smtp: SmtpConfig = field(default_factory=SmtpConfig)
    imap: ImapConfig = field(default_factory=ImapConfig)
    maildir: MaildirConfig = field(default_factory=MaildirConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    health: HealthConfig = field(default_factory=HealthConfig)
    webhooks: WebhooksConfig = field(default_factory=WebhooksConfig)

    @property
    def data_path(self) -> Path:
        return Path(self.service.data_dir)

    @property
    def database_url(self) -> str:
        if self.service.database_url:
            return self.service.database_url
        return f"sqlite:///{(self.data_path / 'adjudicator.db').resolve()}"

    @property
    def maildir_path(self) -> Path:
        return Path(self.maildir.path) if self.maildir.path else self.data_path / "maildir"

    @property
    def archive_path(self) -> Path:
        return Path(self.service.archive_dir or self.data_path / "archive")

    @property
    def solutions_path(self) -> Path:
        """Where games' complete solutions are kept: one folder for the machine by default,
        since they depend only on the rules."""
        if self.service.solutions_dir:
            return Path(self.service.solutions_dir)
        cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        return Path(cache) / "adjudicator" / "solutions"

    @property
    def secret_key_path(self) -> Path:
        if self.service.secret_key_file:
            return Path(self.service.secret_key_file)
        return self.data_path / "secret.key"


def _coerce(value: Any, target: Any, *, key: str) -> Any:
    kind = type(target)
    if kind is tuple:
        parts = value.split(",") if isinstance(value, str) else value
        if not isinstance(parts, list | tuple) or not all(isinstance(p, str) for p in parts):
            raise ConfigError(f"{key}: expected a list of strings, got {value!r}")
        return tuple(p.strip() for p in parts if p.strip())
    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{key}: expected true or false, got {value!r}")
    if kind is int:
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{key}: expected a whole number, got {value!r}") from None
    if not isinstance(value, str):
        raise ConfigError(f"{key}: expected a string, got {value!r}")
    return value


def _table(cls: Any, values: Mapping[str, Any], env: Mapping[str, str], *, table: str) -> Any:
    defaults = cls()
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        names = ", ".join(sorted(known))
        raise ConfigError(f"[{table}] has no key {unknown[0]!r} (known: {names})")
    prefix = "ADJUDICATOR_" if table == "service" else f"ADJUDICATOR_{table.upper()}_"
    settings: dict[str, Any] = {}
    for name in known:
        key = f"{table}.{name}"
        env_name = prefix + name.upper()
        if env_name in env:
            settings[name] = _coerce(env[env_name], getattr(defaults, name), key=env_name)
        elif name in values:
            settings[name] = _coerce(values[name], getattr(defaults, name), key=key)
    return cls(**settings)


def load_config(path: Path | None = None, *, env: Mapping[str, str] | None = None) -> Config:
    """Read the configuration from ``path`` (or ``$ADJUDICATOR_CONFIG``, or ``./adjudicator.toml``
    when it exists), then apply the environment overrides."""
    env = os.environ if env is None else env
    if path is None and env.get(CONFIG_ENV):
        path = Path(env[CONFIG_ENV])
    if path is None and DEFAULT_FILE.exists():
        path = DEFAULT_FILE
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"no configuration file at {str(path)!r}") from None
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{path}: {error}") from None
    tables = {f.name: f.default_factory for f in dataclasses.fields(Config)}
    unknown = sorted(set(data) - set(tables))
    if unknown:
        raise ConfigError(f"unknown table [{unknown[0]}] (known: {', '.join(sorted(tables))})")
    config = Config(
        **{name: _table(cls, data.get(name, {}), env, table=name) for name, cls in tables.items()}
    )
    if config.database_url.startswith("postgresql"):
        try:
            require_extra("psycopg", feature="a PostgreSQL database", extra="postgresql")
        except MissingExtra as error:
            raise ConfigError(f"service.database_url: {error}") from None
    return config
