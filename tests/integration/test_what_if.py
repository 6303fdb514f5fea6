"""What-if audits over HTTP (SQLite and PostgreSQL): ``POST /v1/audit?ruleset=`` audits a round under a named
ruleset whatever its played_at, ``?elections=`` under table elections other than its own; the result is marked
(``ruleset_in_force``, ``elections_what_if``) and nothing is stored. ``GET /v1/rulesets`` lists what may be named."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.integration.test_table_elections import soft_17_round as elections_round

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"
NZ_1994 = "NZ Gazette 1994 No 112 Blackjack Rules"
NJ_2024 = "US-NJ 13:69F as of 2024-09-16"
S17 = ("13:69F-2.12(b)1", 6)
STORED = ("rounds", "findings", "chain_entries")


def nz_round(examples: dict[str, bytes], played_at: str) -> bytes:
    """The NZ example round (insurance over half the wager: a 9.3 finding), played at ``played_at``."""
    doc = json.loads(examples["nz-insurance-over-half"])
    doc["played_at"] = played_at
    return json.dumps(doc).encode()


def soft_17_round(rules: dict[str, Any] | None) -> bytes:
    """An NJ round where the dealer, on a soft 17 (6 + A), draws: a 13:69F-2.12(b)1 finding where the table
    stands on soft 17, compliant where it hits (the builder of the elections tests)."""
    return elections_round("WI-S17", "2026-11-20T21:00:00-05:00", rules=rules, table="BJ12")


def what_if(client: TestClient, body: bytes, **params: str) -> Any:
    return client.post("/v1/audit", params=params, content=body, headers=JSON)


def audited(resp: Any) -> dict[str, Any]:
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


def fired(audit: dict[str, Any]) -> list[tuple[str, int]]:
    return [(f["rule"], f["event"]) for f in audit["findings"]]


def problem(resp: Any, parameter: str) -> dict[str, Any]:
    assert resp.status_code == 422, resp.text
    assert resp.headers["content-type"] == PROBLEM
    body: dict[str, Any] = resp.json()
    assert body["type"] == "urn:bjaudit:problem:query-invalid"
    assert body["errors"], body
    assert {(e["in"], e["parameter"]) for e in body["errors"]} == {("query", parameter)}, body["errors"]
    return body


@pytest.fixture
def counts(rows: Callable[[str], int]) -> Callable[[], dict[str, int]]:
    return lambda: {table: rows(table) for table in STORED}


# --- a ruleset not in force --------------------------------------------------------------------------------------


def test_a_2026_nz_round_is_audited_under_the_1994_rules_marked_and_not_stored(
    client: TestClient, examples: dict[str, bytes], counts: Callable[[], dict[str, int]]
) -> None:
    body = nz_round(examples, "2026-03-04T21:00:00+13:00")
    before = counts()
    # No NZ ruleset we hold is in force in 2026: the plain dry run (and a submission) refuse to guess.
    refused = client.post("/v1/audit", content=body, headers=JSON)
    assert refused.status_code == 422 and refused.json()["type"] == "urn:bjaudit:problem:round-not-auditable"

    result = audited(what_if(client, body, ruleset=NZ_1994))
    assert result["ruleset"] == NZ_1994
    assert result["ruleset_in_force"] is False
    assert "elections_what_if" not in result
    assert (result["verdict"], [f["rule"] for f in result["findings"]]) == ("violations", ["9.3"])
    # by its alias: the same audit
    assert audited(what_if(client, body, ruleset="NZ@1994-10-31")) == result
    assert counts() == before


def test_the_same_round_under_the_ruleset_in_force_is_marked_true_and_audited_as_a_submission_would_be(
    client: TestClient, examples: dict[str, bytes], counts: Callable[[], dict[str, int]]
) -> None:
    body = nz_round(examples, "1995-03-04T21:00:00+12:00")
    plain = audited(client.post("/v1/audit", content=body, headers=JSON))
    assert "ruleset_in_force" not in plain  # a plain dry run answers what a submission stores, unmarked

    result = audited(what_if(client, body, ruleset=NZ_1994))
    assert result.pop("ruleset_in_force") is True
    assert result == plain
    # the marks go where they are read: after the ruleset, and the rest in the audit's own order
    assert list(audited(what_if(client, body, ruleset=NZ_1994)))[:5] == [
        "round_id",
        "jurisdiction",
        "verdict",
        "ruleset",
        "ruleset_in_force",
    ]
    assert counts() == {"rounds": 0, "findings": 0, "chain_entries": 0}


def test_a_what_if_leaves_stored_rounds_and_their_audits_alone(
    client: TestClient, examples: dict[str, bytes], counts: Callable[[], dict[str, int]]
) -> None:
    body = nz_round(examples, "1995-03-04T21:00:00+12:00")
    stored = client.post("/v1/rounds", content=body, headers=JSON)
    assert stored.status_code == 201, stored.text
    assert "ruleset_in_force" not in stored.json()
    before = counts()
    looked_up = client.get("/v1/rounds/EX-NZ-0001").content

    audited(what_if(client, body, ruleset=NZ_1994, elections='{"min_chip": 500}'))
    assert counts() == before
    assert client.get("/v1/rounds/EX-NZ-0001").content == looked_up
    # A submission takes no what-if: the parameter is refused, never silently ignored.
    resp = client.post("/v1/rounds", params={"ruleset": NZ_1994}, content=body, headers=JSON)
    assert resp.status_code == 422 and resp.json()["errors"][0]["parameter"] == "ruleset"
    assert counts() == before


# --- table elections ---------------------------------------------------------------------------------------------


def test_an_nj_round_under_both_soft_17_elections(
    client: TestClient, counts: Callable[[], dict[str, int]]
) -> None:
    body = soft_17_round({"decks": 6, "dealer_soft_17": "stand"})
    plain = audited(client.post("/v1/audit", content=body, headers=JSON))
    assert fired(plain) == [S17]

    stand = audited(what_if(client, body, elections='{"dealer_soft_17": "stand"}'))
    hit = audited(what_if(client, body, elections='{"dealer_soft_17": "hit"}'))
    assert (stand["verdict"], fired(stand)) == ("violations", [S17])
    assert (hit["verdict"], fired(hit)) == ("compliant", [])
    for result, s17 in ((stand, "stand"), (hit, "hit")):
        assert result["ruleset"] == NJ_2024 and result["ruleset_in_force"] is True
        assert result["elections_what_if"] == {"dealer_soft_17": s17}
        assert result["elections_source"] == "record"  # where the elections not overridden came from
        assert result["elections"] == {**plain["elections"], "dealer_soft_17": s17}
    # with the ruleset named as well: the same audits
    named = audited(what_if(client, body, ruleset=NJ_2024, elections='{"dealer_soft_17": "hit"}'))
    assert named == hit
    assert counts() == {"rounds": 0, "findings": 0, "chain_entries": 0}


def test_what_if_elections_override_registered_ones_too(client: TestClient) -> None:
    reg = client.put(
        "/v1/tables/BJ12/elections",
        content=json.dumps(
            {
                "jurisdiction": "US-NJ",
                "effective_from": "2026-11-01T00:00:00-05:00",
                "rules": {"decks": 6, "dealer_soft_17": "stand"},
                "reason": "November rule card",
            }
        ),
        headers=JSON,
    )
    assert reg.status_code == 201, reg.text
    body = soft_17_round(None)
    registered = audited(client.post("/v1/audit", content=body, headers=JSON))
    assert (registered["elections_source"], fired(registered)) == ("registered", [S17])

    hit = audited(what_if(client, body, elections='{"dealer_soft_17": "hit"}'))
    assert (hit["elections_source"], hit["elections_registration"]) == ("registered", reg.json()["id"])
    assert (hit["verdict"], hit["elections"]["dealer_soft_17"]) == ("compliant", "hit")
    assert hit["elections_what_if"] == {"dealer_soft_17": "hit"}


# --- errors ------------------------------------------------------------------------------------------------------


def test_an_unknown_ruleset_is_a_422_listing_the_known_ones(
    client: TestClient, examples: dict[str, bytes]
) -> None:
    body = problem(what_if(client, examples["nj-compliant-double"], ruleset="NZ 1994"), "ruleset")
    assert NZ_1994 in body["detail"] and NJ_2024 in body["detail"]
    assert "NZ@1994-10-31" in body["detail"] and "US-NJ@2024-09-16" in body["detail"]
    assert body["known_rulesets"] == [NZ_1994, NJ_2024]


def test_a_ruleset_of_another_jurisdiction_is_a_422(client: TestClient, examples: dict[str, bytes]) -> None:
    body = problem(what_if(client, examples["nj-compliant-double"], ruleset=NZ_1994), "ruleset")
    assert body["round_id"] == "EX-NJ-0001"
    assert body["errors"][0]["detail"] == "a NZ ruleset, for a US-NJ round"
    problem(
        what_if(client, nz_round(examples, "2026-03-04T21:00:00+13:00"), ruleset="US-NJ@2024-09-16"),
        "ruleset",
    )


@pytest.mark.parametrize(
    ("elections", "pointer", "detail"),
    [
        ('{"dealer_soft_17": "sometimes"}', "/dealer_soft_17", "'sometimes' is not one of 'stand', 'hit'"),
        ('{"decks": 9}', "/decks", "must be at most 8, not 9"),
        ('{"colour": "red"}', "/colour", "unknown rule election 'colour'"),
        ('{"decks": 6, "decks": 8}', "/decks", "key 'decks' is duplicated"),
        ('["hit"]', "", "the elections must be a JSON object, not an array"),
        ("dealer_soft_17=hit", "", "malformed JSON"),
    ],
)
def test_bad_elections_are_a_422_naming_the_parameter_and_the_pointer(
    client: TestClient, examples: dict[str, bytes], elections: str, pointer: str, detail: str
) -> None:
    body = problem(what_if(client, examples["nj-compliant-double"], elections=elections), "elections")
    assert body["errors"][0]["pointer"] == pointer
    assert body["errors"][0]["detail"].startswith(detail), body["errors"]


def test_elections_alone_need_a_ruleset_in_force(client: TestClient, examples: dict[str, bytes]) -> None:
    body = nz_round(examples, "2026-03-04T21:00:00+13:00")
    resp = what_if(client, body, elections='{"decks": 6}')
    assert resp.status_code == 422 and resp.json()["type"] == "urn:bjaudit:problem:round-not-auditable"


def test_a_what_if_needs_the_submit_scope(app: FastAPI, engine: Engine, examples: dict[str, bytes]) -> None:
    with TestClient(app, raise_server_exceptions=False) as anon:
        resp = anon.post(
            "/v1/audit", params={"ruleset": NZ_1994}, content=examples["nz-insurance-over-half"], headers=JSON
        )
        assert resp.status_code == 401


# --- the rulesets ------------------------------------------------------------------------------------------------


def test_the_rulesets_are_listed_publicly_with_their_dates(app: FastAPI, engine: Engine) -> None:
    with TestClient(app, raise_server_exceptions=False) as anon:
        resp = anon.get("/v1/rulesets")
    assert resp.status_code == 200, resp.text
    assert resp.json() == {
        "rulesets": [
            {
                "jurisdiction": "NZ",
                "name": NZ_1994,
                "alias": "NZ@1994-10-31",
                "effective": "1994-10-31",
                "until": "1998-01-28",
            },
            {
                "jurisdiction": "US-NJ",
                "name": NJ_2024,
                "alias": "US-NJ@2024-09-16",
                "effective": "2024-09-16",
                "until": None,
            },
        ]
    }
