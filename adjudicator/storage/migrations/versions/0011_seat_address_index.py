"""seat: an index of the addresses in lower case, as every question by address asks them

A mail is matched to its sender's seats by ``lower(seat.address)`` (addresses are compared
without regard to case): the batch's "which running games seat this sender", the lock-out and
stranger checks. The index of ``address`` as written serves none of them, so each went through
every seat of every game, finished ones included: a cost that grew with the service's history.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 20:05:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_seat_lower_address", "seat", [sa.text("lower(address)")], unique=False)


def downgrade() -> None:
    op.drop_index("ix_seat_lower_address", table_name="seat")
