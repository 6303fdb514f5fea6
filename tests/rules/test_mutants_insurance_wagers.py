"""Insurance, even money and the NJ 13:69F-2.17 additional wager: rounds that surviving mutants of
``app.domain.checks.insurance`` and ``app.domain.checks.wagers`` got wrong. Each expectation is written from the
rules (NZ Gazette 1994 No 112 rules 8.3, 9.1, 9.3, 9.5, 9.6; N.J.A.C. 13:69F-2.17) and ``round-v1.md`` sections 2
and 2.1, every finding stated whole, in the engine's documented order (by event, then by rule; absences last).

Each round is built and audited inside its test (mutation testing sees only what tests run). Event indices are
spelled out beside each round. New Zealand boxes wager 1000 (smallest chip 100), New Jersey boxes 2500.
"""

from __future__ import annotations

from typing import Any

from tests.builders import (
    a_round,
    audit,
    deal,
    double,
    even_money,
    insurance,
    peek,
    reveal,
    seat,
    settle,
    settle_additional,
    settle_insurance,
    stand,
)
from tests.rules.case import Want, got, want

NZ_W = 1000
NJ_W = 2500
SIDE = 100
"""The $1.00 additional wager of 13:69F-2.17(a)."""

MISSING = "uncited:missing-settlement"
EARLY = "uncited:settled-before-dealer-complete"
EARLY_EXPECTED = "settled after the dealer's hand is complete"
DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
NZ_DRAW = "uncited:dealer-draw"
EVEN_MONEY_EXPECTED = "player blackjack, dealer ace"
NO_SECOND_CARD = "settled on the dealer's second card"


def nz(events: list[dict[str, Any]], boxes: int = 1, **elections: Any) -> dict[str, Any]:
    """An NZ round on the test table (no hole card: the dealer's second card comes after the players; stands on
    soft 17), ``boxes`` boxes of 1000."""
    return a_round(
        "NZ", seats=[seat(n, NZ_W) for n in range(1, boxes + 1)], events=events, extra_rules=elections
    )


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """An NJ round on the test table (hole card, peek, stands on soft 17); one box of 2500 unless ``seats``."""
    return a_round("US-NJ", seats=seats or [seat(1, NJ_W)], events=events, extra_rules=elections)


def dealer(*cards: str) -> list[dict[str, Any]]:
    """Cards to the dealer, one event each."""
    return [deal("dealer", c) for c in cards]


def findings(r: dict[str, Any]) -> list[Want]:
    return [got(f) for f in audit(r)["findings"]]


# --- Insurance (NZ 9.1, 9.3, 9.5, 9.6) --------------------------------------------------------------------------


def test_insurance_never_settled_that_won_is_owed_two_to_one() -> None:
    # 0 1:9H, 1 dealer AD, 2 1:8C (17), 3 insurance 500, 4 stand, 5 dealer KS (blackjack), 6 the 17 collected.
    # The insurance won (9.1: the dealer's second card is a king) and was never settled: 9.5 owed it 2 to 1, 1000.
    r = nz(
        [
            deal("1", "9H"),
            deal("dealer", "AD"),
            deal("1", "8C"),
            insurance(1, 500),
            stand("1"),
            deal("dealer", "KS"),
            settle("1", "lose", NZ_W),
        ]
    )
    assert findings(r) == [want(MISSING, None, "1", 1000, 0, 1000)]


def test_insurance_placed_before_the_dealer_had_a_card() -> None:
    # 0 1:9H, 1 insurance (no dealer card yet), 2 dealer AD, 3 1:8C, 4 stand, 5 dealer 6S (soft 17, stands),
    # 6 insurance collected, 7 the 17 pushes. At event 1 the dealer had no first card, let alone an ace (9.1), and
    # the initial deal was not complete (9.3).
    r = nz(
        [
            deal("1", "9H"),
            insurance(1, 500),
            deal("dealer", "AD"),
            deal("1", "8C"),
            stand("1"),
            deal("dealer", "6S"),
            settle_insurance(1, "lose", 500),
            settle("1", "push", 0),
        ]
    )
    assert findings(r) == [
        want("9.1", 1, "1", "dealer's up card an ace", None),
        want("9.3", 1, "1", "after the initial deal", "during the initial deal"),
    ]


