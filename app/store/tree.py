"""Each source's Merkle tree (RFC 9162 hashing, app/evidence/merkle.py) over its chain entries' digests, kept in the
database as the roots of its perfect subtrees at every :data:`STRIDE`-th level (``merkle_nodes``), and its signed
heads (``tree_heads``).

The nodes are a cache of what the leaves give: :func:`extend` fills them up to a tree size (O(new leaves)), and any
subtree's root is then read from at most ``2**(STRIDE-1)`` rows of the level below it, so that a proof reads
O(log n) rows. Nodes are deterministic, so two processes filling the same ones write the same rows (the second
insert does nothing). Nothing here commits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.evidence import merkle
from app.store.models import chain_entries_table as CE
from app.store.models import merkle_nodes_table as MN
from app.store.models import tree_heads_table as TH

STRIDE = 4
"""Nodes are kept at levels 4, 8, 12 ... (subtrees of 16, 256, 4096 ... leaves)."""
PAGE = 1 << 14
"""Leaves or nodes read per query while filling."""


def stored_levels(size: int) -> range:
    return range(STRIDE, max(size.bit_length(), 1), STRIDE)


def covered(session: Session, source: str, size: int) -> dict[int, int]:
    """How many nodes each kept level has (those are the first ones: they are filled left to right)."""
    out: dict[int, int] = {}
    for level in stored_levels(size):
        top = session.execute(
            select(MN.c.idx)
            .where(MN.c.source == source, MN.c.level == level)
            .order_by(MN.c.idx.desc())
            .limit(1)
        ).scalar_one_or_none()
        if top is None:
            break
        out[level] = int(top) + 1
    return out


def _insert_nodes(session: Session, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    for i in range(0, len(rows), 5000):
        session.execute(insert(MN).on_conflict_do_nothing(), rows[i : i + 5000])


def _leaf_digests(session: Session, source: str, first: int, last: int) -> list[bytes]:
    """The digests of entries ``first`` to ``last`` (seq), which must all be there."""
    rows = session.execute(
        select(CE.c.seq, CE.c.digest)
        .where(CE.c.source == source, CE.c.seq >= first, CE.c.seq <= last)
        .order_by(CE.c.seq)
    ).all()
    if len(rows) != last - first + 1 or (rows and int(rows[0].seq) != first):
        raise MissingLeaves(f"source {source!r}: chain entries {first} to {last} are not all there")
    return [bytes(r.digest) for r in rows]


class MissingLeaves(RuntimeError):
    """The chain lacks entries the tree needs (deleted by the database's owner): ``bjaudit verify`` names them."""


def extend(session: Session, source: str, size: int) -> None:
    """Fill the kept nodes of the tree of ``size`` leaves that are not stored yet."""
    have = covered(session, source, size)
    width = 1 << STRIDE
    for level in stored_levels(size):
        start, end = have.get(level, 0), size >> level
        while start < end:
            stop = min(end, start + PAGE // width)
            if level == STRIDE:
                below = [
                    merkle.leaf_hash(d)
                    for d in _leaf_digests(session, source, start * width + 1, stop * width)
                ]
            else:
                below = [
                    bytes(h)
                    for h in session.execute(
                        select(MN.c.hash)
                        .where(
                            MN.c.source == source,
                            MN.c.level == level - STRIDE,
                            MN.c.idx >= start * width,
                            MN.c.idx < stop * width,
                        )
                        .order_by(MN.c.idx)
                    ).scalars()
                ]
                if len(below) != (stop - start) * width:
                    raise MissingLeaves(f"source {source!r}: the tree's level {level - STRIDE} is not filled")
            _insert_nodes(
                session,
                [
                    {
                        "source": source,
                        "level": level,
                        "idx": start + i,
                        "hash": merkle.perfect_root(below[i * width : (i + 1) * width]),
                    }
                    for i in range(stop - start)
                ],
            )
            start = stop


# --- reading subtrees' roots ------------------------------------------------------------------------------------------


def _perfect(start: int, end: int) -> list[tuple[int, int]]:
    """The perfect subtrees (level, idx) whose roots make MTH(start, end), left to right (``start`` aligned)."""
    out: list[tuple[int, int]] = []
    while start < end:
        size = end - start
        k = 1 << (size.bit_length() - 1)  # the largest power of two <= size
        level = k.bit_length() - 1
        out.append((level, start >> level))
        start += k
    return out


class Subtrees:
    """Roots of subtrees of one source's tree, read in as few queries as the kept levels allow: :meth:`load` the
    ranges first (all at once), then :meth:`mth` answers them."""

    def __init__(self, session: Session, source: str, size: int) -> None:
        self.session, self.source = session, source
        self.have = covered(session, source, size)
        self.nodes: dict[tuple[int, int], bytes] = {}
        """Roots of perfect subtrees, read or computed (each is what its leaves give, whatever the tree's size)."""
        self.leaves: dict[int, bytes] = {}
        self._planned: set[tuple[int, int]] = set()

    def _plan(self, level: int, idx: int, nodes: set[tuple[int, int]], leaves: set[int]) -> None:
        if (level, idx) in self._planned:
            return
        self._planned.add((level, idx))
        if level == 0:
            leaves.add(idx)
        elif level % STRIDE == 0 and idx < self.have.get(level, 0):
            nodes.add((level, idx))
        else:
            self._plan(level - 1, 2 * idx, nodes, leaves)
            self._plan(level - 1, 2 * idx + 1, nodes, leaves)

    def load(self, ranges: Iterable[tuple[int, int]]) -> None:
        nodes: set[tuple[int, int]] = set()
        leaves: set[int] = set()
        for start, end in ranges:
            for level, idx in _perfect(start, end):
                self._plan(level, idx, nodes, leaves)
        by_level: dict[int, list[int]] = {}
        for level, idx in nodes - self.nodes.keys():
            by_level.setdefault(level, []).append(idx)
        for level, idxs in by_level.items():
            for i in range(0, len(idxs), 500):
                stmt = select(MN.c.idx, MN.c.hash).where(
                    MN.c.source == self.source, MN.c.level == level, MN.c.idx.in_(idxs[i : i + 500])
                )
                self.nodes.update({(level, int(r.idx)): bytes(r.hash) for r in self.session.execute(stmt)})
        wanted = sorted(leaves - self.leaves.keys())
        runs, scattered = _runs(wanted)
        stmts = [
            select(CE.c.seq, CE.c.digest).where(CE.c.source == self.source, CE.c.seq.between(a + 1, b + 1))
            for a, b in runs
        ] + [
            select(CE.c.seq, CE.c.digest).where(
                CE.c.source == self.source, CE.c.seq.in_([x + 1 for x in scattered[i : i + 500]])
            )
            for i in range(0, len(scattered), 500)
        ]
        for stmt in stmts:
            self.leaves.update(
                {int(r.seq) - 1: merkle.leaf_hash(bytes(r.digest)) for r in self.session.execute(stmt)}
            )
        missing = [x + 1 for x in wanted if x not in self.leaves]
        if missing:
            raise MissingLeaves(f"source {self.source!r}: chain entries {missing[:5]} are missing")

    def _root(self, level: int, idx: int) -> bytes:
        if level == 0:
            return self.leaves[idx]
        found = self.nodes.get((level, idx))
        if found is None:
            found = merkle.node_hash(self._root(level - 1, 2 * idx), self._root(level - 1, 2 * idx + 1))
            self.nodes[(level, idx)] = found
        return found

    def mth(self, start: int, end: int) -> bytes:
        parts = [self._root(level, idx) for level, idx in _perfect(start, end)]
        r = parts[-1]
        for left in reversed(parts[:-1]):
            r = merkle.node_hash(left, r)
        return r


def _runs(wanted: Sequence[int], least: int = 64) -> tuple[list[tuple[int, int]], list[int]]:
    """Sorted indices as the runs of at least ``least`` consecutive ones (first, last) and the rest (a proof wants a
    block's leaves, a month's proofs most of a stretch of the log: a range reads them in one query).

    >>> _runs([1, 2, 3, 7, 9, 10], least=3)
    ([(1, 3)], [7, 9, 10])
    """
    runs: list[tuple[int, int]] = []
    rest: list[int] = []
    i = 0
    while i < len(wanted):
        j = i
        while j + 1 < len(wanted) and wanted[j + 1] == wanted[j] + 1:
            j += 1
        if j - i + 1 >= least:
            runs.append((wanted[i], wanted[j]))
        else:
            rest.extend(wanted[i : j + 1])
        i = j + 1
    return runs, rest


def _asked(make: Any) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []

    def record(start: int, end: int) -> bytes:
        ranges.append((start, end))
        return b""

    make(record)
    return ranges


def root(session: Session, source: str, size: int) -> bytes:
    if size == 0:
        return merkle.EMPTY_ROOT
    t = Subtrees(session, source, size)
    t.load([(0, size)])
    return t.mth(0, size)


def inclusion(session: Session, source: str, index: int, size: int) -> list[bytes]:
    t = Subtrees(session, source, size)
    t.load(_asked(lambda mth: merkle.inclusion_proof(index, size, mth)))
    return merkle.inclusion_proof(index, size, t.mth)


def inclusions(session: Session, source: str, indices: Iterable[int], size: int) -> dict[int, list[bytes]]:
    """The inclusion proofs of many leaves in the tree of ``size`` leaves, their subtrees read in one go and each
    computed once (an archive's month: neighbouring leaves share most of their paths)."""
    asked = {i: _asked(lambda mth, i=i: merkle.inclusion_proof(i, size, mth)) for i in set(indices)}
    t = Subtrees(session, source, size)
    t.load({r for ranges in asked.values() for r in ranges})
    roots: dict[tuple[int, int], bytes] = {}
    for ranges in asked.values():
        for r in ranges:
            if r not in roots:
                roots[r] = t.mth(*r)
    # _asked records the ranges in the order inclusion_proof asks for them, the root's sibling first; a proof lists
    # the deepest first.
    return {i: [roots[r] for r in reversed(ranges)] for i, ranges in asked.items()}


def consistency(session: Session, source: str, old: int, new: int) -> list[bytes]:
    t = Subtrees(session, source, new)
    t.load(_asked(lambda mth: merkle.consistency_proof(old, new, mth)))
    return merkle.consistency_proof(old, new, t.mth)


def frontier(session: Session, source: str, size: int) -> merkle.Frontier:
    t = Subtrees(session, source, size)
    t.load(_asked(lambda mth: merkle.Frontier.of(size, mth)))
    return merkle.Frontier.of(size, t.mth)


# --- signed heads -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TreeHead:
    source: str
    seq: int
    root: bytes
    hash: bytes
    doc: str


def _head(row: Any) -> TreeHead:
    return TreeHead(row.source, int(row.seq), bytes(row.root), bytes(row.hash), row.doc)


_HEAD_COLUMNS = (TH.c.source, TH.c.seq, TH.c.root, TH.c.hash, TH.c.doc)


def latest_head(session: Session, source: str) -> TreeHead | None:
    row = session.execute(
        select(*_HEAD_COLUMNS).where(TH.c.source == source).order_by(TH.c.seq.desc()).limit(1)
    ).one_or_none()
    return None if row is None else _head(row)


def head_at(session: Session, source: str, seq: int) -> TreeHead | None:
    row = session.execute(select(*_HEAD_COLUMNS).where(TH.c.source == source, TH.c.seq == seq)).one_or_none()
    return None if row is None else _head(row)


def head_covering(session: Session, source: str, seq: int) -> TreeHead | None:
    """The first signed head whose tree holds entry ``seq``."""
    row = session.execute(
        select(*_HEAD_COLUMNS).where(TH.c.source == source, TH.c.seq >= seq).order_by(TH.c.seq).limit(1)
    ).one_or_none()
    return None if row is None else _head(row)


def heads(session: Session, source: str, after: int = 0) -> Sequence[TreeHead]:
    rows = session.execute(
        select(*_HEAD_COLUMNS).where(TH.c.source == source, TH.c.seq > after).order_by(TH.c.seq)
    ).all()
    return [_head(r) for r in rows]


def add_head(session: Session, values: dict[str, Any]) -> None:
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(insert(TH).on_conflict_do_nothing(), [values])


def lock_tree(session: Session, source: str) -> None:
    """One signer of a source's heads at a time (PostgreSQL; SQLite writes one at a time anyway)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(
            text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"), {"k": "bjaudit-tree:" + source}
        )
