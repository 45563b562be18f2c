"""Engines, sessions and migrations: SQLite by default, PostgreSQL by URL."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import BindParameter, bindparam, event, inspect, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlalchemy.orm import ORMExecuteState
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.util import find_tables
from sqlmodel import Session, create_engine

from adjudicator.base.config import require_extra

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
SCHEMA_VERSIONS: dict[str, str] = {
    "0001": "0.1.0",
    "0002": "0.2.0",
    "0003": "0.3.0",
    "0004": "0.4.0",
    "0005": "0.5.0",
    "0006": "0.6.0",
    "0007": "0.7.0",
    "0008": "0.8.0",
    "0009": "0.9.0",
    "0010": "0.10.0",
    "0011": "0.11.0",
    "0012": "0.12.0",
    "0013": "0.13.0",
    "0014": "0.14.0",
    "0015": "0.15.0",
    "0016": "0.16.0",
    "0017": "0.17.0",
    "0018": "0.18.0",
    "0019": "0.19.0",
}
"""Each revision of ``migrations/versions``, oldest first, and the version of the package that
brought it (CHANGELOG.md): every schema change is a new version, so that "the database's
schema is at 0009" tells an operator which version made it. ``tests/test_versions.py`` holds
it to Alembic's revisions, to ``adjudicator.__version__`` and to the changelog."""

SCHEMA_HEAD = next(reversed(SCHEMA_VERSIONS))
"""The newest revision. A database at it is left as it is without loading Alembic, about a
tenth of the time any process of the service takes to start (each command, ``serve`` and its
worker processes); ``tests/storage/test_db.py`` holds it to Alembic's own head."""


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets the poller, the scheduler and a game master's command share the file;
    # busy_timeout makes a writer wait instead of failing at once.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _private_file(path: Path) -> None:
    """Create the database file readable by its owner only (it holds raw mail, which may hold
    a player's password), and take away others' access to one made earlier. SQLite gives its
    -wal and -shm files the database file's permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if name.stat().st_mode & 0o077:
                name.chmod(0o600)


def make_engine(url: str) -> Engine:
    """An engine for ``url``; a SQLite file's folder is created if missing."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            _private_file(Path(path))
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql"):
        require_extra("psycopg", feature="a PostgreSQL database", extra="postgresql")
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True)


def alembic_config(engine: Engine) -> Config:
    from alembic.config import Config  # noqa: PLC0415 - only when the schema is checked or changed

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


class TablesOfAnotherRole(RuntimeError):
    """The service's PostgreSQL role may not use the tables: another role owns them, as after a
    restore run by the superuser without ``--role`` (``deploy/BACKUP.md``). The message names a
    table, its owner and the service's role, and says how to restore so that the role owns
    them."""

    def __init__(self, *, tables: list[tuple[str, str]], role: str) -> None:
        table, owner = tables[0]
        more = f" (and {len(tables) - 1} more tables)" if len(tables) > 1 else ""
        super().__init__(
            f"table {table} is owned by role {owner}, not {role}{more}: the database was "
            "restored (or made) as another role, and the service's role may not read it"
        )
        self.tables, self.role, self.owner = tables, role, owner

    @property
    def fix(self) -> str:
        return (
            f"restore the backup again into a new database, as the superuser: `createdb "
            f"--owner={self.role} NEW` then `pg_restore --no-owner --role={self.role} -d NEW "
            f"FILE` (deploy/BACKUP.md); or give the tables to the service's role, as the "
            f"superuser in psql on this database: `ALTER TABLE name OWNER TO {self.role};` for "
            f"each of its {len(self.tables)} tables"
        )


_TABLES_OF_OTHERS = text(
    "SELECT tablename, tableowner FROM pg_catalog.pg_tables "
    "WHERE schemaname = current_schema() AND tableowner <> current_user ORDER BY tablename"
)


def schema_revision(engine: Engine) -> str | None:
    """The revision the database's schema is at (Alembic's own table); None for a database
    without one: a new one. Raises :class:`TablesOfAnotherRole` when the table cannot be read
    because another role owns the tables."""
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table("alembic_version"):
                return None
            revision = connection.execute(text("SELECT version_num FROM alembic_version"))
            found = revision.scalar()
            return None if found is None else str(found)
    except ProgrammingError:  # psycopg's InsufficientPrivilege, among others
        if engine.dialect.name == "postgresql":
            _owned_by_the_role(engine)
        raise


