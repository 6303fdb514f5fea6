"""ended sessions: a workbench logout ends the session on the server, not only in the browser

The workbench's session cookie is signed, not stored: clearing it at logout left a copy of it good until it expired
(8 hours). ``ended_sessions`` holds the nonce of each session ended by logout until its cookie would have expired; a
cookie whose session is there is refused.

Revision ID: f7b9d1e3a5c8
Revises: e5a7c9b1d3f6
Create Date: 2026-12-04 19:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f7b9d1e3a5c8"
down_revision: str | Sequence[str] | None = "e5a7c9b1d3f6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.types.TypeEngine[object]:
    from app.store.models import UTCDateTime

    return UTCDateTime()


def upgrade() -> None:
    op.create_table(
        "ended_sessions",
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("ends_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("nonce", name=op.f("pk_ended_sessions")),
    )


def downgrade() -> None:
    op.drop_table("ended_sessions")
