"""PostgreSQL: mails compressed with LZ4 instead of pglz, PNGs stored without compressing

PostgreSQL compresses a value over about 2 KB before it stores it, with pglz unless told
otherwise. The mails are such values: every mail received (kept raw) and every mail queued to
be sent (a round's result mail with its pictures is 40-90 KB). Storing 3,000 result mails of
41 KB took the server 2.9-3.8 s with pglz and 0.6 s with LZ4, whose data came out smaller
still (78 MB against 87 MB); reading them back was faster too (0.43 s against 0.6 s). A PNG
is compressed already: it is stored as it is, without an attempt that gains nothing.

LZ4 needs PostgreSQL 14 or later built with it (the Debian packages and the official images
are); a server without it keeps pglz. SQLite stores values as they are: nothing to do there.
Values already stored keep their compression; those written from now on get the new one.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 11:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MAILS = (("outboxmail", "message"), ("submission", "raw"))


def _lz4_available() -> bool:
    """True on a server that can compress with LZ4: ``default_toast_compression`` (PostgreSQL
    14 and later) lists it among its values only when the server was built with it."""
    row = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT 'lz4' = ANY(enumvals) FROM pg_settings"
                " WHERE name = 'default_toast_compression'"
            )
        )
        .first()
    )
    return bool(row and row[0])


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    if _lz4_available():
        for table, column in MAILS:
            op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION lz4")
    op.execute("ALTER TABLE picturepng ALTER COLUMN png SET STORAGE EXTERNAL")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    if _lz4_available():
        for table, column in MAILS:
            op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION DEFAULT")
    op.execute("ALTER TABLE picturepng ALTER COLUMN png SET STORAGE EXTENDED")
