"""How verification scales (issue 20): a full walk of a log against an incremental one after new entries, the time
and size of an inclusion proof, the size of an evidence packet.

    .venv/bin/python -m bench.verify_scale [--rounds 20000] [--new 1000] [--database-url URL]

Stores ``--rounds`` generated rounds through the batch path on a new database (SQLite in a temporary folder by
default), verifies the whole log (the audits re-run), then stores ``--new`` more and verifies only those after the
checkpoint; prints both times and their ratio (the baseline is the full walk, measured in the same run)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import orjson

from app.config import Settings
from app.store.db import Database
from app.store.migrate import upgrade_head
from app.synth.generator import generate_rounds
from app.usecases import batches, integrity, transparency

SOURCE = "bench"


def _store(db: Database, n: int, seed: int) -> None:
    records = [orjson.dumps(r) for r in generate_rounds(n, seed)]
    writer = batches.BatchWriter(db, SOURCE, gzipped=False, chunk_lines=2000, max_line_bytes=1 << 20)
    writer.feed(b"\n".join(records) + b"\n")
    outcome = writer.finish(None)
    for chunk_no in outcome.chunks:
        batches.process_chunk(db, outcome.batch_id, chunk_no)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.verify_scale", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--new", type=int, default=1000)
    parser.add_argument("--database-url", help="an empty database (default: SQLite in a temporary folder)")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bjaudit-verify-"))
    url = args.database_url or f"sqlite:///{folder / 'db.sqlite3'}"
    upgrade_head(url)
    db = Database.from_settings(Settings(database_url=url))
    key = integrity.load_signing_key(folder / "key.pem")
    t = time.perf_counter()
    _store(db, args.rounds, 1)
    print(f"stored {args.rounds} rounds in {time.perf_counter() - t:.1f} s")
    with db.session() as s:
        transparency.sign_head(s, SOURCE, key)
    t = time.perf_counter()
    with db.reading() as s:
        full = integrity.verify_source(s, SOURCE)
    full_s = time.perf_counter() - t
    assert full.ok and full.checkpoint is not None, full.summary()
    print(
        f"full walk of {full.entries} entries (audits re-run): {full_s:.2f} s ({full.entries / full_s:.0f}/s)"
    )
    _store(db, args.new, 2)
    t = time.perf_counter()
    with db.reading() as s:
        new = integrity.verify_source(s, SOURCE, since=full.checkpoint)
    new_s = time.perf_counter() - t
    assert new.ok, new.summary()
    t = time.perf_counter()
    with db.reading() as s:
        again = integrity.verify_source(s, SOURCE)
    again_s = time.perf_counter() - t
    print(
        f"after {args.new} new: incremental {new.entries} entries {new_s:.2f} s; full walk of {again.entries} "
        f"entries {again_s:.2f} s; incremental / full = {new_s / again_s:.3f}"
    )
    with db.session() as s:
        head = transparency.sign_head(s, SOURCE, key)
        round_id = s.execute(
            __import__("sqlalchemy").text("SELECT round_id FROM rounds ORDER BY id LIMIT 1")
        ).scalar_one()
    t = time.perf_counter()
    reps = 50
    for _ in range(reps):
        with db.session() as s:
            proof = transparency.round_proof(s, key, round_id, SOURCE, None)
    proof_ms = (time.perf_counter() - t) / reps * 1000
    print(
        f"inclusion proof at {head['seq']} entries: {len(proof['inclusion'])} hashes "
        f"({32 * len(proof['inclusion'])} bytes), {proof_ms:.1f} ms each (mean of {reps}, with its transaction)"
    )
    with db.session() as s:
        packet = orjson.dumps(transparency.evidence(s, key, round_id, SOURCE, None))
    print(f"evidence packet: {len(packet)} bytes")
    db.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
