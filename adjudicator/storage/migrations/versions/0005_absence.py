"""absences from a game, and quiet hours and weekend days for reminders

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 16:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "absence",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("ends_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("automatic", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["seat_id"], ["seat.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    op.create_index(op.f("ix_absence_game_id"), "absence", ["game_id"], unique=False)
    op.create_index(op.f("ix_absence_seat_id"), "absence", ["seat_id"], unique=False)
    op.add_column("seat", sa.Column("quiet_hours", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
    op.add_column("seat", sa.Column("weekend", sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("weekend")
        batch.drop_column("quiet_hours")
    op.drop_index(op.f("ix_absence_seat_id"), table_name="absence")
    op.drop_index(op.f("ix_absence_game_id"), table_name="absence")
    op.drop_table("absence")
