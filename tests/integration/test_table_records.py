"""Records as real tables write them (round-v1 section 2.3, issue 19), on SQLite and PostgreSQL: a voided round's
reason and a finding's correction at the table are stored in their own columns (single submissions here, batches in
tests/batch, re-audits below), searched (?voided=, ?corrected=) and counted by the summary report (voided rounds,
corrections, what they left owed, the void and error rates), which equals a count made by hand over the stored
audits; the integrity chain checks the columns against the audits, and chains stored before the migration still
verify after it.

Expectations are from the spec: a void's reason in the audit's ``void``; a corrected settlement's finding with
``corrected_by``, ``corrected_actual`` and ``amount_delta`` = expected - corrected_actual (what is still owed).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, insert, select, text
from sqlalchemy.orm import Session

from app.config import Settings, sqlalchemy_url
from app.store import chain
from app.store.migrate import alembic_config, upgrade_head
from app.store.models import audits_table, findings_table, rounds_table
from app.store.rounds import finding_rows
from app.usecases import integrity, offline
from app.usecases import rounds as round_cases
from tests.integration.test_reports import overpaid
from tests.integration.test_table_elections import register, soft_17_round
from tests.keys import as_source
from tests.spec23 import burned_in_play, corrected, voided

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"
WIN_PAYS = "uncited:win-pays-1-to-1"
BURNED = "uncited:card-burned-during-play"
AFTER_VOID = "uncited:play-after-void"


@pytest.fixture
def settings(database_url: str) -> Settings:
    # Re-audits run their chunks in this process (the records are read by this process's parser).
    return Settings(database_url=database_url, batch_runner="inline", embedded_workers=0)


def submit(client: TestClient, body: bytes, source: str | None = None) -> dict[str, Any]:
    headers = {**JSON, **(as_source(client, source) if source else {})}
    resp = client.post("/v1/rounds", content=body, headers=headers)
    assert resp.status_code == 201, resp.text
    audit: dict[str, Any] = resp.json()
    return audit


def findings(audit: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (f["rule"], f["event"], f.get("amount_delta"), f.get("corrected_by"), f.get("corrected_actual"))
        for f in audit["findings"]
    ]


@pytest.fixture
def stored(client: TestClient) -> None:
    """Six NJ rounds of source ``default``: two voided (one with a card dealt after the void), two corrected at the
    table (rightly, and 200 short), a card burned in play, a win overpaid by 500; and one voided round of
    ``casino-x``."""
    expected = [
        # (record, void reason, findings as (rule, event, amount_delta, corrected_by, corrected_actual))
        (
            voided(
                "V1", "2026-12-01T21:00:00-05:00", table="T1", dealer_id="D1", shoe_id="S1"
            ),  # 12-02 02:00Z
            "misdeal",
            [],
        ),
        (
            voided(
                "V2", "2026-12-02T10:00:00Z", "card_exposed", dealt_after=True, table="T2", dealer_id="D1"
            ),
            "card_exposed",
            [(AFTER_VOID, 5, None, None, None)],
        ),
        (
            corrected("C1", "2026-12-01T10:00:00-05:00", 1000, table="T1", dealer_id="D2", shoe_id="S1"),
            None,
            [(WIN_PAYS, 7, 0, 8, 1000)],  # paid 500 of 1000, corrected to 1000: nothing still owed
        ),
        (
            corrected("C2", "2026-12-02T12:00:00Z", 800, table="T2", dealer_id="D2"),
            None,
            [(WIN_PAYS, 7, 200, 8, 800)],  # corrected to 800: 200 still owed
        ),
        (
            burned_in_play("B1", "2026-12-02T13:00:00Z", table="T1", dealer_id="D1"),
            None,
            [(BURNED, 2, None, None, None)],
        ),
        (
            overpaid("P1", "2026-12-03T01:00:00Z", table="T2", dealer="D3"),
            None,
            [(WIN_PAYS, 6, -500, None, None)],
        ),
    ]
    for body, reason, found in expected:
        audit = submit(client, body)
        assert (audit.get("void") or {}).get("reason") == reason
        assert findings(audit) == found
    submit(
        client, voided("X1", "2026-12-01T21:00:00-05:00", "equipment", table="T1", dealer_id="D1"), "casino-x"
    )


def test_the_void_and_the_corrections_are_stored_in_their_columns(
    client: TestClient, stored: None, engine: Engine
) -> None:
    with engine.connect() as conn:
        voids = dict(
            conn.execute(text("SELECT round_id, void_reason FROM rounds WHERE source = 'default'")).all()
        )
        rows = conn.execute(
            text(
                "SELECT r.round_id, f.rule, f.event_index, f.amount_delta, f.corrected_by, f.corrected_actual "
                "FROM findings f JOIN rounds r ON r.id = f.round_pk WHERE f.source = 'default' ORDER BY r.round_id"
            )
        ).all()
    assert voids == {"V1": "misdeal", "V2": "card_exposed", "C1": None, "C2": None, "B1": None, "P1": None}
    assert [tuple(r) for r in rows] == [
        ("B1", BURNED, 2, None, None, None),
        ("C1", WIN_PAYS, 7, 0, 8, 1000),
        ("C2", WIN_PAYS, 7, 200, 8, 800),
        ("P1", WIN_PAYS, 6, -500, None, None),
        ("V2", AFTER_VOID, 5, None, None, None),
    ]
    # The columns are derived from the audits: the chain vouches for them through the audits, and verify checks them.
    for source in ("default", "casino-x"):
        resp = client.get(
            "/v1/integrity", params={"source": source}, headers=as_source(client, None, ["read"])
        )
        assert resp.status_code == 200 and resp.json()["ok"], resp.text


def ids(client: TestClient, headers: dict[str, str] | None = None, **params: str) -> list[str]:
    resp = client.get("/v1/rounds", params=params, headers=headers or {})
    assert resp.status_code == 200, resp.text
    return [item["round_id"] for item in resp.json()["items"]]


def test_search_by_corrections_at_the_table_and_voided_rounds(client: TestClient, stored: None) -> None:
    # Newest played first: P1 12-03 01:00, B1 12-02 13:00, C2 12:00, V2 10:00, V1 02:00, C1 12-01 15:00 (UTC).
    assert ids(client, corrected="true") == ["C2", "C1"]
    assert ids(client, corrected="false") == [
        "P1",
        "B1",
        "V2",
    ]  # rounds with a finding the table did not correct
    assert ids(client, corrected="true", rule=WIN_PAYS) == ["C2", "C1"]
    assert ids(client, corrected="false", rule=WIN_PAYS) == ["P1"]
    assert ids(client, corrected="true", rule=BURNED) == []  # one finding must be both
    assert ids(client, corrected="true", dealer="D2", to="2026-12-02") == ["C1"]
    assert ids(client, voided="true") == ["V2", "V1"]
    assert ids(client, voided="false") == ["P1", "B1", "C2", "C1"]
    assert ids(client, voided="true", verdict="compliant") == ["V1"]
    assert ids(client, voided="true", rule=AFTER_VOID) == ["V2"]
    assert ids(client, voided="true", corrected="true") == []
    items = client.get("/v1/rounds", params={"voided": "true"}).json()["items"]
    assert [i["void_reason"] for i in items] == ["card_exposed", "misdeal"]
    assert {i["void_reason"] for i in client.get("/v1/rounds?voided=false").json()["items"]} == {None}
    # A key of every source: casino-x's voided round too.
    assert sorted(ids(client, as_source(client, None, ["read"]), voided="true")) == ["V1", "V2", "X1"]
    # Paginated as any search.
    first = client.get("/v1/rounds", params={"voided": "false", "limit": 3}).json()
    rest = client.get(
        "/v1/rounds", params={"voided": "false", "limit": 3, "cursor": first["next_cursor"]}
    ).json()
    assert [i["round_id"] for i in first["items"] + rest["items"]] == ["P1", "B1", "C2", "C1"]


@pytest.mark.parametrize("parameter", ["corrected", "voided"])
def test_a_bad_corrected_or_voided_is_a_422_naming_it(client: TestClient, parameter: str) -> None:
    resp = client.get("/v1/rounds", params={parameter: "maybe"})
    assert resp.status_code == 422 and resp.headers["content-type"] == PROBLEM
    assert [e["parameter"] for e in resp.json()["errors"]] == [parameter]


def test_the_openapi_document_describes_the_filters_and_the_columns(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    params = {p["name"]: p for p in doc["paths"]["/v1/rounds"]["get"]["parameters"]}
    for name in ("corrected", "voided"):
        assert params[name]["schema"]["anyOf"][0]["type"] == "boolean", params[name]
        assert params[name]["description"]
    assert "corrected_by" in params["corrected"]["description"]
    schemas = doc["components"]["schemas"]
    for name in ("SummaryGroup", "SummaryTotals"):
        props = schemas[name]["properties"]
        for column in (
            "voided_rounds",
            "corrected_findings",
            "corrected_still_owed",
            "void_rate",
            "error_rate",
        ):
            assert props[column]["description"], (name, column)
    assert "void_reason" in schemas["RoundSummary"]["properties"]
    assert {"corrected_by", "corrected_actual"} <= set(schemas["Finding"]["properties"])
    assert "void" in schemas["AuditResult"]["properties"]


# --- the report ----------------------------------------------------------------------------------------------------

FIGURES = (
    "rounds",
    "rounds_with_findings",
    "findings",
    "owed_to_players",
    "owed_by_players",
    "voided_rounds",
    "corrected_findings",
    "corrected_still_owed",
)


def summary(client: TestClient, headers: dict[str, str] | None = None, **params: str) -> dict[str, Any]:
    resp = client.get("/v1/reports/summary", params=params, headers=headers or {})
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


def by_hand(engine: Engine, group_by: str, source: str | None = None) -> dict[str, Any]:
    """The summary counted in Python over every stored round's latest audit (its JSON, not the new columns)."""
    with engine.connect() as conn:
        rounds = conn.execute(select(rounds_table)).all()
        later = conn.execute(select(audits_table)).all()
    latest: dict[int, tuple[int, str]] = {r.id: (1, r.audit) for r in rounds}
    for a in later:
        if a.audit_no > latest[a.round_pk][0]:
            latest[a.round_pk] = (a.audit_no, a.audit)
    groups: dict[Any, dict[str, Any]] = defaultdict(lambda: dict.fromkeys(FIGURES, 0))
    totals = dict.fromkeys(FIGURES, 0)
    for r in rounds:
        if source is not None and r.source != source:
            continue
        audit = orjson.loads(latest[r.id][1])
        found = audit["findings"]
        deltas = [f["amount_delta"] for f in found if f.get("amount_delta") is not None]
        fixed = [f for f in found if f.get("corrected_by") is not None]
        figures = {
            "rounds": 1,
            "rounds_with_findings": int(bool(found)),
            "findings": len(found),
            "owed_to_players": sum(d for d in deltas if d > 0),
            "owed_by_players": -sum(d for d in deltas if d < 0),
            "voided_rounds": int("void" in audit),
            "corrected_findings": len(fixed),
            "corrected_still_owed": sum(f["amount_delta"] for f in fixed),
        }
        for k, v in figures.items():
            totals[k] += v
        if group_by == "rule":
            for rule in {f["rule"] for f in found}:
                mine = [f for f in found if f["rule"] == rule]
                g = groups[rule]
                g["rounds"] += 1
                g["rounds_with_findings"] += 1
                g["findings"] += len(mine)
                g["owed_to_players"] += sum(
                    f["amount_delta"] for f in mine if (f.get("amount_delta") or 0) > 0
                )
                g["owed_by_players"] -= sum(
                    f["amount_delta"] for f in mine if (f.get("amount_delta") or 0) < 0
                )
                g["voided_rounds"] += int("void" in audit)
                g["corrected_findings"] += sum(f.get("corrected_by") is not None for f in mine)
                g["corrected_still_owed"] += sum(
                    f["amount_delta"] for f in mine if f.get("corrected_by") is not None
                )
            continue
        key = {
            "table": r.table_id,
            "dealer": r.dealer_id,
            "shoe": r.shoe_id,
            "day": r.played_at.astimezone(UTC).date().isoformat(),
        }[group_by]
        for k, v in figures.items():
            groups[key][k] += v
    with_rates = group_by != "rule"
    return {
        "groups": [
            {
                "key": key,
                **g,
                "void_rate": _rate(g["voided_rounds"], g["rounds"]) if with_rates else None,
                "error_rate": _rate(g["rounds_with_findings"], g["rounds"]) if with_rates else None,
            }
            for key, g in sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))
        ],
        "totals": {
            **totals,
            "void_rate": _rate(totals["voided_rounds"], totals["rounds"]),
            "error_rate": _rate(totals["rounds_with_findings"], totals["rounds"]),
        },
    }


