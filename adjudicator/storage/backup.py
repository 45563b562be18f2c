"""Backups of a running service's database: ``adjudicate backup FILE``.

SQLite: SQLite's online backup, a consistent copy taken while the service runs (writers wait a
moment, nothing stops). PostgreSQL: ``pg_dump`` in its custom format, restored with
``pg_restore``. The key file (``secret_key_file``) is not in the database: keep a copy of it
with the backups, once (receipts and bounce addresses need the same key after a restore).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url


class BackupError(RuntimeError):
    """The backup could not be made; the message says why and what to do."""


def backup(database_url: str, target: Path) -> str:
    """Write a backup of the database at ``database_url`` to ``target``; what was done."""
    if target.exists():
        raise BackupError(f"{target} exists already: give a new file name")
    target.parent.mkdir(parents=True, exist_ok=True)
    if database_url.startswith("sqlite"):
        return _sqlite(Path(database_url.split("///", 1)[-1]), target)
    if database_url.startswith("postgresql"):
        return _postgresql(database_url, target)
    raise BackupError(f"cannot back up {database_url.split(':', 1)[0]} databases")


def _sqlite(source: Path, target: Path) -> str:
    if not source.exists():
        raise BackupError(f"no database at {source}")
    with sqlite3.connect(source, timeout=30) as live, sqlite3.connect(target) as copy:
        live.backup(copy, pages=256)  # in steps: writers wait at most one step
    target.chmod(0o600)
    return f"SQLite {source} copied to {target}; restore by putting the copy in its place"


def _postgresql(database_url: str, target: Path) -> str:
    program = shutil.which("pg_dump")
    if program is None:
        raise BackupError("pg_dump is not installed (apt-get install postgresql-client)")
    url = make_url(database_url).set(drivername="postgresql")
    # The password goes to pg_dump in its environment, which only this user (and root) may
    # read, never on its command line, which every user of the machine sees in `ps`.
    environment = dict(os.environ)
    if url.password is not None:
        environment["PGPASSWORD"] = str(url.password)
    done = subprocess.run(
        [program, "--format=custom", "--no-owner", f"--file={target}",
         url._replace(password=None).render_as_string(hide_password=False)],
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
        env=environment,
    )  # fmt: skip
    if done.returncode != 0:
        raise BackupError(f"pg_dump failed: {done.stderr.strip()[:500]}")
    target.chmod(0o600)
    role = url.username or "ROLE"
    return (
        f"PostgreSQL dumped to {target}; restore it as deploy/BACKUP.md says: "
        f"pg_restore --no-owner --role={role} -d <new database owned by {role}> {target}"
    )