def _owned_by_the_role(engine: Engine) -> None:
    """Raise :class:`TablesOfAnotherRole` if another role owns tables of the schema."""
    with engine.connect() as connection:
        role = str(connection.execute(text("SELECT current_user")).scalar())
        tables = [(str(t), str(o)) for t, o in connection.execute(_TABLES_OF_OTHERS).all()]
    if tables:
        raise TablesOfAnotherRole(tables=tables, role=role)


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema up to ``revision`` (creating it on an empty database). A database at
    :data:`SCHEMA_HEAD`, asked for the head, is left as it is without loading Alembic."""
    if revision == "head" and schema_revision(engine) == SCHEMA_HEAD:
        return
    from alembic import command  # noqa: PLC0415 - only when the schema changes

    command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Take the schema back to the older ``revision`` (each migration's downgrade)."""
    from alembic import command  # noqa: PLC0415 - only when the schema changes

    command.downgrade(alembic_config(engine), revision)


def on_postgresql(session: Session) -> bool:
    """Whether this session's database is PostgreSQL (row locks, ``SKIP LOCKED``), not
    SQLite (one write lock for the whole database)."""
    return session.get_bind().dialect.name == "postgresql"


def listed(name: str) -> BindParameter[Any]:
    """A list given when the statement runs, for ``IN``: a statement built once with it (at
    import) costs no building and no cache key each time it runs, whatever the list's length
    (``session.exec(statement, params={name: [...]})``)."""
    return bindparam(name, expanding=True)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session that commits on success and rolls back on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def unavailable(error: OperationalError) -> str:
    """What the database said when it was locked or away: its first line, for one log line."""
    lines = str(error.orig or error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__


def aware(moment: datetime) -> datetime:
    """``moment`` as an aware UTC time: SQLite hands back the stored UTC values naive."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


HELD = "adjudicator.held_inserts"
"""Where :func:`inserts_held` keeps its rows: ``Session.info``."""


@dataclass
class Held:
    """Rows of ``model`` held by :func:`inserts_held`, unique by ``key``, in the order given."""

    model: type[Any]
    key: str
    rows: list[dict[str, Any]] = field(default_factory=list)


def insert_new(session: Session, model: type[Any], values: dict[str, Any], *, key: str) -> bool:
    """Insert one row unless a row with the same unique ``key`` column exists; True when
    inserted. One statement (``INSERT ... ON CONFLICT DO NOTHING``, on SQLite and PostgreSQL
    alike) on the session's connection: no read before, no ORM object to flush, no savepoint,
    and the statement compiled once (the values travel as parameters).

    Inside :func:`inserts_held` for ``model``, the row is held and written with the others
    when the block ends: True then means held (a row with its key, if any, wins)."""
    held = session.info.get(HELD)
    if isinstance(held, Held) and held.model is model and held.key == key:
        held.rows.append(values)
        return True
    connection = session.connection()
    statement = _insert_new(connection.dialect.name, model.__table__, key)
    return bool(connection.execute(statement, values).rowcount == 1)


@contextmanager
def inserts_held(session: Session, model: type[Any], *, key: str) -> Iterator[None]:
    """Hold the rows :func:`insert_new` is given for ``model`` (with the same ``key``) and
    write them in one statement for all (executemany) when the block ends without an error,
    in the session's transaction: a batch of mails queues its answers with one round trip
    to the database instead of one per mail. Any statement of the session that names the
    model's table (the count of answers an address got this hour, say) writes them first, as
    a query flushes the session first. An error drops them: the caller rolls back its
    savepoint."""
    table = model.__table__

    def before(state: ORMExecuteState) -> None:
        statement = state.statement
        if not held.rows or not isinstance(statement, ClauseElement):
            return
        if table in find_tables(statement, include_crud=True):
            write_held(session)

    held = session.info[HELD] = Held(model, key)
    event.listen(session, "do_orm_execute", before)
    try:
        yield
        write_held(session)
    finally:
        event.remove(session, "do_orm_execute", before)
        session.info.pop(HELD, None)


def write_held(session: Session) -> None:
    """Write the rows :func:`inserts_held` holds now, if any (before they are read)."""
    held = session.info.get(HELD)
    if not isinstance(held, Held) or not held.rows:
        return
    connection = session.connection()
    statement = _insert_new(connection.dialect.name, held.model.__table__, held.key)
    connection.execute(statement, list(held.rows))
    held.rows.clear()


@functools.cache
def _insert_new(dialect: str, table: Any, key: str) -> Any:
    if dialect != "postgresql":
        return sqlite.insert(table).on_conflict_do_nothing(index_elements=[key])
    # Imported here: 50 ms of every start that a service on SQLite never needs.
    from sqlalchemy.dialects import postgresql  # noqa: PLC0415 - only on PostgreSQL

    return postgresql.insert(table).on_conflict_do_nothing(index_elements=[key])
