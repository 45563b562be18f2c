"""standby list, seat offers, seat handovers, join requests waiting for the game master

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 16:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TEXT = sqlmodel.sql.sqltypes.AutoString
_TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "standby",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", _TEXT(), nullable=False),
        sa.Column("address", _TEXT(), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kind", "address"),
    )
    op.create_index(op.f("ix_standby_kind"), "standby", ["kind"], unique=False)
    op.create_table(
        "seatoffer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("reason", _TEXT(), nullable=False),
        sa.Column("opened_at", _TIME(), nullable=False),
        sa.Column("taken_at", _TIME(), nullable=True),
        sa.Column("taken_by", _TEXT(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["seat_id"], ["seat.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_seatoffer_game_id"), "seatoffer", ["game_id"], unique=False)
    op.create_index(op.f("ix_seatoffer_seat_id"), "seatoffer", ["seat_id"], unique=False)
    op.create_table(
        "seathandover",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("old_address", _TEXT(), nullable=False),
        sa.Column("old_reply_token", _TEXT(), nullable=True),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["seat_id"], ["seat.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    for column in ("game_id", "seat_id", "old_address", "old_reply_token"):
        op.create_index(op.f(f"ix_seathandover_{column}"), "seathandover", [column], unique=False)
    op.create_table(
        "joinrequest",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("address", _TEXT(), nullable=False),
        sa.Column("handle", _TEXT(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.Column("decided_at", _TIME(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "address"),
    )
    op.create_index(op.f("ix_joinrequest_game_id"), "joinrequest", ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_joinrequest_game_id"), table_name="joinrequest")
    op.drop_table("joinrequest")
    for column in ("game_id", "seat_id", "old_address", "old_reply_token"):
        op.drop_index(op.f(f"ix_seathandover_{column}"), table_name="seathandover")
    op.drop_table("seathandover")
    op.drop_index(op.f("ix_seatoffer_seat_id"), table_name="seatoffer")
    op.drop_index(op.f("ix_seatoffer_game_id"), table_name="seatoffer")
    op.drop_table("seatoffer")
    op.drop_index(op.f("ix_standby_kind"), table_name="standby")
    op.drop_table("standby")
