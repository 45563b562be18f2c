"""What a command checks before it uses the database, and what only ``adjudicate init`` and
``adjudicate migrate`` may change.

The schema. A new, empty database gets this version's schema at once: there is nothing in it
to lose, so nothing to back up first (``make run`` and the first ``adjudicate serve`` of a new
installation work as they are). A database at an older revision is refused, by every command,
until the operator has backed it up and run ``adjudicate migrate``: installing a new version
never changes the schema behind his back. A database at a revision this version does not know
was migrated by a newer version.

The key file. Every reply address, bounce address, receipt and confirmation code the service
mails is a MAC under it, so a new key voids all of them. The database keeps the id of its key
(``security.key_id``); while it holds games or seats, a missing key file is never replaced and
a key file with another id is refused. A database with no games takes any key (and has one made
when the file is missing), as a new installation does; ``adjudicate init --new-key`` makes one
with games take another, knowingly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from adjudicator import __version__
from adjudicator.base.security import create_key, key_id, read_key
from adjudicator.storage.db import (
    SCHEMA_HEAD,
    SCHEMA_VERSIONS,
    downgrade,
    insert_new,
    migrate,
    schema_revision,
    session_scope,
)
from adjudicator.storage.models import Game, Seat, ServiceKey

MIGRATE_FIX = (
    "back it up (`adjudicate backup FILE`, deploy/BACKUP.md), then run `adjudicate migrate`"
)

WHAT_A_NEW_KEY_BREAKS = (
    "the reply address of every mail already sent stops working (a player who answers one is "
    "asked for his password), bounces of those mails are no longer recognised, receipts "
    "already given can no longer be checked, codes mailed and not yet used (JOIN, OBSERVE, "
    "SET ADDRESS, RESIGN, TAKE, APPROVE) must be asked for again, and each game master needs "
    "a new reply address (`adjudicate game gm GAME`); passwords and the personal addresses of "
    "the welcome mails keep working"
)


class NotReady(Exception):
    """The database or the key file cannot be used as they are; the message says what is
    wrong and how to fix it."""


def schema_problem(current: str | None) -> str | None:
    """What keeps a database whose schema is at ``current`` from being used by this version,
    with the fix; None for one at the head, and for a new one (its schema is made on
    opening)."""
    if current is None or current == SCHEMA_HEAD:
        return None
    if current in SCHEMA_VERSIONS:
        return (
            f"the database's schema is at {current} (version {SCHEMA_VERSIONS[current]}), "
            f"this version ({__version__}) needs {SCHEMA_HEAD}: {MIGRATE_FIX}"
        )
    return (
        f"the database's schema is at {current}, which this version ({__version__}) does not "
        "know: a newer version of adjudicator migrated it. Run that version, or go back as "
        "deploy/README.md says under 'Rolling back'"
    )


def check_schema(engine: Engine) -> None:
    """Refuse a database whose schema is not this version's; give a new one its schema."""
    current = schema_revision(engine)
    problem = schema_problem(current)
    if problem is not None:
        raise NotReady(problem)
    if current is None:
        migrate(engine)


def move_schema(engine: Engine, revision: str) -> tuple[str | None, str]:
    """Take the schema to ``revision`` for ``adjudicate migrate``: up by the migrations, or
    back to an older one by their downgrades. Returns the revisions before and after."""
    revisions = list(SCHEMA_VERSIONS)
    if revision not in revisions:
        raise NotReady(
            f"there is no schema revision {revision!r}: this version knows {revisions[0]} to "
            f"{SCHEMA_HEAD} (CHANGELOG.md says which version brought each)"
        )
    before = schema_revision(engine)
    if before is not None and before not in revisions:
        raise NotReady(schema_problem(before) or "")
    if before is not None and revisions.index(revision) < revisions.index(before):
        downgrade(engine, revision)
    else:
        migrate(engine, revision)
    return before, revision


Change = Literal["kept", "made", "recorded", "replaced"]


