"""monthly partitions: ``rounds`` and ``findings`` partitioned by month of ``played_at``; ``round_keys``

A round's key (round_id, source, jurisdiction) moves to ``round_keys``, unpartitioned, which allocates the round's
``id``: a partitioned table's unique constraints must include its partition key, so the key that decides duplicates
and conflicts needs a table of its own. ``rounds`` is keyed by (id, played_at); ``findings`` by (round_pk, audit_no,
seq, played_at) and loses its ``id`` (nothing referred to it). The foreign keys of ``rounds``, ``findings``,
``audits`` and ``acknowledgements`` point at ``round_keys.id``: none points at a partitioned table, so that a month's
partitions can be detached (archived) while its keys stay known.

On PostgreSQL ``rounds`` and ``findings`` become partitioned by RANGE (played_at), one partition a UTC month, with a
DEFAULT partition for any other ``played_at`` (the format allows years 1 to 9999). The function
``bjaudit_ensure_month`` (SECURITY DEFINER: only the owner may add partitions; the service may run as the
application role) creates a month's partitions with their append-only triggers (a statement trigger on a parent does
not fire for a statement on a partition, so each partition has its own); it skips a month whose rows are in the
DEFAULT partition already (app/store/partitions.py says why). The existing rows are copied into the partitioned
tables: months are created for the data (up to ten years back), the rest goes to DEFAULT. On SQLite the tables stay
plain. Downgrade: plain tables again, with their old keys.

``archives``: the months archived by ``bjaudit archive`` (issue 21, docs/retention.md).

Run ``bjaudit grant-app-role`` again after this migration.

Revision ID: d7f9b1c3e5a7
Revises: e6a8c0e2b4d6
Create Date: 2026-12-05 01:00:00+00:00
"""

from collections.abc import Sequence
from datetime import UTC, date, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "d7f9b1c3e5a7"
down_revision: str | Sequence[str] | None = "e6a8c0e2b4d6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TRIGGER = (
    "CREATE TRIGGER append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON {} "
    "FOR EACH STATEMENT EXECUTE FUNCTION bjaudit_append_only()"
)
YEARS_BACK = 10
"""Months of existing rows older than this are left to the DEFAULT partition (a store's odd old rows, not months
of partitions each)."""

ENSURE_MONTH = """
CREATE FUNCTION bjaudit_ensure_month(month date) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    parent text;
    lo timestamptz := (date_trunc('month', month::timestamp) AT TIME ZONE 'UTC');
    hi timestamptz := ((date_trunc('month', month::timestamp) + interval '1 month') AT TIME ZONE 'UTC');
    held boolean;
    created boolean := false;
BEGIN
    FOREACH parent IN ARRAY ARRAY['rounds', 'findings'] LOOP
        IF to_regclass(parent || '_' || to_char(month, 'YYYY_MM')) IS NULL THEN
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE played_at >= $1 AND played_at < $2)',
                           parent || '_default') INTO held USING lo, hi;
            IF held THEN
                RETURN 'skipped';
            END IF;
        END IF;
    END LOOP;
    FOREACH parent IN ARRAY ARRAY['rounds', 'findings'] LOOP
        IF to_regclass(parent || '_' || to_char(month, 'YYYY_MM')) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                           parent || '_' || to_char(month, 'YYYY_MM'), parent, lo, hi);
            EXECUTE format('CREATE TRIGGER append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON %I '
                           'FOR EACH STATEMENT EXECUTE FUNCTION bjaudit_append_only()',
                           parent || '_' || to_char(month, 'YYYY_MM'));
            created := true;
        END IF;
    END LOOP;
    RETURN CASE WHEN created THEN 'created' ELSE 'exists' END;
END
$$
"""


def _utc() -> sa.types.TypeEngine[object]:
    from app.store.models import UTCDateTime

    return UTCDateTime()


