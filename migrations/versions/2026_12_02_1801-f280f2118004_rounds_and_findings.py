"""rounds and findings: the verbatim record with its audit, and the findings by rule, table and date

Revision ID: f280f2118004
Revises:
Create Date: 2026-12-02 18:01:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f280f2118004"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "rounds",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("jurisdiction", sa.String(length=16), nullable=False),
        sa.Column("round_id", sa.String(length=128), nullable=False),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("played_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("dealer_id", sa.Text(), nullable=True),
        sa.Column("shoe_id", sa.Text(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("record", sa.LargeBinary(), nullable=False),
        sa.Column("record_sha256", sa.String(length=64), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("ruleset", sa.Text(), nullable=False),
        sa.Column("engine_version", sa.String(length=64), nullable=False),
        sa.Column("elections_source", sa.String(length=16), nullable=False),
        sa.Column("finding_count", sa.Integer(), nullable=False),
        sa.Column("audit", sa.Text(), nullable=False),
        sa.CheckConstraint(
            "elections_source IN ('record', 'registered', 'defaults')",
            name=op.f("ck_rounds_elections_source"),
        ),
        sa.CheckConstraint(
            "verdict IN ('compliant', 'violations', 'unreplayable')", name=op.f("ck_rounds_verdict")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sa.UniqueConstraint(
            "round_id", "source", "jurisdiction", name=op.f("uq_rounds_round_id_source_jurisdiction")
        ),
    )
    op.create_index(op.f("ix_rounds_played_at_id"), "rounds", ["played_at", "id"])
    op.create_index(op.f("ix_rounds_table_id_played_at"), "rounds", ["table_id", "played_at"])

    op.create_table(
        "findings",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("round_pk", BigId, nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("rule", sa.Text(), nullable=False),
        sa.Column("also_cited_as", sa.Text(), nullable=True),
        sa.Column("citation_status", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=32), nullable=False),
        sa.Column("event_index", sa.Integer(), nullable=True),
        sa.Column("hand", sa.Text(), nullable=True),
        sa.Column("amount_delta", sa.BigInteger(), nullable=True),
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("jurisdiction", sa.String(length=16), nullable=False),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("played_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["round_pk"], ["rounds.id"], name=op.f("fk_findings_round_pk_rounds"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_findings")),
        sa.UniqueConstraint("round_pk", "seq", name=op.f("uq_findings_round_pk_seq")),
    )
    op.create_index(op.f("ix_findings_rule_played_at"), "findings", ["rule", "played_at"])

    bind = op.get_bind()
    if bind.dialect.name == "postgresql" and (bind.dialect.server_version_info or (0,)) >= (14,):
        # The verbatim record (~2 KB) is TOASTed: lz4 ingests 1.5-1.8x faster than pglz
        # (design/performance-notes.md). A server built without lz4 keeps its default.
        op.execute(
            "DO $$ BEGIN ALTER TABLE rounds ALTER COLUMN record SET COMPRESSION lz4; "
            "EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL; END $$"
        )


def downgrade() -> None:
    op.drop_index(op.f("ix_findings_rule_played_at"), table_name="findings")
    op.drop_table("findings")
    op.drop_index(op.f("ix_rounds_table_id_played_at"), table_name="rounds")
    op.drop_index(op.f("ix_rounds_played_at_id"), table_name="rounds")
    op.drop_table("rounds")
