"""The dealer's drawing (NJ 13:69F-2.12(b)-(d)), restitution after a wrong draw, what a hand is due, and
settlements (NZ 4.1, 8.2, 8.3; NJ 19:47-2.10(b), 13:69F-2.11(d); the uncited fundamentals: a settlement
once, a missing one with what was owed, none that depends on the dealer's total before the dealer is
complete): rounds that the rule cases had left out, found by mutation testing. Every finding is stated
whole, written from the rules before the engine was run on the round.

Event indices are spelled out beside each round. New Jersey boxes wager 2500, New Zealand boxes 1000. The New
Jersey test table deals a hole card, peeks and stands on soft 17; the New Zealand one deals the dealer's
second card after the players. Restitution (a wrong draw's ``amount_delta``) is what the hands' settlements
would have been against the dealer had it stood, minus what they were due against the dealer they were judged
against.
"""

from __future__ import annotations

from typing import Any

from app.domain.checks.outcome import expect
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
    split,
    stand,
    surrender,
)
from tests.rules.case import Want, got, want

W = 2500
NZ_W = 1000

S17 = "13:69F-2.12(b)1"
H17 = "13:69F-2.12(b)2"
NEEDLESS = "13:69F-2.12(c)"
SIX_FIVE = "13:69F-2.12(d)"
MISSING = "uncited:missing-settlement"
TWICE = "uncited:settled-twice"
EARLY = "uncited:settled-before-dealer-complete"
EARLY_EXPECTED = "settled after the dealer's hand is complete"
DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
NO_CARD = ("no further dealer card",)


def nj(events: list[dict[str, Any]], seats: int = 1, **elections: Any) -> dict[str, Any]:
    """A New Jersey round on the test table, seats 1..``seats`` wagering 2500 each."""
    return a_round(
        "US-NJ", seats=[seat(n, W) for n in range(1, seats + 1)], events=events, extra_rules=elections
    )


def nz(events: list[dict[str, Any]], seats: int = 1, **elections: Any) -> dict[str, Any]:
    """A New Zealand round on the test table, seats 1..``seats`` wagering 1000 each."""
    return a_round(
        "NZ", seats=[seat(n, NZ_W) for n in range(1, seats + 1)], events=events, extra_rules=elections
    )


def findings(round_: dict[str, Any]) -> list[Want]:
    return [got(f) for f in audit(round_)["findings"]]


def missing(hand: str, owed: int | None) -> Want:
    """A wager never settled, with what it was owed (None where the record cannot tell)."""
    return want(MISSING, None, hand, owed, 0, owed if owed else None)


# --- restitution after a wrong draw
# -----------------------------------------------------------------------------


def test_restitution_leaves_out_a_surrender_and_a_blackjack_but_counts_the_hand_after_them() -> None:
    # 0-7 seat 1 TH+6D, seat 2 AH+KD (blackjack), seat 3 TS+8D, dealer TC + 7S down (hard 17), 8 peek, 9 seat
    # 1 surrenders, 10 half collected, 11 seat 3 stands, 12 reveal, 13 the dealer draws on hard 17 (2.12(b)1:
    # stand), 14 the blackjack paid 3 to 2, 15 seat 3's 18 collected against 21. Against the 17 the dealer should
    # have stood on (spec 2.2: the money on each settlement, not on the draw), the surrender and the blackjack were
    # owed the same; seat 3's 18 beats 17: 2500 paid, not 2500 collected.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "AH"),
            deal("3", "TS"),
            deal("dealer", "TC"),
            deal("1", "6D"),
            deal("2", "KD"),
            deal("3", "8D"),
            deal("dealer", "7S", "down"),
            peek(False),
            surrender("1"),
            settle("1", "surrender", W // 2),
            stand("3"),
            reveal("dealer", "7S"),
            deal("dealer", "4H"),
            settle("2", "win", 3750),
            settle("3", "lose", W),
        ],
        seats=3,
        surrender="late",
    )
    assert findings(r) == [
        want(S17, 13, "dealer", "stand on hard 17", "drew 4H"),
        want("uncited:settlement-outcome", 15, "3", W, -W, 2 * W),
    ]


def test_restitution_leaves_out_even_money_whatever_the_hand_was_dealt_after_it() -> None:
    # 0-5 seat 1 AH+KD (blackjack), seat 2 TH+8D, dealer AS + 6C down (soft 17), 6 seat 1 takes even money (in
    # full settlement), 7 peek, 8 a card to the blackjack (2.12(a)1), 9 seat 2 stands, 10 reveal, 11 the
    # dealer draws on soft 17 (2.12(b)1), 12 seat 2's 18 collected against 21. The even money was owed the
    # same whatever the dealer drew (a card dealt after a settlement never changes it); seat 2 would have
    # beaten 17.
    r = nj(
        [
            deal("1", "AH"),
            deal("2", "TH"),
            deal("dealer", "AS"),
            deal("1", "KD"),
            deal("2", "8D"),
            deal("dealer", "6C", "down"),
            even_money(1, W),
            peek(False),
            deal("1", "7C"),
            stand("2"),
            reveal("dealer", "6C"),
            deal("dealer", "4H"),
            settle("2", "lose", W),
        ],
        seats=2,
    )
    assert findings(r) == [
        want("13:69F-2.12(a)1", 8, "1", "no card on 21", "drew 7C on 21"),
        want(S17, 11, "dealer", "stand on soft 17", "drew 4H"),
        want("uncited:settlement-outcome", 12, "2", W, -W, 2 * W),
    ]


