"""rule search walk: a rule's findings, and those citing it as another number, in keyset order (issue 21)

The search by rule read every finding of the rule (and, for ``also_cited_as LIKE``, which no index serves, every
finding) before it could sort the rounds: 2.5 s p95 at 10^7 rounds. It now walks them newest first, a page at a time:
``(rule, played_at, round_pk)`` (in place of ``(rule, played_at)``) and, for the other numbers a finding is also
cited as, ``(also_cited_as, played_at, round_pk)`` of the findings that have one, whose first column also lists the
few distinct ``also_cited_as`` values by a skip scan.

Revision ID: a1c3e5f7b9d2
Revises: f8b0d2e4a6c8
Create Date: 2026-12-05 01:40:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a1c3e5f7b9d2"
down_revision: str | Sequence[str] | None = "f8b0d2e4a6c8"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ALSO = "also_cited_as IS NOT NULL"


def upgrade() -> None:
    op.create_index("ix_findings_rule_played_at_round_pk", "findings", ["rule", "played_at", "round_pk"])
    op.drop_index("ix_findings_rule_played_at", table_name="findings")
    op.create_index(
        "ix_findings_also_cited_as",
        "findings",
        ["also_cited_as", "played_at", "round_pk"],
        postgresql_where=sa.text(ALSO),
        sqlite_where=sa.text(ALSO),
    )


def downgrade() -> None:
    op.drop_index("ix_findings_also_cited_as", table_name="findings")
    op.create_index("ix_findings_rule_played_at", "findings", ["rule", "played_at"])
    op.drop_index("ix_findings_rule_played_at_round_pk", table_name="findings")
