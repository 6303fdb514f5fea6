"""Odd paths, queries and cursors get a 422 problem, never a 500 (found by a review on 2026-12-02)."""

from __future__ import annotations

import base64
import re

import pytest
from fastapi.testclient import TestClient


@pytest.mark.parametrize(
    "url",
    [
        "/v1/rounds/%00",
        "/v1/rounds/a%00b/record",
        "/v1/rounds?table=%00",
        "/v1/rounds?rule=%00",
        "/v1/rounds/x?jurisdiction=%00",
        "/v1/tables/ab%00/elections",
        "/v1/batches/%00",
        "/v1/batches/%00/results",
    ],
)
def test_a_nul_character_in_the_path_or_query_is_refused(client: TestClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize(
    "query",
    [
        {"from": "9999-12-31T23:00:00-05:00"},
        {"to": "0001-01-01T00:00:00+05:00"},
        {"cursor": base64.urlsafe_b64encode(b"2026-12-02T02:14:05+00:00|99999999999999999999").decode()},
        {"cursor": base64.urlsafe_b64encode(b"9999-12-31T23:00:00-05:00|5").decode()},
    ],
)
def test_out_of_range_dates_and_tampered_cursors_are_refused(
    client: TestClient, query: dict[str, str]
) -> None:
    r = client.get("/v1/rounds", params=query)
    assert r.status_code == 422, r.text
    assert r.json()["status"] == 422


@pytest.mark.parametrize(
    ("query", "unknown", "hint"),
    [
        ("table_id=BJ12", "table_id", "did you mean 'table'?"),
        ("verdit=compliant", "verdit", "did you mean 'verdict'?"),
        ("table=BJ12&Rule=8.2", "Rule", "did you mean 'rule'?"),
        ("zzz=1&table=BJ12", "zzz", ""),
    ],
)
def test_an_unknown_search_parameter_is_named_not_ignored(
    client: TestClient, query: str, unknown: str, hint: str
) -> None:
    r = client.get("/v1/rounds?" + query)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    takes = "GET /v1/rounds takes corrected, cursor, dealer, from, jurisdiction, limit, rule, shoe, source, table, to, verdict, voided"
    assert r.json()["errors"] == [
        {
            "in": "query",
            "parameter": unknown,
            "detail": f"unknown parameter; {hint + ' ' if hint else ''}{takes}",
        }
    ]


@pytest.mark.parametrize(
    ("method", "url", "allow"),
    [
        ("PATCH", "/v1/rounds", "GET, POST"),
        ("DELETE", "/v1/tables/BJ1/elections", "GET, PUT"),
        ("PUT", "/v1/keys", "GET, POST"),
        ("POST", "/v1/rounds/R-1", "GET"),
        ("POST", "/healthz", "GET"),
        ("POST", "/docs/assets/swagger-ui.css", "GET, HEAD"),
    ],
)
def test_a_method_not_allowed_names_every_method_of_the_path(
    client: TestClient, method: str, url: str, allow: str
) -> None:
    """Found by schemathesis: starlette's 405 named only the first route's methods (``Allow: POST`` on
    /v1/rounds), where RFC 9110 wants every method the resource supports."""
    r = client.request(method, url)
    assert r.status_code == 405, r.text
    assert r.headers["allow"] == allow
    assert r.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize(
    ("method", "url", "body", "pointer"),
    [
        ("POST", "/v1/keys", {"scopes": ["read"], "label": "a\x00b"}, "label"),
        (
            "PUT",
            "/v1/tables/BJ1/elections",
            {
                "jurisdiction": "NZ",
                "effective_from": "2026-12-01T00:00:00Z",
                "rules": {"decks": 6, "dealer_soft_17": "stand"},
                "reason": "rule card\x00",
            },
            "/reason",
        ),
    ],
)
def test_a_nul_character_in_a_stored_text_of_a_body_is_refused(
    client: TestClient, method: str, url: str, body: dict[str, object], pointer: str
) -> None:
    """Found by schemathesis: PostgreSQL text cannot hold NUL, so these were a 500 there (stored on SQLite)."""
    r = client.request(method, url, json=body)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert [e.get("parameter", e.get("pointer")) for e in r.json()["errors"]] == [pointer]


@pytest.mark.parametrize(
    ("body", "why"),
    [(b"\xdf\x88\xff\xfe.\x0b", "not UTF-8 text"), (b"[" * 100_000 + b"]" * 100_000, "nested too deeply")],
    ids=["not-utf8", "too-deep"],
)
def test_a_key_request_that_is_not_json_text_is_refused_like_any_other_body(
    client: TestClient, body: bytes, why: str
) -> None:
    """Found by schemathesis: FastAPI answered these 400 "There was an error parsing the body", which POST /v1/keys
    does not declare (a syntax error was already 422, as on every route that takes a JSON body)."""
    r = client.post("/v1/keys", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"] == [{"in": "body", "parameter": "", "detail": f"malformed JSON: {why}"}]


def _routes(client: TestClient) -> list[tuple[str, str]]:
    document = client.get("/openapi.json").json()
    return [(method.upper(), path) for path, item in document["paths"].items() for method in item]


def test_every_route_refuses_a_query_parameter_it_does_not_take(client: TestClient) -> None:
    """Over every route of the OpenAPI document, so that a route added later is covered too."""
    routes = _routes(client)
    assert len(routes) >= 10
    for method, path in routes:
        url = path.replace("{", "").replace("}", "") + "?no_such_parameter=1"
        r = client.request(method, url, content=b"{}", headers={"Content-Type": "application/json"})
        assert r.status_code == 422, (method, path, r.status_code, r.text)
        errors = r.json()["errors"]
        assert errors[0]["in"] == "query" and errors[0]["parameter"] == "no_such_parameter", (
            method,
            path,
            errors,
        )
        assert f"{method} {path} takes" in errors[0]["detail"]


def test_the_api_docs_page_needs_no_internet(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sources and all(s.startswith("/") for s in sources), sources  # nothing from another host
    for path in sources:
        assert client.get(path).status_code == 200, path
    assert "/openapi.json" in page.text and client.get("/openapi.json").status_code == 200
