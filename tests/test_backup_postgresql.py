"""PostgreSQL backups and restores as an operator runs them, on the real server: the role and
database made by the commands ``deploy/README.md`` gives, ``adjudicate backup`` with the role's
password kept off ``pg_dump``'s command line, a restore done the wrong way (as the superuser,
without ``--role``) told apart by ``init`` and ``doctor``, and the restore ``deploy/BACKUP.md``
gives, run as written (with this test's names), that the service then uses."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from needs import require_program
from sqlalchemy import create_engine, text

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
ADJUDICATE = Path(sys.executable).parent / "adjudicate"
SUPERUSER = {"PGHOST": "127.0.0.1", "PGPORT": "5432", "PGUSER": "postgres"}
"""The doc's commands are run as the superuser: libpq reads where and who from these."""


def _sh_block(document: str, heading: str) -> list[str]:
    """The command lines of the first ```sh block after ``heading`` in ``deploy/document``."""
    text_ = (DEPLOY / document).read_text(encoding="utf-8")
    after = text_[text_.index(heading) :]
    block = re.search(r"```sh\n(.*?)```", after, re.S)
    assert block is not None, f"no sh block after {heading!r} in {document}"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def _run_as_superuser(lines: list[str], names: dict[str, str], stdin: str = "") -> None:
    """Run the doc's lines with this test's names put for the doc's, as the doc's reader
    would, with no terminal (so that ``createuser --pwprompt`` reads standard input)."""
    for written in lines:
        line = written
        for doc_name, name in names.items():
            line = re.sub(rf"(?<![\w/.-]){re.escape(doc_name)}(?![\w/.-])", name, line)
        done = subprocess.run(
            shlex.split(line),
            input=stdin,
            capture_output=True,
            text=True,
            env={**os.environ, **SUPERUSER},
            start_new_session=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, f"{line}: {done.stderr}"


def _adjudicate(environment: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ADJUDICATE), *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )


class Cluster:
    """This test's role and databases on the server, all dropped at the end."""

    def __init__(self, admin_url: str) -> None:
        self.admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        self.role = f"adjudicator_test_{uuid.uuid4().hex[:12]}"
        self.password = f"pw-{uuid.uuid4().hex}"

    def url(self, database: str) -> str:
        return f"postgresql://{self.role}:{self.password}@127.0.0.1:5432/{database}"

    def owners(self, database: str) -> set[str]:
        engine = create_engine(self.url(database).replace(self.password, ""))
        try:
            with engine.connect() as connection:
                rows = connection.execute(
                    text("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")
                )
                return {str(owner) for (owner,) in rows}
        finally:
            engine.dispose()

    def give_tables(self, database: str) -> None:
        """``ALTER TABLE ... OWNER TO`` the role, for each table, as the superuser."""
        engine = create_engine(self.admin.url.set(database=database), isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as connection:
                tables = connection.execute(
                    text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
                )
                for (table,) in tables.all():
                    connection.execute(text(f'ALTER TABLE "{table}" OWNER TO "{self.role}"'))
        finally:
            engine.dispose()

    def has_password(self) -> bool:
        with self.admin.connect() as connection:
            found = connection.execute(
                text("SELECT rolpassword IS NOT NULL FROM pg_authid WHERE rolname = :r"),
                {"r": self.role},
            ).scalar()
        return bool(found)

    def drop(self) -> None:
        with self.admin.connect() as connection:
            names = connection.execute(
                text("SELECT datname FROM pg_database WHERE datname LIKE :p"),
                {"p": f"{self.role}%"},
            )
            for (name,) in names.all():
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'DROP ROLE IF EXISTS "{self.role}"'))
        self.admin.dispose()


@pytest.fixture
def cluster(pg_server: str) -> Iterator[Cluster]:
    for program in ("pg_dump", "pg_restore", "createdb", "createuser"):
        require_program(program, "postgresql-client")
    made = Cluster(pg_server)
    yield made
    made.drop()


