"""`bjaudit worker` against a PostgreSQL server of the test's own, which the tests stop and start: a worker started
before the schema waits for it; an outage, with or without a batch running, never ends a worker; a batch audited
across an outage is audited whole, nothing lost or doubled; when procrastinate's worker stops by itself, ours
starts it again; SIGTERM ends a worker with status 0."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from app.config import Settings, sqlalchemy_url
from app.main import create_app
from app.store.migrate import upgrade_head
from app.usecases import batch_queue
from tests.batch.conftest import NDJSON, dumps, legal_rounds, ndjson, wait_done
from tests.keys import keyed
from tests.throwaway_pg import ThrowawayPostgres

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    def __init__(self, url: str, log: Path) -> None:
        self.log_path = log
        self._log: IO[bytes] = log.open("ab")
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "BJAUDIT_BATCH_STALLED_SECONDS": "1.5",
            "BJAUDIT_DB_POOL_TIMEOUT": "1",  # an outage of a few seconds outlasts the queue's pool
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "worker"],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, needle: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            assert self.proc.poll() is None, (
                f"the worker exited ({self.proc.returncode}):\n{self.text()[-3000:]}"
            )
            assert time.monotonic() < deadline, f"no {needle!r} in the worker's log:\n{self.text()[-3000:]}"
            time.sleep(0.05)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Callable[[str], Worker]]:
    started: list[Worker] = []

    def start(url: str) -> Worker:
        w = Worker(url, tmp_path / f"worker{len(started)}.log")
        started.append(w)
        return w

    yield start
    for w in started:
        w.stop()


def _stored(url: str) -> tuple[int, tuple[int, int, int, int]]:
    eng = create_engine(sqlalchemy_url(url))
    try:
        with eng.connect() as conn:
            rounds = conn.execute(text("SELECT count(*) FROM rounds")).scalar_one()
            lines = conn.execute(
                text(
                    "SELECT count(*), count(DISTINCT line_no), min(line_no), max(line_no) FROM batch_results"
                )
            ).one()
    finally:
        eng.dispose()
    return int(rounds), (int(lines[0]), int(lines[1]), int(lines[2]), int(lines[3]))


def test_a_worker_started_before_the_schema_waits_for_it_then_works(
    server: ThrowawayPostgres, workers: Callable[[str], Worker]
) -> None:
    url = server.create_database("fresh")
    worker = workers(url)  # the README order: workers may start before the service has migrated
    worker.wait_for_log("waiting for the schema")
    time.sleep(1)
    assert worker.proc.poll() is None, worker.text()
    upgrade_head(url)
    worker.wait_for_log("worker starting")
    settings = Settings(database_url=url, batch_chunk_lines=50, batch_runner="queue", embedded_workers=0)
    with TestClient(create_app(settings)) as c:
        keyed(c, settings.database_url)
        r = c.post(
            "/v1/batches", content=ndjson([dumps(d) for d in legal_rounds(120, seed=3)]), headers=NDJSON
        )
        assert r.status_code == 202, r.text
        st = wait_done(c, r.json()["batch_id"], timeout=30)
    assert st["state"] == "done" and st["counts"]["compliant"] == 120, (st, worker.text()[-3000:])
    assert worker.stop() == 0
    assert "Traceback" not in worker.text()


def test_a_worker_outlives_database_restarts_and_a_batch_across_one_is_audited_whole(
    server: ThrowawayPostgres, workers: Callable[[str], Worker]
) -> None:
    url = server.create_database("restarts")
    upgrade_head(url)
    worker = workers(url)
    worker.wait_for_log("worker starting")

    # An outage with no batch running: the worker carries on (procrastinate's own worker may stop, or ride it out;
    # either way the process stays, and audits afterwards).
    server.restart(down_for=3)
    time.sleep(2)
    assert worker.proc.poll() is None, worker.text()

    # A batch audited across a restart: every line once.
    settings = Settings(database_url=url, batch_chunk_lines=40, batch_runner="queue", embedded_workers=0)
    docs = [dumps(d) for d in legal_rounds(1200, seed=8)]
    with TestClient(create_app(settings)) as c:
        keyed(c, settings.database_url)
        r = c.post("/v1/batches", content=ndjson(docs), headers=NDJSON)
        assert r.status_code == 202, r.text
        bid = r.json()["batch_id"]
        deadline = time.monotonic() + 30
        while c.get(f"/v1/batches/{bid}").json()["chunks_done"] < 2:
            assert time.monotonic() < deadline, worker.text()[-3000:]
            time.sleep(0.01)
    server.restart(down_for=2)  # the app's connections die too: a new app (a restarted service) reads on
    with TestClient(create_app(settings)) as c:
        keyed(c, settings.database_url)
        st = wait_done(c, bid, timeout=60)
    assert st["state"] == "done", (st, worker.text()[-3000:])
    assert st["counts"]["compliant"] == 1200 and st["counts"]["audited"] == 1200
    assert _stored(url) == (1200, (1200, 1200, 1, 1200))
    assert worker.proc.poll() is None, worker.text()
    assert worker.stop() == 0
    assert "worker stopped on request" in worker.text()


def test_when_procrastinates_worker_stops_by_itself_the_supervisor_starts_it_again(
    server: ThrowawayPostgres, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What a failed side task does to procrastinate's worker (its listener or heartbeat losing the database): it
    returns, as if asked to stop. The process must not end there."""
    url = server.create_database("supervised")
    upgrade_head(url)
    runs: list[dict[str, object]] = []

    async def run_worker_async(self: object, **options: object) -> None:
        runs.append(options)
        if len(runs) == 1:
            return  # stopped by itself
        await asyncio.Event().wait()  # runs until cancelled

    monkeypatch.setattr("procrastinate.App.run_worker_async", run_worker_async)

    async def main() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(batch_queue.supervise(Settings(database_url=url), stop=stop))
        deadline = asyncio.get_running_loop().time() + 20
        while len(runs) < 2:
            assert not task.done(), task
            assert asyncio.get_running_loop().time() < deadline, caplog.text
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.wait_for(task, 20)

    with caplog.at_level(logging.INFO, logger="bjaudit.batch_queue"):
        asyncio.run(main())
    assert len(runs) == 2
    assert all(r["install_signal_handlers"] is False and r["queues"] == ["batches"] for r in runs)
    assert "worker stopped: procrastinate's worker stopped" in caplog.text
    assert "starting again in 0.5 s" in caplog.text
    assert "worker stopped on request" in caplog.text


