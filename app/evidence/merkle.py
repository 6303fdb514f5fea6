"""The Merkle tree hashing of RFC 9162 (Certificate Transparency 2.0, section 2.1), over a source's log.

The leaves are the entries' digests, in seq order (entry ``seq`` is leaf ``seq - 1``):

- a leaf's hash is SHA-256(0x00 || digest), a node's SHA-256(0x01 || left || right);
- the tree of ``n`` leaves splits at ``k``, the largest power of two below ``n``: its root (MTH) is the node of the
  roots of the first ``k`` leaves and of the rest; the empty tree's root is SHA-256 of nothing.

An inclusion proof (RFC 9162 2.1.3) shows that a leaf is in a tree of a given size and root, a consistency proof
(2.1.4) that a tree is an extension of an earlier one, each in O(log n) hashes. The functions that make proofs take
``mth(start, end)``, the root of the leaves ``start`` (included) to ``end`` (excluded), so that a store can answer it
from nodes it keeps; the ranges asked for are always whole subtrees of the tree (``start`` a multiple of the largest
power of two below ``end - start``). The checks need nothing but the proof.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

EMPTY_ROOT = hashlib.sha256(b"").digest()

Mth = Callable[[int, int], bytes]
"""``mth(start, end)``: the root of the leaves ``start`` <= i < ``end`` (a subtree of the tree)."""


def leaf_hash(digest: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + digest).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two below ``n`` (``n`` >= 2): where the tree of ``n`` leaves splits.

    >>> [split(n) for n in (2, 3, 4, 5, 8, 9)]
    [1, 2, 2, 4, 4, 8]
    """
    return 1 << ((n - 1).bit_length() - 1)


def root(leaf_hashes: Sequence[bytes]) -> bytes:
    """MTH of leaves given by their hashes (in memory: for tests, tiles and short ranges)."""
    n = len(leaf_hashes)
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return leaf_hashes[0]
    k = split(n)
    return node_hash(root(leaf_hashes[:k]), root(leaf_hashes[k:]))


def perfect_root(level_hashes: Sequence[bytes]) -> bytes:
    """The root of a perfect subtree from its nodes at one level (a power of two of them), bottom-up."""
    row = list(level_hashes)
    while len(row) > 1:
        row = [node_hash(row[i], row[i + 1]) for i in range(0, len(row), 2)]
    return row[0]


# --- proofs ---------------------------------------------------------------------------------------------------------


def inclusion_proof(index: int, size: int, mth: Mth) -> list[bytes]:
    """PATH(index, D[size]) of RFC 9162 2.1.3.1: the hashes that take leaf ``index`` to the root of ``size`` leaves,
    the deepest first."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    path: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = split(end - start)
        if index - start < k:
            path.append(mth(start + k, end))
            end = start + k
        else:
            path.append(mth(start, start + k))
            start += k
    path.reverse()
    return path


def consistency_proof(old: int, new: int, mth: Mth) -> list[bytes]:
    """PROOF(old, D[new]) of RFC 9162 2.1.4.1: the hashes that show the tree of ``old`` leaves is the beginning of
    the tree of ``new`` leaves."""
    if not 0 < old <= new:
        raise ValueError(f"no consistency proof from {old} to {new} leaves")
    proof: list[bytes] = []
    start, end, whole = 0, new, True
    m = old
    while m != end - start:
        k = split(end - start)
        if m <= k:
            proof.append(mth(start + k, end))
            end = start + k
        else:
            proof.append(mth(start, start + k))
            start += k
            m -= k
            whole = False
    if not whole:
        proof.append(mth(start, end))
    proof.reverse()
    return proof


def root_from_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes]) -> bytes | None:
    """The root an inclusion proof leads to (RFC 9162 2.1.3.2), or None when the proof cannot be one for
    ``index`` in ``size`` leaves (too long or too short)."""
    if not 0 <= index < size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def verify_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes], root_hash: bytes) -> bool:
    return root_from_inclusion(index, size, leaf, path) == root_hash


def verify_consistency(old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """RFC 9162 2.1.4.2: whether ``proof`` shows that the tree of ``old`` leaves with ``old_root`` is the beginning
    of the tree of ``new`` leaves with ``new_root``."""
    if not 0 < old <= new:
        return False
    if old == new:
        return not proof and old_root == new_root
    if not proof:
        return False
    path = list(proof)
    if old & (old - 1) == 0:  # a power of two: the old root is itself a node of the proof
        path.insert(0, old_root)
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


# --- the right edge of a tree: appending without the old leaves -------------------------------------------------------


class Frontier:
    """The roots of the perfect subtrees a tree of ``size`` leaves ends in (its binary decomposition, largest first):
    enough to append leaves and compute the new root without the old leaves. A verifier keeps it to check only what
    was appended since it last looked."""

    __slots__ = ("size", "nodes")

    def __init__(self, size: int = 0, nodes: Sequence[bytes] = ()) -> None:
        if len(nodes) != size.bit_count():
            raise ValueError(f"a frontier of {size} leaves has {size.bit_count()} nodes, not {len(nodes)}")
        self.size = size
        self.nodes = list(nodes)

    def append(self, leaf: bytes) -> None:
        node, size = leaf, self.size
        while size & 1:
            node = node_hash(self.nodes.pop(), node)
            size >>= 1
        self.nodes.append(node)
        self.size += 1

    def root(self) -> bytes:
        if not self.nodes:
            return EMPTY_ROOT
        r = self.nodes[-1]
        for left in reversed(self.nodes[:-1]):
            r = node_hash(left, r)
        return r

    @classmethod
    def of(cls, size: int, mth: Mth) -> Frontier:
        """The frontier of the tree of ``size`` leaves, from its subtrees' roots."""
        nodes, start = [], 0
        for bit in reversed(range(size.bit_length())):
            if size >> bit & 1:
                nodes.append(mth(start, start + (1 << bit)))
                start += 1 << bit
        return cls(size, nodes)
