"""The summary report (GET /v1/reports/summary) and the search by dealer and shoe, on SQLite and PostgreSQL: rounds
with known findings and known amounts owed, then each grouping's groups and totals, JSON and CSV alike and equal to
a direct count over the tables; the date range and filters; one source never sees another's rounds; bad
parameters are 422 problems."""

from __future__ import annotations

import csv
import doctest
import importlib
import io
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from tests.integration.test_table_elections import soft_17_round
from tests.keys import as_source

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"
COLUMNS = ("rounds", "rounds_with_findings", "findings", "owed_to_players", "owed_by_players")
APART = ("voided_rounds", "corrected_findings", "corrected_still_owed")
RATES = ("void_rate", "error_rate")
EVERY_COLUMN = (*COLUMNS, *APART, *RATES)
STANDS = {"decks": 6, "dealer_soft_17": "stand"}
HITS = {"decks": 6, "dealer_soft_17": "hit"}


def dealt(
    round_id: str,
    played_at: str,
    *,
    table: str,
    dealer: str | None = None,
    shoe: str | None = None,
    rules: dict[str, Any] = STANDS,
    collected: int = 1000,
) -> bytes:
    """The dealer draws on a soft 17 and beats the player's 18, who loses ``collected`` of a 1000 wager. Where the
    table stands on soft 17 that is a 13:69F-2.12(b)1 finding at the draw (no money) and, at the settlement, judged
    against the dealer's 17, an uncited:settlement-outcome finding owing the player 1000 + ``collected`` (the win,
    and what was collected; round-v1 section 2.2)."""
    doc = json.loads(soft_17_round(round_id, played_at, rules=rules, table=table, player=("TH", "8D")))
    doc["events"][-1]["amount"] = collected
    if dealer is not None:
        doc["dealer_id"] = dealer
    if shoe is not None:
        doc["shoe_id"] = shoe
    return json.dumps(doc).encode()


def overpaid(round_id: str, played_at: str, *, table: str, dealer: str | None = None) -> bytes:
    """A win paid 1500 on a 1000 wager: an uncited:win-pays-1-to-1 finding, 500 owed by the player."""
    doc: dict[str, Any] = {
        "round_id": round_id,
        "jurisdiction": "US-NJ",
        "played_at": played_at,
        "table": {"id": table, "rules": {"decks": 6}},
        "seats": [{"seat": 1, "wager": 1000}],
        "events": [
            {"type": "deal", "to": "1", "card": "TH"},
            {"type": "deal", "to": "dealer", "card": "9C"},
            {"type": "deal", "to": "1", "card": "8D"},
            {"type": "deal", "to": "dealer", "card": "8S", "face": "down"},
            {"type": "stand", "hand": "1"},
            {"type": "reveal", "to": "dealer", "card": "8S"},
            {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 1500},
        ],
    }
    if dealer is not None:
        doc["dealer_id"] = dealer
    return json.dumps(doc).encode()


def submit(client: TestClient, body: bytes, source: str | None = None) -> dict[str, Any]:
    headers = {**JSON, **(as_source(client, source) if source else {})}
    resp = client.post("/v1/rounds", content=body, headers=headers)
    assert resp.status_code == 201, resp.text
    audit: dict[str, Any] = resp.json()
    return audit


