"""Latency to the pit (issue 22): from a submit's 201 to the webhook's arrival, beside the submit itself, in one run.

Starts the service as ``make bench-http`` does (uvicorn, one worker, a fresh PostgreSQL database, the compiled wheel),
with a webhook receiver on the loopback (bench/receiver.py, in the load generator's event loop;
BJAUDIT_WEBHOOKS_ALLOW_PRIVATE=true) and one subscription to it. ``--submitters`` clients (16) then POST a fixed number
of rounds, each a generated round with an injected dealer or payout error (app.synth.generator + app.synth.mutator:
one finding or more, so every round alerts). For each round: request → 201 (the submit's latency); for each of its
alerts, the 201 → the webhook's arrival at the receiver, matched by round_id (both timed by the same clock in this
process), and to the event's arrival at a client of the stream (GET /v1/findings/stream, open before the first
submit). Printed: p50/p99 of each, their ratios to the submit's, the throughput, and one summary line.

    make bench-alerts
    .venv/bin/python -m bench.alerts_latency --rounds 2000 --submitters 16      # ENGINE=pure, in effect
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import psycopg
from sqlalchemy.engine import make_url

from app.config import sqlalchemy_url
from app.store.migrate import upgrade_head
from app.synth.generator import generate_rounds
from app.synth.mutator import mutate
from bench.http_ingest import _free_port, _libpq, start_service
from bench.keys import make_key
from bench.receiver import Receiver

SOURCE = "bench"


def faulty_rounds(n: int, seed: int) -> list[tuple[str, bytes]]:
    """``n`` unique rounds (round_id, body), each with one injected error from the mutator."""
    rng = random.Random(seed)
    out: list[tuple[str, bytes]] = []
    for doc in generate_rounds(n * 3, seed=seed):
        fault = mutate(doc, rng)
        if fault is not None:
            out.append((fault.round["round_id"], orjson.dumps(fault.round)))
            if len(out) == n:
                return out
    raise RuntimeError(f"only {len(out)} rounds took a fault")


@dataclass
class Submitted:
    sent_ns: dict[str, int] = field(default_factory=dict)
    created_ns: dict[str, int] = field(default_factory=dict)
    """round_id -> when its 201 was read."""
    alerts: dict[str, int] = field(default_factory=dict)
    """round_id -> how many findings its 201 reported."""
    failed: int = 0


async def _post(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes) -> tuple[int, bytes]:
    writer.write(data)
    status = int((await reader.readline()).split(b" ", 2)[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return status, (await reader.readexactly(length) if length else b"")


async def submitter(
    port: int, auth: str, rounds: Iterator[tuple[int, tuple[str, bytes]]], out: Submitted, rate: float | None
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        start = time.perf_counter()
        for k, (rid, body) in rounds:
            if rate:  # the k-th round of the run is due k / rate seconds after the start
                await asyncio.sleep(max(0.0, start + k / rate - time.perf_counter()))
            head = (
                f"POST /v1/rounds HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{auth}"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            t0 = time.perf_counter_ns()
            status, answer = await _post(reader, writer, head + body)
            t1 = time.perf_counter_ns()
            if status != 201:
                out.failed += 1
                continue
            out.sent_ns[rid], out.created_ns[rid] = t0, t1
            out.alerts[rid] = len(orjson.loads(answer)["findings"])
    finally:
        writer.close()


async def submit_all(
    port: int, auth: str, rounds: list[tuple[str, bytes]], concurrency: int, rate: float | None = None
) -> Submitted:
    """Submit ``rounds`` from ``concurrency`` connections: each as soon as a connection is free, or, at ``rate``
    rounds/s, each at its time (the tables' pace rather than the service's most)."""
    out = Submitted()
    shared = enumerate(rounds)  # one iterator: each submitter takes the next round when it is free
    await asyncio.gather(*(submitter(port, auth, shared, out, rate) for _ in range(concurrency)))
    return out


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


@dataclass
class Figures:
    rounds: int
    submitters: int
    seconds: float
    submit_ms: list[float]
    webhook_ms: list[float]
    alerts_expected: int
    alerts_received: int
    drain_s: float
    failed: int
    rate: float | None = None
    stream_ms: list[float] = field(default_factory=list)
    """201 -> the event's arrival at the stream's client (GET /v1/findings/stream)."""

    def row(self, label: str, xs: list[float]) -> str:
        return f"{label:<34} {pct(xs, 0.5):>8.2f} {pct(xs, 0.99):>8.2f} {max(xs, default=float('nan')):>9.2f} {len(xs):>7}"

    def report(self) -> str:
        s50, s99 = pct(self.submit_ms, 0.5), pct(self.submit_ms, 0.99)
        w50, w99 = pct(self.webhook_ms, 0.5), pct(self.webhook_ms, 0.99)
        lines = [
            f"{'':<34} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>9} {'n':>7}",
            self.row("submit: request -> 201", self.submit_ms),
            self.row("201 -> webhook at the receiver", self.webhook_ms),
            f"{'ratio webhook / submit':<34} {w50 / s50:>8.2f} {w99 / s99:>8.2f}",
            self.row("201 -> event at the stream's client", self.stream_ms),
            f"{'ratio stream / submit':<34} {pct(self.stream_ms, 0.5) / s50:>8.2f} "
            f"{pct(self.stream_ms, 0.99) / s99:>8.2f}",
            "",
            f"throughput: {self.rounds / self.seconds:.0f} rounds/s submitted ({self.rounds} in {self.seconds:.2f} s, "
            f"{self.submitters} submitters), {self.alerts_received / (self.seconds + self.drain_s):.0f} alerts/s delivered; "
            f"alerts {self.alerts_received}/{self.alerts_expected} received, the last {self.drain_s * 1000:.0f} ms "
            "after the last 201",
        ]
        if self.failed:
            lines.append(f"FAILED submits: {self.failed}")
        return "\n".join(lines)

    def summary(self) -> str:
        s50, s99 = pct(self.submit_ms, 0.5), pct(self.submit_ms, 0.99)
        w50, w99 = pct(self.webhook_ms, 0.5), pct(self.webhook_ms, 0.99)
        return (
            f"bench-alerts: c={self.submitters}{'' if self.rate is None else f' paced at {self.rate:g}/s'} "
            f"{self.rounds / self.seconds:.0f} rounds/s; submit p50 {s50:.1f} ms "
            f"p99 {s99:.1f} ms; 201->webhook p50 {w50:.1f} ms p99 {w99:.1f} ms (x{w50 / s50:.2f} / x{w99 / s99:.2f} "
            f"the submit's); 201->stream p50 {pct(self.stream_ms, 0.5):.1f} ms p99 {pct(self.stream_ms, 0.99):.1f} ms; "
            f"{self.alerts_received}/{self.alerts_expected} alerts"
        )


def _webhook_round(body: bytes) -> str:
    return str(orjson.loads(body)["data"]["round_id"])


def _event_round(data: bytes) -> str:
    return str(orjson.loads(data)["round_id"])


Sink = list[tuple[int, bytes]]
"""(arrival, body) of what a receiver or the stream's client got."""