def test_insurance_of_a_box_after_a_box_without_insurance() -> None:
    # 0 1:TC, 1 2:9H, 2 dealer AD, 3 1:8C, 4 2:8D, 5 box 2 insures 500, 6-7 stands, 8 dealer KS (blackjack),
    # 9 box 2's winning insurance collected (9.1: it won; 1000 was due, 500 taken: 1500 owed), 10-11 both 18s lose.
    r = nz(
        [
            deal("1", "TC"),
            deal("2", "9H"),
            deal("dealer", "AD"),
            deal("1", "8C"),
            deal("2", "8D"),
            insurance(2, 500),
            stand("1"),
            stand("2"),
            deal("dealer", "KS"),
            settle_insurance(2, "lose", 500),
            settle("1", "lose", NZ_W),
            settle("2", "lose", NZ_W),
        ],
        boxes=2,
    )
    assert findings(r) == [want("9.1", 9, "2", 1000, -500, 1500)]


def test_insurance_of_a_box_after_an_insurance_never_settled() -> None:
    # 0 1:TC, 1 2:9H, 2 dealer AD, 3 1:8C, 4 2:8D, 5-6 both boxes insure 500, 7-8 stands, 9 dealer KS (blackjack),
    # 10 box 2's insurance paid 1 to 1 (9.5: 2 to 1, 1000, was due), 11-12 both 18s lose. Box 1's winning insurance
    # was never settled: it was owed 1000.
    r = nz(
        [
            deal("1", "TC"),
            deal("2", "9H"),
            deal("dealer", "AD"),
            deal("1", "8C"),
            deal("2", "8D"),
            insurance(1, 500),
            insurance(2, 500),
            stand("1"),
            stand("2"),
            deal("dealer", "KS"),
            settle_insurance(2, "win", 500),
            settle("1", "lose", NZ_W),
            settle("2", "lose", NZ_W),
        ],
        boxes=2,
    )
    assert findings(r) == [
        want("9.5", 10, "2", 1000, 500, 500),
        want(MISSING, None, "1", 1000, 0, 1000),
    ]


def test_insurance_returned_or_collected_when_the_dealer_took_no_second_card() -> None:
    # 0 1:TH, 1 2:TC, 2 dealer AS, 3 1:6D, 4 2:6C, 5-6 both boxes insure 500, 7 1:9C (25), 8 2:9D (25), 9-10 both
    # busted hands collected, 11 box 1's insurance returned, 12 box 2's insurance collected. The dealer never took
    # the second card that decides insurance (9.1) and after which a losing one is collected (9.6): returning the
    # undecided wager takes nothing from anyone; collecting it is a collection with no second card (9.6). The
    # dealer owed the second card to decide the insurance.
    r = nz(
        [
            deal("1", "TH"),
            deal("2", "TC"),
            deal("dealer", "AS"),
            deal("1", "6D"),
            deal("2", "6C"),
            insurance(1, 500),
            insurance(2, 500),
            deal("1", "9C"),
            deal("2", "9D"),
            settle("1", "lose", NZ_W),
            settle("2", "lose", NZ_W),
            settle_insurance(1, "push", 0),
            settle_insurance(2, "lose", 500),
        ],
        boxes=2,
    )
    assert findings(r) == [
        want("9.6", 12, "2", NO_SECOND_CARD, "NZ$5.00 was collected with no second card"),
        want(NZ_DRAW, None, "dealer", "a second card, to decide the insurance", "stood on one card"),
    ]


