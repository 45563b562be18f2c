"""servicekey: the id of the key file the database's mail was made with

Every reply address, bounce address, receipt and confirmation code the service mails is a MAC
under the key file. A missing key file used to be replaced by a new key without a word, and
every address already mailed stopped working. The database now keeps the key's id (an HMAC of
a fixed label under the key) so that a command can tell a missing or different key file from
the right one. The row is written by the first command that opens the database with its key
(``storage/opening.py``), not here: a migration does not read the key file.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27 21:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "servicekey",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("recorded_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("servicekey")
