"""Insurance, even money, the NJ 13:69F-2.17 additional wager, table limits, doubling, splitting and the dealer's
single card, in the code issue 19 added: wagers returned on a void (round-v1.md section 2.3), insurance paid 2 to 1 in
whole chips of ``min_chip`` (section 2.2), money named in the jurisdiction's currency in messages (section 4) and
the double-card checks of a voided round. Rounds that surviving mutants of ``app.domain.checks.insurance``,
``wagers``, ``doubling``, ``splitting`` and ``dealer`` got wrong; each expectation is written from the rules (NZ
Gazette 1994 No 112 rules 8.2, 8.3, 9.1, 9.3-9.6; N.J.A.C. 13:69F-2.12, 2.17, 19:47-2.10) and round-v1.md, every
finding stated whole, in the engine's documented order (by event, then by rule; absences last).

Section 4: a finding's ``message`` "is for people: it names money in the jurisdiction's currency (``$25.00``,
``NZ$25.00``), never in minor units". No test here compares a message's words; :func:`findings` checks, for every
finding of every round, only that its message is text (the OpenAPI ``Finding.message`` is a required string) and that
every amount it names is written in the jurisdiction's currency.

Each round is built and audited inside its test (mutation testing sees only what tests run). Event indices are
spelled out beside each round. New Zealand boxes wager 1000 (smallest chip 100), New Jersey boxes 2500.
"""

from __future__ import annotations

import re
from typing import Any

from tests.builders import (
    a_round,
    audit,
    deal,
    double,
    even_money,
    insurance,
    reveal,
    seat,
    settle,
    settle_additional,
    settle_insurance,
    split,
    stand,
    void,
)
from tests.rules.case import WORDS, Want, Words, got, want

NZ_W = 1000
NJ_W = 2500
SIDE = 100
"""The $1.00 additional wager of 13:69F-2.17(a)."""

NJ_CURRENCY = "$"
NZ_CURRENCY = "NZ$"

VOID = "uncited:void-wager-not-returned"
AFTER_VOID = "uncited:play-after-void"
MISSING = "uncited:missing-settlement"
EVEN_MONEY_EXPECTED = "player blackjack, dealer ace"

_AMOUNT = re.compile(r"([^\s\d(]*)\d[\d,]*\.\d\d(?![\d(])")
"""An amount of money as a message writes it (``NZ$1,250.50``), with what stands before its digits (the currency,
and a sign); a citation's number (``2.10(b)``) is none."""


def findings(r: dict[str, Any], currency: str) -> list[Want]:
    """Every finding of the round's audit, whole; and, of every finding, that its message is a string and names
    each amount in ``currency`` (section 4), never another currency or none."""
    result = audit(r)
    for f in result["findings"]:
        message = f["message"]
        assert isinstance(message, str) and message, f
        written = {before.lstrip("-") for before in _AMOUNT.findall(message)}
        assert written <= {currency}, (written, message)
    return [got(f) for f in result["findings"]]


def void_of(r: dict[str, Any]) -> dict[str, Any] | None:
    return audit(r).get("void")


def nz(events: list[dict[str, Any]], boxes: int = 1, **elections: Any) -> dict[str, Any]:
    """An NZ round on the test table (the dealer's second card after the players, stands on soft 17, smallest chip
    100), ``boxes`` boxes of 1000."""
    return a_round(
        "NZ", seats=[seat(n, NZ_W) for n in range(1, boxes + 1)], events=events, extra_rules=elections
    )


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """An NJ round on the test table (hole card, peek, stands on soft 17); one box of 2500 unless ``seats``."""
    return a_round("US-NJ", seats=seats or [seat(1, NJ_W)], events=events, extra_rules=elections)


# --- Insurance: 2 to 1 in whole chips (section 2.2), the half-wager limit (NZ 9.3) -----------------------------


