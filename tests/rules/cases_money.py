"""Money that adds up (``round-v1.md`` section 2.2, issue 19 part 2): cases written from the spec before the engine
implemented them, each finding stated whole.

* Every finding about money has integer ``expected`` and ``actual`` (the player's net on that bet, in minor units)
  and ``amount_delta`` = expected - actual: side wagers, a missing settlement (event null, actual 0), a settlement
  made twice (at the second, expected 0); a missing or duplicate push has no ``amount_delta``.
* Odds winnings (3 to 2, 6 to 5, 2 to 1 insurance) and the half of a surrendered wager returned are rounded to the
  table's ``min_chip`` (1 when not elected): down by default, up with ``payout_rounding: "up"``. Even money is
  never rounded. Any other amount is a finding for the difference.
* NJ 13:69F-2.11(d) per bet: split hands after a dealer blackjack are read in event order, keeping the running
  total collected of the hands' stakes; a finding at each settle that takes it past the original wager; a split
  hand paid as a win under the settlement key; a shortfall at the last split-hand settle; a double on a split hand
  is apart (19:47-2.10(b), expected 0 for that part).
* After a dealer drawing error the drawing finding carries no money; each settlement is judged against the dealer's
  hand as it stood before the forbidden card (or as recorded, when the dealer stood where a draw was required), and
  the money is on each settlement finding.

The sum of ``amount_delta`` over a round's findings is what the round owes the player; each case's comment works it
out. New Jersey boxes wager 2500 on the test table (hole card, peek, stands on soft 17) unless a case says
otherwise; New Zealand boxes 1000, smallest chip 100, dated 1995.
"""

from __future__ import annotations

from typing import Any

from tests.builders import (
    a_round,
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
    split,
    stand,
    surrender,
)
from tests.rules.case import Case, fires, quiet, want

W = 2500
NZ_W = 1000
SIDE = 100
"""The $1.00 additional wager of 13:69F-2.17(a)."""

OUTCOME = "uncited:settlement-outcome"
MISSING = "uncited:missing-settlement"
TWICE = "uncited:settled-twice"
BJ_ODDS = "uncited:blackjack-odds"
SURRENDER = "uncited:surrender"
INSURANCE_PAYS = "uncited:insurance-pays-2-to-1"
WIN_ODDS = "uncited:win-pays-1-to-1"
D_2_11 = "13:69F-2.11(d)"
D_2_10 = "19:47-2.10(b)"

UP: dict[str, Any] = {"payout_rounding": "up"}
LATE: dict[str, Any] = {"surrender": "late"}
SIX_FIVE: dict[str, Any] = {"blackjack_pays": "6:5", "dealer_soft_17": "hit"}


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """A New Jersey round on the test table; one box of 2500 unless ``seats`` says otherwise."""
    return a_round("US-NJ", seats=seats or [seat(1, W)], events=events, extra_rules=elections)


