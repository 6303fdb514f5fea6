"""What archiving and restoring a month cost (issue 21), and how long stores wait meanwhile, beside a raw ``COPY`` of
the same month's rounds measured in the same run.

    .venv/bin/python -m bench.retention --rounds 200000     # on bjaudit_scale_200000 (python -m bench.scale first)

Works on a copy (``CREATE DATABASE ... TEMPLATE``) of the database ``bench.scale`` loaded, dropped at the end. Takes
its fullest month partition, archives it (``retention.archive_month``, a key of its own signing the heads), copies
the month's rounds out and in again by a binary ``COPY`` into an empty table like ``rounds`` (the baseline), then
restores the archive while another connection takes ``round_keys``' lock for writing every 50 ms, as a store does.
Prints each time, the restore's rate and its ratio to the ``COPY``'s, and the longest a writer waited, then one line
``bench-retention: N rounds; archive A s, restore R s (ratio X to COPY); writers waited at most W ms``. Speed is
measured here, never asserted (tests/batch/test_bench_scale.py runs it on a tiny load for its correctness only)."""

from __future__ import annotations

import argparse
import secrets
import tempfile
import threading
import time
from pathlib import Path

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from app.config import Settings
from app.store import partitions
from app.store.db import Database
from app.usecases import retention
from bench.batch_ingest import _libpq
from bench.scale import database_url

WRITER_EVERY = 0.05
"""Seconds between a writer's takings of ``round_keys``' lock."""


class Writer(threading.Thread):
    """Takes ``round_keys``' lock for writing (ROW EXCLUSIVE, what a store's insert of a key takes) every
    :data:`WRITER_EVERY` seconds until stopped; the waits it saw."""

    def __init__(self, conninfo: str) -> None:
        super().__init__(daemon=True)
        self.conninfo, self.waits, self.stopping = conninfo, list[float](), threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.conninfo) as conn:
            while not self.stopping.is_set():
                t = time.perf_counter()
                conn.execute("LOCK TABLE round_keys IN ROW EXCLUSIVE MODE")
                self.waits.append(time.perf_counter() - t)
                conn.commit()
                time.sleep(WRITER_EVERY)

    def longest_ms(self) -> float:
        self.stopping.set()
        self.join()
        return max(self.waits, default=0.0) * 1000


def fullest_month(conninfo: str) -> tuple[str, int]:
    with psycopg.connect(conninfo) as conn:
        names = conn.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = 'rounds'::regclass"
        ).fetchall()
        counted = [
            (name, int(conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]))  # type: ignore[index]
            for (name,) in names
            if partitions.month_of_name(name) is not None
        ]
    name, n = max(counted, key=lambda row: (row[1], row[0]))
    if not n:
        raise SystemExit(
            "bench.retention: no month partition holds rounds (load it with python -m bench.scale)"
        )
    return name, n


def raw_copy(source: str, target: str, part: str) -> float:
    """Seconds to COPY the month's rounds (binary, read from ``source`` beforehand) into an empty table like
    ``rounds`` in ``target``."""
    with (
        psycopg.connect(source) as conn,
        conn.cursor().copy(f"COPY (SELECT * FROM {part}) TO STDOUT (FORMAT binary)") as out,
    ):
        data = b"".join(bytes(block) for block in out)
    with psycopg.connect(target) as conn:
        conn.execute("CREATE TABLE copy_baseline (LIKE rounds INCLUDING DEFAULTS)")
        conn.commit()
        t = time.perf_counter()
        with conn.cursor().copy("COPY copy_baseline FROM STDIN (FORMAT binary)") as into:
            into.write(data)
        conn.commit()
        took = time.perf_counter() - t
        conn.execute("DROP TABLE copy_baseline")
        conn.commit()
    return took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.retention",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--rounds", type=int, default=200_000, help="the N of bjaudit_scale_N (default 200000)")
    ap.add_argument("--database", help="the loaded database (default bjaudit_scale_<rounds>)")
    ap.add_argument(
        "--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres", help="where to copy it"
    )
    args = ap.parse_args(argv)
    loaded = args.database or f"bjaudit_scale_{args.rounds}"
    copy = f"bjaudit_retention_{secrets.token_hex(4)}"
    admin = _libpq(args.admin_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (loaded,)).fetchone() is None:
            raise SystemExit(
                f"bench.retention: no database {loaded}: load it first (make bench-scale ROUNDS={args.rounds})"
            )
        conn.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{loaded}"')
    url = database_url(args.admin_url, copy)
    db = Database.from_settings(Settings(database_url=url))
    try:
        part, n = fullest_month(_libpq(url))
        month = partitions.month_of_name(part)
        assert month is not None
        print(f"{loaded}, copied to {copy}: month {month:%Y-%m}, {n:,} rounds", flush=True)
        with tempfile.TemporaryDirectory(prefix="bjaudit-retention-") as folder:
            copy_s = raw_copy(_libpq(url), _libpq(url), part)
            print(f"raw COPY of its rounds: {copy_s:.2f} s = {n / copy_s:,.0f} rows/s", flush=True)
            t = time.perf_counter()
            done = retention.archive_month(db, month, Path(folder), "bench", Ed25519PrivateKey.generate())
            archive_s = time.perf_counter() - t
            size = done.path.stat().st_size
            print(
                f"archive: {archive_s:.1f} s ({archive_s / n * 1000:.2f} ms a round), {size / n:.0f} bytes a round"
            )
            writer = Writer(_libpq(url))
            writer.start()
            time.sleep(2 * WRITER_EVERY)
            t = time.perf_counter()
            retention.restore(db, done.path)
            restore_s = time.perf_counter() - t
            waited = writer.longest_ms()
        ratio = (n / restore_s) / (n / copy_s)
        print(f"restore: {restore_s:.1f} s = {n / restore_s:,.0f} rounds/s; ratio to raw COPY {ratio:.2f}")
        print(f"a writer of round_keys waited at most {waited:,.0f} ms ({len(writer.waits)} tries)")
        print(
            f"bench-retention: {n} rounds; archive {archive_s:.1f} s, restore {restore_s:.1f} s (ratio {ratio:.2f} "
            f"to COPY); writers waited at most {waited:,.0f} ms"
        )
    finally:
        db.dispose()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
