"""What an operator sees of the service (issue 8): a request ID and the security headers on every answer (errors
included), no server header, one JSON access-log line per request that never carries a secret, and Prometheus
metrics at /metrics that count requests, audits and findings and read the batches' progress from the database."""

from __future__ import annotations

import base64
import doctest
import hashlib
import io
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine, insert, text

import app.api.observability
import app.logs
from app.config import Settings
from app.logs import JsonFormatter, TextFormatter, request_id
from app.main import create_app
from app.store.db import Database
from app.store.models import batch_chunks_table, batches_table
from app.usecases import batches as batch_cases
from tests.live_service import live_service

JSON = {"Content-Type": "application/json"}
SECRET = "sekrit-value-123"
GENERATED_ID = re.compile(r"[0-9a-f]{32}")
RFC3339_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
API_CSP = "default-src 'none'; frame-ancestors 'none'"
COMMON = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-resource-policy": "same-origin",
}


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url, embedded_workers=0, metrics_access="public", max_body_bytes=4096
    )


@pytest.fixture
def log_lines() -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """The service's log lines so far, as the JSON formatter writes them (each must parse)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("bjaudit")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _secured(resp: Any, csp: str | None = API_CSP) -> None:
    headers = resp.headers
    for name, value in COMMON.items():
        assert headers.get(name) == value, (resp.request.url, name, dict(headers))
    if csp is not None:
        assert headers["content-security-policy"] == csp
    assert "server" not in headers
    assert re.fullmatch(r"[A-Za-z0-9._-]{1,64}", headers["x-request-id"])
    if resp.request.url.path.startswith("/v1/"):
        assert headers["cache-control"] == "no-store"


def _boom() -> None:
    raise RuntimeError("an unexpected failure (test)")


# --- headers ---------------------------------------------------------------------------------------------------


def test_every_answer_has_the_security_headers_and_a_request_id(
    app: FastAPI, client: TestClient, examples: dict[str, bytes]
) -> None:
    app.add_api_route("/test/boom", _boom)
    answers = {
        200: client.get("/healthz"),
        404: client.get("/no/such/route"),
        422: client.get("/v1/rounds", params={"verdit": "violations"}),
        413: client.post("/v1/rounds", content=b" " * 5000 + examples["nj-compliant-double"], headers=JSON),
        500: client.get("/test/boom"),
    }
    for status, resp in answers.items():
        assert resp.status_code == status, resp.text
        _secured(resp)
    assert answers[422].headers["cache-control"] == "no-store"
    assert "cache-control" not in answers[200].headers
    # Refused before any route: a NUL in the query, headers over the limit.
    nul = client.get("/v1/rounds?table=a%00b")
    assert nul.status_code == 422
    _secured(nul)
    big = client.get("/healthz", headers={"X-Padding": "x" * 20_000})
    assert big.status_code == 431
    _secured(big)


def test_a_route_own_cache_control_wins(app: FastAPI, client: TestClient) -> None:
    async def cached() -> Response:
        return Response(b"{}", media_type="application/json", headers={"Cache-Control": "max-age=60"})

    app.add_api_route("/v1/test-cached", cached)
    resp = client.get("/v1/test-cached")
    assert resp.status_code == 200
    assert resp.headers.get_list("cache-control") == ["max-age=60"]


def test_the_docs_page_may_run_its_own_script_and_load_its_own_files_only(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    _secured(page, csp=None)
    policy = dict((d.split(" ", 1) + [""])[:2] for d in page.headers["content-security-policy"].split("; "))
    assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
    assert policy["connect-src"] == "'self'"  # the OpenAPI document, and "Try it out"
    inline = re.findall(r"<script>(.*?)</script>", page.text, re.DOTALL)
    assert inline, page.text
    hashes = {f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in inline}
    assert set(policy["script-src"].split()) == {"'self'", *hashes}
    for url in re.findall(r'(?:src|href)="([^"]+)"', page.text):
        assert url.startswith("/"), url  # this origin only
        asset = client.get(url)
        assert asset.status_code == 200, url
        _secured(asset)
    assert client.get("/openapi.json").headers["content-security-policy"] == API_CSP


# --- request IDs -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("given", ["abc-123", "a.b_c-D", "x" * 64])
def test_a_good_request_id_is_echoed(client: TestClient, given: str) -> None:
    resp = client.get("/no/such/route", headers={"X-Request-ID": given})
    assert resp.headers["x-request-id"] == given
    assert resp.json()["request_id"] == given  # quoted in the problem too


@pytest.mark.parametrize("given", [None, "", "x" * 65, "has space", "semi;colon", "\u00fcn\u00ef".encode()])
def test_another_request_id_is_replaced(client: TestClient, given: str | bytes | None) -> None:
    headers = {} if given is None else {"X-Request-ID": given}
    first = client.get("/no/such/route", headers=headers)
    second = client.get("/no/such/route", headers=headers)
    assert GENERATED_ID.fullmatch(first.headers["x-request-id"])
    assert first.headers["x-request-id"] != second.headers["x-request-id"]
    assert first.json()["request_id"] == first.headers["x-request-id"]


# --- logs ------------------------------------------------------------------------------------------------------


def test_one_json_access_line_per_request_with_its_route_and_request_id(
    app: FastAPI, client: TestClient, log_lines: Callable[[], list[dict[str, Any]]]
) -> None:
    async def as_a_key(request: Request) -> Response:
        request.state.principal = SimpleNamespace(key_id="k-7", source="casino-a", label="front desk")
        return Response(status_code=204)

    app.add_api_route("/test/principal", as_a_key)
    resp = client.get(
        "/v1/rounds/EX-SECRET-ROUND-ID",
        params={"source": "casino-a", "token": SECRET},
        headers={"X-Request-ID": "trace-42", "Authorization": f"Bearer {SECRET}"},
    )
    assert resp.status_code in (401, 404, 422)
    client.get("/test/principal", headers={"X-Request-ID": "trace-43", "Cookie": f"s={SECRET}"})
    client.get("/no/such/route", headers={"X-Request-ID": "trace-44"})

    lines = log_lines()
    access = {line["request_id"]: line for line in lines if line["logger"] == "bjaudit.access"}
    first = access["trace-42"]
    assert first["level"] == "INFO" and RFC3339_UTC.fullmatch(first["time"])
    assert first["method"] == "GET" and first["status"] == resp.status_code
    assert first["path"] == "/v1/rounds/{round_id}"  # the route, not the raw path
    assert isinstance(first["duration_ms"], float) and first["duration_ms"] >= 0
    assert first["client"] == "testclient"
    assert "key_id" not in first
    assert first["message"] == f"GET /v1/rounds/{{round_id}} {resp.status_code}"
    assert access["trace-43"]["key_id"] == "k-7" and access["trace-43"]["source"] == "casino-a"
    assert "label" not in access["trace-43"]
    assert access["trace-44"]["path"] == "/no/such/route"  # no route: the raw path
    everything = json.dumps(lines)
    for never in (SECRET, "EX-SECRET-ROUND-ID", "casino-a&", "Bearer"):
        assert never not in everything, never


def test_an_unexpected_error_is_logged_with_the_request_id(
    app: FastAPI, client: TestClient, log_lines: Callable[[], list[dict[str, Any]]]
) -> None:
    app.add_api_route("/test/boom", _boom)
    resp = client.get("/test/boom", headers={"X-Request-ID": "boom-1"})
    assert resp.status_code == 500 and resp.json()["request_id"] == "boom-1"
    lines = [line for line in log_lines() if line.get("request_id") == "boom-1"]
    error = next(line for line in lines if line["level"] == "ERROR")
    assert "RuntimeError: an unexpected failure (test)" in error["exception"]
    assert resp.json()["error_id"] in error["message"]
    assert any(line["logger"] == "bjaudit.access" and line["status"] == 500 for line in lines)


def test_the_formatters_write_extra_fields_and_the_request_id() -> None:
    record = logging.LogRecord("bjaudit.x", logging.WARNING, __file__, 1, "chunk %s failed", ("7",), None)
    record.batch_id = "b1"
    token = request_id.set("r-1")
    try:
        line = json.loads(JsonFormatter().format(record))
        text_line = TextFormatter().format(record)
    finally:
        request_id.reset(token)
    assert line == {
        "time": line["time"],
        "level": "WARNING",
        "logger": "bjaudit.x",
        "message": "chunk 7 failed",
        "request_id": "r-1",
        "batch_id": "b1",
    }
    assert datetime.fromisoformat(line["time"]).tzinfo == UTC
    assert text_line.endswith("WARNING bjaudit.x: chunk 7 failed request_id=r-1 batch_id=b1")
    try:
        raise ValueError("bad")
    except ValueError:
        record.exc_info = __import__("sys").exc_info()
    assert "ValueError: bad" in json.loads(JsonFormatter().format(record))["exception"]


@pytest.mark.parametrize("module", [app.logs, app.api.observability], ids=lambda m: m.__name__)
def test_docstring_examples(module: ModuleType) -> None:
    assert doctest.testmod(module).failed == 0


# --- metrics ---------------------------------------------------------------------------------------------------


def _scrape(client: TestClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    resp = client.get("/metrics")
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("text/plain; version=0.0.4")
    _secured(resp)
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(resp.text)
        for s in family.samples
    }


def _value(scraped: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return scraped.get((name, frozenset(labels.items())), 0.0)


def test_metrics_count_requests_audits_and_findings(
    app: FastAPI, client: TestClient, examples: dict[str, bytes]
) -> None:
    assert "/metrics" not in app.openapi()["paths"]
    record = examples["nj-dealer-draws-on-hard-17"]
    before = _scrape(client)
    created = client.post("/v1/rounds", content=record, headers=JSON)
    assert created.status_code == 201, created.text
    audit = created.json()
    assert audit["findings"]
    assert client.post("/v1/rounds", content=record, headers=JSON).status_code == 200  # a replay: not again
    assert client.post("/v1/audit", content=record, headers=JSON).status_code == 200
    after = _scrape(client)

    def moved(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    verdict = {"jurisdiction": audit["jurisdiction"], "verdict": audit["verdict"]}
    assert moved("bjaudit_rounds_audited_total", **verdict, via="single") == 1
    assert moved("bjaudit_rounds_audited_total", **verdict, via="dry_run") == 1
    rules: dict[str, int] = {}
    for finding in audit["findings"]:
        rules[finding["rule"]] = rules.get(finding["rule"], 0) + 1
    for rule, n in rules.items():  # the stored round's findings; not the dry run's
        assert moved("bjaudit_findings_total", jurisdiction=audit["jurisdiction"], rule=rule) == n
    assert moved("bjaudit_http_requests_total", method="POST", route="/v1/rounds", status="201") == 1
    assert moved("bjaudit_http_requests_total", method="POST", route="/v1/rounds", status="200") == 1
    assert moved("bjaudit_http_request_duration_seconds_count", method="POST", route="/v1/rounds") == 2
    assert moved("bjaudit_http_requests_total", method="GET", route="/metrics", status="200") == 1


def _empty_batches(engine: Engine) -> None:
    with engine.begin() as conn:
        for table in ("batch_results", "batch_chunks", "batches"):
            conn.execute(text(f"DELETE FROM {table}"))


def _batch(
    conn: Any, batch_id: str, *, state: str = "queued", received: bool = True, lines: int = 0, chunks: int = 0
) -> None:
    now = datetime.now(UTC)
    conn.execute(
        insert(batches_table).values(
            id=batch_id,
            source="default",
            content_sha256=batch_id.ljust(64, "0"),
            state=state,
            lines_received=lines,
            bytes_received=0,
            chunk_count=chunks,
            created_at=now,
            received_at=now if received else None,
            updated_at=now,
            error=None,
        )
    )


def _chunk(
    conn: Any, batch_id: str, chunk_no: int, lines: int, *, data: bytes = b"", started: bool, done: bool
) -> None:
    now = datetime.now(UTC)
    conn.execute(
        insert(batch_chunks_table).values(
            batch_id=batch_id,
            chunk_no=chunk_no,
            first_line=1 + 10 * chunk_no,
            line_count=lines,
            data=data,
            started_at=now if started else None,
            done_at=now if done else None,
        )
    )


def test_batch_progress_is_read_from_the_database_at_scrape_time(client: TestClient, engine: Engine) -> None:
    _empty_batches(engine)
    try:
        assert _value(_scrape(client), "bjaudit_batches", state="done") == 0
        with engine.begin() as conn:
            _batch(conn, "uploading", received=False, lines=10)
            _chunk(conn, "uploading", 0, 10, started=False, done=False)
            _batch(conn, "queued", lines=20, chunks=2)
            _chunk(conn, "queued", 0, 10, started=False, done=False)
            _chunk(conn, "queued", 1, 10, started=False, done=False)
            _batch(conn, "processing", lines=25, chunks=2)
            _chunk(conn, "processing", 0, 10, started=True, done=True)
            _chunk(conn, "processing", 1, 15, started=True, done=False)
            _batch(conn, "done", lines=7, chunks=1)
            _chunk(conn, "done", 0, 7, started=True, done=True)
            _batch(conn, "failed", state="failed", lines=3)
        scraped = _scrape(client)
        for state in ("uploading", "queued", "processing", "done", "failed"):
            assert _value(scraped, "bjaudit_batches", state=state) == 1, state
        assert _value(scraped, "bjaudit_batch_lines_received") == 10 + 20 + 25
        assert _value(scraped, "bjaudit_batch_lines_done") == 10
    finally:
        _empty_batches(engine)


def test_a_batch_chunk_counts_the_rounds_it_stored(
    client: TestClient, engine: Engine, examples: dict[str, bytes]
) -> None:
    _empty_batches(engine)
    one_line = [
        json.dumps(json.loads(examples[name])).encode()
        for name in ("nj-compliant-double", "nz-insurance-over-half")
    ]
    records = [*one_line, b"not json"]
    try:
        with engine.begin() as conn:
            _batch(conn, "b1", lines=3, chunks=1)
            _chunk(conn, "b1", 0, 3, data=b"\n".join(records), started=False, done=False)
        before = _scrape(client)
        assert batch_cases.process_chunk(Database(engine), "b1", 0)
        assert not batch_cases.process_chunk(Database(engine), "b1", 0)  # done: not counted twice
        after = _scrape(client)
        audited = {
            labels: value - before.get((name, labels), 0.0)
            for (name, labels), value in after.items()
            if name == "bjaudit_rounds_audited_total" and ("via", "batch") in labels
        }
        assert sorted((dict(k)["jurisdiction"], v) for k, v in audited.items() if v) == [
            ("NZ", 1.0),
            ("US-NJ", 1.0),
        ]
    finally:
        _empty_batches(engine)


def test_a_scrape_answers_without_the_database(
    examples: dict[str, bytes], caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(
        Settings(
            database_url="sqlite:////dev/null/cannot/bjaudit.sqlite3",
            metrics_access="public",
            embedded_workers=0,
        )
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        for _ in range(2):
            scraped = _scrape(client)
            assert ("bjaudit_batches", frozenset({("state", "done")})) not in scraped
            assert _value(
                scraped, "bjaudit_http_requests_total", method="GET", route="/metrics", status="200"
            )
    warnings = [r for r in caplog.records if r.name == "bjaudit.metrics"]
    assert len(warnings) == 1, warnings  # once, not at every scrape


@pytest.mark.parametrize(("access", "status"), [("off", 404), ("key", 401)])
def test_metrics_access(database_url: str, access: str, status: int) -> None:
    app = create_app(Settings(database_url=database_url, metrics_access=access, embedded_workers=0))
    with TestClient(app, raise_server_exceptions=False) as client:
        resp = client.get("/metrics")
    assert resp.status_code == status
    assert resp.headers["content-type"] == "application/problem+json"
    _secured(resp)
    if status == 401:
        assert resp.headers["www-authenticate"].startswith("Bearer")
    assert "/metrics" not in app.openapi()["paths"]


# --- bjaudit serve ---------------------------------------------------------------------------------------------


def _live_env(tmp: Path, **more: str) -> dict[str, str]:
    return {
        "DATABASE_URL": f"sqlite:///{tmp / 'live.sqlite3'}",
        "BJAUDIT_ADMIN_KEY_FILE": str(tmp / "admin-key"),
        "BJAUDIT_ACCESS_LOG": "true",
        "BJAUDIT_LOG_FORMAT": "json",
        "BJAUDIT_METRICS_ACCESS": "public",
        **more,
    }


def test_bjaudit_serve_sends_no_server_header_and_logs_json_without_secrets(tmp_path: Path) -> None:
    with live_service(tmp_path, _live_env(tmp_path)) as (base, port):
        for path in ("/healthz", "/no/such/route", "/v1/rounds/EX-NJ-0001?source=x"):
            resp = httpx.get(
                base + path, headers={"X-Request-ID": "live-1", "Authorization": f"Bearer {SECRET}"}
            )
            assert "server" not in resp.headers and "date" in resp.headers
            assert resp.headers["x-request-id"] == "live-1"
            _secured(resp)
        resp = httpx.get(base + "/healthz")
        assert GENERATED_ID.fullmatch(resp.headers["x-request-id"])
        assert httpx.get(base + "/metrics").status_code == 200
        log = tmp_path / f"serve-{port}.log"
        deadline = time.monotonic() + 10
        while log.read_text().count('"bjaudit.access"') < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
    text_ = log.read_text()
    assert SECRET not in text_
    lines = [json.loads(line) for line in text_.splitlines() if line.startswith("{")]
    assert any(line["logger"].startswith("uvicorn") for line in lines)  # uvicorn's own lines, as JSON too
    access = [line for line in lines if line["logger"] == "bjaudit.access" and line["request_id"] == "live-1"]
    assert [line["path"] for line in access] == ["/healthz", "/no/such/route", "/v1/rounds/{round_id}"]
    assert all(line["client"] == "127.0.0.1" for line in access)


def test_bjaudit_serve_with_two_processes_adds_their_counters_up(tmp_path: Path) -> None:
    with live_service(tmp_path, _live_env(tmp_path, BJAUDIT_WORKERS="2", BJAUDIT_ACCESS_LOG="false")) as (
        base,
        _,
    ):
        for _ in range(30):
            assert httpx.get(base + "/healthz").status_code == 200  # a new connection each: either process
        for _ in range(4):
            resp = httpx.get(base + "/metrics")
            families = {f.name: f for f in text_string_to_metric_families(resp.text)}
            healthz = [
                s.value
                for s in families["bjaudit_http_requests"].samples
                if s.name.endswith("_total") and s.labels["route"] == "/healthz"
            ]
            assert healthz == [30.0]


def test_a_path_with_a_newline_is_one_text_log_line(client: TestClient) -> None:
    """Issue 20, failure 5: with BJAUDIT_LOG_FORMAT=text, a %0A in a path started a log line of the client's."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(TextFormatter())
    logger = logging.getLogger("bjaudit")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        client.get("/no/such%0A2026-12-04 10:00:00,000 INFO bjaudit.access: GET /v1/keys 200%0D%E2%80%AEx")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert "\\n2026-12-04 10:00:00,000 INFO" in lines[0] and "\\r\\u202ex" in lines[0], lines


def test_bjaudit_serve_writes_a_path_with_a_newline_on_one_text_log_line(tmp_path: Path) -> None:
    """Issue 20, failure 5, end to end: `bjaudit serve` with BJAUDIT_LOG_FORMAT=text (uvicorn's log config, the access
    log) writes a request for a path with a %0A in it as one line, the newline written out (a route's path is logged
    as its template, /v1/rounds/{round_id}: a path no route takes is logged as it came)."""
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BJAUDIT_LOG_FORMAT": "text",
        "BJAUDIT_ACCESS_LOG": "true",
    }
    with live_service(tmp_path, env) as (base, port):
        assert httpx.get(base + "/v1/roundz/x%0Afake%20line").status_code == 404
        log = tmp_path / f"serve-{port}.log"
        deadline = time.monotonic() + 5
        while "fake line" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
    lines = [line for line in log.read_text().splitlines() if "fake" in line]
    assert len(lines) == 1 and "/v1/roundz/x\\nfake line" in lines[0], lines
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO bjaudit\.access: ", lines[0]), lines
