"""bench/scale.py on a tiny load (PostgreSQL): it stores the floor's rounds through the service and its workers,
every kind of request it times answers without an error, the re-audit finishes, and ``--reuse`` keeps the loaded
database; bench/retention.py archives and restores a month of it. Correctness only: speed is measured by ``make bench-scale``, never asserted."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest
from sqlalchemy.engine import make_url

from bench import retention as retention_bench
from bench import scale
from tests.integration.conftest import _libpq, postgres_admin_url

pytestmark = pytest.mark.postgres

ROUNDS = 300


def test_bench_scale_loads_a_tiny_floor_and_measures_every_kind_without_an_error(
    postgres_database: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = postgres_database("scale")
    name = make_url(url).database
    out = tmp_path / "scale.json"
    common = [
        "--rounds",
        str(ROUNDS),
        "--database",
        name,
        "--admin-url",
        postgres_admin_url(),
        "--workers",
        "1",
    ]
    assert scale.main([*common, "--batch-rounds", "50", "--reps", "1", "--json", str(out)]) == 0

    printed = capsys.readouterr().out
    # the rollups are caught up before anything is measured (a report behind them adds up the raw rows)
    assert re.search(
        r"^rollups: [\d,]+ chain entries behind after the load; rolled [\d,]+ in \d+ s$", printed, re.M
    )
    assert re.search(rf"^bench-scale: {ROUNDS} rounds; slowest p95 \d+ ms \(.+\)$", printed.splitlines()[-1])
    results = orjson.loads(out.read_bytes())["results"]
    names = [r["request"] for r in results]
    assert names[0] == "GET /v1/rounds/{id}"
    for kind in ("table", "dealer", "shoe", "rule", "verdict=violations", "corrected=true", "voided=true"):
        assert f"GET /v1/rounds?{kind}" in names
    for group in ("rule", "table", "dealer", "shoe", "day"):
        for span in ("month", "year", "default"):
            assert f"GET /v1/reports/summary?group_by={group} {span}" in names
    assert {"GET /v1/shoes/{id}", "UI round page", "UI reports page (month)"} <= set(names)
    for r in results:
        assert set(r["statuses"]) <= {"200", "202"}, r
        assert r["n"] > 0 or "page 2" in r["request"], r
    assert results[-1]["request"].startswith("POST /v1/reaudit") and results[-1]["n"] == 1

    with psycopg.connect(_libpq(url)) as conn:
        stored = conn.execute("SELECT count(*), count(DISTINCT source) FROM rounds").fetchone()
        violations = conn.execute("SELECT count(*) FROM rounds WHERE verdict = 'violations'").fetchone()
    assert stored == (ROUNDS, len(scale.CASINOS))
    assert violations is not None and violations[0] > 0

    assert scale.main([*common, "--reuse", "--reps", "1", "--only", "^GET /v1/shoes"]) == 0
    again = capsys.readouterr().out
    assert f"reusing {name}" in again
    assert "GET /v1/shoes/{id}" in again

    # bench/retention.py on the same load: a copy of it, its fullest month archived and restored, the copy dropped.
    assert retention_bench.main(["--database", name, "--admin-url", postgres_admin_url()]) == 0
    said = capsys.readouterr().out.splitlines()
    assert re.search(
        r"^bench-retention: \d+ rounds; archive [\d.]+ s, restore [\d.]+ s \(ratio [\d.]+ to COPY\); "
        r"writers waited at most [\d,]+ ms$",
        said[-1],
    ), said
    with psycopg.connect(_libpq(postgres_admin_url())) as conn:
        assert conn.execute(
            "SELECT count(*) FROM pg_database WHERE datname LIKE 'bjaudit_retention_%'"
        ).fetchone() == (0,)