def test_insurance_never_settled_at_a_table_rounding_up_is_owed_the_next_whole_chip() -> None:
    # 0 1:TH, 1 dealer AC, 2 1:8D (18), 3 insurance 125, 4 stand, 5 dealer KS (blackjack), 6 the 18 collected.
    # The insurance won (9.1: the dealer's second card is a king) and was never settled. Section 2.2: 2 to 1
    # insurance is paid in whole chips of min_chip (100), "up at a table that elects payout_rounding: up": the exact
    # 250 is 300. The missing settlement is owed 300. (9.4: 125 at 2 to 1, 250, cannot be paid in chips of 100.)
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "AC"),
            deal("1", "8D"),
            insurance(1, 125),
            stand("1"),
            deal("dealer", "KS"),
            settle("1", "lose", NZ_W),
        ],
        payout_rounding="up",
    )
    assert findings(r, NZ_CURRENCY) == [
        want("9.4", 3, "1", Words("100"), 250),
        want(MISSING, None, "1", 300, 0, 300),
    ]


def test_insurance_over_half_the_wager_that_won_paid_one_to_one() -> None:
    # 0 1:TC, 1 dealer AD, 2 1:8C (18), 3 insurance 600 on a wager of 1000, 4 stand, 5 dealer KS (blackjack),
    # 6 the insurance paid 600, 7 the 18 collected. 9.3: insurance may be at most half the wager (500). 9.5: a
    # winning insurance pays 2 to 1: 1200 was due, 600 paid, 600 owed.
    r = nz(
        [
            deal("1", "TC"),
            deal("dealer", "AD"),
            deal("1", "8C"),
            insurance(1, 600),
            stand("1"),
            deal("dealer", "KS"),
            settle_insurance(1, "win", 600),
            settle("1", "lose", NZ_W),
        ]
    )
    assert findings(r, NZ_CURRENCY) == [
        want("9.3", 3, "1", Words("500"), 600),
        want("9.5", 6, "1", 1200, 600, 600),
    ]


# --- Insurance and the void (section 2.3) ---------------------------------------------------------------------


def test_insurances_won_or_lost_after_the_void_are_owed_back_box_by_box() -> None:
    # 0 1:TC, 1 2:9H, 2 dealer AD, 3 1:8C, 4 2:8D, 5-6 both boxes insure 500, 7 void, 8 box 1's insurance paid
    # 1000, 9 box 2's collected 500, 10-11 both main wagers returned. Section 2.3: "every wager still in play
    # (main ..., insurance, additional) is returned by a settle with result void and amount 0"; "a wager settled
    # after the void as a win or a loss is a money finding (expected 0)": box 1 owes back 1000, box 2 is owed 500.
    r = nz(
        [
            deal("1", "TC"),
            deal("2", "9H"),
            deal("dealer", "AD"),
            deal("1", "8C"),
            deal("2", "8D"),
            insurance(1, 500),
            insurance(2, 500),
            void("equipment"),
            settle_insurance(1, "win", 1000),
            settle_insurance(2, "lose", 500),
            settle("1", "void", 0),
            settle("2", "void", 0),
        ],
        boxes=2,
    )
    assert findings(r, NZ_CURRENCY) == [
        want(VOID, 8, "1", 0, 1000, -1000),
        want(VOID, 9, "2", 0, -500, 500),
    ]
    assert void_of(r) == {"event": 7, "reason": "equipment"}


def test_insurance_placed_after_the_void_is_only_play_after_the_void() -> None:
    # 0 1:TC, 1 dealer 9D, 2 1:8C, 3 dealer's hole card, 4 void, 5 insurance (against a 9), 6 the wager returned.
    # Section 2.3: "after a void, no card is dealt and no decision is taken"; "a deal or a player decision after the
    # void is a finding at that event" - one finding. The insurance is not judged as if it had been placed in play
    # (not against an ace, nothing settles it): the void stopped the round.
    r = nj(
        [
            deal("1", "TC"),
            deal("dealer", "9D"),
            deal("1", "8C"),
            deal("dealer", "5S", "down"),
            void("misdeal"),
            insurance(1, 1000),
            settle("1", "void", 0),
        ]
    )
    assert findings(r, NJ_CURRENCY) == [want(AFTER_VOID, 5, "1", WORDS, WORDS)]
    assert void_of(r) == {"event": 4, "reason": "misdeal"}