def test_restitution_for_a_hand_never_settled() -> None:
    # 0-3 TH+6D against TC + 7S down (hard 17), 4 stand, 5 reveal, 6 the dealer draws on hard 17 and busts
    # (2.12(b)1). The 16 is never settled: judged against the 17 the dealer should have stood on (spec 2.2), it
    # owed its 2500.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "TC"),
            deal("1", "6D"),
            deal("dealer", "7S", "down"),
            stand("1"),
            reveal("dealer", "7S"),
            deal("dealer", "5H"),
        ]
    )
    assert findings(r) == [want(S17, 6, "dealer", "stand on hard 17", "drew 5H"), missing("1", -W)]


def test_a_hand_settled_while_the_dealer_stood_on_soft_17_is_owed_no_restitution() -> None:
    # 0-3 TH+8D against 6C + AS down (soft 17: this table's dealer stands), 4 stand, 5 reveal, 6 the 18 paid
    # against the 17 the dealer stood on, 7 the dealer draws anyway (2.12(b)1). The settlement was made
    # against 17, which is what the dealer should have stood on: nothing is owed either way.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "6C"),
            deal("1", "8D"),
            deal("dealer", "AS", "down"),
            stand("1"),
            reveal("dealer", "AS"),
            settle("1", "win", W),
            deal("dealer", "4H"),
        ]
    )
    assert findings(r) == [want(S17, 7, "dealer", "stand on soft 17", "drew 4H")]


def test_hit_soft_17_table_a_hand_settled_against_a_two_card_18_is_owed_no_restitution() -> None:
    # Dealer hits soft 17 (2.12(b)2). 0-3 TH+9D against 8C + TS down (hard 18), 4 stand, 5 reveal, 6 the 19
    # paid, 7 the dealer draws on hard 18 anyway. The 19 was settled against the 18 the dealer had to stand
    # on.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "8C"),
            deal("1", "9D"),
            deal("dealer", "TS", "down"),
            stand("1"),
            reveal("dealer", "TS"),
            settle("1", "win", W),
            deal("dealer", "3H"),
        ],
        dealer_soft_17="hit",
    )
    assert findings(r) == [want(H17, 7, "dealer", "stand on hard 18", "drew 3H")]


def test_hit_soft_17_table_a_hand_settled_against_a_hard_17_is_owed_no_restitution() -> None:
    # Dealer hits soft 17 but stands on hard 17 (2.12(b)2). 0-3 TH+8D against 7C + TS down, 4 stand, 5 reveal,
    # 6 the 18 paid against 17, 7 the dealer draws on hard 17 anyway.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "7C"),
            deal("1", "8D"),
            deal("dealer", "TS", "down"),
            stand("1"),
            reveal("dealer", "TS"),
            settle("1", "win", W),
            deal("dealer", "4H"),
        ],
        dealer_soft_17="hit",
    )
    assert findings(r) == [want(H17, 7, "dealer", "stand on hard 17", "drew 4H")]


def test_a_wrong_draw_before_a_contradiction_is_reported_without_restitution() -> None:
    # 0-3 TH+8D against 9C + 8S down (hard 17), 4 stand, 5 reveal, 6 the dealer draws on hard 17 (2.12(b)1), 7
    # a settlement of seat 2, which placed no wager: the record contradicts itself there. The wrong draw is
    # established before it; what it cost cannot be known, since the settlements are not.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            stand("1"),
            reveal("dealer", "8S"),
            deal("dealer", "5H"),
            settle("2", "lose", W),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    assert [got(f) for f in result["findings"]] == [
        want(S17, 6, "dealer", "stand on hard 17", "drew 5H"),
        want("record", 7, "2", None, None),
    ]


# --- the dealer's drawing at a 6 to 5 table (2.12(d): the dealer hits soft 17)
# -----------------------------------


def test_six_to_five_dealer_stops_on_one_card_with_a_hand_live() -> None:
    # The dealer's second card comes after the players. 0 TH, 1 dealer 9C, 2 8D, 3 stand on 18; the dealer
    # never takes a second card, and the 18 is never settled (what it was owed depends on a dealer hand never
    # completed).
    r = nj(
        [deal("1", "TH"), deal("dealer", "9C"), deal("1", "8D"), stand("1")],
        blackjack_pays="6:5",
        dealer_soft_17="hit",
        dealer_second_card="after_players",
    )
    assert findings(r) == [
        want(SIX_FIVE, None, "dealer", "draw to a standing total", "stood on one card"),
        missing("1", None),
    ]


