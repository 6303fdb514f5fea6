"""Split boxes against a dealer blackjack (13:69F-2.11(d) bet by bet in New Jersey; the original wager or all of
them in New Zealand), settlements missing or made twice, and wagers returned on a void, in the settlement code issue
19 added (round-v1.md sections 2.2 and 2.3): rounds that surviving mutants of ``app.domain.checks.settlement``
(``_split_seat_per_bet``, ``_split_seat_either``, ``_missing``, ``returned_on_void``, ``_twice``, ``_judge_unsplit``)
got wrong. Each expectation is written from the spec before the engine was run on the round, every finding stated
whole, in the engine's documented order (by event, then by rule; absences last).

Section 2.2: a missing settlement is "event null, hand or seat named, actual 0, expected the net that was due"; one
made twice is "at the second settle: expected 0, actual that settle's net"; "a settlement missing or made twice that
moves no money (a push): the same finding ... with no amount_delta". Section 4: a finding's ``message`` names money
in the jurisdiction's currency (``$25.00``, ``NZ$25.00``); :func:`findings` checks only that every amount a message
names is written in it, never the message's words.

Event indices are spelled out beside each round. New Jersey boxes wager 2500 (the test table deals a hole card; these
rounds elect ``peek: false`` so that the dealer's blackjack is known only at its reveal), New Zealand boxes 1000.
"""

from __future__ import annotations

import re
from typing import Any

from tests.builders import (
    a_round,
    audit,
    deal,
    peek,
    reveal,
    seat,
    settle,
    split,
    void,
)
from tests.rules.case import Want, got, want

NJ_W = 2500
NZ_W = 1000

MISSING = "uncited:missing-settlement"
TWICE = "uncited:settled-twice"
OUTCOME = "uncited:settlement-outcome"
"""New Jersey's settlement key (section 2.2)."""
SPLIT_D = "13:69F-2.11(d)"
NZ_EXTRA = "uncited:dealer-blackjack-extra-wagers"
DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
LOSE = "uncited:lose-collects-stake"

_AMOUNT = re.compile(r"([^\s\d(]*)\d[\d,]*\.\d\d(?![\d(])")
"""An amount of money as a message writes it (``NZ$1,250.50``), with what stands before its digits (the currency,
and a sign); a citation's number (``2.11(d)``) is none."""


def findings(r: dict[str, Any], currency: str) -> list[Want]:
    """Every finding of the round's audit, whole; and, of every finding, that its message is text and names each
    amount in ``currency`` (section 4), never another currency or none."""
    result = audit(r)
    for f in result["findings"]:
        message = f["message"]
        assert isinstance(message, str) and message, f
        written = {before.lstrip("-") for before in _AMOUNT.findall(message)}
        assert written <= {currency}, (written, message)
    return [got(f) for f in result["findings"]]