def test_insurance_paid_one_cent_when_the_dealer_took_no_second_card() -> None:
    # 0 1:TH, 1 dealer AS, 2 1:6D, 3 insurance 500, 4 1:9C (25), 5 the bust collected, 6 the insurance "won" 1:
    # with no second card it neither won nor lost (9.1); the 1 paid is owed back.
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "AS"),
            deal("1", "6D"),
            insurance(1, 500),
            deal("1", "9C"),
            settle("1", "lose", NZ_W),
            settle_insurance(1, "win", 1),
        ]
    )
    assert findings(r) == [
        # (money: the player's net on the bet, spec 2.2 - nothing was due, 1 was paid)
        want("9.1", 6, "1", 0, 1, -1),
        want(NZ_DRAW, None, "dealer", "a second card, to decide the insurance", "stood on one card"),
    ]


def test_losing_insurance_collected_before_the_second_card_of_a_dealer_standing_on_two() -> None:
    # 0 1:TH, 1 dealer AD, 2 1:9C (19), 3 insurance, 4 stand, 5 insurance collected before the dealer's second card
    # (9.6), 6 dealer 7S (soft 18: no third card), 7 the 19 paid.
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "AD"),
            deal("1", "9C"),
            insurance(1, 500),
            stand("1"),
            settle_insurance(1, "lose", 500),
            deal("dealer", "7S"),
            settle("1", "win", NZ_W),
        ]
    )
    assert findings(r) == [want("9.6", 5, "1", "between events 6 and the end", "event 5")]


# --- Even money (NZ 8.3; NJ uncited) ----------------------------------------------------------------------------


def test_even_money_of_a_box_after_a_box_without_it() -> None:
    # 0 1:TC, 1 2:AS, 2 dealer AD, 3 1:8C, 4 2:KH (blackjack), 5 box 2 takes even money but is paid 1500 (8.3: one
    # to one, 1000), 6 stand 1, 7 dealer 7S (soft 18), 8 the 18 pushes.
    r = nz(
        [
            deal("1", "TC"),
            deal("2", "AS"),
            deal("dealer", "AD"),
            deal("1", "8C"),
            deal("2", "KH"),
            even_money(2, 1500),
            stand("1"),
            deal("dealer", "7S"),
            settle("1", "push", 0),
        ],
        boxes=2,
    )
    assert findings(r) == [want("8.3", 5, "2", 1000, 1500, -500)]


def test_even_money_on_a_soft_20_before_the_dealers_second_card() -> None:
    # 0 1:AS, 1 dealer AD, 2 1:9H (soft 20), 3 even money, 4 dealer 5S (soft 16), 5 dealer 2C (soft 18). Not a
    # blackjack (8.3); the payment settles a 20, whose outcome depends on the dealer, made before the dealer's hand
    # was complete (its last card came at event 5). The money is right: 20 beats 18, 1000 was due.
    r = nz([deal("1", "AS"), deal("dealer", "AD"), deal("1", "9H"), even_money(1, NZ_W), *dealer("5S", "2C")])
    assert findings(r) == [
        want("8.3", 3, "1", EVEN_MONEY_EXPECTED, "AS+9H vs AD"),
        want(EARLY, 3, "1", EARLY_EXPECTED, "settled at event 3, dealer's hand complete at event 5"),
    ]


def test_even_money_on_a_soft_20_between_the_dealers_second_and_third_cards() -> None:
    # 0 1:AS, 1 dealer AD, 2 1:9H (soft 20), 3 dealer 5S (soft 16: the dealer must draw), 4 even money, 5 dealer 2C
    # (soft 18). Not a blackjack, and after the dealer's second card was known (8.3); paid while the dealer still
    # had to draw. 20 beats 18: the 1000 paid was due.
    r = nz(
        [
            deal("1", "AS"),
            deal("dealer", "AD"),
            deal("1", "9H"),
            deal("dealer", "5S"),
            even_money(1, NZ_W),
            deal("dealer", "2C"),
        ]
    )
    assert findings(r) == [
        want("8.3", 4, "1", EVEN_MONEY_EXPECTED, "AS+9H vs AD"),
        want("8.3", 4, "1", "before event 3", "event 4"),
        want(EARLY, 4, "1", EARLY_EXPECTED, "settled at event 4, dealer's hand complete at event 5"),
    ]