def test_the_report_by_dealer_as_a_pit_manager_reads_it(client: TestClient, stored: None) -> None:
    report = summary(client, group_by="dealer")
    got = {g["key"]: g for g in report["groups"]}
    # D1: V1, V2 (voided; V2 with a card dealt after the void), B1 (a burn in play).
    assert [got["D1"][c] for c in FIGURES] == [3, 2, 2, 0, 0, 2, 0, 0]
    assert (got["D1"]["void_rate"], got["D1"]["error_rate"]) == (0.666667, 0.666667)
    # D2: C1 and C2, both corrected at the table; C2's correction left 200 owed.
    assert [got["D2"][c] for c in FIGURES] == [2, 2, 2, 200, 0, 0, 2, 200]
    assert (got["D2"]["void_rate"], got["D2"]["error_rate"]) == (0.0, 1.0)
    assert [got["D3"][c] for c in FIGURES] == [1, 1, 1, 0, 500, 0, 0, 0]
    assert [report["totals"][c] for c in FIGURES] == [6, 5, 5, 200, 500, 2, 2, 200]
    assert (report["totals"]["void_rate"], report["totals"]["error_rate"]) == (0.333333, 0.833333)


def test_by_rule_a_rules_voided_rounds_and_corrections_and_no_rates(client: TestClient, stored: None) -> None:
    got = {g["key"]: g for g in summary(client, group_by="rule")["groups"]}
    assert [got[WIN_PAYS][c] for c in FIGURES] == [3, 3, 3, 200, 500, 0, 2, 200]
    assert [got[AFTER_VOID][c] for c in FIGURES] == [1, 1, 1, 0, 0, 1, 0, 0]
    assert [got[BURNED][c] for c in FIGURES] == [1, 1, 1, 0, 0, 0, 0, 0]
    assert {(g["void_rate"], g["error_rate"]) for g in got.values()} == {(None, None)}


