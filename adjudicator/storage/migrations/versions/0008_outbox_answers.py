"""outbox: answers to a player's own mail go out before mails nobody is waiting for

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26 03:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outboxmail") as table:
        table.add_column(
            sa.Column("answer", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("outboxmail") as table:
        table.drop_column("answer")
