"""person.webhook_url, person.webhook_secret: a player's own webhook (SET WEBHOOK URL)

A player's own notices (his confirmations, results, reminders, "your turn") are posted to the
address he set besides being mailed, signed with the secret the answer to SET WEBHOOK gave him
(docs/webhooks.md). Nobody has one yet.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28 07:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("person") as batch:
        batch.add_column(sa.Column("webhook_url", sa.String(), nullable=True))
        batch.add_column(sa.Column("webhook_secret", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("person") as batch:
        batch.drop_column("webhook_secret")
        batch.drop_column("webhook_url")