@pytest.mark.parametrize("group_by", ["rule", "table", "dealer", "shoe", "day"])
def test_the_report_equals_a_count_by_hand_over_the_stored_audits(
    client: TestClient, stored: None, engine: Engine, group_by: str
) -> None:
    report = summary(client, group_by=group_by)
    assert {k: report[k] for k in ("groups", "totals")} == by_hand(engine, group_by, "default")
    every = summary(client, as_source(client, None, ["read"]), group_by=group_by)
    assert {k: every[k] for k in ("groups", "totals")} == by_hand(engine, group_by)
    # The CSV says the same, a rate that is null an empty cell.
    resp = client.get("/v1/reports/summary", params={"group_by": group_by, "format": "csv"})
    lines = resp.content.decode().split("\r\n")
    assert lines[0].endswith(",voided_rounds,corrected_findings,corrected_still_owed,void_rate,error_rate")
    total = lines[-2].split(",")
    t = report["totals"]
    assert total[-5:] == [
        str(t["voided_rounds"]),
        str(t["corrected_findings"]),
        "200",
        "0.333333",
        "0.833333",
    ]


# --- re-audits -----------------------------------------------------------------------------------------------------


def test_a_reaudit_stores_its_own_void_and_corrections(client: TestClient, engine: Engine) -> None:
    """BJ21 registered as standing on soft 17; the dealer drew on 6+A. R-1's settlement (a loss) was corrected to a
    win, right if the table stands (a corrected finding, nothing owed); R-2 was voided after the draw. The
    registration is then corrected to hitting soft 17: the re-audit finds R-1's settlement right and its correction
    wrong (one finding at the correction, not corrected, 2000 owed by the player), R-2 voided still."""
    first = register(client, "2026-12-01T00:00:00-05:00", {"dealer_soft_17": "stand"})
    assert first.status_code == 201, first.text
    r1 = json.loads(soft_17_round("R-1", "2026-12-01T21:00:00-05:00", player=("TH", "8D")))
    r1["events"].append(
        {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 1000, "corrects": 7}
    )
    r2 = json.loads(soft_17_round("R-2", "2026-12-01T21:05:00-05:00", player=("TH", "8D")))
    r2["events"][-1:] = [
        {"type": "void", "reason": "equipment"},
        {"type": "settle", "bet": "main", "hand": "1", "result": "void", "amount": 0},
    ]
    audit = submit(client, json.dumps(r1).encode())
    assert findings(audit)[1] == ("uncited:settlement-outcome", 7, 0, 8, 1000)
    assert submit(client, json.dumps(r2).encode())["void"] == {"event": 7, "reason": "equipment"}
    assert ids(client, corrected="true") == ["R-1"]
    fixed = register(
        client, "2026-12-01T00:00:00-05:00", {"dealer_soft_17": "hit"}, supersedes=first.json()["id"]
    )
    assert fixed.status_code == 201, fixed.text
    resp = client.post("/v1/reaudit", content=json.dumps({"reason": "the card said H17"}), headers=JSON)
    assert resp.status_code == 202, resp.text
    for _ in range(600):
        status = client.get(f"/v1/reaudit/{resp.json()['reaudit_id']}").json()
        if status["state"] == "done":
            break
    assert status["counts"]["changed"] == 2, status

    with engine.connect() as conn:
        later = conn.execute(
            text(
                "SELECT r.round_id, a.void_reason FROM audits a JOIN rounds r ON r.id = a.round_pk ORDER BY 1"
            )
        ).all()
        rows = conn.execute(
            text(
                "SELECT f.audit_no, f.event_index, f.amount_delta, f.corrected_by, f.corrected_actual FROM findings f "
                "JOIN rounds r ON r.id = f.round_pk WHERE r.round_id = 'R-1' AND f.rule = 'uncited:settlement-outcome' "
                "ORDER BY f.audit_no"
            )
        ).all()
    assert [tuple(r) for r in later] == [("R-1", None), ("R-2", "equipment")]
    assert [tuple(r) for r in rows] == [(1, 7, 0, 8, 1000), (2, 8, -2000, None, None)]
    assert ids(client, corrected="true") == []
    assert ids(client, corrected="false") == ["R-1"]
    assert ids(client, voided="true") == ["R-2"]
    report = summary(client, group_by="table")
    assert {k: report[k] for k in ("groups", "totals")} == by_hand(engine, "table", "default")
    assert report["totals"]["voided_rounds"] == 1 and report["totals"]["corrected_findings"] == 0
    resp = client.get("/v1/integrity")
    assert resp.json()["ok"], resp.text


