"""Shared fixtures: databases (SQLite files and a throwaway PostgreSQL database), real mail
servers (a Dovecot, aiosmtpd sinks and a self-signed certificate; the servers themselves are in
tests/mailservers.py), and quick pictures for every app a test makes, each made with no database
transaction open."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from converters import OpenTransactions, QuickPictures
from mailservers import (
    Dovecot,
    SelfSignedCert,
    SmtpSink,
    make_self_signed_cert,
    running_dovecot,
    start_smtp_sink,
)
from needs import require_extra, unavailable
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from tiers import mark_tiers

from adjudicator.storage.db import make_engine, migrate


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers (tests/tiers.py): ``e2e`` and ``slow`` marks, which the fast tier leaves out."""
    mark_tiers(items)


PG_ADMIN_URL = os.environ.get(
    "ADJUDICATOR_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


@pytest.fixture(scope="session")
def open_transactions() -> Iterator[OpenTransactions]:
    watch = OpenTransactions()
    watch.install()
    yield watch
    watch.remove()


@pytest.fixture(autouse=True)
def quick_pictures(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    open_transactions: OpenTransactions,
) -> Iterator[list[QuickPictures]]:
    """Apps made by ``make_app`` convert with :class:`QuickPictures` (unless the test is marked
    ``real_pictures``), and the test fails if one converted inside a transaction."""
    made: list[QuickPictures] = []
    if request.node.get_closest_marker("real_pictures") is None:

        def quick() -> QuickPictures:
            made.append(QuickPictures(open_transactions))
            return made[-1]

        monkeypatch.setattr("adjudicator.service.app.VipsConverter", quick)
    yield made
    inside = sum(converter.inside_transactions for converter in made)
    assert inside == 0, f"{inside} picture(s) converted inside a database transaction"


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'test.db'}")
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def pg_server() -> str:
    """The admin URL of a reachable PostgreSQL server."""
    require_extra("psycopg", package="psycopg", extra="postgresql")
    try:
        engine = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
        with engine.connect() as connection:
            connection.execute(text("select 1"))
        engine.dispose()
    except Exception as error:  # any driver or connection error means "not here"
        unavailable(f"no PostgreSQL server at {PG_ADMIN_URL}: {type(error).__name__}")
    return PG_ADMIN_URL


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL database, dropped after the test."""
    name = f"adjudicator_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(pg_server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = pg_server.rsplit("/", 1)[0] + "/" + name
    yield url
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def pg_engine(pg_url: str) -> Iterator[Engine]:
    engine = make_engine(pg_url)
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def dovecot(tls_cert: SelfSignedCert) -> Iterator[Dovecot]:
    """One Dovecot for the whole session (stopping one takes a second); any user name logs in
    with password "secret", so take a fresh ``imap_user`` per test. Plain IMAP on ``port``
    (STARTTLS offered), implicit TLS on ``tls_port`` with ``tls_cert``."""
    with running_dovecot(cert=tls_cert) as server:
        yield server


@pytest.fixture
def imap_user(dovecot: Dovecot) -> str:
    """A user (hence a mailbox) that no other test sees."""
    return dovecot.new_user()


@pytest.fixture(scope="session")
def tls_cert(tmp_path_factory: pytest.TempPathFactory) -> SelfSignedCert:
    return make_self_signed_cert(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def make_smtp_sink(tls_cert: SelfSignedCert) -> Iterator[Callable[..., SmtpSink]]:
    """``make_smtp_sink(tls="starttls", accounts={"judge": "pw"}, require_auth=True)``: start
    a sink of the wanted kind; all are stopped after the test."""
    sinks: list[SmtpSink] = []

    def make(**options: Any) -> SmtpSink:
        if options.get("tls", "none") != "none":
            options.setdefault("cert", tls_cert)
        sink = start_smtp_sink(**options)
        sinks.append(sink)
        return sink

    yield make
    for sink in sinks:
        sink.stop()


@pytest.fixture
def smtp_sink(make_smtp_sink: Callable[..., SmtpSink]) -> SmtpSink:
    """A plain SMTP sink that accepts everything."""
    return make_smtp_sink()


@pytest.fixture
def maildir(tmp_path: Path) -> Path:
    return tmp_path / "Maildir"
