"""A batch's chunks roll their source's report rollups as they commit (issue 21): a worker adds what it stored
before it takes its next chunk, so that a flood of batches cannot leave the rollups behind the chains by more than
the chunks in flight (at 10^7 rounds loaded flat out the interval rollers fell 4.4 million entries behind, and
reports past that many read the raw rows). Here the service's roller runs once at its start and then sleeps for an
hour: whatever is rolled after the batch, its chunks rolled."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from tests.batch.conftest import NDJSON, dumps, legal_rounds, ndjson, wait_done


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url, batch_chunk_lines=4, batch_runner="inline", rollup_interval_seconds=3600
    )


def test_each_committed_chunk_rolls_its_source_up_to_the_head(
    client: TestClient, count: Callable[[str], int]
) -> None:
    rounds = legal_rounds(10, seed=5)
    r = client.post("/v1/batches", content=ndjson([dumps(d) for d in rounds]), headers=NDJSON)
    assert r.status_code == 202, r.text
    st = wait_done(client, r.json()["batch_id"])
    assert st["state"] == "done" and st["counts"]["compliant"] + st["counts"]["violations"] == 10, st
    head = count("SELECT seq FROM chain_heads WHERE source = 'default'")
    assert head == 10
    # The last chunk rolls after it commits, a moment after the batch reads as done.
    deadline = time.monotonic() + 30
    while count("SELECT coalesce(max(seq), 0) FROM rollup_cursors WHERE source = 'default'") < head:
        assert time.monotonic() < deadline, "the chunks did not roll their source"
        time.sleep(0.05)
    assert count("SELECT sum(rounds) FROM report_rollups WHERE span = 'day' AND dim = 'all'") == 10
    # and the report, from those rows, says what the raw rows say
    rolled = client.get("/v1/reports/summary?group_by=day").json()
    assert rolled["totals"]["rounds"] == 10, rolled


def test_a_reaudit_chunk_that_changed_audits_rolls_them(
    client: TestClient, count: Callable[[str], int]
) -> None:
    """R-1 (submitted alone, so not rolled: the service's roller sleeps) re-audited by its table's corrected
    registration, which withdraws its finding (tests/integration/test_reaudits.py): the re-audit's chunk rolls the
    round and its re-audit, and the rollups count the round without a finding."""
    from tests.integration.test_reaudits import corrected_table, finished, reaudit

    corrected_table(client)
    assert count("SELECT count(*) FROM rollup_cursors WHERE seq > 0") == 0
    finished(client, reaudit(client, {"table": "BJ21", "reason": "registration corrected"})["reaudit_id"])
    head = count("SELECT seq FROM chain_heads WHERE source = 'default'")
    deadline = time.monotonic() + 30
    while count("SELECT coalesce(max(seq), 0) FROM rollup_cursors WHERE source = 'default'") < head:
        assert time.monotonic() < deadline, "the re-audit's chunk did not roll"
        time.sleep(0.05)
    day = "SELECT sum({}) FROM report_rollups WHERE span = 'day' AND dim = 'all'"
    assert (count(day.format("rounds")), count(day.format("rounds_with_findings"))) == (1, 0)
