"""corrections and voided rounds: searched and counted without reading the audits' JSON

Round-v1 section 2.3: a finding the table corrected carries ``corrected_by`` (the correction's event) and
``corrected_actual`` (the player's net after it), and an audit of a round declared void carries ``void`` with its
reason. ``findings`` gains the two columns, ``rounds`` and ``audits`` (a re-audit's) the void's reason, so that
``GET /v1/rounds?corrected=`` / ``?voided=`` and the summary report filter and count them in SQL.

They are derived from the audit JSON, as the rest of a findings row is: the chain's content of a round or an audit
is unchanged (``audit_sha256`` covers them, and ``bjaudit verify`` checks that the columns say what the audit says).
Rows stored before this revision are filled from their audits (those whose audit mentions a void or a correction;
before the wire format read those events there are none).

Revision ID: b8d2f4a6c0e3
Revises: c4e6a8b0d2f4
Create Date: 2026-12-04 13:00:00+00:00
"""

from collections.abc import Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

revision: str = "b8d2f4a6c0e3"
down_revision: str | Sequence[str] | None = "c4e6a8b0d2f4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _audit(text: str) -> dict[str, Any]:
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _void_reason(audit: dict[str, Any]) -> str | None:
    void = audit.get("void")
    reason = void.get("reason") if isinstance(void, dict) else None
    return reason if isinstance(reason, str) else None


def _fill(bind: sa.Connection, table: str, audit_no: str) -> None:
    """Fill the new columns of the rows of ``table`` (rounds: audit 1; audits: their own number) from their audits."""
    rows = bind.execute(
        sa.text(
            f"SELECT id, {'id' if table == 'rounds' else 'round_pk'} AS round_pk, {audit_no} AS audit_no, audit "
            f"FROM {table} WHERE audit LIKE :void OR audit LIKE :corrected"
        ),
        {"void": '%"void"%', "corrected": '%"corrected_by"%'},
    ).all()
    for row in rows:
        audit = _audit(row.audit)
        reason = _void_reason(audit)
        if reason is not None:
            bind.execute(
                sa.text(f"UPDATE {table} SET void_reason = :r WHERE id = :id"), {"r": reason, "id": row.id}
            )
        for seq, f in enumerate(audit.get("findings") or ()):
            if isinstance(f, dict) and f.get("corrected_by") is not None:
                bind.execute(
                    sa.text(
                        "UPDATE findings SET corrected_by = :by, corrected_actual = :actual "
                        "WHERE round_pk = :pk AND audit_no = :no AND seq = :seq"
                    ),
                    {
                        "by": f["corrected_by"],
                        "actual": f.get("corrected_actual"),
                        "pk": row.round_pk,
                        "no": row.audit_no,
                        "seq": seq,
                    },
                )


def upgrade() -> None:
    op.add_column("rounds", sa.Column("void_reason", sa.String(length=16), nullable=True))
    op.add_column("audits", sa.Column("void_reason", sa.String(length=16), nullable=True))
    op.add_column("findings", sa.Column("corrected_by", sa.Integer(), nullable=True))
    op.add_column("findings", sa.Column("corrected_actual", sa.BigInteger(), nullable=True))
    # The migration runs as the tables' owner, whom the append-only trigger lets through (docs/integrity.md).
    bind = op.get_bind()
    _fill(bind, "rounds", "1")
    _fill(bind, "audits", "audit_no")


def downgrade() -> None:
    op.drop_column("findings", "corrected_actual")
    op.drop_column("findings", "corrected_by")
    op.drop_column("audits", "void_reason")
    op.drop_column("rounds", "void_reason")
