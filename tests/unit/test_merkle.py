"""RFC 9162's tree hashing and proofs (app/evidence/merkle.py) against the RFC's own recursive definitions, written
here from its text, and against the reference roots of Certificate Transparency's test leaves."""

from __future__ import annotations

import hashlib

import pytest

from app.evidence import merkle

# The leaves and roots of the Certificate Transparency reference tests (RFC 6962's reference implementation).
CT_LEAVES = [
    "",
    "00",
    "10",
    "2021",
    "3031",
    "40414243",
    "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def _mth(data: list[bytes]) -> bytes:
    """RFC 9162 2.1.1, word for word."""
    n = len(data)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashlib.sha256(b"\x00" + data[0]).digest()
    k = 1
    while k * 2 < n:
        k *= 2
    return hashlib.sha256(b"\x01" + _mth(data[:k]) + _mth(data[k:])).digest()


def _path(m: int, data: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]), RFC 9162 2.1.3.1."""
    n = len(data)
    if n == 1:
        return []
    k = 1
    while k * 2 < n:
        k *= 2
    if m < k:
        return _path(m, data[:k]) + [_mth(data[k:])]
    return _path(m - k, data[k:]) + [_mth(data[:k])]


def _subproof(m: int, data: list[bytes], b: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b), RFC 9162 2.1.4.1."""
    n = len(data)
    if m == n:
        return [] if b else [_mth(data)]
    k = 1
    while k * 2 < n:
        k *= 2
    if m <= k:
        return _subproof(m, data[:k], b) + [_mth(data[k:])]
    return _subproof(m - k, data[k:], False) + [_mth(data[:k])]


def _data(n: int) -> list[bytes]:
    return [hashlib.sha256(str(i).encode()).digest() for i in range(n)]


def _mth_of(data: list[bytes]):
    return lambda start, end: _mth(data[start:end])


def test_the_roots_of_the_certificate_transparency_reference_leaves() -> None:
    leaves = [bytes.fromhex(x) for x in CT_LEAVES]
    for n, want in enumerate(CT_ROOTS, start=1):
        assert merkle.root([merkle.leaf_hash(d) for d in leaves[:n]]).hex() == want
    assert merkle.root([]) == hashlib.sha256(b"").digest()


@pytest.mark.parametrize("n", range(1, 34))
def test_root_path_and_proof_are_the_rfc_definitions(n: int) -> None:
    data = _data(n)
    leaves = [merkle.leaf_hash(d) for d in data]
    top = _mth(data)
    assert merkle.root(leaves) == top
    frontier = merkle.Frontier()
    for leaf in leaves:
        frontier.append(leaf)
    assert frontier.size == n and frontier.root() == top
    assert merkle.Frontier.of(n, _mth_of(data)).root() == top
    for m in range(n):
        path = merkle.inclusion_proof(m, n, _mth_of(data))
        assert path == _path(m, data)
        assert merkle.verify_inclusion(m, n, leaves[m], path, top)
        assert not merkle.verify_inclusion(m, n, leaves[(m + 1) % n], path, top) or n == 1
        if path:
            assert not merkle.verify_inclusion(m, n, leaves[m], path[:-1], top)
            assert not merkle.verify_inclusion(m, n, leaves[m], [*path, top], top)
            bent = [bytes([path[0][0] ^ 1]) + path[0][1:], *path[1:]]
            assert not merkle.verify_inclusion(m, n, leaves[m], bent, top)
    for old in range(1, n + 1):
        proof = merkle.consistency_proof(old, n, _mth_of(data))
        assert proof == _subproof(old, data, True)
        old_root = _mth(data[:old])
        assert merkle.verify_consistency(old, n, old_root, top, proof)
        if old < n:
            assert not merkle.verify_consistency(old, n, _mth(data[: old - 1] + [b"x"]), top, proof)
            assert not merkle.verify_consistency(old, n, old_root, _mth(data[:-1] + [b"x"]), proof)
            assert not merkle.verify_consistency(old, n, old_root, top, proof[:-1])


def test_a_leaf_outside_the_tree_has_no_proof() -> None:
    with pytest.raises(ValueError):
        merkle.inclusion_proof(3, 3, _mth_of(_data(3)))
    assert merkle.root_from_inclusion(3, 3, b"x", []) is None
    assert not merkle.verify_consistency(4, 3, b"", b"", [])


def test_a_frontier_must_have_one_node_per_bit_of_its_size() -> None:
    with pytest.raises(ValueError):
        merkle.Frontier(3, [b"a"])
