"""report rollups: each day's figures per source, jurisdiction and group, added up from the chains (issue 21)

``report_rollups``: a UTC day's (and a month's) report figures of a source and jurisdiction, in total and per table,
dealer, shoe (days only) and rule; ``rollup_cursors``: how far each source's chain is added up. Derived data, kept by the rollers
(app/store/rollups.py): a store upgraded to this revision starts with none, and its rollers add up its chains from
the first entry (reports read the raw rows meanwhile, as exact).

Revision ID: d4f6a8c0e2b4
Revises: c3e5a7b9d1f4
Create Date: 2026-12-05 01:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d4f6a8c0e2b4"
down_revision: str | Sequence[str] | None = "c3e5a7b9d1f4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FIGURES = (
    "rounds",
    "rounds_with_findings",
    "findings",
    "owed_to_players",
    "owed_by_players",
    "voided_rounds",
    "corrected_findings",
    "corrected_still_owed",
    "alerts",
)


def upgrade() -> None:
    op.create_table(
        "report_rollups",
        sa.Column("span", sa.String(5), nullable=False),
        sa.Column("dim", sa.String(8), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("source", sa.String(128), nullable=False),
        sa.Column("jurisdiction", sa.String(16), nullable=False),
        sa.Column("null_key", sa.Boolean(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        *[sa.Column(f, sa.BigInteger(), nullable=False) for f in FIGURES],
        sa.CheckConstraint("dim IN ('all', 'table', 'dealer', 'shoe', 'rule')", name="ck_report_rollups_dim"),
        sa.CheckConstraint("span IN ('day', 'month')", name="ck_report_rollups_span"),
        sa.PrimaryKeyConstraint(
            "span", "dim", "day", "source", "jurisdiction", "null_key", "key", name="pk_report_rollups"
        ),
    )
    op.create_table(
        "rollup_cursors",
        sa.Column("source", sa.String(128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("source", name="pk_rollup_cursors"),
    )


def downgrade() -> None:
    op.drop_table("rollup_cursors")
    op.drop_table("report_rollups")
