"""press messages kept with their round; a seat's SET WAIT; observers

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 07:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "press",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("sender", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("anonymous", sa.Boolean(), nullable=False),
        sa.Column("text", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["seat_id"], ["seat.id"]),
        sa.ForeignKeyConstraint(["submission_id"], ["submission.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_press_game_id"), "press", ["game_id"], unique=False)
    op.create_index(op.f("ix_press_seat_id"), "press", ["seat_id"], unique=False)
    op.create_table(
        "observer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "address"),
    )
    op.create_index(op.f("ix_observer_game_id"), "observer", ["game_id"], unique=False)
    with op.batch_alter_table("seat") as batch:
        batch.add_column(sa.Column("wait", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_index(op.f("ix_observer_game_id"), table_name="observer")
    op.drop_table("observer")
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("wait")
    op.drop_index(op.f("ix_press_seat_id"), table_name="press")
    op.drop_index(op.f("ix_press_game_id"), table_name="press")
    op.drop_table("press")
