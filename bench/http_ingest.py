"""HTTP ingest benchmark: the running service over loopback, on PostgreSQL.

Starts uvicorn (one worker, access log off) on 127.0.0.1 against a fresh PostgreSQL database, then drives it with
a small keep-alive HTTP/1.1 load generator (asyncio streams: far cheaper per request than an HTTP client library,
so it steals less CPU from the server on a 2-core machine) at concurrency 1, 16 and 64. For each concurrency, in
the same run, each phase bounded in time:

    POST /v1/rounds          unique rounds from app.synth.generator (both jurisdictions): rounds stored per second
    GET  /v1/rounds/{id}     the auditor's lookup of stored rounds
    GET  /healthz            the trivial endpoint of the same app: the ceiling of the stack

and prints rounds/s and p50/p99 latency beside /healthz's, with the ratios. Compare ratios measured in one run;
absolute numbers vary 10-30% run to run on these machines.

    .venv/bin/python -m bench.http_ingest                       # 5 s per phase
    .venv/bin/python -m bench.http_ingest --seconds 10 --concurrency 1 16 64
    BJAUDIT_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres .venv/bin/python -m bench.http_ingest
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import psycopg
from sqlalchemy.engine import make_url

from app.config import sqlalchemy_url
from app.store.migrate import upgrade_head
from app.synth.generator import generate_rounds
from bench.keys import make_key

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "tests" / "data" / "examples"
MAX_PHASE_SECONDS = 10.0


# --- rounds ------------------------------------------------------------------------------------------------------


def example_rounds(run: str) -> Callable[[], tuple[str, bytes]]:
    """Unique rounds without limit: the hand-written example rounds in turn, each with a fresh round_id."""
    templates = []
    for path in sorted(EXAMPLES.glob("*.round.json")):
        body = path.read_bytes()
        match = re.search(rb'"round_id"\s*:\s*"[^"]*"', body)
        assert match is not None, path
        templates.append((body[: match.start()] + b'"round_id": "', b'"' + body[match.end() :]))
    counter = itertools.count()

    def make() -> tuple[str, bytes]:
        n = next(counter)
        head, tail = templates[n % len(templates)]
        rid = f"BENCH-{run}-{n:09d}"
        return rid, head + rid.encode() + tail

    return make


def round_factory(run: str, count: int) -> Callable[[], tuple[str, bytes]]:
    """Unique, realistic rounds from the seeded generator (both jurisdictions, ~1.3 KB each), made before the
    load starts so that the load generator only sends; the example rounds take over if they run out."""
    generated = [(r["round_id"], orjson.dumps(r)) for r in generate_rounds(count, seed=20261202)]
    fallback = example_rounds(run)
    it = iter(generated)

    def make() -> tuple[str, bytes]:
        return next(it, None) or fallback()

    return make


# --- load generator ----------------------------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    concurrency: int
    seconds: float
    latencies_ns: list[int] = field(default_factory=list)
    ok: int = 0
    failed: int = 0
    statuses: dict[int, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.ok / self.seconds

    def pct(self, q: float) -> float:
        """Latency percentile in milliseconds."""
        if not self.latencies_ns:
            return float("nan")
        xs = sorted(self.latencies_ns)
        return xs[min(len(xs) - 1, int(q * len(xs)))] / 1e6


Request = Callable[[], tuple[bytes, int]]
"""Builds one request: (the bytes to send, the status that counts as success)."""


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes) -> int:
    writer.write(data)
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("server closed the connection")
    status = int(status_line.split(b" ", 2)[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
        elif name.strip().lower() == b"transfer-encoding":
            raise RuntimeError("chunked responses are not supported by this load generator")
    if length:
        await reader.readexactly(length)
    return status


async def _worker(port: int, request: Request, deadline: float, phase: Phase) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while time.perf_counter() < deadline:
            data, expect = request()
            t0 = time.perf_counter_ns()
            status = await _exchange(reader, writer, data)
            phase.latencies_ns.append(time.perf_counter_ns() - t0)
            phase.statuses[status] = phase.statuses.get(status, 0) + 1
            if status == expect:
                phase.ok += 1
            else:
                phase.failed += 1
    finally:
        writer.close()


async def run_phase(name: str, port: int, request: Request, concurrency: int, seconds: float) -> Phase:
    seconds = min(seconds, MAX_PHASE_SECONDS)
    phase = Phase(name, concurrency, seconds)
    start = time.perf_counter()
    await asyncio.gather(*(_worker(port, request, start + seconds, phase) for _ in range(concurrency)))
    phase.seconds = time.perf_counter() - start  # the last requests finish a little after the deadline
    return phase


AUTH = [""]
"""The Authorization header line every /v1 request sends (a key made in the benchmark's database)."""


def post_round(make: Callable[[], tuple[str, bytes]], stored: list[str]) -> Request:
    def build() -> tuple[bytes, int]:
        rid, body = make()
        stored.append(rid)
        head = (
            f"POST /v1/rounds HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{AUTH[0]}"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        return head + body, 201

    return build


def get(path: str | Callable[[], str]) -> Request:
    def build() -> tuple[bytes, int]:
        p = path() if callable(path) else path
        auth = AUTH[0] if p.startswith("/v1/") else ""  # the baseline (/healthz) stays trivial
        return f"GET {p} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n".encode(), 200

    return build


def lookups(round_ids: list[str]) -> Callable[[], str]:
    cycle = itertools.cycle(round_ids)
    return lambda: f"/v1/rounds/{next(cycle)}"


# --- the service under test --------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _libpq(url: str) -> str:
    return make_url(sqlalchemy_url(url)).set(drivername="postgresql").render_as_string(hide_password=False)


def start_service(
    database_url: str, port: int, workers: int, extra: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "BJAUDIT_DATABASE_URL": database_url,
        "BJAUDIT_EMBEDDED_WORKERS": "0",  # no batch worker beside the requests measured
        "BJAUDIT_ACCESS_LOG": "false",
        "BJAUDIT_RATE_LIMIT": "1000000/second",  # counted (its cost is measured), never reached
        **(extra or {}),
    }
    cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--no-access-log", "--log-level", "warning", "--workers", str(workers)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if b" 200 " in s.recv(200):
                    return proc
        except OSError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("the service did not become ready within 30 s")


# --- report ------------------------------------------------------------------------------------------------------


def _row(label: str, p: Phase, base: Phase) -> str:
    return (
        f"{label:<22} {p.concurrency:>4} {p.rate:>10.0f} {p.pct(0.50):>8.2f} {p.pct(0.99):>8.2f}   "
        f"{base.rate:>9.0f} {base.pct(0.50):>7.2f} {base.pct(0.99):>7.2f}   "
        f"{p.rate / base.rate:>6.2f} {p.pct(0.50) / base.pct(0.50):>7.1f} {p.pct(0.99) / base.pct(0.99):>7.1f}"
        + (f"   failed {p.failed} {dict(sorted(p.statuses.items()))}" if p.failed else "")
    )


def report(results: list[tuple[Phase, Phase, Phase]]) -> str:
    lines = [
        f"{'':<22} {'':>4} {'endpoint':>28}   {'GET /healthz (same run)':>25}   {'ratio endpoint/healthz':>22}",
        f"{'endpoint':<22} {'conc':>4} {'req/s':>10} {'p50 ms':>8} {'p99 ms':>8}   "
        f"{'req/s':>9} {'p50 ms':>7} {'p99 ms':>7}   {'req/s':>6} {'p50':>7} {'p99':>7}",
    ]
    for post, lookup, health in results:
        lines.append(_row("POST /v1/rounds", post, health))
        lines.append(_row("GET /v1/rounds/{id}", lookup, health))
    return "\n".join(lines)


async def bench(
    port: int, concurrencies: list[int], seconds: float, run: str
) -> tuple[list[tuple[Phase, Phase, Phase]], int]:
    # enough unique rounds for every phase at ~2500 rounds/s (generated in about 40 us each)
    make = round_factory(run, min(200_000, int(2500 * seconds * len(concurrencies)) + 5000))
    stored: list[str] = []
    # warm up: connections, the pool, the first audits, the caches
    warm = await run_phase("warmup", port, post_round(make, stored), 8, 1.0)
    await run_phase("warmup", port, get("/healthz"), 8, 0.5)
    results = []
    for c in concurrencies:
        post = await run_phase("POST /v1/rounds", port, post_round(make, stored), c, seconds)
        lookup = await run_phase("GET /v1/rounds/{id}", port, get(lookups(stored[-5000:])), c, seconds)
        health = await run_phase("GET /healthz", port, get("/healthz"), c, seconds)
        results.append((post, lookup, health))
        print(
            f"  c={c:<3} POST {post.rate:7.0f}/s  lookup {lookup.rate:7.0f}/s  healthz {health.rate:7.0f}/s",
            file=sys.stderr,
        )
    return results, warm.ok + sum(p.ok for p, _, _ in results)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--postgres-url",
        default=os.environ.get("BJAUDIT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
        help="a PostgreSQL server where a scratch database may be created (and dropped afterwards)",
    )
    ap.add_argument("--seconds", type=float, default=5.0, help=f"per phase (at most {MAX_PHASE_SECONDS:g})")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    ap.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    ap.add_argument("--json", type=Path, help="also write the figures here as JSON")
    args = ap.parse_args(argv)

    run = secrets.token_hex(3)
    name = f"bjaudit_bench_{os.getpid()}_{run}"
    admin = psycopg.connect(_libpq(args.postgres_url), autocommit=True, connect_timeout=5)
    admin.execute(f'CREATE DATABASE "{name}"')
    proc: subprocess.Popen[bytes] | None = None
    try:
        url = (
            make_url(sqlalchemy_url(args.postgres_url))
            .set(database=name)
            .render_as_string(hide_password=False)
        )
        upgrade_head(url)
        AUTH[0] = f"Authorization: Bearer {make_key(url)}\r\n"
        port = _free_port()
        proc = start_service(url, port, args.workers)
        print(f"service on 127.0.0.1:{port}, database {name}, {os.cpu_count()} CPUs", file=sys.stderr)
        results, created = asyncio.run(bench(port, args.concurrency, args.seconds, run))
        with psycopg.connect(_libpq(url)) as conn:
            row = conn.execute("SELECT count(*) FROM rounds").fetchone()
            in_db = int(row[0]) if row else 0
        print()
        print(report(results))
        print(f"\n201 Created answers (warm-up included): {created}; rounds in the database: {in_db}")
        if created != in_db:
            print("MISMATCH: every 201 must be a stored round", file=sys.stderr)
            return 1
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            figures = [
                {
                    "endpoint": p.name,
                    "concurrency": p.concurrency,
                    "per_second": round(p.rate, 1),
                    "p50_ms": round(p.pct(0.5), 3),
                    "p99_ms": round(p.pct(0.99), 3),
                    "failed": p.failed,
                }
                for triple in results
                for p in triple
            ]
            args.json.write_text(json.dumps(figures, indent=2) + "\n")
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