def nz(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """A New Zealand round on the test table (smallest chip 100); one box of 1000 unless ``seats`` says otherwise."""
    return a_round("NZ", seats=seats or [seat(1, NZ_W)], events=events, extra_rules=elections)


def opening(p1: str, up: str, p2: str, hole: str) -> list[dict[str, Any]]:
    """Events 0-3 of a one-box NJ round: player, dealer up card, player, dealer hole card face down."""
    return [deal("1", p1), deal("dealer", up), deal("1", p2), deal("dealer", hole, "down")]


# --- Shapes shared by firing cases and their quiet variants ----------------------------------------------------


def side_wager(
    kind: str, p1: str, p2: str, draw: str, side: tuple[str, int] | None, *, offered: str
) -> dict[str, Any]:
    """An additional wager of 100 on ``p1``+``p2`` against a dealer 9 (hole 8): 4 the wager settled (``side``;
    None: never), then the player draws ``draw`` to a total that beats 17, the reveal, and the main wager paid."""
    side_ev = [settle_additional(1, *side)] if side else []
    ev = [
        *opening(p1, "9C", p2, "8S"),
        *side_ev,
        deal("1", draw),
        reveal("dealer", "8S"),
        settle("1", "win", W),
    ]
    return nj(ev, seats=[seat(1, W, (kind, SIDE))], additional_wager=offered)


def nj_blackjack(wager: int, paid: int, **elections: Any) -> dict[str, Any]:
    """0-3 AH 9C KD 8S(down): a blackjack against a dealer 9, paid ``paid`` at once (4), then the reveal (5: 17)."""
    ev = [*opening("AH", "9C", "KD", "8S"), settle("1", "win", paid), reveal("dealer", "8S")]
    return nj(ev, seats=[seat(1, wager)], **elections)


def nj_surrender(wager: int, collected: int, **elections: Any) -> dict[str, Any]:
    """0-3 TH TC 6D 9S(down): 16 against a ten; 4 peek (no blackjack), 5 late surrender, 6 ``collected``, 7 the
    reveal (19)."""
    ev = [
        *opening("TH", "TC", "6D", "9S"),
        peek(False),
        surrender("1"),
        settle("1", "surrender", collected),
        reveal("dealer", "9S"),
    ]
    return nj(ev, seats=[seat(1, wager)], **LATE, **elections)


def nj_insurance_wins(wager: int, ins: int, paid: int, **elections: Any) -> dict[str, Any]:
    """0-3 TH AS 9D KC(down), 4 insurance ``ins``, 5 peek: blackjack, 6 reveal, 7 insurance paid ``paid``, 8 the 19
    collected."""
    ev = [
        *opening("TH", "AS", "9D", "KC"),
        insurance(1, ins),
        peek(True),
        reveal("dealer", "KC"),
        settle_insurance(1, "win", paid),
        settle("1", "lose", wager),
    ]
    return nj(ev, seats=[seat(1, wager)], **elections)


def nj_stands_19(wager: int, *settles: dict[str, Any], **elections: Any) -> dict[str, Any]:
    """0-3 TH 9C 9D 8S(down): 19 stands (4) against 17 (5 reveal); then ``settles`` (6, ...)."""
    ev = [*opening("TH", "9C", "9D", "8S"), stand("1"), reveal("dealer", "8S"), *settles]
    return nj(ev, seats=[seat(1, wager)], **elections)


def nz_blackjack(up: str, wager: int, paid: int, **elections: Any) -> dict[str, Any]:
    """0-2 AS KH against ``up``, 3 the dealer's second card 8C (17 or 18), 4 the blackjack paid ``paid``."""
    ev = [
        deal("1", "AS"),
        deal("dealer", up),
        deal("1", "KH"),
        deal("dealer", "8C"),
        settle("1", "win", paid),
    ]
    return nz(ev, seats=[seat(1, wager)], **elections)


def nz_surrender(wager: int, collected: int, **elections: Any) -> dict[str, Any]:
    """0-2 TH 6C against TD, 3 late surrender, 4 ``collected``; no box is live, the dealer takes no card."""
    ev = [deal("1", "TH"), deal("dealer", "TD"), deal("1", "6C"), surrender("1")]
    return nz([*ev, settle("1", "surrender", collected)], seats=[seat(1, wager)], **LATE, **elections)


def nz_insured(ins: int, paid: int, **elections: Any) -> dict[str, Any]:
    """0-2 9H 8C against AD, 3 insurance ``ins``, 4 stand, 5 KS (the dealer's blackjack), 6 insurance paid ``paid``,
    7 the 17 collected."""
    ev = [
        deal("1", "9H"),
        deal("dealer", "AD"),
        deal("1", "8C"),
        insurance(1, ins),
        stand("1"),
        deal("dealer", "KS"),
        settle_insurance(1, "win", paid),
        settle("1", "lose", NZ_W),
    ]
    return nz(ev, **elections)


def three_split_hands(*results: tuple[str, int]) -> dict[str, Any]:
    """No-peek table. 0-3 8H TC 8D AS(down), 4 split (1: 8H, 1.2: 8D), 5 1<-8C, 6 split again (1.3: 8C), 7 1<-TH
    (18), 8 1.2<-9D (17), 9 1.3<-TS (18), 10 reveal: the dealer's blackjack; 11, 12, 13 hands 1, 1.2, 1.3 settled
    with ``results``. The original wager is 2500; 13:69F-2.11(d) lets the three hands lose 2500 in all."""
    ev = [
        *opening("8H", "TC", "8D", "AS"),
        split("1", W),
        deal("1", "8C"),
        split("1", W),
        deal("1", "TH"),
        deal("1.2", "9D"),
        deal("1.3", "TS"),
        reveal("dealer", "AS"),
        *(settle(h, *r) for h, r in zip(("1", "1.2", "1.3"), results, strict=True)),
    ]
    return nj(ev, peek=False, resplit=True, boxes=6)


def split_and_double(first: int, second: tuple[str, int]) -> dict[str, Any]:
    """No-peek table. 0-3 8H TC 8D AS(down), 4 split, 5 1<-3C (11), 6 hand 1 doubles, 7 1<-9H (20), 8 1.2<-TD (18),
    9 reveal: the dealer's blackjack; 10 hand 1 collected ``first`` (its stake 2500 and its double 2500 are at
    stake), 11 hand 1.2 settled with ``second``."""
    ev = [
        *opening("8H", "TC", "8D", "AS"),
        split("1", W),
        deal("1", "3C"),
        double("1", W),
        deal("1", "9H"),
        deal("1.2", "TD"),
        reveal("dealer", "AS"),
        settle("1", "lose", first),
        settle("1.2", *second),
    ]
    return nj(ev, peek=False)


# ---------------------------------------------------------------------------------------------------------------

NJ_CASES: list[Case] = [
    # --- "Every finding about money has integer expected and actual ... Labels such as "win"/"lose" go in message,
    # never in expected/actual, for side wagers too." A losing $1.00 additional wager is collected (-100).
    # over 13 on A+3 (the ace counts one: 4) paid 100: expected -100, actual 100, the player owes 200
    fires(
        "13:69F-2.17(b)",
        "over 13 on A+3 paid: integer nets",
        side_wager("over_13", "AH", "3D", "4C", ("win", SIDE), offered="over_under_13"),
        "additional_outcome",
        want("13:69F-2.17(b)", 4, "1", -SIDE, SIDE, -2 * SIDE),
    ),
    # same suit on 5H+6C (not the same suit) paid 100
    fires(
        "13:69F-2.17(b)",
        "same-suit wager on 5H+6C paid: integer nets",
        side_wager("same_suit", "5H", "6C", "TD", ("win", SIDE), offered="same_suit"),
        "additional_outcome",
        want("13:69F-2.17(b)", 4, "1", -SIDE, SIDE, -2 * SIDE),
    ),
    # over 13 on exactly 13 loses (2.17(c)): paid 100, or returned as a push
    fires(
        "13:69F-2.17(c)",
        "over 13 on 6+7 paid: integer nets",
        side_wager("over_13", "6H", "7D", "5C", ("win", SIDE), offered="over_under_13"),
        "additional_13",
        want("13:69F-2.17(c)", 4, "1", -SIDE, SIDE, -2 * SIDE),
    ),
    fires(
        "13:69F-2.17(c)",
        "over 13 on 6+7 returned as a push: integer nets",
        side_wager("over_13", "6H", "7D", "5C", ("push", 0), offered="over_under_13"),
        "additional_13",
        want("13:69F-2.17(c)", 4, "1", -SIDE, 0, -SIDE),
    ),
    quiet(
        "13:69F-2.17(b)",
        "over 13 on A+3 collected",
        side_wager("over_13", "AH", "3D", "4C", ("lose", SIDE), offered="over_under_13"),
    ),
    quiet(
        "13:69F-2.17(c)",
        "over 13 on 6+7 collected",
        side_wager("over_13", "6H", "7D", "5C", ("lose", SIDE), offered="over_under_13"),
    ),
    # --- A missing settlement: "event null, hand or seat named, actual 0, expected the net that was due".
    # 0-3 TH 9C 7D TS(down), 4 stand, 5 reveal: 17 loses to 19, never collected
    fires(
        MISSING,
        "losing main wager never settled",
        nj([*opening("TH", "9C", "7D", "TS"), stand("1"), reveal("dealer", "TS")]),
        "missing_settlement",
        want(MISSING, None, "1", -W, 0, -W),
    ),
    # 19 against 17, never paid
    fires(
        MISSING,
        "winning main wager never settled",
        nj_stands_19(W),
        "missing_settlement",
        want(MISSING, None, "1", W, 0, W),
    ),
    # "A settlement missing ... that moves no money (a push): the same finding, under the same key ... with no
    # amount_delta." 0-3 TH 9C 9D TS(down): 19 against 19
    fires(
        MISSING,
        "a push never settled",
        nj([*opening("TH", "9C", "9D", "TS"), stand("1"), reveal("dealer", "TS")]),
        "missing_settlement",
        want(MISSING, None, "1", 0, 0),
    ),
    # 0-3 TH AS 9D 7C(down), 4 insurance 1250, 5 peek (none), 6 stand, 7 reveal (soft 18), 8 the 19 paid; the
    # losing insurance is never collected (the seat named as the hand, as for every insurance finding)
    fires(
        MISSING,
        "losing insurance never settled",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                insurance(1, W // 2),
                peek(False),
                stand("1"),
                reveal("dealer", "7C"),
                settle("1", "win", W),
            ]
        ),
        "missing_settlement",
        want(MISSING, None, "1", -W // 2, 0, -W // 2),
    ),
    # a same-suit wager on 5H+6C (lost) never collected
    fires(
        MISSING,
        "losing additional wager never settled",
        side_wager("same_suit", "5H", "6C", "TD", None, offered="same_suit"),
        "missing_settlement",
        want(MISSING, None, "1", -SIDE, 0, -SIDE),
    ),
    quiet(MISSING, "the 19 paid", nj_stands_19(W, settle("1", "win", W))),
    quiet(
        MISSING,
        "losing additional wager collected, main wager paid",
        side_wager("same_suit", "5H", "6C", "TD", ("lose", SIDE), offered="same_suit"),
    ),
    # --- Made twice: "at the second settle: expected 0, actual that settle's net".
    fires(
        TWICE,
        "winning hand paid twice",
        nj_stands_19(W, settle("1", "win", W), settle("1", "win", W)),
        "settled_twice",
        want(TWICE, 7, "1", 0, W, -W),
    ),
    # 0-3 TH 9C 9D TS(down): 19 against 19 pushed at 6 and again at 7: no money, no amount_delta
    fires(
        TWICE,
        "a push settled twice",
        nj(
            [
                *opening("TH", "9C", "9D", "TS"),
                stand("1"),
                reveal("dealer", "TS"),
                settle("1", "push", 0),
                settle("1", "push", 0),
            ]
        ),
        "settled_twice",
        want(TWICE, 7, "1", 0, 0),
    ),
    # 0-3 TH AS 9D 7C(down), 4 insurance, 5 peek, 6 collected, 7 collected again, 8 stand, 9 reveal, 10 paid
    fires(
        TWICE,
        "losing insurance collected twice",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                insurance(1, W // 2),
                peek(False),
                settle_insurance(1, "lose", W // 2),
                settle_insurance(1, "lose", W // 2),
                stand("1"),
                reveal("dealer", "7C"),
                settle("1", "win", W),
            ]
        ),
        "settled_twice",
        want(TWICE, 7, "1", 0, -W // 2, W // 2),
    ),
    # 0-3 AH AS KD 5C(down), 4 even money (the wager's settlement), 5 peek, 6 reveal, 7 paid again 3 to 2
    fires(
        TWICE,
        "blackjack settled again after even money",
        nj(
            [
                *opening("AH", "AS", "KD", "5C"),
                even_money(1, W),
                peek(False),
                reveal("dealer", "5C"),
                settle("1", "win", W * 3 // 2),
            ]
        ),
        "settled_twice",
        want(TWICE, 7, "1", 0, W * 3 // 2, -W * 3 // 2),
    ),
    # a winning same-suit wager (5H+6H) paid at 4 and again at 5
    fires(
        TWICE,
        "winning additional wager paid twice",
        nj(
            [
                *opening("5H", "9C", "6H", "8S"),
                settle_additional(1, "win", SIDE),
                settle_additional(1, "win", SIDE),
                deal("1", "TD"),
                reveal("dealer", "8S"),
                settle("1", "win", W),
            ],
            seats=[seat(1, W, ("same_suit", SIDE))],
            additional_wager="same_suit",
        ),
        "settled_twice",
        want(TWICE, 5, "1", 0, SIDE, -SIDE),
    ),
    quiet(TWICE, "the 19 paid once", nj_stands_19(W, settle("1", "win", W))),
    # --- Rounding. "3 to 2 on 1,500 at a min_chip 100 table is 2,200 (exact 2,250) ... paying the exact 2,250
    # there overpays by 50; paying 2,200 at an "up" table underpays by 100."
    quiet(BJ_ODDS, "3 to 2 on 1500 at min_chip 100 paid 2200", nj_blackjack(1500, 2200, min_chip=100)),
    fires(
        BJ_ODDS,
        "3 to 2 on 1500 at min_chip 100 paid the exact 2250",
        nj_blackjack(1500, 2250, min_chip=100),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 2200, 2250, -50),
    ),
    quiet(
        BJ_ODDS,
        "rounding up: 3 to 2 on 1500 at min_chip 100 paid 2300",
        nj_blackjack(1500, 2300, min_chip=100, **UP),
    ),
    fires(
        BJ_ODDS,
        "rounding up: 3 to 2 on 1500 at min_chip 100 paid 2200",
        nj_blackjack(1500, 2200, min_chip=100, **UP),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 2300, 2200, 100),
    ),
    # "rounded to the table's min_chip (1 minor unit when not elected)": 3 to 2 on 2501 is 3751.5
    quiet(BJ_ODDS, "3 to 2 on 2501, no chip elected, paid 3751", nj_blackjack(2501, 3751)),
    fires(
        BJ_ODDS,
        "3 to 2 on 2501, no chip elected, paid 3752 (rounded up at a table rounding down)",
        nj_blackjack(2501, 3752),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 3751, 3752, -1),
    ),
    quiet(BJ_ODDS, "rounding up: 3 to 2 on 2501 paid 3752", nj_blackjack(2501, 3752, **UP)),
    fires(
        BJ_ODDS,
        "rounding up: 3 to 2 on 2501 paid 3751",
        nj_blackjack(2501, 3751, **UP),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 3752, 3751, 1),
    ),
    # 6 to 5 (on a wager not divisible by 5): 6 to 5 on 1001 is 1201.2; on 1050 at min_chip 100, 1260
    quiet(BJ_ODDS, "6 to 5 on 1001 paid 1201", nj_blackjack(1001, 1201, **SIX_FIVE)),
    fires(
        BJ_ODDS,
        "6 to 5 on 1001 paid 1202 (rounded up at a table rounding down)",
        nj_blackjack(1001, 1202, **SIX_FIVE),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 1201, 1202, -1),
    ),
    quiet(
        BJ_ODDS,
        "6 to 5 on 1050 at min_chip 100 paid 1200",
        nj_blackjack(1050, 1200, min_chip=100, **SIX_FIVE),
    ),
    fires(
        BJ_ODDS,
        "6 to 5 on 1050 at min_chip 100 paid the exact 1260",
        nj_blackjack(1050, 1260, min_chip=100, **SIX_FIVE),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 1200, 1260, -60),
    ),
    quiet(
        BJ_ODDS,
        "rounding up: 6 to 5 on 1050 at min_chip 100 paid 1300",
        nj_blackjack(1050, 1300, min_chip=100, **SIX_FIVE, **UP),
    ),
    # "a surrender of 1,005 at min_chip 1 returns 502 and collects 503; a surrender of 1,500 at min_chip 100
    # returns 700 and collects 800." Rounded up, 1,005 returns 503 (collects 502) and 1,500 returns 800 (700).
    quiet(SURRENDER, "surrender of 1005 collects 503", nj_surrender(1005, 503)),
    fires(
        SURRENDER,
        "surrender of 1005 collects 502 (the half returned rounded up)",
        nj_surrender(1005, 502),
        "surrender_amount",
        want(SURRENDER, 6, "1", -503, -502, -1),
    ),
    quiet(SURRENDER, "rounding up: surrender of 1005 collects 502", nj_surrender(1005, 502, **UP)),
    fires(
        SURRENDER,
        "rounding up: surrender of 1005 collects 503",
        nj_surrender(1005, 503, **UP),
        "surrender_amount",
        want(SURRENDER, 6, "1", -502, -503, 1),
    ),
    quiet(SURRENDER, "surrender of 1500 at min_chip 100 collects 800", nj_surrender(1500, 800, min_chip=100)),
    fires(
        SURRENDER,
        "surrender of 1500 at min_chip 100 collects the exact half, 750",
        nj_surrender(1500, 750, min_chip=100),
        "surrender_amount",
        want(SURRENDER, 6, "1", -800, -750, -50),
    ),
    quiet(
        SURRENDER,
        "rounding up: surrender of 1500 at min_chip 100 collects 700",
        nj_surrender(1500, 700, min_chip=100, **UP),
    ),
    fires(
        SURRENDER,
        "rounding up: surrender of 1500 at min_chip 100 collects 800",
        nj_surrender(1500, 800, min_chip=100, **UP),
        "surrender_amount",
        want(SURRENDER, 6, "1", -700, -800, 100),
    ),
    # 2 to 1 insurance: 1025 on a wager of 2050 at min_chip 100 wins the exact 2050: 2000 rounded down, 2100 up
    quiet(
        INSURANCE_PAYS,
        "insurance of 1025 at min_chip 100 paid 2000",
        nj_insurance_wins(2050, 1025, 2000, min_chip=100),
    ),
    fires(
        INSURANCE_PAYS,
        "insurance of 1025 at min_chip 100 paid the exact 2050",
        nj_insurance_wins(2050, 1025, 2050, min_chip=100),
        "insurance_odds",
        want(INSURANCE_PAYS, 7, "1", 2000, 2050, -50),
    ),
    quiet(
        INSURANCE_PAYS,
        "rounding up: insurance of 1025 at min_chip 100 paid 2100",
        nj_insurance_wins(2050, 1025, 2100, min_chip=100, **UP),
    ),
    fires(
        INSURANCE_PAYS,
        "rounding up: insurance of 1025 at min_chip 100 paid 2000",
        nj_insurance_wins(2050, 1025, 2000, min_chip=100, **UP),
        "insurance_odds",
        want(INSURANCE_PAYS, 7, "1", 2100, 2000, 100),
    ),
    # "Even-money (1 to 1) winnings are whole chips whenever the wager is, and are never rounded": a 19 on 1050 at
    # a min_chip 100 table wins 1050, in either direction of rounding.
    quiet(
        WIN_ODDS,
        "1 to 1 on 1050 at min_chip 100 paid 1050",
        nj_stands_19(1050, settle("1", "win", 1050), min_chip=100),
    ),
    quiet(
        WIN_ODDS,
        "rounding up: 1 to 1 on 1050 at min_chip 100 paid 1050",
        nj_stands_19(1050, settle("1", "win", 1050), min_chip=100, **UP),
    ),
    fires(
        WIN_ODDS,
        "1 to 1 on 1050 at min_chip 100 paid 1000 (rounded down as if odds)",
        nj_stands_19(1050, settle("1", "win", 1000), min_chip=100),
        "win_odds",
        want(WIN_ODDS, 6, "1", 1050, 1000, 50),
    ),
    # --- 13:69F-2.11(d) per bet. Three split hands after the dealer's blackjack; the original wager is 2500.
    # 11 collects 2500 (running total 2500), 12 collects 2500 (5000: 2500 past the wager; nothing was still
    # collectable), 13 the same (7500). The round owes the player 5000.
    fires(
        D_2_11,
        "three split hands all collected after the dealer's blackjack",
        three_split_hands(("lose", W), ("lose", W), ("lose", W)),
        "dealer_bj_after_split",
        want(D_2_11, 12, "1.2", 0, -W, W),
        want(D_2_11, 13, "1.3", 0, -W, W),
    ),
    # 11 returned (0), 12 collects 2500 (2500: the wager, no excess), 13 collects 2500 (5000): owed 2500
    fires(
        D_2_11,
        "three split hands after the dealer's blackjack: the first returned, the others collected",
        three_split_hands(("push", 0), ("lose", W), ("lose", W)),
        "dealer_bj_after_split",
        want(D_2_11, 13, "1.3", 0, -W, W),
    ),
    quiet(
        D_2_11,
        "three split hands after the dealer's blackjack: the first collected, the others returned",
        three_split_hands(("lose", W), ("push", 0), ("push", 0)),
    ),
    quiet(
        D_2_11,
        "three split hands after the dealer's blackjack: the last collected, the others returned",
        three_split_hands(("push", 0), ("push", 0), ("lose", W)),
    ),
    # "If, at the last of the seat's split-hand settle events, less than the original wager was collected in all,
    # one finding there under the settlement key for the shortfall": nothing collected, 2500 short at 13 (expected
    # that settle's net, 0, minus the shortfall; actual 0). The player owes 2500.
    fires(
        OUTCOME,
        "three split hands after the dealer's blackjack: all returned",
        three_split_hands(("push", 0), ("push", 0), ("push", 0)),
        "lower_total",
        want(OUTCOME, 13, "1.3", -W, 0, -W),
    ),
    # "A split hand paid as a win after the dealer's blackjack is a finding at its settle under the settlement key
    # ... with expected = minus what was still collectable (at most that hand's stake)", and it counts what was
    # still collectable toward the running total.
    # 11 paid 2500 though 2500 was still collectable: expected -2500, actual 2500 (owes 5000); counted 2500.
    # 12 collects 2500: 5000 counted, 2500 past the wager (owed 2500 back). 13 returned. Sum: the player owes 2500
    # (paid 2500, collected 2500; 2500 was due).
    fires(
        OUTCOME,
        "split hand paid as a win after the dealer's blackjack, then another collected",
        three_split_hands(("win", W), ("lose", W), ("push", 0)),
        "lower_total",
        want(OUTCOME, 11, "1", -W, W, -2 * W),
        want(D_2_11, 12, "1.2", 0, -W, W),
    ),
    # 11 collects the wager (2500), 12 paid 2500 with nothing still collectable: expected 0, actual 2500; 13
    # returned. The total counted is 2500: no shortfall. The player owes the 2500 paid.
    fires(
        OUTCOME,
        "split hand paid as a win after the wager was collected",
        three_split_hands(("lose", W), ("win", W), ("push", 0)),
        "lower_total",
        want(OUTCOME, 12, "1.2", 0, W, -W),
    ),
    # "... on a doubled split hand after a dealer blackjack, 19:47-2.10(b) for the double and 13:69F-2.11(d) for the
    # split wager, each for its own part." 10 hand 1 collected 5000: its stake 2500 (running total 2500) and its
    # double 2500 (2.10(b): expected 0 for that part, actual -2500); 11 hand 1.2 collected 2500 (5000: 2500 past
    # the wager). The player is owed 5000.
    fires(
        D_2_10,
        "split hands after the dealer's blackjack: the double and the split wager collected",
        split_and_double(2 * W, ("lose", W)),
        "dealer_bj_after_double",
        want(D_2_10, 10, "1", 0, -W, W),
        want(D_2_11, 11, "1.2", 0, -W, W),
    ),
    quiet(
        D_2_10,
        "split hands after the dealer's blackjack: the original wager collected, double and split wager returned",
        split_and_double(W, ("push", 0)),
    ),
    # --- After a dealer drawing error: "The drawing finding itself carries no amount_delta; the money is on each
    # settlement it changed ... the dealer's hand is taken as it stood before that card".
    # 0-3 TH 6C 8D AS(down), 4 stand, 5 reveal: soft 17, where this table stands; 6 the dealer draws 4H (21), 7 the
    # 18 collected. Against the dealer's 17 the 18 wins: owed 5000.
    fires(
        "13:69F-2.12(b)1",
        "dealer draws on soft 17; the 18 collected against the 21",
        nj(
            [
                *opening("TH", "6C", "8D", "AS"),
                stand("1"),
                reveal("dealer", "AS"),
                deal("dealer", "4H"),
                settle("1", "lose", W),
            ]
        ),
        "draw_s17",
        want("13:69F-2.12(b)1", 6, "dealer", "stand on soft 17", "drew 4H"),
        want(OUTCOME, 7, "1", W, -W, 2 * W),
    ),
    # The forbidden card ignored at the settlement: the 18 paid as against the 17. Only the draw is a finding.
    fires(
        "13:69F-2.12(b)1",
        "dealer draws on soft 17; the 18 paid as against the 17",
        nj(
            [
                *opening("TH", "6C", "8D", "AS"),
                stand("1"),
                reveal("dealer", "AS"),
                deal("dealer", "4H"),
                settle("1", "win", W),
            ]
        ),
        "draw_s17",
        want("13:69F-2.12(b)1", 6, "dealer", "stand on soft 17", "drew 4H"),
    ),
    # Two boxes, 16 and 17, paid against a dealer who drew on hard 17 (7) and busted. Against the 17: the 16 loses
    # (expected -2500, paid 2500) and the 17 pushes (expected 0, paid 2500). The players owe 7500.
    fires(
        "13:69F-2.12(b)1",
        "dealer draws on hard 17 and busts; two boxes paid",
        nj(
            [
                deal("1", "TH"),
                deal("2", "TC"),
                deal("dealer", "TD"),
                deal("1", "6D"),
                deal("2", "7H"),
                deal("dealer", "7S", "down"),
                reveal("dealer", "7S"),
                deal("dealer", "5H"),
                settle("1", "win", W),
                settle("2", "win", W),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
        "draw_s17",
        want("13:69F-2.12(b)1", 7, "dealer", "stand on hard 17", "drew 5H"),
        want(OUTCOME, 8, "1", -W, W, -2 * W),
        want(OUTCOME, 9, "2", 0, W, -W),
    ),
    # "Where the dealer stood when the rule required a draw ... settlements are judged against the dealer's hand as
    # recorded." 0-3 TH 6C 8D TS(down), 4 stand, 5 reveal: 16, the dealer stops; 6 the 18 collected. Against the
    # recorded 16 the 18 wins: owed 5000. The draw finding (an absence) comes last.
    fires(
        "13:69F-2.12(b)1",
        "dealer stops on 16; the 18 collected",
        nj([*opening("TH", "6C", "8D", "TS"), stand("1"), reveal("dealer", "TS"), settle("1", "lose", W)]),
        "draw_s17",
        want(OUTCOME, 6, "1", W, -W, 2 * W),
        want("13:69F-2.12(b)1", None, "dealer", "draw on hard 16", "stood"),
    ),
    quiet(
        "13:69F-2.12(b)1",
        "dealer stands on soft 17; the 18 paid",
        nj([*opening("TH", "6C", "8D", "AS"), stand("1"), reveal("dealer", "AS"), settle("1", "win", W)]),
    ),
]

NZ_CASES: list[Case] = [
    # --- Missing settlement (integer nets; a push without amount_delta).
    # 0-2 KH QC 9D, 3 stand, 4 9S (18): the 20 is never paid
    fires(
        MISSING,
        "winning hand never settled",
        nz([deal("1", "KH"), deal("dealer", "9D"), deal("1", "QC"), stand("1"), deal("dealer", "9S")]),
        "missing_settlement",
        want(MISSING, None, "1", NZ_W, 0, NZ_W),
    ),
    # 0-2 KH 8C 9D, 3 stand, 4 9S: 18 against 18, never settled
    fires(
        MISSING,
        "a push never settled",
        nz([deal("1", "KH"), deal("dealer", "9D"), deal("1", "8C"), stand("1"), deal("dealer", "9S")]),
        "missing_settlement",
        want(MISSING, None, "1", 0, 0),
    ),
    # 0-2 9H 8C AD, 3 insurance 500, 4 stand, 5 6S (soft 17), 6 the 17 pushed; the insurance never collected
    fires(
        MISSING,
        "losing insurance never settled",
        nz(
            [
                deal("1", "9H"),
                deal("dealer", "AD"),
                deal("1", "8C"),
                insurance(1, 500),
                stand("1"),
                deal("dealer", "6S"),
                settle("1", "push", 0),
            ]
        ),
        "missing_settlement",
        want(MISSING, None, "1", -500, 0, -500),
    ),
    quiet(
        MISSING,
        "the 20 paid",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "9D"),
                deal("1", "QC"),
                stand("1"),
                deal("dealer", "9S"),
                settle("1", "win", NZ_W),
            ]
        ),
    ),
    # --- Made twice: 5 paid, 6 paid again
    fires(
        TWICE,
        "winning hand paid twice",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "9D"),
                deal("1", "QC"),
                stand("1"),
                deal("dealer", "9S"),
                settle("1", "win", NZ_W),
                settle("1", "win", NZ_W),
            ]
        ),
        "settled_twice",
        want(TWICE, 6, "1", 0, NZ_W, -NZ_W),
    ),
    # 18 against 18 pushed twice: no money
    fires(
        TWICE,
        "a push settled twice",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "9D"),
                deal("1", "8C"),
                stand("1"),
                deal("dealer", "9S"),
                settle("1", "push", 0),
                settle("1", "push", 0),
            ]
        ),
        "settled_twice",
        want(TWICE, 6, "1", 0, 0),
    ),
    quiet(
        TWICE,
        "a push settled once",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "9D"),
                deal("1", "8C"),
                stand("1"),
                deal("dealer", "9S"),
                settle("1", "push", 0),
            ]
        ),
    ),
    # --- Rounding to the smallest chip, 100. A blackjack of 1500: 3 to 2 is the exact 2250: 2200 down, 2300 up.
    # Against a 9 the fundamental (uncited:blackjack-odds) holds the odds; against a ten or an ace, 8.2 ("paid
    # three to two").
    quiet(BJ_ODDS, "blackjack of 1500 against a 9 paid 2200", nz_blackjack("9D", 1500, 2200)),
    fires(
        BJ_ODDS,
        "blackjack of 1500 against a 9 paid the exact 2250",
        nz_blackjack("9D", 1500, 2250),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 2200, 2250, -50),
    ),
    quiet(
        BJ_ODDS, "rounding up: blackjack of 1500 against a 9 paid 2300", nz_blackjack("9D", 1500, 2300, **UP)
    ),
    fires(
        BJ_ODDS,
        "rounding up: blackjack of 1500 against a 9 paid 2200",
        nz_blackjack("9D", 1500, 2200, **UP),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 2300, 2200, 100),
    ),
    quiet("8.2", "blackjack of 1500 against a queen (Q-8) paid 2200", nz_blackjack("QD", 1500, 2200)),
    fires(
        "8.2",
        "blackjack of 1500 against a queen (Q-8) paid the exact 2250",
        nz_blackjack("QD", 1500, 2250),
        "bj_vs_dealer_ace_ten",
        want("8.2", 4, "1", 2200, 2250, -50),
    ),
    # A surrender of 1500: half is 750; 700 returned (800 collected) rounding down, 800 returned (700) rounding up.
    quiet(SURRENDER, "surrender of 1500 collects 800", nz_surrender(1500, 800)),
    fires(
        SURRENDER,
        "surrender of 1500 collects the exact half, 750",
        nz_surrender(1500, 750),
        "surrender_amount",
        want(SURRENDER, 4, "1", -800, -750, -50),
    ),
    quiet(SURRENDER, "rounding up: surrender of 1500 collects 700", nz_surrender(1500, 700, **UP)),
    # Insurance of 225 wins the exact 450 at 2 to 1, which 9.4 says must be payable in chips (its own finding, at
    # the insurance); 9.5's payout, rounded down to the chip, is 400. Paid 450: overpaid by 50.
    fires(
        "9.5",
        "insurance of 225 paid the exact 450",
        nz_insured(225, 450),
        "insurance_odds",
        want("9.4", 3, "1", "a winning payout in multiples of 100", 450),
        want("9.5", 6, "1", 400, 450, -50),
    ),
    # Paid 400, the payout rounded down: only the wager that 9.4 forbids is a finding.
    fires(
        "9.4",
        "insurance of 225 paid 400, rounded down to the chip",
        nz_insured(225, 400),
        "insurance_chips",
        want("9.4", 3, "1", "a winning payout in multiples of 100", 450),
    ),
    quiet("9.5", "insurance of 250 paid 500", nz_insured(250, 500)),
    # --- After a dealer drawing error. 0-2 KH 8C 6D, 3 stand, 4 AS (soft 17: this table stands), 5 3C drawn (20),
    # 6 the 18 collected; against the 17 it wins (4.1(b)): owed 2000.
    fires(
        "uncited:dealer-draw",
        "dealer draws on soft 17; the 18 collected against the 20",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "6D"),
                deal("1", "8C"),
                stand("1"),
                deal("dealer", "AS"),
                deal("dealer", "3C"),
                settle("1", "lose", NZ_W),
            ]
        ),
        "draw_s17",
        want("uncited:dealer-draw", 5, "dealer", "stand on soft 17", "drew 3C"),
        want("4.1(b)", 6, "1", NZ_W, -NZ_W, 2 * NZ_W),
    ),
    # 0-2 KH 8C TD, 3 stand, 4 6S (16: the dealer stops), 5 the 18 collected: against the recorded 16 it wins
    fires(
        "uncited:dealer-draw",
        "dealer stops on 16; the 18 collected",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "TD"),
                deal("1", "8C"),
                stand("1"),
                deal("dealer", "6S"),
                settle("1", "lose", NZ_W),
            ]
        ),
        "draw_s17",
        want("4.1(b)", 5, "1", NZ_W, -NZ_W, 2 * NZ_W),
        want("uncited:dealer-draw", None, "dealer", "draw on hard 16", "stood"),
    ),
    quiet(
        "uncited:dealer-draw",
        "dealer stands on soft 17; the 18 paid",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "6D"),
                deal("1", "8C"),
                stand("1"),
                deal("dealer", "AS"),
                settle("1", "win", NZ_W),
            ]
        ),
    ),
]
