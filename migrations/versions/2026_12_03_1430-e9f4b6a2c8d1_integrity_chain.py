"""integrity: a hash chain per source, and append-only tables on PostgreSQL

``chain_entries``: one entry per stored round or registration, per source, numbered 1, 2, 3 ... (``seq``), each
``hash`` = SHA-256(previous hash || digest of what it records); ``chain_heads``: the last entry of each source,
locked by appends. docs/integrity.md defines the content and the hashes.

On PostgreSQL a trigger refuses UPDATE, DELETE and TRUNCATE of ``rounds``, ``findings``, ``table_elections`` and
``chain_entries`` to every role that is not (a member of) the table's owner: the service, connected as an
application role, can only append; tampering needs the owner's role, and ``bjaudit verify`` then reports it.

Rows stored before this revision are appended now, per source, registrations then rounds, each in id order: the
chain vouches for them from this migration on.

Revision ID: e9f4b6a2c8d1
Revises: d5e8a1c3f7b2
Create Date: 2026-12-03 14:30:00+00:00
"""

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "e9f4b6a2c8d1"
down_revision: str | Sequence[str] | None = "d5e8a1c3f7b2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
APPEND_ONLY = ("rounds", "findings", "table_elections", "chain_entries")

REFUSE = """
CREATE FUNCTION bjaudit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_catalog.pg_has_role(
        current_user, (SELECT relowner FROM pg_catalog.pg_class WHERE oid = TG_RELID), 'MEMBER'
    ) THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'table % is append-only: % is refused to role %', TG_TABLE_NAME, TG_OP, current_user
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Stored rounds, audits, registrations and chain entries are never changed or removed; '
                     'only the owner of the table can, and bjaudit verify reports what it did.';
END
$$
"""


def upgrade() -> None:
    op.create_table(
        "chain_entries",
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("ref_id", BigId, nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("digest", sa.LargeBinary(), nullable=False),
        sa.Column("hash", sa.LargeBinary(), nullable=False),
        sa.CheckConstraint("kind IN ('round', 'registration')", name=op.f("ck_chain_entries_kind")),
        sa.PrimaryKeyConstraint("source", "seq", name=op.f("pk_chain_entries")),
        sa.UniqueConstraint("kind", "ref_id", name=op.f("uq_chain_entries_kind_ref_id")),
    )
    op.create_table(
        "chain_heads",
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("source", name=op.f("pk_chain_heads")),
    )
    _chain_what_is_stored()
    if op.get_bind().dialect.name == "postgresql":
        op.execute(REFUSE)
        for table in APPEND_ONLY:
            op.execute(
                f"CREATE TRIGGER append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION bjaudit_append_only()"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS append_only ON {table}")
        op.execute("DROP FUNCTION IF EXISTS bjaudit_append_only()")
    op.drop_table("chain_heads")
    op.drop_table("chain_entries")


def _chain_what_is_stored() -> None:
    # The content of an entry is the service's own definition (app.store.chain), imported rather than copied:
    # the entries made here must be exactly those that verify recomputes.
    from app.store import chain
    from app.store.models import UTCDateTime

    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        bind.connection.driver_connection.create_function(  # type: ignore[union-attr]
            "sha256", 1, lambda b: None if b is None else hashlib.sha256(b).digest(), deterministic=True
        )
    sources = sorted(
        {r[0] for r in bind.execute(sa.text("SELECT DISTINCT source FROM rounds"))}
        | {r[0] for r in bind.execute(sa.text("SELECT DISTINCT source FROM table_elections"))}
    )
    registrations = sa.text(
        "SELECT id, source, jurisdiction, table_id, effective_from, rules, created_at, reason, registered_by, "
        "supersedes_id FROM table_elections WHERE source = :source AND id > :after ORDER BY id LIMIT 1000"
    ).columns(effective_from=UTCDateTime(), created_at=UTCDateTime())
    rounds = sa.text(
        "SELECT id, source, jurisdiction, round_id, table_id, played_at, dealer_id, shoe_id, received_at, "
        "sha256(record) AS record_digest, verdict, ruleset, engine_version, elections_source, elections_id, "
        "finding_count, audit FROM rounds WHERE source = :source AND id > :after ORDER BY id LIMIT 1000"
    ).columns(played_at=UTCDateTime(), received_at=UTCDateTime(), record_digest=sa.LargeBinary())
    entries = sa.table(
        "chain_entries",
        *(sa.column(c) for c in ("source", "seq", "kind", "ref_id", "label", "digest", "hash")),
    )
    for source in sources:
        seq, previous = 0, chain.ZERO
        for kind, stmt in (("registration", registrations), ("round", rounds)):
            after = 0
            while True:
                page = bind.execute(stmt, {"source": source, "after": after}).mappings().all()
                if not page:
                    break
                rows = []
                for row in page:
                    values = dict(row)
                    if kind == "round":
                        values["record_sha256"] = bytes(values.pop("record_digest")).hex()
                        content = chain.round_content(values)
                    else:
                        content = chain.registration_content(values)
                    item = chain.link_of(kind, int(row["id"]), content)
                    seq += 1
                    previous = chain.link(previous, item.digest)
                    rows.append(
                        {
                            "source": source,
                            "seq": seq,
                            "kind": kind,
                            "ref_id": item.ref_id,
                            "label": item.label,
                            "digest": item.digest,
                            "hash": previous,
                        }
                    )
                bind.execute(sa.insert(entries), rows)
                after = int(page[-1]["id"])
        if seq:
            bind.execute(
                sa.text(
                    "INSERT INTO chain_heads (source, seq, hash) VALUES (:source, :seq, :hash)"
                ).bindparams(sa.bindparam("hash", type_=sa.LargeBinary())),
                {"source": source, "seq": seq, "hash": previous},
            )
