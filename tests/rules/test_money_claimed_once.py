"""Money is claimed once (round-v1.md section 2.2): a settlement judged as it arrived is not judged again when its box
is split afterwards and, against a dealer blackjack, judged as a whole.

A split of a hand already settled is a decision on a complete hand (section 2.1), reported; the wager it places is
still in play. The box is then one split box against the dealer's blackjack (NJ 13:69F-2.11(d): only the original
wager may be collected across its hands; NZ: the original wager or every wager), and the settlement made before the
split counts in that box as what it was due: what it was paid besides was claimed at its own event. The sum of
``amount_delta`` over the round is what the round owes, each settlement counted once. Found by mutation testing: the
settlement at event 6 was reported twice, identically.

Even money is a settlement of the main wager (section 2.1): paid after the hand was settled, it is the second
settlement, reported at the even money (``expected`` 0, ``actual`` its net), and the first is judged as any is. Found
by the settlements' mutation review: the first settle was reported as the repeat, for its whole net.
"""

from __future__ import annotations

from tests.builders import a_round, audit, deal, even_money, reveal, seat, settle, split, stand
from tests.rules.case import Want, got, want

ON_COMPLETE = "uncited:decision-on-complete-hand"
TWICE = "uncited:settled-twice"


def test_nj_a_settlement_judged_as_it_arrived_is_not_judged_again_when_its_box_is_split_afterwards() -> None:
    # 0 8H  1 AS  2 8D  3 KC down  4 stand  5 reveal (the dealer's blackjack)  6 hand 1 paid 2500 (it lost: -2500)
    # 7 split (on a complete hand)  8 hand 1.2 collected 2500: the box's original 2500 is counted at 6 (due there),
    # so the 2500 collected at 8 is past the original wager (2.11(d)): owed back. Sum: -5000 + 2500 = -2500, the
    # player's net 0 against the -2500 the box was due.
    r = a_round(
        "US-NJ",
        seats=[seat(1, 2500)],
        extra_rules={"peek": False},
        events=[
            deal("1", "8H"),
            deal("dealer", "AS"),
            deal("1", "8D"),
            deal("dealer", "KC", "down"),
            stand("1"),
            reveal("dealer", "KC"),
            settle("1", "win", 2500),
            split("1", 2500),
            settle("1.2", "lose", 2500),
        ],
    )
    findings = [got(f) for f in audit(r)["findings"]]
    assert findings == [
        want("uncited:settlement-outcome", 6, "1", -2500, 2500, -5000),
        want(ON_COMPLETE, 7, "1", "no decision on a complete hand", "split"),
        want("13:69F-2.11(d)", 8, "1.2", 0, -2500, 2500),
    ]
    assert sum(f.amount_delta or 0 for f in findings) == -2500


def test_nz_a_settlement_judged_as_it_arrived_counts_in_its_split_box_as_what_it_was_due() -> None:
    # NZ (the dealer's second card after the players; the test table): 0 8H  1 AS  2 8D  3 stand  4 KC (blackjack)
    # 5 hand 1 paid 1000 (it lost: -1000, 4.1(g))  6 split (on a complete hand)  7 hand 1.2 collected 1000. The box
    # counts -1000 (due at 5) and -1000: every wager collected, one of the two the dealer's blackjack allows. No
    # second claim on the payment at 5.
    r = a_round(
        "NZ",
        seats=[seat(1, 1000)],
        events=[
            deal("1", "8H"),
            deal("dealer", "AS"),
            deal("1", "8D"),
            stand("1"),
            deal("dealer", "KC"),
            settle("1", "win", 1000),
            split("1", 1000),
            settle("1.2", "lose", 1000),
        ],
    )
    findings = [got(f) for f in audit(r)["findings"]]
    assert findings == [
        want("4.1(g)", 5, "1", -1000, 1000, -2000),
        want(ON_COMPLETE, 6, "1", "no decision on a complete hand", "split"),
    ]


def _even_money_after_settle(paid: int) -> list[Want]:
    # 0 AS  1 AC (the dealer's ace)  2 KD (a blackjack)  3 7D down  4 settled (paid)  5 even money 2500  6 reveal: the
    # dealer's 18. The settlement at 4 is the first; the even money at 5 is the second settlement of the wager: at
    # it, expected 0, actual its net (section 2.2).
    r = a_round(
        "US-NJ",
        seats=[seat(1, 2500)],
        events=[
            deal("1", "AS"),
            deal("dealer", "AC"),
            deal("1", "KD"),
            deal("dealer", "7D", "down"),
            settle("1", "win", paid),
            even_money(1, 2500),
            reveal("dealer", "7D"),
        ],
    )
    return [got(f) for f in audit(r)["findings"]]


def test_even_money_paid_after_the_hand_was_settled_is_the_second_settlement() -> None:
    # The blackjack was paid 3750, right (3 to 2 against an 18); the even money then paid 2500 more: owed back.
    assert _even_money_after_settle(3750) == [want(TWICE, 5, "1", 0, 2500, -2500)]


def test_even_money_after_a_wrong_settlement_claims_each_part_once() -> None:
    # Paid 2500 where 3750 was due (+1250 owed to the player), then 2500 of even money (owed back): the player was
    # paid 5000 where 3750 was due, and owes 1250 in all.
    findings = _even_money_after_settle(2500)
    assert findings == [
        want("uncited:blackjack-odds", 4, "1", 3750, 2500, 1250),
        want(TWICE, 5, "1", 0, 2500, -2500),
    ]
    assert sum(f.amount_delta or 0 for f in findings) == -1250


def test_a_settlement_after_even_money_is_still_the_second() -> None:
    r = a_round(
        "US-NJ",
        seats=[seat(1, 2500)],
        events=[
            deal("1", "AS"),
            deal("dealer", "AC"),
            deal("1", "KD"),
            deal("dealer", "7D", "down"),
            even_money(1, 2500),
            settle("1", "win", 3750),
            reveal("dealer", "7D"),
        ],
    )
    assert [got(f) for f in audit(r)["findings"]] == [want(TWICE, 5, "1", 0, 3750, -3750)]


def test_a_third_settlement_after_even_money_is_a_repeat_too() -> None:
    # 4 paid 3750 (right), 5 even money 2500, 6 paid 3750 again: the even money and the last settle each moved money
    # that was not due; the first is the settlement.
    r = a_round(
        "US-NJ",
        seats=[seat(1, 2500)],
        events=[
            deal("1", "AS"),
            deal("dealer", "AC"),
            deal("1", "KD"),
            deal("dealer", "7D", "down"),
            settle("1", "win", 3750),
            even_money(1, 2500),
            settle("1", "win", 3750),
            reveal("dealer", "7D"),
        ],
    )
    assert [got(f) for f in audit(r)["findings"]] == [
        want(TWICE, 5, "1", 0, 2500, -2500),
        want(TWICE, 6, "1", 0, 3750, -3750),
    ]
