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

The outbox's cost (issue 22, ``make bench-outbox``): ``--subscriptions 0 3`` measures POST /v1/rounds alone, with 0
then 3 webhook subscriptions (every finding, to a receiver on the loopback in this process, bench/receiver.py),
alternated ``--repeat`` times, and prints the ratio of the rounds stored per second with 3 to those with 0 (the
webhooks are read from the chain and POSTed by the service's deliverer, in the same process as the submits: that is
the cost). ``--faulty 1`` injects a dealer or payout error into that share of the rounds (app.synth.mutator), so
that there is something to deliver: the generated rounds are legal, without findings.

    .venv/bin/python -m bench.http_ingest                       # 5 s per phase
    .venv/bin/python -m bench.http_ingest --seconds 10 --concurrency 1 16 64
    .venv/bin/python -m bench.http_ingest --concurrency 16 --subscriptions 0 3 --repeat 3 --faulty 1
    BJAUDIT_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres .venv/bin/python -m bench.http_ingest
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
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
from app.synth.mutator import mutate
from bench.keys import make_key
from bench.receiver import Receiver

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


def round_factory(run: str, count: int, faulty: float = 0.0) -> Callable[[], tuple[str, bytes]]:
    """Unique, realistic rounds from the seeded generator (both jurisdictions, ~1.3 KB each), made before the
    load starts so that the load generator only sends; the example rounds take over if they run out. A share
    ``faulty`` of them carry an injected error (a finding or more)."""
    rng = random.Random(22)

    def made(r: dict[str, object]) -> dict[str, object]:
        fault = mutate(r, rng) if faulty and rng.random() < faulty else None
        return r if fault is None else fault.round

    generated = [(str(r["round_id"]), orjson.dumps(made(r))) for r in generate_rounds(count, seed=20261202)]
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


# --- the outbox's cost (issue 22) ---------------------------------------------------------------------------------

ADMIN = [""]
"""A key with the admin scope, for the subscriptions."""


async def _hold_subscriptions(port: int, receiver: Receiver, want: int, held: list[str]) -> None:
    """Hold exactly ``want`` subscriptions (every finding, to ``receiver``), made or deleted through the API."""
    import httpx

    headers = {"Authorization": f"Bearer {ADMIN[0]}"}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=10) as client:
        while len(held) > want:
            (await client.delete(f"/v1/subscriptions/{held.pop()}")).raise_for_status()
        while len(held) < want:
            r = await client.post("/v1/subscriptions", json={"url": receiver.url})
            r.raise_for_status()
            held.append(r.json()["id"])


async def _quiet(receiver: Receiver, most: float = 15.0) -> None:
    """Wait until nothing has arrived for half a second (the deliverer ends its pass), ``most`` seconds at most."""
    deadline = time.monotonic() + most
    seen = -1
    while len(receiver.got) != seen and time.monotonic() < deadline:
        seen = len(receiver.got)
        await asyncio.sleep(0.5)


@dataclass
class OutboxPhase:
    subscriptions: int
    post: Phase
    webhooks: int
    """Webhooks that arrived at the receiver during the phase."""
    cpu_seconds: float
    """CPU time of the service's process during the phase (user + system)."""
    repeat: int

    @property
    def cpu_ms_per_round(self) -> float:
        return self.cpu_seconds * 1000 / max(1, self.post.ok)


def process_cpu(pid: int) -> Callable[[], float]:
    """The CPU seconds (user + system) a process has used so far, from /proc: steadier than the throughput on a
    machine that other work shares."""
    tick = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / tick

    return read


async def outbox(
    port: int,
    concurrencies: list[int],
    seconds: float,
    counts: list[int],
    repeat: int,
    run: str,
    faulty: float,
    cpu: Callable[[], float],
) -> tuple[list[OutboxPhase], int]:
    phases = len(concurrencies) * len(counts) * repeat
    make = round_factory(run, min(200_000, int(1500 * seconds * phases) + 5000), faulty)
    receiver = await Receiver().start()
    held: list[str] = []
    stored: list[str] = []
    results = []
    try:
        created = (await run_phase("warmup", port, post_round(make, stored), 8, 1.0)).ok
        for c in concurrencies:
            # alternated, so that drift (the tables growing, the machine's other work) falls on both
            for n in range(repeat):
                for k in counts:
                    await _hold_subscriptions(port, receiver, k, held)
                    await _quiet(receiver)
                    before, cpu_before = len(receiver.got), cpu()
                    post = await run_phase("POST /v1/rounds", port, post_round(make, stored), c, seconds)
                    results.append(OutboxPhase(k, post, len(receiver.got) - before, cpu() - cpu_before, n))
                    created += post.ok
                    print(
                        f"  c={c:<3} subscriptions {k}: POST {post.rate:7.0f}/s  webhooks "
                        f"{results[-1].webhooks / post.seconds:7.0f}/s  CPU {results[-1].cpu_ms_per_round:.2f} ms/round",
                        file=sys.stderr,
                    )
        await _hold_subscriptions(port, receiver, 0, held)
    finally:
        await receiver.close()
    return results, created