def _received(got: Sink, rounds: set[str], of: Callable[[bytes], str]) -> list[tuple[int, str]]:
    """(arrival, round_id) of the alerts received for these rounds."""
    found = ((t, of(body)) for t, body in list(got))
    return [(t, rid) for t, rid in found if rid in rounds]


async def _arrived(
    got: Sink, rounds: set[str], alerts: int, timeout: float, of: Callable[[bytes], str]
) -> None:
    """Wait until ``got`` has the alerts of these rounds (counted every 100 ms), or ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    seen, counted = 0, 0
    while time.monotonic() < deadline:
        now = len(got)
        counted += sum(of(body) in rounds for _, body in got[seen:now])
        seen = now
        if counted >= alerts:
            return
        await asyncio.sleep(0.1)


class StreamClient:
    """A client of GET /v1/findings/stream (Server-Sent Events) that notes when each event's bytes arrived and its
    ``data``, read later."""

    def __init__(self) -> None:
        self.got: Sink = []
        self.open = asyncio.Event()

    async def run(self, port: int, auth: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(
                f"GET /v1/findings/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Accept: text/event-stream\r\n\r\n".encode()
            )
            status = (await reader.readline()).split(b" ", 2)[1]
            if status != b"200":
                raise RuntimeError(f"the stream answered {status.decode()}")
            chunked = False
            while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                chunked |= line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower()
            buffer = b""
            while True:
                if chunked:
                    size = int((await reader.readline()).strip(), 16)
                    if not size:
                        return
                    data = await reader.readexactly(size)
                    await reader.readexactly(2)
                else:
                    data = await reader.read(65536)
                    if not data:
                        return
                arrived = time.perf_counter_ns()
                self.open.set()  # the first comment: the stream follows the head from now
                *events, buffer = (buffer + data).split(b"\n\n")
                for e in events:
                    self.got += [(arrived, x[5:].strip()) for x in e.split(b"\n") if x.startswith(b"data:")]
        finally:
            writer.close()


async def measure(
    port: int, auth: str, admin: str, rounds: int, concurrency: int, timeout: float, rate: float | None
) -> Figures:
    receiver = await Receiver().start()
    stream = StreamClient()
    following = asyncio.create_task(stream.run(port, auth))
    try:
        await asyncio.wait_for(stream.open.wait(), 10)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            r = await client.post(
                "/v1/subscriptions", json={"url": receiver.url}, headers={"Authorization": f"Bearer {admin}"}
            )
            r.raise_for_status()
        made = faulty_rounds(rounds + 300, seed=20261204)
        warm, measured = made[:300], made[300:]
        # warm up (connections, the pool, the first audits, the deliverer's client) until its alerts are delivered
        warmed = await submit_all(port, auth, warm, 8)
        await _arrived(
            receiver.got, set(warmed.created_ns), sum(warmed.alerts.values()), timeout, _webhook_round
        )
        started = time.perf_counter_ns()
        out = await submit_all(port, auth, measured, concurrency, rate)
        finished = time.perf_counter_ns()
        expected = sum(out.alerts.values())
        await _arrived(receiver.got, set(out.created_ns), expected, timeout, _webhook_round)
        await _arrived(stream.got, set(out.created_ns), expected, timeout, _event_round)
        webhook_ms = []
        last = finished
        for arrived, rid in _received(receiver.got, set(out.created_ns), _webhook_round):
            webhook_ms.append((arrived - out.created_ns[rid]) / 1e6)
            last = max(last, arrived)
        stream_ms = [
            (arrived - out.created_ns[rid]) / 1e6
            for arrived, rid in _received(stream.got, set(out.created_ns), _event_round)
        ]
        submit_ms = [(out.created_ns[r] - out.sent_ns[r]) / 1e6 for r in out.created_ns]
        return Figures(
            len(out.created_ns),
            concurrency,
            (finished - started) / 1e9,
            submit_ms,
            webhook_ms,
            expected,
            len(webhook_ms),
            (last - finished) / 1e9,
            out.failed,
            rate,
            stream_ms,
        )
    finally:
        following.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await following
        await receiver.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--postgres-url",
        default=os.environ.get("BJAUDIT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
        help="a PostgreSQL server where a scratch database may be created (and dropped afterwards)",
    )
    ap.add_argument(
        "--rounds", type=int, default=3000, help="rounds submitted and timed (after 300 of warm-up)"
    )
    ap.add_argument("--submitters", type=int, default=16, help="concurrent submitters")
    ap.add_argument(
        "--rate",
        type=float,
        help="rounds per second in all (paced); by default each as soon as a submitter is free",
    )
    ap.add_argument("--timeout", type=float, default=60.0, help="how long to wait for the last webhooks")
    ap.add_argument("--json", type=Path, help="also write the figures here as JSON")
    args = ap.parse_args(argv)

    run = secrets.token_hex(3)
    name = f"bjaudit_bench_alerts_{os.getpid()}_{run}"
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
        auth = f"Authorization: Bearer {make_key(url, SOURCE)}\r\n"
        admin_key = make_key(url, SOURCE, ("admin",))
        port = _free_port()
        proc = start_service(url, port, 1, {"BJAUDIT_WEBHOOKS_ALLOW_PRIVATE": "true"})
        print(f"service on 127.0.0.1:{port}, database {name}, {os.cpu_count()} CPUs", file=sys.stderr)
        figures = asyncio.run(
            measure(port, auth, admin_key, args.rounds, args.submitters, args.timeout, args.rate)
        )
        print()
        print(figures.report())
        print()
        print(figures.summary())
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            doc = {
                "rounds": figures.rounds,
                "submitters": figures.submitters,
                "rounds_per_second": round(figures.rounds / figures.seconds, 1),
                **{
                    f"{what}_{q}_ms": round(pct(xs, p), 3)
                    for what, xs in (
                        ("submit", figures.submit_ms),
                        ("webhook", figures.webhook_ms),
                        ("stream", figures.stream_ms),
                    )
                    for q, p in (("p50", 0.5), ("p99", 0.99))
                },
                "alerts_expected": figures.alerts_expected,
                "alerts_received": figures.alerts_received,
            }
            args.json.write_text(json.dumps(doc, indent=2) + "\n")
        if figures.failed or min(figures.alerts_received, len(figures.stream_ms)) < figures.alerts_expected:
            print("INCOMPLETE: a submit failed or an alert did not arrive", file=sys.stderr)
            return 1
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