def test_a_killed_workers_chunk_is_redone_within_seconds_by_the_survivor(
    server: ThrowawayPostgres, workers: Callable[[str], Worker]
) -> None:
    url = server.create_database("killed")
    upgrade_head(url)
    doomed, survivor = workers(url), workers(url)
    doomed.wait_for_log("worker starting")
    survivor.wait_for_log("worker starting")
    settings = Settings(database_url=url, batch_chunk_lines=40, batch_runner="queue", embedded_workers=0)
    docs = [dumps(d) for d in legal_rounds(800, seed=12)]
    with TestClient(create_app(settings)) as c:
        keyed(c, settings.database_url)
        r = c.post("/v1/batches", content=ndjson(docs), headers=NDJSON)
        assert r.status_code == 202, r.text
        bid = r.json()["batch_id"]
        deadline = time.monotonic() + 30
        while c.get(f"/v1/batches/{bid}").json()["chunks_done"] < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        doomed.proc.send_signal(signal.SIGKILL)  # mid-chunk, most likely: its job stays "doing"
        doomed.proc.wait()
        killed_at = time.monotonic()
        st = wait_done(c, bid, timeout=60)
        took = time.monotonic() - killed_at
    assert st["state"] == "done" and st["counts"]["compliant"] == 800, (st, survivor.text()[-3000:])
    assert _stored(url) == (800, (800, 800, 1, 800))
    # stalled after 1.5 s (BJAUDIT_BATCH_STALLED_SECONDS), looked for every 0.5 s: redone within seconds
    assert took < 15, took