def outbox_report(results: list[OutboxPhase], counts: list[int], faulty: float) -> str:
    lines = [
        f"POST /v1/rounds with webhook subscriptions (each phase; {faulty:.0%} of the rounds with an injected error)",
        f"{'subscriptions':>13} {'conc':>4} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/round':>13} "
        f"{'webhooks/s':>11}",
    ]
    for r in results:
        p = r.post
        lines.append(
            f"{r.subscriptions:>13} {p.concurrency:>4} {p.rate:>8.0f} {p.pct(0.5):>8.2f} {p.pct(0.99):>8.2f} "
            f"{r.cpu_ms_per_round:>13.3f} {r.webhooks / p.seconds:>11.0f}"
            + (f"   failed {p.failed}" if p.failed else "")
        )
    base = counts[0]
    for c in sorted({r.post.concurrency for r in results}):
        for k in counts[1:]:
            # each repeat's phase with k beside the same repeat's with the base: drift falls on both
            pairs = [
                (a, b)
                for a in results
                for b in results
                if a.post.concurrency == b.post.concurrency == c
                and a.repeat == b.repeat
                and (a.subscriptions, b.subscriptions) == (k, base)
            ]
            rates = sorted(a.post.rate / b.post.rate for a, b in pairs)
            cpus = sorted(a.cpu_ms_per_round / b.cpu_ms_per_round for a, b in pairs)
            rate = rates[len(rates) // 2]
            lines.append(
                f"bench-outbox: c={c} faulty={faulty:g}: rounds/s with {k} subscriptions / with {base}: {rate:.3f} "
                f"({(rate - 1) * 100:+.1f}%; pairs {min(rates):.2f}..{max(rates):.2f}); CPU per round "
                f"x{cpus[len(cpus) // 2]:.3f} (pairs {min(cpus):.2f}..{max(cpus):.2f}); medians of {len(pairs)} pairs"
            )
    return "\n".join(lines)


def _check_stored(url: str, created: int) -> int:
    """1 (and says so) unless every 201 is a stored round."""
    with psycopg.connect(_libpq(url)) as conn:
        row = conn.execute("SELECT count(*) FROM rounds").fetchone()
        in_db = int(row[0]) if row else 0
    print(f"\n201 Created answers (warm-up included): {created}; rounds in the database: {in_db}")
    if created != in_db:
        print("MISMATCH: every 201 must be a stored round", file=sys.stderr)
        return 1
    return 0


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
    ap.add_argument(
        "--subscriptions",
        type=int,
        nargs="+",
        help="the outbox's cost: POST /v1/rounds alone with each of these numbers of webhook subscriptions (0 3)",
    )
    ap.add_argument(
        "--repeat", type=int, default=2, help="with --subscriptions: how many times each is measured"
    )
    ap.add_argument(
        "--faulty", type=float, default=0.0, help="the share of rounds with an injected error (0 to 1)"
    )
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
        extra = {"BJAUDIT_WEBHOOKS_ALLOW_PRIVATE": "true"} if args.subscriptions else None
        proc = start_service(url, port, args.workers, extra)
        print(f"service on 127.0.0.1:{port}, database {name}, {os.cpu_count()} CPUs", file=sys.stderr)
        if args.subscriptions:
            ADMIN[0] = make_key(url, "bench", ("admin",))
            counts = args.subscriptions
            phases, made = asyncio.run(
                outbox(
                    port,
                    args.concurrency,
                    args.seconds,
                    counts,
                    args.repeat,
                    run,
                    args.faulty,
                    process_cpu(proc.pid),
                )
            )
            print()
            print(outbox_report(phases, counts, args.faulty))
            return _check_stored(url, made)
        results, created = asyncio.run(bench(port, args.concurrency, args.seconds, run))
        print()
        print(report(results))
        if _check_stored(url, created):
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
