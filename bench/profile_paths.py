"""Where the time of a round goes on the two ways in, database included, on PostgreSQL (in-process, cProfile):

    python -m bench.profile_paths submit [--rounds 3000] [--concurrency 1]   # POST /v1/rounds through the ASGI app
    python -m bench.profile_paths chunk  [--rounds 6000]                     # batch chunks (process_chunk)
    python -m bench.profile_paths ladder [--rounds 2000] [--concurrency 16]  # what each step of a submission adds

``submit`` builds the service's ASGI application (``app.main.create_app``) on a fresh PostgreSQL database (from
BJAUDIT_TEST_POSTGRES_URL, dropped afterwards) and calls it directly with ASGI messages, no socket and no HTTP
client, ``--concurrency`` requests at a time: the whole request path (middleware, the key check and rate limit,
the body, parse, audit, encode, the one statement, the answer). ``chunk`` uploads the rounds as one batch with
:class:`app.usecases.batches.BatchWriter` and audits its chunks with :func:`app.usecases.batches.process_chunk`.

``ladder`` measures, without a profiler, the CPU per request of ``GET /healthz`` and of ``POST /v1/rounds`` with less
and less of the use case replaced by a stored answer: nothing done (the key check, the rate limit, the body, the
answer), then parse and audit, then the whole submission (rows, chain content, the statement in its group). Each
step's cost is its difference from the one before; the steps interleave in rounds of blocks, medians printed.

Prints CPU time per round without the profiler (``time.process_time`` of this process: what the worker costs, not
what PostgreSQL does), then, under the profiler, the share of each part of the code and the costliest functions.
The profiler slows Python calls more than C ones: read shares, not microseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import secrets
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import orjson
import psycopg
from sqlalchemy.engine import make_url

from app.config import Settings, sqlalchemy_url
from app.store.migrate import upgrade_head
from app.synth.generator import generate_rounds
from bench.keys import make_key
from bench.profile_round import shares

PARTS = [
    ("parse: msgspec, the model when it refuses (app/wire)", ("app/wire/", "pydantic", "msgspec")),
    ("audit: replay, checks, rules (app/domain, jurisdictions)", ("app/domain/", "app/jurisdictions/")),
    ("key check + rate limit (app/api/auth, limits)", ("app/api/auth.py", "app/usecases/keys.py", "limits/")),
    ("HTTP: middleware, routing, body (starlette, fastapi, app/api)", ("starlette/", "fastapi/", "app/api/")),
    (
        "metrics, logs (prometheus_client, app/metrics)",
        ("prometheus_client", "app/metrics.py", "app/logs.py"),
    ),
    ("store: rows, chain content (app/store, app/usecases)", ("app/store/", "app/usecases/")),
    ("database driver (psycopg, sqlalchemy)", ("psycopg", "sqlalchemy")),
    ("event loop (asyncio, anyio)", ("asyncio", "anyio", "selectors", "<method 'poll'", "select.epoll")),
    ("encode/decode JSON (orjson, json)", ("orjson", "json/")),
]


def report(profiler: cProfile.Profile, n: int, top: int) -> None:
    shares(profiler, n, top, PARTS)


# --- the database ---------------------------------------------------------------------------------------------


class Scratch:
    """A fresh, migrated PostgreSQL database, dropped on exit."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self.name = f"bjaudit_profile_{os.getpid()}_{secrets.token_hex(3)}"

    def __enter__(self) -> str:
        base = make_url(sqlalchemy_url(self.admin_url))
        self.admin = psycopg.connect(
            base.set(drivername="postgresql").render_as_string(hide_password=False), autocommit=True
        )
        self.admin.execute(f'CREATE DATABASE "{self.name}"')
        url = base.set(database=self.name).render_as_string(hide_password=False)
        upgrade_head(url)
        return url

    def __exit__(self, *exc: object) -> None:
        self.admin.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self.admin.close()


# --- POST /v1/rounds through the ASGI app ----------------------------------------------------------------------


