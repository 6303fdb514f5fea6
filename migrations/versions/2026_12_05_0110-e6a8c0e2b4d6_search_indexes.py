"""search indexes: the rare rounds found without reading the others (issue 21)

Partial indexes of ``rounds`` by (played_at, id), the keyset order of searches, over the rounds whose first audit
found violations, found them unreplayable, or declared them void: a search for those (a few percent of the rounds,
some far fewer) reads them alone, newest first, where the (played_at, id) index made it read every round between
two of them. ``rounds`` by (source, played_at) and (jurisdiction, played_at): a search of one source or jurisdiction
whose rounds are old, or few, reads them alone. ``findings`` by played_at: a report's part-days at the ends of its
range read their day's findings, not all.

Revision ID: e6a8c0e2b4d6
Revises: d4f6a8c0e2b4
Create Date: 2026-12-05 01:10:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "e6a8c0e2b4d6"
down_revision: str | Sequence[str] | None = "d4f6a8c0e2b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PARTIAL = {
    "ix_rounds_violations": "verdict = 'violations'",
    "ix_rounds_unreplayable": "verdict = 'unreplayable'",
    "ix_rounds_voided": "void_reason IS NOT NULL",
}


PLAIN = {"ix_rounds_source_played_at": "source", "ix_rounds_jurisdiction_played_at": "jurisdiction"}


def upgrade() -> None:
    for name, column in PLAIN.items():
        op.create_index(name, "rounds", [column, "played_at"])
    op.create_index("ix_findings_played_at", "findings", ["played_at"])
    for name, where in PARTIAL.items():
        op.create_index(
            name,
            "rounds",
            ["played_at", "id"],
            postgresql_where=sa.text(where),
            sqlite_where=sa.text(where),
        )


def downgrade() -> None:
    op.drop_index("ix_findings_played_at", table_name="findings")
    for name in [*PARTIAL, *PLAIN]:
        op.drop_index(name, table_name="rounds")
