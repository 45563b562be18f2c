"""tournament: tournaments by mail, their players and their games

Three new tables and nothing else changed: ``tournament`` (a series of games of one kind, with
the schedule, settings, options and starting position of its games, and whether it is open to
JOIN by mail), ``tournamentplayer`` (its players in seed order, the JOINs waiting for the game
master, and the round a player withdrew in) and ``tournamentgame`` (a game of a round, a bye or
a pairing forfeited without a game). Going back drops them.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 05:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TEXT = sqlmodel.sql.sqltypes.AutoString
_TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "tournament",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", _TEXT(), nullable=False),
        sa.Column("kind", _TEXT(), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("sides", sa.String(length=8), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=True),
        sa.Column("schedule", _TEXT(), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("setup", sa.JSON(), nullable=False),
        sa.Column("gm_address", _TEXT(), nullable=True),
        sa.Column("signup", sa.Boolean(), nullable=False),
        sa.Column("join_approve", sa.Boolean(), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.Column("finished_at", _TIME(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_tournament_name"), "tournament", ["name"], unique=True)
    op.create_table(
        "tournamentplayer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("handle", _TEXT(), nullable=False),
        sa.Column("address", _TEXT(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("withdrawn_round", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "handle"),
    )
    op.create_index(
        op.f("ix_tournamentplayer_tournament_id"), "tournamentplayer", ["tournament_id"]
    )
    op.create_table(
        "tournamentgame",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("forfeited_by", _TEXT(), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_tournamentgame_tournament_id"), "tournamentgame", ["tournament_id"])
    op.create_index(op.f("ix_tournamentgame_game_id"), "tournamentgame", ["game_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_tournamentgame_game_id"), table_name="tournamentgame")
    op.drop_index(op.f("ix_tournamentgame_tournament_id"), table_name="tournamentgame")
    op.drop_table("tournamentgame")
    op.drop_index(op.f("ix_tournamentplayer_tournament_id"), table_name="tournamentplayer")
    op.drop_table("tournamentplayer")
    op.drop_index(op.f("ix_tournament_name"), table_name="tournament")
    op.drop_table("tournament")
