"""Issue 23: the offline commands start at once. Each imports only what it uses: never the service's stack (the
database, the web framework, the metrics) and, while every record reads well, not Pydantic either (the model that
names a record's problems is imported only for a record that has some: app.wire.fast)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests/data/examples/nj-dealer-draws-on-hard-17.round.json"
SERVICE_STACK = {
    "sqlalchemy",
    "alembic",
    "psycopg",
    "fastapi",
    "starlette",
    "uvicorn",
    "prometheus_client",
    "jinja2",
    "httpx",
    "procrastinate",
    "cryptography",
}
PYDANTIC = {"pydantic", "pydantic_core", "pydantic_settings"}

_PROBE = """
import contextlib, io, json, sys
from app.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(json.loads(sys.argv[1]))
    except SystemExit as exc:  # --version, --help
        code = exc.code
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def run(*argv: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(list(argv))],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=60,
    )
    answer: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return answer


@pytest.mark.parametrize(
    "argv",
    [
        ("--version",),
        ("--help",),
        ("audit", str(EXAMPLE)),
        ("audit", "--format", "text", str(EXAMPLE)),
        ("audit", "--ruleset", "US-NJ@2024-09-16", str(EXAMPLE)),
        ("rules",),
        ("rulesets", "--format", "json"),
        ("generate", "--rounds", "3", "--seed", "1", "--output", "/dev/null"),
    ],
    ids=lambda a: " ".join(a[:3]),
)
def test_an_offline_command_imports_nothing_of_the_service(argv: tuple[str, ...]) -> None:
    answer = run(*argv)
    assert answer["code"] in (0, 1), answer["out"]
    loaded = set(answer["modules"])  # type: ignore[arg-type]
    assert not loaded & SERVICE_STACK
    assert not loaded & PYDANTIC


def test_audit_of_good_records_answers_without_pydantic_and_of_a_bad_one_with_its_messages(
    tmp_path: Path,
) -> None:
    good = run("audit", str(EXAMPLE))
    assert json.loads(str(good["out"]))["verdict"] == "violations"
    record = json.loads(EXAMPLE.read_text())
    record["seats"][0]["wager"] = 0
    record["events"][0]["card"] = "1H"
    (tmp_path / "bad.json").write_text(json.dumps(record))
    bad = run("audit", str(tmp_path / "bad.json"))
    assert bad["code"] == 2
    assert "pydantic" in bad["modules"]  # type: ignore[operator]
    assert not set(bad["modules"]) & SERVICE_STACK  # type: ignore[arg-type]
    error = json.loads(str(bad["out"]))["error"]
    assert error["type"].endswith("round-invalid") and len(error["errors"]) > 1
