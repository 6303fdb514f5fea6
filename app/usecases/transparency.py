"""The Merkle log of each source, as its users see it: signed tree heads, inclusion and consistency proofs, the
evidence packet of a round, and the heads published to witnesses.

A signed tree head names a source's log at a size: ``seq`` (the tree size, the number of chain entries), ``root``
(the RFC 9162 root over the entries' digests), ``hash`` (the chain's hash at entry ``seq``, so that one signature
vouches for both), ``exported_at`` and the ``public_key``; the Ed25519 ``signature`` covers the canonical JSON of every
other field. A head is signed when one is asked for and the log has grown since the last (``GET
/v1/integrity/head``, a proof, an evidence packet, the end of a batch, the periodic publication): each is kept
(``tree_heads``), so that a proof can be given against any head a witness holds.
"""

from __future__ import annotations

import base64
import logging
import os
import tempfile
import urllib.request
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy.orm import Session

from app.evidence import packet as evidence_packet
from app.store import chain, tree
from app.usecases import rounds as round_cases
from app.usecases.errors import InvalidQuery, ServiceError
from app.usecases.integrity import NoChain, signed_head

log = logging.getLogger("bjaudit.transparency")


class HeadNotFound(ServiceError):
    status, slug, title = 404, "head-not-found", "No signed head of that size"


class NotInLog(ServiceError):
    status, slug, title = 409, "not-in-log", "The round has no entry in its source's log"


# --- signed tree heads ---------------------------------------------------------------------------------------------


def sign_head(
    session: Session, source: str, key: Ed25519PrivateKey, now: datetime | None = None
) -> dict[str, Any]:
    """The source's latest signed tree head, signed now if the log has grown since the last one."""
    tree.lock_tree(session, source)
    position = chain.head(session, source)
    if position is None:
        raise NoChain(f"Source {source!r} has no chain yet: nothing of it is stored.")
    latest = tree.latest_head(session, source)
    if latest is not None and latest.seq >= position.seq:
        return dict(orjson.loads(latest.doc))
    tree.extend(session, source, position.seq)
    root = tree.root(session, source, position.seq)
    signed_at = now or datetime.now(UTC)
    doc = signed_head(source, position, key, signed_at, root=root)
    tree.add_head(
        session,
        {
            "source": source,
            "seq": position.seq,
            "root": root,
            "hash": position.hash,
            "signed_at": signed_at,
            "doc": orjson.dumps(doc).decode(),
        },
    )
    return doc


def _head_for(
    session: Session, source: str, key: Ed25519PrivateKey, size: int | None, holds: int
) -> dict[str, Any]:
    """The signed head of ``size`` entries (one signed before), or the latest (signed now if needed); it must hold
    entry ``holds``."""
    if size is None:
        doc = sign_head(session, source, key)
    else:
        found = tree.head_at(session, source, size)
        if found is None:
            raise HeadNotFound(
                f"Source {source!r} has no signed head of {size} entries; GET /v1/integrity/heads lists them.",
                extra={"tree_size": size},
            )
        doc = dict(orjson.loads(found.doc))
    if int(doc["seq"]) < holds:
        raise InvalidQuery(
            f"The head of {doc['seq']} entries does not hold entry {holds}: ask for a later head.",
            errors=[{"in": "query", "parameter": "tree_size", "detail": f"must be at least {holds}"}],
        )
    return doc


def list_heads(session: Session, source: str, after: int, limit: int) -> dict[str, Any]:
    found = tree.heads(session, source, after)[: limit + 1]
    docs = [orjson.loads(h.doc) for h in found[:limit]]
    return {
        "source": source,
        "heads": docs,
        "next_after": found[limit - 1].seq if len(found) > limit else None,
    }


# --- proofs ----------------------------------------------------------------------------------------------------------


def _the_round(session: Session, round_id: str, source: str | None, jurisdiction: str | None) -> Any:
    row = round_cases.the_round(session, round_id, source, jurisdiction)
    if row.chain_seq is None:
        raise NotInLog(
            f"Round {round_id!r} has no entry in the log of source {row.source!r}: `bjaudit verify`."
        )
    return row


def _hexes(hashes: Sequence[bytes]) -> list[str]:
    return [h.hex() for h in hashes]