@pytest.fixture
def stored(client: TestClient, examples: dict[str, bytes]) -> None:
    """Source ``default``: seven NJ rounds (seven findings: 6000 owed to players, 500 by them) and the two NZ
    examples; source ``casino-x``: one NJ round of its own, on the same table, dealer and shoe names."""
    owed = [
        # (round, its findings as (rule, amount_delta))
        (
            dealt("R1", "2026-12-01T21:00:00-05:00", table="BJ1", dealer="D1", shoe="S1"),  # 12-02 02:00Z
            [("13:69F-2.12(b)1", None), ("uncited:settlement-outcome", 2000)],
        ),
        (
            dealt("R2", "2026-12-01T10:00:00-05:00", table="BJ1", dealer="D2", shoe="S1", collected=500),
            [("13:69F-2.12(b)1", None), ("uncited:settlement-outcome", 1500)],
        ),
        (dealt("R3", "2026-12-02T10:00:00Z", table="BJ2", dealer="D1", shoe="S2", rules=HITS), []),
        (
            overpaid("R4", "2026-12-02T23:30:00-05:00", table="BJ2"),  # 12-03 04:30Z
            [("uncited:win-pays-1-to-1", -500)],
        ),
        # Played the evening of 2026-11-30 in New Jersey: 2026-12-01 03:10-03:15 UTC.
        (examples["nj-compliant-double"], []),  # EX-NJ-0001, BJ12
        (examples["nj-dealer-draws-on-hard-17"], [("13:69F-2.12(b)1", None)]),  # EX-NJ-0002, BJ12
        (examples["nj-double-then-dealer-blackjack"], [("19:47-2.10(b)", 2500)]),  # EX-NJ-0003, BJ07
    ]
    for body, findings in owed:
        audit = submit(client, body)
        assert [(f["rule"], f.get("amount_delta")) for f in audit["findings"]] == findings
    submit(client, examples["nz-insurance-over-half"])
    submit(client, examples["nz-blackjack-paid-before-dealer-second-card"])
    submit(
        client,
        dealt("X1", "2026-12-01T21:00:00-05:00", table="BJ1", dealer="D1", shoe="S1", collected=100),
        source="casino-x",
    )


def summary(client: TestClient, headers: dict[str, str] | None = None, **params: str) -> dict[str, Any]:
    resp = client.get("/v1/reports/summary", params=params, headers=headers or {})
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "application/json"
    body: dict[str, Any] = resp.json()
    return body


def groups(report: dict[str, Any]) -> dict[str | None, tuple[int, ...]]:
    return {g["key"]: tuple(g[c] for c in COLUMNS) for g in report["groups"]}


def totals(report: dict[str, Any]) -> tuple[int, ...]:
    return tuple(report["totals"][c] for c in COLUMNS)


def direct_count(engine: Engine, source: str, jurisdiction: str) -> tuple[int, ...]:
    """The totals counted straight from the tables, in Python."""
    with engine.connect() as conn:
        rounds = conn.execute(
            text("SELECT count(*) FROM rounds WHERE source = :s AND jurisdiction = :j"),
            {"s": source, "j": jurisdiction},
        ).scalar_one()
        found = conn.execute(
            text("SELECT round_pk, amount_delta FROM findings WHERE source = :s AND jurisdiction = :j"),
            {"s": source, "j": jurisdiction},
        ).all()
    deltas = [d for _, d in found if d is not None]
    return (
        rounds,
        len({pk for pk, _ in found}),
        len(found),
        sum(d for d in deltas if d > 0),
        -sum(d for d in deltas if d < 0),
    )


NJ_TOTALS = (7, 5, 7, 6000, 500)


def test_by_rule_the_groups_are_the_findings_rules(client: TestClient, stored: None) -> None:
    report = summary(client, group_by="rule", jurisdiction="US-NJ")
    assert report["group_by"] == "rule"
    assert (report["source"], report["jurisdiction"], report["from"], report["to"]) == (
        "default",
        "US-NJ",
        None,
        None,
    )
    assert groups(report) == {
        "13:69F-2.12(b)1": (3, 3, 3, 0, 0),  # R1, R2, EX-NJ-0002: the draw owes nothing, the settlement does
        "19:47-2.10(b)": (1, 1, 1, 2500, 0),
        "uncited:settlement-outcome": (2, 2, 2, 3500, 0),  # R1, R2
        "uncited:win-pays-1-to-1": (1, 1, 1, 0, 500),
    }
    assert list(groups(report)) == sorted(groups(report))
    # Totals: every round once (compliant ones too; R2, with findings under two rules, once).
    assert totals(report) == NJ_TOTALS


