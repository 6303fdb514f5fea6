"""The scale benchmark (issue 21): N generated rounds stored the way production stores them, then the auditor's
requests through the HTTP API, one at a time, each kind beside ``GET /v1/rounds/{id}`` measured in the same run.

    .venv/bin/python -m bench.scale --rounds 1000000            # load (or --reuse) then measure
    .venv/bin/python -m bench.scale --rounds 1000000 --reuse --only 'reports|search'
    make bench-scale ROUNDS=1000000 [REUSE=1] [ONLY=pattern]

Load: the floor of a group of four casinos (three in New Jersey, one in New Zealand, each its own source with its
own API key), 200 tables and 100 dealers (app.synth.generator.generate_floor), a year of ``played_at`` ending now
(the NZ rules' year ends in January 1998: its rounds take the year before that), 5% with an injected dealer error.
Each casino's rounds go up as NDJSON batches of ``--batch-rounds`` through ``bjaudit serve`` (queue runner) and
``--workers`` ``bjaudit worker`` processes, into the PostgreSQL database ``bjaudit_scale_<N>``. ``--reuse`` keeps
that database when it holds N rounds at the alembic head (else it is dropped and loaded again); the database is
kept at the end (``--drop`` drops it) so that a measurement can be repeated with ``--reuse``.

Measure: the service is started on the database (a key of every source, read + admin), the parameters are drawn
from what is stored (tables, dealers, shoes, rules, months), and each kind of request runs ``--reps`` times.
Prints n, p50, p95 and max per kind and the ratio of its p95 to the lookup's, then one line
``bench-scale: N rounds; slowest p95 X ms (REQUEST)`` over the requests (the re-audit, a background job timed from
its POST to done, is in the table but not in that line). ``--json FILE`` writes the table. Speed is measured here,
never asserted: tests/batch/test_bench_scale.py runs this module on a tiny load for its correctness only.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlencode

import httpx
import orjson
import psycopg
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from app.cli.upload import upload_file
from app.config import sqlalchemy_url
from app.store import rollups
from app.store.db import Database
from app.store.migrate import head_revisions, upgrade_head
from app.synth.generator import generate_floor
from app.synth.mutator import mutate
from app.usecases.rollups import roll_behind
from bench.batch_ingest import _free_port, _libpq, storage
from bench.keys import make_key

ROOT = Path(__file__).resolve().parents[1]
CASINOS = {"BOR": "US-NJ", "HRA": "US-NJ", "TRP": "US-NJ", "CHC": "NZ"}
"""Casino code -> jurisdiction; each casino is one source (its key's)."""


# --- the database --------------------------------------------------------------------------------------------------


def database_url(admin_url: str, name: str) -> str:
    return make_url(sqlalchemy_url(admin_url)).set(database=name).render_as_string(hide_password=False)


def loaded(admin_url: str, name: str, rounds: int) -> bool:
    """Whether database ``name`` exists, is at the alembic head and holds exactly ``rounds`` rounds."""
    with psycopg.connect(_libpq(admin_url), autocommit=True) as admin:
        if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            return False
    try:
        with psycopg.connect(_libpq(database_url(admin_url, name))) as conn:
            heads = {r[0] for r in conn.execute("SELECT version_num FROM alembic_version")}
            count = conn.execute("SELECT count(*) FROM rounds").fetchone()
    except psycopg.Error:
        return False
    return heads == set(head_revisions()) and count is not None and count[0] == rounds


def recreate(admin_url: str, name: str) -> str:
    with psycopg.connect(_libpq(admin_url), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    url = database_url(admin_url, name)
    upgrade_head(url)
    return url


def drop(admin_url: str, name: str) -> None:
    with psycopg.connect(_libpq(admin_url), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- the service ---------------------------------------------------------------------------------------------------


@dataclass
class Service:
    """``bjaudit serve`` (queue runner) and its workers on one database, logging into ``logs``."""

    url: str
    workers: int
    logs: Path
    base: str = ""
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def __enter__(self) -> Service:
        port = _free_port()
        env = {
            **os.environ,
            "DATABASE_URL": self.url,
            "BJAUDIT_BATCH_RUNNER": "queue",
            "BJAUDIT_EMBEDDED_WORKERS": "0",
            "BJAUDIT_ACCESS_LOG": "false",
            "BJAUDIT_LOG_LEVEL": "warning",
        }
        commands = [["serve", "--port", str(port)]] + [["worker"]] * self.workers
        for i, cmd in enumerate(commands):
            with (self.logs / f"proc{i}.log").open("ab") as log:
                self.procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "app.cli", *cmd], cwd=ROOT, env=env, stdout=log, stderr=log
                    )
                )
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while not self._ready():
            if time.monotonic() > deadline or self.procs[0].poll() is not None:
                self.__exit__()
                raise SystemExit(f"the service did not start: see {self.logs}")
            time.sleep(0.2)
        return self

    def _ready(self) -> bool:
        try:
            return httpx.get(self.base + "/readyz").status_code == 200
        except httpx.HTTPError:
            return False

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        self.procs.clear()


