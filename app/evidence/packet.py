"""The evidence packet of a round, and its check offline.

A packet (``GET /v1/rounds/{id}/evidence``) holds the round's record (its exact bytes, base64), the chain entries that
vouch for it — the round's own (its first audit), each later re-audit's, the registration whose elections it was
audited by — each with the content it was appended with, the text that content names by SHA-256 (the audit, the
rules) and its inclusion proof, and the signed tree head the proofs lead to. :func:`check` verifies it with nothing but
the packet (and, if given, the public key to trust and an engine to re-run the audit): SHA-256, RFC 9162's proofs and
Ed25519. docs/integrity.md shows a script of the same steps that uses only ``hashlib`` and ``cryptography``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from app.evidence import merkle

FORMAT = "bjaudit-evidence/1"
HEAD_FIELDS = ("source", "seq", "hash", "root", "exported_at", "public_key")
"""What a signed tree head must have (the signature covers every field of the head but itself)."""

Replay = Callable[[bytes, "int | None", "str | None"], tuple[str, str]]
"""``replay(record, elections_id, rules)``: the audit this engine makes of the record (its JSON text) and the engine's
version."""


def canonical(content: Mapping[str, Any]) -> bytes:
    """The canonical JSON of an entry's content (keys sorted, no whitespace, UTF-8), as the service hashes it.

    >>> canonical({"b": 1, "a": "é", "c": None})
    b'{"a":"\\xc3\\xa9","b":1,"c":null}'
    """
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def signed_payload(head: Mapping[str, Any]) -> bytes:
    """The bytes a head's signature covers: the canonical JSON of every field but the signature."""
    return canonical({k: v for k, v in head.items() if k != "signature"})


def check_head(head: Any, trusted: bytes | None = None) -> list[str]:
    """What is wrong with a signed head on its own: its fields, its signature, its key against ``trusted`` (a raw
    Ed25519 public key). Empty when it is sound."""
    if not isinstance(head, dict):
        return ["the head is not a JSON object"]
    missing = [k for k in (*HEAD_FIELDS, "signature") if k not in head]
    if missing:
        return [f"the head lacks {', '.join(missing)}"]
    try:
        public = base64.b64decode(head["public_key"], validate=True)
        signature = base64.b64decode(head["signature"], validate=True)
        key = Ed25519PublicKey.from_public_bytes(public)
    except (binascii.Error, ValueError, TypeError) as exc:
        return [f"the head's public_key or signature is not usable: {exc}"]
    problems = []
    if trusted is not None and public != trusted:
        problems.append("the head is signed with another key than the one trusted")
    try:
        key.verify(signature, signed_payload(head))
    except InvalidSignature:
        problems.append("the head's signature does not match its fields: it was changed after it was signed")
    return problems


def _sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _text(entry: Mapping[str, Any], name: str) -> bytes | None:
    value = entry.get(name)
    return value.encode() if isinstance(value, str) else None


def check(
    packet: Any, trusted: bytes | None = None, replay: Replay | None = None
) -> tuple[list[str], list[str]]:
    """Check a packet: (problems, what was checked). No problem: the record and its audits are those the service
    appended to its log, under the signed head. ``replay``: re-run the audit and compare."""
    done: list[str] = []
    if not isinstance(packet, dict) or packet.get("format") != FORMAT:
        return [f"not an evidence packet ({FORMAT})"], done
    problems = check_head(packet.get("head"), trusted)
    if problems:
        return problems, done
    head: dict[str, Any] = packet["head"]
    done.append(
        f"head: source {head['source']}, {head['seq']} entries, root {head['root']}, signed "
        f"{'by the trusted key' if trusted is not None else 'by the key it carries (no trusted key given)'}"
    )
    problems = check_signed(packet, head, done)
    if replay is not None and not problems:
        problems += replayed(base64.b64decode(packet["record"]), packet["entries"], replay, done)
    return problems, done


def check_signed(packet: Mapping[str, Any], head: Mapping[str, Any], done: list[str]) -> list[str]:
    """The packet's problems under ``head``, a signed head already checked (:func:`check_head`): its record against
    the round's entry, each entry against its texts and, by its inclusion proof, against the head's root."""
    problems: list[str] = []
    try:
        record = base64.b64decode(packet["record"], validate=True)
        size, root = int(head["seq"]), bytes.fromhex(head["root"])
        entries = list(packet["entries"])
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        return [f"the packet's record, entries or head root cannot be read: {exc}"]
    round_entry = entries[0] if entries and isinstance(entries[0], dict) else {}
    content: dict[str, Any] = round_entry["content"] if isinstance(round_entry.get("content"), dict) else {}
    if content.get("kind") != "round":
        return ["the packet's first entry is not the round's"]
    for name in ("source", "round_id", "jurisdiction"):
        if content.get(name) != packet.get(name) or (
            name == "source" and content.get(name) != head["source"]
        ):
            problems.append(
                f"the round's entry has {name} {content.get(name)!r}, the packet {packet.get(name)!r}"
            )
    if _sha256_hex(record) != content.get("record_sha256"):
        problems.append(
            "the record's bytes are not those appended (their SHA-256 is not the entry's record_sha256)"
        )
    else:
        done.append(f"record: {len(record)} bytes, SHA-256 {content['record_sha256']}")
        problems += _record_agrees(record, content)
    for i, entry in enumerate(entries):
        problems += _check_entry(i, entry, packet, size, root, done)
    return problems


