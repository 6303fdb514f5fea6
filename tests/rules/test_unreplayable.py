"""A round whose record contradicts itself is unreplayable, but what was established before the contradiction is
still reported beside the ``record`` finding; nothing is claimed at or after it (``round-v1.md`` section 2.1)."""

from __future__ import annotations

from typing import Any

from tests.builders import a_round, audit, deal, double, hit, reveal, seat, settle, stand
from tests.rules.case import got, want

W = 2500


def _nj(events: list[dict[str, Any]], seats: int = 1) -> dict[str, Any]:
    return a_round("US-NJ", seats=[seat(n, W) for n in range(1, seats + 1)], events=events)


def test_findings_before_the_contradiction_are_kept() -> None:
    # 0-3 6H 9C 5D 7S, 4 a double for more than the wager (19:47-2.10(a)), 5 its card (21), 6 a card to a seat
    # that placed no wager (the contradiction), 7 reveal (16), 8 the dealer draws to 18, 9 and draws again on 18,
    # 10 the 21 is collected: both faults lie past the contradiction and are not claimed.
    r = _nj(
        [
            deal("1", "6H"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("dealer", "7S", "down"),
            double("1", 3000),
            deal("1", "KD"),
            deal("4", "2C"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            deal("dealer", "5H"),
            settle("1", "lose", 2500),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    assert [got(f) for f in result["findings"]] == [
        want("19:47-2.10(a)", 4, "1", "1..2500", 3000),
        want("record", 6, "4", None, None),
    ]


def test_a_settlement_before_the_contradiction_is_judged_and_absences_are_not_claimed() -> None:
    # Two boxes. 0-5 the initial deal; 6 seat 1 draws and busts (25), 7 its bust is paid instead of collected;
    # 8 a reveal of a card never dealt face down (the contradiction); seat 2 is never settled, but that absence
    # lies past the contradiction.
    r = _nj(
        [
            deal("1", "TH"),
            deal("2", "9C"),
            deal("dealer", "7C"),
            deal("1", "6D"),
            deal("2", "9H"),
            deal("dealer", "TS", "down"),
            deal("1", "9D"),
            settle("1", "win", W),
            reveal("dealer", "QS"),
            stand("2"),
        ],
        seats=2,
    )
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    assert [(f["rule"], f["event"], f["hand"], f.get("amount_delta")) for f in result["findings"]] == [
        ("uncited:settlement-outcome", 7, "1", -2 * W),
        ("record", 8, "dealer", None),
    ]


def test_out_of_turn_play_shown_only_after_the_contradiction_is_not_claimed() -> None:
    # 6 a card to seat 2 passes seat 1; 7 the contradiction; 8 seat 1 hits: that later decision is past the
    # contradiction, so seat 1's play out of turn (which it would show, at event 6) is not claimed.
    r = _nj(
        [
            deal("1", "TH"),
            deal("2", "9C"),
            deal("dealer", "7C"),
            deal("1", "6D"),
            deal("2", "5H"),
            deal("dealer", "TS", "down"),
            deal("2", "4S"),
            deal("3", "2D"),
            hit("1"),
            deal("1", "2C"),
        ],
        seats=2,
    )
    result = audit(r)
    assert [(f["rule"], f["event"]) for f in result["findings"]] == [("record", 7)]


def test_every_contradiction_is_listed() -> None:
    r = _nj(
        [
            deal("1", "TH"),
            deal("dealer", "7C"),
            deal("1", "6D"),
            deal("dealer", "TS", "down"),
            deal("2", "4S"),
            reveal("dealer", "QS"),
            settle("1", "lose", W),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    assert [(f["rule"], f["event"]) for f in result["findings"]] == [("record", 4), ("record", 5)]


def test_nine_decks_are_refused_by_the_format() -> None:
    """The record format allows 1 to 8 decks (round-v1.md section 3): NZ r 3.1's upper edge is the format's."""
    import pytest

    from app.wire.schema import RoundInvalid, round_from_obj

    r = a_round("NZ", extra_rules={"decks": 9}, events=[deal("1", "TH")])
    with pytest.raises(RoundInvalid) as err:
        round_from_obj(r)
    assert [p["pointer"] for p in err.value.problems] == ["/table/rules/decks"]


def test_the_default_shoe_holds_eight_of_each_card() -> None:
    """With no deck count recorded, registered or defaulted, a shoe holds at most eight decks: a ninth copy of a
    card contradicts the record."""
    rules = {"dealer_soft_17": "stand", "dealer_second_card": "initial_deal", "peek": True}
    seats = [seat(n, W) for n in range(1, 5)]
    events = [deal(str(n), "2H") for n in range(1, 5)] + [deal("dealer", "2H")]
    events += [deal(str(n), "2H") for n in range(1, 5)] + [deal("dealer", "9C", "down")]
    result = audit(a_round("US-NJ", rules=rules, seats=seats, events=events))
    assert result["verdict"] == "unreplayable"
    assert [(f["rule"], f["event"], f["hand"], f["expected"], f["actual"]) for f in result["findings"]] == [
        ("record", 8, "4", 8, 9)
    ]
