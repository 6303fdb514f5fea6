"""months made one at a time: ``bjaudit_ensure_month`` takes a transaction's advisory lock first (issue 21)

Two processes that made the same month at once (the service and a batch worker starting together, a restore while
the service made its months) each read the DEFAULT partitions to see whether the month's rows were there, then each
waited for the other's read to end before it could create the month's partition: PostgreSQL broke the deadlock by
failing one of them. The function now first takes the advisory lock ``bjaudit-partitions`` for the rest of its
caller's transaction, so a second caller waits for the first, then finds the month made.

A month made while a round was stored deadlocked too: the store's one statement locks ``round_keys`` (the key is
inserted first) and then ``rounds``; creating a partition locks ``rounds`` and then ``round_keys`` (for the
partition's foreign key). The function now locks ``round_keys`` (SHARE ROW EXCLUSIVE, what the foreign key takes)
before any other table (before it reads the DEFAULT partitions, which an archive's detach waits for), in the stores'
and the archive's order. A month that exists takes no lock on the tables.

The body is otherwise the same; the downgrade puts the previous one back.

Revision ID: b2d4f6a8c0e1
Revises: a1c3e5f7b9d2
Create Date: 2026-12-05 01:50:00+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "b2d4f6a8c0e1"
down_revision: str | Sequence[str] | None = "a1c3e5f7b9d2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOCK = """\
    PERFORM pg_advisory_xact_lock(hashtextextended('bjaudit-partitions', 0));
    IF to_regclass('rounds_' || to_char(month, 'YYYY_MM')) IS NOT NULL
       AND to_regclass('findings_' || to_char(month, 'YYYY_MM')) IS NOT NULL THEN
        RETURN 'exists';
    END IF;
    LOCK TABLE round_keys IN SHARE ROW EXCLUSIVE MODE;
"""
"""Makers of months take turns; a month that exists takes no lock on the tables; ``round_keys`` is locked before
anything else (a partition's foreign key takes it after the parent's lock, the DEFAULT partition's read before it:
a store, and an archive, take them the other way round)."""
SERIALISED = """
CREATE OR REPLACE FUNCTION bjaudit_ensure_month(month date) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    parent text;
    lo timestamptz := (date_trunc('month', month::timestamp) AT TIME ZONE 'UTC');
    hi timestamptz := ((date_trunc('month', month::timestamp) + interval '1 month') AT TIME ZONE 'UTC');
    held boolean;
    created boolean := false;
BEGIN
{lock}    FOREACH parent IN ARRAY ARRAY['rounds', 'findings'] LOOP
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
"""The function; ``{lock}`` and ```` are where the locks are taken (the previous body has nothing there)."""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(SERIALISED.format(lock=LOCK))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(SERIALISED.format(lock=""))
