"""Batch fixtures: the integration tier's databases (SQLite file, fresh PostgreSQL; PostgreSQL tests fail rather
than skip when BJAUDIT_REQUIRE_POSTGRES=1), small chunks so that a few dozen lines span several chunks."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, text

from app.config import Settings, sqlalchemy_url
from app.main import create_app
from app.synth.generator import generate_rounds
from tests.integration.conftest import database_url, examples, postgres_database  # noqa: F401
from tests.keys import keyed

NDJSON = {"content-type": "application/x-ndjson"}


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:  # noqa: F811
    eng = create_engine(sqlalchemy_url(database_url))
    with eng.begin() as conn:
        for table in (
            "acknowledgements",
            "deliveries",
            "subscriptions",
            "batch_results",
            "batch_chunks",
            "batches",
            "reaudit_chunks",
            "reaudits",
            "findings",
            "audits",
            "rounds",
            "round_keys",
            "archives",
            "table_elections",
            "chain_entries",
            "chain_heads",
            "merkle_nodes",
            "report_rollups",
            "rollup_cursors",
            "tree_heads",
        ):
            conn.execute(text(f"DELETE FROM {table}"))
    yield eng
    eng.dispose()


@pytest.fixture
def settings(database_url: str) -> Settings:  # noqa: F811
    return Settings(database_url=database_url, batch_chunk_lines=4, batch_runner="inline")


@pytest.fixture
def app(settings: Settings) -> FastAPI:
    return create_app(settings)


@pytest.fixture
def client(app: FastAPI, engine: Engine, database_url: str) -> Iterator[TestClient]:  # noqa: F811
    """A client with a key of the source ``default`` with every scope (tests/keys.py)."""
    with TestClient(app, raise_server_exceptions=False) as c:
        keyed(c, database_url)
        yield c


@pytest.fixture
def count(engine: Engine) -> Callable[[str], int]:
    def n(sql: str) -> int:
        with engine.connect() as conn:
            return int(conn.execute(text(sql)).scalar_one())

    return n


def legal_rounds(n: int, seed: int = 11) -> list[dict[str, Any]]:
    return list(generate_rounds(n, seed))


def ndjson(docs: list[bytes]) -> bytes:
    return b"\n".join(docs) + b"\n"


def dumps(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc)


def wait_done(client: TestClient, batch_id: str, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        st: dict[str, Any] = client.get(f"/v1/batches/{batch_id}").json()
        if st["state"] in ("done", "failed") or time.monotonic() > deadline:
            return st
        time.sleep(0.05)


def results(client: TestClient, batch_id: str, only: str | None = None) -> list[dict[str, Any]]:
    url = f"/v1/batches/{batch_id}/results" + (f"?only={only}" if only else "")
    r = client.get(url)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    return [orjson.loads(line) for line in r.content.splitlines() if line]


__all__ = ["legal_rounds", "ndjson", "dumps", "wait_done", "results", "random", "NDJSON"]
