"""Batch ingest benchmark: a generated day of rounds through the HTTP API on PostgreSQL, end to end, beside a raw
COPY of the same records measured in the same run.

    .venv/bin/python -m bench.batch_ingest --rounds 200000

Steps: generate N rounds (``bjaudit generate``, 5% with an injected error) to an NDJSON file; create a fresh
PostgreSQL database (from BJAUDIT_TEST_POSTGRES_URL, default postgres@127.0.0.1) and migrate it; COPY the records
into an equivalent table (raw record + round_id, jurisdiction, table_id, played_at; the record column lz4 like
``rounds.record``) and time it; start ``bjaudit serve`` (queue runner) and W ``bjaudit worker`` processes; upload
the file with the CLI's code path (``app.cli.upload``) and wait until the batch is done. Reports rounds/s end to end
(upload start to last chunk committed), the COPY rate, their ratio, and peak RSS sampled from /proc every 0.2 s:
per process, and the peak of the SUM over the service and its workers. The database is dropped at the end.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path

import httpx
import orjson
import psycopg

from app.cli import main as cli_main
from app.cli.upload import upload_file, wait_for
from app.config import sqlalchemy_url
from app.store.migrate import upgrade_head
from bench.keys import make_key

ROOT = Path(__file__).resolve().parents[1]


def _libpq(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(sqlalchemy_url(url)).set(drivername="postgresql").render_as_string(hide_password=False)


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class RssSampler(threading.Thread):
    def __init__(self, pids: dict[str, int]) -> None:
        super().__init__(daemon=True)
        self.pids = pids
        self.peak = dict.fromkeys(pids, 0)
        self.peak_sum = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            total = 0
            for name, pid in self.pids.items():
                kib = _rss_kib(pid)
                total += kib
                self.peak[name] = max(self.peak[name], kib)
            self.peak_sum = max(self.peak_sum, total)
            time.sleep(0.2)


def raw_copy(conninfo: str, path: Path) -> tuple[int, float]:
    with psycopg.connect(conninfo) as conn:
        conn.execute(
            "CREATE TABLE copy_baseline (record bytea NOT NULL, round_id text, jurisdiction text, table_id text, "
            "played_at timestamptz)"
        )
        try:
            conn.execute("ALTER TABLE copy_baseline ALTER COLUMN record SET COMPRESSION lz4")
        except psycopg.Error:
            conn.rollback()
        conn.commit()
        n = 0
        t0 = time.perf_counter()
        with (
            conn.cursor() as cur,
            cur.copy(
                "COPY copy_baseline (record, round_id, jurisdiction, table_id, played_at) FROM STDIN"
            ) as copy,
            path.open("rb") as f,
        ):
            for line in f:
                line = line.rstrip(b"\n")
                if not line:
                    continue
                d = orjson.loads(line)
                copy.write_row((line, d["round_id"], d["jurisdiction"], d["table"]["id"], d["played_at"]))
                n += 1
        conn.commit()
        return n, time.perf_counter() - t0


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _postgres_cpu_seconds() -> float:
    """CPU time of every process named postgres on this machine (0 if PostgreSQL runs elsewhere)."""
    total = 0.0
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "comm").read_text().strip() == "postgres":
                    total += _cpu_seconds(int(d.name))
            except OSError:
                pass
    return total


def chunk_stats(conninfo: str, batch_id: str) -> str:
    """How the chunks were processed: their count, the mean time one took, and the first start after upload."""
    with psycopg.connect(conninfo) as conn:
        n, mean, first, span = conn.execute(
            "SELECT count(*), avg(extract(epoch FROM done_at - started_at)), "
            "min(extract(epoch FROM started_at - b.received_at)), "
            "extract(epoch FROM max(done_at) - min(started_at)) "
            "FROM batch_chunks c JOIN batches b ON b.id = c.batch_id WHERE c.batch_id = %s",
            (batch_id,),
        ).fetchone() or (0, 0, 0, 0)
    return (
        f"chunks: {n}, {float(mean or 0):.2f} s each on average, first started {float(first or 0):.2f} s after "
        f"the upload committed, first start to last commit {float(span or 0):.1f} s"
    )


STORED_TABLES = ("round_keys", "rounds", "findings", "chain_entries", "batch_chunks", "batch_results")


def storage(conninfo: str, rounds: int) -> str:
    """What the stored rounds take on disk (tables with their TOAST and indexes), per round: the capacity model's
    bytes (docs/performance.md)."""
    with psycopg.connect(conninfo) as conn:
        sizes = {}
        for t in STORED_TABLES:
            # A partitioned table's size is its partitions' (a plain table is its own tree)
            row = conn.execute(
                "SELECT pg_total_relation_size(%(t)s::regclass) + coalesce((SELECT sum(pg_total_relation_size(relid)) "
                "FROM pg_partition_tree(%(t)s::regclass) WHERE relid <> %(t)s::regclass), 0)",
                {"t": t},
            ).fetchone()
            sizes[t] = int(row[0]) if row else 0
    per = ", ".join(f"{t} {b / max(rounds, 1):,.0f}" for t, b in sizes.items())
    total = sum(sizes.values())
    return f"on disk: {total / 2**20:,.0f} MiB, {total / max(rounds, 1):,.0f} bytes a round ({per})"


def _partitions_of(url: str, data: Path) -> str:
    """The last year of the generated rounds' months get their partitions, as a store's year has them (made ahead
    by the service: the data's months are not the clock's); older rounds go to the DEFAULT partition. (The generator
    spreads played_at over decades: a partition for each month of them would measure 400 near-empty partitions.)"""
    from sqlalchemy import create_engine

    from app.store import partitions

    first = last = None
    with data.open("rb") as f:
        for line in f:
            m = re.search(rb'"played_at": ?"(\d{4})-(\d{2})', line)
            if m:
                month = date(int(m[1]), int(m[2]), 1)
                first, last = min(first or month, month), max(last or month, month)
    if first is None or last is None:
        return "none"
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            done = partitions.ensure_months(
                conn, list(partitions.months(max(first, partitions.add_months(last, -11)), last))
            )
    finally:
        engine.dispose()
    return ", ".join(f"{m:%Y-%m} {what}" for m, what in done.items())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2, help="bjaudit worker processes")
    ap.add_argument(
        "--concurrency", type=int, default=1, help="chunks each worker process audits at once (threads)"
    )
    ap.add_argument("--error-rate", type=float, default=0.05)
    ap.add_argument(
        "--timeout", type=float, default=900, help="give up after this many seconds of processing"
    )
    ap.add_argument(
        "--admin-url",
        default=os.environ.get("BJAUDIT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bjaudit-bench-"))
    data = tmp / "day.ndjson"
    t0 = time.perf_counter()
    cli_main(
        [
            "generate",
            "--rounds",
            str(args.rounds),
            "--seed",
            str(args.seed),
            "--error-rate",
            str(args.error_rate),
            "--output",
            str(data),
        ]
    )
    size_mb = data.stat().st_size / 1e6
    print(
        f"generated {args.rounds:,} rounds, {size_mb:,.1f} MB in {time.perf_counter() - t0:.1f} s", flush=True
    )

    name = f"bjaudit_bench_{secrets.token_hex(4)}"
    admin = psycopg.connect(_libpq(args.admin_url), autocommit=True)
    admin.execute(f'CREATE DATABASE "{name}"')
    from sqlalchemy.engine import make_url

    url = make_url(sqlalchemy_url(args.admin_url)).set(database=name).render_as_string(hide_password=False)
    procs: list[subprocess.Popen[bytes]] = []
    logs = []
    try:
        upgrade_head(url)
        months = _partitions_of(url, data)
        print(f"monthly partitions of the data's played_at: {months}", flush=True)
        n_copy, copy_s = raw_copy(_libpq(url), data)
        copy_rate = n_copy / copy_s
        print(f"raw COPY: {n_copy:,} rows in {copy_s:.1f} s = {copy_rate:,.0f} rows/s", flush=True)

        port = _free_port()
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "BJAUDIT_BATCH_RUNNER": "queue",
            "BJAUDIT_EMBEDDED_WORKERS": "0",  # exactly --workers processes audit
            "BJAUDIT_ACCESS_LOG": "false",
            "BJAUDIT_LOG_LEVEL": "warning",
        }
        worker = ["worker", "--concurrency", str(args.concurrency)]
        for i, cmd in enumerate([["serve", "--port", str(port)]] + [worker] * args.workers):
            log = (tmp / f"proc{i}.log").open("wb")
            logs.append(log)
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "app.cli", *cmd],
                    cwd=ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(base + "/readyz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("service did not start: see " + str(tmp))
            time.sleep(0.2)
        sampler = RssSampler(
            {"service": procs[0].pid, **{f"worker{i + 1}": p.pid for i, p in enumerate(procs[1:])}}
        )
        sampler.start()
        pg_cpu0 = _postgres_cpu_seconds()
        cpu0 = {k: _cpu_seconds(pid) for k, pid in sampler.pids.items()}
        key = make_key(url)
        with httpx.Client(
            base_url=base,
            timeout=httpx.Timeout(30, read=args.timeout),
            headers={"Authorization": f"Bearer {key}"},
        ) as client:
            t0 = time.perf_counter()
            accepted = upload_file(client, data, gzip=False, err=sys.stderr)
            t_up = time.perf_counter() - t0
            st = wait_for(client, accepted["location"], sys.stderr, poll=0.2)
            total = time.perf_counter() - t0
        sampler.stop.set()
        sampler.join()
        c = st["counts"]
        rate = c["audited"] / total
        print()
        print(
            f"end to end: {c['audited']:,} rounds in {total:.1f} s = {rate:,.0f} rounds/s "
            f"(upload stored in {t_up:.1f} s; state {st['state']})"
        )
        print(f"  counts: {c}")
        print(f"raw COPY of the same records: {copy_rate:,.0f} rows/s")
        print(f"ratio end-to-end / raw COPY: {rate / copy_rate:.2f} (aim >= 0.33)")
        print(f"  server-side: upload start to last chunk committed {st['elapsed_seconds']:.1f} s")
        print("  " + chunk_stats(_libpq(url), st["batch_id"]))
        print("  " + storage(_libpq(url), c["audited"]))
        cpu = ", ".join(f"{k} {_cpu_seconds(pid) - cpu0[k]:.1f} s" for k, pid in sampler.pids.items())
        print(f"  CPU time: {cpu}; PostgreSQL (all backends) {_postgres_cpu_seconds() - pg_cpu0:.1f} s")
        peaks = ", ".join(f"{k} {v / 1024:.0f} MB" for k, v in sampler.peak.items())
        print(f"peak RSS: {peaks}; peak of the sum {sampler.peak_sum / 1024:.0f} MB (aim < 500 MB)")
        return 0 if st["state"] == "done" else 1
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in logs:
            log.close()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
        data.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
