"""PostgreSQL: mails compressed with LZ4 instead of pglz, PNGs stored without compressing

PostgreSQL compresses a value over about 2 KB before it stores it, with pglz unless told
otherwise. The mails are such values: every mail received (kept raw) and every mail queued to
be sent (a round's result mail with its pictures is 40-90 KB, mostly base64). pglz spends its
time on them for nothing: 3,000 real result mails of 44 KB took the server 3.5 s to store
with pglz, 0.87 s with LZ4 and 0.80 s uncompressed, and came out 143 MB with pglz as without
compression, 125 MB with LZ4 (``bench/pg_compression.py``). A PNG is compressed already: it
is stored as it is, without an attempt that gains nothing.

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
    _store(mails="lz4", pngs="EXTERNAL")


def downgrade() -> None:
    _store(mails="DEFAULT", pngs="EXTENDED")


def _store(*, mails: str, pngs: str) -> None:
    """The mails' compression (where the server has LZ4) and the PNGs' storage, on PostgreSQL."""
    if op.get_bind().dialect.name != "postgresql":
        return
    if _lz4_available():
        for table, column in MAILS:
            op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION {mails}")
    op.execute(f"ALTER TABLE picturepng ALTER COLUMN png SET STORAGE {pngs}")
