"""Real processes: `bjaudit worker` on PostgreSQL killed with SIGKILL mid-batch and replaced (nothing lost or
doubled); `bjaudit upload` against a live `bjaudit serve` on SQLite."""

from __future__ import annotations

import gzip
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import orjson
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from app.cli import main as cli_main
from app.config import Settings, sqlalchemy_url
from app.main import create_app
from app.store.migrate import upgrade_head
from tests.batch.conftest import NDJSON, dumps, legal_rounds, ndjson, wait_done
from tests.keys import keyed
from tests.live_service import live_key, live_service

ROOT = Path(__file__).resolve().parents[2]
BJAUDIT = [sys.executable, "-m", "app.cli"]


def _worker(env: dict[str, str], log: IO[bytes]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*BJAUDIT, "worker"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


@pytest.mark.postgres
def test_worker_killed_mid_batch_resumes_with_nothing_lost_or_doubled(
    postgres_database: Callable[[str], str], tmp_path: Path
) -> None:
    url = postgres_database("worker")
    upgrade_head(url)
    settings = Settings(database_url=url, batch_chunk_lines=40, batch_runner="queue", embedded_workers=0)
    env = {**os.environ, "DATABASE_URL": url, "BJAUDIT_BATCH_STALLED_SECONDS": "1.5"}
    log_path = tmp_path / "worker.log"
    log = log_path.open("ab")
    docs = [dumps(d) for d in legal_rounds(1600, seed=21)]
    lines = docs + docs[:40]  # 40 duplicates at the end
    first = _worker(env, log)
    try:
        with TestClient(create_app(settings)) as c:
            keyed(c, settings.database_url)
            r = c.post("/v1/batches", content=ndjson(lines), headers=NDJSON)
            assert r.status_code == 202, r.text
            bid = r.json()["batch_id"]
            deadline = time.monotonic() + 30
            while c.get(f"/v1/batches/{bid}").json()["chunks_done"] < 3 and time.monotonic() < deadline:
                time.sleep(0.01)
            first.send_signal(signal.SIGKILL)
            first.wait()
            killed_at = c.get(f"/v1/batches/{bid}").json()["chunks_done"]
            time.sleep(2)  # the dead worker's heartbeat goes stale
            second = _worker(env, log)
            try:
                st = wait_done(c, bid, timeout=40)
            finally:
                second.send_signal(signal.SIGTERM)
                second.wait(timeout=20)
            assert st["state"] == "done", (st, log_path.read_text()[-3000:])
            assert st["counts"]["compliant"] == 1600 and st["counts"]["duplicates"] == 40
            assert st["counts"]["audited"] == len(lines)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
        log.close()
    eng = create_engine(sqlalchemy_url(url))
    with eng.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM rounds")).scalar_one() == 1600
        per_line = conn.execute(
            text("SELECT count(*), count(DISTINCT line_no), min(line_no), max(line_no) FROM batch_results")
        ).one()
        assert tuple(per_line) == (len(lines), len(lines), 1, len(lines))
    eng.dispose()
    print(f"killed after {killed_at} of {len(lines) // 40} chunks")


@pytest.fixture
def live_sqlite_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'live.sqlite3'}", "BJAUDIT_BATCH_CHUNK_LINES": "50"}
    with live_service(tmp_path, env) as (base, _):
        monkeypatch.setenv("BJAUDIT_KEY", live_key(tmp_path))  # as a user who exported the first key
        yield base


def test_cli_upload_against_a_live_service(
    live_sqlite_service: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day = tmp_path / "day.ndjson"
    assert (
        cli_main(["generate", "--rounds", "300", "--seed", "2", "--error-rate", "0.2", "--output", str(day)])
        == 0
    )
    with day.open("ab") as f:
        f.write(b"{oops\n")
    out = tmp_path / "results.ndjson"
    rc = cli_main(["upload", str(day), "--url", live_sqlite_service, "--results", str(out), "--gzip"])
    captured = capsys.readouterr()
    assert rc == 2, captured  # a rejected line
    assert "done: 301 lines" in captured.out
    assert "uploading" in captured.err or "uploaded" in captured.err
    rows = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    assert [r["line"] for r in rows] == list(range(1, 302))
    assert rows[-1]["outcome"] == "rejected"
    assert any(r["outcome"] == "violations" for r in rows)
    # The same file again: the same batch.
    assert cli_main(["upload", str(day), "--url", live_sqlite_service, "--no-wait"]) == 0
    assert '"created":false' in capsys.readouterr().out
    # Gzipped though not called .gz: sent as gzip (known by its first bytes), the same content, the same batch.
    packed = tmp_path / "day.bin"
    packed.write_bytes(gzip.compress(day.read_bytes()))
    assert cli_main(["upload", str(packed), "--url", live_sqlite_service, "--no-wait"]) == 0
    assert '"created":false' in capsys.readouterr().out


@pytest.mark.postgres
def test_the_readme_postgresql_order_works_on_a_fresh_database(
    postgres_database: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """README: `serve &` then `worker & worker &` on a database just created (not migrated): the workers start
    first, wait for the schema the service migrates, and the upload is audited whole."""
    url = postgres_database("readme")
    env = {**os.environ, "DATABASE_URL": url}
    log = (tmp_path / "workers.log").open("ab")
    started = [_worker(env, log), _worker(env, log)]
    try:
        with live_service(tmp_path, {"DATABASE_URL": url, "BJAUDIT_EMBEDDED_WORKERS": "0"}) as (base, _):
            day = tmp_path / "day.ndjson"
            assert cli_main(["generate", "--rounds", "600", "--seed", "5", "--output", str(day)]) == 0
            assert cli_main(["upload", str(day), "--url", base, "--key", live_key(tmp_path)]) == 0
            out = capsys.readouterr()
            assert "done: 600 lines, 600 compliant" in out.out, out  # (a warning while they wait is fair)
    finally:
        for w in started:
            w.send_signal(signal.SIGTERM)
            assert w.wait(timeout=30) == 0
        log.close()
    text_ = (tmp_path / "workers.log").read_text()
    assert "Traceback" not in text_


def test_a_worker_process_limits_its_malloc_arenas_unless_its_operator_did() -> None:
    """``bjaudit worker`` caps glibc's malloc arenas (batch_queue.MALLOC_ARENAS: a worker's peak memory 189 → 161 MB
    in ``make bench-batch``); an operator's MALLOC_ARENA_MAX stays theirs."""
    code = "from app.usecases.batch_queue import limit_malloc_arenas; print(limit_malloc_arenas())"
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}

    def run(**extra: str) -> str:
        got = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env={**env, **extra}
        )
        assert got.returncode == 0, got.stderr
        return got.stdout.strip()

    assert run() == str(platform.libc_ver()[0] == "glibc")
    assert run(MALLOC_ARENA_MAX="4") == "False"