# --- the integrity chain and the migration -----------------------------------------------------------------------


def test_verify_names_a_void_or_a_correction_column_changed_behind_its_back(
    client: TestClient, stored: None, engine: Engine
) -> None:
    with engine.begin() as conn:  # as the owner (on PostgreSQL the service's own role is refused the UPDATE)
        conn.execute(text("UPDATE rounds SET void_reason = NULL WHERE round_id = 'V1'"))
        conn.execute(text("UPDATE findings SET corrected_actual = 1000 WHERE amount_delta = 200"))
    report = client.get("/v1/integrity").json()
    assert not report["ok"]
    details = {p["what"]: p["detail"] for p in report["problems"]}
    assert "its void_reason column says None, its audit 'misdeal'" in details["round V1 (US-NJ)"]
    assert "findings row 0 disagrees with its audit (corrected_actual)" in details["round C2 (US-NJ)"]


BEFORE = "c4e6a8b0d2f4"
"""The revision before the columns (re-audits)."""


@pytest.fixture
def old_database(database_url: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of its own, at the revision before the columns."""
    from alembic import command

    if database_url.startswith("postgresql"):
        url = request.getfixturevalue("postgres_database")("old")
    else:
        url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    command.upgrade(alembic_config(url), BEFORE)
    yield url


def test_chains_stored_before_the_migration_verify_after_it_with_the_columns_filled(
    old_database: str,
) -> None:
    """Rounds stored as the service stored them before the columns (a voided round and a corrected one, as if the
    wire format had read them before this revision reached the database; and one with neither), each appended to
    the chain in its transaction: after ``alembic upgrade head`` the columns say what the audits say, and the chain
    verifies as before (what an entry hashes did not change)."""
    engine = create_engine(sqlalchemy_url(old_database))
    old_round = {c.name for c in rounds_table.c} - {"id", "void_reason"}
    received = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
    try:
        with Session(engine) as s, s.begin():
            for n, body in enumerate(
                (
                    voided("V1", "2026-12-01T21:00:00-05:00"),
                    corrected("C2", "2026-12-02T12:00:00Z", 800),
                    overpaid("P1", "2026-12-03T01:00:00Z", table="T2"),
                ),
                1,
            ):
                done = offline.audit_read(offline.read_round(body), None)
                row = round_cases.round_row(done, body, hashlib.sha256(body).hexdigest(), "default", received)
                values = {k: v for k, v in row.items() if k in old_round} | {"id": n}
                pk = s.execute(insert(rounds_table).values(values).returning(rounds_table.c.id)).scalar_one()
                found = [
                    {k: v for k, v in f.items() if not k.startswith("corrected_")}
                    for f in finding_rows(pk, done.result["findings"], "default", done.round)
                ]
                if found:
                    s.execute(insert(findings_table), found)
                chain.append(s, "default", "round", pk, chain.round_content(row))
        upgrade_head(old_database)
        with engine.connect() as conn:
            voids = dict(conn.execute(text("SELECT round_id, void_reason FROM rounds")).all())
            rows = conn.execute(
                text(
                    # (in the order stored: findings lost their own id to the partitions of issue 21)
                    "SELECT event_index, amount_delta, corrected_by, corrected_actual FROM findings "
                    "ORDER BY round_pk, audit_no, seq"
                )
            ).all()
        assert voids == {"V1": "misdeal", "C2": None, "P1": None}
        assert [tuple(r) for r in rows] == [(7, 200, 8, 800), (6, -500, None, None)]
        with Session(engine) as s:
            (report,) = integrity.verify(s, "default")
        assert report.ok and report.entries == 3, report.to_dict()
    finally:
        engine.dispose()