@pytest.mark.parametrize(
    ("group_by", "expected"),
    [
        (
            "table",
            {
                "BJ07": (1, 1, 1, 2500, 0),
                "BJ1": (2, 2, 4, 3500, 0),
                "BJ12": (2, 1, 1, 0, 0),
                "BJ2": (2, 1, 1, 0, 500),
            },
        ),
        ("dealer", {"D1": (2, 1, 2, 2000, 0), "D2": (1, 1, 2, 1500, 0), None: (4, 3, 3, 2500, 500)}),
        ("shoe", {"S1": (2, 2, 4, 3500, 0), "S2": (1, 0, 0, 0, 0), None: (4, 3, 3, 2500, 500)}),
        (
            "day",  # the UTC date of played_at: EX-NJ-* were played on 2026-11-30 in New Jersey
            {
                "2026-12-01": (4, 3, 4, 4000, 0),
                "2026-12-02": (2, 1, 2, 2000, 0),
                "2026-12-03": (1, 1, 1, 0, 500),
            },
        ),
    ],
)
def test_each_round_is_in_one_group_and_the_groups_add_up_to_the_totals(
    client: TestClient, stored: None, group_by: str, expected: dict[str | None, tuple[int, ...]]
) -> None:
    report = summary(client, group_by=group_by, jurisdiction="US-NJ")
    assert groups(report) == expected
    assert [g["key"] for g in report["groups"]] == list(expected)  # by key, null last
    assert totals(report) == NJ_TOTALS
    assert tuple(sum(g[i] for g in expected.values()) for i in range(len(COLUMNS))) == NJ_TOTALS


def cells(row: list[str]) -> list[int | float | None]:
    """A CSV row's figures as the JSON has them: integers, rates as decimals, an empty cell null."""
    return [None if v == "" else float(v) if "." in v else int(v) for v in row]


def csv_report(resp: Any) -> tuple[list[str], list[list[str]], list[str]]:
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "text/csv; charset=utf-8"
    assert resp.content.endswith(b"\r\n")
    header, *rows = list(csv.reader(io.StringIO(resp.content.decode("utf-8"))))
    assert [r[0] for r in rows] == ["group"] * (len(rows) - 1) + ["total"]
    return header, rows[:-1], rows[-1]


def test_json_csv_and_the_tables_agree(client: TestClient, stored: None, engine: Engine) -> None:
    direct = direct_count(engine, "default", "US-NJ")
    assert direct == NJ_TOTALS
    for group_by in ("rule", "table", "dealer", "shoe", "day"):
        as_json = summary(client, group_by=group_by, jurisdiction="US-NJ")
        assert totals(as_json) == direct
        resp = client.get(
            "/v1/reports/summary",
            params={"group_by": group_by, "jurisdiction": "US-NJ", "from": "2026-11-01", "to": "2026-12-04"},
            headers={"Accept": "text/csv"},
        )
        assert resp.headers["content-disposition"] == (
            f'attachment; filename="bjaudit-summary-by-{group_by}-from-2026-11-01-to-2026-12-04.csv"'
        )
        header, rows, total = csv_report(resp)
        assert header == ["row", group_by, *EVERY_COLUMN]
        assert [r[1] for r in rows] == [g["key"] or "" for g in as_json["groups"]]
        assert [tuple(cells(r[2:])) for r in rows] == [
            tuple(g[c] for c in EVERY_COLUMN) for g in as_json["groups"]
        ]
        assert total[1] == "" and tuple(cells(total[2:]))[: len(COLUMNS)] == direct
        assert cells(total[2:]) == [as_json["totals"][c] for c in EVERY_COLUMN]


def test_the_format_parameter_wins_over_accept(client: TestClient, stored: None) -> None:
    as_csv = client.get("/v1/reports/summary?group_by=day&format=csv")
    assert csv_report(as_csv)[0][1] == "day"
    assert as_csv.headers["content-disposition"] == 'attachment; filename="bjaudit-summary-by-day.csv"'
    assert "accept" in as_csv.headers["vary"].lower()
    forced = client.get("/v1/reports/summary?group_by=day&format=json", headers={"Accept": "text/csv"})
    assert forced.headers["content-type"] == "application/json"
    assert "content-disposition" not in forced.headers
    preferred = client.get(
        "/v1/reports/summary?group_by=day", headers={"Accept": "application/json;q=0.5, text/csv"}
    )
    assert preferred.headers["content-type"].startswith("text/csv")
    anything = client.get("/v1/reports/summary?group_by=day", headers={"Accept": "*/*"})
    assert anything.headers["content-type"] == "application/json"