def test_even_money_on_a_soft_20_after_the_dealer_stood_on_soft_17_option_unknown() -> None:
    # No soft-17 election (the 1994 drawing rule is not held): standing on soft 17 is not a fault. 0 1:AS, 1 dealer
    # AD, 2 1:9H (soft 20), 3 dealer 6S (soft 17, the dealer's last card), 4 even money. Not a blackjack, and too
    # late (8.3); paid after the dealer's last card, so not before the dealer was complete. 20 beats 17: 1000 due.
    rules = {"decks": 6, "blackjack_pays": "3:2", "dealer_second_card": "after_players", "min_chip": 100}
    r = a_round(
        "NZ",
        seats=[seat(1, NZ_W)],
        events=[
            deal("1", "AS"),
            deal("dealer", "AD"),
            deal("1", "9H"),
            deal("dealer", "6S"),
            even_money(1, NZ_W),
        ],
        rules=rules,
    )
    assert findings(r) == [
        want("8.3", 4, "1", EVEN_MONEY_EXPECTED, "AS+9H vs AD"),
        want("8.3", 4, "1", "before event 3", "event 4"),
    ]


def test_even_money_on_a_soft_20_once_the_dealer_stood_on_soft_17_then_drew() -> None:
    # The table stands on soft 17. 0 1:AS, 1 dealer AD, 2 1:9H (soft 20), 3 dealer 6S (soft 17: complete), 4 even
    # money, 5 dealer 4C (21), drawn on soft 17. The payment (not a blackjack, too late: 8.3) settled the 20 when
    # the dealer's hand was complete on 17: 20 beats 17, the 1000 paid was due (a card the dealer drew wrongly
    # afterwards does not change it). The dealer's draw is a fault; the only hand was paid even money, so no
    # other settlement changes with it.
    r = nz(
        [
            deal("1", "AS"),
            deal("dealer", "AD"),
            deal("1", "9H"),
            deal("dealer", "6S"),
            even_money(1, NZ_W),
            deal("dealer", "4C"),
        ]
    )
    assert findings(r) == [
        want("8.3", 4, "1", EVEN_MONEY_EXPECTED, "AS+9H vs AD"),
        want("8.3", 4, "1", "before event 3", "event 4"),
        want(NZ_DRAW, 5, "dealer", "stand on soft 17", "drew 4C"),
    ]


def test_even_money_after_the_peek_judged_by_the_hand_as_it_stood_at_the_peek() -> None:
    # 0 1:9H, 1 dealer AS, 2 1:2D, 3 dealer KC face down (blackjack), 4 peek: blackjack, 5 double after it, 6 its
    # card TC (not reported again), 7 even money 2500, 8 reveal. The round was over at the peek (2.1): the hand is
    # settled as it stood then, 11 on the original wager, which the dealer's blackjack beats: 2500 was to be
    # collected, 2500 was paid instead (5000 owed back). Even money is only for a blackjack (NJ uncited).
    r = nj(
        [
            deal("1", "9H"),
            deal("dealer", "AS"),
            deal("1", "2D"),
            deal("dealer", "KC", "down"),
            peek(True),
            double("1", NJ_W),
            deal("1", "TC"),
            even_money(1, NJ_W),
            reveal("dealer", "KC"),
        ]
    )
    assert findings(r) == [
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 doubled down"),
        want("uncited:even-money", 7, "1", EVEN_MONEY_EXPECTED, "9H+2D+TC vs AS"),
        want(DBJ, 7, "1", DBJ_EXPECTED, "even money was paid"),
        want("uncited:settlement-outcome", 7, "1", -NJ_W, NJ_W, -2 * NJ_W),
    ]


# --- Additional wagers (NJ 13:69F-2.17) -------------------------------------------------------------------------


def side(kind: str, amount: int = SIDE) -> list[dict[str, Any]]:
    return [seat(1, NJ_W, (kind, amount))]


