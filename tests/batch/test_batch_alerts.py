"""Issue 22: a batch's findings alert as a single submit's do — its chunks append each round to the source's chain in
the transaction that stores it, and the webhook delivers from the chain."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.config import Settings
from app.main import create_app
from tests.batch.conftest import NDJSON, dumps, legal_rounds, ndjson, wait_done
from tests.keys import keyed
from tests.receiver import Receiver, verify

SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def test_every_finding_of_a_batch_is_delivered_once_signed(
    database_url: str, engine: Engine, tmp_path: Path, receiver: Receiver
) -> None:
    settings = Settings(
        database_url=database_url,
        batch_chunk_lines=7,
        batch_runner="inline",
        webhooks_allow_private=True,
        webhook_poll_seconds=0.05,
        signing_key_file=str(tmp_path / "key.pem"),
    )
    rounds = legal_rounds(40, seed=9)
    for n in range(0, 40, 4):  # every 4th round: the dealer is paid on a push (a finding with money owed)
        for event in rounds[n]["events"]:
            if event["type"] == "settle" and event["bet"] == "main":
                event["result"], event["amount"] = "win", event["amount"] + 100
                break
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        keyed(client, database_url)
        r = client.post("/v1/subscriptions", json={"url": receiver.url, "secret": SECRET})
        assert r.status_code == 201, r.text
        r = client.post("/v1/batches", content=ndjson([dumps(d) for d in rounds]), headers=NDJSON)
        assert r.status_code == 202, r.text
        assert wait_done(client, r.json()["batch_id"])["state"] == "done"
        with engine.connect() as conn:
            expected = conn.execute(text("SELECT count(*) FROM findings WHERE audit_no = 1")).scalar_one()
        assert expected >= 10
        got = receiver.wait(expected)
        time.sleep(0.3)
    ids = [g["headers"]["webhook-id"] for g in receiver.got]
    assert len(ids) == len(set(ids)) == expected  # each once (no failure here: no retry)
    assert all(verify(SECRET, {k.lower(): v for k, v in g["headers"].items()}, g["body"]) for g in got)
    seqs = [tuple(int(x) for x in i.split(":")[1:]) for i in ids]
    assert seqs == sorted(seqs)  # in the chain's order
    assert {json.loads(g["body"])["data"]["round_id"] for g in got} <= {d["round_id"] for d in rounds}