# --- Even money (NZ 8.3; section 2: "even_money is itself the settlement of that seat's main wager") -------------


def test_even_money_paid_after_the_void_is_owed_back_box_by_box() -> None:
    # 0 1:AH, 1 2:AS, 2 dealer AC, 3 1:KD, 4 2:QD (two blackjacks against an ace), 5 void, 6-7 both boxes paid even
    # money, 1000 each. Even money settles the main wager; settled after the void as a win, each is a money finding
    # (section 2.3: expected 0): 1000 owed back by each box.
    r = nz(
        [
            deal("1", "AH"),
            deal("2", "AS"),
            deal("dealer", "AC"),
            deal("1", "KD"),
            deal("2", "QD"),
            void("misdeal"),
            even_money(1, NZ_W),
            even_money(2, NZ_W),
        ],
        boxes=2,
    )
    assert findings(r, NZ_CURRENCY) == [
        want(VOID, 6, "1", 0, 1000, -1000),
        want(VOID, 7, "2", 0, 1000, -1000),
    ]
    assert void_of(r) == {"event": 5, "reason": "misdeal"}


def test_even_money_short_paid_names_the_money_in_nz_dollars() -> None:
    # 0 1:AH, 1 dealer AC, 2 1:KD (blackjack against an ace), 3 even money paid 900, 4 the dealer's second card 5S
    # (no hand is left for the dealer to play against). 8.3: even money pays one to one, 1000: 100 owed.
    r = nz([deal("1", "AH"), deal("dealer", "AC"), deal("1", "KD"), even_money(1, 900), deal("dealer", "5S")])
    assert findings(r, NZ_CURRENCY) == [want("8.3", 3, "1", 1000, 900, 100)]


def test_even_money_on_a_blackjack_against_a_nine_with_the_dealer_on_one_card() -> None:
    # 0 1:AH, 1 dealer 9C, 2 1:KD (blackjack), 3 even money 1000; the dealer takes no second card (no hand waits
    # on it: a 9 cannot make a dealer blackjack). 8.3: even money is only for a blackjack against an ace. Paid where
    # it is not allowed, it is still the settlement of the wager (section 2), judged as one: a blackjack against a 9
    # is owed 3 to 2, 1500 (the odds' key, uncited in NZ against a 9 up: 8.2 names an ace or a ten); 500 owed.
    r = nz([deal("1", "AH"), deal("dealer", "9C"), deal("1", "KD"), even_money(1, NZ_W)])
    assert findings(r, NZ_CURRENCY) == [
        want("8.3", 3, "1", EVEN_MONEY_EXPECTED, "AH+KD vs 9C"),
        want("uncited:blackjack-odds", 3, "1", 1500, 1000, 500),
    ]


def test_even_money_on_a_blackjack_against_a_nine_before_a_contradiction_is_still_judged() -> None:
    # 0 1:AH, 1 dealer 9C, 2 1:KD (blackjack), 3 even money 1000, 4 a card to hand 7 (no such box: the record
    # contradicts itself). Section 2.1: the findings established before the contradicting event are still
    # reported. A blackjack against a 9 wins 3 to 2 whatever the dealer's hand becomes (a 9 makes no blackjack):
    # 1500 was due, 1000 paid, 500 owed; 8.3: even money only against an ace.
    r = nz([deal("1", "AH"), deal("dealer", "9C"), deal("1", "KD"), even_money(1, NZ_W), deal("7", "5C")])
    assert findings(r, NZ_CURRENCY) == [
        want("8.3", 3, "1", EVEN_MONEY_EXPECTED, "AH+KD vs 9C"),
        want("uncited:blackjack-odds", 3, "1", 1500, 1000, 500),
        want("record", 4, "7", None, None),
    ]