def test_seven_wager_never_settled_that_won_on_the_dealers_first_card() -> None:
    # 0 1:5H, 1 dealer 7S, 2 1:9D, 3 dealer TC face down, 4 1:4C (18), 5 reveal (17), 6 the 18 paid. The seven
    # wager won (2.17(b): a seven among the first three cards, the dealer's first card); it was never settled, and
    # what a winner is paid is on the layout, which we do not hold: no amount is owed that the record tells.
    r = nj(
        [
            deal("1", "5H"),
            deal("dealer", "7S"),
            deal("1", "9D"),
            deal("dealer", "TC", "down"),
            deal("1", "4C"),
            reveal("dealer", "TC"),
            settle("1", "win", NJ_W),
        ],
        side("seven"),
        additional_wager="seven",
    )
    assert findings(r) == [want(MISSING, None, "1", None, 0, None)]


def test_seven_wager_never_settled_that_lost_is_owed_its_stake() -> None:
    # 0 1:5H, 1 dealer 9C, 2 1:9D, 3 dealer 8S face down, 4 1:4C (18), 5 reveal (17), 6 the 18 paid. No seven among
    # the player's two cards and the dealer's first (2.17(b)): the wager lost and was never collected (100 owed).
    r = nj(
        [
            deal("1", "5H"),
            deal("dealer", "9C"),
            deal("1", "9D"),
            deal("dealer", "8S", "down"),
            deal("1", "4C"),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
        ],
        side("seven"),
        additional_wager="seven",
    )
    assert findings(r) == [want(MISSING, None, "1", -SIDE, 0, -SIDE)]


def test_same_suit_wager_never_settled_that_won() -> None:
    # 0 1:5H, 1 dealer 9C, 2 1:6H (two hearts: the wager won, 2.17(b)), 3 dealer 8S face down, 4 1:TD (21),
    # 5 reveal (17), 6 the 21 paid. Never settled; a winner's payout is not held: no amount.
    r = nj(
        [
            deal("1", "5H"),
            deal("dealer", "9C"),
            deal("1", "6H"),
            deal("dealer", "8S", "down"),
            deal("1", "TD"),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
        ],
        side("same_suit"),
        additional_wager="same_suit",
    )
    assert findings(r) == [want(MISSING, None, "1", None, 0, None)]


def test_over_13_wager_of_a_box_never_dealt_a_card() -> None:
    # Box 1 (an over-13 wager) is dealt no card; box 2 plays. 0 2:TH, 1 dealer 9C, 2 2:8D, 3 dealer 8S face down,
    # 4 stand, 5 reveal, 6 the 18 paid, 7 box 1's wager returned. Box 1's additional wager was never settled; with
    # no first two cards it neither won nor lost that the record tells: no amount.
    r = nj(
        [
            deal("2", "TH"),
            deal("dealer", "9C"),
            deal("2", "8D"),
            deal("dealer", "8S", "down"),
            stand("2"),
            reveal("dealer", "8S"),
            settle("2", "win", NJ_W),
            settle("1", "push", 0),
        ],
        [seat(1, NJ_W, ("over_13", SIDE)), seat(2, NJ_W)],
        additional_wager="over_under_13",
    )
    assert findings(r) == [want(MISSING, None, "1", None, 0, None)]


def test_additional_wager_of_a_box_after_a_box_never_dealt_a_card() -> None:
    # Box 1 (over 13) is dealt no card and its wagers are returned; box 2 (under 13) holds TH+8D (18), and its
    # under-13 wager, which lost (2.17(b)), is paid. 0 2:TH, 1 dealer 9C, 2 2:8D, 3 dealer 8S face down, 4 box 1's
    # additional wager returned, 5 box 2's paid 100 (200 owed back), 6 stand, 7 reveal, 8 the 18 paid, 9 box 1's
    # main wager returned.
    r = nj(
        [
            deal("2", "TH"),
            deal("dealer", "9C"),
            deal("2", "8D"),
            deal("dealer", "8S", "down"),
            settle_additional(1, "push", 0),
            settle_additional(2, "win", SIDE),
            stand("2"),
            reveal("dealer", "8S"),
            settle("2", "win", NJ_W),
            settle("1", "push", 0),
        ],
        [seat(1, NJ_W, ("over_13", SIDE)), seat(2, NJ_W, ("under_13", SIDE))],
        additional_wager="over_under_13",
    )
    assert findings(r) == [want("13:69F-2.17(b)", 5, "2", -SIDE, SIDE, -2 * SIDE)]


