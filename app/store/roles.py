"""The application's role on PostgreSQL: what the service may do when it does not connect as the owner.

The owner role runs the migrations and owns the tables; the service connects as an application role that may read
everything and append to the evidence (rounds, audits, findings, registrations, chain entries: SELECT and INSERT only), and
change only what is work in progress (batches and their chunks, the chain heads, the job queue) and a key's revocation
(that column only); a batch's results are appended only. docs/integrity.md explains the deployment. Idempotent: run it again after each migration.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from app.store.chain import APPEND_ONLY_TABLES

WORK_TABLES = (
    "batches",
    "batch_chunks",
    "chain_heads",
    "reaudits",
    "reaudit_chunks",
    "ended_sessions",
    "subscriptions",
    "report_rollups",
    "rollup_cursors",
)
"""Tables the service updates and deletes from (uploads in progress, chunks done — of batches and re-audits —, the
heads moved by appends, webhook subscriptions and their cursors, the reports' rollups: figures derived from the
chain, rebuilt from it if lost)."""
UPDATED_COLUMNS = {"api_keys": ("revoked_at",)}
"""Tables the service updates but never deletes from, and the only columns it updates (a key's revocation: never its
scopes, source or secret)."""
APPEND_ONLY_WORK = ("batch_results", "deliveries", "acknowledgements")
"""Tables outside the chain that the service only appends to (a batch's per-line results, webhook deliveries, the
acknowledgements of alerts): SELECT and INSERT, and a
trigger refuses UPDATE and DELETE to every role but the owner's, as on the evidence."""
QUEUE_SCHEMA = "procrastinate"


def _quote(conn: Connection, name: str) -> str:
    return str(conn.execute(text("SELECT quote_ident(:n)"), {"n": name}).scalar_one())


def grant_app_role(conn: Connection, role: str) -> list[str]:
    """Grant ``role`` (which must exist) what the service needs, and no more on the evidence; the statements run.
    Run as the owner of the tables (the role that ran the migrations)."""
    if conn.dialect.name != "postgresql":
        raise ValueError("roles and privileges are PostgreSQL's: SQLite has neither")
    r = _quote(conn, role)
    tables = set(
        conn.execute(
            # Not the partitions (rounds_2026_12 ...): statements reach them through their parents, whose
            # privileges are checked, and the partitions are created by their owner (app.store.partitions).
            text(
                "SELECT t.tablename FROM pg_catalog.pg_tables t JOIN pg_catalog.pg_class c "
                "ON c.relname = t.tablename AND c.relnamespace = current_schema()::regnamespace "
                "WHERE t.schemaname = current_schema() AND NOT c.relispartition"
            )
        ).scalars()
    )
    schema = _quote(conn, str(conn.execute(text("SELECT current_schema()")).scalar_one()))
    statements = [f"GRANT USAGE ON SCHEMA {schema} TO {r}"]
    for table in sorted(tables):
        if table in APPEND_ONLY_TABLES or table in APPEND_ONLY_WORK:
            statements.append(f"REVOKE UPDATE, DELETE, TRUNCATE ON {table} FROM {r}")
            statements.append(f"GRANT SELECT, INSERT ON {table} TO {r}")
        elif table in WORK_TABLES:
            statements.append(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {r}")
        elif table in UPDATED_COLUMNS:
            columns = ", ".join(UPDATED_COLUMNS[table])
            statements.append(f"REVOKE UPDATE, DELETE, TRUNCATE ON {table} FROM {r}")
            statements.append(f"GRANT SELECT, INSERT, UPDATE ({columns}) ON {table} TO {r}")
        elif table == "alembic_version":
            statements.append(f"GRANT SELECT ON {table} TO {r}")
        else:
            statements.append(f"GRANT SELECT, INSERT ON {table} TO {r}")
    statements.append(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {r}")
    has_queue = conn.execute(
        text("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = :n"), {"n": QUEUE_SCHEMA}
    ).first()
    if has_queue is not None:
        statements += [
            f"GRANT USAGE ON SCHEMA {QUEUE_SCHEMA} TO {r}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {QUEUE_SCHEMA} TO {r}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {QUEUE_SCHEMA} TO {r}",
            f"GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA {QUEUE_SCHEMA} TO {r}",
        ]
    for statement in statements:
        conn.execute(text(statement))
    return statements
