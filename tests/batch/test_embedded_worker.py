"""On PostgreSQL the service runs a batch worker of its own by default, so that `serve` and an upload finish a batch
as on SQLite; with none alive (BJAUDIT_EMBEDDED_WORKERS=0 and no `bjaudit worker`), a batch says why it waits,
/readyz counts the workers, and `bjaudit upload` warns instead of waiting in silence."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.batches import NO_WORKER
from app.cli.upload import wait_for
from app.config import Settings
from app.main import create_app
from app.store.migrate import upgrade_head
from tests.batch.conftest import NDJSON, dumps, legal_rounds, ndjson, wait_done
from tests.keys import keyed

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]


def test_the_service_alone_finishes_a_batch_on_postgres(postgres_database: Callable[[str], str]) -> None:
    url = postgres_database("embedded")
    upgrade_head(url)
    settings = Settings(
        database_url=url, batch_chunk_lines=50
    )  # the defaults: the queue, one embedded worker
    assert settings.uses_queue() and settings.embedded_workers == 1
    with TestClient(create_app(settings)) as c:
        keyed(c, settings.database_url)
        r = c.post(
            "/v1/batches", content=ndjson([dumps(d) for d in legal_rounds(150, seed=9)]), headers=NDJSON
        )
        assert r.status_code == 202, r.text
        st = wait_done(c, r.json()["batch_id"], timeout=60)
        assert st["state"] == "done" and st["counts"]["compliant"] == 150
        assert st["stalled"] is None and st["workers_alive"] == 1
        ready = c.get("/readyz").json()
        assert ready["batch_workers"] == 1


def test_with_no_worker_alive_the_batch_says_so_and_upload_warns_until_one_comes(
    postgres_database: Callable[[str], str], tmp_path: Path
) -> None:
    url = postgres_database("noworker")
    upgrade_head(url)
    settings = Settings(database_url=url, batch_chunk_lines=50, embedded_workers=0)
    err = io.StringIO()
    log = (tmp_path / "worker.log").open("wb")
    worker: list[subprocess.Popen[bytes]] = []

    def start_a_worker_once_warned() -> None:
        deadline = time.monotonic() + 30
        while "warning:" not in err.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        env = {**os.environ, "DATABASE_URL": url}
        worker.append(
            subprocess.Popen(
                [sys.executable, "-m", "app.cli", "worker"], cwd=ROOT, env=env, stdout=log, stderr=log
            )
        )

    try:
        with TestClient(create_app(settings)) as c:
            keyed(c, settings.database_url)
            assert c.get("/readyz").json()["batch_workers"] == 0
            r = c.post(
                "/v1/batches", content=ndjson([dumps(d) for d in legal_rounds(60, seed=2)]), headers=NDJSON
            )
            assert r.status_code == 202, r.text
            location = r.json()["location"]
            st = c.get(location).json()
            assert st["state"] == "queued" and st["workers_alive"] == 0 and st["stalled"] == NO_WORKER
            helper = threading.Thread(target=start_a_worker_once_warned)
            helper.start()
            final = wait_for(c, location, err, poll=0.1)
            helper.join()
        assert final["state"] == "done" and final["counts"]["compliant"] == 60
        assert err.getvalue().count(f"warning: {NO_WORKER}\n") == 1, err.getvalue()
    finally:
        for w in worker:
            w.send_signal(signal.SIGTERM)
            assert w.wait(timeout=30) == 0
        log.close()
