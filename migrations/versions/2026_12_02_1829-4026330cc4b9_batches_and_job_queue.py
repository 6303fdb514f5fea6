"""batches: uploaded NDJSON batches, their chunks and per-line results; the procrastinate job queue (PostgreSQL)

Revision ID: 4026330cc4b9
Revises: f280f2118004
Create Date: 2026-12-02 18:29:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "4026330cc4b9"
down_revision: str | Sequence[str] | None = "f280f2118004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

QUEUE_SCHEMA = "procrastinate"  # app.batch_queue.QUEUE_SCHEMA; not imported: a migration stays as written


def upgrade() -> None:
    op.create_table(
        "batches",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("content_sha256", sa.String(length=64), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("lines_received", sa.Integer(), nullable=False),
        sa.Column("bytes_received", sa.BigInteger(), nullable=False),
        sa.Column("chunk_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.CheckConstraint("state IN ('queued', 'failed')", name=op.f("ck_batches_state")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_batches")),
        sa.UniqueConstraint("source", "content_sha256", name=op.f("uq_batches_source_content_sha256")),
    )
    op.create_table(
        "batch_chunks",
        sa.Column("batch_id", sa.String(length=32), nullable=False),
        sa.Column("chunk_no", sa.Integer(), nullable=False),
        sa.Column("first_line", sa.Integer(), nullable=False),
        sa.Column("line_count", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("compliant", sa.Integer(), nullable=False),
        sa.Column("violations", sa.Integer(), nullable=False),
        sa.Column("unreplayable", sa.Integer(), nullable=False),
        sa.Column("rejected", sa.Integer(), nullable=False),
        sa.Column("duplicates", sa.Integer(), nullable=False),
        sa.Column("conflicts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_batch_chunks_batch_id_batches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("batch_id", "chunk_no", name=op.f("pk_batch_chunks")),
    )
    op.create_table(
        "batch_results",
        sa.Column("batch_id", sa.String(length=32), nullable=False),
        sa.Column("line_no", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Text(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "outcome IN ('compliant', 'violations', 'unreplayable', 'rejected', 'duplicate', 'conflict')",
            name=op.f("ck_batch_results_outcome"),
        ),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_batch_results_batch_id_batches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("batch_id", "line_no", name=op.f("pk_batch_results")),
    )

    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        if (bind.dialect.server_version_info or (0,)) >= (14,):
            op.execute(
                "DO $$ BEGIN ALTER TABLE batch_chunks ALTER COLUMN data SET COMPRESSION lz4; "
                "EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL; END $$"
            )
        # The job queue (procrastinate) in a schema of its own, so that the application's schema stays what
        # app.store.models says. Its workers connect with search_path=procrastinate (app.batch_queue).
        # A procrastinate upgrade that changes its schema ships SQL migrations: apply them in a new revision.
        from procrastinate.schema import SchemaManager

        # Through the driver, in the migration's transaction: the script is not a SQLAlchemy text() statement.
        driver = bind.connection.driver_connection
        driver.execute(f"CREATE SCHEMA {QUEUE_SCHEMA}")
        driver.execute(f"SET LOCAL search_path TO {QUEUE_SCHEMA}")
        driver.execute(SchemaManager.get_schema())
        driver.execute("SET LOCAL search_path TO DEFAULT")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP SCHEMA IF EXISTS {QUEUE_SCHEMA} CASCADE")
    op.drop_table("batch_results")
    op.drop_table("batch_chunks")
    op.drop_table("batches")