def test_a_key_a_spreadsheet_would_run_is_defused_in_the_csv(client: TestClient) -> None:
    submit(client, overpaid("F1", "2026-12-01T12:00:00Z", table='=HYPERLINK("http://x","y")', dealer="+1"))
    report = summary(client, group_by="table")
    assert [g["key"] for g in report["groups"]] == ['=HYPERLINK("http://x","y")']
    _, rows, _ = csv_report(client.get("/v1/reports/summary?group_by=table&format=csv"))
    assert rows[0][1] == '\'=HYPERLINK("http://x","y")'
    _, rows, _ = csv_report(client.get("/v1/reports/summary?group_by=dealer&format=csv"))
    assert rows[0][1] == "'+1"


def test_the_date_range_and_the_jurisdiction(client: TestClient, stored: None) -> None:
    # from inclusive, to exclusive; a date is midnight UTC.
    report = summary(
        client, group_by="day", jurisdiction="US-NJ", **{"from": "2026-12-02", "to": "2026-12-03"}
    )
    assert groups(report) == {"2026-12-02": (2, 1, 2, 2000, 0)}
    assert (report["from"], report["to"]) == ("2026-12-02T00:00:00Z", "2026-12-03T00:00:00Z")
    assert totals(report) == (2, 1, 2, 2000, 0)
    # Midnight in New Jersey is 05:00 UTC: the examples played before it are out.
    report = summary(client, group_by="table", **{"from": "2026-12-01T00:00:00-05:00"})
    assert report["from"] == "2026-12-01T05:00:00Z"
    assert groups(report) == {"BJ1": (2, 2, 4, 3500, 0), "BJ2": (2, 1, 1, 0, 500)}
    # Without a jurisdiction, every one: the NZ examples (1995) too.
    assert totals(summary(client, group_by="rule")) == (9, 7, 9, 6000, 500)
    report = summary(client, group_by="rule", jurisdiction="NZ")
    assert groups(report) == {"8.2": (1, 1, 1, 0, 0), "9.3": (1, 1, 1, 0, 0)}
    assert totals(summary(client, group_by="day", **{"to": "2000-01-01"})) == (2, 2, 2, 0, 0)
    # Nothing in range: no groups, totals of zero.
    empty = summary(client, group_by="shoe", **{"from": "2030-01-01"})
    assert (empty["groups"], totals(empty)) == ([], (0, 0, 0, 0, 0))
    _, rows, total = csv_report(client.get("/v1/reports/summary?group_by=shoe&from=2030-01-01&format=csv"))
    assert (rows, total) == ([], ["total", "", *["0"] * 8, "", ""])  # no round: no rate


def test_a_key_of_one_source_reports_on_its_own_rounds_only(
    client: TestClient, stored: None, engine: Engine
) -> None:
    mine = summary(client, group_by="dealer", jurisdiction="US-NJ")
    assert groups(mine)["D1"] == (2, 1, 2, 2000, 0)  # not casino-x's D1 round
    theirs = summary(client, as_source(client, "casino-x", ["read"]), group_by="dealer")
    assert theirs["source"] == "casino-x"
    assert groups(theirs) == {"D1": (1, 1, 2, 1100, 0)}
    assert totals(theirs) == direct_count(engine, "casino-x", "US-NJ")
    resp = client.get("/v1/reports/summary?group_by=table&source=casino-x")
    assert resp.status_code == 403 and resp.headers["content-type"] == PROBLEM
    assert "reads only source 'default'" in resp.json()["detail"]
    csv_resp = client.get("/v1/reports/summary?group_by=table&source=casino-x&format=csv")
    assert csv_resp.status_code == 403
    # A key of every source: all of them, or the one it names.
    regulator = as_source(client, None, ["read"])
    every = summary(client, regulator, group_by="dealer", jurisdiction="US-NJ")
    assert every["source"] is None
    assert groups(every)["D1"] == (3, 2, 4, 3100, 0)
    assert totals(every) == (8, 6, 9, 7100, 500)
    assert totals(summary(client, regulator, group_by="day", source="casino-x")) == totals(theirs)


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("group_by=week", "group_by"),
        ("", "group_by"),
        ("group_by=table&format=xlsx", "format"),
        ("group_by=table&from=2026-12-01T00:00:00", "from"),
        ("group_by=table&to=yesterday", "to"),
        ("group_by=table&group=table", "group"),
        ("group_by=table&limit=0", "limit"),
        ("group_by=table&limit=10001", "limit"),
        ("group_by=table&cursor=not-a-cursor", "cursor"),
        # a cursor of a report by day (["day","2026-12-01"]) asked of a report by table
        ("group_by=table&cursor=WyJkYXkiLCIyMDI2LTEyLTAxIl0", "cursor"),
    ],
)
def test_unusable_parameters_are_422_problems(client: TestClient, query: str, parameter: str) -> None:
    for accept in ("application/json", "text/csv"):
        resp = client.get(f"/v1/reports/summary?{query}", headers={"Accept": accept})
        assert resp.status_code == 422, resp.text
        assert resp.headers["content-type"] == PROBLEM
        assert parameter in [e.get("parameter") for e in resp.json()["errors"]]


