"""Check a bjaudit evidence packet with nothing but Python, hashlib and the `cryptography` package.

    python3 check_evidence.py evidence-BOR-1.json [public-key.b64]

Exit status 0: the record's bytes and its audits are those the service appended to its log, and the signed tree
head (checked against the public key given, raw Ed25519 in base64, else the key the head carries) holds them.
Exit status 1: what does not match, named. docs/integrity.md explains each step.
"""

import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha(data):
    return hashlib.sha256(data).digest()


def root_from_path(index, size, leaf, path):  # RFC 9162 2.1.3.2
    if index >= size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = sha(b"\x01" + p + r)
            while fn and not fn & 1:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = sha(b"\x01" + r + p)
        fn, sn = fn >> 1, sn >> 1
    return r if sn == 0 else None


def check(packet, trusted=None):
    problems = []
    head = packet["head"]
    key = base64.b64decode(head["public_key"])
    if trusted is not None and key != trusted:
        problems.append("the head is signed with another key than the one trusted")
    try:
        signed = {k: v for k, v in head.items() if k != "signature"}
        Ed25519PublicKey.from_public_bytes(key).verify(base64.b64decode(head["signature"]), canonical(signed))
    except InvalidSignature:
        problems.append("the head's signature does not match its fields")
    record = base64.b64decode(packet["record"])
    first = packet["entries"][0]["content"]
    if first["kind"] != "round" or hashlib.sha256(record).hexdigest() != first["record_sha256"]:
        problems.append("the record is not the one the round's entry names")
    for e in packet["entries"]:
        c = e["content"]
        if c["source"] != head["source"]:
            problems.append(f"entry {e['seq']} is of another source")
        named = {"round": "audit", "audit": "audit", "registration": "rules"}[c["kind"]]
        text = e.get(named) or ""
        if hashlib.sha256(text.encode()).hexdigest() != c[named + "_sha256"]:
            problems.append(f"entry {e['seq']}: its {named} is not the one appended")
        leaf = sha(b"\x00" + sha(canonical(c)))
        path = [bytes.fromhex(h) for h in e["inclusion"]]
        if root_from_path(e["seq"] - 1, head["seq"], leaf, path) != bytes.fromhex(head["root"]):
            problems.append(f"entry {e['seq']}: not in the signed log (its inclusion proof fails)")
    return problems


if __name__ == "__main__":
    doc = json.load(open(sys.argv[1], "rb"))
    key = base64.b64decode(sys.argv[2]) if len(sys.argv) > 2 else None
    found = check(doc, key)
    for line in found:
        print("NOT VALID:", line)
    print("evidence valid" if not found else f"evidence NOT valid: {len(found)} problem(s)")
    sys.exit(1 if found else 0)
