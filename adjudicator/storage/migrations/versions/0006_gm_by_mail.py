"""the game master by mail: a reply token, a copy of results, results replaced by a rollback

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25 16:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("gm_token", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch.add_column(
            sa.Column("gm_copy", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("replaced_results", sa.JSON(), nullable=False, server_default="{}")
        )


def downgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.drop_column("replaced_results")
        batch.drop_column("gm_copy")
        batch.drop_column("gm_token")
