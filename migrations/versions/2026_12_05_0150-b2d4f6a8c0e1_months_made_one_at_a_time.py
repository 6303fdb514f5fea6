"""months made one at a time, their locks taken at once without waiting: ``bjaudit_ensure_month`` (issue 21)

Two makers of the same month at once (the service and a batch worker starting together, a restore while the service
made its months) each read the DEFAULT partitions to see whether the month's rows were there, then each waited for
the other's read to end before it could create the month's partition: a deadlock, which PostgreSQL broke by failing
one of them (CI, 2026-12-05). A month made while any round was stored deadlocked too: a store's one statement locks
``round_keys`` (the key is inserted first) and then the parent ``rounds``; creating a partition locks ``rounds`` and
then ``round_keys`` (for the partition's foreign key). And a maker that waited for the parents behind a long reader
(a report, a restore's insert) held the stores back behind it all that time.

The function now returns ``exists`` at once for a month that exists (no lock). Otherwise it takes the advisory lock
``bjaudit-partitions`` for its caller's transaction (one maker at a time) and then every lock the month needs, at
once and without waiting (NOWAIT): ``round_keys`` SHARE ROW EXCLUSIVE, the parents (ONLY: not their months) and
their DEFAULT partitions ACCESS EXCLUSIVE. If any is held by someone else it returns ``busy``, holding none of them, and the caller tries
again (app/store/partitions.py). A maker thus never waits in a lock's queue: it cannot deadlock, and stores wait for
it only while it holds the locks (two empty tables made). The body is otherwise the same; the downgrade puts the
previous one back.

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
    IF to_regclass('rounds_' || to_char(month, 'YYYY_MM')) IS NOT NULL
       AND to_regclass('findings_' || to_char(month, 'YYYY_MM')) IS NOT NULL THEN
        RETURN 'exists';
    END IF;
    IF NOT pg_try_advisory_xact_lock(hashtextextended('bjaudit-partitions', 0)) THEN
        RETURN 'busy';
    END IF;
    BEGIN
        LOCK TABLE round_keys IN SHARE ROW EXCLUSIVE MODE NOWAIT;
        LOCK TABLE ONLY rounds, rounds_default, ONLY findings, findings_default IN ACCESS EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        RETURN 'busy';
    END;
"""
"""A month that exists takes no lock. Else: one maker at a time, and every lock making the month needs, taken at
once without waiting; ``busy`` when one is held (nothing is kept but the advisory lock; the caller tries again)."""
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
"""The function; ``{lock}`` is where the locks are taken (the previous body has nothing there)."""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(SERIALISED.format(lock=LOCK))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(SERIALISED.format(lock=""))
