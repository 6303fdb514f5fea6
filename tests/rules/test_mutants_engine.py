"""The engine's frame, written from the spec (``round-v1.md`` sections 1, 3 and 4) and the regulation text: what an
audit result carries, where the elections come from and which defaults complete them, the documented order of
findings, which ruleset a date selects, the card values every total follows, and why a round cannot be audited.
Edges the rule cases had left open (found by mutation testing); event indices are spelled out beside each round."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.domain.errors import NoRulesetInForce, UnknownJurisdiction
from app.domain.rules import Ctx
from app.jurisdictions import nz, ruleset_for
from app.usecases.auditing import ENGINE_VERSION, audit_round, catalogue
from app.wire.schema import round_from_obj
from tests.builders import (
    a_round,
    audit,
    deal,
    even_money,
    peek,
    reveal,
    seat,
    settle,
    settle_additional,
    stand,
)
from tests.rules.case import got, want

W = 2500
SIDE = 100
EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"

# A legal New Jersey round: 0-3 TH 9C 9D 8S(down), 4 stand on 19, 5 reveal (17, the dealer stands), 6 paid 1 to 1.
NJ_LEGAL = [
    deal("1", "TH"),
    deal("dealer", "9C"),
    deal("1", "9D"),
    deal("dealer", "8S", "down"),
    stand("1"),
    reveal("dealer", "8S"),
    settle("1", "win", W),
]

# The elections a New Jersey round is audited by when neither the record nor a registration gives one:
# - dealt_from "shoe": a hand-dealt game is something the licensee elects (13:69F-2.2(a)1, 2.6A, 2.12(e));
# - blackjack_pays "3:2": 6 to 5 is a variation a table must elect (13:69F-2.12(d), 19:47-2.10(d));
# - double_after_split True: 19:47-2.10(a) allows doubling any split hand; only a 6 to 5 table may prohibit it;
# - double_card "face_up": 19:47-2.10(c), face up unless the licensee elects otherwise;
# - resplit False: 13:69F-2.11(c)1, no resplit unless 2.11(e) resplitting is offered;
# - resplit_aces True: 2.11(e), where resplitting is offered the licensee *may* prohibit resplitting aces;
# - additional_wager "none": 13:69F-2.17(a), a licensee *may* offer one of the additional wagers.
# No default: the deck count, the soft 17 option (2.12(b) gives two, neither preferred), the dealer's second card,
# the peek, the box count, surrender and the minimum chip.
NJ_DEFAULTS: dict[str, Any] = {
    "dealt_from": "shoe",
    "blackjack_pays": "3:2",
    "double_after_split": True,
    "double_card": "face_up",
    "resplit": False,
    "resplit_aces": True,
    "additional_wager": "none",
}
# New Zealand (1994 rules): six to eight decks and one cutting card (r 3.1, a shoe game), blackjack paid three to
# two (r 8.2), no additional wager (the rules hold none). The rules we hold decide nothing else.
NZ_DEFAULTS: dict[str, Any] = {"dealt_from": "shoe", "blackjack_pays": "3:2", "additional_wager": "none"}


def _without_rules(doc: dict[str, Any]) -> dict[str, Any]:
    del doc["table"]["rules"]
    return doc


def _registered(doc: dict[str, Any], registered: dict[str, Any]) -> dict[str, Any]:
    return audit_round(round_from_obj(doc), registered).to_dict()


# --- the audit result (section 4) -------------------------------------------------------------------------------


def test_the_result_names_the_round_its_rules_and_each_findings_citation() -> None:
    # The spec's own example (section 4): 0-3 5H AS 6C KD(down), 4 double 2500, 5 its card, 6 the dealer's blackjack,
    # 7 the whole 5000 collected where 19:47-2.10(b) lets the dealer collect only the original 2500.
    doc = json.loads((EXAMPLES / "nj-double-then-dealer-blackjack.round.json").read_text())
    result = audit(doc)
    assert set(result) == {
        "round_id",
        "jurisdiction",
        "verdict",
        "ruleset",
        "engine_version",
        "elections_source",
        "elections",
        "findings",
    }
    assert result["round_id"] == "EX-NJ-0003"
    assert result["jurisdiction"] == "US-NJ"
    assert result["verdict"] == "violations"
    assert result["ruleset"] == "US-NJ 13:69F as of 2024-09-16"
    assert result["engine_version"] == ENGINE_VERSION
    assert result["elections_source"] == "record"
    assert result["elections"] == {**NJ_DEFAULTS, **doc["table"]["rules"]}
    (finding,) = result["findings"]
    assert set(finding) == {
        "rule",
        "also_cited_as",
        "citation",
        "citation_status",
        "title",
        "category",
        "event",
        "hand",
        "message",
        "expected",
        "actual",
        "amount_delta",
    }
    # The seed text is the 19:47 version: the finding cites it, and carries the 13:69F number as well.
    assert finding["rule"] == "19:47-2.10(b)"
    assert finding["also_cited_as"] == ["13:69F-2.10(b)"]
    assert finding["citation"] == "N.J.A.C. 19:47-2.10(b)"
    assert finding["citation_status"] == "verified"
    assert finding["category"] == "payout"
    assert (finding["event"], finding["hand"], finding["amount_delta"]) == (7, "1", 2500)
    assert isinstance(finding["title"], str) and finding["title"]
    assert isinstance(finding["message"], str) and finding["message"]


def test_an_unreplayable_rounds_record_finding_says_what_contradicts() -> None:
    # 0-3 TH 9C 9D 8S(down), 4 a card to seat 4, which placed no wager: the record contradicts itself there.
    r = a_round(events=[*NJ_LEGAL[:4], deal("4", "2C"), *NJ_LEGAL[4:]])
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    assert [got(f) for f in result["findings"]] == [want("record", 4, "4", None, None)]
    (finding,) = result["findings"]
    assert finding["category"] == "record"
    assert isinstance(finding["message"], str) and finding["message"]


# --- elections: the record, else the registration, else the defaults (sections 1 and 3) --------------------------


def test_new_jersey_defaults_complete_the_elections() -> None:
    result = audit(_without_rules(a_round("US-NJ", events=NJ_LEGAL)))
    assert result["elections_source"] == "defaults"
    assert result["elections"] == NJ_DEFAULTS
    assert result["findings"] == []
    assert result["verdict"] == "compliant"


def test_new_zealand_defaults_complete_the_elections() -> None:
    # 0-2 TH 9C 9D, 3 stand on 19, 4 the dealer's second card after the players (17, stands), 5 paid 1 to 1.
    events = [
        deal("1", "TH"),
        deal("dealer", "9C"),
        deal("1", "9D"),
        stand("1"),
        deal("dealer", "8S"),
        settle("1", "win", 1000),
    ]
    result = audit(_without_rules(a_round("NZ", seats=[seat(1, 1000)], events=events)))
    assert result["elections_source"] == "defaults"
    assert result["elections"] == NZ_DEFAULTS
    assert result["findings"] == []
    assert result["verdict"] == "compliant"


def test_registered_elections_apply_when_the_record_has_none() -> None:
    # Registered: a 6 to 5 table that stands on soft 17, which 13:69F-2.12(d) forbids (a finding about the table).
    registered = {"decks": 6, "blackjack_pays": "6:5", "dealer_soft_17": "stand"}
    result = _registered(_without_rules(a_round("US-NJ", events=NJ_LEGAL)), registered)
    assert result["elections_source"] == "registered"
    assert result["elections"] == {**NJ_DEFAULTS, **registered}
    assert [got(f) for f in result["findings"]] == [
        want("13:69F-2.12(d)", None, None, "hit soft 17", "stand on soft 17")
    ]


def test_the_records_elections_win_over_the_registered_ones() -> None:
    registered = {"decks": 6, "blackjack_pays": "6:5", "dealer_soft_17": "stand"}
    doc = a_round("US-NJ", events=NJ_LEGAL)
    result = _registered(doc, registered)
    assert result["elections_source"] == "record"
    assert result["elections"] == {**NJ_DEFAULTS, **doc["table"]["rules"]}
    assert result["verdict"] == "compliant"


def test_an_additional_wager_at_a_table_that_elected_none_is_a_finding() -> None:
    # 13:69F-2.17(a): a table *may* offer an additional wager; this one's elections name none, so none is offered.
    # 0-3 8H 9C 7D 7S(down), 4 the losing same-suit wager collected after the second cards (on time), 5 stand on
    # 15, 6 reveal (16), 7 the dealer busts, 8 paid 1 to 1.
    r = a_round(
        "US-NJ",
        seats=[seat(1, W, ("same_suit", SIDE))],
        events=[
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "7D"),
            deal("dealer", "7S", "down"),
            settle_additional(1, "lose", SIDE),
            stand("1"),
            reveal("dealer", "7S"),
            deal("dealer", "TC"),
            settle("1", "win", W),
        ],
    )
    assert [got(f) for f in audit(r)["findings"]] == [
        want("13:69F-2.17(a)", None, "1", "no additional wager", "same_suit")
    ]


def test_new_zealand_nine_decks_is_outside_six_to_eight() -> None:
    # r 3.1: six to eight decks. The schema allows at most eight, so the check is run on the elections alone.
    ctx = Ctx(nz.RULESET.roles, nz.RULESET.params)
    nz.check_elections(SimpleNamespace(elections={"decks": 9}), ctx)  # type: ignore[arg-type]
    nz.check_elections(SimpleNamespace(elections={"decks": 8}), ctx)  # type: ignore[arg-type]
    assert [got(f.to_dict()) for f in ctx.findings] == [want("3.1", None, None, "6 to 8 decks", 9)]


# --- the order of findings ----------------------------------------------------------------------------------------


def test_a_finding_about_the_table_comes_before_one_at_the_first_event() -> None:
    # A 3 to 2 table that prohibits doubling after splitting: only a 6 to 5 table may (19:47-2.10(d)), a finding
    # about the table. 0 the losing same-suit wager collected before any card, where 13:69F-2.17(d) collects it
    # right after every player's second card (event 3); 1-4 8H 9C 7D 7S(down), 5 stand on 15, 6 reveal (16),
    # 7 the dealer busts, 8 paid 1 to 1. The table's finding comes first, though its rule sorts after the other.
    r = a_round(
        "US-NJ",
        seats=[seat(1, W, ("same_suit", SIDE))],
        extra_rules={"additional_wager": "same_suit", "double_after_split": False},
        events=[
            settle_additional(1, "lose", SIDE),
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "7D"),
            deal("dealer", "7S", "down"),
            stand("1"),
            reveal("dealer", "7S"),
            deal("dealer", "TC"),
            settle("1", "win", W),
        ],
    )
    assert [got(f) for f in audit(r)["findings"]] == [
        want("19:47-2.10(d)", None, None, "doubling after splitting allowed", "prohibited"),
        want("13:69F-2.17(d)", 0, "1", "after event 3", "event 0"),
    ]


# --- card values (13:69F-2.2(b), NZ r 3.2) -------------------------------------------------------------------------


def test_an_ace_counts_one_when_eleven_would_pass_21() -> None:
    # 0-3 TH 5C 8D AS(down), 4 stand on 18, 5 reveal: 5+A is soft 16, 6 the dealer draws 6: hard 12 (the ace counts
    # one, as eleven would make 22), 7 draws again: 19, 8 the 18 loses. Every draw was due; nothing to report.
    r = a_round(
        "US-NJ",
        events=[
            deal("1", "TH"),
            deal("dealer", "5C"),
            deal("1", "8D"),
            deal("dealer", "AS", "down"),
            stand("1"),
            reveal("dealer", "AS"),
            deal("dealer", "6H"),
            deal("dealer", "7C"),
            settle("1", "lose", W),
        ],
    )
    result = audit(r)
    assert result["findings"] == []
    assert result["verdict"] == "compliant"


def test_even_money_on_a_three_card_21_is_not_a_blackjack() -> None:
    # Even money is for a blackjack (an ace and a ten as the first two cards) against a dealer ace. 0-3 5H AS 6C
    # 7D(down), 4 peek (no blackjack), 5 the 11 draws TC: 21 in three cards, 6 reveal (soft 18, the dealer stands),
    # 7 even money 2500: the 21 beat 18 and was due 2500, so only the even money itself is at fault.
    r = a_round(
        "US-NJ",
        events=[
            deal("1", "5H"),
            deal("dealer", "AS"),
            deal("1", "6C"),
            deal("dealer", "7D", "down"),
            peek(False),
            deal("1", "TC"),
            reveal("dealer", "7D"),
            even_money(1, W),
        ],
    )
    assert [got(f) for f in audit(r)["findings"]] == [
        want("uncited:even-money", 7, "1", "player blackjack, dealer ace", "5H+6C+TC vs AS")
    ]


# --- which rules apply, and why a round cannot be audited ----------------------------------------------------------


def test_the_1994_new_zealand_rules_end_the_day_the_1998_code_replaced_them() -> None:
    # nz.py: the 1998 Rules of Casino Table Games had replaced the 1994 rules by 28 January 1998; rounds from that
    # (local) date have no ruleset here. The day before, the 1994 rules apply.
    events = [
        deal("1", "TH"),
        deal("dealer", "9C"),
        deal("1", "9D"),
        stand("1"),
        deal("dealer", "8S"),
        settle("1", "win", 1000),
    ]
    before = a_round("NZ", seats=[seat(1, 1000)], events=events, played_at="1998-01-27T23:30:00+13:00")
    assert audit(before)["ruleset"] == "NZ Gazette 1994 No 112 Blackjack Rules"
    on = a_round("NZ", seats=[seat(1, 1000)], events=events, played_at="1998-01-28T00:30:00+13:00")
    with pytest.raises(NoRulesetInForce) as info:
        audit(on)
    assert info.value.pointer == "/played_at"


def test_a_new_jersey_round_before_its_rules_names_an_open_ended_ruleset() -> None:
    r = round_from_obj(a_round("US-NJ", events=NJ_LEGAL, played_at="2024-09-15T12:00:00-04:00"))
    with pytest.raises(NoRulesetInForce) as info:
        audit_round(r)
    message = info.value.message
    assert message.endswith("US-NJ 13:69F as of 2024-09-16: from 2024-09-16.")
    assert "until" not in message
    assert str(info.value) == message


def test_an_unknown_jurisdiction_is_refused_at_its_pointer() -> None:
    with pytest.raises(UnknownJurisdiction) as info:
        ruleset_for("US-NV", datetime(2026, 1, 1, tzinfo=UTC))
    err = info.value
    assert err.pointer == "/jurisdiction"
    assert "'US-NV'" in err.message
    assert "known: NZ, US-NJ." in err.message
    assert str(err) == err.message


def test_a_rule_that_cannot_be_checked_says_so_in_the_catalogue() -> None:
    rows = {(r["jurisdiction"], r["rule"]): r for r in catalogue()}
    # 13:69F-2.5 (shuffle and cut) and NZ r 9.2 (the call of "Insurance"): nothing in a round record shows them.
    for key in [("US-NJ", "13:69F-2.5"), ("NZ", "9.2")]:
        assert rows[key]["checkable"] is False
        assert rows[key]["not_checkable_reason"]
    assert rows[("US-NJ", "13:69F-2.12(a)")]["checkable"] is True