# --- load ------------------------------------------------------------------------------------------------------


def generate(
    rounds: int, seed: int, error_rate: float, batch_rounds: int, out: Path, end: datetime
) -> dict[str, list[Path]]:
    """The floor's rounds, a share ``error_rate`` of them with an injected error, written per casino into NDJSON
    files of at most ``batch_rounds`` lines (the casino's nightly batches): casino -> its files."""
    rng = random.Random(f"errors:{seed}")
    files: dict[str, list[Path]] = {c: [] for c in CASINOS}
    open_: dict[str, tuple[IO[bytes], int]] = {}
    for code, rnd in generate_floor(rounds, seed, CASINOS, 200, 100, timedelta(days=365), end):
        if error_rate and rng.random() < error_rate:
            fault = mutate(rnd, rng)
            if fault is not None:
                rnd = fault.round
        f, n = open_.get(code) or (None, 0)
        if f is None or n >= batch_rounds:
            if f is not None:
                f.close()
            path = out / f"{code}-{len(files[code]) + 1:04d}.ndjson"
            files[code].append(path)
            f, n = path.open("wb"), 0
        f.write(orjson.dumps(rnd) + b"\n")
        open_[code] = (f, n + 1)
    for f, _ in open_.values():
        f.close()
    return files


def load(url: str, args: argparse.Namespace, tmp: Path) -> None:
    t0 = time.perf_counter()
    files = generate(args.rounds, args.seed, args.error_rate, args.batch_rounds, tmp, datetime.now(UTC))
    n_files = sum(len(v) for v in files.values())
    mb = sum(p.stat().st_size for v in files.values() for p in v) / 1e6
    print(
        f"generated {args.rounds:,} rounds ({mb:,.0f} MB, {n_files} batches) in {time.perf_counter() - t0:.0f} s"
    )
    keys = {code: make_key(url, code, ("submit", "read")) for code in files}
    with Service(url, args.workers, tmp) as svc:
        t0 = time.perf_counter()
        locations: list[tuple[str, str]] = []
        for code, paths in files.items():
            with httpx.Client(base_url=svc.base, timeout=600, headers=_bearer(keys[code])) as client:
                for path in paths:
                    accepted = upload_file(client, path, gzip=False, err=io.StringIO())
                    locations.append((code, accepted["location"]))
                    path.unlink()
                    print(
                        f"  uploaded {len(locations)}/{n_files} batches in {time.perf_counter() - t0:.0f} s; "
                        + _progress(svc.base, keys, locations, args.rounds, t0),
                        flush=True,
                    )
        while True:
            line = _progress(svc.base, keys, locations, args.rounds, t0)
            print("  " + line, flush=True)
            if "(all done)" in line:
                break
            if "failed" in line:
                raise SystemExit(f"a batch failed: see {tmp}")
            time.sleep(10)
    total = time.perf_counter() - t0
    print(
        f"loaded {args.rounds:,} rounds in {total:.0f} s = {args.rounds / total:,.0f} rounds/s (upload to last done)"
    )


