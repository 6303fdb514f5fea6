"""The Merkle log (issue 20): signed tree heads, inclusion and consistency proofs over HTTP, the evidence packet
checked offline, audits verified by replay (the forged re-audit of a database insider), incremental verification,
witnesses. Expectations are RFC 9162's (app/evidence/merkle.py is checked against its definitions in
tests/unit/test_merkle.py) and the issue's attacks, reproduced."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, make_url, text

from app.cli import main as cli
from app.config import Settings, get_settings, libpq_url
from app.evidence import merkle, packet
from app.store import chain
from app.store.db import Database
from app.store.models import UTCDateTime
from app.store.models import rounds_table as R
from app.synth.generator import generate_rounds
from app.usecases import integrity, transparency
from tests.integration.test_integrity import (  # noqa: F401, F811 - fixtures
    SOURCE,
    app_role,
    db,
    entry_of,
    owner,
    submit_session,
    verify,
)

JSON = {"content-type": "application/json"}


def _records(n: int, seed: int) -> list[bytes]:
    return [orjson.dumps(r) for r in generate_rounds(n, seed)]


def _post(client: TestClient, records: list[bytes]) -> list[str]:
    ids = []
    for r in records:
        answer = client.post("/v1/rounds", content=r, headers=JSON)
        assert answer.status_code == 201, answer.text
        ids.append(orjson.loads(r)["round_id"])
    return ids


def test_a_round_is_proved_in_the_signed_head_and_the_heads_are_consistent(client: TestClient) -> None:
    ids = _post(client, _records(21, 1))
    proof = client.get(f"/v1/rounds/{ids[4]}/proof")
    assert proof.status_code == 200, proof.text
    p = proof.json()
    head = p["head"]
    assert packet.check_head(head) == [] and head["seq"] == p["tree_size"] == 21
    leaf = merkle.leaf_hash(bytes.fromhex(p["digest"]))
    path = [bytes.fromhex(h) for h in p["inclusion"]]
    assert merkle.verify_inclusion(p["leaf_index"], 21, leaf, path, bytes.fromhex(head["root"]))
    assert len(path) == 5  # ceil(log2(21))
    assert not merkle.verify_inclusion(p["leaf_index"] + 1, 21, leaf, path, bytes.fromhex(head["root"]))

    _post(client, _records(13, 2))
    later = client.get(f"/v1/rounds/{ids[4]}/proof").json()
    assert later["tree_size"] == 34
    old = client.get(f"/v1/rounds/{ids[4]}/proof", params={"tree_size": 21}).json()
    assert old["head"] == head  # the head signed before, as it was
    c = client.get("/v1/integrity/consistency", params={"from": 21}).json()
    assert (c["from"], c["to"], c["from_root"]) == (21, 34, head["root"])
    proof_hashes = [bytes.fromhex(h) for h in c["proof"]]
    assert merkle.verify_consistency(
        21, 34, bytes.fromhex(head["root"]), bytes.fromhex(c["head"]["root"]), proof_hashes
    )
    assert client.get("/v1/integrity/consistency", params={"from": 35}).status_code == 422
    assert client.get(f"/v1/rounds/{ids[4]}/proof", params={"tree_size": 22}).status_code == 404
    assert client.get("/v1/rounds/nope/proof").status_code == 404


def test_the_evidence_packet_checks_offline_and_any_changed_byte_is_named(
    client: TestClient, tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _post(client, _records(9, 3))
    answer = client.get(f"/v1/rounds/{ids[2]}/evidence")
    assert answer.status_code == 200, answer.text
    doc = answer.json()
    trusted = integrity.raw_public_key(integrity.load_signing_key(settings.signing_key_file))
    problems, done = packet.check(doc, trusted, _replay)
    assert problems == [], problems
    assert any(line.startswith("re-run: engine") for line in done), done
    good = tmp_path / "evidence.json"
    good.write_bytes(answer.content)
    assert cli(["check-evidence", str(good)]) == 0

    raw = answer.content
    record = base64.b64decode(doc["record"])
    changes = {
        "record": lambda d: d | {"record": base64.b64encode(record.replace(b'"', b"'", 1)).decode()},
        "audit": lambda d: _entry(
            d, audit=d["entries"][0]["audit"].replace("compliant", "violations", 1) + " "
        ),
        "content": lambda d: _entry(d, content=d["entries"][0]["content"] | {"verdict": "x"}),
        "proof": lambda d: _entry(d, inclusion=["00" * 32, *d["entries"][0]["inclusion"][1:]]),
        "head": lambda d: d | {"head": d["head"] | {"seq": d["head"]["seq"] + 1}},
    }
    for what, change in changes.items():
        bad, _ = packet.check(change(orjson.loads(raw)), trusted, _replay)
        assert bad, what
        path = tmp_path / f"bad-{what}.json"
        path.write_bytes(orjson.dumps(change(orjson.loads(raw))))
        assert cli(["check-evidence", str(path)]) == 1, what
    # The script of docs/integrity.md: hashlib and cryptography only
    script = Path(__file__).resolve().parents[2] / "docs" / "check_evidence.py"
    ok = subprocess.run([sys.executable, str(script), str(good)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    for what in changes:
        bad = subprocess.run(
            [sys.executable, str(script), str(tmp_path / f"bad-{what}.json")], capture_output=True, text=True
        )
        assert bad.returncode == 1, (what, bad.stdout, bad.stderr)


def _entry(doc: dict[str, Any], **changes: Any) -> dict[str, Any]:
    doc["entries"][0] = doc["entries"][0] | changes
    return doc


def _replay(record: bytes, elections_id: int | None, rules: str | None) -> tuple[str, str]:
    from app.cli.integrity import replay_offline as replay

    return replay(record, elections_id, rules)


def test_a_forged_reaudit_appended_by_an_insider_is_named(
    db: Database,  # noqa: F811
    engine: Engine,
    database_url: str,
    examples: dict[str, bytes],
) -> None:
    """Issue 20, failure 4: with INSERT on audits and chain_entries and UPDATE on chain_heads (the application role's
    own grants), a re-audit citing no re-audit job, turning a violation into compliant, correctly linked."""
    submit_session(db, [*_records(5, 4), examples["nj-dealer-draws-on-hard-17"]])
    with db.reading() as s:
        row = s.execute(
            text(
                "SELECT id, round_id, jurisdiction, audit, verdict FROM rounds WHERE verdict = 'violations' ORDER BY id LIMIT 1"
            )
        ).one_or_none()
    forged = orjson.loads(row.audit) | {"verdict": "compliant", "findings": []}
    values = {
        "round_pk": row.id,
        "audit_no": 2,
        "source": SOURCE,
        "reaudit_id": "RA-doesnotexist",
        "created_at": datetime.now(UTC),
        "verdict": "compliant",
        "ruleset": forged["ruleset"],
        "engine_version": forged["engine_version"],
        "elections_source": forged["elections_source"],
        "elections_id": None,
        "finding_count": 0,
        "audit": orjson.dumps(forged).decode(),
        "void_reason": None,
    }
    with db.session() as s:  # what the insider ran, with the service's own code for the hashes
        from app.store.models import audits_table as A

        audit_id = s.execute(A.insert().returning(A.c.id), [values]).scalar_one()
        content = chain.audit_content({**values, "round_id": row.round_id, "jurisdiction": row.jurisdiction})
        chain.append(s, SOURCE, "audit", int(audit_id), content)
    report = verify(db)
    assert not report.ok
    (problem,) = [
        p for p in report.problems if p.what == f"audit 2 of round {row.round_id} ({row.jurisdiction})"
    ]
    assert problem.kind == "modified"
    assert "it cites re-audit 'RA-doesnotexist', which does not exist" in problem.detail
    assert "is not the one engine" in problem.detail


def test_verify_goes_on_from_its_checkpoint_and_a_rewrite_below_it_is_named(
    db: Database,  # noqa: F811
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    submit_session(db, _records(20, 5))
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("BJAUDIT_SIGNING_KEY_FILE", str(tmp_path / "key.pem"))
    monkeypatch.setenv("BJAUDIT_WITNESS", str(tmp_path / "witness"))
    get_settings.cache_clear()
    state = str(tmp_path / "state.json")
    try:
        assert cli(["verify", "--source", SOURCE, "--state", state]) == 0
        assert "20 entries, head 20" in capsys.readouterr().out
        transparency.configure(get_settings())
        assert transparency.PUBLISHER is not None
        transparency.PUBLISHER.publish_now(db)
        submit_session(db, _records(7, 6))
        transparency.PUBLISHER.publish_now(db)
        assert sorted(p.name for p in (tmp_path / "witness" / SOURCE).iterdir()) == [
            "000000000020.json",
            "000000000027.json",
        ]
        assert (
            cli(["verify", "--source", SOURCE, "--state", state, "--witness", str(tmp_path / "witness")]) == 0
        )
        out = capsys.readouterr().out
        assert "7 entries (after entry 20, verified before)" in out, out
        assert out.count("consistent with the log") == 2, out
        # The owner rewrites entry 3's round and every hash after it (test_integrity's _rewrite_from): the incremental
        # walk sees the chain no longer holds what it verified; the witness sees the published heads are not kept.
        from tests.integration.test_integrity import _rewrite_from

        _rewrite_from(engine, 3)
        witness = ["--witness", str(tmp_path / "witness")]
        assert cli(["verify", "--source", SOURCE, "--state", state, *witness]) == 1
        out = capsys.readouterr().out
        assert "it was rewritten since" in out, out
        assert cli(["verify", "--source", SOURCE, "--state", state, "--full", *witness]) == 1
        out = capsys.readouterr().out
        assert out.count("NOT CONSISTENT") == 2, out
    finally:
        transparency.PUBLISHER = None
        get_settings.cache_clear()


def _backdate(engine: Engine, seq: int, by: timedelta) -> None:
    """As the owner: move round entry ``seq``'s received_at back, its entry recomputed so that the chain links (it is
    the last entry)."""
    last = entry_of(engine, seq)
    with engine.begin() as conn:
        row = (
            conn.execute(
                text("SELECT * FROM rounds WHERE id = :id").columns(
                    played_at=UTCDateTime(), received_at=UTCDateTime()
                ),
                {"id": last.ref_id},
            )
            .one()
            ._mapping
        )
    backdated = row["received_at"] - by
    with engine.begin() as conn:
        conn.execute(R.update().where(R.c.id == last.ref_id).values(received_at=backdated))
    new = {**row, "received_at": backdated, "record_sha256": hashlib.sha256(row["record"]).hexdigest()}
    digest = chain.content_digest(chain.round_content(new))
    linked = chain.link(entry_of(engine, seq - 1).hash, digest)
    owner(
        engine,
        "UPDATE chain_entries SET digest = :d, hash = :h WHERE source = :s AND seq = :q",
        "UPDATE chain_heads SET hash = :h WHERE source = :s",
        d=digest,
        h=linked,
        s=SOURCE,
        q=seq,
    )


def test_a_backdated_round_appended_by_the_owner_is_named(db: Database, engine: Engine) -> None:  # noqa: F811
    """Issue 20, P1: a round whose received_at is earlier than that of the round appended before it, its entry
    recomputed by the owner so that the chain links."""
    submit_session(db, _records(6, 7))
    _backdate(engine, 6, timedelta(days=1))
    report = verify(db)
    assert [(p.seq, p.kind) for p in report.problems] == [(6, "modified")], report.to_dict()
    assert "before the round appended ahead of it" in report.problems[0].detail


def test_a_round_appended_after_a_published_head_but_dated_before_it_is_named_by_the_witness(
    db: Database,  # noqa: F811
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 20, P1: the owner appends a round at the tail after a head was published, dated before it."""
    submit_session(db, _records(8, 8))
    witness = tmp_path / "witness"
    publisher = transparency.Publisher(str(tmp_path / "key.pem"), [str(witness)])
    publisher.publish_now(db)
    submit_session(db, _records(1, 9))
    _backdate(engine, 9, timedelta(minutes=30))
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("BJAUDIT_SIGNING_KEY_FILE", str(tmp_path / "key.pem"))
    get_settings.cache_clear()
    try:
        assert cli(["verify", "--source", SOURCE, "--witness", str(witness)]) == 1
    finally:
        get_settings.cache_clear()
    out = capsys.readouterr().out
    assert "head of 8 entries: consistent with the log" in out, out
    assert "witness: entry 9: inserted: round " in out and "but not in it: appended afterwards" in out, out