def nj(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A New Jersey round, one box of 2500, at a table that does not peek."""
    return a_round("US-NJ", seats=[seat(1, NJ_W)], events=events, extra_rules={"peek": False})


def nz(events: list[dict[str, Any]], **elections: Any) -> dict[str, Any]:
    """A New Zealand round, one box of 1000 (smallest chip 100)."""
    return a_round("NZ", seats=[seat(1, NZ_W)], events=events, extra_rules=elections)


def missing(hand: str, owed: int) -> Want:
    """A wager never settled, with the net it was due (no ``amount_delta`` for a stand off)."""
    return want(MISSING, None, hand, owed, 0, owed if owed else None)


# 0 1:8H, 1 dealer TC, 2 1:8D, 3 dealer AS face down, 4 split (2500), 5 hand 1 TH (18), 6 hand 1.2 9D (17),
# 7 reveal: the dealer's blackjack. Settlements from event 8 on.
NJ_SPLIT = [
    deal("1", "8H"),
    deal("dealer", "TC"),
    deal("1", "8D"),
    deal("dealer", "AS", "down"),
    split("1", NJ_W),
    deal("1", "TH"),
    deal("1.2", "9D"),
    reveal("dealer", "AS"),
]

# 0 1:8H, 1 dealer TC, 2 1:8D, 3 split (1000), 4 hand 1 TH (18), 5 hand 1.2 9D (17), 6 the dealer's second card
# AS: blackjack. Settlements from event 7 on.
NZ_SPLIT = [
    deal("1", "8H"),
    deal("dealer", "TC"),
    deal("1", "8D"),
    split("1", NZ_W),
    deal("1", "TH"),
    deal("1.2", "9D"),
    deal("dealer", "AS"),
]


# --- New Jersey: 13:69F-2.11(d) bet by bet (section 2.2) -------------------------------------------------------


def test_nj_split_hand_collected_past_what_was_still_collectable_over_collects_the_excess() -> None:
    # 8 hand 1 collected 1000 (of its 2500), 9 hand 1.2 collected 2500. Section 2.2: the running total collected of
    # the hands' stakes is 1000 after event 8, so 1500 of the original wager of 2500 was still collectable at event
    # 9; 2500 collected takes the total past the original wager: a 2.11(d) finding there, "expected = minus what was
    # still collectable" -1500, "actual = minus what was collected from the stake" -2500, "amount_delta = the
    # excess" 1000. In all 2500 was collected, the original wager: no shortfall.
    r = nj([*NJ_SPLIT, settle("1", "lose", 1000), settle("1.2", "lose", NJ_W)])
    assert findings(r, "$") == [want(SPLIT_D, 9, "1.2", -1500, -NJ_W, 1000)]


def test_nj_split_hand_never_settled_after_the_original_wager_was_collected_was_due_a_stand_off() -> None:
    # 8 hand 1 collected 2500; hand 1.2 never settled. 2.11(d): all the split hands together may lose at most the
    # original wager, already collected: hand 1.2 was due a stand off. Missing, expected 0, no amount_delta.
    r = nj([*NJ_SPLIT, settle("1", "lose", NJ_W)])
    assert findings(r, "$") == [missing("1.2", 0)]


def test_nj_split_hand_never_settled_after_a_push_was_due_the_original_wager() -> None:
    # 8 hand 1 pushed; hand 1.2 never settled. The dealer's blackjack collects the original wager of 2500 across
    # the hands (2.11(d), and no less: section 2.2 reports a shortfall); nothing was collected, so hand 1.2 (stake
    # 2500) was due -2500. That is the whole shortfall: no shortfall finding besides.
    r = nj([*NJ_SPLIT, settle("1", "push", 0)])
    assert findings(r, "$") == [missing("1.2", -NJ_W)]


def test_nj_split_box_never_settled_owes_the_original_wager_once() -> None:
    # No settlement at all. The original wager (2500) was due across the hands, once: the first hand (1, stake
    # 2500) was due -2500, the second (1.2) then nothing more, a stand off.
    r = nj(NJ_SPLIT)
    assert findings(r, "$") == [missing("1", -NJ_W), missing("1.2", 0)]


def test_nj_split_box_that_collected_one_cent_less_than_the_original_wager() -> None:
    # 8 hand 1 collected 2499, 9 hand 1.2 pushed. Section 2.2: "if, at the last of the seat's split-hand settle
    # events, less than the original wager was collected in all, one finding there under the settlement key for the
    # shortfall (negative amount_delta)": at event 9 on hand 1.2, expected 0 - 1 = -1, actual 0, amount_delta -1.
    r = nj([*NJ_SPLIT, settle("1", "lose", 2499), settle("1.2", "push", 0)])
    assert findings(r, "$") == [want(OUTCOME, 9, "1.2", -1, 0, -1)]


def test_nj_split_hand_paid_one_cent_as_a_win_then_the_other_collected_in_full() -> None:
    # 8 hand 1 paid 1 as a win, 9 hand 1.2 collected 2500. Section 2.2: a split hand paid as a win after the
    # dealer's blackjack is a finding at its settle under the settlement key, expected "minus what was still
    # collectable (at most that hand's stake)": -2500, actual 1, amount_delta -2501; and it counts that 2500 as
    # collected. Hand 1.2 then takes the total past the original wager: 2.11(d), expected -0 = 0, actual -2500,
    # amount_delta 2500. The deltas sum to -1: the box netted -2499 where -2500 was due.
    r = nj([*NJ_SPLIT, settle("1", "win", 1), settle("1.2", "lose", NJ_W)])
    assert findings(r, "$") == [
        want(OUTCOME, 8, "1", -NJ_W, 1, -2501),
        want(SPLIT_D, 9, "1.2", 0, -NJ_W, NJ_W),
    ]


# --- New Zealand: the original wager or all the box's wagers ----------------------------------------------------


def test_nz_split_box_collected_more_than_all_its_wagers_names_the_money_in_nz_dollars() -> None:
    # 7 hand 1 collected 1000, 8 hand 1.2 collected 1500. Either the original wager (1000) or all of them (2000)
    # may be taken; 2500 is 500 more than the nearer, at the box's last settlement, named by its seat.
    r = nz([*NZ_SPLIT, settle("1", "lose", NZ_W), settle("1.2", "lose", 1500)])
    assert findings(r, "NZ$") == [want(NZ_EXTRA, 8, "1", -2000, -2500, 500)]


def test_nz_split_hand_never_settled_after_a_push_owes_at_least_the_original_wager() -> None:
    # 7 hand 1 pushed; hand 1.2 never settled. The box owes at least the original wager (1000), none of it
    # collected: hand 1.2 (stake 1000) was due -1000 at the least.
    r = nz([*NZ_SPLIT, settle("1", "push", 0)])
    assert findings(r, "NZ$") == [missing("1.2", -NZ_W)]


def test_nz_split_hand_never_settled_after_the_original_wager_was_collected_owes_nothing_more() -> None:
    # 7 hand 1 collected 1000 (the original wager); hand 1.2 never settled: the least it could owe is nothing (the
    # original wager alone may be all the dealer's blackjack takes). Expected 0, no amount_delta.
    r = nz([*NZ_SPLIT, settle("1", "lose", NZ_W)])
    assert findings(r, "NZ$") == [missing("1.2", 0)]


def test_nz_split_hand_never_settled_after_all_the_wagers_were_collected_owes_nothing_more() -> None:
    # 7 hand 1 collected 2000, every wager of the box; hand 1.2 never settled: it owes nothing, not a payment
    # either (what the box was over-collected is no missing settlement's money). Expected 0.
    r = nz([*NZ_SPLIT, settle("1", "lose", 2 * NZ_W)])
    assert findings(r, "NZ$") == [missing("1.2", 0)]


def test_nz_split_after_the_dealers_blackjack_was_known_a_hand_settled_twice() -> None:
    # A table electing the dealer's second card in the initial deal, and the peek. 0 1:8H, 1 dealer AS, 2 1:8D,
    # 3 dealer KC down, 4 peek: blackjack, 5 a split after it, 6 reveal, 7 hand 1 collected 1000, 8 hand 1.2
    # collected 1000, 9 and again. Section 2.1: the hand is settled by the cards it held when the blackjack was known
    # (the 16 of its original wager, 1000 lost), so 1000 too much was taken across the hands (at the last of their
    # first settlements); the second settlement of hand 1.2 moved 1000 it should not have (section 2.2).
    r = nz(
        [
            deal("1", "8H"),
            deal("dealer", "AS"),
            deal("1", "8D"),
            deal("dealer", "KC", "down"),
            peek(True),
            split("1", NZ_W),
            reveal("dealer", "KC"),
            settle("1", "lose", NZ_W),
            settle("1.2", "lose", NZ_W),
            settle("1.2", "lose", NZ_W),
        ],
        dealer_second_card="initial_deal",
        peek=True,
    )
    assert findings(r, "NZ$") == [
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 split"),
        want(LOSE, 8, "1", -NZ_W, -2 * NZ_W, NZ_W),
        want(TWICE, 9, "1.2", 0, -NZ_W, NZ_W),
    ]


# --- The void (section 2.3) -------------------------------------------------------------------------------------


def test_nz_wager_returned_on_the_void_then_collected_was_settled_twice() -> None:
    # 0 1:TH, 1 dealer 9C, 2 1:8D, 3 void, 4 the wager returned, 5 collected as well. Section 2.3: a wager in play
    # at the void "is returned by a settle with result void and amount 0" - done at event 4; the collection at 5 is a
    # second settlement (section 2.2): expected 0, actual -1000, amount_delta 1000.
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            void("misdeal"),
            settle("1", "void", 0),
            settle("1", "lose", NZ_W),
        ]
    )
    assert findings(r, "NZ$") == [want(TWICE, 5, "1", 0, -NZ_W, NZ_W)]
    assert audit(r)["void"] == {"event": 3, "reason": "misdeal"}
