"""`bjaudit audit`, `bjaudit rules` and the options of the others as a user runs them: files in, NDJSON or text
out, exit status."""

from __future__ import annotations

import gzip
import io
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

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
    rows = json.loads(out)["rules"]  # one document, as GET /v1/rules answers
    assert {r["jurisdiction"] for r in rows} == {"US-NJ", "NZ"}
    assert all(r["citation_status"] in ("verified", "unverified", "uncited") for r in rows)
    code, out = run(capsys, "rules", "--format", "ndjson")
    assert [json.loads(x) for x in out.splitlines()] == rows


def test_missing_file_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "/nonexistent/rounds.json"])
    assert code == 2
    assert "no such file" in capsys.readouterr().err


def test_gzipped_files_are_read_whatever_they_are_called(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = COMPLIANT.read_text().replace("\n", " ") + "\n" + HARD17.read_text().replace("\n", " ") + "\n"
    code, expected = run(capsys, "audit", str(COMPLIANT), str(HARD17))
    packed = tmp_path / "day.ndjson.gz"
    packed.write_bytes(gzip.compress(plain.encode()))
    renamed = tmp_path / "day.ndjson"  # gzipped, though not called so
    renamed.write_bytes(packed.read_bytes())
    assert run(capsys, "audit", str(packed)) == (code, expected)
    assert run(capsys, "audit", str(renamed)) == (code, expected)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(packed.read_bytes()))))
    assert run(capsys, "audit", "-") == (code, expected)


def test_a_cut_off_gzip_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cut = tmp_path / "cut.ndjson.gz"
    cut.write_bytes(gzip.compress(COMPLIANT.read_bytes())[:40])
    assert main(["audit", str(cut)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bjaudit: {cut}: not a whole gzip file")
    assert "Traceback" not in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    from importlib.metadata import version

    from app.usecases.auditing import ENGINE_VERSION

    assert (
        capsys.readouterr().out
        == f"bjaudit {version('bjaudit')} (engine {ENGINE_VERSION}, round format v1)\n"
    )


def test_upload_defaults_to_the_local_service(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.cli import build_parser

    monkeypatch.delenv("BJAUDIT_URL", raising=False)
    assert build_parser().parse_args(["upload", "day.ndjson"]).url == "http://127.0.0.1:8000"
    monkeypatch.setenv("BJAUDIT_URL", "http://audit.example:8000")
    assert build_parser().parse_args(["upload", "day.ndjson"]).url == "http://audit.example:8000"


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("rate_limit", "abc", "couldn't parse rate limit string 'abc'"),
        ("auth_failure_limit", "often", "couldn't parse rate limit string"),
        ("rate_limit_storage", "foo://x", "must be memory:// or redis://host:port"),
    ],
)
def test_a_bad_rate_limit_setting_is_refused_when_read(name: str, value: str, says: str) -> None:
    from pydantic import ValidationError

    from app.config import Settings

    with pytest.raises(ValidationError, match=re.escape(says)):
        Settings(**{name: value})
    assert Settings(**{name: ""} if name != "rate_limit_storage" else {name: "redis://127.0.0.1:6379"})


# --- a round played in the future (round-v1 section 2.3): the offline audit has no moment of receipt ---------------


def test_audit_warns_of_a_round_played_in_the_future_and_audits_it_anyway(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(COMPLIANT.read_text())
    later = (datetime.now(UTC) + timedelta(days=2)).replace(microsecond=0)
    soon = (datetime.now(UTC) + timedelta(minutes=4)).replace(microsecond=0)
    nd = tmp_path / "day.ndjson"
    nd.write_text(
        json.dumps({**doc, "round_id": "FUT-1", "played_at": later.isoformat()})
        + "\n"
        + json.dumps({**doc, "round_id": "FUT-2", "played_at": soon.isoformat()})
        + "\n"
        + COMPLIANT.read_text().replace("\n", " ")
        + "\n"
    )
    code = main(["audit", str(nd)])
    captured = capsys.readouterr()
    assert code == 0
    assert [json.loads(x)["verdict"] for x in captured.out.splitlines()] == ["compliant"] * 3
    warnings = captured.err.splitlines()
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(
        f"bjaudit: warning: round FUT-1 ({nd}:1): played_at {later.isoformat()} is "
    )
    assert "after now" in warnings[0] and "audited anyway" in warnings[0]
    # the text format warns the same way, on stderr
    assert main(["audit", "--format", "text", str(nd)]) == 0
    again = capsys.readouterr().err.splitlines()
    assert len(again) == 1 and again[0].split(" after now ")[0] == warnings[0].split(" after now ")[0]


def _generated(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def test_generate_dates_rounds_in_the_past_ending_now(capsys: pytest.CaptureFixture[str]) -> None:
    before = datetime.now(UTC)
    code, out = run(capsys, "generate", "--rounds", "400", "--seed", "3", "--jurisdiction", "US-NJ")
    assert code == 0
    played = [datetime.fromisoformat(d["played_at"]) for d in _generated(out)]
    assert len(played) == 400
    assert max(played) <= datetime.now(UTC)
    assert min(played) >= datetime(2024, 9, 16, 14, 0, tzinfo=UTC)  # the NJ ruleset's first day, 10:00 local
    assert max(played) > before - timedelta(days=400)  # up to now, not up to the generator's fixed default
    code, out = run(capsys, "generate", "--rounds", "200", "--seed", "4", "--error-rate", "0.3")
    assert all(datetime.fromisoformat(d["played_at"]) <= datetime.now(UTC) for d in _generated(out))


def test_generate_until_makes_the_same_file_again(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generate", "--rounds", "150", "--seed", "9", "--until", "2025-06-30T12:00:00-04:00"]
    code, out = run(capsys, *argv)
    assert code == 0
    assert run(capsys, *argv) == (0, out)
    until = datetime(2025, 6, 30, 16, 0, tzinfo=UTC)
    played = [datetime.fromisoformat(d["played_at"]) for d in _generated(out)]
    assert all(p <= until for p in played)
    assert any(p.year == 2025 for p in played)


@pytest.mark.parametrize("until", ["tomorrow", "2025-06-30T12:00:00", "2024-01-01T00:00:00Z"])
def test_generate_refuses_an_unusable_until(until: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--rounds", "5", "--until", until]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bjaudit generate: --until") and "Traceback" not in err


@pytest.mark.parametrize("command", ["check-evidence", "check-archive", "verify --head"])
@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "No such file or directory"),
        (b"not a key\n", "neither a PEM public key nor a raw key in base64"),
        (b"\xff\xfe", "neither a PEM public key nor a raw key in base64"),
        (b"QUFB\n", "32 bytes"),
    ],
    ids=["missing", "not-base64", "not-text", "too-short"],
)
def test_a_public_key_that_cannot_be_used_is_said_in_one_line_and_exits_2(
    command: str, content: bytes | None, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each command that takes ``--public-key`` names the file and why (it printed a traceback, exit 1)."""
    key = tmp_path / "trusted.pem"
    if content is not None:
        key.write_bytes(content)
    given = tmp_path / "given.json"
    given.write_text("{}")
    code = main([*command.split(), str(given), "--public-key", str(key)])
    err = capsys.readouterr().err
    assert code == 2
    name = command.split()[0]
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"bjaudit {name}: the public key {key} cannot be used: ") and says in err, err
