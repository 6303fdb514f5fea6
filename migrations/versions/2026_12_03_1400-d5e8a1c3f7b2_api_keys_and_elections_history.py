"""api keys, and table elections as an append-only, attributed history

``api_keys``: the clients allowed in, each bound to one source (or, NULL, every source: a regulator's or an
operator's key) and to scopes; only the SHA-256 of a key's secret is kept.

``table_elections`` becomes an append-only history: each registration says who made it (``registered_by``, the key)
and why (``reason``); a correction is a new registration that ``supersedes`` the one in force at the same
effective_from (one correction per registration: the chain of corrections is a line). The registration in force is
the one that no other supersedes; only one original (``supersedes_id IS NULL``) per (source, jurisdiction, table,
effective_from). ``rounds.elections_id`` names the registration a round was audited by.

Revision ID: d5e8a1c3f7b2
Revises: b3d1e07a9c55
Create Date: 2026-12-03 14:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d5e8a1c3f7b2"
down_revision: str | Sequence[str] | None = "b3d1e07a9c55"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("secret_sha256", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=128), nullable=True),
        sa.Column("scopes", sa.Text(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("key_id", name=op.f("uq_api_keys_key_id")),
    )
    with op.batch_alter_table("table_elections") as batch:
        batch.add_column(sa.Column("reason", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("registered_by", sa.Text(), nullable=True))
        batch.add_column(sa.Column("supersedes_id", BigId, nullable=True))
        batch.drop_constraint(
            "uq_table_elections_source_jurisdiction_table_id_effective_from", type_="unique"
        )
        batch.create_unique_constraint(op.f("uq_table_elections_supersedes_id"), ["supersedes_id"])
        batch.create_foreign_key(
            op.f("fk_table_elections_supersedes_id_table_elections"),
            "table_elections",
            ["supersedes_id"],
            ["id"],
        )
    # One original per (source, jurisdiction, table, effective_from); also the index of the in-force lookup.
    op.create_index(
        "uq_table_elections_original",
        "table_elections",
        ["source", "jurisdiction", "table_id", "effective_from"],
        unique=True,
        postgresql_where=sa.text("supersedes_id IS NULL"),
        sqlite_where=sa.text("supersedes_id IS NULL"),
    )
    op.create_index(
        op.f("ix_table_elections_source_jurisdiction_table_id_effective_from"),
        "table_elections",
        ["source", "jurisdiction", "table_id", "effective_from"],
    )
    op.add_column("rounds", sa.Column("elections_id", BigId, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("elections_id")
    op.drop_index(
        op.f("ix_table_elections_source_jurisdiction_table_id_effective_from"), table_name="table_elections"
    )
    op.drop_index("uq_table_elections_original", table_name="table_elections")
    with op.batch_alter_table("table_elections") as batch:
        batch.drop_constraint(op.f("fk_table_elections_supersedes_id_table_elections"), type_="foreignkey")
        batch.drop_constraint(op.f("uq_table_elections_supersedes_id"), type_="unique")
        batch.drop_column("supersedes_id")
        batch.drop_column("registered_by")
        batch.drop_column("reason")
        batch.create_unique_constraint(
            "uq_table_elections_source_jurisdiction_table_id_effective_from",
            ["source", "jurisdiction", "table_id", "effective_from"],
        )
    op.drop_table("api_keys")