def test_the_openapi_document_declares_json_and_csv(client: TestClient) -> None:
    op = client.get("/openapi.json").json()["paths"]["/v1/reports/summary"]["get"]
    assert op["x-bjaudit-scopes"] == ["read"]
    ok = op["responses"]["200"]
    assert set(ok["content"]) == {"application/json", "text/csv"}
    assert ok["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/SummaryReport"}
    assert "Content-Disposition" in ok["headers"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]["SummaryGroup"]["properties"]
    assert "POSITIVE" in schema["owed_by_players"]["description"]


@pytest.mark.parametrize("module", ["app.usecases.reports", "app.api.reports"])
def test_docstring_examples(module: str) -> None:
    failed, tried = doctest.testmod(importlib.import_module(module))
    assert tried and not failed


# --- the search by dealer and shoe -------------------------------------------------------------------------------


def ids(client: TestClient, **params: str) -> list[str]:
    resp = client.get("/v1/rounds", params=params)
    assert resp.status_code == 200, resp.text
    return [item["round_id"] for item in resp.json()["items"]]


def test_search_by_dealer_and_shoe(client: TestClient, stored: None) -> None:
    assert ids(client, dealer="D1") == ["R3", "R1"]  # newest played first; casino-x's D1 round is not ours
    assert ids(client, dealer="D2") == ["R2"]
    assert ids(client, shoe="S1") == ["R1", "R2"]
    assert ids(client, dealer="D1", shoe="S1") == ["R1"]
    assert ids(client, dealer="D1", verdict="compliant") == ["R3"]
    assert ids(client, dealer="D2", rule="uncited:settlement-outcome") == ["R2"]
    assert ids(client, shoe="S2", rule="uncited:settlement-outcome") == []
    assert ids(client, dealer="nobody") == []
    assert ids(client, dealer="d1") == []  # ids are compared exactly
    first = client.get("/v1/rounds", params={"dealer": "D1", "limit": 1}).json()
    assert [i["round_id"] for i in first["items"]] == ["R3"]
    rest = client.get(
        "/v1/rounds", params={"dealer": "D1", "limit": 1, "cursor": first["next_cursor"]}
    ).json()
    assert [i["round_id"] for i in rest["items"]] == ["R1"] and rest["next_cursor"] is None
    regulator = as_source(client, None, ["read"])
    every = client.get("/v1/rounds", params={"dealer": "D1", "shoe": "S1"}, headers=regulator).json()
    assert sorted((i["source"], i["round_id"]) for i in every["items"]) == [
        ("casino-x", "X1"),
        ("default", "R1"),
    ]


# --- alerts acknowledged, and how long they waited (issue 22) ----------------------------------------------------


