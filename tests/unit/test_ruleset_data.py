"""The data of each ruleset that no rule case reaches: the table elections it has defaults for, and the parameters
the generic checks and reports read.

Spec section 3: every table election is optional, "the jurisdiction module supplies defaults and says which
elections it permits". A ruleset's ``defaults`` name every election a table makes (the posted table limits aside):
its default, or None where the jurisdiction gives none (the audit then applies no default, and says the elections
came from the defaults). A misspelt name there would pass unnoticed by every audit: these tests name them.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.domain.rules import Ruleset
from app.jurisdictions import EVERY_RULESET, nj, nz
from app.wire.schema import TableRules, round_from_obj
from tests.builders import a_round, audit, deal, reveal, settle, stand

# round-v1.md section 3, in its order.
ELECTIONS = (
    "decks",
    "dealt_from",
    "dealer_soft_17",
    "blackjack_pays",
    "dealer_second_card",
    "peek",
    "double_after_split",
    "double_card",
    "resplit",
    "resplit_aces",
    "boxes",
    "surrender",
    "min_chip",
    "payout_rounding",
    "min_wager",
    "max_wager",
    "additional_wager",
)
POSTED_LIMITS = (
    "min_wager",
    "max_wager",
)  # "posted table limits": what the table posts, no jurisdiction default

LEGAL = [
    deal("1", "TH"),
    deal("dealer", "9C"),
    deal("1", "9D"),
    deal("dealer", "8S", "down"),
    stand("1"),
    reveal("dealer", "8S"),
    settle("1", "win", 2500),
]


def ids(rs: Ruleset) -> str:
    return rs.name


def test_the_wire_format_knows_the_elections_of_section_3() -> None:
    assert set(TableRules.__annotations__) == set(ELECTIONS)


@pytest.mark.parametrize("ruleset", EVERY_RULESET, ids=ids)
def test_a_ruleset_has_a_default_or_none_for_every_election_a_table_makes(ruleset: Ruleset) -> None:
    assert sorted(ruleset.defaults) == sorted(set(ELECTIONS) - set(POSTED_LIMITS))


@pytest.mark.parametrize("ruleset", EVERY_RULESET, ids=ids)
def test_a_rulesets_defaults_are_elections_a_record_could_make(ruleset: Ruleset) -> None:
    elected = {k: v for k, v in ruleset.defaults.items() if v is not None}
    jurisdiction = ruleset.jurisdiction
    r = round_from_obj(a_round(jurisdiction, events=LEGAL, rules=elected))  # the schema accepts them
    assert r.rules == elected
    assert ruleset.elected_defaults == elected


@pytest.mark.parametrize(
    ("jurisdiction", "none"),
    [
        # NJ: 13:69F-2.12(b) gives the dealer's soft 17 as one of two options, no default; 2.6 and 2.6A (dealing,
        # hole card, peek) and 2.9 were not found; 2.2(a) allows several deck counts; 2.11(e)'s limits depend on
        # the boxes. Odds are paid in whole chips rounded down unless the table elects up (spec 2.2): no election.
        (
            "US-NJ",
            {
                "decks",
                "dealer_soft_17",
                "dealer_second_card",
                "peek",
                "boxes",
                "surrender",
                "min_chip",
                "payout_rounding",
            },
        ),
        # NZ 1994: the dealing, doubling and splitting rules (5.0-7.x, 10.x, 11.x) were not found; rule 9.4 leaves
        # the smallest chip to the table; rounding as in NJ (spec 2.2).
        (
            "NZ",
            {
                "decks",
                "dealer_soft_17",
                "dealer_second_card",
                "peek",
                "double_after_split",
                "double_card",
                "resplit",
                "resplit_aces",
                "boxes",
                "surrender",
                "min_chip",
                "payout_rounding",
            },
        ),
    ],
)
def test_an_audit_by_the_defaults_applies_no_default_where_the_jurisdiction_gives_none(
    jurisdiction: str, none: set[str]
) -> None:
    ruleset = nj.RULESET if jurisdiction == "US-NJ" else nz.RULESET
    assert {k for k, v in ruleset.defaults.items() if v is None} == none
    doc: dict[str, Any] = a_round(jurisdiction, events=LEGAL)
    del doc["table"]["rules"]
    result = audit(doc)
    assert result["elections_source"] == "defaults"
    assert not none & set(result["elections"])


def test_a_dealer_blackjack_collects_the_original_wager_only_in_new_jersey() -> None:
    # NJ 19:47-2.10(b) and 13:69F-2.11(d): a dealer blackjack after a double or a split collects only the original
    # wager. NZ 1994: the doubling and splitting rules (10.x, 11.x) were not found, so the original wager or the
    # whole stake may be collected.
    assert nj.RULESET.params["dealer_blackjack_collects"] == "original_only"
    assert nz.RULESET.params["dealer_blackjack_collects"] == "original_or_all"


@pytest.mark.parametrize("ruleset", EVERY_RULESET, ids=ids)
def test_a_ruleset_says_how_a_dealer_blackjack_collects_in_one_of_the_two_known_ways(
    ruleset: Ruleset,
) -> None:
    assert ruleset.params["dealer_blackjack_collects"] in ("original_only", "original_or_all")


def test_a_ruleset_names_its_currency_as_messages_write_money() -> None:
    # Spec section 4: a message names money "in the jurisdiction's currency ($25.00, NZ$25.00)"; the CLI's text
    # report reads it from the ruleset, with no fallback.
    assert nj.RULESET.params["currency"] == "$"
    assert nz.RULESET.params["currency"] == "NZ$"