def test_additional_wager_of_a_box_after_a_box_without_one() -> None:
    # Box 1 has no additional wager; box 2's same-suit wager on TC+9C (two clubs) won and is collected (2.17(b)).
    # 0 1:TH, 1 2:TC, 2 dealer 9D, 3 1:8C, 4 2:9C, 5 dealer 8S face down, 6 box 2's wager collected, 7 reveal
    # (17), 8-9 the 18 and the 19 paid.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "TC"),
            deal("dealer", "9D"),
            deal("1", "8C"),
            deal("2", "9C"),
            deal("dealer", "8S", "down"),
            settle_additional(2, "lose", SIDE),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
            settle("2", "win", NJ_W),
        ],
        [seat(1, NJ_W), seat(2, NJ_W, ("same_suit", SIDE))],
        additional_wager="same_suit",
    )
    assert findings(r) == [want("13:69F-2.17(b)", 6, "2", 0, -SIDE, SIDE)]


def test_additional_wager_of_a_box_after_one_never_settled() -> None:
    # Both boxes take the same-suit wager. Box 1 (TH+8C) lost and was never collected (100 owed); box 2's (TC+9C,
    # two clubs) won and is collected (2.17(b)). 0 1:TH, 1 2:TC, 2 dealer 9D, 3 1:8C, 4 2:9C, 5 dealer 8S face
    # down, 6 box 2's wager collected, 7 reveal (17), 8-9 the 18 and the 19 paid.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "TC"),
            deal("dealer", "9D"),
            deal("1", "8C"),
            deal("2", "9C"),
            deal("dealer", "8S", "down"),
            settle_additional(2, "lose", SIDE),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
            settle("2", "win", NJ_W),
        ],
        [seat(1, NJ_W, ("same_suit", SIDE)), seat(2, NJ_W, ("same_suit", SIDE))],
        additional_wager="same_suit",
    )
    assert findings(r) == [
        want("13:69F-2.17(b)", 6, "2", 0, -SIDE, SIDE),
        want(MISSING, None, "1", -SIDE, 0, -SIDE),
    ]


def over_under_round(kind: str, p1: str, p2: str, draw: str, result: str, amount: int) -> dict[str, Any]:
    """An over/under-13 wager on ``p1``+``p2`` settled at event 4; the player draws ``draw`` (event 5) to beat the
    dealer's 9+8. Events: 0-3 1, dealer 9C, 1, dealer 8S face down; 4 the additional wager; 5 the draw; 6 reveal;
    7 the main wager paid."""
    return nj(
        [
            deal("1", p1),
            deal("dealer", "9C"),
            deal("1", p2),
            deal("dealer", "8S", "down"),
            settle_additional(1, result, amount),
            deal("1", draw),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
        ],
        side(kind),
        additional_wager="over_under_13",
    )


def test_under_13_paid_on_exactly_13() -> None:
    # 6+7 is exactly 13: the under-13 wager loses (2.17(c)); it was paid 100, 200 is owed back.
    r = over_under_round("under_13", "6H", "7D", "5C", "win", SIDE)
    assert findings(r) == [want("13:69F-2.17(c)", 4, "1", -SIDE, SIDE, -2 * SIDE)]


def test_winning_additional_wager_paid_one_cent() -> None:
    # K+4 is over 13: the wager won (2.17(b)). What a winner is paid is on the table's layout, which we do not hold
    # (2.17(e) is cut off): a payment of any amount is not a finding.
    r = over_under_round("over_13", "KH", "4D", "4C", "win", 1)
    assert findings(r) == []


