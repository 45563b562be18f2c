"""Storage: migrations create the schema; times stay aware UTC; raw mail is kept byte for byte;
the same message cannot be stored twice; both SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from adjudicator.storage.db import (
    SCHEMA_HEAD,
    alembic_config,
    make_engine,
    migrate,
    schema_revision,
    session_scope,
)
from adjudicator.storage.models import (
    Game,
    OutboxMail,
    PicturePng,
    Round,
    RoundState,
    Submission,
)

TABLES = {
    "game",
    "seat",
    "round",
    "submission",
    "orderset",
    "roundresult",
    "outboxmail",
    "mailboxcursor",
    "standby",
    "seatoffer",
    "seathandover",
    "joinrequest",
    "person",
    "alembic_version",
}


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> Engine:
    fixture = "sqlite_engine" if request.param == "sqlite" else "pg_engine"
    return request.getfixturevalue(fixture)  # type: ignore[no-any-return]


def test_migrations_create_every_table(engine: Engine) -> None:
    assert set(inspect(engine).get_table_names()) >= TABLES


def test_a_seat_is_found_by_its_address_in_any_case_through_an_index(engine: Engine) -> None:
    """Migration 0011: mail is matched to seats by ``lower(address)``; without an index of
    that, every question by address went through every seat of every game ever played."""
    statement = "SELECT seat.id FROM seat WHERE lower(seat.address) IN ('ann@example.org')"
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}").all()
            steps = [str(row[-1]) for row in plan]
            assert any("ix_seat_lower_address" in step for step in steps), steps
            assert not any(step.startswith("SCAN seat") for step in steps), steps
        else:
            connection.exec_driver_sql("SET LOCAL enable_seqscan = off")  # an empty table
            plan = connection.exec_driver_sql(f"EXPLAIN {statement}").all()
            assert "ix_seat_lower_address" in " ".join(str(row[0]) for row in plan)


def test_sqlite_runs_in_wal_mode(sqlite_engine: Engine) -> None:
    with sqlite_engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"


def test_times_are_stored_aware_and_come_back_in_utc(engine: Engine) -> None:
    london_summer = timezone(timedelta(hours=1))
    deadline = datetime(2026, 7, 1, 21, 0, tzinfo=london_summer)
    with session_scope(engine) as session:
        game = Game(name="gw1", kind="giveaway", created_at=datetime.now(UTC))
        session.add(game)
        session.flush()
        assert game.id is not None
        session.add(Round(game_id=game.id, number=1, opened_at=deadline, deadline=deadline))
    with Session(engine) as session:
        stored = session.exec(select(Round)).one()
        assert stored.deadline == deadline
        assert stored.deadline is not None
        assert stored.deadline.utcoffset() == timedelta(0)
        assert stored.state == RoundState.OPEN
        # The due-deadlines query compares correctly in UTC on both databases.
        due = session.exec(
            select(Round).where(Round.deadline <= datetime(2026, 7, 1, 20, 0, tzinfo=UTC))
        ).all()
        assert len(due) == 1


def test_naive_datetimes_are_refused(engine: Engine) -> None:
    with pytest.raises(Exception, match="timezone"), session_scope(engine) as session:
        session.add(Game(name="gw2", kind="giveaway", created_at=datetime(2026, 1, 1)))


def test_raw_mail_is_kept_byte_for_byte_and_only_once(engine: Engine) -> None:
    raw = b"From: a@example.org\r\nSubject: orders\r\n\r\nGIVE 3 TO bob\r\n\xff\x00"
    now = datetime.now(UTC)
    with session_scope(engine) as session:
        session.add(Submission(received_at=now, channel="pipe", digest="d1", raw=raw))
    with Session(engine) as session:
        assert session.exec(select(Submission)).one().raw == raw
    with pytest.raises(IntegrityError), session_scope(engine) as session:
        session.add(Submission(received_at=now, channel="imap", digest="d1", raw=raw))


def _storage(engine: Engine) -> dict[str, tuple[str, str]]:
    """attstorage and attcompression of the large columns (pg_attribute)."""
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT attrelid::regclass::text || '.' || attname, attstorage,"
                " attcompression::text FROM pg_attribute WHERE (attrelid::regclass::text,"
                " attname) IN (('outboxmail', 'message'), ('submission', 'raw'),"
                " ('picturepng', 'png'))"
            )
        ).all()
    return {name: (storage, compression) for name, storage, compression in rows}


def test_on_postgresql_mails_are_compressed_with_lz4_and_pngs_not_at_all(
    pg_engine: Engine,
) -> None:
    """Migration 0010: PostgreSQL compresses a value over about 2 KB before storing it; the
    mails get LZ4 (much cheaper than the default pglz) where the server has it, a PNG (which
    does not compress) is stored as it is. What is stored comes back byte for byte."""
    with pg_engine.connect() as connection:
        lz4 = connection.execute(
            text(
                "SELECT coalesce(bool_or(enumvals @> ARRAY['lz4']), false) FROM pg_settings"
                " WHERE name = 'default_toast_compression'"
            )
        ).scalar_one()
    now = datetime.now(UTC)
    mail = b"".join(b"Line %d of a result mail, with its words.\r\n" % n for n in range(1000))
    png = bytes(range(256)) * 8 + (b"\x89PNG" + bytes(reversed(range(256))) * 80)
    with session_scope(pg_engine) as session:
        session.add(Submission(received_at=now, channel="pipe", digest="d1", raw=mail))
        session.add(
            OutboxMail(
                key="k1",
                kind="result",
                recipient="a@example.org",
                message=mail,
                next_attempt_at=now,
                created_at=now,
            )
        )
        session.add(PicturePng(digest="p1", png=png, created_at=now))
    with pg_engine.connect() as connection:
        stored = connection.execute(
            text(
                "SELECT (SELECT pg_column_compression(message) FROM outboxmail),"
                " (SELECT pg_column_compression(raw) FROM submission),"
                " (SELECT pg_column_compression(png) FROM picturepng)"
            )
        ).one()
    method = "lz4" if lz4 else "pglz"
    assert tuple(stored) == (method, method, None)
    with Session(pg_engine) as session:
        assert session.exec(select(OutboxMail.message)).one() == mail
        assert session.exec(select(Submission.raw)).one() == mail
        assert session.exec(select(PicturePng.png)).one() == png
    assert _storage(pg_engine)["picturepng.png"][0] == "e"  # external: out of line, as is
    command.downgrade(alembic_config(pg_engine), "0009")
    assert {s for s, _ in _storage(pg_engine).values()} == {"x"}  # extended, the default
    assert {c for _, c in _storage(pg_engine).values()} == {""}  # the server's default
    migrate(pg_engine)
    assert _storage(pg_engine)["outboxmail.message"][1] == ("l" if lz4 else "")


def test_the_schema_head_is_alembics_newest_revision(sqlite_engine: Engine) -> None:
    """A database at SCHEMA_HEAD is not migrated: it must move with every new migration."""
    scripts = ScriptDirectory.from_config(alembic_config(sqlite_engine))
    assert scripts.get_current_head() == SCHEMA_HEAD
    assert schema_revision(sqlite_engine) == SCHEMA_HEAD


def test_a_database_behind_is_migrated_and_one_at_the_head_is_left_without_alembic(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = make_engine(url)
    try:
        assert schema_revision(engine) is None  # a new database
        command.upgrade(alembic_config(engine), "0008")  # before rounds noted complete (0009)
        assert "complete_at" not in {c["name"] for c in inspect(engine).get_columns("round")}
        migrate(engine)
        assert schema_revision(engine) == SCHEMA_HEAD
        assert "complete_at" in {c["name"] for c in inspect(engine).get_columns("round")}
    finally:
        engine.dispose()
    probe = (
        "import sys\n"
        "from adjudicator.storage.db import make_engine, migrate\n"
        f"migrate(make_engine({url!r}))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
