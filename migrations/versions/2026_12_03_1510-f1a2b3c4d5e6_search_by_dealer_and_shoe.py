"""search by dealer and shoe

``rounds`` indexed by (``dealer_id``, ``played_at``) and (``shoe_id``, ``played_at``), as by (``table_id``,
``played_at``): ``GET /v1/rounds?dealer=`` and ``?shoe=`` read one dealer's or one shoe's rounds in time order
without walking every round.

Revision ID: f1a2b3c4d5e6
Revises: e9f4b6a2c8d1
Create Date: 2026-12-03 15:10:00+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "f1a2b3c4d5e6"
down_revision: str | Sequence[str] | None = "e9f4b6a2c8d1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(op.f("ix_rounds_dealer_id_played_at"), "rounds", ["dealer_id", "played_at"])
    op.create_index(op.f("ix_rounds_shoe_id_played_at"), "rounds", ["shoe_id", "played_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_rounds_shoe_id_played_at"), table_name="rounds")
    op.drop_index(op.f("ix_rounds_dealer_id_played_at"), table_name="rounds")
