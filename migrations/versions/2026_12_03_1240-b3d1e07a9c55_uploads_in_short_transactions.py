"""uploads in short transactions: batches.updated_at, the last sign of life of an upload still arriving

An upload now stores each chunk in its own transaction (so that it never holds SQLite's write lock, or a
PostgreSQL connection, while it waits for its client); a batch whose received_at is NULL is still arriving, and one
silent for long is swept as failed.

Revision ID: b3d1e07a9c55
Revises: 7c1e5a9d3b42
Create Date: 2026-12-03 12:40:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "b3d1e07a9c55"
down_revision: str | Sequence[str] | None = "7c1e5a9d3b42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("batches", sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("batches") as batch:
        batch.drop_column("updated_at")