def test_six_to_five_dealer_stops_on_one_card_with_insurance_placed() -> None:
    # 0 TH, 1 dealer AC, 2 6D, 3 insurance 1250, 4 a 9 busts the 16, 5 collected. The dealer never takes the
    # second card that decides the insurance, which is never settled (what it was owed cannot be known).
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AC"),
            deal("1", "6D"),
            insurance(1, W // 2),
            deal("1", "9S"),
            settle("1", "lose", W),
        ],
        blackjack_pays="6:5",
        dealer_soft_17="hit",
        dealer_second_card="after_players",
    )
    assert findings(r) == [
        want(SIX_FIVE, None, "dealer", "a second card, to decide the insurance", "stood on one card"),
        missing("1", None),
    ]


def test_six_to_five_dealer_draws_twice_on_a_blackjack() -> None:
    # 0-3 TH+8D against AC + KS down, 4 peek: blackjack, 5 reveal, 6 the 18 collected, 7 and 8 the dealer
    # draws on its blackjack: one fault, reported at the first card drawn.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AC"),
            deal("1", "8D"),
            deal("dealer", "KS", "down"),
            peek(True),
            reveal("dealer", "KS"),
            settle("1", "lose", W),
            deal("dealer", "2H"),
            deal("dealer", "3H"),
        ],
        blackjack_pays="6:5",
        dealer_soft_17="hit",
    )
    assert findings(r) == [want(SIX_FIVE, 7, "dealer", "stand on blackjack", "drew 2H")]


# --- live hands: a dealer draw that can change no outcome is needless (2.12(c))
# ------------------------------------


def test_a_surrendered_box_does_not_end_the_search_for_a_live_hand() -> None:
    # 0-5 seat 1 TH+6D, seat 2 TS+8D, dealer 9C + 7S down (16), 6 peek, 7 seat 1 surrenders, 8 half collected,
    # 9 seat 2 stands on 18, 10 reveal, 11 the dealer draws to 21 (seat 2's 18 still depends on it), 12
    # collected.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "TS"),
            deal("dealer", "9C"),
            deal("1", "6D"),
            deal("2", "8D"),
            deal("dealer", "7S", "down"),
            peek(False),
            surrender("1"),
            settle("1", "surrender", W // 2),
            stand("2"),
            reveal("dealer", "7S"),
            deal("dealer", "5H"),
            settle("2", "lose", W),
        ],
        seats=2,
        surrender="late",
    )
    assert findings(r) == []


def test_a_face_down_double_card_not_yet_turned_up_keeps_the_dealer_drawing() -> None:
    # Face-down double cards (19:47-2.10(c)). 0-3 6H+6D against 6C + TS down, 4 double, 5 KH face down (22,
    # which nobody at the table knows), 6 reveal, 7 the dealer draws on 16, 8 the double card turned up after
    # the dealer drew, 9 both wagers collected.
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "6C"),
            deal("1", "6D"),
            deal("dealer", "TS", "down"),
            double("1", W),
            deal("1", "KH", "down"),
            reveal("dealer", "TS"),
            deal("dealer", "5H"),
            reveal("1", "KH"),
            settle("1", "lose", 2 * W),
        ],
        double_card="face_down",
    )
    assert findings(r) == []


def test_a_face_down_double_card_turned_up_early_shows_the_bust_and_the_draw_is_needless() -> None:
    # As above, but 6 the double card is turned up before the dealer drew (19:47-2.10(c)): the table knows the
    # hand busted, every hand is decided, and 8 the dealer's draw on 16 can change nothing (2.12(c)).
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "6C"),
            deal("1", "6D"),
            deal("dealer", "TS", "down"),
            double("1", W),
            deal("1", "KH", "down"),
            reveal("1", "KH"),
            reveal("dealer", "TS"),
            deal("dealer", "5H"),
            settle("1", "lose", 2 * W),
        ],
        double_card="face_down",
    )
    assert findings(r) == [
        want("19:47-2.10(c)", 6, "1", "after event 8", "event 6"),
        want(NEEDLESS, 8, "dealer", *NO_CARD, "drew 5H"),
    ]


def test_a_hand_never_settled_is_live_and_is_owed_its_win() -> None:
    # 0-3 TH+QD against 9C + 7S down, 4 stand, 5 reveal, 6 the dealer draws to 18 (the 20 depends on it). The
    # 20 is never settled: it was owed 2500.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "QD"),
            deal("dealer", "7S", "down"),
            stand("1"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
        ]
    )
    assert findings(r) == [missing("1", W)]


