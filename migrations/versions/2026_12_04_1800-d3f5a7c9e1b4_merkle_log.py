"""merkle log: each source's chain is also an RFC 9162 Merkle tree, with signed tree heads

The leaves are the chain entries' digests (``chain_entries.digest``), in seq order: nothing about an entry changes,
so the existing chains are converted as they stand — after this migration has checked that each still links
(``hash`` = SHA-256(previous hash || digest), seq 1, 2, 3 ... without a gap). A chain that does not link is not
converted: the migration stops and names the source and the entry (``bjaudit verify`` says more), because the tree
and the heads signed over it would vouch for whatever the database holds now.

``merkle_nodes``: the roots of the tree's perfect subtrees at every fourth level (16, 256, 4096 ... leaves), filled
as heads are signed; a cache of what the leaves give (``bjaudit verify --full`` recomputes it), kept so that a proof
reads O(log n) rows. ``tree_heads``: every signed tree head (tree size, root, the chain's hash at that size, the
signed document), as published to the witnesses. Both append-only, as the chain is.

Revision ID: d3f5a7c9e1b4
Revises: b8d2f4a6c0e3
Create Date: 2026-12-04 18:00:00+00:00
"""

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d3f5a7c9e1b4"
down_revision: str | Sequence[str] | None = "b8d2f4a6c0e3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_ONLY = ("merkle_nodes", "tree_heads")


def _utc() -> sa.types.TypeEngine[object]:
    from app.store.models import UTCDateTime

    return UTCDateTime()


class ChainDoesNotLink(RuntimeError):
    pass


def upgrade() -> None:
    heads = _check_chains()
    op.create_table(
        "merkle_nodes",
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("level", sa.SmallInteger(), nullable=False),
        sa.Column("idx", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("source", "level", "idx", name=op.f("pk_merkle_nodes")),
    )
    op.create_table(
        "tree_heads",
        sa.Column("source", sa.String(length=128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("root", sa.LargeBinary(), nullable=False),
        sa.Column("hash", sa.LargeBinary(), nullable=False),
        sa.Column("signed_at", _utc(), nullable=False),
        sa.Column("doc", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("source", "seq", name=op.f("pk_tree_heads")),
    )
    _build_trees(heads)
    if op.get_bind().dialect.name == "postgresql":
        for table in APPEND_ONLY:
            op.execute(
                f"CREATE TRIGGER append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION bjaudit_append_only()"
            )


def downgrade() -> None:
    op.drop_table("tree_heads")
    op.drop_table("merkle_nodes")


def _build_trees(heads: dict[str, int]) -> None:
    """Each converted chain's tree nodes, now (the service's own definition, imported: the nodes must be those a
    proof reads), so that the first head signed on a long log does not have to read it whole."""
    from sqlalchemy.orm import Session

    from app.store import tree

    with Session(bind=op.get_bind()) as session:
        for source, seq in sorted(heads.items()):
            tree.extend(session, source, seq)
        session.flush()


def _check_chains() -> dict[str, int]:
    """Every source's chain links from seq 1 to its head, or the migration stops; each source's head seq."""
    bind = op.get_bind()
    heads = {
        r.source: (int(r.seq), bytes(r.hash))
        for r in bind.execute(sa.text("SELECT source, seq, hash FROM chain_heads"))
    }
    page = sa.text(
        "SELECT seq, digest, hash FROM chain_entries WHERE source = :source AND seq > :after ORDER BY seq LIMIT 5000"
    )
    for source, (head_seq, head_hash) in sorted(heads.items()):
        seq, previous = 0, bytes(32)
        while True:
            rows = bind.execute(page, {"source": source, "after": seq}).all()
            if not rows:
                break
            for r in rows:
                if int(r.seq) != seq + 1:
                    raise ChainDoesNotLink(
                        f"the chain of source {source!r} lacks entry {seq + 1}: it is not converted to a Merkle "
                        "tree. Run `bjaudit verify` for what was changed."
                    )
                previous = hashlib.sha256(previous + bytes(r.digest)).digest()
                if previous != bytes(r.hash):
                    raise ChainDoesNotLink(
                        f"entry {r.seq} of source {source!r} does not link to the one before it: the chain is not "
                        "converted to a Merkle tree. Run `bjaudit verify` for what was changed."
                    )
                seq = int(r.seq)
        if seq != head_seq or (seq and previous != head_hash):
            raise ChainDoesNotLink(
                f"the head of source {source!r} (entry {head_seq}) is not the chain's last entry ({seq}): the chain is "
                "not converted to a Merkle tree. Run `bjaudit verify` for what was changed."
            )
    return {source: seq for source, (seq, _) in heads.items()}
