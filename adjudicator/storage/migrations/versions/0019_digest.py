"""digest: a player's mail that can wait, held for one mail a day (SET DIGEST DAILY)

``person.digest``: the time of day (his own zone) his digest comes, or none (every mail at
once, as before: every person known so far). ``heldnotice``: each notice held for a digest, as
the mail it would have been, until the digest that carries it is queued. Going back drops both;
run it only with no notice held (``SET DIGEST OFF`` sends what is held).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28 07:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TEXT = sqlmodel.sql.sqltypes.AutoString
_TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("person") as batch:
        batch.add_column(sa.Column("digest", _TEXT(), nullable=True))
    op.create_table(
        "heldnotice",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", _TEXT(), nullable=False),
        sa.Column("address", _TEXT(), nullable=False),
        sa.Column("kind", _TEXT(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("message", sa.LargeBinary(), nullable=False),
        sa.Column("held_at", _TIME(), nullable=False),
        sa.Column("digest_key", _TEXT(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["round_id"], ["round.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    op.create_index(
        "ix_heldnotice_address_digest", "heldnotice", ["address", "digest_key"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_heldnotice_address_digest", table_name="heldnotice")
    op.drop_table("heldnotice")
    with op.batch_alter_table("person") as batch:
        batch.drop_column("digest")
