"""What-if audits without a database: the registry's lookup by name and alias, the what-if elections read as a
round's table.rules, and ``bjaudit audit --ruleset/--elections``, ``bjaudit rulesets`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.jurisdictions import EVERY_RULESET, RULESETS, alias, ruleset_for, ruleset_named
from app.usecases.errors import InvalidQuery
from app.usecases.what_if import what_if
from app.wire.elections import ElectionsInvalid, parse_elections
from app.wire.schema import TableRules

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
NZ_1994 = "NZ Gazette 1994 No 112 Blackjack Rules"
NJ_2024 = "US-NJ 13:69F as of 2024-09-16"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def nz_2026(tmp_path: Path) -> Path:
    """The NZ example round (a 9.3 finding) played in 2026, when no NZ ruleset we hold was in force."""
    doc = json.loads((EXAMPLES / "nz-insurance-over-half.round.json").read_text())
    doc["played_at"] = "2026-03-04T21:00:00+13:00"
    path = tmp_path / "nz-2026.round.json"
    path.write_text(json.dumps(doc))
    return path


# --- the registry ------------------------------------------------------------------------------------------------


def test_every_ruleset_is_found_by_its_name_and_its_alias_and_no_two_share_one() -> None:
    held = [rs for rulesets in RULESETS.values() for rs in rulesets]
    assert sorted(rs.name for rs in EVERY_RULESET) == sorted(rs.name for rs in held)
    names = [n for rs in EVERY_RULESET for n in (rs.name, alias(rs))]
    assert len(set(names)) == len(names)
    for rs in EVERY_RULESET:
        assert ruleset_named(rs.name) is rs and ruleset_named(alias(rs)) is rs
    assert ruleset_named("NZ 1994") is None and ruleset_named(NZ_1994.lower()) is None


def test_the_named_ruleset_is_the_one_in_force_on_its_own_dates() -> None:
    from datetime import UTC, datetime

    nz = ruleset_named("NZ@1994-10-31")
    assert nz is not None and nz.name == NZ_1994
    assert ruleset_for("NZ", datetime(1996, 1, 1, tzinfo=UTC)) is nz


# --- the what-if elections ---------------------------------------------------------------------------------------


def test_what_if_elections_take_every_election_a_round_may_carry() -> None:
    every = {
        "decks": 6,
        "dealt_from": "shoe",
        "dealer_soft_17": "hit",
        "blackjack_pays": "6:5",
        "dealer_second_card": "initial_deal",
        "peek": True,
        "double_after_split": False,
        "double_card": "face_down",
        "resplit": True,
        "resplit_aces": False,
        "boxes": 7,
        "surrender": "late",
        "min_chip": 100,
        "payout_rounding": "up",
        "min_wager": 1000,
        "max_wager": 500000,
        "additional_wager": "seven",
    }
    assert set(every) == set(TableRules.__annotations__)
    assert parse_elections(json.dumps(every)) == every
    assert parse_elections("{}") == {}


@pytest.mark.parametrize(
    ("text", "pointer"),
    [
        ("1", ""),
        ('{"peek": "yes"}', "/peek"),
        ('{"min_wager": NaN}', "/min_wager"),
        ('{"boxes": 10}', "/boxes"),
    ],
)
def test_bad_what_if_elections_name_the_pointer(text: str, pointer: str) -> None:
    with pytest.raises(ElectionsInvalid) as info:
        parse_elections(text)
    assert info.value.problems[0]["pointer"] == pointer


def test_no_what_if_without_a_parameter() -> None:
    assert what_if(None, None) is None
    with pytest.raises(InvalidQuery) as info:
        what_if("", None)
    assert info.value.errors == [{"parameter": "ruleset", "detail": "no such ruleset: ''"}]


# --- bjaudit audit --ruleset / --elections --------------------------------------------------------------------


def test_audit_under_a_ruleset_not_in_force_is_marked(
    capsys: pytest.CaptureFixture[str], nz_2026: Path
) -> None:
    code, out, _ = run(capsys, "audit", str(nz_2026))
    assert code == 2 and json.loads(out)["error"]["type"] == "urn:bjaudit:problem:round-not-auditable"

    code, out, _ = run(capsys, "audit", str(nz_2026), "--ruleset", NZ_1994)
    line = json.loads(out)
    assert code == 1
    assert (line["ruleset"], line["ruleset_in_force"]) == (NZ_1994, False)
    assert [f["rule"] for f in line["findings"]] == ["9.3"]
    assert "elections_what_if" not in line

    code, out, _ = run(capsys, "audit", str(nz_2026), "--ruleset", "NZ@1994-10-31", "--format", "text")
    assert code == 1
    assert "WHAT-IF: NOT the ruleset in force at played_at" in out.splitlines()[0]


def test_audit_under_the_ruleset_in_force_is_marked_true_and_otherwise_unchanged(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(EXAMPLES / "nz-insurance-over-half.round.json")
    _, plain, _ = run(capsys, "audit", path)
    _, marked, _ = run(capsys, "audit", path, "--ruleset", NZ_1994)
    line = json.loads(marked)
    assert line.pop("ruleset_in_force") is True
    assert line == json.loads(plain)
    assert "ruleset_in_force" not in json.loads(plain)


def test_audit_under_both_soft_17_elections(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = json.loads((EXAMPLES / "nj-compliant-double.round.json").read_text())
    doc["table"]["rules"]["dealer_soft_17"] = "stand"
    # the dealer, on a soft 17 (6 + A), draws
    doc["seats"] = [{"seat": 1, "wager": 1000}]
    doc["events"] = [
        {"type": "deal", "to": "1", "card": "TH"},
        {"type": "deal", "to": "dealer", "card": "6C"},
        {"type": "deal", "to": "1", "card": "8D"},
        {"type": "deal", "to": "dealer", "card": "AS", "face": "down"},
        {"type": "stand", "hand": "1"},
        {"type": "reveal", "to": "dealer", "card": "AS"},
        {"type": "deal", "to": "dealer", "card": "2C"},
        {"type": "settle", "bet": "main", "hand": "1", "result": "lose", "amount": 1000},
    ]
    path = tmp_path / "s17.round.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "audit", str(path), "--elections", '{"dealer_soft_17": "stand"}')
    stand = json.loads(out)
    # (the draw, and the 18 collected against the dealer's 17 it should have stood on: spec 2.2)
    assert code == 1 and [(f["rule"], f["event"]) for f in stand["findings"]] == [
        ("13:69F-2.12(b)1", 6),
        ("uncited:settlement-outcome", 7),
    ]
    code, out, _ = run(capsys, "audit", str(path), "--elections", '{"dealer_soft_17": "hit"}')
    hit = json.loads(out)
    assert code == 0 and hit["verdict"] == "compliant"
    assert (hit["ruleset_in_force"], hit["elections_what_if"]) == (True, {"dealer_soft_17": "hit"})
    code, out, _ = run(
        capsys, "audit", str(path), "--elections", '{"dealer_soft_17": "hit"}', "--format", "text"
    )
    assert 'what-if {"dealer_soft_17":"hit"}' in out.splitlines()[0]


def test_audit_errors_name_the_option(capsys: pytest.CaptureFixture[str], nz_2026: Path) -> None:
    code, out, err = run(capsys, "audit", str(nz_2026), "--ruleset", "nope")
    assert (code, out) == (2, "")
    assert NZ_1994 in err and NJ_2024 in err and "--ruleset: no such ruleset: 'nope'" in err

    code, out, err = run(capsys, "audit", str(nz_2026), "--elections", '{"decks": 0}')
    assert (code, out) == (2, "")
    assert "--elections /decks: must be at least 1, not 0" in err

    code, out, _ = run(capsys, "audit", str(nz_2026), "--ruleset", NJ_2024)
    line = json.loads(out)
    assert code == 2 and line["round_id"] == "EX-NZ-0001"
    assert line["error"]["errors"] == [{"parameter": "ruleset", "detail": "a US-NJ ruleset, for a NZ round"}]
    code, out, _ = run(capsys, "audit", str(nz_2026), "--ruleset", NJ_2024, "--format", "text")
    assert "    --ruleset: a US-NJ ruleset, for a NZ round" in out


def test_rulesets_lists_names_aliases_and_dates(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rulesets")
    assert code == 0
    assert "NZ@1994-10-31" in out and NZ_1994 in out and "from 1994-10-31 until 1998-01-28" in out
    assert "US-NJ@2024-09-16" in out and "from 2024-09-16 with no end" in out
    code, out, _ = run(capsys, "rulesets", "--format", "json")
    listed = json.loads(out)["rulesets"]
    assert [(r["jurisdiction"], r["name"], r["until"]) for r in listed] == [
        ("NZ", NZ_1994, "1998-01-28"),
        ("US-NJ", NJ_2024, None),
    ]