def _progress(base: str, keys: dict[str, str], locations: list[tuple[str, str]], n: int, t0: float) -> str:
    audited, done, failed = 0, 0, 0
    for code, loc in locations:
        st = httpx.get(base + loc, headers=_bearer(keys[code]), timeout=60).json()
        audited += int(st["counts"]["audited"])
        done += st["state"] == "done"
        failed += st["state"] == "failed"
    dt = time.perf_counter() - t0
    state = " (all done)" if done == len(locations) else ""
    state += f", {failed} failed" if failed else ""
    return f"audited {audited:,}/{n:,} ({audited / n:.0%}) in {dt:.0f} s, {audited / max(dt, 1e-9):,.0f} rounds/s{state}"


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# --- what to ask ---------------------------------------------------------------------------------------------------


@dataclass
class Floor:
    """Parameters drawn from what is stored, in the order a seeded shuffle gives them."""

    rounds: list[tuple[str, str, str]]  # round_id, source, jurisdiction
    tables: list[str]
    dealers: list[str]
    shoes: list[tuple[str, str, str]]  # shoe_id, source, jurisdiction
    rules: list[str]
    sources: list[str]
    months: list[tuple[str, str]]  # from, to (RFC 3339), months of NJ play
    year: tuple[str, str]


def sample(conninfo: str, reps: int, seed: int) -> Floor:
    rng = random.Random(seed)
    with psycopg.connect(conninfo) as conn:

        def column(sql: str) -> list[Any]:
            return [r[0] if len(r) == 1 else tuple(r) for r in conn.execute(sql)]  # type: ignore[arg-type]

        rounds = column(
            f"SELECT round_id, source, jurisdiction FROM rounds TABLESAMPLE SYSTEM (1) REPEATABLE ({seed}) "
            f"LIMIT {reps * 4}"
        ) or column(f"SELECT round_id, source, jurisdiction FROM rounds LIMIT {reps * 4}")
        shoes = column(
            f"SELECT shoe_id, source, jurisdiction FROM rounds TABLESAMPLE SYSTEM (1) REPEATABLE ({seed + 1}) "
            f"WHERE shoe_id IS NOT NULL LIMIT {reps * 4}"
        ) or column(
            f"SELECT shoe_id, source, jurisdiction FROM rounds WHERE shoe_id IS NOT NULL LIMIT {reps * 4}"
        )
        tables = column("SELECT DISTINCT table_id FROM rounds")
        dealers = column("SELECT DISTINCT dealer_id FROM rounds WHERE dealer_id IS NOT NULL")
        rules = column("SELECT DISTINCT rule FROM findings")
        # and the other numbers findings are also cited as (the search finds those through other walks)
        for cited in column("SELECT DISTINCT also_cited_as FROM findings WHERE also_cited_as IS NOT NULL"):
            rules += [n for n in orjson.loads(cited) if n not in rules]
        sources = column("SELECT DISTINCT source FROM rounds")
        last = conn.execute("SELECT max(played_at) FROM rounds WHERE jurisdiction = 'US-NJ'").fetchone()
    end = last[0] if last and last[0] else datetime.now(UTC)
    months = []
    for k in range(1, 13):  # the twelve whole months before the last round's
        y, m = divmod(end.year * 12 + end.month - 1 - k, 12)
        start = datetime(y, m + 1, 1, tzinfo=UTC)
        months.append((start.isoformat(), (start + timedelta(days=32)).replace(day=1).isoformat()))
    for xs in (rounds, shoes, tables, dealers, rules, sources, months):
        rng.shuffle(xs)
    year = ((end - timedelta(days=365)).isoformat(), end.isoformat())
    return Floor(rounds, tables, dealers, shoes, rules, sources, months, year)


def cycle(xs: list[Any]) -> Iterator[Any]:
    if not xs:
        raise SystemExit("nothing stored to draw parameters from")
    while True:
        yield from xs


Path_ = Callable[[], str]
"""Builds one request's path and query."""


