"""round: when its last orders came in, for a round that closes early after the mail's batch

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 06:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("round") as table:
        table.add_column(sa.Column("complete_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("round") as table:
        table.drop_column("complete_at")
