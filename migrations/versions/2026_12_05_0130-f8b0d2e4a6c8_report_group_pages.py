"""report group pages: the rollups' groups in key order (issue 21)

A report by shoe over a year holds a group per shoe (hundreds of thousands at 10^7 rounds): it is answered a page at a
time (?limit=, ?cursor=). An index of ``report_rollups`` by (dim, span, null_key, key in code point order, day) lets
a page walk the keys past its cursor in order and stop after ``limit + 1`` groups, rather than add up every group of
the range and sort them. On PostgreSQL ``key`` takes the ``"C"`` collation: pages are in code point order whatever the
database's collation (SQLite compares bytes, which is the same order).

Revision ID: f8b0d2e4a6c8
Revises: d7f9b1c3e5a7
Create Date: 2026-12-05 01:30:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f8b0d2e4a6c8"
down_revision: str | Sequence[str] | None = "d7f9b1c3e5a7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_report_rollups_keys"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("report_rollups", "key", type_=sa.Text(collation="C"), existing_nullable=False)
    op.create_index(NAME, "report_rollups", ["dim", "span", "null_key", "key", "day"])


def downgrade() -> None:
    op.drop_index(NAME, table_name="report_rollups")
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("report_rollups", "key", type_=sa.Text(), existing_nullable=False)