def kinds(f: Floor) -> dict[str, Path_]:
    """Every kind of request measured: name -> a function giving the next request's URL (varied parameters)."""
    rnd, tab, dea, sho = cycle(f.rounds), cycle(f.tables), cycle(f.dealers), cycle(f.shoes)
    rul, src, mon = cycle(f.rules), cycle(f.sources), cycle(f.months)
    verdicts = cycle(["violations", "compliant", "unreplayable"])
    pick = random.Random(len(f.rounds)).choice

    def q(path: str, **params: Any) -> str:
        return path + "?" + urlencode({k.rstrip("_"): v for k, v in params.items() if v is not None})

    def month() -> dict[str, str]:
        a, b = next(mon)
        return {"from_": a, "to": b}

    def lookup() -> str:
        rid, source, j = next(rnd)
        return q(f"/v1/rounds/{rid}", source=source, jurisdiction=j)

    def shoe() -> str:
        sid, source, j = next(sho)
        return q(f"/v1/shoes/{sid}", source=source, jurisdiction=j)

    def ui_round() -> str:
        rid, source, j = next(rnd)
        return q(f"/ui/rounds/{rid}", source=source, jurisdiction=j)

    out: dict[str, Path_] = {"GET /v1/rounds/{id}": lookup}
    searches: dict[str, Callable[[], dict[str, Any]]] = {
        "table": lambda: {"table": next(tab)},
        "dealer": lambda: {"dealer": next(dea)},
        "shoe": lambda: {"shoe": next(sho)[0]},
        "rule": lambda: {"rule": next(rul)},
        "verdict=violations": lambda: {"verdict": "violations"},
        "verdict=compliant": lambda: {"verdict": "compliant"},
        "verdict=unreplayable": lambda: {"verdict": "unreplayable"},
        "jurisdiction": lambda: {"jurisdiction": pick(["US-NJ", "NZ"])},
        "source": lambda: {"source": next(src)},
        "from+to (month)": month,
        "corrected=true": lambda: {"corrected": "true"},
        "voided=true": lambda: {"voided": "true"},
        "table+month": lambda: {"table": next(tab), **month()},
        "rule+month": lambda: {"rule": next(rul), **month()},
        "dealer+verdict": lambda: {"dealer": next(dea), "verdict": next(verdicts)},
        "source+verdict+month": lambda: {"source": next(src), "verdict": "violations", **month()},
        "(no filter)": lambda: {},
    }
    for name, params in searches.items():
        out[f"GET /v1/rounds?{name}"] = lambda params=params: q("/v1/rounds", **params())  # type: ignore[misc]
    for name in ("table", "rule", "verdict=violations", "from+to (month)", "dealer+verdict"):
        params = searches[name]
        out[f"GET /v1/rounds?{name} page 2"] = lambda params=params: "PAGE2 " + q("/v1/rounds", **params())  # type: ignore[misc]
    for g in ("rule", "table", "dealer", "shoe", "day"):
        out[f"GET /v1/reports/summary?group_by={g} month"] = lambda g=g: q(  # type: ignore[misc]
            "/v1/reports/summary", group_by=g, **month()
        )
        out[f"GET /v1/reports/summary?group_by={g} year"] = lambda g=g: q(  # type: ignore[misc]
            "/v1/reports/summary", group_by=g, from_=f.year[0], to=f.year[1]
        )
        out[f"GET /v1/reports/summary?group_by={g} default"] = lambda g=g: q(  # type: ignore[misc]
            "/v1/reports/summary", group_by=g
        )
    out["GET /v1/shoes/{id}"] = shoe
    out["UI search page (verdict=violations)"] = lambda: q("/ui", verdict="violations")
    out["UI search page (table+month)"] = lambda: q("/ui", table=next(tab), **month())
    out["UI round page"] = ui_round
    out["UI reports page (default)"] = lambda: q("/ui/reports", group_by=pick(["rule", "table", "day"]))
    out["UI reports page (month)"] = lambda: q("/ui/reports", group_by=pick(["rule", "dealer"]), **month())
    return out


# --- measure -------------------------------------------------------------------------------------------------------


@dataclass
class Kind:
    name: str
    job: bool = False
    """A background job timed from request to done (the re-audit): in the table, not in the slowest request."""
    ms: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)

    def pct(self, q: float) -> float:
        xs = sorted(self.ms)
        return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))] if xs else float("nan")


