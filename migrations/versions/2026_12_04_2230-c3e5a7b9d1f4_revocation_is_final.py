"""revocation is final: the application role may revoke a key, never un-revoke it

The application role may update ``api_keys.revoked_at`` only (``bjaudit grant-app-role``), so that ``DELETE
/v1/keys/{id}`` works; but that column alone let it clear a revocation, bringing a revoked key back to life. On
PostgreSQL a trigger now refuses any change of a ``revoked_at`` already set, to every role but the table's owner's.

Revision ID: c3e5a7b9d1f4
Revises: a2c4e6f8b0d1
Create Date: 2026-12-04 22:30:00+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "c3e5a7b9d1f4"
down_revision: str | Sequence[str] | None = "a2c4e6f8b0d1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FINAL = """
CREATE FUNCTION bjaudit_revocation_is_final() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.revoked_at IS NOT NULL AND NEW.revoked_at IS DISTINCT FROM OLD.revoked_at
       AND NOT pg_catalog.pg_has_role(
           current_user, (SELECT relowner FROM pg_catalog.pg_class WHERE oid = TG_RELID), 'MEMBER'
       ) THEN
        RAISE EXCEPTION 'key % was revoked at %: a revocation is final (refused to role %)',
            OLD.key_id, OLD.revoked_at, current_user
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Create a new key instead; only the owner of the table can change a revocation.';
    END IF;
    RETURN NEW;
END
$$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FINAL)
        op.execute(
            "CREATE TRIGGER revocation_is_final BEFORE UPDATE ON api_keys "
            "FOR EACH ROW EXECUTE FUNCTION bjaudit_revocation_is_final()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS revocation_is_final ON api_keys")
        op.execute("DROP FUNCTION IF EXISTS bjaudit_revocation_is_final()")