def test_even_money_on_a_losing_hand_before_a_contradiction_is_still_judged() -> None:
    # 0 1:TH, 1 dealer AC, 2 1:6D (16), 3 stand, 4 dealer 6S (soft 17: the table stands, the dealer is complete),
    # 5 "even money" 1000 paid on the 16, 6 a card to hand 7 (no such box: the record contradicts itself). Section
    # 2.1: the findings established before the contradicting event are still reported. At event 5 the dealer's hand
    # was complete on 17: the 16 lost, 1000 was to be collected and 1000 was paid, 2000 owed by the player (NZ 4.1,
    # the outcome's key). 8.3: not a blackjack against an ace, and after the dealer's second card (event 4).
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "AC"),
            deal("1", "6D"),
            stand("1"),
            deal("dealer", "6S"),
            even_money(1, NZ_W),
            deal("7", "5C"),
        ]
    )
    assert findings(r, NZ_CURRENCY) == [
        want("4.1(g)", 5, "1", -1000, 1000, -2000),
        want("8.3", 5, "1", EVEN_MONEY_EXPECTED, "TH+6D vs AC"),
        want("8.3", 5, "1", Words("4"), Words("5")),
        want("record", 6, "7", None, None),
    ]


# --- The NJ additional wager (13:69F-2.17) and the void (section 2.3) --------------------------------------------

SAME_SUIT = {"additional_wager": "same_suit"}


def test_additional_wagers_won_or_lost_after_the_void_are_owed_back_box_by_box() -> None:
    # 0 1:TC, 1 2:9H, 2 dealer AD, 3 1:8C, 4 2:8H (box 2's same suit wins), 5 hole card, 6 void, 7 box 1's
    # additional wager paid 1000, 8 box 2's collected 100, 9-10 the main wagers returned. Section 2.3: the
    # additional wager still in play is returned; won or lost after the void it is a money finding, expected 0.
    r = nj(
        [
            deal("1", "TC"),
            deal("2", "9H"),
            deal("dealer", "AD"),
            deal("1", "8C"),
            deal("2", "8H"),
            deal("dealer", "5S", "down"),
            void("shoe_error"),
            settle_additional(1, "win", 1000),
            settle_additional(2, "lose", SIDE),
            settle("1", "void", 0),
            settle("2", "void", 0),
        ],
        seats=[seat(1, NJ_W, ("same_suit", SIDE)), seat(2, NJ_W, ("same_suit", SIDE))],
        **SAME_SUIT,
    )
    assert findings(r, NJ_CURRENCY) == [
        want(VOID, 7, "1", 0, 1000, -1000),
        want(VOID, 8, "2", 0, -100, 100),
    ]
    assert void_of(r) == {"event": 6, "reason": "shoe_error"}


def test_additional_wager_never_returned_after_the_void() -> None:
    # 0 1:TC, 1 dealer AD, 2 1:8C, 3 hole card, 4 void, 5 the main wager returned; the additional wager never is.
    # Section 2.3: "a wager in play at the void that is never settled is uncited:void-wager-not-returned, event null
    # with its hand or seat (its stake is the player's: no amount_delta)" - not a missing settlement.
    r = nj(
        [
            deal("1", "TC"),
            deal("dealer", "AD"),
            deal("1", "8C"),
            deal("dealer", "5S", "down"),
            void("shoe_error"),
            settle("1", "void", 0),
        ],
        seats=[seat(1, NJ_W, ("same_suit", SIDE))],
        **SAME_SUIT,
    )
    assert findings(r, NJ_CURRENCY) == [want(VOID, None, "1", 0, 0)]
    assert void_of(r) == {"event": 4, "reason": "shoe_error"}


def test_losing_additional_wager_never_settled() -> None:
    # 0 1:TC, 1 dealer 9D, 2 1:8H (not the same suit: the wager lost), 3 hole card 8S, 4 stand, 5 reveal (17),
    # 6 the 18 paid. 13:69F-2.17(d): a losing additional wager is collected; it never was. Section 2.2: a missing
    # settlement, expected the net due (-100), actual 0.
    r = nj(
        [
            deal("1", "TC"),
            deal("dealer", "9D"),
            deal("1", "8H"),
            deal("dealer", "8S", "down"),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
        ],
        seats=[seat(1, NJ_W, ("same_suit", SIDE))],
        **SAME_SUIT,
    )
    assert findings(r, NJ_CURRENCY) == [want(MISSING, None, "1", -100, 0, -100)]