def login(client: httpx.Client, key: str) -> None:
    """The workbench's session cookie, as a browser gets it (the login form, its CSRF token, the key)."""
    form = client.get("/ui/login").text
    token = re.search(r'name="csrf" value="([^"]+)"', form)
    if token is None:
        raise SystemExit("the workbench's login form has no CSRF token")
    answer = client.post("/ui/login", data={"csrf": token.group(1), "key": key, "next": "/ui"})
    if answer.status_code != 303:
        raise SystemExit(f"workbench login: {answer.status_code} {answer.text[:200]}")


def timed(client: httpx.Client, url: str, kind: Kind) -> httpx.Response:
    t0 = time.perf_counter()
    resp = client.get(url)
    kind.ms.append((time.perf_counter() - t0) * 1e3)
    kind.statuses[resp.status_code] = kind.statuses.get(resp.status_code, 0) + 1
    return resp


def measure_one(client: httpx.Client, name: str, make: Path_, reps: int) -> Kind:
    kind = Kind(name)
    for _ in range(reps):
        url = make()
        if url.startswith("PAGE2 "):
            url = url.removeprefix("PAGE2 ")
            first = client.get(url)
            cursor = first.json().get("next_cursor") if first.status_code == 200 else None
            if not cursor:
                continue  # a single page: no later page to time
            url += "&cursor=" + cursor
        timed(client, url, kind)
    return kind


def reaudit(client: httpx.Client, f: Floor, reps: int, timeout: float) -> Kind:
    """POST a re-audit of a month of every source's rounds, then follow it: the time to done."""
    kind = Kind("POST /v1/reaudit (a month) to done", job=True)
    rounds = 0
    for k in range(reps):
        a, b = f.months[k % len(f.months)]
        t0 = time.perf_counter()
        resp = client.post("/v1/reaudit", json={"from": a, "to": b, "reason": "bench-scale"})
        kind.statuses[resp.status_code] = kind.statuses.get(resp.status_code, 0) + 1
        if resp.status_code != 202:
            continue
        location = resp.json()["location"]
        rounds += int(resp.json()["round_count"])
        while time.perf_counter() - t0 < timeout:
            st = client.get(location).json()
            if st["state"] == "done":
                kind.ms.append((time.perf_counter() - t0) * 1e3)
                break
            time.sleep(0.1)
    if kind.ms:
        kind.name = f"POST /v1/reaudit (a month, {rounds // len(kind.ms):,} rounds) to done"
    return kind


def measure(url: str, args: argparse.Namespace, logs: Path) -> list[Kind]:
    floor = sample(_libpq(url), args.reps, args.seed)
    key = make_key(url, None, ("read", "admin"))
    only = re.compile(args.only) if args.only else None
    results: list[Kind] = []
    with (
        Service(url, args.workers, logs) as svc,
        httpx.Client(base_url=svc.base, timeout=600, headers=_bearer(key)) as client,
    ):
        login(client, key)
        client.get("/v1/rounds?limit=1")  # a first connection, untimed
        for name, make in kinds(floor).items():
            if only is None or only.search(name) or name == "GET /v1/rounds/{id}":
                results.append(measure_one(client, name, make, args.reps))
                print(f"  {_row(results[-1], results[0])}", flush=True)
        if only is None or only.search("reaudit"):
            results.append(reaudit(client, floor, args.reaudits, args.timeout))
            print(f"  {_row(results[-1], results[0])}", flush=True)
    return results


def _row(k: Kind, base: Kind) -> str:
    ratio = k.pct(0.95) / base.pct(0.95) if base.ms else float("nan")
    bad = {s: n for s, n in k.statuses.items() if s >= 400}
    note = f"  (HTTP {bad})" if bad else ""
    return f"{k.name:<52} {len(k.ms):>4} {k.pct(0.5):>9.1f} {k.pct(0.95):>9.1f} {max(k.ms, default=0):>9.1f} {ratio:>7.1f}{note}"


