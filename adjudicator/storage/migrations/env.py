"""Alembic environment: runs against the engine the service passes in."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import adjudicator.storage.models  # noqa: F401 - registers the tables

engine = context.config.attributes["engine"]
with engine.begin() as connection:
    context.configure(
        connection=connection,
        target_metadata=SQLModel.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