def test_a_box_never_dealt_a_card_has_no_outcome_for_the_dealer_to_decide() -> None:
    # Seat 2 wagered but was dealt no card; 4 its wager returned. 0-3 seat 1 TH+6D against 9C + 7S down, 5
    # seat 1 draws 9 and busts, 6 collected, 7 reveal: every hand is decided, and 8 the dealer's draw is
    # needless (2.12(c)).
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "6D"),
            deal("dealer", "7S", "down"),
            settle("2", "push", 0),
            deal("1", "9S"),
            settle("1", "lose", W),
            reveal("dealer", "7S"),
            deal("dealer", "5H"),
        ],
        seats=2,
    )
    assert findings(r) == [want(NEEDLESS, 8, "dealer", *NO_CARD, "drew 5H")]


def test_split_tens_drawing_aces_are_21s_not_blackjacks_and_keep_the_dealer_drawing() -> None:
    # 0-3 TH+KD against 9C + 7S down, 4 split, 5 hand 1 draws AS, 6 hand 1.2 AC: two 21s after a split, not
    # blackjacks, so a dealer 21 would push them; 7 reveal, 8 the dealer draws to 18, 9-10 both paid 2500.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "KD"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1", "AS"),
            deal("1.2", "AC"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "win", W),
            settle("1.2", "win", W),
        ]
    )
    assert findings(r) == []


# --- what a wager never settled was owed
# -------------------------------------------------------------------------


def test_a_split_hand_never_settled_is_owed_its_win() -> None:
    # 0-3 8H+8D against TC + 7S down (17), 4 split, 5 hand 1 draws TH (18), 6 hand 1.2 TD (18), 7 reveal, 8
    # hand 1 paid; hand 1.2's 18 beat the 17 too and was never paid.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "TD"),
            reveal("dealer", "7S"),
            settle("1", "win", W),
        ]
    )
    assert findings(r) == [missing("1.2", W)]


def test_a_split_hand_never_settled_against_a_ten_up_is_owed_its_loss() -> None:
    # 0-3 8H+8D against TC + 9S down (19), 4 split, 5-6 hands of 18, 7 reveal, 8 hand 1 collected; hand 1.2
    # never.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            deal("dealer", "9S", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "TD"),
            reveal("dealer", "9S"),
            settle("1", "lose", W),
        ]
    )
    assert findings(r) == [missing("1.2", -W)]


def test_a_surrender_after_the_dealers_blackjack_is_known_does_not_count_for_what_was_owed() -> None:
    # 0-3 TH+6D against AS + KC down, 4 peek: blackjack (the round is over), 5 a surrender after it, 6 reveal.
    # The hand is owed what the 16 it held at the peek was: its wager lost, not half of it.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AS"),
            deal("1", "6D"),
            deal("dealer", "KC", "down"),
            peek(True),
            surrender("1"),
            reveal("dealer", "KC"),
        ],
        surrender="late",
    )
    assert findings(r) == [want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 surrendered"), missing("1", -W)]


def test_a_blackjack_never_settled_was_owed_3_to_2() -> None:
    # 0-3 AH+KD against 9C + TS down, 4 reveal (19).
    r = nj(
        [
            deal("1", "AH"),
            deal("dealer", "9C"),
            deal("1", "KD"),
            deal("dealer", "TS", "down"),
            reveal("dealer", "TS"),
        ]
    )
    assert findings(r) == [missing("1", 3750)]


def test_a_blackjack_never_settled_at_a_6_to_5_table_was_owed_6_to_5() -> None:
    r = nj(
        [
            deal("1", "AH"),
            deal("dealer", "9C"),
            deal("1", "KD"),
            deal("dealer", "TS", "down"),
            reveal("dealer", "TS"),
        ],
        blackjack_pays="6:5",
        dealer_soft_17="hit",
    )
    assert findings(r) == [missing("1", 3000)]


def test_a_surrender_never_settled_was_owed_half_the_wager() -> None:
    # 0-3 TH+6D against 9C + TS down, 4 surrender, 5 reveal.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "6D"),
            deal("dealer", "TS", "down"),
            surrender("1"),
            reveal("dealer", "TS"),
        ],
        surrender="late",
    )
    assert findings(r) == [missing("1", -W // 2)]


def test_a_double_never_settled_against_a_dealer_blackjack_owed_only_the_original_wager() -> None:
    # No peek at this table. 0-3 6H+5D against TC + AS down, 4 double, 5 9C (20), 6 reveal: blackjack.
    # 19:47-2.10(b): only the original wager is collected.
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "TC"),
            deal("1", "5D"),
            deal("dealer", "AS", "down"),
            double("1", W),
            deal("1", "9C"),
            reveal("dealer", "AS"),
        ],
        peek=False,
    )
    assert findings(r) == [missing("1", -W)]


