"""undone chunks index: the chunks not yet audited, found without reading every chunk ever stored

Workers look for lost chunks every few seconds, `/metrics` counts the undone ones at each scrape, and the service
takes up undone chunks at start: all ask for `batch_chunks` rows with `done_at IS NULL`. A night's batch leaves
hundreds of chunks done; a year, hundreds of thousands. A partial index holds only the undone ones.

Revision ID: a7c3e5f9b1d2
Revises: f1a2b3c4d5e6
Create Date: 2026-12-03 16:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a7c3e5f9b1d2"
down_revision: str | Sequence[str] | None = "f1a2b3c4d5e6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_batch_chunks_undone",
        "batch_chunks",
        ["batch_id", "chunk_no"],
        postgresql_where=sa.text("done_at IS NULL"),
        sqlite_where=sa.text("done_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_batch_chunks_undone", table_name="batch_chunks")