def _acknowledge_after(client: TestClient, engine: Engine, round_id: str, index: int, seconds: float) -> None:
    """Acknowledge finding ``index`` of round ``round_id`` (source default) through the API, then date the
    acknowledgement ``seconds`` after the round's receipt (the wait the report must find)."""
    from datetime import timedelta

    from sqlalchemy import select, update

    from app.store.models import acknowledgements_table as ACK
    from app.store.models import chain_entries_table as CE
    from app.store.models import rounds_table as R

    with engine.begin() as conn:
        pk, received, seq = conn.execute(
            select(R.c.id, R.c.received_at, CE.c.seq)
            .join(CE, (CE.c.ref_id == R.c.id) & (CE.c.kind == "round"))
            .where(R.c.round_id == round_id, R.c.source == "default")
        ).one()
    r = client.post(f"/v1/alerts/default:{seq}:{index}/acknowledgement", json={})
    assert r.status_code == 201, r.text
    with engine.begin() as conn:
        conn.execute(
            update(ACK)
            .where(ACK.c.round_pk == pk, ACK.c.finding_index == index)
            .values(acknowledged_at=received + timedelta(seconds=seconds))
        )


def test_alerts_acknowledged_and_their_waits_are_counted_by_hand(
    client: TestClient, stored: None, engine: Engine
) -> None:
    # Source default, New Jersey: seven alerts (R1 2, R2 2, R4 1, EX-NJ-0002 1, EX-NJ-0003 1); four acknowledged
    # after 12, 3, 40 and 7 s: waits 3, 7, 12, 40 -> median (7 + 12) / 2 = 9.5, p90 the 4th of 4 (nearest rank:
    # ceil(0.9 * 4) = 4) = 40, longest 40.
    for round_id, index, seconds in (("R1", 0, 12), ("R1", 1, 3), ("R4", 0, 40), ("EX-NJ-0003", 0, 7)):
        _acknowledge_after(client, engine, round_id, index, seconds)
    report = summary(client, group_by="table", jurisdiction="US-NJ")
    assert report["alerts"] == {
        "alerts": 7,
        "acknowledged": 4,
        "not_acknowledged": 3,
        "wait_seconds": {"median": 9.5, "p90": 40.0, "max": 40.0},
    }
    # Rounds played on 2026-12-02 (UTC): R1 (2 alerts, both acknowledged: 3 and 12 s) and R3 (none).
    day = summary(client, group_by="day", jurisdiction="US-NJ", **{"from": "2026-12-02", "to": "2026-12-03"})
    assert day["alerts"] == {
        "alerts": 2,
        "acknowledged": 2,
        "not_acknowledged": 0,
        "wait_seconds": {"median": 7.5, "p90": 12.0, "max": 12.0},
    }
    # The same whatever the grouping; another source sees its own alerts only (X1's two, none acknowledged).
    assert summary(client, jurisdiction="US-NJ", group_by="rule")["alerts"] == report["alerts"]
    other = summary(client, as_source(client, "casino-x"), group_by="dealer")
    assert other["alerts"] == {
        "alerts": 2,
        "acknowledged": 0,
        "not_acknowledged": 2,
        "wait_seconds": {"median": None, "p90": None, "max": None},
    }


def test_the_groups_come_a_page_at_a_time_with_the_whole_reports_totals(
    client: TestClient, stored: None
) -> None:
    whole = summary(client, group_by="table", limit="10000")
    assert whole["next_cursor"] is None and len(whole["groups"]) >= 3
    got: list[dict[str, Any]] = []
    params = {"group_by": "table", "limit": "2"}
    for _ in range(len(whole["groups"])):
        page = summary(client, **params)
        assert len(page["groups"]) <= 2
        assert (page["totals"], page["alerts"]) == (whole["totals"], whole["alerts"])
        got += page["groups"]
        if page["next_cursor"] is None:
            break
        params["cursor"] = page["next_cursor"]
    assert got == whole["groups"]
    # the CSV is every group, unless a page is asked for: then a Link to the next
    _, rows, _ = csv_report(client.get("/v1/reports/summary?group_by=table&format=csv"))
    assert [r[1] for r in rows] == [g["key"] for g in whole["groups"]]
    paged = client.get("/v1/reports/summary?group_by=table&format=csv&limit=1")
    _, rows, _ = csv_report(paged)
    assert [r[1] for r in rows] == [whole["groups"][0]["key"]]
    link = paged.headers["link"]
    assert link.endswith('>; rel="next"') and "limit=1" in link and "cursor=" in link
    _, rows, _ = csv_report(client.get(link[1 : link.index(">")]))
    assert [r[1] for r in rows] == [whole["groups"][1]["key"]]
