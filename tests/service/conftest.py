"""Fixtures for the use-cases: an App on a fresh SQLite database (or PostgreSQL) with a fixed
clock the test moves by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playing import Clock

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import App, make_app


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
def twin(tmp_path: Path) -> Iterator[App]:
    """A second service on a database of its own: the same mails, handled another way."""
    application = app_for(tmp_path / "twin")
    yield application
    application.engine.dispose()


@pytest.fixture
def pg_app(tmp_path: Path, pg_url: str) -> Iterator[App]:
    application = app_for(tmp_path, pg_url)
    yield application
    application.engine.dispose()
