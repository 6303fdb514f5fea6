"""batch results append-only: the application role may not rewrite a batch's per-line results

A batch's results (``batch_results``: each line's outcome, round and verdict) are outside the chain; the service only
ever inserts them. On PostgreSQL the append-only trigger of the evidence (``bjaudit_append_only``) now refuses their
UPDATE, DELETE and TRUNCATE to every role but the owner's (a batch deleted by its owner takes its results with it).
``bjaudit grant-app-role`` grants the application role SELECT and INSERT on them, and UPDATE on ``api_keys``'s
``revoked_at`` only: run it again after this migration.

Revision ID: e5a7c9b1d3f6
Revises: d3f5a7c9e1b4
Create Date: 2026-12-04 18:30:00+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "e5a7c9b1d3f6"
down_revision: str | Sequence[str] | None = "d3f5a7c9e1b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE TRIGGER append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON batch_results "
            "FOR EACH STATEMENT EXECUTE FUNCTION bjaudit_append_only()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS append_only ON batch_results")