def test_a_double_never_settled_against_a_ten_up_without_blackjack_was_a_stand_off() -> None:
    # 0-3 6H+5D against TC + QS down (20), 4 double, 5 9C (20), 6 reveal: 20 against 20.
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "TC"),
            deal("1", "5D"),
            deal("dealer", "QS", "down"),
            double("1", W),
            deal("1", "9C"),
            reveal("dealer", "QS"),
        ]
    )
    assert findings(r) == [missing("1", 0)]


def test_a_blackjack_never_settled_against_a_dealer_blackjack_was_a_stand_off() -> None:
    # No peek. 0-3 AH+KD against TC + AS down, 4 reveal.
    r = nj(
        [
            deal("1", "AH"),
            deal("dealer", "TC"),
            deal("1", "KD"),
            deal("dealer", "AS", "down"),
            reveal("dealer", "AS"),
        ],
        peek=False,
    )
    assert findings(r) == [missing("1", 0)]


def test_a_surrender_never_settled_against_a_dealer_blackjack_owed_half_the_wager() -> None:
    # No peek. 0-3 TH+6D against TC + AS down, 4 surrender, 5 reveal: blackjack. A surrender forfeits half the
    # wager; no rule held makes the dealer's blackjack collect more of a surrendered hand (2.10(b) and 2.11(d)
    # take less).
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "TC"),
            deal("1", "6D"),
            deal("dealer", "AS", "down"),
            surrender("1"),
            reveal("dealer", "AS"),
        ],
        peek=False,
        surrender="late",
    )
    assert findings(r) == [missing("1", -W // 2)]


def test_a_box_never_dealt_a_card_and_never_settled_owed_what_the_record_cannot_tell() -> None:
    # Seat 2 wagered and was dealt nothing. 0-3 seat 1 TH+QD against 9C + 8S down, 4 stand, 5 reveal, 6 seat 1
    # paid.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "QD"),
            deal("dealer", "8S", "down"),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
        ],
        seats=2,
    )
    assert findings(r) == [missing("2", None)]


# --- a split after the peek showed the dealer's blackjack: the box as the hand it held then
# ---------------------


def test_split_after_the_peek_a_box_over_collected_and_a_hand_settled_twice() -> None:
    # 0-3 8H+8D against AS + KC down, 4 peek: blackjack, 5 a split after it, 6 reveal, 7 hand 1 collected
    # 2500, 8 hand 1.2 collected 2500, 9 and again. The box is judged as the 16 it held at the peek: its wager
    # of 2500 lost, so 2500 too much was taken across its hands (at the last of their first settlements); the
    # second settlement of hand 1.2 moved 2500 it should not have.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "AS"),
            deal("1", "8D"),
            deal("dealer", "KC", "down"),
            peek(True),
            split("1", W),
            reveal("dealer", "KC"),
            settle("1", "lose", W),
            settle("1.2", "lose", W),
            settle("1.2", "lose", W),
        ]
    )
    assert findings(r) == [
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 split"),
        want("uncited:lose-collects-stake", 8, "1", -W, -2 * W, W),
        want(TWICE, 9, "1.2", 0, -W, W),
    ]


def test_split_after_the_peek_a_hand_never_settled_and_the_next_box_still_judged() -> None:
    # 0-5 seat 1 8H+8D, seat 2 TC+9H, dealer AS + KC down, 6 peek: blackjack, 7 seat 1 splits after it, 8
    # reveal, 9 hand 1 collected; hand 1.2 never settled (what it was owed is the box's, not the hand's:
    # unknown); 10 seat 2's 19 collected twice its wager.
    r = nj(
        [
            deal("1", "8H"),
            deal("2", "TC"),
            deal("dealer", "AS"),
            deal("1", "8D"),
            deal("2", "9H"),
            deal("dealer", "KC", "down"),
            peek(True),
            split("1", W),
            reveal("dealer", "KC"),
            settle("1", "lose", W),
            settle("2", "lose", 2 * W),
        ],
        seats=2,
    )
    assert findings(r) == [
        want(DBJ, 7, "1", DBJ_EXPECTED, "hand 1 split"),
        want("uncited:lose-collects-stake", 10, "2", -W, -2 * W, W),
        missing("1.2", None),
    ]


