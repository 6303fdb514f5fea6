"""table elections: rule elections registered per (source, jurisdiction, table), in force from a timestamp

Revision ID: 7c1e5a9d3b42
Revises: 4026330cc4b9
Create Date: 2026-12-02 19:05:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7c1e5a9d3b42"
down_revision: str | Sequence[str] | None = "4026330cc4b9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "table_elections",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("jurisdiction", sa.String(length=16), nullable=False),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("effective_from", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_elections")),
        # Also the index of the lookup: the greatest effective_from <= played_at for (source, jurisdiction, table).
        sa.UniqueConstraint(
            "source",
            "jurisdiction",
            "table_id",
            "effective_from",
            name=op.f("uq_table_elections_source_jurisdiction_table_id_effective_from"),
        ),
    )


def downgrade() -> None:
    op.drop_table("table_elections")