async def _call(app: Any, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


async def _lifespan(app: Any) -> Callable[[], Any]:
    """Start the app's lifespan; returns the coroutine function that stops it."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    started: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await queue.put({"type": "lifespan.startup"})
    task = asyncio.ensure_future(
        app({"type": "lifespan", "asgi": {"version": "3.0"}}, queue.get, started.put)
    )
    message = await started.get()
    if message["type"] != "lifespan.startup.complete":
        raise RuntimeError(str(message))

    async def stop() -> None:
        await queue.put({"type": "lifespan.shutdown"})
        await started.get()
        await task

    return stop


def profile_submit(url: str, n: int, concurrency: int, top: int) -> None:
    from app.main import create_app

    key = make_key(url)
    settings = Settings(database_url=url, embedded_workers=0, access_log=False, rate_limit="1000000/second")
    app = create_app(settings)
    bodies = [orjson.dumps(r) for r in generate_rounds(2 * n + 400, seed=20261204)]
    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (b"authorization", f"Bearer {key}".encode()),
    ]

    async def post(batch: list[bytes]) -> None:
        it = iter(batch)

        async def client() -> None:
            for body in it:
                status = await _call(
                    app, "POST", "/v1/rounds", [*headers, (b"content-length", str(len(body)).encode())], body
                )
                if status != 201:
                    raise RuntimeError(f"POST answered {status}")

        await asyncio.gather(*(client() for _ in range(concurrency)))

    async def main() -> None:
        stop = await _lifespan(app)
        try:
            await post(bodies[:400])  # warm up
            t0, c0 = time.perf_counter(), time.process_time()
            await post(bodies[400 : 400 + n])
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(
                f"POST /v1/rounds in-process, {n} rounds, concurrency {concurrency}: "
                f"{cpu / n * 1e6:.0f} us CPU/round in this process, {n / wall:,.0f} rounds/s wall"
            )
            profiler = cProfile.Profile()
            profiler.enable()
            await post(bodies[400 + n :])
            profiler.disable()
            report(profiler, n, top)
        finally:
            await stop()

    asyncio.run(main())


def ladder(url: str, n: int, concurrency: int, repeats: int = 3) -> None:
    from app.api import deps
    from app.main import create_app
    from app.usecases import offline
    from app.usecases import rounds as round_cases

    key = make_key(url)
    settings = Settings(database_url=url, embedded_workers=0, access_log=False, rate_limit="1000000/second")
    app = create_app(settings)
    bodies = [orjson.dumps(r) for r in generate_rounds(n * (2 * repeats + 1) + 400, seed=20261203)]
    answer = offline.audit(bodies[0]).body
    submit = deps.SingleRounds.submit
    step = ["whole"]

    async def replaced(
        self: Any, record: bytes, source: str, key_id: str | None = None, received_at: Any = None
    ) -> Any:
        if step[0] == "whole":
            return await submit(self, record, source, key_id, received_at)
        if step[0] == "parse and audit":
            offline.audit_read(offline.read_round(record, received_at), None)
        return round_cases.Submitted(True, "R-1", "US-NJ", answer)

    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (b"authorization", f"Bearer {key}".encode()),
    ]

    async def post(body: bytes) -> None:
        length = (b"content-length", str(len(body)).encode())
        if (status := await _call(app, "POST", "/v1/rounds", [*headers, length], body)) not in (200, 201):
            raise RuntimeError(f"POST answered {status}")

    async def health(_: bytes) -> None:
        if (status := await _call(app, "GET", "/healthz", headers[:1], b"")) != 200:
            raise RuntimeError(f"/healthz answered {status}")

    async def block(call: Callable[[bytes], Any], count: int, fresh: bool) -> float:
        left = [count]

        async def client() -> None:
            while left[0] > 0:
                left[0] -= 1
                await call(bodies.pop() if fresh else bodies[-1])

        c0 = time.process_time()
        await asyncio.gather(*(client() for _ in range(concurrency)))
        return (time.process_time() - c0) / count * 1e6

    steps = ["GET /healthz", "POST, nothing done", "parse and audit", "whole"]
    figures: dict[str, list[float]] = defaultdict(list)

    async def main() -> None:
        stop = await _lifespan(app)
        deps.SingleRounds.submit = replaced  # type: ignore[method-assign]
        try:
            await block(post, 400, fresh=True)  # warm up
            for _ in range(repeats):
                for name in steps:
                    step[0] = name
                    call = health if name == "GET /healthz" else post
                    figures[name].append(await block(call, n, fresh=name == "whole"))
        finally:
            deps.SingleRounds.submit = submit  # type: ignore[method-assign]
            await stop()

    asyncio.run(main())
    print(f"CPU per request in this process, concurrency {concurrency}, median of {repeats} blocks of {n}:")
    before = None
    for name in steps:
        median = sorted(figures[name])[len(figures[name]) // 2]
        added = "" if before is None else f"   (+{median - before:.0f})"
        print(f"  {name:<22} {median:6.0f} us{added}")
        before = median


# --- batch chunks ----------------------------------------------------------------------------------------------


def profile_chunk(url: str, n: int, chunk_lines: int, top: int) -> None:
    import random

    from app.store.db import Database
    from app.synth.mutator import mutate
    from app.usecases.batches import BatchWriter, process_chunk

    rng = random.Random(1)
    lines = []
    for d in generate_rounds(2 * n, seed=1):
        if rng.random() < 0.05 and (m := mutate(d, rng)) is not None:
            d = m[0]
        lines.append(orjson.dumps(d))
    db = Database.from_settings(Settings(database_url=url))

    def upload(part: list[bytes]) -> tuple[str, list[int]]:
        w = BatchWriter(db, "bench", gzipped=False, chunk_lines=chunk_lines, max_line_bytes=1 << 20)
        w.feed(b"\n".join(part) + b"\n")
        out = w.finish(None)
        return out.batch_id, out.chunks

    try:
        batch, chunks = upload(lines[:n])
        process_chunk(db, batch, chunks[0])  # warm up
        t0, c0 = time.perf_counter(), time.process_time()
        for c in chunks[1:]:
            process_chunk(db, batch, c)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        done = n - chunk_lines
        print(
            f"process_chunk on PostgreSQL, {len(chunks) - 1} chunks of {chunk_lines}: {cpu / done * 1e6:.0f} us "
            f"CPU/round in this process, {wall / done * 1e6:.0f} us wall/round"
        )
        batch, chunks = upload(lines[n:])
        profiler = cProfile.Profile()
        profiler.enable()
        for c in chunks:
            process_chunk(db, batch, c)
        profiler.disable()
        report(profiler, n, top)
    finally:
        db.dispose()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", choices=["submit", "chunk", "ladder"])
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--concurrency", type=int, help="submit, ladder: requests at a time (default 1, 16)")
    ap.add_argument("--chunk-lines", type=int, default=2000)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument(
        "--postgres-url",
        default=os.environ.get("BJAUDIT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    args = ap.parse_args()
    with Scratch(args.postgres_url) as url:
        if args.path == "submit":
            profile_submit(url, args.rounds or 3000, args.concurrency or 1, args.top)
        elif args.path == "ladder":
            ladder(url, args.rounds or 2000, args.concurrency or 16)
        else:
            profile_chunk(url, args.rounds or 6000, args.chunk_lines, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
