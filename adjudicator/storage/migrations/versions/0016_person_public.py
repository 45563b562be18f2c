"""person.public: whether a player shows on the archive's pages (SET PUBLIC OFF)

The players' page and the rating lists of the archive name players by their handles, never by
their addresses; a player who would rather not be listed says SET PUBLIC OFF. Every person
known so far is shown, as every player was on the pages of his games.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 04:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("person") as batch:
        batch.add_column(sa.Column("public", sa.Boolean(), nullable=False, server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("person") as batch:
        batch.drop_column("public")
