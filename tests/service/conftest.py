"""Fixtures for the use-cases: an App on a fresh SQLite database (or PostgreSQL) with a fixed
clock the test moves by hand."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adjudicator.app import App, make_app
from adjudicator.config import Config, ServiceConfig


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


def app_for(tmp_path: Path, database_url: str = "") -> App:
    config = Config(
        service=ServiceConfig(
            data_dir=str(tmp_path / "data"), database_url=database_url, address="judge@pbem.test"
        )
    )
    app = make_app(config)
    app.clock = Clock()
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    application = app_for(tmp_path)
    yield application
    application.engine.dispose()


@pytest.fixture
def pg_app(tmp_path: Path, pg_url: str) -> Iterator[App]:
    application = app_for(tmp_path, pg_url)
    yield application
    application.engine.dispose()