def upgrade() -> None:
    op.create_table(
        "round_keys",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("round_id", sa.String(length=128), nullable=False),
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("jurisdiction", sa.String(length=16), nullable=False),
        sa.Column("played_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_round_keys")),
        sa.UniqueConstraint(
            "round_id", "source", "jurisdiction", name=op.f("uq_round_keys_round_id_source_jurisdiction")
        ),
    )
    op.execute(
        "INSERT INTO round_keys (id, round_id, source, jurisdiction, played_at) "
        "SELECT id, round_id, source, jurisdiction, played_at FROM rounds"
    )
    op.create_table(
        "archives",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("month", _utc(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("rounds", sa.BigInteger(), nullable=False),
        sa.Column("findings", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("archived_at", _utc(), nullable=False),
        sa.Column("archived_by", sa.Text(), nullable=False),
        sa.Column("restored_at", _utc(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_archives")),
    )
    op.create_index(op.f("ix_archives_month"), "archives", ["month"])
    for table in ("audits", "acknowledgements"):
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"fk_{table}_round_pk_rounds", type_="foreignkey")
    if op.get_bind().dialect.name == "postgresql":
        _partition()
    else:
        _rekey_plain()
    for table in ("audits", "acknowledgements"):
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(
                f"fk_{table}_round_pk_round_keys", "round_keys", ["round_pk"], ["id"], ondelete="CASCADE"
            )


def _rekey_plain() -> None:
    with op.batch_alter_table("rounds", recreate="always") as batch:
        batch.drop_constraint("uq_rounds_round_id_source_jurisdiction", type_="unique")
        batch.drop_constraint("pk_rounds", type_="primary")
        batch.create_primary_key("pk_rounds", ["id", "played_at"])
        batch.create_foreign_key("fk_rounds_id_round_keys", "round_keys", ["id"], ["id"], ondelete="CASCADE")
    with op.batch_alter_table("findings", recreate="always") as batch:
        batch.drop_constraint("uq_findings_round_pk_audit_no_seq", type_="unique")
        batch.drop_constraint("fk_findings_round_pk_rounds", type_="foreignkey")
        batch.drop_constraint("pk_findings", type_="primary")
        batch.drop_column("id")
        batch.create_primary_key("pk_findings", ["round_pk", "audit_no", "seq", "played_at"])
        batch.create_foreign_key(
            "fk_findings_round_pk_round_keys", "round_keys", ["round_pk"], ["id"], ondelete="CASCADE"
        )


def _months_of_data() -> list[date]:
    now = datetime.now(UTC)
    rows = op.get_bind().execute(
        sa.text(
            "SELECT DISTINCT date_trunc('month', played_at AT TIME ZONE 'UTC')::date FROM rounds_old "
            "WHERE played_at >= :since AND played_at < :until"
        ),
        {
            "since": datetime(now.year - YEARS_BACK, 1, 1, tzinfo=UTC),
            "until": datetime(now.year + 1, 12, 1, tzinfo=UTC),
        },
    )
    return sorted(r[0] for r in rows)


def _partition() -> None:
    from app.store import partitions

    op.execute(
        "SELECT setval(pg_get_serial_sequence('round_keys', 'id'), "
        "GREATEST((SELECT last_value FROM rounds_id_seq), (SELECT coalesce(max(id), 1) FROM round_keys)))"
    )
    op.execute("ALTER TABLE rounds RENAME TO rounds_old")
    op.execute("ALTER TABLE findings RENAME TO findings_old")
    # The columns as they are (types, NOT NULL, checks, the record's lz4), partitioned; the old keys and defaults
    # stay behind.
    like = "INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION"
    op.execute(f"CREATE TABLE rounds (LIKE rounds_old {like}) PARTITION BY RANGE (played_at)")
    op.execute("ALTER TABLE rounds ALTER COLUMN id DROP DEFAULT")
    op.execute(f"CREATE TABLE findings (LIKE findings_old {like}) PARTITION BY RANGE (played_at)")
    op.execute("ALTER TABLE findings DROP COLUMN id")
    for table in partitions.PARTITIONED:
        op.execute(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")
        op.execute(TRIGGER.format(f"{table}_default"))
    op.execute(ENSURE_MONTH)
    now = partitions.month_of(datetime.now(UTC))
    wanted = set(_months_of_data()) | set(
        partitions.months(
            partitions.add_months(now, -partitions.BEHIND_MONTHS),
            partitions.add_months(now, partitions.AHEAD_MONTHS),
        )
    )
    for month in sorted(wanted):
        op.get_bind().execute(sa.text("SELECT bjaudit_ensure_month(:m)"), {"m": month})
    columns = [
        r[0]
        for r in op.get_bind().execute(
            sa.text(
                "SELECT attname FROM pg_attribute WHERE attrelid = 'findings'::regclass AND attnum > 0 "
                "AND NOT attisdropped ORDER BY attnum"
            )
        )
    ]
    op.execute("INSERT INTO rounds SELECT * FROM rounds_old")
    op.execute(f"INSERT INTO findings ({', '.join(columns)}) SELECT {', '.join(columns)} FROM findings_old")
    op.execute("DROP TABLE findings_old")
    op.execute("DROP TABLE rounds_old")
    _keys_and_indexes()
    for table in ("rounds", "findings", "round_keys"):
        op.execute(TRIGGER.format(table))


def _keys_and_indexes() -> None:
    op.create_primary_key("pk_rounds", "rounds", ["id", "played_at"])
    op.create_foreign_key(
        "fk_rounds_id_round_keys", "rounds", "round_keys", ["id"], ["id"], ondelete="CASCADE"
    )
    op.create_index("ix_rounds_played_at_id", "rounds", ["played_at", "id"])
    op.create_index("ix_rounds_table_id_played_at", "rounds", ["table_id", "played_at"])
    op.create_index("ix_rounds_dealer_id_played_at", "rounds", ["dealer_id", "played_at"])
    op.create_index("ix_rounds_shoe_id_played_at", "rounds", ["shoe_id", "played_at"])
    op.create_primary_key("pk_findings", "findings", ["round_pk", "audit_no", "seq", "played_at"])
    op.create_foreign_key(
        "fk_findings_round_pk_round_keys", "findings", "round_keys", ["round_pk"], ["id"], ondelete="CASCADE"
    )
    op.create_index("ix_findings_rule_played_at", "findings", ["rule", "played_at"])
    _search_indexes()


def _search_indexes() -> None:
    """The indexes of revision e6a8c0e2b4d6 (searches by source, jurisdiction, verdict and void; part-days of reports),
    on the tables as they now are."""
    op.create_index("ix_rounds_source_played_at", "rounds", ["source", "played_at"])
    op.create_index("ix_rounds_jurisdiction_played_at", "rounds", ["jurisdiction", "played_at"])
    for name, where in SEARCH_PARTIAL.items():
        op.create_index(name, "rounds", ["played_at", "id"], postgresql_where=sa.text(where))
    op.create_index("ix_findings_played_at", "findings", ["played_at"])


SEARCH_PARTIAL = {
    "ix_rounds_violations": "verdict = 'violations'",
    "ix_rounds_unreplayable": "verdict = 'unreplayable'",
    "ix_rounds_voided": "void_reason IS NOT NULL",
}


def downgrade() -> None:
    for table in ("audits", "acknowledgements"):
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"fk_{table}_round_pk_round_keys", type_="foreignkey")
    if op.get_bind().dialect.name == "postgresql":
        _unpartition()
    else:
        _unkey_plain()
    for table in ("audits", "acknowledgements"):
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(
                f"fk_{table}_round_pk_rounds", "rounds", ["round_pk"], ["id"], ondelete="CASCADE"
            )
    op.drop_table("round_keys")
    op.drop_index(op.f("ix_archives_month"), table_name="archives")
    op.drop_table("archives")


def _unkey_plain() -> None:
    with op.batch_alter_table("findings", recreate="always") as batch:
        batch.drop_constraint("fk_findings_round_pk_round_keys", type_="foreignkey")
        batch.drop_constraint("pk_findings", type_="primary")
    with op.batch_alter_table("findings", recreate="always") as batch:
        batch.add_column(sa.Column("id", BigId, nullable=True))
    op.execute("UPDATE findings SET id = rowid")
    with op.batch_alter_table("findings", recreate="always") as batch:
        batch.alter_column("id", existing_type=BigId, nullable=False)
        batch.create_primary_key("pk_findings", ["id"])
        batch.create_unique_constraint("uq_findings_round_pk_audit_no_seq", ["round_pk", "audit_no", "seq"])
        batch.create_foreign_key(
            "fk_findings_round_pk_rounds", "rounds", ["round_pk"], ["id"], ondelete="CASCADE"
        )
    with op.batch_alter_table("rounds", recreate="always") as batch:
        batch.drop_constraint("fk_rounds_id_round_keys", type_="foreignkey")
        batch.drop_constraint("pk_rounds", type_="primary")
        batch.create_primary_key("pk_rounds", ["id"])
        batch.create_unique_constraint(
            "uq_rounds_round_id_source_jurisdiction", ["round_id", "source", "jurisdiction"]
        )


def _unpartition() -> None:
    op.execute("DROP FUNCTION bjaudit_ensure_month(date)")
    op.execute("ALTER TABLE rounds RENAME TO rounds_part")
    op.execute("ALTER TABLE findings RENAME TO findings_part")
    for table in ("rounds", "findings"):
        op.execute(f"ALTER INDEX pk_{table} RENAME TO pk_{table}_part")
    for index in (
        "ix_rounds_played_at_id",
        "ix_rounds_table_id_played_at",
        "ix_rounds_dealer_id_played_at",
        "ix_rounds_shoe_id_played_at",
        "ix_findings_rule_played_at",
        "ix_rounds_source_played_at",
        "ix_rounds_jurisdiction_played_at",
        *SEARCH_PARTIAL,
        "ix_findings_played_at",
    ):
        op.execute(f"DROP INDEX {index}")
    like = "INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION"
    op.execute(f"CREATE TABLE rounds (LIKE rounds_part {like})")
    op.execute("CREATE SEQUENCE rounds_id_seq OWNED BY rounds.id")
    op.execute("ALTER TABLE rounds ALTER COLUMN id SET DEFAULT nextval('rounds_id_seq')")
    op.execute("INSERT INTO rounds SELECT * FROM rounds_part ORDER BY id")
    op.execute(
        "SELECT setval('rounds_id_seq', GREATEST((SELECT last_value FROM round_keys_id_seq), "
        "(SELECT coalesce(max(id), 1) FROM rounds)))"
    )
    op.execute(f"CREATE TABLE findings (id bigserial NOT NULL, LIKE findings_part {like})")
    columns = [
        r[0]
        for r in op.get_bind().execute(
            sa.text(
                "SELECT attname FROM pg_attribute WHERE attrelid = 'findings_part'::regclass AND attnum > 0 "
                "AND NOT attisdropped ORDER BY attnum"
            )
        )
    ]
    op.execute(
        f"INSERT INTO findings ({', '.join(columns)}) SELECT {', '.join(columns)} FROM findings_part "
        "ORDER BY round_pk, audit_no, seq"
    )
    op.execute("DROP TABLE findings_part")
    op.execute("DROP TABLE rounds_part")
    op.create_primary_key("pk_rounds", "rounds", ["id"])
    op.create_unique_constraint(
        "uq_rounds_round_id_source_jurisdiction", "rounds", ["round_id", "source", "jurisdiction"]
    )
    op.create_index("ix_rounds_played_at_id", "rounds", ["played_at", "id"])
    op.create_index("ix_rounds_table_id_played_at", "rounds", ["table_id", "played_at"])
    op.create_index("ix_rounds_dealer_id_played_at", "rounds", ["dealer_id", "played_at"])
    op.create_index("ix_rounds_shoe_id_played_at", "rounds", ["shoe_id", "played_at"])
    op.create_primary_key("pk_findings", "findings", ["id"])
    op.create_unique_constraint(
        "uq_findings_round_pk_audit_no_seq", "findings", ["round_pk", "audit_no", "seq"]
    )
    op.create_foreign_key(
        "fk_findings_round_pk_rounds", "findings", "rounds", ["round_pk"], ["id"], ondelete="CASCADE"
    )
    op.create_index("ix_findings_rule_played_at", "findings", ["rule", "played_at"])
    _search_indexes()
    for table in ("rounds", "findings"):
        op.execute(TRIGGER.format(table))