def test_split_of_a_blackjack_after_the_peek_the_box_pushes() -> None:
    # 0-3 AH+KD against AS + KC down, 4 peek: blackjack, 5 the blackjack split (not a pair, 13:69F-2.11(a)), 6
    # reveal, 7-8 both hands pushed. The box held a blackjack when the dealer's was known: a stand off, as
    # settled.
    r = nj(
        [
            deal("1", "AH"),
            deal("dealer", "AS"),
            deal("1", "KD"),
            deal("dealer", "KC", "down"),
            peek(True),
            split("1", W),
            reveal("dealer", "KC"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(r) == [want("13:69F-2.11(a)", 5, "1", "two cards of identical value", "AH+KD")]


# --- a split box against a dealer blackjack (no peek): 13:69F-2.11(d)
# --------------------------------------------


def test_split_box_settled_against_a_dealer_blackjack_is_not_early_though_the_dealer_drew_after() -> None:
    # No peek. 0-3 8H+8D against TC + AS down, 4 split, 5 hand 1 TH, 6 hand 1.2 9D, 7 reveal: blackjack, 8
    # hand 1 collected, 9 the dealer draws on its blackjack, 10 hand 1.2 pushed (2.11(d): only the original
    # wager), 11 the dealer draws again. The dealer's hand was complete (a blackjack) at both settlements.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            deal("dealer", "AS", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9D"),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
            deal("dealer", "5H"),
            settle("1.2", "push", 0),
            deal("dealer", "2C"),
        ],
        peek=False,
    )
    assert findings(r) == [want(S17, 9, "dealer", "stand on blackjack", "drew 5H")]


def test_split_box_against_a_dealer_blackjack_second_hand_settled_twice() -> None:
    # No peek. As above to 9 hand 1.2 pushed, 10 hand 1.2 collected as well: settled twice, 2500 moved.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            deal("dealer", "AS", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9D"),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
            settle("1.2", "push", 0),
            settle("1.2", "lose", W),
        ],
        peek=False,
    )
    assert findings(r) == [want(TWICE, 10, "1.2", 0, -W, W)]


def test_split_box_against_a_dealer_blackjack_before_the_split_hands_were_dealt() -> None:
    # No peek. 0-3 8H+8D against TC + AS down, 4 split, 5 reveal: blackjack before either split hand had its
    # second card, 6 hand 1 collected, 7 hand 1.2 pushed: the original wager only (2.11(d)).
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            deal("dealer", "AS", "down"),
            split("1", W),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
            settle("1.2", "push", 0),
        ],
        peek=False,
    )
    assert findings(r) == []


def test_split_box_against_a_dealer_blackjack_a_one_card_hand_then_a_hand_settled_twice() -> None:
    # As above, then 8 hand 1.2 collected as well: settled twice, 2500 moved.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            deal("dealer", "AS", "down"),
            split("1", W),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
            settle("1.2", "push", 0),
            settle("1.2", "lose", W),
        ],
        peek=False,
    )
    assert findings(r) == [want(TWICE, 8, "1.2", 0, -W, W)]


def test_new_zealand_split_box_against_a_dealer_blackjack_collected_more_than_all_its_wagers() -> None:
    # NZ holds no rule on which wagers a dealer blackjack takes from a split box: either the original wager
    # (1000) or all of them (2000). 0 8H, 1 dealer TC, 2 8D, 3 split, 4 hand 1 TH, 5 hand 1.2 9D, 6 the
    # dealer's AS: blackjack, 7 hand 1 collected 1000, 8 hand 1.2 1500. 2500 in all: 500 more than the most
    # that may be taken.
    r = nz(
        [
            deal("1", "8H"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            split("1", NZ_W),
            deal("1", "TH"),
            deal("1.2", "9D"),
            deal("dealer", "AS"),
            settle("1", "lose", NZ_W),
            settle("1.2", "lose", 1500),
        ]
    )
    assert findings(r) == [want("uncited:dealer-blackjack-extra-wagers", 8, "1", -2000, -2500, 500)]


# --- settlements judged at the end, and which settlement counts
# -------------------------------------------------


def test_of_two_settlements_made_before_the_dealer_was_complete_the_first_is_judged() -> None:
    # 0-3 TH+QD against 9C + 7S down (16), 4 stand, 5 the 20 paid while the dealer still had to draw, 6
    # collected as well, 7 reveal, 8 the dealer draws to 24. The first settlement is the hand's: early, but
    # right (the 20 won).
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "QD"),
            deal("dealer", "7S", "down"),
            stand("1"),
            settle("1", "win", W),
            settle("1", "lose", W),
            reveal("dealer", "7S"),
            deal("dealer", "8H"),
        ]
    )
    assert findings(r) == [
        want(EARLY, 5, "1", EARLY_EXPECTED, "settled at event 5, dealer's hand complete at event 8"),
        want(TWICE, 6, "1", 0, -W, W),
    ]


def test_soft_17_option_unknown_a_settlement_on_soft_17_came_before_the_dealer_was_complete() -> None:
    # The table's soft 17 option is not recorded (New Jersey has no default): on soft 17 the dealer may stand
    # or draw. 0-3 TH+8D against 6C + AS down, 4 stand, 5 reveal (soft 17), 6 the 18 paid, 7 the dealer draws
    # to 21. The dealer was not complete when the 18 was settled; against its final 21 the 18 lost 2500.
    rules = {"decks": 6, "blackjack_pays": "3:2", "dealer_second_card": "initial_deal", "peek": True}
    r = a_round(
        "US-NJ",
        rules=rules,
        events=[
            deal("1", "TH"),
            deal("dealer", "6C"),
            deal("1", "8D"),
            deal("dealer", "AS", "down"),
            stand("1"),
            reveal("dealer", "AS"),
            settle("1", "win", W),
            deal("dealer", "4H"),
        ],
    )
    assert findings(r) == [
        want(EARLY, 6, "1", EARLY_EXPECTED, "settled at event 6, dealer's hand complete at event 7"),
        want("uncited:settlement-outcome", 6, "1", -W, W, -2 * W),
    ]


