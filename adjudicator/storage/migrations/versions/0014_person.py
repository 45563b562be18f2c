"""person: a player as one person across games, with the settings of his own

A player's time zone, chosen password, quiet hours and weekend days were kept on each seat and
copied to his seats of the games under way when he set them: a game he joined later started
without them, and a mail with no game could not set them. They are the person's now, one row
per registered address (in lower case), and each seat still carries a copy of them.

The persons are made from the seats: one for each address that has a seat. Where the address's
seats disagree, the value of the most recent change wins, as far as the seats tell it: the
seats of games under way (active, game not over) got every change made while they were, so
they count before the others; among them, the newest seat holding a value (the greatest id)
gives it. The newest of those seats holds the password last set: a chosen one when another
seat shares its digest (machine-made ones are salted apart), and then every seat's; otherwise
each seat keeps its own.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28 01:00:00
"""

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SETTINGS = ("time_zone", "quiet_hours", "weekend")


def upgrade() -> None:
    person = op.create_table(
        "person",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("time_zone", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("password_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("quiet_hours", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("weekend", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("changed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("address"),
    )
    rows = op.get_bind().execute(
        sa.text(
            "SELECT seat.id, lower(seat.address), seat.secret_hash, seat.time_zone, "
            "seat.quiet_hours, seat.weekend, seat.active AND game.status != 'finished' "
            "FROM seat JOIN game ON game.id = seat.game_id WHERE seat.address != '' "
            "ORDER BY seat.id"
        )
    )
    by_address: dict[str, list[Any]] = {}
    for row in rows:
        by_address.setdefault(row[1], []).append(row)
    now = datetime.now(UTC)
    made = [_person(address, seats, now) for address, seats in sorted(by_address.items())]
    if made:
        op.bulk_insert(person, made)
    for values in made:  # each seat carries its person's settings
        op.get_bind().execute(
            sa.text(
                "UPDATE seat SET time_zone = :time_zone, quiet_hours = :quiet_hours, "
                "weekend = :weekend WHERE lower(address) = :address"
            ),
            {name: values[name] for name in ("address", *SETTINGS)},
        )
        if values["password_hash"] is not None:
            op.get_bind().execute(
                sa.text("UPDATE seat SET secret_hash = :hash WHERE lower(address) = :address"),
                {"hash": values["password_hash"], "address": values["address"]},
            )


def _person(address: str, seats: list[Any], now: datetime) -> dict[str, Any]:
    """One address's person from its seats (``seats``: rows in the order of their ids)."""
    current = [s for s in seats if s[6]] or seats  # the seats of games under way first
    values: dict[str, Any] = {"address": address, "changed_at": now}
    for index, name in enumerate(SETTINGS, start=3):
        values[name] = next((s[index] for s in reversed(current) if s[index] is not None), None)
    newest = current[-1][2]
    shared = sum(1 for s in seats if s[2] == newest) > 1
    values["password_hash"] = newest if shared else None
    return values


def downgrade() -> None:
    op.drop_table("person")
