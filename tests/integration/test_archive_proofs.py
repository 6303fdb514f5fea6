"""An archived month carries each round's evidence (issue 21): the round's chain entries, its re-audits' and the
registration it was audited by, each with its inclusion proof under a signed head of its source's log, so that a
regulator can check any archived round with no database and without trusting the service (docs/retention.md).

Expectations come from the evidence packet's definition (docs/integrity.md "The Merkle log", RFC 9162's inclusion
proofs), written before the code ran: an archived round's packet is the packet ``GET /v1/rounds/{id}/evidence``
gave before the month left, under the archive's head; a changed byte is named; a month rewritten and signed again by
another key checks only against that key, and is not restored, since its head is not the log's."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.cli.integrity import replay_offline
from app.config import Settings
from app.evidence import archive, merkle, packet
from app.store import partitions
from app.store.db import Database
from app.usecases import integrity, retention
from tests.integration.test_reaudits import corrected_table, finished, reaudit
from tests.integration.test_table_elections import soft_17_round, submit

ON_POSTGRES = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
DECEMBER, JANUARY = date(2026, 12, 1), date(2027, 1, 1)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    # Re-audits run in this process; the service signs with a key of the test's own.
    return Settings(
        database_url=database_url,
        batch_runner="inline",
        embedded_workers=0,
        signing_key_file=str(tmp_path / "key.pem"),
    )


@pytest.fixture
def db(settings: Settings, engine: Engine) -> Iterator[Database]:
    database = Database.from_settings(settings)
    yield database
    database.dispose()


@pytest.fixture
def month(client: TestClient, engine: Engine) -> dict[str, Any]:
    """December 2026 of table BJ21: R-1 audited by the table's first registration (a finding), then re-audited by
    the corrected one (none); R-2 and R-3 audited by the corrected one. The evidence packets the service gives of
    each, by round_id."""
    with engine.begin() as conn:
        partitions.ensure_months(conn, [DECEMBER, JANUARY])
    corrected_table(client)
    finished(client, reaudit(client, {"table": "BJ21", "reason": "registration corrected"})["reaudit_id"])
    for round_id in ("R-2", "R-3"):
        submit(client, soft_17_round(round_id, "2026-12-02T21:00:00-05:00"))
    packets = {}
    for round_id in ("R-1", "R-2", "R-3"):
        got = client.get(f"/v1/rounds/{round_id}/evidence")
        assert got.status_code == 200, got.text
        packets[round_id] = got.json()
    return packets


def service_key(settings: Settings) -> Ed25519PrivateKey:
    return integrity.load_signing_key(settings.signing_key_file)


def lines_of(path: Path) -> list[dict[str, Any]]:
    return list(archive.lines(path))


def rewrite(path: Path, docs: list[dict[str, Any]], manifest: dict[str, Any]) -> None:
    """Write the lines and the manifest back as someone who changed them would: the manifest's SHA-256 made the new
    file's."""
    path.write_bytes(gzip.compress(b"".join(orjson.dumps(d) + b"\n" for d in docs)))
    manifest["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    archive.manifest_path(path).write_bytes(orjson.dumps(manifest))


def bjaudit(settings: Settings, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DATABASE_URL": settings.database_url,
        "BJAUDIT_SIGNING_KEY_FILE": settings.signing_key_file,
    }
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@ON_POSTGRES
def test_every_archived_round_carries_the_evidence_packet_the_service_gave(
    db: Database, settings: Settings, month: dict[str, Any], tmp_path: Path
) -> None:
    key = service_key(settings)
    *_, done = retention.archive(db, JANUARY, tmp_path / "archive", "auditor", key)
    assert done.month == DECEMBER
    assert (done.rounds, done.proved) == (3, 3)
    (head,) = done.heads
    manifest = orjson.loads(archive.manifest_path(done.path).read_bytes())
    assert manifest["format"] == "bjaudit-archive/2"
    assert manifest["logs"]["default"]["head"] == head
    assert not packet.check_head(head, integrity.raw_public_key(key))

    for doc in lines_of(done.path):
        got = archive.packet_of(doc, manifest)
        assert got is not None
        given = month[doc["round_id"]]
        # The same record and entries (content, texts) as the service's packet; proofs under the archive's head.
        assert got["record"] == given["record"]
        without_proofs = [{k: v for k, v in e.items() if k != "inclusion"} for e in got["entries"]]
        assert without_proofs == [{k: v for k, v in e.items() if k != "inclusion"} for e in given["entries"]]
        problems, checked = packet.check(got, integrity.raw_public_key(key), replay_offline)
        assert problems == [], problems
        assert any(line.startswith("re-run: ") for line in checked), checked
    r1 = next(d for d in lines_of(done.path) if d["round_id"] == "R-1")
    # R-1's audits were made by the first registration and by the corrected one: both are in the manifest.
    assert [e["kind"] for e in r1["evidence"]["entries"]] == ["round", "audit"]
    assert len(r1["evidence"]["registrations"]) == 2
    assert sorted(r1["evidence"]["registrations"]) == sorted(
        int(seq) for seq in manifest["logs"]["default"]["registrations"]
    )

    checked = archive.check_file(done.path, manifest, integrity.raw_public_key(key), replay_offline)
    assert (checked.rounds, checked.proved, checked.replayed, checked.problems) == (3, 3, 3, 0), (
        checked.listed
    )


@ON_POSTGRES
def test_check_archive_names_a_changed_audit_even_with_the_manifest_rehashed(
    db: Database, settings: Settings, month: dict[str, Any], tmp_path: Path
) -> None:
    *_, done = retention.archive(db, JANUARY, tmp_path / "archive", "auditor", service_key(settings))
    assert done.month == DECEMBER
    public = tmp_path / "public.pem"
    public.write_bytes(integrity.public_key_pem(service_key(settings)))

    valid = bjaudit(settings, "check-archive", str(done.path), "--public-key", str(public))
    assert valid.returncode == 0, valid.stderr
    assert "3 rounds, 1 findings; 3 with evidence valid under the heads, 3 audits re-run" in valid.stdout
    assert valid.stdout.rstrip().endswith("; valid")

    # One round's packet, out of the archive, checks with the evidence packet's own checker.
    one = bjaudit(
        settings, "check-archive", str(done.path), "--round", "R-2", "--out", str(tmp_path / "R-2.json")
    )
    assert one.returncode == 0, one.stderr
    checked = bjaudit(settings, "check-evidence", str(tmp_path / "R-2.json"), "--public-key", str(public))
    assert checked.returncode == 0 and "evidence valid" in checked.stdout, checked.stdout
    missing = bjaudit(settings, "check-archive", str(done.path), "--round", "R-9")
    assert missing.returncode == 1 and "no round 'R-9'" in missing.stderr

    # R-1's first audit made to say "compliant" (its finding hidden), the file and the manifest's SHA-256 redone.
    manifest = orjson.loads(archive.manifest_path(done.path).read_bytes())
    docs = lines_of(done.path)
    r1 = next(d for d in docs if d["round_id"] == "R-1")
    audit = json.loads(r1["audit"])
    audit["verdict"], audit["findings"] = "compliant", []
    r1["audit"] = json.dumps(audit)
    rewrite(done.path, docs, manifest)
    changed = bjaudit(settings, "check-archive", str(done.path), "--no-replay")
    assert changed.returncode == 1
    assert (
        f"NOT VALID: round 'R-1': round entry {r1['evidence']['entries'][0]['seq']}: its audit is not the one "
        "appended" in changed.stdout
    ), changed.stdout
    assert changed.stdout.rstrip().endswith("NOT valid: 1 problem(s)")
    with pytest.raises(retention.RetentionRefused, match="its audit is not the one appended"):
        retention.restore(db, done.path)


def _forged(path: Path, engine: Engine, forger: Ed25519PrivateKey) -> dict[str, Any]:
    """The month as its database's owner could rewrite it: R-1's audit made compliant, its entry's content and digest
    redone, the whole log's tree rebuilt over that digest, every proof redone and a head signed with ``forger``."""
    manifest = orjson.loads(archive.manifest_path(path).read_bytes())
    docs = lines_of(path)
    r1 = next(d for d in docs if d["round_id"] == "R-1")
    audit = json.loads(r1["audit"])
    audit["verdict"], audit["findings"] = "compliant", []
    r1["audit"] = json.dumps(audit)
    content = r1["evidence"]["entries"][0]["content"]
    content.update(
        verdict="compliant", finding_count=0, audit_sha256=hashlib.sha256(r1["audit"].encode()).hexdigest()
    )
    head = manifest["logs"]["default"]["head"]
    with engine.connect() as conn:
        digests = [
            bytes(d)
            for d in conn.execute(
                text("SELECT digest FROM chain_entries WHERE source = 'default' AND seq <= :n ORDER BY seq"),
                {"n": head["seq"]},
            ).scalars()
        ]
    seq = r1["evidence"]["entries"][0]["seq"]
    digests[seq - 1] = hashlib.sha256(packet.canonical(content)).digest()
    leaves = [merkle.leaf_hash(d) for d in digests]

    def mth(start: int, end: int) -> bytes:
        return merkle.root(leaves[start:end])

    size = len(leaves)
    for doc in docs:
        for e in doc["evidence"]["entries"]:
            e["inclusion"] = [h.hex() for h in merkle.inclusion_proof(e["seq"] - 1, size, mth)]
    for e in manifest["logs"]["default"]["registrations"].values():
        e["inclusion"] = [h.hex() for h in merkle.inclusion_proof(e["seq"] - 1, size, mth)]
    forged = {k: v for k, v in head.items() if k != "signature"}
    forged["root"] = merkle.root(leaves).hex()
    forged["public_key"] = base64.b64encode(integrity.raw_public_key(forger)).decode()
    forged["signature"] = base64.b64encode(forger.sign(packet.signed_payload(forged))).decode()
    manifest["logs"]["default"]["head"] = forged
    rewrite(path, docs, manifest)
    return dict(manifest)


@ON_POSTGRES
def test_a_month_rewritten_and_signed_by_another_key_checks_only_against_that_key_and_is_not_restored(
    db: Database, engine: Engine, settings: Settings, month: dict[str, Any], tmp_path: Path
) -> None:
    key = service_key(settings)
    *_, done = retention.archive(db, JANUARY, tmp_path / "archive", "auditor", key)
    assert done.month == DECEMBER
    manifest = _forged(done.path, engine, Ed25519PrivateKey.generate())

    alone = archive.check_file(
        done.path, manifest
    )  # sound in itself: a verifier must trust a key, or the log
    assert (alone.proved, alone.problems) == (3, 0), alone.listed
    trusted = archive.check_file(done.path, manifest, integrity.raw_public_key(key))
    assert trusted.proved == 0 and trusted.listed[0] == (
        "head of source default: the head is signed with another key than the one trusted"
    )
    with pytest.raises(retention.RetentionRefused, match="these are not the rounds the log holds"):
        retention.restore(db, done.path)
    with engine.connect() as conn:
        assert not conn.execute(text("SELECT to_regclass('rounds_2026_12') IS NOT NULL")).scalar_one()


@ON_POSTGRES
def test_an_archive_of_the_first_format_is_restored_on_its_records_alone(
    db: Database, client: TestClient, settings: Settings, month: dict[str, Any], tmp_path: Path
) -> None:
    *_, done = retention.archive(db, JANUARY, tmp_path / "archive", "auditor", service_key(settings))
    assert done.month == DECEMBER
    manifest = orjson.loads(archive.manifest_path(done.path).read_bytes())
    for name in ("format", "logs", "description"):
        del manifest[name]
    docs = [{k: v for k, v in d.items() if k != "evidence"} for d in lines_of(done.path)]
    rewrite(done.path, docs, manifest)
    said = bjaudit(settings, "check-archive", str(done.path))
    assert said.returncode == 0, said.stdout
    assert "no proofs (archived before format 2)" in said.stdout
    restored = retention.restore(db, done.path)
    assert (restored.rounds, restored.proved, restored.heads) == (3, 0, ())
    assert client.get("/v1/rounds/R-1").status_code == 200
