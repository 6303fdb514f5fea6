"""Issue 20: the end of every batch signs and publishes its source's tree head to the configured witnesses."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.config import Settings
from app.evidence import packet
from app.main import create_app
from app.usecases import integrity, transparency
from tests.batch.conftest import NDJSON, dumps, legal_rounds, ndjson, wait_done
from tests.keys import keyed


@pytest.fixture
def witnessed(
    database_url: str, engine: Engine, tmp_path: Path
) -> Iterator[tuple[TestClient, Path, Settings]]:
    settings = Settings(
        database_url=database_url,
        batch_chunk_lines=4,
        batch_runner="inline",
        witness=str(tmp_path / "witness"),
        witness_interval_seconds=3600,  # the periodic one publishes at start-up only: the batch's is what is seen
        signing_key_file=str(tmp_path / "key.pem"),
    )
    try:
        with TestClient(create_app(settings), raise_server_exceptions=False) as c:
            keyed(c, database_url)
            yield c, tmp_path / "witness", settings
    finally:
        transparency.PUBLISHER = None


def published(folder: Path, timeout: float = 30.0) -> list[Path]:
    """The heads in a witness's folder, once there is one. The batch reads ``done`` as its last chunk commits; the
    head is signed and published just after, by the worker that stored that chunk (CI once looked in between)."""
    deadline = time.monotonic() + timeout
    while not (heads := sorted(folder.glob("*.json"))) and time.monotonic() < deadline:
        time.sleep(0.05)
    return heads


def test_the_end_of_a_batch_publishes_its_sources_signed_head(
    witnessed: tuple[TestClient, Path, Settings],
) -> None:
    client, witness, settings = witnessed
    r = client.post(
        "/v1/batches", content=ndjson([dumps(d) for d in legal_rounds(10, seed=5)]), headers=NDJSON
    )
    assert r.status_code == 202, r.text
    assert wait_done(client, r.json()["batch_id"])["state"] == "done"
    heads = published(witness / "default")
    assert heads and heads[-1].name == "000000000010.json", heads
    head = orjson.loads(heads[-1].read_bytes())
    trusted = integrity.raw_public_key(integrity.load_signing_key(settings.signing_key_file))
    assert packet.check_head(head, trusted) == []
    assert head["seq"] == 10 and client.get("/v1/integrity/head").json() == head