@dataclass(frozen=True)
class OpenedKey:
    """The service key, checked against the database, and what opening it changed: nothing,
    a new key file made, the id of the file's key recorded (a database that had none), or the
    database made to take another key (``--new-key``)."""

    key: bytes
    key_id: str
    change: Change


def open_key(engine: Engine, path: Path, *, now: datetime, new_key: bool = False) -> OpenedKey:
    """The key in ``path``, once it is known to be the one the database's mail was made with
    (made, and recorded, where nothing mailed depends on a key yet). ``new_key``: the
    operator knows that a missing or different key voids what was mailed, and wants it so."""
    key = _read(path)
    with session_scope(engine) as session:
        known, in_use = recorded_key_id(session), holds_games(session)
    if key is not None and not key:
        raise NotReady(
            f"the key file {path} is empty. Restore it from your backup (deploy/BACKUP.md)"
            + ("" if in_use else ", or remove it and run `adjudicate init` to make a new one")
        )
    if key is None and in_use and not new_key:
        raise NotReady(_missing(path))
    if key is not None and known not in (None, key_id(key)) and in_use and not new_key:
        raise NotReady(_different(path, have=key_id(key), want=known or ""))
    change: Change = "kept"
    if key is None:
        key, change = create_key(path), "made"
    ident = key_id(key)
    if known != ident:
        _record(engine, ident, now=now)
        if change == "kept":
            change = "replaced" if known is not None and in_use else "recorded"
    return OpenedKey(key, ident, change)


def known_key(path: Path) -> bytes:
    """The key in ``path`` for a process of a service that opened it already (a worker):
    never made here."""
    key = _read(path)
    if not key:
        raise NotReady(_missing(path))
    return key


def recorded_key_id(session: Session) -> str | None:
    """The id of the key the database's mail was made with, if one was recorded."""
    recorded = session.get(ServiceKey, 1)
    return recorded.key_id if recorded is not None else None


def holds_games(session: Session) -> bool:
    """Whether anything mailed may depend on the key: the database holds a game or a seat."""
    return any(
        session.exec(select(table.id).limit(1)).first() is not None for table in (Game, Seat)
    )


def _read(path: Path) -> bytes | None:
    try:
        return read_key(path)
    except OSError as error:  # a file of another user, a folder: said, not a traceback
        raise NotReady(
            f"cannot read the key file {path}: {error.strerror}. Give it to the service's user "
            f"(chown) with mode 0600 (chmod 600 {path})"
        ) from None


def _record(engine: Engine, ident: str, *, now: datetime) -> None:
    with session_scope(engine) as session:
        row = {"id": 1, "key_id": ident, "recorded_at": now}
        if not insert_new(session, ServiceKey, row, key="id"):
            values = {"key_id": ident, "recorded_at": now}
            session.execute(update(ServiceKey).where(ServiceKey.id == 1).values(values))  # type: ignore[arg-type]


def _missing(path: Path) -> str:
    return (
        f"the key file {path} is missing, and the database holds games: every reply address, "
        "bounce address, receipt and code mailed to players was made with that key and works "
        "only with it, so no new key is made. Restore the key file from your backup "
        "(deploy/BACKUP.md; owned by the service's user, mode 0600), or point "
        "service.secret_key_file (ADJUDICATOR_SECRET_KEY_FILE) at it. Only if it is lost for "
        f"good: `adjudicate init --new-key` makes a new key, and then {WHAT_A_NEW_KEY_BREAKS}"
    )


def _different(path: Path, *, have: str, want: str) -> str:
    return (
        f"the key file {path} is not the key this database's mail was made with (its key id "
        f"is {have}, the database's is {want}), and the database holds games: every reply "
        "address, bounce address, receipt and code mailed to players works only with the "
        "database's key. Put that key file in place: restore it from the backup taken with "
        "this database (deploy/BACKUP.md; `adjudicate doctor` shows a key file's id), or point "
        "service.secret_key_file (ADJUDICATOR_SECRET_KEY_FILE) at it. Only if it is lost for "
        f"good: `adjudicate init --new-key` makes the database take the key in {path}, and "
        f"then {WHAT_A_NEW_KEY_BREAKS}"
    )