def _recording_pg_dump(folder: Path) -> Path:
    """A ``pg_dump`` first on PATH that writes its arguments (its /proc cmdline, as ``ps``
    shows it to every user) to a file, then runs the real one."""
    real = require_program("pg_dump", "postgresql-client")
    folder.mkdir()
    argv = folder / "argv"
    script = folder / "pg_dump"
    script.write_text(
        f'#!/bin/sh\ntr "\\0" "\\n" < /proc/$$/cmdline > {shlex.quote(str(argv))}\n'
        f'exec {shlex.quote(real)} "$@"\n'
    )
    script.chmod(0o755)
    return argv


def test_backup_keeps_the_password_off_the_command_line_and_a_wrong_restore_is_named(
    cluster: Cluster, tmp_path: Path
) -> None:
    role = cluster.role
    # The role and the database, made as deploy/README.md says.
    first = _sh_block("README.md", "## PostgreSQL: the role and the database")
    _run_as_superuser(first, {"adjudicator": role}, stdin=f"{cluster.password}\n" * 2)
    assert cluster.has_password()
    argv = _recording_pg_dump(tmp_path / "bin")
    service = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("ADJUDICATOR_", "PG"))},
        "PATH": f"{argv.parent}{os.pathsep}{os.environ['PATH']}",
        "ADJUDICATOR_DATA_DIR": str(tmp_path / "data"),
        "ADJUDICATOR_ADDRESS": "judge@pbem.test",
        "ADJUDICATOR_DATABASE_URL": cluster.url(role),
    }
    assert _adjudicate(service, "init").returncode == 0
    players = ["--player", "ann=ann@example.org", "--player", "ben=ben@example.org"]
    created = _adjudicate(service, "game", "create", "duel", "--kind", "starship-combat", *players)
    assert created.returncode == 0, created.stderr

    dump = tmp_path / "backups" / "2026-11-27.db"
    made = _adjudicate(service, "backup", str(dump))
    assert made.returncode == 0, made.stderr
    seen = argv.read_text()
    assert "pg_dump" in seen  # the wrapper saw the real call
    assert role in seen
    assert cluster.password not in seen
    assert cluster.password not in made.stdout
    listed = subprocess.run(
        ["pg_restore", "--list", str(dump)], capture_output=True, text=True, check=True
    )
    assert re.search(r"TABLE DATA public game ", listed.stdout)

    # The restore as the old BACKUP.md had it, as the superuser: postgres owns every table.
    wrong = f"{role}_wrong"
    _run_as_superuser([f"createdb {wrong}", f"pg_restore --no-owner -d {wrong} {dump}"], {})
    assert cluster.owners(wrong) == {"postgres"}
    service["ADJUDICATOR_DATABASE_URL"] = cluster.url(wrong)
    init = _adjudicate(service, "init")
    assert init.returncode != 0
    assert "Traceback" not in init.stderr
    assert f"is owned by role postgres, not {role}" in init.stderr
    assert f"pg_restore --no-owner --role={role}" in init.stderr
    doctor = _adjudicate(service, "doctor")
    assert "cannot connect" not in doctor.stdout
    assert f"is owned by role postgres, not {role}" in doctor.stdout
    assert f"--role={role}" in doctor.stdout
    assert f"OWNER TO {role}" in doctor.stdout
    assert cluster.password not in doctor.stdout + init.stderr
    # The other fix the message gives: each table given to the service's role.
    cluster.give_tables(wrong)
    assert cluster.owners(wrong) == {role}
    assert _adjudicate(service, "init").returncode == 0

    # The restore deploy/BACKUP.md gives, as it is written: the service's role owns it all.
    restore = _sh_block("BACKUP.md", "## Restoring")
    names = {
        "/var/backups/adjudicator/2026-11-27.db": str(dump),
        "adjudicator_restored": f"{role}_restored",
        "adjudicator": role,
    }
    _run_as_superuser(restore, names)
    assert cluster.owners(f"{role}_restored") == {role}
    service["ADJUDICATOR_DATABASE_URL"] = cluster.url(f"{role}_restored")
    assert _adjudicate(service, "init").returncode == 0
    doctor = _adjudicate(service, "doctor")
    assert re.search(r"^\s*ok  database: .*schema at revision", doctor.stdout, re.M), doctor.stdout
    status = _adjudicate(service, "status", "duel")
    assert status.returncode == 0, status.stderr
    assert "ann" in status.stdout
    assert "ben" in status.stdout
