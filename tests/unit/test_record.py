"""A record that contradicts itself is unreplayable: findings of category "record" say where, and nothing is
claimed at or after the first contradiction (these rounds have no fault before it; tests/rules/test_unreplayable.py
has the findings kept from before it). Never an exception."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import (
    a_round,
    deal,
    double,
    even_money,
    hit,
    insurance,
    peek,
    reveal,
    seat,
    settle,
    settle_additional,
    settle_insurance,
    split,
    stand,
    surrender,
)

START = [deal("1", "TH"), deal("dealer", "9C"), deal("1", "8D"), deal("dealer", "7S", "down")]
END = [stand("1"), reveal("dealer", "7S"), settle("1", "win", 2500)]


def record_findings(r: dict[str, Any]) -> list[tuple[int | None, str | None]]:
    from tests.builders import audit

    result = audit(r)
    assert result["verdict"] == "unreplayable", result
    assert all(f["category"] == "record" for f in result["findings"])
    assert all(f["citation_status"] == "uncited" for f in result["findings"])
    return [(f["event"], f["hand"]) for f in result["findings"]]


CONTRADICTIONS = [
    ("deal to a seat without a wager", [*START[:3], deal("2", "5C"), START[3], *END], [(3, "2")]),
    ("deal to a split hand never created", [*START, deal("1.2", "5C"), *END], [(4, "1.2")]),
    (
        "reveal of a card dealt face up",
        [*START[:3], deal("dealer", "7S"), stand("1"), reveal("dealer", "7S"), settle("1", "win", 2500)],
        [(5, "dealer")],
    ),
    (
        "reveal of a card never dealt",
        [*START, stand("1"), reveal("dealer", "6S"), settle("1", "win", 2500)],
        [(5, "dealer")],
    ),
    ("settle of insurance never placed", [*START, *END, settle_insurance(1, "lose", 1000)], [(7, "1")]),
    (
        "settle of an additional wager never placed",
        [*START, *END, settle_additional(1, "lose", 100)],
        [(7, "1")],
    ),
    ("settle of a hand that does not exist", [*START, *END, settle("1.2", "win", 2500)], [(7, "1.2")]),
    ("split of a hand with one card", [deal("1", "8H"), split("1", 2500), *START[1:], *END], [(1, "1")]),
    ("peek contradicting the hole card", [*START, peek(True), *END], [(4, "dealer")]),
    ("peek before the hole card", [*START[:3], peek(False), START[3], *END], [(3, "dealer")]),
    ("insurance by a seat without a wager", [*START, insurance(5, 1000), *END], [(4, "5")]),
    ("stand on a hand that does not exist", [*START, stand("1.2"), *END], [(4, "1.2")]),
    ("hit by a seat without a wager", [*START, hit("3"), *END], [(4, "3")]),
    ("double of a hand that does not exist", [*START, double("1.2", 2500), *END], [(4, "1.2")]),
    ("surrender of a seat without a wager", [*START, surrender("2"), *END], [(4, "2")]),
    ("even money for a seat without a wager", [*START, even_money(2, 2500), *END], [(4, "2")]),
    ("reveal to a hand that does not exist", [*START, reveal("1.2", "TH"), *END], [(4, "1.2")]),
    ("reveal of a player card dealt face up", [*START, reveal("1", "TH"), *END], [(4, "1")]),
    (
        "even money recorded twice",
        [
            *START[:1],
            deal("dealer", "AS"),
            deal("1", "AD"),
            START[3],
            even_money(1, 2500),
            even_money(1, 2500),
            reveal("dealer", "7S"),
        ],
        [(5, "1")],
    ),
]


@pytest.mark.parametrize(("name", "events", "where"), CONTRADICTIONS)
def test_contradictions_are_unreplayable(name: str, events: list[dict[str, Any]], where: list[Any]) -> None:
    assert record_findings(a_round(events=events)) == where


def test_more_copies_of_a_card_than_the_decks_hold() -> None:
    r = a_round(
        extra_rules={"decks": 1},
        seats=[seat(1, 2500), seat(2, 2500)],
        events=[
            deal("1", "TH"),
            deal("2", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("2", "8D"),
            deal("dealer", "7S", "down"),
            reveal("dealer", "7S"),
            settle("1", "win", 2500),
            settle("2", "win", 2500),
        ],
    )
    assert record_findings(r) == [(1, "2"), (4, "2")]


@pytest.mark.parametrize(("name", "events", "where"), CONTRADICTIONS)
def test_the_replay_goes_on_past_a_contradiction_and_lists_the_next(
    name: str, events: list[dict[str, Any]], where: list[Any]
) -> None:
    """Every contradiction is listed: after one, the replay skips the event and reads on."""
    more = [*events, deal("9", "2C")]
    assert record_findings(a_round(events=more)) == [*where, (len(events), "9")]