def report(results: list[Kind], rounds: int, json_path: str | None) -> str:
    print()
    print(f"{'request':<52} {'n':>4} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9} {'p95/id':>7}")
    for k in results:
        print(_row(k, results[0]))
    timed_kinds = [k for k in results if k.ms and not k.job]
    slowest = max(timed_kinds, key=lambda k: k.pct(0.95))
    line = f"bench-scale: {rounds} rounds; slowest p95 {slowest.pct(0.95):.0f} ms ({slowest.name})"
    if json_path:
        rows = [
            {
                "request": k.name,
                "job": k.job,
                "n": len(k.ms),
                "p50_ms": k.pct(0.5),
                "p95_ms": k.pct(0.95),
                "max_ms": max(k.ms, default=None),
                "statuses": {str(s): n for s, n in k.statuses.items()},
            }
            for k in results
        ]
        Path(json_path).write_bytes(
            orjson.dumps({"rounds": rounds, "results": rows}, option=orjson.OPT_INDENT_2)
        )
    return line


def footprint(conninfo: str, rounds: int) -> str:
    with psycopg.connect(conninfo) as conn:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        shoes = conn.execute("SELECT count(DISTINCT shoe_id) FROM rounds").fetchone()
    size = int(row[0]) if row else 0
    return (
        f"database {size / 2**30:.2f} GiB = {size / max(rounds, 1):,.0f} bytes a round "
        f"(pg_database_size / N); {shoes[0] if shoes else 0:,} shoes; " + storage(conninfo, rounds)
    )


def catch_up(url: str) -> None:
    """Roll the reports' rollups up to the chains' heads before measuring. During a load the rollers share the cores
    with the workers and fall behind; a report past ``TAIL_LIMIT`` entries not yet rolled adds up the raw rows (10 s
    at 10^7), which is the rollers' lag, not the reports' speed: the lag is printed, then rolled away."""
    db = Database(create_engine(sqlalchemy_url(url)))
    try:
        with db.reading() as s:
            lag = rollups.lag(s)
        t0 = time.perf_counter()
        added = 0
        while True:
            with db.reading() as s:
                if not rollups.behind(s):
                    break
            added += roll_behind(db, 30.0)
        print(
            f"rollups: {lag:,} chain entries behind after the load; rolled {added:,} in {time.perf_counter() - t0:.0f} s"
        )
    finally:
        db.dispose()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--error-rate", type=float, default=0.05)
    ap.add_argument("--batch-rounds", type=int, default=50_000, help="rounds in a batch (one file)")
    ap.add_argument("--workers", type=int, default=2, help="bjaudit worker processes")
    ap.add_argument(
        "--reuse", action="store_true", help="keep a database that already holds N rounds at head"
    )
    ap.add_argument("--drop", action="store_true", help="drop the database at the end (default: keep it)")
    ap.add_argument("--reps", type=int, default=20, help="requests of each kind")
    ap.add_argument("--reaudits", type=int, default=1, help="re-audits of a month")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds a re-audit may take")
    ap.add_argument("--only", help="measure only the kinds of request matching this regular expression")
    ap.add_argument("--json", help="write the table to this file")
    ap.add_argument("--database", help="the database's name (default bjaudit_scale_<N>)")
    ap.add_argument(
        "--admin-url",
        default=os.environ.get("BJAUDIT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    args = ap.parse_args(argv)

    name = args.database or f"bjaudit_scale_{args.rounds}"
    tmp = Path(tempfile.mkdtemp(prefix="bjaudit-scale-"))
    url = database_url(args.admin_url, name)
    try:
        fresh = not (args.reuse and loaded(args.admin_url, name, args.rounds))
        if not fresh:
            print(f"reusing {name}: {args.rounds:,} rounds at the alembic head")
        else:
            print(f"loading {args.rounds:,} rounds into {name} (logs in {tmp})")
            url = recreate(args.admin_url, name)
            load(url, args, tmp)
        catch_up(url)
        if fresh:
            with psycopg.connect(_libpq(url), autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")
        print(footprint(_libpq(url), args.rounds))
        results = measure(url, args, tmp)
        line = report(results, args.rounds, args.json)
    finally:
        if args.drop:
            drop(args.admin_url, name)
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