def same_suit_late(p2: str, result: str, amount: int) -> dict[str, Any]:
    """5H and ``p2`` with a same-suit wager, settled after the player's hit card. Events: 0-3 1:5H, dealer 9C,
    1:``p2``, dealer 8S face down; 4 1:TD (the hit card); 5 the additional wager; 6 reveal (17); 7 the main wager
    paid."""
    return nj(
        [
            deal("1", "5H"),
            deal("dealer", "9C"),
            deal("1", p2),
            deal("dealer", "8S", "down"),
            deal("1", "TD"),
            settle_additional(1, result, amount),
            reveal("dealer", "8S"),
            settle("1", "win", NJ_W),
        ],
        side("same_suit"),
        additional_wager="same_suit",
    )


def test_winning_additional_wager_collected_after_a_further_card() -> None:
    # 5H+6H won (2.17(b)) but was collected. 2.17(d) times the collection of LOSING wagers only; this one won, so
    # the one fault is its outcome.
    r = same_suit_late("6H", "lose", SIDE)
    assert findings(r) == [want("13:69F-2.17(b)", 5, "1", 0, -SIDE, SIDE)]


def test_losing_additional_wager_returned_after_a_further_card() -> None:
    # 5H+6C lost (2.17(b)); it was returned (push: the money decides, a collection of nothing, section 2) at
    # event 5, after the hit card at event 4: not collected (100 owed), and its settlement came after a further
    # card, where 2.17(d) requires it right after the second cards, before any further card.
    r = same_suit_late("6C", "push", 0)
    assert findings(r) == [
        want("13:69F-2.17(b)", 5, "1", -SIDE, 0, -SIDE),
        want("13:69F-2.17(d)", 5, "1", "after event 2, before event 4", "event 5"),
    ]


def test_losing_additional_wager_paid_one_cent_after_a_further_card() -> None:
    # 5H+6C lost (2.17(b)) but was paid 1 (101 owed back). A payment is not a collection: 2.17(d), which times the
    # collection of a losing wager, has none to time; the one fault is the outcome.
    r = same_suit_late("6C", "win", 1)
    assert findings(r) == [want("13:69F-2.17(b)", 5, "1", -SIDE, 1, -SIDE - 1)]


def test_seven_wager_with_no_dealer_card() -> None:
    # The dealer never dealt itself a card; box 1's seven wager on TH+6D (no seven) is collected after its second
    # card, then it draws 9C and busts. No seven among any first three cards: the wager lost, and was collected at
    # the right time. 0 1:TH, 1 1:6D, 2 the seven wager collected, 3 1:9C (25), 4 the bust collected.
    r = nj(
        [
            deal("1", "TH"),
            deal("1", "6D"),
            settle_additional(1, "lose", SIDE),
            deal("1", "9C"),
            settle("1", "lose", NJ_W),
        ],
        side("seven"),
        additional_wager="seven",
    )
    assert findings(r) == []


def test_seven_wager_never_settled_with_no_dealer_card() -> None:
    # As above, but the seven wager is never settled: it lost (no seven among TH, 6D, 9C) and 100 is owed.
    # 0 1:TH, 1 1:6D, 2 1:9C (25), 3 the bust collected.
    r = nj(
        [deal("1", "TH"), deal("1", "6D"), deal("1", "9C"), settle("1", "lose", NJ_W)],
        side("seven"),
        additional_wager="seven",
    )
    assert findings(r) == [want(MISSING, None, "1", -SIDE, 0, -SIDE)]


def test_additional_wager_returned_in_a_round_with_no_card() -> None:
    # The round was called off before any card: 0 the additional wager returned, 1 the main wager returned. No
    # card, no outcome: nothing to report.
    r = nj(
        [settle_additional(1, "push", 0), settle("1", "push", 0)],
        side("over_13"),
        additional_wager="over_under_13",
    )
    assert findings(r) == []
