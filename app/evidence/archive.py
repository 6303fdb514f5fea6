"""An archive file of a month of rounds (``bjaudit archive``, docs/retention.md), read and checked with no database.

The file is gzip NDJSON, one round a line; the manifest beside it says what the file holds. Since format
``bjaudit-archive/2`` every line carries what the round's evidence packet (:mod:`app.evidence.packet`) carries
besides what the line has already: ``evidence.entries``, the chain entries of the round and of its re-audits (seq,
kind, content, inclusion proof), and ``evidence.registrations``, the seqs of the registrations its audits were made
by. The manifest's ``logs`` holds, per source, the signed tree head every proof of the file leads to and those
registrations' entries (with their rules and ``elections_id``). :func:`packet_of` puts a line back together as the
round's evidence packet, which :func:`app.evidence.packet.check` (or docs/check_evidence.py) checks like any other.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.evidence import packet as evidence_packet

FORMAT = "bjaudit-archive/2"
"""Lines with their evidence; a manifest without ``format`` (or with another) is of the first format: no proofs."""
LIMIT_LISTED = 20
"""Problems listed by a check (all are counted)."""


def manifest_path(path: Path) -> Path:
    """``bjaudit-rounds-2024-10.ndjson.gz`` → ``bjaudit-rounds-2024-10.manifest.json``."""
    return path.with_suffix("").with_suffix(".manifest.json")


def lines(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rb") as f:
        for line in f:
            yield json.loads(line)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def has_proofs(manifest: Mapping[str, Any]) -> bool:
    return manifest.get("format") == FORMAT


def packet_of(doc: Mapping[str, Any], manifest: Mapping[str, Any]) -> dict[str, Any] | None:
    """The evidence packet of an archived round (``GET /v1/rounds/{id}/evidence`` as it answered when the month was
    archived, with the archive's head), or None when the line has none (the round had no entry in its log)."""
    evidence = doc.get("evidence")
    if not isinstance(evidence, dict):
        return None
    log = manifest["logs"][doc["source"]]
    audits = {int(a["audit_no"]): a["audit"] for a in doc.get("reaudits") or ()}
    entries = []
    for e in evidence["entries"]:
        entry = dict(e)
        if e["kind"] == "round":
            entry["audit"] = doc["audit"]
        else:
            entry["audit"] = audits.get(int(e["content"]["audit_no"]))
        entries.append(entry)
    entries += [dict(log["registrations"][str(seq)]) for seq in evidence["registrations"]]
    return {
        "format": evidence_packet.FORMAT,
        "source": doc["source"],
        "round_id": doc["round_id"],
        "jurisdiction": doc["jurisdiction"],
        "record": doc["record"],
        "entries": entries,
        "head": log["head"],
    }


@dataclass(slots=True)
class Checked:
    """What a check of an archive file found: counts, and the problems (the first :data:`LIMIT_LISTED` listed)."""

    rounds: int = 0
    findings: int = 0
    proved: int = 0
    replayed: int = 0
    problems: int = 0
    listed: list[str] = field(default_factory=list)
    heads: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        self.problems += 1
        if len(self.listed) < LIMIT_LISTED:
            self.listed.append(text)


def check_file(
    path: Path,
    manifest: Mapping[str, Any],
    trusted: bytes | None = None,
    replay: evidence_packet.Replay | None = None,
    progress: Callable[[int], None] | None = None,
) -> Checked:
    """Check an archive file against its manifest: its SHA-256 and counts, each record against its SHA-256, and
    (format 2) each round's evidence packet — its entries' contents against the record and audits, their inclusion
    proofs against the manifest's signed heads, whose signatures are checked once each (against ``trusted`` when
    given). ``replay`` re-runs each audit too. Nothing is raised for what the file says: it is counted."""
    out = Checked()
    if sha256_of(path) != manifest.get("sha256"):
        out.problem(f"{path.name}: its SHA-256 is not the manifest's: the file changed")
        return out
    proofs = has_proofs(manifest)
    sound_heads: set[str] = set()
    if proofs:
        for source, log in sorted(dict(manifest.get("logs") or {}).items()):
            wrong = evidence_packet.check_head(log.get("head"), trusted)
            for p in wrong:
                out.problem(f"head of source {source}: {p}")
            if not wrong:
                sound_heads.add(source)
                out.heads.append(f"source {source}: {log['head']['seq']} entries, root {log['head']['root']}")
    for doc in lines(path):
        out.rounds += 1
        out.findings += len(doc.get("findings") or ())
        if progress is not None and out.rounds % 100_000 == 0:
            progress(out.rounds)
        name = f"round {doc.get('round_id')!r}"
        try:
            record = base64.b64decode(doc["record"], validate=True)
        except (KeyError, TypeError, binascii.Error):
            out.problem(f"{name}: its record cannot be read")
            continue
        if hashlib.sha256(record).hexdigest() != doc.get("record_sha256"):
            out.problem(f"{name}: its record is not the one stored (SHA-256 is not its record_sha256)")
            continue
        if not proofs:
            continue
        if doc.get("source") not in sound_heads:
            out.problem(f"{name}: no sound signed head of source {doc.get('source')!r} in the manifest")
            continue
        try:
            pkt = packet_of(doc, manifest)
        except (KeyError, TypeError, ValueError) as exc:
            out.problem(f"{name}: its evidence cannot be read: {exc!r}")
            continue
        if pkt is None:
            out.problem(f"{name}: it had no entry in the log of its source when archived (`bjaudit verify`)")
            continue
        done: list[str] = []
        problems = evidence_packet.check_signed(pkt, pkt["head"], done)
        if replay is not None and not problems:
            problems += evidence_packet.replayed(record, pkt["entries"], replay, done)
            out.replayed += any(line.startswith("re-run") for line in done)
        for p in problems:
            out.problem(f"{name}: {p}")
        out.proved += not problems
    counted = (out.rounds, out.findings)
    if counted != (manifest.get("rounds"), manifest.get("findings")):
        out.problem(
            f"{path.name}: it holds {counted[0]} rounds and {counted[1]} findings, the manifest says "
            f"{manifest.get('rounds')} and {manifest.get('findings')}"
        )
    return out


def find_round(path: Path, round_id: str) -> dict[str, Any] | None:
    """The line of ``round_id`` (the first, if two sources share the id), or None."""
    return next((doc for doc in lines(path) if doc.get("round_id") == round_id), None)