@pytest.mark.postgres
def test_the_application_role_cannot_raise_a_keys_scopes_nor_rewrite_batch_results(
    app_role: str,  # noqa: F811
    db: Database,  # noqa: F811
    engine: Engine,
    database_url: str,
) -> None:
    """Issue 20, P6: the application role could UPDATE any column of api_keys (turn a read key into an admin key) and
    rewrite batch_results, which are outside the chain. It may now only revoke a key and append results."""
    from tests.integration.test_integrity import upload
    from tests.keys import make_key

    as_app = Database.from_settings(Settings(database_url=app_role))
    try:
        upload(as_app, _records(6, 12))
    finally:
        as_app.dispose()
    make_key(database_url, SOURCE, ("read",))
    conninfo = str(libpq_url(app_role))
    for statement in (
        "UPDATE api_keys SET scopes = 'admin read submit'",
        "UPDATE api_keys SET source = NULL",
        "UPDATE batch_results SET outcome = 'stored' WHERE false",
        "DELETE FROM batch_results WHERE false",
        "TRUNCATE batch_results",
    ):
        with (
            psycopg.connect(conninfo, autocommit=True) as conn,
            pytest.raises(psycopg.errors.InsufficientPrivilege),
        ):
            conn.execute(statement)
    with psycopg.connect(conninfo, autocommit=True) as conn:  # what the service does: revoke
        conn.execute("UPDATE api_keys SET revoked_at = now() WHERE false")
    owner(engine, f"GRANT ALL ON batch_results TO {make_url(app_role).username}")  # a careless grant
    with (
        psycopg.connect(conninfo, autocommit=True) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege) as no,
    ):
        conn.execute("UPDATE batch_results SET outcome = 'stored' WHERE false")
    assert "is append-only" in str(no.value)


def test_a_head_signed_for_a_proof_is_published_to_the_witness_too(
    db: Database,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A witness must hold every head the service gave out: one signed on demand (a proof, an export) between two
    publications, with no entry after it, was never published (the publisher only published heads it signed)."""
    submit_session(db, _records(3, 13))
    publisher = transparency.Publisher(str(tmp_path / "key.pem"), [str(tmp_path / "witness")])
    key = integrity.load_signing_key(tmp_path / "key.pem")
    with db.session() as s:
        given = transparency.sign_head(s, SOURCE, key)  # as GET /v1/rounds/{id}/proof does
    assert [d["seq"] for d in publisher.publish_now(db)] == [3]
    assert orjson.loads((tmp_path / "witness" / SOURCE / "000000000003.json").read_bytes()) == given
    assert publisher.publish_now(db) == []  # published once
