"""Rulesets are chosen by played_at (never the clock); elections come from the record, else the defaults; a dealer
error that changed an outcome says so and gives the restitution."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.domain.errors import NoRulesetInForce, UnknownJurisdiction
from app.jurisdictions import ruleset_for
from app.usecases.auditing import audit_round, catalogue, rule_details
from app.wire.schema import round_from_obj
from tests.builders import a_round, audit, deal, reveal, settle, stand

LEGAL = [
    deal("1", "TH"),
    deal("dealer", "9C"),
    deal("1", "9D"),
    deal("dealer", "8S", "down"),
    stand("1"),
    reveal("dealer", "8S"),
    settle("1", "win", 2500),
]


@pytest.mark.parametrize(
    ("jurisdiction", "played_at", "held"),
    [
        ("US-NJ", "2024-09-15T23:59:00-04:00", "from 2024-09-16"),
        ("US-NJ", "2019-06-01T20:00:00-04:00", "from 2024-09-16"),
        ("NZ", "1994-10-30T21:00:00+13:00", "from 1994-10-31 until 1998-01-28"),
        ("NZ", "2026-12-01T21:00:00+13:00", "until 1998-01-28"),
    ],
)
def test_a_round_outside_every_ruleset_we_hold_is_refused_not_guessed(
    jurisdiction: str, played_at: str, held: str
) -> None:
    r = round_from_obj(a_round(jurisdiction, events=LEGAL, played_at=played_at))
    with pytest.raises(NoRulesetInForce) as info:
        audit_round(r)
    assert info.value.pointer == "/played_at"
    assert held in info.value.message


def test_the_ruleset_is_chosen_by_the_tables_local_date() -> None:
    # 2024-09-16 00:30 in New Jersey is still 2024-09-16 locally, whatever UTC says.
    r = round_from_obj(a_round(events=LEGAL, played_at="2024-09-16T00:30:00-04:00"))
    assert audit_round(r).ruleset == "US-NJ 13:69F as of 2024-09-16"
    with pytest.raises(UnknownJurisdiction):
        ruleset_for("US-NV", datetime(2026, 1, 1, tzinfo=UTC))


def test_elections_come_from_the_record_else_the_defaults() -> None:
    assert audit(a_round(events=LEGAL))["elections_source"] == "record"
    doc = a_round(events=LEGAL)
    del doc["table"]["rules"]
    result = audit(doc)
    assert result["elections_source"] == "defaults"
    assert result["elections"]["double_card"] == "face_up"  # 19:47-2.10(c)'s default
    assert "dealer_soft_17" not in result["elections"]  # 13:69F-2.12(b) has no default option
    assert result["verdict"] == "compliant"


def test_a_dealer_draw_that_changed_the_outcome_puts_the_money_on_the_settlement() -> None:
    # The dealer stands on all 17s but drew on hard 17 and made 19: the player's 18 lost $25.00 instead of winning
    # it against the dealer's 17, so $50.00 is owed - on the settlement (spec 2.2), not on the draw.
    doc = a_round(
        events=[
            deal("1", "TH"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            stand("1"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "lose", 2500),
        ]
    )
    draw, settled = audit(doc)["findings"]
    assert (draw["rule"], draw["event"], draw.get("amount_delta")) == ("13:69F-2.12(b)1", 6, None)
    assert (
        settled["rule"],
        settled["event"],
        settled["expected"],
        settled["actual"],
        settled["amount_delta"],
    ) == (
        "uncited:settlement-outcome",
        7,
        2500,
        -2500,
        5000,
    )
    assert "a payment of $25.00 was due, but $25.00 was collected" in settled["message"]


def test_every_finding_rule_is_in_the_catalogue_with_a_paraphrase() -> None:
    rows = catalogue()
    assert {r["citation_status"] for r in rows} == {"verified", "unverified", "uncited"}
    for r in rows:
        assert r["paraphrase"] and r["title"]
        assert rule_details(r["jurisdiction"], r["ruleset"], r["rule"]) == r
        if r["citation_status"] == "uncited":
            assert r["rule"].startswith("uncited:")  # never an invented number
        if not r["checkable"]:
            assert r["not_checkable_reason"]
