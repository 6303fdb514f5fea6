"""`bjaudit audit` and `bjaudit rules` as a user runs them: files in, NDJSON or text out, exit status."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from app.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
COMPLIANT = EXAMPLES / "nj-compliant-double.round.json"
HARD17 = EXAMPLES / "nj-dealer-draws-on-hard-17.round.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_compliant_round_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "audit", str(COMPLIANT))
    assert code == 0
    line = json.loads(out)
    assert line["verdict"] == "compliant" and line["round_id"] == "EX-NJ-0001"


def test_findings_exit_1_and_results_keep_input_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "audit", str(COMPLIANT), str(HARD17))
    assert code == 1
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x["round_id"] for x in lines] == ["EX-NJ-0001", "EX-NJ-0002"]
    assert lines[1]["findings"][0]["rule"] == "13:69F-2.12(b)1"


def test_ndjson_array_and_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.round.json"))]
    nd = tmp_path / "day.ndjson"
    nd.write_text("\n".join(json.dumps(d) for d in docs) + "\n\n")
    arr = tmp_path / "day.json"
    arr.write_text(json.dumps(docs, indent=2))
    _, out_nd = run(capsys, "audit", str(nd))
    _, out_arr = run(capsys, "audit", str(arr))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(nd.read_bytes())))
    _, out_stdin = run(capsys, "audit", "-")
    assert out_nd.splitlines() == out_arr.splitlines() == out_stdin.splitlines()
    assert [json.loads(x)["round_id"] for x in out_nd.splitlines()] == [d["round_id"] for d in docs]


def test_unreadable_record_gives_a_problem_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = json.loads(COMPLIANT.read_text())
    bad["events"][0]["card"] = "1H"
    nd = tmp_path / "mixed.ndjson"
    nd.write_text(json.dumps(bad) + "\n{not json\n" + HARD17.read_text().replace("\n", " ") + "\n")
    code, out = run(capsys, "audit", str(nd))
    assert code == 2
    first, second, third = (json.loads(x) for x in out.splitlines())
    assert first["round_id"] == "EX-NJ-0001" and first["source"].endswith(":1")
    assert first["error"]["status"] == 422
    assert any(e["pointer"] == "/events/0/card" for e in first["error"]["errors"])
    assert second["round_id"] is None and second["source"].endswith(":2")
    assert third["verdict"] == "violations"


def test_text_format_reads_like_a_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "audit", "--format", "text", str(HARD17))
    assert code == 1
    assert "EX-NJ-0002" in out and "13:69F-2.12(b)1" in out and "event 7" in out
    assert "1 round: 0 compliant, 1 with violations" in out


def test_rules_lists_the_catalogue_with_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "rules", "--jurisdiction", "NZ")
    assert code == 0
    assert "9.3" in out and "not checkable" in out and "9.2" in out
    code, out = run(capsys, "rules", "--format", "json")
    rows = [json.loads(x) for x in out.splitlines()]
    assert {r["jurisdiction"] for r in rows} == {"US-NJ", "NZ"}
    assert all(r["citation_status"] in ("verified", "unverified", "uncited") for r in rows)


def test_missing_file_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "/nonexistent/rounds.json"])
    assert code == 2
    assert "no such file" in capsys.readouterr().err