def test_additional_wager_of_the_wrong_amount_paid_although_it_lost() -> None:
    # An additional wager of 200: 13:69F-2.17(a) requires exactly 100. 0 1:TC, 1 dealer 9D, 2 1:8H (not the same
    # suit: it lost), 3 hole card 8S, 4 the additional wager paid 1000, 5 stand, 6 reveal (17), 7 the 18 paid.
    # 2.17(b): the losing wager is collected, not paid: expected -200, 1200 owed by the player.
    r = nj(
        [
            deal("1", "TC"),
            deal("dealer", "9D"),
            deal("1", "8H"),
            deal("dealer", "8S", "down"),
            settle_additional(1, "win", 1000),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
        ],
        seats=[seat(1, NJ_W, ("same_suit", 200))],
        **SAME_SUIT,
    )
    assert findings(r, NJ_CURRENCY) == [
        want("13:69F-2.17(b)", 4, "1", -200, 1000, -1200),
        want("13:69F-2.17(a)", None, "1", 100, 200),
    ]


def test_losing_additional_wager_collected_short() -> None:
    # 0 1:TC, 1 dealer 9D, 2 1:8H (lost), 3 hole card 8S, 4 the additional wager collected 50 of its 100, 5 stand,
    # 6 reveal (17), 7 the 18 paid. A losing wager is collected whole: 50 more owed by the player.
    r = nj(
        [
            deal("1", "TC"),
            deal("dealer", "9D"),
            deal("1", "8H"),
            deal("dealer", "8S", "down"),
            settle_additional(1, "lose", 50),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
        ],
        seats=[seat(1, NJ_W, ("same_suit", SIDE))],
        **SAME_SUIT,
    )
    assert findings(r, NJ_CURRENCY) == [want("uncited:lose-collects-stake", 4, "1", -100, -50, -50)]


# --- Table limits, doubles and splits in NZ dollars ---------------------------------------------------------------


def test_wagers_outside_the_posted_limits_in_nz_dollars() -> None:
    # Posted limits 2000 to 50000; box 1 wagers 1000, box 2 60000: each outside. 0 1:TC, 1 2:9H, 2 dealer 7D,
    # 3 1:8C (18), 4 2:8H (17), 5-6 stands, 7 dealer TS (17), 8 the 18 paid, 9 the 17 pushes.
    r = a_round(
        "NZ",
        seats=[seat(1, 1000), seat(2, 60000)],
        events=[
            deal("1", "TC"),
            deal("2", "9H"),
            deal("dealer", "7D"),
            deal("1", "8C"),
            deal("2", "8H"),
            stand("1"),
            stand("2"),
            deal("dealer", "TS"),
            settle("1", "win", 1000),
            settle("2", "push", 0),
        ],
        extra_rules={"min_wager": 2000, "max_wager": 50000},
    )
    assert findings(r, NZ_CURRENCY) == [
        want("uncited:table-limits", None, "1", Words("2000", "50000"), 1000),
        want("uncited:table-limits", None, "2", Words("2000", "50000"), 60000),
    ]


def test_split_and_double_for_the_wrong_amounts_in_nz_dollars() -> None:
    # 0 1:8C, 1 dealer 7D, 2 1:8H, 3 split for 500 (the split wager must equal the wager, 1000), 4 1:3C (11),
    # 5 double for 1500 (more than the wager, 1000), 6 1:9S (20), 7 1.2:TC (18), 8 stand, 9 dealer TS (17),
    # 10-11 both paid. NZ's splitting and doubling rules are not held: uncited. The settlements are not judged
    # here beyond what the hands hold (20 and 18 beat 17: paid their stakes).
    r = nz(
        [
            deal("1", "8C"),
            deal("dealer", "7D"),
            deal("1", "8H"),
            split("1", 500),
            deal("1", "3C"),
            double("1", 1500),
            deal("1", "9S"),
            deal("1.2", "TC"),
            stand("1.2"),
            deal("dealer", "TS"),
            settle("1", "win", 2500),
            settle("1.2", "win", 500),
        ]
    )
    assert findings(r, NZ_CURRENCY) == [
        want("uncited:splitting", 3, "1", 1000, 500),
        want("uncited:doubling", 5, "1", Words("1000"), 1500),
    ]


