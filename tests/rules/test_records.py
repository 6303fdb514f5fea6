"""Records that contradict themselves with the events of ``round-v1.md`` section 2.3 (issue 19): a burned card is a
card of the shoe, so a burn can be the copy too many; a ``corrects`` that names anything but an earlier settle of
the same bet and the same hand or seat. The verdict is ``unreplayable``; the findings established before the
contradicting event are still reported beside the ``record`` finding, and nothing is claimed at or after it
(section 2.1). Written from the spec before the engine implemented them."""

from __future__ import annotations

from typing import Any

from tests.builders import a_round, audit, burn, deal, reveal, seat, settle, settle_additional, stand
from tests.rules.case import got, want

W = 2500
OUTCOME = "uncited:settlement-outcome"


def _three_boxes(ninth: str) -> dict[str, Any]:
    """A six-deck table. 0 a 5C burned before the first deal; 1 1<-5C, 2 2<-5C, 3 3<-5C, 4 D<-9C, 5 1<-5C, 6 2<-5C
    (six 5C have left the shoe), 7 3<-TH, 8 D<-8S down; 9 1<-``ninth``; 10 2<-9H (19), 11 stand 3 (15), 12 reveal
    (17), 13 box 1 paid, 14 box 2 paid, 15 box 3 collected."""
    events = [
        burn("5C"),
        deal("1", "5C"),
        deal("2", "5C"),
        deal("3", "5C"),
        deal("dealer", "9C"),
        deal("1", "5C"),
        deal("2", "5C"),
        deal("3", "TH"),
        deal("dealer", "8S", "down"),
        deal("1", ninth),
        deal("2", "9H"),
        stand("3"),
        reveal("dealer", "8S"),
        settle("1", "win", W),
        settle("2", "win", W),
        settle("3", "lose", W),
    ]
    return a_round("US-NJ", seats=[seat(n, W) for n in (1, 2, 3)], events=events)


def test_a_burned_card_leaves_room_for_the_rest_of_the_shoe() -> None:
    # Five 5C dealt and one burned: six copies, as six decks hold. 9 1<-TD (20): the round is legal.
    result = audit(_three_boxes("TD"))
    assert result["verdict"] == "compliant", result["findings"]


def test_a_burned_card_counts_toward_the_copies_of_the_shoe() -> None:
    # 9 a seventh 5C (one burned, five dealt before it) from a six-deck shoe: the record contradicts itself there.
    result = audit(_three_boxes("5C"))
    assert result["verdict"] == "unreplayable"
    assert [(f["rule"], f["event"], f["hand"], f["expected"], f["actual"]) for f in result["findings"]] == [
        ("record", 9, "1", 6, 7)
    ]


def test_a_burn_can_be_the_copy_too_many() -> None:
    # 0-7 six 5C dealt to three boxes (10 each) and the dealer's 9 and 8; 8-10 each box draws a ten (20); 11 reveal
    # (17); 12 a seventh 5C burned after the dealer stood: the record contradicts itself at the burn (no hand).
    events = [
        deal("1", "5C"),
        deal("2", "5C"),
        deal("3", "5C"),
        deal("dealer", "9C"),
        deal("1", "5C"),
        deal("2", "5C"),
        deal("3", "5C"),
        deal("dealer", "8S", "down"),
        deal("1", "TD"),
        deal("2", "TH"),
        deal("3", "TS"),
        reveal("dealer", "8S"),
        burn("5C"),
        settle("1", "win", W),
        settle("2", "win", W),
        settle("3", "win", W),
    ]
    result = audit(a_round("US-NJ", seats=[seat(n, W) for n in (1, 2, 3)], events=events))
    assert result["verdict"] == "unreplayable"
    assert [(f["rule"], f["event"], f["hand"], f["expected"], f["actual"]) for f in result["findings"]] == [
        ("record", 12, None, 6, 7)
    ]


def _busted_box_paid(*tail: dict[str, Any], side: bool = False) -> dict[str, Any]:
    """Two boxes. 0 1<-TH, 1 2<-TC, 2 D<-9C, 3 1<-9D (19), 4 2<-6H (16), 5 D<-8S down; with ``side`` 6 box 1's
    losing same-suit wager collected (the indices below move on by one); 6 stand 1, 7 2<-9H (25), 8 the bust paid
    (a finding: -2500 was due), 9 reveal (17), 10 the 19 paid (right); then ``tail`` from 11."""
    events = [
        deal("1", "TH"),
        deal("2", "TC"),
        deal("dealer", "9C"),
        deal("1", "9D"),
        deal("2", "6H"),
        deal("dealer", "8S", "down"),
        *([settle_additional(1, "lose", 100)] if side else []),
        stand("1"),
        deal("2", "9H"),
        settle("2", "win", W),
        reveal("dealer", "8S"),
        settle("1", "win", W),
        *tail,
    ]
    seat1 = seat(1, W, ("same_suit", 100)) if side else seat(1, W)
    extra = {"additional_wager": "same_suit"} if side else None
    return a_round("US-NJ", seats=[seat1, seat(2, W)], events=events, extra_rules=extra)


def _contradicted_at(result: dict[str, Any], at: int, before: list[Any]) -> None:
    """The verdict is unreplayable; the findings before the contradiction are ``before``, whole; the last is the
    ``record`` finding at event ``at``."""
    assert result["verdict"] == "unreplayable"
    *established, last = result["findings"]
    assert [got(f) for f in established] == before
    assert (last["rule"], last["event"], last["category"]) == ("record", at, "record")


BUST_PAID = [want(OUTCOME, 8, "2", -W, W, -2 * W)]


def test_a_correction_of_a_later_event_contradicts_the_record() -> None:
    # 11 a settle of hand 1 that "corrects" event 12, which comes after it
    r = _busted_box_paid(settle("1", "win", W, corrects=12), settle("1", "win", W))
    _contradicted_at(audit(r), 11, BUST_PAID)


def test_a_correction_of_an_event_that_is_no_settle_contradicts_the_record() -> None:
    # 11 "corrects" event 9, the reveal
    r = _busted_box_paid(settle("1", "win", W, corrects=9))
    _contradicted_at(audit(r), 11, BUST_PAID)


def test_a_correction_of_another_hands_settlement_contradicts_the_record() -> None:
    # 11 a settle of hand 1 that "corrects" event 8, hand 2's settlement
    r = _busted_box_paid(settle("1", "win", W, corrects=8))
    _contradicted_at(audit(r), 11, BUST_PAID)


def test_a_correction_of_another_bets_settlement_contradicts_the_record() -> None:
    # 6 box 1's losing same-suit wager collected (TH+9D: not the same suit; right); 9 the bust paid; 12 a main
    # settle of hand 1 that "corrects" event 6, the additional wager's settlement
    r = _busted_box_paid(settle("1", "win", W, corrects=6), side=True)
    _contradicted_at(audit(r), 12, [want(OUTCOME, 9, "2", -W, W, -2 * W)])


def test_a_correction_of_the_right_bet_and_hand_is_no_contradiction() -> None:
    # 11 hand 1's payment at 10 recorded again as its correction: nothing but the bust paid at 8
    r = _busted_box_paid(settle("1", "win", W, corrects=10))
    result = audit(r)
    assert result["verdict"] == "violations"
    assert [got(f) for f in result["findings"]] == BUST_PAID
