"""Odd paths, queries and cursors get a 422 problem, never a 500 (found by a review on 2026-12-02)."""

from __future__ import annotations

import base64

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