def test_double_on_a_split_ace_is_reported_with_a_message() -> None:
    # 0 1:AC, 1 dealer 7D, 2 1:AH, 3 hole card TS (17), 4 split aces, 5 1:6C (17: the split ace's one card),
    # 6 double, 7 1.2:9C (20), 8 reveal, 9 the 17 pushes, 10 the 20 paid. The double asks for a further card for a
    # split ace: 13:69F-2.12(a)3 and 2.11(c)2 at the double (one fault, two provisions). Each finding has its message
    # (Finding.message, a required string).
    r = nj(
        [
            deal("1", "AC"),
            deal("dealer", "7D"),
            deal("1", "AH"),
            deal("dealer", "TS", "down"),
            split("1", NJ_W),
            deal("1", "6C"),
            double("1", NJ_W),
            deal("1.2", "9C"),
            reveal("dealer", "TS"),
            settle("1", "push", 0),
            settle("1.2", "win", NJ_W),
        ]
    )
    assert findings(r, NJ_CURRENCY) == [
        want("13:69F-2.11(c)2", 6, "1", "no further card", "double down"),
        want("13:69F-2.12(a)3", 6, "1", "no further card", "double down"),
    ]


# --- The double card of a voided round (19:47-2.10(c), section 2.3) ------------------------------------------------


def test_double_card_of_a_hand_settled_before_the_void_is_judged_after_a_voided_hand() -> None:
    # The table deals the double card face down (19:47-2.10(c)). 0 1:5C, 1 2:7D, 2 dealer 9S, 3 1:6H (11), 4 2:5H
    # (12), 5 hole card, 6 box 1 doubles, 7 its card face down, 8 box 2 doubles, 9 its card TC face UP (22, bust),
    # 10 the bust collected (5000), 11 void, 12 box 1's wagers returned. Section 2.3: settlements made before the
    # void stand and are judged as usual; box 2's hand was played and settled before it, so its face-up double card
    # is 19:47-2.10(c) at event 9. Box 1's play stopped at the void (its face-down card never had to be turned up).
    r = nj(
        [
            deal("1", "5C"),
            deal("2", "7D"),
            deal("dealer", "9S"),
            deal("1", "6H"),
            deal("2", "5H"),
            deal("dealer", "7C", "down"),
            double("1", NJ_W),
            deal("1", "2C", "down"),
            double("2", NJ_W),
            deal("2", "TC"),
            settle("2", "lose", 2 * NJ_W),
            void("equipment"),
            settle("1", "void", 0),
        ],
        seats=[seat(1, NJ_W), seat(2, NJ_W)],
        double_card="face_down",
    )
    assert findings(r, NJ_CURRENCY) == [want("19:47-2.10(c)", 9, "2", "face down", "face up")]
    assert void_of(r) == {"event": 11, "reason": "equipment"}


# --- The dealer's single card at a 6 to 5 table (13:69F-2.12(d)) ----------------------------------------------------


def test_dealer_on_one_card_while_a_blackjack_waits_at_a_six_to_five_table() -> None:
    # A 6 to 5 table (hits soft 17, 2.12(d)). 0 1:AH, 1 dealer TC, 2 1:KD (blackjack), 3 the blackjack paid 6 to 5
    # (3000); the dealer never takes its second card. Against a ten up the blackjack's result waits on the dealer's
    # second card (section 2.1: a dealer blackjack would make it a stand off): paid before it is settled before the
    # dealer was complete (no money: 3000 is what a blackjack is due at 6 to 5), and the dealer that stopped on one
    # card breaks the drawing rule this table is under, 2.12(d).
    r = nj(
        [deal("1", "AH"), deal("dealer", "TC"), deal("1", "KD"), settle("1", "win", 3000)],
        blackjack_pays="6:5",
        dealer_soft_17="hit",
    )
    assert findings(r, NJ_CURRENCY) == [
        want("uncited:settled-before-dealer-complete", 3, "1", WORDS, WORDS),
        want("13:69F-2.12(d)", None, "dealer", "a second card, to decide the blackjack", "stood on one card"),
    ]
