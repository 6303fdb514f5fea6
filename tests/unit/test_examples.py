"""Every hand-written example of the spec gives exactly its expected findings (rule and event).

The examples are kept in the repo (tests/data/examples) so that the service and the README can use them; when
the shared spec folder sits beside the repo (as in CI), its examples are checked too, and must equal our copies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders import audit

HERE = Path(__file__).resolve().parents[1] / "data" / "examples"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "spec" / "examples"


def _examples() -> list[Path]:
    found = sorted(HERE.glob("*.round.json"))
    if SHARED.is_dir():
        found += sorted(SHARED.glob("*.round.json"))
    return found


@pytest.mark.parametrize("path", _examples(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_example_gives_its_expected_findings(path: Path) -> None:
    expected = json.loads(path.with_name(path.name.replace(".round.json", ".expected.json")).read_text())
    result = audit(json.loads(path.read_text()))
    assert [{"rule": f["rule"], "event": f["event"]} for f in result["findings"]] == expected
    assert result["verdict"] == ("compliant" if not expected else "violations")


def test_our_copies_match_the_shared_spec() -> None:
    ours = {p.name: p.read_bytes() for p in HERE.iterdir()}
    assert len(ours) >= 10
    if SHARED.is_dir():
        assert ours == {p.name: p.read_bytes() for p in SHARED.iterdir()}