def round_proof(
    session: Session,
    key: Ed25519PrivateKey,
    round_id: str,
    source: str | None,
    jurisdiction: str | None,
    tree_size: int | None = None,
) -> dict[str, Any]:
    """``GET /v1/rounds/{id}/proof``: the round's entry, its inclusion proof, and the signed head it leads to."""
    row = _the_round(session, round_id, source, jurisdiction)
    seq = int(row.chain_seq)
    head = _head_for(session, row.source, key, tree_size, seq)
    entry = chain.entry_digest(session, row.source, seq)
    return {
        "source": row.source,
        "round_id": row.round_id,
        "jurisdiction": row.jurisdiction,
        "seq": seq,
        "leaf_index": seq - 1,
        "digest": entry.hex(),
        "tree_size": int(head["seq"]),
        "inclusion": _hexes(tree.inclusion(session, row.source, seq - 1, int(head["seq"]))),
        "head": head,
    }


def consistency(
    session: Session, key: Ed25519PrivateKey, source: str, old: int, new: int | None
) -> dict[str, Any]:
    """``GET /v1/integrity/consistency``: the proof that the log of ``old`` entries is the beginning of the signed
    head of ``new`` entries (the latest when not given)."""
    head = _head_for(session, source, key, new, max(old, 1))
    size = int(head["seq"])
    if old < 1:
        raise InvalidQuery(
            "A consistency proof starts from a log of at least one entry.",
            errors=[{"in": "query", "parameter": "from", "detail": "must be 1 or more"}],
        )
    return {
        "source": source,
        "from": old,
        "to": size,
        "from_root": tree.root(session, source, old).hex(),
        "proof": _hexes(tree.consistency(session, source, old, size)),
        "head": head,
    }


# --- the evidence packet -----------------------------------------------------------------------------------------------


def packet_entries(
    rnd: Mapping[Any, Any], later: Sequence[Mapping[Any, Any]], registrations: Sequence[Mapping[Any, Any]]
) -> list[dict[str, Any]]:
    """The entries of a round's evidence packet, without their proofs: the round's (its row, ``entry_seq`` its
    entry's seq), its re-audits' (rows in order) and the registrations its audits were made by (rows), each with the
    text its content names by SHA-256 (a registration with its ``elections_id`` too: the audits name it). A row
    with no entry (``entry_seq`` None) has none: verify names it."""
    values = {**rnd, "record_sha256": chain.sha256_hex(bytes(rnd["record"]))}
    entries: list[dict[str, Any]] = [
        {
            "seq": int(rnd["entry_seq"]),
            "kind": "round",
            "content": chain.round_content(values),
            "audit": rnd["audit"],
        }
    ]
    entries += [
        {
            "seq": int(a["entry_seq"]),
            "kind": "audit",
            "content": chain.audit_content(
                {**a, "round_id": rnd["round_id"], "jurisdiction": rnd["jurisdiction"]}
            ),
            "audit": a["audit"],
        }
        for a in later
        if a["entry_seq"] is not None
    ]
    entries += [
        {
            "seq": int(r["entry_seq"]),
            "kind": "registration",
            "content": chain.registration_content(r),
            "rules": r["rules"],
            "elections_id": int(r["id"]),
        }
        for r in registrations
        if r["entry_seq"] is not None
    ]
    return entries


def evidence(
    session: Session, key: Ed25519PrivateKey, round_id: str, source: str | None, jurisdiction: str | None
) -> dict[str, Any]:
    """``GET /v1/rounds/{id}/evidence``: the round's record, the entries that vouch for it and their audits and
    rules, their inclusion proofs, and the signed head (app/evidence/packet.py checks it)."""
    found = _the_round(session, round_id, source, jurisdiction)
    rnd, later, registrations = chain.round_evidence_rows(session, int(found.id))
    record = bytes(rnd.record)
    entries = packet_entries(rnd._mapping, [a._mapping for a in later], [r._mapping for r in registrations])
    head = _head_for(session, rnd.source, key, None, max(e["seq"] for e in entries))
    size = int(head["seq"])
    for e in entries:
        e["inclusion"] = _hexes(tree.inclusion(session, rnd.source, e["seq"] - 1, size))
    return {
        "format": evidence_packet.FORMAT,
        "source": rnd.source,
        "round_id": rnd.round_id,
        "jurisdiction": rnd.jurisdiction,
        "record": base64.b64encode(record).decode(),
        "entries": entries,
        "head": head,
    }


# --- witnesses ----------------------------------------------------------------------------------------------------------


