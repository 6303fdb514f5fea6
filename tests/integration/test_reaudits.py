"""Re-audits against a real database (SQLite and PostgreSQL): every audit kept, the latest searched and reported,
the changes between two audits, an interrupted re-audit resumed without doubling, and who may ask for one.

The change is made the way it happens in a casino: a table's registered elections are corrected (the rule card
said the dealer hits soft 17, the registration said stands), so the round's finding was a false alarm; the
re-audit, by the corrected registration, withdraws it. Expectations are from N.J.A.C. 13:69F-2.12(b)1 (the dealer
stands on soft 17 unless the table elects to hit) and the spec's audit result, written before running the code.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from app.config import Settings
from app.store.db import Database
from app.synth.generator import generate_rounds
from app.usecases import auditing, integrity, reaudits
from tests.integration.test_table_elections import register, soft_17_round, submit
from tests.keys import as_source

JSON = {"Content-Type": "application/json"}
SOFT_17 = "13:69F-2.12(b)1"
PLAYED = "2026-12-01T21:00:00-05:00"
FROM = "2026-12-01T00:00:00-05:00"


@pytest.fixture
def settings(database_url: str) -> Settings:
    # The in-process runner on both databases: the re-audit's chunks run in this process.
    return Settings(database_url=database_url, batch_runner="inline", embedded_workers=0)


def reaudit(
    client: TestClient, body: dict[str, Any], headers: dict[str, str] | None = None
) -> dict[str, Any]:
    resp = client.post("/v1/reaudit", content=json.dumps(body), headers={**JSON, **(headers or {})})
    assert resp.status_code == 202, resp.text
    assert resp.headers["location"] == resp.json()["location"]
    return dict(resp.json())


def finished(client: TestClient, reaudit_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        resp = client.get(f"/v1/reaudit/{reaudit_id}", headers=headers or {})
        assert resp.status_code == 200, resp.text
        status = dict(resp.json())
        if status["state"] == "done":
            return status
        assert time.monotonic() < deadline, status
        time.sleep(0.05)


def corrected_table(client: TestClient) -> None:
    """BJ21 registered as standing on soft 17, a round where the dealer drew on 6+A (a finding), then the
    registration corrected to hitting soft 17 (the round was legal)."""
    first = register(client, FROM, {"dealer_soft_17": "stand"}, reason="opening card")
    assert first.status_code == 201, first.text
    audit = submit(client, soft_17_round("R-1", PLAYED))
    assert [f["rule"] for f in audit["findings"]] == [SOFT_17]
    fixed = register(
        client, FROM, {"dealer_soft_17": "hit"}, reason="the card said H17", supersedes=first.json()["id"]
    )
    assert fixed.status_code == 201, fixed.text


def test_a_reaudit_keeps_both_audits_and_the_lookup_shows_what_changed(client: TestClient) -> None:
    corrected_table(client)
    started = reaudit(client, {"table": "BJ21", "reason": "registration corrected"})
    assert started["round_count"] == 1
    status = finished(client, started["reaudit_id"])
    assert status["counts"] == {"rounds": 1, "audited": 1, "changed": 1, "unchanged": 0, "unreadable": 0}
    assert status["reason"] == "registration corrected"
    assert status["scope"] == {"source": "default", "table": "BJ21"}

    got = client.get("/v1/rounds/R-1").json()
    assert got["audit_no"] == 2
    assert got["audit"]["verdict"] == "compliant" and got["audit"]["findings"] == []
    first, second = got["audits"]
    assert (first["audit_no"], first["verdict"], first["finding_count"], first["changes"]) == (
        1,
        "violations",
        1,
        None,
    )
    assert (second["audit_no"], second["verdict"], second["finding_count"]) == (2, "compliant", 0)
    assert second["reaudit_id"] == started["reaudit_id"]
    assert [f["rule"] for f in second["changes"]["removed"]] == [SOFT_17]
    assert second["changes"]["added"] == [] and second["changes"]["changed"] == []
    assert second["chain_seq"] > first["chain_seq"]
    assert SOFT_17 in got["rules"]  # the withdrawn finding's rule is still explained

    one = client.get("/v1/rounds/R-1/audits/1").json()
    assert one["verdict"] == "violations" and one["elections_source"] == "registered"
    two = client.get("/v1/rounds/R-1/audits/2").json()
    assert two == got["audit"] and two["elections_registration"] != one["elections_registration"]
    missing = client.get("/v1/rounds/R-1/audits/3")
    assert missing.status_code == 404 and "has no audit 3" in missing.json()["detail"]


def test_the_evidence_packet_of_a_reaudited_round_reruns_each_audit_by_its_own_registration(
    client: TestClient,
) -> None:
    """R-1's first audit was made by the table's first registration (stand on soft 17: a finding), its re-audit by
    the corrected one (hit: none). Its packet holds both registrations, each naming its elections_id, and this
    engine makes each audit again from the record and that audit's rules; before, the packet held only the last
    registration and its check called the first audit one the engine does not make."""
    from app.cli.integrity import replay_offline
    from app.evidence import packet

    corrected_table(client)
    finished(client, reaudit(client, {"table": "BJ21", "reason": "registration corrected"})["reaudit_id"])
    got = client.get("/v1/rounds/R-1/evidence")
    assert got.status_code == 200, got.text
    doc = got.json()
    audits = [e for e in doc["entries"] if e["kind"] in ("round", "audit")]
    registrations = [e for e in doc["entries"] if e["kind"] == "registration"]
    assert [a["content"]["elections_id"] for a in audits] == [r["elections_id"] for r in registrations]
    assert len({r["elections_id"] for r in registrations}) == 2
    problems, checked = packet.check(doc, None, replay_offline)
    assert problems == [], problems
    assert any("makes the same audit (2 audit(s) compared)" in line for line in checked), checked

    # The first registration taken out of the packet: its audit cannot be re-run, and the check says so.
    first = registrations[0]
    doc["entries"] = [e for e in doc["entries"] if e is not first and e != first]
    problems, _ = packet.check(doc, None, replay_offline)
    assert problems == [
        f"round entry {audits[0]['seq']}: it was audited by registration {first['elections_id']}, which the packet "
        "does not hold: it cannot be re-run"
    ]


def test_search_and_reports_read_the_latest_audit(client: TestClient) -> None:
    corrected_table(client)
    assert [r["round_id"] for r in client.get("/v1/rounds?verdict=violations").json()["items"]] == ["R-1"]
    assert [r["round_id"] for r in client.get(f"/v1/rounds?rule={SOFT_17}").json()["items"]] == ["R-1"]
    finished(client, reaudit(client, {"reason": "registration corrected"})["reaudit_id"])

    assert client.get("/v1/rounds?verdict=violations").json()["items"] == []
    assert client.get(f"/v1/rounds?rule={SOFT_17}").json()["items"] == []
    (item,) = client.get("/v1/rounds?verdict=compliant").json()["items"]
    assert (item["round_id"], item["verdict"], item["finding_count"]) == ("R-1", "compliant", 0)
    report = client.get("/v1/reports/summary?group_by=rule").json()
    assert report["totals"]["findings"] == 0 and report["totals"]["rounds_with_findings"] == 0
    assert report["totals"]["rounds"] == 1


def test_the_same_result_is_not_stored_again(client: TestClient, engine: Engine) -> None:
    corrected_table(client)
    finished(client, reaudit(client, {"reason": "first"})["reaudit_id"])
    again = finished(client, reaudit(client, {"reason": "again, same engine"})["reaudit_id"])
    assert again["counts"]["changed"] == 0 and again["counts"]["unchanged"] == 1
    assert client.get("/v1/rounds/R-1").json()["audit_no"] == 2
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM audits")).scalar_one() == 1


def test_reaudits_are_in_the_chain_and_verify(client: TestClient, engine: Engine, settings: Settings) -> None:
    corrected_table(client)
    finished(client, reaudit(client, {"reason": "registration corrected"})["reaudit_id"])
    report = client.get("/v1/integrity").json()
    assert report["ok"] is True, report
    with engine.connect() as conn:
        kinds = [r[0] for r in conn.execute(text("SELECT kind FROM chain_entries ORDER BY seq"))]
    assert kinds == ["registration", "round", "registration", "audit"]

    # A re-audit's stored audit changed behind the service's back (as the owner: the trigger lets it) is found.
    with engine.begin() as conn:
        conn.execute(text("UPDATE audits SET verdict = 'violations'"))
    db = Database.from_settings(settings)
    try:
        with db.reading() as s:
            (bad,) = integrity.verify(s, "default")
    finally:
        db.dispose()
    assert [(p.kind, p.what) for p in bad.problems] == [("modified", "audit 2 of round R-1 (US-NJ)")]


def test_an_interrupted_reaudit_resumes_without_doubling(
    client: TestClient, engine: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    for doc in generate_rounds(23, 5):
        submit(client, json.dumps(doc).encode())
    db = Database.from_settings(settings)
    try:
        with db.session() as s:
            started = reaudits.start(s, reaudits.Scope("default"), "test", "engine 9.9", chunk_rounds=5)
        assert len(started.chunks) == 5
        monkeypatch.setattr(
            auditing, "ENGINE_VERSION", "9.9.9"
        )  # every audit now differs: each round changes

        # Chunk 0 done; chunk 1 dies at its last statement (its transaction is rolled back whole).
        assert reaudits.process_chunk(db, *started.chunks[0]) is True
        real = reaudits.chain.append_links

        def crash(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the worker was killed")

        monkeypatch.setattr(reaudits.chain, "append_links", crash)
        with pytest.raises(RuntimeError):
            reaudits.process_chunk(db, *started.chunks[1])
        monkeypatch.setattr(reaudits.chain, "append_links", real)
        with db.reading() as s:
            assert reaudits.status(s, started.reaudit_id)["counts"]["audited"] == 5
            assert reaudits.pending_chunks(s) == started.chunks[1:]

        # Resumed (as a restarted runner does: every undone chunk), and one chunk run twice.
        with db.reading() as s:
            todo = reaudits.pending_chunks(s)
        for ref in todo:
            assert reaudits.process_chunk(db, *ref) is True
        assert reaudits.process_chunk(db, *started.chunks[1]) is False
        with db.reading() as s:
            status = reaudits.status(s, started.reaudit_id)
            (report,) = integrity.verify(s, "default")
    finally:
        db.dispose()
    assert status["state"] == "done"
    assert status["counts"] == {"rounds": 23, "audited": 23, "changed": 23, "unchanged": 0, "unreadable": 0}
    with engine.connect() as conn:
        per_round = conn.execute(
            text("SELECT round_pk, count(*), max(audit_no) FROM audits GROUP BY round_pk")
        ).all()
        stored_findings = conn.execute(text("SELECT count(*) FROM findings WHERE audit_no = 2")).scalar_one()
        audited_findings = conn.execute(text("SELECT sum(finding_count) FROM audits")).scalar_one()
    assert len(per_round) == 23 and {(n, top) for _, n, top in per_round} == {(1, 2)}
    assert stored_findings == audited_findings
    # Every re-audit (engine "9.9.9", this build while patched) is re-run and matches; the rounds' first audits name
    # engine 0.2.0, which this build no longer is: each is named as not verified, none as modified.
    assert {(p.kind, p.detail) for p in report.problems} == {
        ("unverifiable", "its audit names engine '0.2.0'; this build is engine '9.9.9' and cannot re-run it")
    }
    assert report.problem_count == 23


def test_a_reaudit_of_one_source_touches_only_its_rounds(client: TestClient) -> None:
    submit(client, soft_17_round("A-1", PLAYED, rules={"dealer_soft_17": "stand"}))
    other = as_source(client, "casino-b")
    submit(client, soft_17_round("B-1", PLAYED, rules={"dealer_soft_17": "stand"}), source="casino-b")
    started = reaudit(client, {"reason": "ours only"}, headers=other)
    assert started["round_count"] == 1
    finished(client, started["reaudit_id"], headers=other)
    # Not visible to another source's key, nor startable by a key that only reads.
    assert client.get(f"/v1/reaudit/{started['reaudit_id']}").status_code == 404
    reader = as_source(client, "casino-b", scopes=["read"])
    resp = client.post("/v1/reaudit", content=b'{"reason": "x"}', headers={**JSON, **reader})
    assert resp.status_code == 403


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        (b"{}", "/reason"),
        (b'{"reason": "x", "from": "2026-12-01"}', "/from"),
        (b'{"reason": "x", "from": "2026-12-02T00:00:00Z", "to": "2026-12-01T00:00:00Z"}', "/to"),
        (b'{"reason": "x", "reason": "y"}', "/reason"),
        (b'{"reason": "x", "jurisdiction": "US-NV"}', "/jurisdiction"),
        (b'{"reason": "x", "tables": "BJ1"}', "/tables"),
        (b'{"reason": "x", "table": "BJ\\u00001"}', "/table"),
        (b'{"reason": "x\\u0000"}', "/reason"),
    ],
)
def test_a_request_that_cannot_be_used_is_refused_and_nothing_starts(
    client: TestClient, engine: Engine, body: bytes, pointer: str
) -> None:
    resp = client.post("/v1/reaudit", content=body, headers=JSON)
    assert resp.status_code == 422, resp.text
    assert pointer in [e["pointer"] for e in resp.json()["errors"]]
    with Session(engine) as s:
        assert s.execute(text("SELECT count(*) FROM reaudits")).scalar_one() == 0


def test_the_command_line_reaudits_resumes_and_reports(client: TestClient, database_url: str) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    corrected_table(client)
    for doc in generate_rounds(6, 3):
        submit(client, json.dumps(doc).encode())
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "DATABASE_URL": database_url}

    def bjaudit(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app.cli", "reaudit", *argv],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    refused = bjaudit("--table", "BJ21")
    assert refused.returncode == 2 and "--reason" in refused.stderr
    bad = bjaudit("--from", "yesterday", "--reason", "x")
    assert bad.returncode == 2 and "'yesterday': give a date" in bad.stderr
    # out of range once in UTC (as the API's ?from= refuses it), and no chunks at all: refused, not a traceback
    early = bjaudit("--from", "0001-01-01T00:00:00+01:00", "--reason", "x")
    assert early.returncode == 2 and "give a date" in early.stderr and "Traceback" not in early.stderr
    for n in ("0", "-3"):
        chunks = bjaudit("--chunk-rounds", n, "--reason", "x")
        assert chunks.returncode == 2 and "1 or more" in chunks.stderr, chunks.stderr

    done = bjaudit(
        "--table", "BJ21", "--from", "2026-12-01", "--reason", "card corrected", "--chunk-rounds", "1"
    )
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["state"] == "done" and status["counts"]["changed"] == 1, status
    assert status["scope"] == {"table": "BJ21", "played_from": "2026-12-01T00:00:00Z"}
    assert "1/1 rounds" in done.stderr
    assert client.get("/v1/rounds/R-1").json()["audit_no"] == 2
    assert (
        client.get(f"/v1/reaudit/{status['reaudit_id']}").status_code == 404
    )  # every source's: not default's

    again = bjaudit("--resume", status["reaudit_id"])
    assert again.returncode == 0 and json.loads(again.stdout)["counts"] == status["counts"]
    unknown = bjaudit("--resume", "ra_000000000000000000000000")
    assert unknown.returncode == 2 and "No re-audit" in unknown.stderr


def test_the_round_page_shows_every_audit_and_the_finding_withdrawn(
    client: TestClient, settings: Settings
) -> None:
    from tests.html_tree import parse

    corrected_table(client)
    finished(client, reaudit(client, {"reason": "registration corrected"})["reaudit_id"])
    # The workbench, logged in with the same key (the login form's CSRF token first).
    login = parse(client.get("/ui/login").text)
    csrf = login.one("form", id="login-form").one("input", attrs={"name": "csrf"}).get("value")
    key = client.headers["authorization"].removeprefix("Bearer ")
    done = client.post("/ui/login", data={"key": key, "csrf": csrf, "next": "/ui"}, follow_redirects=False)
    assert done.status_code == 303, done.text
    page = parse(client.get("/ui/rounds/R-1").text)
    audits = page.one("section", id="audits").all("li", cls="audit")
    assert [a.get("data-audit-no") for a in audits] == ["1", "2"]
    assert "violations" in audits[0].text and "compliant" in audits[1].text
    (removed,) = audits[1].all(cls="removed")
    assert removed.get("data-rule") == SOFT_17
    assert audits[1].all(cls="added") == []
    # The page's findings are the latest audit's: none at any event.
    assert page.one("ol", id="timeline").all(cls="finding") == []
