"""The database and its key file as an operator meets them, through the installed
``adjudicate`` command on a SQLite file and on the real PostgreSQL: a lost key file is never
replaced while games depend on it, and only ``adjudicate migrate`` changes an existing schema
(issue 39, defects 2 and 9)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from adjudicator.cli.main import app
from adjudicator.storage.db import (
    SCHEMA_HEAD,
    SCHEMA_VERSIONS,
    downgrade,
    make_engine,
    schema_revision,
)

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
NOT_READY = 78  # sysexits EX_CONFIG: the unit does not restart the service after it
OLD = "0008"  # before rounds were noted complete (0009) and the key's id was kept (0013)


@pytest.fixture(params=["sqlite", "postgresql"])
def installation(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The environment of an installation: its data folder, its database, no mail servers."""
    url = (
        f"sqlite:///{tmp_path / 'data' / 'adjudicator.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    environment = {
        name: value for name, value in os.environ.items() if not name.startswith("ADJUDICATOR_")
    }
    environment |= {
        "ADJUDICATOR_DATA_DIR": str(tmp_path / "data"),
        "ADJUDICATOR_ADDRESS": "judge@pbem.test",
        "ADJUDICATOR_DATABASE_URL": url,
    }
    return environment


class Done(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def adjudicate(environment: dict[str, str], *args: str, process: bool = False) -> Done:
    """The command, in a process of its own as the operator (or systemd) runs it, or, for the
    steps that only set a scene, through Typer's runner in this process (a process costs
    several seconds on a loaded machine)."""
    if not process:
        result = CliRunner().invoke(app, list(args), env=environment)
        return Done(result.exit_code, result.stdout, result.stderr)
    done = subprocess.run(
        [str(ADJUDICATE), *args],
        env=environment,
        cwd=environment["ADJUDICATOR_DATA_DIR"].rsplit("/", 1)[0],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return Done(done.returncode, done.stdout, done.stderr)


def ok(environment: dict[str, str], *args: str, process: bool = False) -> str:
    done = adjudicate(environment, *args, process=process)
    assert done.returncode == 0, done.stderr
    return done.stdout


def create_game(environment: dict[str, str]) -> None:
    players = ("--player", "ann=ann@x.test", "--player", "bob=bob@x.test")
    ok(environment, "game", "create", "g1", "--kind", "giveaway", *players,
       "--player", "cy=cy@x.test")  # fmt: skip


def key_file(environment: dict[str, str]) -> Path:
    return Path(environment["ADJUDICATOR_DATA_DIR"]) / "secret.key"


def test_a_lost_key_file_is_never_replaced_while_games_depend_on_it(
    installation: dict[str, str],
) -> None:
    ok(installation, "init")
    create_game(installation)
    key = key_file(installation)
    first = key.read_bytes()
    key.unlink()  # lost: a new disk, a slip of rm, a data folder restored without it

    for command, process in (
        (["serve", "--once"], True),
        (["init"], True),
        (["status"], True),
        (["game", "pause", "g1"], False),
    ):
        refused = adjudicate(installation, *command, process=process)
        assert refused.returncode == NOT_READY, (command, refused.stdout, refused.stderr)
        assert f"the key file {key.absolute()} is missing" in refused.stderr, command
        assert "reply address" in refused.stderr  # what depends on it
        assert "Restore the key file from your backup" in refused.stderr  # the fix
        assert "`adjudicate init --new-key`" in refused.stderr  # the knowing way out
        assert not key.exists(), f"{command} made a new key"

    doctor = adjudicate(installation, "doctor")
    assert doctor.returncode == 1
    line = next(line for line in doctor.stdout.splitlines() if "key file" in line)
    assert "holds games" in line, doctor.stdout

    key.write_bytes(first)  # restored from the backup: everything as before
    assert "g1" in ok(installation, "status")


def test_another_key_file_is_refused_and_new_key_takes_it_knowingly(
    installation: dict[str, str],
) -> None:
    ok(installation, "init")
    create_game(installation)
    key = key_file(installation)
    key.write_bytes(b"0123456789abcdef" * 4)  # a key file of another installation

    refused = adjudicate(installation, "status", process=True)
    assert refused.returncode == NOT_READY
    assert "is not the key this database's mail was made with" in refused.stderr
    doctor = adjudicate(installation, "doctor")
    assert doctor.returncode == 1
    assert "is not the key the database's mail was made with" in doctor.stdout

    key.unlink()
    renewed = ok(installation, "init", "--new-key")
    assert key.exists()
    assert "stops working" in renewed  # told what breaks
    assert "g1" in ok(installation, "status")


def test_a_fresh_database_makes_its_key_and_schema_as_before(
    installation: dict[str, str],
) -> None:
    """A new installation needs no `init`: the first command makes the schema and the key,
    and a key file lost before any game is made again (nothing mailed depends on it)."""
    assert "no games yet" in ok(installation, "status", process=True)
    key = key_file(installation)
    assert key.exists()
    key.unlink()
    ok(installation, "status")
    assert key.exists()
    create_game(installation)
    assert "g1" in ok(installation, "status")


def test_only_migrate_changes_an_older_schema_and_status_says_how(
    installation: dict[str, str],
) -> None:
    ok(installation, "init")
    create_game(installation)
    engine = make_engine(installation["ADJUDICATOR_DATABASE_URL"])
    try:
        downgrade(engine, OLD)  # the database as the older version left it, with its game
    finally:
        engine.dispose()

    for command, process in (
        (["status"], True),
        (["serve", "--once"], True),
        (["init"], False),
        (["archive", "build"], False),
    ):
        refused = adjudicate(installation, *command, process=process)
        assert refused.returncode == NOT_READY, (command, refused.stdout, refused.stderr)
        expected = (
            f"the database's schema is at {OLD} (version {SCHEMA_VERSIONS[OLD]}), this version "
        )
        assert expected in refused.stderr, refused.stderr
        assert f"needs {SCHEMA_HEAD}: back it up" in refused.stderr
        assert "deploy/BACKUP.md" in refused.stderr
        assert "then run `adjudicate migrate`" in refused.stderr
        assert _revision(installation) == OLD, f"{command} migrated the schema"
    doctor = adjudicate(installation, "doctor")
    assert doctor.returncode == 1
    assert f"the schema is at revision {OLD}, this version needs {SCHEMA_HEAD}" in doctor.stdout

    migrated = ok(installation, "migrate", process=True)
    assert f"schema {OLD} -> {SCHEMA_HEAD}" in migrated
    assert _revision(installation) == SCHEMA_HEAD
    assert "g1" in ok(installation, "status")  # the game came through, and the key is known
    key_file(installation).unlink()
    assert adjudicate(installation, "status").returncode == NOT_READY


def test_migrate_to_an_older_revision_takes_the_schema_back_for_a_rollback(
    installation: dict[str, str],
) -> None:
    ok(installation, "init")
    create_game(installation)
    previous = list(SCHEMA_VERSIONS)[-2]
    assert f"schema {SCHEMA_HEAD} -> {previous}" in ok(
        installation, "migrate", "--to", previous, process=True
    )
    assert _revision(installation) == previous
    assert adjudicate(installation, "status").returncode == NOT_READY  # this version needs more
    ok(installation, "migrate")
    assert "g1" in ok(installation, "status")
    unknown = adjudicate(installation, "migrate", "--to", "9999")
    assert unknown.returncode == NOT_READY
    assert "there is no schema revision '9999'" in unknown.stderr


def _revision(environment: dict[str, str]) -> str | None:
    engine = make_engine(environment["ADJUDICATOR_DATABASE_URL"])
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        return schema_revision(engine)
    finally:
        engine.dispose()


def test_a_key_file_that_cannot_be_read_is_said_not_raised(tmp_path: Path) -> None:
    environment = {
        "ADJUDICATOR_DATA_DIR": str(tmp_path / "data"),
        "ADJUDICATOR_ADDRESS": "judge@pbem.test",
    }
    (tmp_path / "data" / "secret.key").mkdir(parents=True)  # a folder where the key should be
    refused = adjudicate(environment, "status")
    assert refused.returncode == NOT_READY
    assert f"cannot read the key file {tmp_path / 'data' / 'secret.key'}" in refused.stderr
    assert "chmod 600" in refused.stderr


def test_migrating_from_0013_makes_each_address_one_person_with_its_newest_settings(
    installation: dict[str, str],
) -> None:
    """Revision 0014 (issue 40, finding 11): a player's settings were kept on each seat. Where
    one address's seats disagree, the seats of the games under way tell the newest values
    (each got every change made while it was), the newest of them first; a digest two seats
    share is a password the player chose (machine-made ones are salted apart)."""
    ok(installation, "init")
    create_game(installation)  # g1: ann, bob, cy
    for name, others in (("g2", ("dan", "eve")), ("g3", ("fay", "gus"))):
        players = [f"--player={p}={p}@x.test" for p in ("ann", *others)]
        ok(installation, "game", "create", name, "--kind", "giveaway", *players)
    engine = make_engine(installation["ADJUDICATOR_DATABASE_URL"])
    try:
        downgrade(engine, "0013")
        with engine.begin() as connection:
            for game, zone, quiet, weekend, secret in (
                ("g1", "Europe/Paris", "22:00-07:00", None, "chosen"),
                ("g2", "Asia/Tokyo", None, "sat,sun", "chosen"),
                ("g3", "America/Lima", "01:00-02:00", "fri", "older"),  # over: not counted
            ):
                connection.execute(
                    text(
                        "UPDATE seat SET time_zone = :zone, quiet_hours = :quiet, "
                        "weekend = :weekend, secret_hash = :secret WHERE handle = 'ann' AND "
                        "game_id = (SELECT id FROM game WHERE name = :game)"
                    ),
                    {"zone": zone, "quiet": quiet, "weekend": weekend, "secret": secret,
                     "game": game},
                )  # fmt: skip
            connection.execute(text("UPDATE game SET status = 'finished' WHERE name = 'g3'"))
            connection.execute(text("UPDATE seat SET time_zone = 'UTC' WHERE handle = 'bob'"))
    finally:
        engine.dispose()

    assert f"schema 0013 -> {SCHEMA_HEAD}" in ok(installation, "migrate", process=True)

    engine = make_engine(installation["ADJUDICATOR_DATABASE_URL"])
    try:
        with engine.connect() as connection:
            persons = {
                row[0]: tuple(row[1:])
                for row in connection.execute(
                    text(
                        "SELECT address, time_zone, quiet_hours, weekend, password_hash FROM person"
                    )
                )
            }
            ann_seats = set(
                connection.execute(
                    text(
                        "SELECT time_zone, quiet_hours, weekend, secret_hash FROM seat "
                        "WHERE address = 'ann@x.test'"
                    )
                )
            )
    finally:
        engine.dispose()
    assert persons["ann@x.test"] == ("Asia/Tokyo", "22:00-07:00", "sat,sun", "chosen")
    assert persons["bob@x.test"][:3] == ("UTC", None, None)
    assert persons["bob@x.test"][3] is None  # his one seat keeps its machine-made password
    assert len(persons) == 7  # one person an address: ann, and the six others
    # Every seat of hers carries her settings now, the one of the game over too.
    assert ann_seats == {("Asia/Tokyo", "22:00-07:00", "sat,sun", "chosen")}
