"""failed passwords counted per seat and source; answers counted per recipient

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 07:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "loginfailure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("first_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("locked_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("told", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["seat_id"], ["seat.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("seat_id", "source"),
    )
    op.create_index(op.f("ix_loginfailure_seat_id"), "loginfailure", ["seat_id"], unique=False)
    op.create_index("ix_outboxmail_recipient_created", "outboxmail", ["recipient", "created_at"])
    op.create_index("ix_outboxmail_created_at", "outboxmail", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_outboxmail_created_at", table_name="outboxmail")
    op.drop_index("ix_outboxmail_recipient_created", table_name="outboxmail")
    op.drop_index(op.f("ix_loginfailure_seat_id"), table_name="loginfailure")
    op.drop_table("loginfailure")
