"""alerts: webhook subscriptions, their deliveries, and acknowledgements of alerts (issue 22)

``subscriptions``: a source's webhooks, each with its filters and its cursor in the source's chain (the chain is the
outbox: each round's entry is appended in the transaction that stores it). ``deliveries``: every attempt and its
outcome, append-only. ``acknowledgements``: a supervisor's acknowledgement of an alert, attributed, append-only, one
per alert. On PostgreSQL the append-only trigger of the evidence refuses UPDATE, DELETE and TRUNCATE of the last two
to every role but the owner's; ``bjaudit grant-app-role`` grants the application role what it needs: run it again
after this migration.

Revision ID: a2c4e6f8b0d1
Revises: f7b9d1e3a5c8
Create Date: 2026-12-04 22:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a2c4e6f8b0d1"
down_revision: str | Sequence[str] | None = "f7b9d1e3a5c8"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.types.TypeEngine[object]:
    from app.store.models import UTCDateTime

    return UTCDateTime()


_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("filters", sa.Text(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("deleted_at", _utc(), nullable=True),
        sa.Column("paused_at", _utc(), nullable=True),
        sa.Column("paused_reason", sa.Text(), nullable=True),
        sa.Column("cursor_seq", sa.BigInteger(), nullable=False),
        sa.Column("cursor_index", sa.Integer(), nullable=False),
        sa.Column("failures", sa.Integer(), server_default="0", nullable=False),
        sa.Column("first_failure_at", _utc(), nullable=True),
        sa.Column("next_attempt_at", _utc(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("lease_until", _utc(), nullable=True),
        sa.Column("delivered", sa.BigInteger(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscriptions")),
    )
    op.create_index(op.f("ix_subscriptions_source"), "subscriptions", ["source"])
    op.create_table(
        "deliveries",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("subscription_id", sa.String(length=32), nullable=False),
        sa.Column("event_id", sa.Text(), nullable=False),
        sa.Column("attempted_at", _utc(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("latency_seconds", sa.Float(), nullable=True),
        sa.CheckConstraint(
            "outcome IN ('delivered', 'failed', 'refused')", name=op.f("ck_deliveries_outcome")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deliveries")),
    )
    op.create_index(op.f("ix_deliveries_subscription_id_id"), "deliveries", ["subscription_id", "id"])
    op.create_table(
        "acknowledgements",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("finding_index", sa.Integer(), nullable=False),
        sa.Column("round_pk", _ID, nullable=False),
        sa.Column("acknowledged_at", _utc(), nullable=False),
        sa.Column("key_id", sa.String(length=16), nullable=True),
        sa.Column("acknowledged_by", sa.Text(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["round_pk"], ["rounds.id"], name=op.f("fk_acknowledgements_round_pk_rounds"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_acknowledgements")),
        sa.UniqueConstraint(
            "source", "seq", "finding_index", name=op.f("uq_acknowledgements_source_seq_finding_index")
        ),
    )
    op.create_index(op.f("ix_acknowledgements_round_pk"), "acknowledgements", ["round_pk"])
    if op.get_bind().dialect.name == "postgresql":
        for table in ("deliveries", "acknowledgements"):
            op.execute(
                f"CREATE TRIGGER append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION bjaudit_append_only()"
            )


def downgrade() -> None:
    op.drop_table("acknowledgements")
    op.drop_table("deliveries")
    op.drop_table("subscriptions")