def test_a_settlement_judged_as_it_was_made_though_the_hand_was_split_again_after_it() -> None:
    # Resplitting offered. 0-3 8H+8D against TC + 9S down (19), 4 split, 5 hand 1 draws 8C (16), 6 hand 1.2 TD
    # (18), 7 reveal, 8 hand 1's 16 paid against 19 (it lost), 9 hand 1.2 collected, 10 hand 1 split again
    # after it was settled; the new hand 1.3's wager is never settled (a single card: what it was owed is
    # unknown).
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "TC"),
            deal("1", "8D"),
            deal("dealer", "9S", "down"),
            split("1", W),
            deal("1", "8C"),
            deal("1.2", "TD"),
            reveal("dealer", "9S"),
            settle("1", "win", W),
            settle("1.2", "lose", W),
            split("1", W),
        ],
        resplit=True,
    )
    assert findings(r) == [
        want("uncited:settlement-outcome", 8, "1", -W, W, -2 * W),
        want("uncited:decision-on-complete-hand", 10, "1", "no decision on a complete hand", "split"),
        missing("1.3", None),
    ]


def test_a_settlement_made_before_the_dealer_finished_is_not_judged_past_a_contradiction() -> None:
    # 0-3 TH+8D against 9C + 7S down (16), 4 stand, 5 the 18 collected before the dealer drew, 6 reveal, 7 a
    # settlement of seat 2, which placed no wager. The dealer's final hand is past the contradiction: the 18's
    # settlement cannot be judged.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            stand("1"),
            settle("1", "lose", W),
            reveal("dealer", "7S"),
            settle("2", "lose", W),
            deal("dealer", "5H"),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    # (its being early is established before the contradiction: it came before the reveal at 6, which began the
    # dealer's play; what it was owed is not)
    assert [got(f) for f in result["findings"]] == [
        want(
            "uncited:settled-before-dealer-complete",
            5,
            "1",
            "settled after the dealer's hand is complete",
            "settled at event 5, dealer's hand complete at event 6",
        ),
        want("record", 7, "2", None, None),
    ]


# --- New Zealand 8.2, 8.3: blackjacks against an ace or ten
# ------------------------------------------------------


def test_new_zealand_up_card_dealt_second_decides_8_2() -> None:
    # Hole card dealt first. 0 AH, 1 dealer 6S face down, 2 KD (blackjack), 3 the dealer's KC face up: the up
    # card is a ten. 4 the blackjack paid 1000 (one to one) after the dealer's second card, 5 reveal (16), 6
    # the dealer draws to 21. 8.2: paid three to two, 1500.
    r = nz(
        [
            deal("1", "AH"),
            deal("dealer", "6S", "down"),
            deal("1", "KD"),
            deal("dealer", "KC"),
            settle("1", "win", NZ_W),
            reveal("dealer", "6S"),
            deal("dealer", "5H"),
        ],
        dealer_second_card="initial_deal",
    )
    assert findings(r) == [want("8.2", 4, "1", 1500, NZ_W, 500)]


def test_new_zealand_even_money_against_a_ten_up_dealt_second() -> None:
    # Hole card dealt first. 0 AH, 1 dealer 8S down, 2 QD (blackjack), 3 the dealer's KC up (18), 4 even
    # money: only against an ace (8.3); paid 1000 where 8.2 owed 1500. 5 reveal.
    r = nz(
        [
            deal("1", "AH"),
            deal("dealer", "8S", "down"),
            deal("1", "QD"),
            deal("dealer", "KC"),
            even_money(1, NZ_W),
            reveal("dealer", "8S"),
        ],
        dealer_second_card="initial_deal",
    )
    assert findings(r) == [
        want("8.2", 4, "1", 1500, NZ_W, 500),
        want("8.3", 4, "1", "player blackjack, dealer ace", "AH+QD vs KC"),
    ]


def test_new_zealand_blackjack_paid_when_the_dealer_never_took_a_second_card() -> None:
    # 0 AH, 1 dealer KC, 2 KD, 3 the blackjack paid 3 to 2 before the dealer's second card (8.2), which never
    # comes: the dealer stops on one card although the blackjack's result (paid, or pushed by a dealer
    # blackjack) waits on it (the dealer's drawing, uncited in New Zealand).
    r = nz([deal("1", "AH"), deal("dealer", "KC"), deal("1", "KD"), settle("1", "win", 1500)])
    assert findings(r) == [
        want("8.2", 3, "1", "settle after the dealer's second card", "settled at event 3"),
        want(
            "uncited:dealer-draw",
            None,
            "dealer",
            "a second card, to decide the blackjack",
            "stood on one card",
        ),
    ]


