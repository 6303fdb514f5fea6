"""re-audits: every audit of a round kept, the latest used

A round's first audit is the one stored with it (``rounds.audit``, audit 1); a re-audit that finds something
different appends an ``audits`` row (audit 2, 3 ...) with its own ``findings`` rows (``findings.audit_no``) and a
chain entry of kind ``audit``. Nothing is overwritten: search and reports read the latest audit of each round.
``reaudits`` and ``reaudit_chunks`` are the jobs that re-run stored rounds (chunks of round ids, each done once, in
the transaction that stores its audits), as batches are.

Revision ID: c4e6a8b0d2f4
Revises: a7c3e5f9b1d2
Create Date: 2026-12-03 17:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "c4e6a8b0d2f4"
down_revision: str | Sequence[str] | None = "a7c3e5f9b1d2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _utc() -> sa.types.TypeEngine[object]:
    from app.store.models import UTCDateTime

    return UTCDateTime()


def upgrade() -> None:
    op.create_table(
        "reaudits",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("source", sa.String(length=128), nullable=True),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("requested_by", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("round_count", sa.Integer(), nullable=False),
        sa.Column("chunk_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reaudits")),
    )
    op.create_table(
        "reaudit_chunks",
        sa.Column("reaudit_id", sa.String(length=32), nullable=False),
        sa.Column("chunk_no", sa.Integer(), nullable=False),
        sa.Column("round_pks", sa.Text(), nullable=False),
        sa.Column("round_count", sa.Integer(), nullable=False),
        sa.Column("started_at", _utc(), nullable=True),
        sa.Column("done_at", _utc(), nullable=True),
        sa.Column("changed", sa.Integer(), nullable=False),
        sa.Column("unchanged", sa.Integer(), nullable=False),
        sa.Column("unreadable", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["reaudit_id"],
            ["reaudits.id"],
            name=op.f("fk_reaudit_chunks_reaudit_id_reaudits"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("reaudit_id", "chunk_no", name=op.f("pk_reaudit_chunks")),
    )
    op.create_index(
        "ix_reaudit_chunks_undone",
        "reaudit_chunks",
        ["reaudit_id", "chunk_no"],
        postgresql_where=sa.text("done_at IS NULL"),
        sqlite_where=sa.text("done_at IS NULL"),
    )
    op.create_table(
        "audits",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("round_pk", BigId, nullable=False),
        sa.Column("audit_no", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("reaudit_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("ruleset", sa.Text(), nullable=False),
        sa.Column("engine_version", sa.String(length=64), nullable=False),
        sa.Column("elections_source", sa.String(length=16), nullable=False),
        sa.Column("elections_id", BigId, nullable=True),
        sa.Column("finding_count", sa.Integer(), nullable=False),
        sa.Column("audit", sa.Text(), nullable=False),
        sa.CheckConstraint("audit_no >= 2", name=op.f("ck_audits_audit_no")),
        sa.CheckConstraint(
            "verdict IN ('compliant', 'violations', 'unreplayable')", name=op.f("ck_audits_verdict")
        ),
        sa.CheckConstraint(
            "elections_source IN ('record', 'registered', 'defaults')",
            name=op.f("ck_audits_elections_source"),
        ),
        sa.ForeignKeyConstraint(
            ["round_pk"], ["rounds.id"], name=op.f("fk_audits_round_pk_rounds"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audits")),
        sa.UniqueConstraint("round_pk", "audit_no", name=op.f("uq_audits_round_pk_audit_no")),
    )
    with op.batch_alter_table("findings") as batch:
        batch.add_column(sa.Column("audit_no", sa.Integer(), server_default="1", nullable=False))
        batch.drop_constraint(op.f("uq_findings_round_pk_seq"), type_="unique")
        batch.create_unique_constraint(
            op.f("uq_findings_round_pk_audit_no_seq"), ["round_pk", "audit_no", "seq"]
        )
    with op.batch_alter_table("chain_entries") as batch:
        batch.drop_constraint(op.f("ck_chain_entries_kind"), type_="check")
        batch.create_check_constraint("kind", "kind IN ('round', 'registration', 'audit')")
    if op.get_bind().dialect.name == "postgresql":
        # Audits are evidence as rounds are: appended, never changed (the function is the integrity migration's).
        op.execute(
            "CREATE TRIGGER append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audits "
            "FOR EACH STATEMENT EXECUTE FUNCTION bjaudit_append_only()"
        )


def downgrade() -> None:
    bind = op.get_bind()
    stored = bind.execute(sa.text("SELECT count(*) FROM audits")).scalar_one()
    if stored:
        raise RuntimeError(
            f"{stored} re-audits are stored: downgrading would drop them and break their sources' hash chains. "
            "Restore a backup taken before this revision instead."
        )
    if bind.dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS append_only ON audits")
    with op.batch_alter_table("chain_entries") as batch:
        batch.drop_constraint(op.f("ck_chain_entries_kind"), type_="check")
        batch.create_check_constraint("kind", "kind IN ('round', 'registration')")
    with op.batch_alter_table("findings") as batch:
        batch.drop_constraint(op.f("uq_findings_round_pk_audit_no_seq"), type_="unique")
        batch.create_unique_constraint(op.f("uq_findings_round_pk_seq"), ["round_pk", "seq"])
        batch.drop_column("audit_no")
    op.drop_table("audits")
    op.drop_index("ix_reaudit_chunks_undone", table_name="reaudit_chunks")
    op.drop_table("reaudit_chunks")
    op.drop_table("reaudits")