def publish(doc: Mapping[str, Any], sinks: Sequence[str], timeout: float = 10.0) -> list[str]:
    """Send a signed head to each witness: a directory (``<dir>/<source>/<seq>.json``, written whole or not at all) or
    an ``http(s)://`` URL (POSTed as JSON). What failed, one line each (a witness that is down must not stop the
    service: the next publication carries everything since)."""
    body = orjson.dumps(doc)
    failed: list[str] = []
    for sink in sinks:
        try:
            if sink.startswith(("http://", "https://")):
                req = urllib.request.Request(sink, data=body, headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=timeout) as answer:  # noqa: S310 - a configured URL
                    answer.read(1024)
            else:
                folder = Path(sink) / _safe(str(doc["source"]))
                folder.mkdir(parents=True, exist_ok=True)
                target = folder / f"{int(doc['seq']):012d}.json"
                if not target.exists():
                    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".head-")
                    with os.fdopen(fd, "wb") as out:
                        out.write(body)
                    os.replace(tmp, target)
        except Exception as exc:  # noqa: BLE001 - every failure of a witness is reported, none stops the caller
            failed.append(f"{sink}: {exc}")
            log.warning(
                "witness %s did not take head %s of %s: %s", sink, doc.get("seq"), doc.get("source"), exc
            )
    return failed


def _safe(source: str) -> str:
    """A source as a folder name (sources match ^[A-Za-z0-9._-]+$; this keeps a stray one inside the folder)."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in source).lstrip(".") or "_"


def latest_heads(
    session: Session, key: Ed25519PrivateKey, sources: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The latest signed head of every source with a log (or of ``sources``), signed now where the log grew."""
    return [
        sign_head(session, source, key)
        for source in (sources if sources is not None else chain.sources(session))
        if chain.head(session, source) is not None
    ]


def checkpoint_at(session: Session, source: str, seq: int, root: bytes) -> Any:
    """A checkpoint to verify after, from an earlier answer's ``verified.seq`` and ``verified.root``: the log must
    still give that root at that size (then its right edge is read from the stored tree)."""
    from app.usecases.integrity import Checkpoint

    position = chain.entry_at(session, source, seq)
    if position is None:
        raise InvalidQuery(
            f"Source {source!r} has no entry {seq}.",
            errors=[{"in": "query", "parameter": "after", "detail": "no such entry"}],
        )
    edge = tree.frontier(session, source, seq)
    if edge.root() != root:
        raise InvalidQuery(
            f"The log of source {source!r} no longer gives the root {root.hex()} at entry {seq}: it was rewritten "
            "since that verification (verify from the start, without ?after=).",
            errors=[{"in": "query", "parameter": "root", "detail": "not the log's root at that size"}],
        )
    return Checkpoint(seq, position.hash, tuple(edge.nodes), None, {})


class Publisher:
    """Signs and publishes, to the configured witnesses, each source's latest head this process has not published yet."""

    def __init__(self, key_file: str, sinks: Sequence[str]) -> None:
        self.key_file, self.sinks = key_file, tuple(sinks)
        self.published: dict[str, int] = {}
        """The size of the last head published, per source, by this process (a head signed meanwhile for a proof or
        an export is published too: a witness must hold every head the service gave out, or it cannot check it)."""

    def publish_now(self, db: Any, sources: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Publish each source's latest head that is newer than the last this process published; the heads sent."""
        from app.usecases.integrity import load_signing_key

        key = load_signing_key(self.key_file)
        # committed before it is published: a witness never holds an unsaved head
        with db.session() as session:
            docs = latest_heads(session, key, sources)
        fresh = [d for d in docs if int(d["seq"]) > self.published.get(str(d["source"]), 0)]
        for doc in fresh:
            if not publish(doc, self.sinks):
                self.published[str(doc["source"])] = int(doc["seq"])
        return fresh


PUBLISHER: Publisher | None = None
"""Set by the service and the worker when witnesses are configured (BJAUDIT_WITNESS)."""


def configure(settings: Any) -> Publisher | None:
    global PUBLISHER
    PUBLISHER = (
        Publisher(settings.signing_key_file, settings.witness_sinks) if settings.witness_sinks else None
    )
    return PUBLISHER


def batch_done(db: Any, source: str) -> None:
    """The end of a batch: its source's head signed and published (nothing when no witness is configured; a
    failure is logged, never raised: the batch is stored)."""
    if PUBLISHER is None:
        return
    try:
        PUBLISHER.publish_now(db, [source])
    except Exception:  # noqa: BLE001 - the next publication carries it
        log.exception("the head of %s could not be published at the end of a batch", source)
