"""outbox: a lane per channel

What the service tells goes out by a channel (``adjudicator/notify``): mail is the first. Each
row of the outbox names its channel, and each channel's sender claims only its own lane. Every
row queued before is mail.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 04:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outboxmail") as table:
        table.add_column(
            sa.Column(
                "channel",
                sqlmodel.sql.sqltypes.AutoString(),
                nullable=False,
                server_default="mail",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("outboxmail") as table:
        table.drop_column("channel")