def test_new_zealand_blackjack_paid_before_the_second_card_then_a_contradiction() -> None:
    # 0 AH, 1 dealer KC, 2 KD, 3 the blackjack paid before the dealer's second card (8.2), 4 the second card,
    # 5 a settlement of seat 2, which placed no wager. The early payment is established before the
    # contradiction.
    r = nz(
        [
            deal("1", "AH"),
            deal("dealer", "KC"),
            deal("1", "KD"),
            settle("1", "win", 1500),
            deal("dealer", "7S"),
            settle("2", "win", NZ_W),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    assert [got(f) for f in result["findings"]] == [
        want("8.2", 3, "1", "settle after the dealer's second card", "settled at event 3"),
        want("record", 5, "2", None, None),
    ]


def test_new_zealand_even_money_does_not_end_the_check_of_the_next_box() -> None:
    # 0-4 seat 1 AH+KD, seat 2 AD+QC, dealer AS; 5 seat 1 takes even money (8.3), 6 seat 2's blackjack paid
    # before the dealer's second card (8.2), 7 the second card.
    r = nz(
        [
            deal("1", "AH"),
            deal("2", "AD"),
            deal("dealer", "AS"),
            deal("1", "KD"),
            deal("2", "QC"),
            even_money(1, NZ_W),
            settle("2", "win", 1500),
            deal("dealer", "7C"),
        ],
        seats=2,
    )
    assert findings(r) == [want("8.2", 6, "2", "settle after the dealer's second card", "settled at event 6")]


def test_new_zealand_even_money_on_a_20_is_not_a_blackjack_paid_early() -> None:
    # 0 TH, 1 dealer KS, 2 QD, 3 even money on the 20 (only a blackjack against an ace may take it, 8.3), paid
    # before the dealer's second card, 4 7C (17): it depended on the dealer's total. Paid 1000, which the 20
    # won.
    r = nz(
        [deal("1", "TH"), deal("dealer", "KS"), deal("1", "QD"), even_money(1, NZ_W), deal("dealer", "7C")]
    )
    assert findings(r) == [
        want("8.3", 3, "1", "player blackjack, dealer ace", "TH+QD vs KS"),
        want(EARLY, 3, "1", EARLY_EXPECTED, "settled at event 3, dealer's hand complete at event 4"),
    ]


def test_new_zealand_blackjack_collected_against_a_dealer_bust_of_22() -> None:
    # 0 AH, 1 dealer 6C, 2 KD, 3-4 the dealer draws TS, 6H: 22. 5 the blackjack collected: 4.1(a), a player of
    # 21 or less wins against a dealer over 21; 1500 was due.
    r = nz(
        [
            deal("1", "AH"),
            deal("dealer", "6C"),
            deal("1", "KD"),
            deal("dealer", "TS"),
            deal("dealer", "6H"),
            settle("1", "lose", NZ_W),
        ]
    )
    assert findings(r) == [want("4.1(a)", 5, "1", 1500, -NZ_W, 2500)]


def test_split_then_even_money_on_the_first_hand_does_not_end_the_box() -> None:
    # 0-3 8H+8D against AS + 6C down, 4 peek, 5 split, 6 hand 1 TH (18), 7 hand 1.2 TD (18), 8 reveal (soft
    # 17), 9 even money for hand 1's 18: only for a blackjack; paid 2500, which the 18 won against 17. Hand
    # 1.2 is never settled: its 18 was owed 2500.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "AS"),
            deal("1", "8D"),
            deal("dealer", "6C", "down"),
            peek(False),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "TD"),
            reveal("dealer", "6C"),
            even_money(1, W),
        ]
    )
    assert findings(r) == [
        want("uncited:even-money", 9, "1", "player blackjack, dealer ace", "8H+TH vs AS"),
        missing("1.2", W),
    ]


# --- what a hand is due: the totals a finding's reason names
# --------------------------------------------------


def test_what_a_hand_is_due_names_its_total_and_the_dealers() -> None:
    # (nets, direction, amount, player total, dealer total): a bust, a dealer blackjack, a dealer bust, a
    # higher total, equal totals.
    def due(total: int, dealer: tuple[int, bool, bool]) -> tuple[Any, ...]:
        e = expect(total, W, W, False, False, dealer, False)
        return e.nets, e.direction, e.amount, e.pt, e.dt

    assert due(23, (19, False, False)) == ((-W,), "bust_loses", "lose_amount", 23, 19)
    assert due(20, (21, True, True)) == ((-W,), "lower_total", "lose_amount", 20, 21)
    assert due(15, (24, False, False)) == ((W,), "dealer_bust", "win_odds", 15, 24)
    assert due(20, (19, False, False)) == ((W,), "higher_total", "win_odds", 20, 19)
    assert due(19, (19, False, False)) == ((0,), "equal_totals", "equal_totals", 19, 19)
