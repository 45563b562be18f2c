"""submission: whether a mail looked automatic, and an index to count them by sender

The loop guard (``service/loop_guard.py``) held back answers to every address that had been
answered five times in ten minutes when its mail replied to one of ours, counting the
service's own confirmations: a player in a quick game against the computer was cut off. Only
mail that looks sent by a program (no text of its own, an auto-responder's words, a reply
within seconds) counts now; which mail did is kept with it, and counted by its sender.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27 21:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submission") as table:
        table.add_column(sa.Column("automatic", sa.String(), nullable=True))
    op.create_index(
        "ix_submission_lower_sender_received",
        "submission",
        [sa.text("lower(sender)"), "received_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_submission_lower_sender_received", table_name="submission")
    with op.batch_alter_table("submission") as table:
        table.drop_column("automatic")