def _record_agrees(record: bytes, content: Mapping[str, Any]) -> list[str]:
    try:
        doc = json.loads(record)
    except ValueError:
        return ["the record is not JSON"]
    if not isinstance(doc, dict):
        return ["the record is not a JSON object"]
    given = doc.get("table")
    table: dict[str, Any] = given if isinstance(given, dict) else {}
    said = {
        "round_id": doc.get("round_id"),
        "jurisdiction": doc.get("jurisdiction"),
        "table_id": table.get("id"),
    }
    return [
        f"the record's {k} is {v!r}, its entry's {content.get(k)!r}"
        for k, v in said.items()
        if v != content.get(k)
    ]


def _check_entry(
    i: int, entry: Any, packet: Mapping[str, Any], size: int, root: bytes, done: list[str]
) -> list[str]:
    if not isinstance(entry, dict) or not isinstance(entry.get("content"), dict):
        return [f"entry {i + 1} of the packet is not an entry"]
    content, kind = entry["content"], entry["content"].get("kind")
    where = f"{kind} entry {entry.get('seq')}"
    out: list[str] = []
    if content.get("source") != packet.get("source"):
        out.append(f"{where}: it is of source {content.get('source')!r}")
    if kind in ("round", "audit"):
        audit = _text(entry, "audit")
        if audit is None or _sha256_hex(audit) != content.get("audit_sha256"):
            out.append(
                f"{where}: its audit is not the one appended (SHA-256 is not the entry's audit_sha256)"
            )
        else:
            out += [f"{where}: {p}" for p in _audit_agrees(audit, content)]
        if content.get("round_id") != packet.get("round_id") or content.get("jurisdiction") != packet.get(
            "jurisdiction"
        ):
            out.append(f"{where}: it is of another round")
    elif kind == "registration":
        rules = _text(entry, "rules")
        if rules is None or _sha256_hex(rules) != content.get("rules_sha256"):
            out.append(f"{where}: its rules are not those appended (SHA-256 is not the entry's rules_sha256)")
        first = packet["entries"][0]["content"]
        if (content.get("table_id"), content.get("jurisdiction")) != (
            first.get("table_id"),
            first.get("jurisdiction"),
        ):
            out.append(f"{where}: it registers another table than the round's")
    else:
        return [f"entry {i + 1} of the packet has an unknown kind {kind!r}"]
    try:
        seq = int(entry["seq"])
        path = [bytes.fromhex(h) for h in entry["inclusion"]]
    except (KeyError, TypeError, ValueError) as exc:
        return [*out, f"{where}: its seq or inclusion proof cannot be read: {exc}"]
    digest = hashlib.sha256(canonical(content)).digest()
    if seq < 1 or not merkle.verify_inclusion(seq - 1, size, merkle.leaf_hash(digest), path, root):
        out.append(
            f"{where}: its inclusion proof does not lead to the head's root: it is not in the signed log"
        )
    elif not out:
        done.append(f"{where}: in the log of {size} entries ({len(path)} hashes of proof)")
    return out


def _audit_agrees(audit: bytes, content: Mapping[str, Any]) -> list[str]:
    try:
        doc = json.loads(audit)
    except ValueError:
        return ["its audit is not JSON"]
    out = []
    if doc.get("verdict") != content.get("verdict"):
        out.append(f"its audit says {doc.get('verdict')!r}, its entry {content.get('verdict')!r}")
    if len(doc.get("findings") or ()) != content.get("finding_count"):
        out.append(
            f"its audit has {len(doc.get('findings') or ())} findings, its entry {content.get('finding_count')}"
        )
    return out


def _rules_of(registrations: list[Any], elections_id: Any) -> str | None:
    """The rules of the registration entry whose ``elections_id`` is the audit's (a packet made before that field
    was added holds one registration, which names none: that one)."""
    named = [e for e in registrations if e.get("elections_id") == elections_id]
    if not named:
        named = [e for e in registrations if "elections_id" not in e]
        named = named if len(named) == 1 else []
    return named[0].get("rules") if named else None


def replayed(record: bytes, entries: list[Any], replay: Replay, done: list[str]) -> list[str]:
    """Re-run each audit of a sound packet by the elections it names — registered ones with the rules of the
    registration entry it names — and compare the audits of this engine's version with what it makes now."""
    registrations = [e for e in entries if e["content"].get("kind") == "registration"]
    runs: dict[tuple[Any, str | None], tuple[str, str]] = {}
    wrong: list[str] = []
    compared: list[Any] = []
    other: set[str] = set()
    version = ""
    for e in entries:
        content = e["content"]
        if content.get("kind") not in ("round", "audit"):
            continue
        registered = content.get("elections_source") == "registered"
        elections_id = content.get("elections_id") if registered else None
        rules = _rules_of(registrations, elections_id) if registered else None
        if registered and rules is None:
            return [
                f"{content['kind']} entry {e['seq']}: it was audited by registration {elections_id}, which the "
                "packet does not hold: it cannot be re-run"
            ]
        if (elections_id, rules) not in runs:
            try:
                runs[(elections_id, rules)] = replay(record, elections_id, rules)
            except Exception as exc:  # noqa: BLE001 - the engine's refusal is the finding
                return [f"the engine refuses the record now: {exc}"]
        again, version = runs[(elections_id, rules)]
        if content.get("engine_version") != version:
            other.add(str(content.get("engine_version")))
            continue
        compared.append(e)
        if e["audit"] != again:
            wrong.append(
                f"{content['kind']} entry {e['seq']}: engine {version} does not make this audit of the record"
            )
    if wrong:
        return wrong
    if not compared:
        done.append(
            f"not re-run: the audits name engine {', '.join(sorted(other))}; this is engine {version}"
        )
        return []
    done.append(f"re-run: engine {version} makes the same audit ({len(compared)} audit(s) compared)")
    return []
