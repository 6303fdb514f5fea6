"""The state of play, doubling and splitting as the replay judges them (``round-v1.md`` section 2.1; NJ 19:47-2.10,
13:69F-2.11, 2.12(a); NZ 8.2, 8.3): rounds that the rule cases had left out, found by mutation testing. Every
finding is stated whole, written from the rules before the engine was run on the round.

Event indices are spelled out beside each round. New Jersey boxes wager 2500 unless a round says otherwise, New
Zealand boxes 1000. The New Jersey test table deals a hole card, peeks, and stands on soft 17.
"""

from __future__ import annotations

from typing import Any

from tests.builders import (
    a_round,
    audit,
    deal,
    double,
    even_money,
    hit,
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

DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
CARD = "uncited:card-to-complete-hand"
DECISION = "uncited:decision-on-complete-hand"
TURN = "uncited:play-out-of-turn"
EARLY = "uncited:settled-before-dealer-complete"
EARLY_EXPECTED = "settled after the dealer's hand is complete"
SURRENDER = "uncited:surrender"
MISSING = "uncited:missing-settlement"
SPLIT_ORDER = "13:69F-2.11(b)"


def nj(events: list[dict[str, Any]], wagers: tuple[int, ...] = (W,), **elections: Any) -> dict[str, Any]:
    """A New Jersey round on the test table, one box per wager (seats 1, 2, ...)."""
    seats = [seat(n, w) for n, w in enumerate(wagers, start=1)]
    return a_round("US-NJ", seats=seats, events=events, extra_rules=elections)


def nz(events: list[dict[str, Any]], **elections: Any) -> dict[str, Any]:
    """A New Zealand round on the test table (the dealer's second card after the players unless elected)."""
    return a_round("NZ", seats=[seat(1, NZ_W)], events=events, extra_rules=elections)


def findings(round_: dict[str, Any]) -> list[Want]:
    return [got(f) for f in audit(round_)["findings"]]


def order(hand: str, where: str, what: str, at: int) -> tuple[str, str]:
    """The expected and actual of a finding of play out of turn."""
    return (
        f"hand {hand} completed before any card to {where}",
        f"card to {where}, then {what} on hand {hand} at event {at}",
    )


# --- complete hands ------------------------------------------------------------------------------------------------


def test_hit_on_a_split_ace_with_its_card() -> None:
    # 13:69F-2.12(a)3, 2.11(c)2: a split ace gets one card. 0-3 AH 9C AD 8S (dealer 17), 4 split, 5 hand 1's card
    # (A+K, 21 but no blackjack), 6 a hit on it (no card follows), 7 hand 1.2's card (18), 8 reveal, 9-10 both win
    # one to one.
    r = nj(
        [
            deal("1", "AH"),
            deal("dealer", "9C"),
            deal("1", "AD"),
            deal("dealer", "8S", "down"),
            split("1", W),
            deal("1", "KC"),
            hit("1"),
            deal("1.2", "7S"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.2", "win", W),
        ]
    )
    assert findings(r) == [
        want("13:69F-2.11(c)2", 6, "1", "no further card", "a hit"),
        want("13:69F-2.12(a)3", 6, "1", "no further card", "a hit"),
    ]


def test_hit_after_the_double_card() -> None:
    # 13:69F-2.12(a)2: a doubled hand gets exactly one card. 0-3 6H 9C 5D 8S (dealer 17), 4 double, 5 its card (20),
    # 6 a hit (no card follows), 7 reveal, 8 the 20 wins on both wagers.
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("dealer", "8S", "down"),
            double("1", W),
            deal("1", "9D"),
            hit("1"),
            reveal("dealer", "8S"),
            settle("1", "win", 2 * W),
        ]
    )
    assert findings(r) == [
        want("13:69F-2.12(a)2", 6, "1", "one card after the double", "a hit after the double card")
    ]


def test_a_soft_hand_drawing_to_hard_12_may_draw_again() -> None:
    # 13:69F-2.12(a): a player may draw below 21. 0-3 AH 9C 5D 8S, 4 a card: A+5+6 is a hard 12, 5 another (17),
    # 6 reveal (17), 7 a stand off.
    r = nj(
        [
            deal("1", "AH"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("dealer", "8S", "down"),
            deal("1", "6C"),
            deal("1", "5H"),
            reveal("dealer", "8S"),
            settle("1", "push", 0),
        ]
    )
    assert findings(r) == []


def test_split_after_the_hand_was_settled() -> None:
    # A settled hand is complete: no decision may follow. 0-3 8H 9C 8D 8S (16 against 17, the dealer complete),
    # 4 the 16 collected, 5 a split of the settled hand, 6 the new hand's wager returned (it never had its cards).
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            settle("1", "lose", W),
            split("1", W),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(r) == [want(DECISION, 5, "1", "no decision on a complete hand", "split")]


# --- play after the dealer's blackjack -----------------------------------------------------------------------------


def test_a_card_and_a_surrender_after_the_peek_showed_a_blackjack() -> None:
    # Once the blackjack is known no card or decision may follow, and each is its own finding; a surrender then does
    # not count, and the box that drew first (seat 2) does not make seat 1's later surrender play out of turn: the
    # round was already over. 0 1<-TH, 1 2<-9C, 2 D<-AS, 3 1<-6D, 4 2<-7H, 5 D<-KC down, 6 peek: blackjack,
    # 7 a card to seat 2, 8 seat 1 surrenders, 9 reveal, 10-11 both 16s (as held at the peek) collected in full.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "9C"),
            deal("dealer", "AS"),
            deal("1", "6D"),
            deal("2", "7H"),
            deal("dealer", "KC", "down"),
            peek(True),
            deal("2", "5C"),
            surrender("1"),
            reveal("dealer", "KC"),
            settle("1", "lose", W),
            settle("2", "lose", W),
        ],
        wagers=(W, W),
        surrender="late",
    )
    assert findings(r) == [
        want(DBJ, 7, "2", DBJ_EXPECTED, "5C was dealt to hand 2"),
        want(DBJ, 8, "1", DBJ_EXPECTED, "hand 1 surrendered"),
    ]


def test_a_double_for_less_after_the_peek_is_owed_no_card() -> None:
    # Doubling for less is allowed (19:47-2.10(a): not in excess of the original wager), but not after the peek
    # showed the dealer's blackjack; play was over, so no double card is owed. 0-3 TH AS 6D KC, 4 peek: blackjack,
    # 5 a double of 4, 6 reveal, 7 the 16 held at the peek loses its original wager.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AS"),
            deal("1", "6D"),
            deal("dealer", "KC", "down"),
            peek(True),
            double("1", 4),
            reveal("dealer", "KC"),
            settle("1", "lose", W),
        ]
    )
    assert findings(r) == [want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 doubled down")]


def test_tens_split_after_the_peek_are_judged_as_the_twenty_held() -> None:
    # A box split after the blackjack was known is settled by the cards it held then: K+K, a 20, which loses to the
    # dealer's blackjack (the ace later dealt to hand 1.2 does not make a blackjack of it). 0-3 KH AS KD KC,
    # 4 peek: blackjack, 5 split, 6-7 the split hands' cards, 8 reveal, 9-10 2500 collected across the box.
    r = nj(
        [
            deal("1", "KH"),
            deal("dealer", "AS"),
            deal("1", "KD"),
            deal("dealer", "KC", "down"),
            peek(True),
            split("1", W),
            deal("1", "5C"),
            deal("1.2", "AH"),
            reveal("dealer", "KC"),
            settle("1", "lose", W),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(r) == [want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 split")]


# --- surrender -----------------------------------------------------------------------------------------------------


def test_surrender_after_the_hand_was_settled_and_the_next_box_played() -> None:
    # A settled hand is complete: a surrender after it is a finding. Seat 1 was complete (settled) before seat 2 drew,
    # so seat 2's card does not show seat 1 played out of turn. 0 1<-TH, 1 2<-9C, 2 D<-7C, 3 1<-6D, 4 2<-8H,
    # 5 D<-TS down (17, complete), 6 the 16 collected, 7 seat 2 draws (19), 8 seat 1 surrenders, 9 reveal,
    # 10 the 19 wins.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "9C"),
            deal("dealer", "7C"),
            deal("1", "6D"),
            deal("2", "8H"),
            deal("dealer", "TS", "down"),
            settle("1", "lose", W),
            deal("2", "2C"),
            surrender("1"),
            reveal("dealer", "TS"),
            settle("2", "win", W),
        ],
        wagers=(W, W),
        surrender="late",
    )
    assert findings(r) == [
        # (the 16 was collected before the hole card was turned up at 9: before the dealer's hand was complete,
        # spec 2.1)
        want(EARLY, 6, "1", EARLY_EXPECTED, "settled at event 6, dealer's hand complete at event 9"),
        want(SURRENDER, 8, "1", "surrender on the first two cards", "surrender with 2 cards"),
    ]


def test_surrender_out_of_turn() -> None:
    # A legal surrender (two cards, no other decision) recorded after seat 2 drew shows seat 1 was not complete when
    # that card was dealt. 0-5 the initial deal (seat 1 16, seat 2 17, dealer 7+T), 6 seat 2 draws (19),
    # 7 seat 1 surrenders, 8 half its wager collected, 9 reveal, 10 the 19 wins.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "9C"),
            deal("dealer", "7C"),
            deal("1", "6D"),
            deal("2", "8H"),
            deal("dealer", "TS", "down"),
            deal("2", "2C"),
            surrender("1"),
            settle("1", "surrender", W // 2),
            reveal("dealer", "TS"),
            settle("2", "win", W),
        ],
        wagers=(W, W),
        surrender="late",
    )
    assert findings(r) == [want(TURN, 6, "1", *order("1", "hand 2", "a surrender", 7))]


def test_surrender_on_one_card() -> None:
    # Surrender is only on the first two cards: 0 1<-TH, 1 D<-7C, 2 a surrender on the one card, 3 the second card,
    # 4 D<-TS down (17), 5 half the wager collected (the hand had surrendered).
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "7C"),
            surrender("1"),
            deal("1", "6D"),
            deal("dealer", "TS", "down"),
            settle("1", "surrender", W // 2),
        ],
        surrender="late",
    )
    assert findings(r) == [
        want(SURRENDER, 2, "1", "surrender on the first two cards", "surrender with 1 card")
    ]


# --- order of play -------------------------------------------------------------------------------------------------


def test_double_out_of_turn() -> None:
    # A legal double recorded after seat 2 drew shows seat 1 was not complete then. 0 1<-6H, 1 2<-TC, 2 D<-9C,
    # 3 1<-5D (11), 4 2<-2D (12), 5 D<-7S down (16), 6 seat 2 draws (18), 7 seat 1 doubles, 8 its card (20),
    # 9 reveal, 10 the dealer draws to 18, 11 seat 1's 20 wins both wagers, 12 a stand off for seat 2.
    r = nj(
        [
            deal("1", "6H"),
            deal("2", "TC"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("2", "2D"),
            deal("dealer", "7S", "down"),
            deal("2", "6H"),
            double("1", W),
            deal("1", "9D"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "win", 2 * W),
            settle("2", "push", 0),
        ],
        wagers=(W, W),
    )
    assert findings(r) == [want(TURN, 6, "1", *order("1", "hand 2", "a double", 7))]


def test_split_out_of_turn() -> None:
    # A legal split recorded after seat 2 drew: 0 1<-8H, 1 2<-TC, 2 D<-9C, 3 1<-8D, 4 2<-2D (12), 5 D<-7S down (16),
    # 6 seat 2 draws (18), 7 seat 1 splits, 8-9 the split hands' cards (18, 18), 10 reveal, 11 the dealer draws to
    # 18, 12-14 three stand offs.
    r = nj(
        [
            deal("1", "8H"),
            deal("2", "TC"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("2", "2D"),
            deal("dealer", "7S", "down"),
            deal("2", "6H"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "TD"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
            settle("2", "push", 0),
        ],
        wagers=(W, W),
    )
    assert findings(r) == [want(TURN, 6, "1", *order("1", "hand 2", "a split", 7))]


def test_second_split_hand_hits_after_the_dealer_drew() -> None:
    # 13:69F-2.11(b): a hit on hand 1.2 after the dealer's play began shows 1.2 was still being played. 0-3 8H 9C
    # 8D 7S, 4 split, 5 hand 1's card (18), 6 hand 1.2's card (11), 7 reveal (16: the dealer's play begins, spec
    # 2.1), 8 the dealer draws (18), 9 hand 1.2 hits, 10 its card (18), 11-12 two stand offs.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "3C"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            hit("1.2"),
            deal("1.2", "7H"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(r) == [
        want(
            SPLIT_ORDER,
            7,
            "1.2",
            "hand 1.2 completed before the dealer's hole card is turned up",
            "hole card turned up, then a hit on hand 1.2 at event 9",
        )
    ]


def test_card_to_the_dealer_while_a_split_hand_waits() -> None:
    # 13:69F-2.11(b): no card to any other hand, the dealer's included, while a split hand waits for its second card.
    # 0-3 8H 9C 8D 7S, 4 split, 5 hand 1's card (18), 6 reveal (16), 7 the dealer draws (18) with 1.2 still on one
    # card, 8 hand 1.2's card (18), 9-10 two stand offs.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1", "TH"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            deal("1.2", "TC"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(r) == [want(SPLIT_ORDER, 7, "1.2", "next card to 1.2", "card to the dealer")]


def test_second_split_hand_dealt_first_is_reported_once() -> None:
    # 13:69F-2.11(b): the card to hand 1.2 while hand 1 waits for its second card is the fault; hand 1 is then dealt
    # to and completed, and hand 1.2 drawing after it is play in order. 0-3 8H 9C 8D 7S, 4 split, 5 hand 1.2's
    # card (11), 6 hand 1's card (18), 7 hand 1.2 draws (18), 8 reveal (16), 9 the dealer draws (18),
    # 10-11 two stand offs.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1.2", "3C"),
            deal("1", "TH"),
            deal("1.2", "7H"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(r) == [want(SPLIT_ORDER, 5, "1", "next card to 1", "card to 1.2")]


def test_resplit_hand_skipped_for_the_next_split_hand() -> None:
    # 13:69F-2.11(b), (e): hands are played in the order of their names (1, 1.2, 1.3); after hand 1 is split again it
    # is the first incomplete hand, and a card to 1.2 before hand 1's second card is out of order. 0-3 8H 9C 8D 7S,
    # 4 split, 5 hand 1's card (8C, a pair again), 6 resplit, 7 a card to 1.2 (18) while hand 1 waits, 8 hand 1's
    # card (18), 9 hand 1.3's card (18), 10 reveal (16), 11 the dealer draws (18), 12-14 three stand offs.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1", "8C"),
            split("1", W),
            deal("1.2", "TC"),
            deal("1", "TD"),
            deal("1.3", "TH"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
            settle("1.3", "push", 0),
        ],
        resplit=True,
        boxes=6,
    )
    assert findings(r) == [want(SPLIT_ORDER, 7, "1", "next card to 1", "card to 1.2")]


def test_stand_recorded_on_a_split_hand_before_its_second_card() -> None:
    # A split hand is owed its second card before the player decides (13:69F-2.11(c)); a stand recorded on it before
    # that card does not complete it, so the card that follows is owed, not a card to a complete hand.
    # 0-3 8H 9C 8D 8S (dealer 17), 4 split, 5 a stand on hand 1 (one card), 6 hand 1's card (18), 7 hand 1.2's card
    # (18), 8 reveal, 9-10 both 18s win.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            split("1", W),
            stand("1"),
            deal("1", "TH"),
            deal("1.2", "TC"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.2", "win", W),
        ]
    )
    assert findings(r) == []


def test_hit_on_a_hand_split_on_three_cards_after_the_next_hand_drew() -> None:
    # 13:69F-2.11(a): only the first two cards may be split. The hand that was split keeps two cards (8H 2C); a hit
    # on it after hand 1.2 was dealt to shows it was not complete then (2.11(b)). 0-3 8H 9C 8D 8S (dealer 17),
    # 4 a third card (18), 5 the split, 6 hand 1.2's card (18), 7 a hit on hand 1, 8 its card (19), 9 reveal,
    # 10-11 both win.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            deal("1", "2C"),
            split("1", W),
            deal("1.2", "TC"),
            hit("1"),
            deal("1", "9C"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.2", "win", W),
        ]
    )
    assert findings(r) == [
        want("13:69F-2.11(a)", 5, "1", "split on the first two cards", "3 cards"),
        want(SPLIT_ORDER, 6, "1", *order("1", "hand 1.2", "a hit", 7)),
    ]


# --- doubling and splitting wagers ---------------------------------------------------------------------------------


def test_double_for_one() -> None:
    # 19:47-2.10(a): the double is any additional wager up to the original one, so doubling for less is allowed,
    # down to one unit. 0-3 6H 9C 5D 8S (dealer 17), 4 a double of 1, 5 its card (20), 6 reveal, 7 the 20 wins both
    # wagers.
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("dealer", "8S", "down"),
            double("1", 1),
            deal("1", "9D"),
            reveal("dealer", "8S"),
            settle("1", "win", W + 1),
        ]
    )
    assert findings(r) == []


# A 6 to 5 table that prohibits doubling after splitting (19:47-2.10(d)); it hits soft 17 (13:69F-2.12(d)).
SIX_FIVE_NO_DAS = {"blackjack_pays": "6:5", "dealer_soft_17": "hit", "double_after_split": False}


def test_double_on_an_unsplit_hand_where_doubling_after_splitting_is_prohibited() -> None:
    # The prohibition is of doubling after splitting only. 0-3 6H 9C 5D 8S (dealer 17), 4 double, 5 its card (20),
    # 6 reveal, 7 the 20 wins both wagers.
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("dealer", "8S", "down"),
            double("1", W),
            deal("1", "9D"),
            reveal("dealer", "8S"),
            settle("1", "win", 2 * W),
        ],
        **SIX_FIVE_NO_DAS,
    )
    assert findings(r) == []


def test_double_on_the_new_split_hand_where_doubling_after_splitting_is_prohibited() -> None:
    # 19:47-2.10(d): hand 1.2 came from the split. 0-3 5H 9C 5D 8S (dealer 17), 4 split, 5 hand 1's card (15),
    # 6 hand 1.2's card (11), 7 hand 1.2 doubles, 8 its card (21), 9 reveal, 10 hand 1's 15 loses, 11 hand 1.2's 21
    # wins both wagers.
    r = nj(
        [
            deal("1", "5H"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("dealer", "8S", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "6C"),
            double("1.2", W),
            deal("1.2", "TD"),
            reveal("dealer", "8S"),
            settle("1", "lose", W),
            settle("1.2", "win", 2 * W),
        ],
        **SIX_FIVE_NO_DAS,
    )
    assert findings(r) == [want("19:47-2.10(d)", 7, "1.2", "no double after split", f"double of {W}")]


def test_second_box_splits_for_its_own_wager() -> None:
    # 13:69F-2.11(a): the split wager equals the box's own original wager (seat 2 wagers 1000).
    # 0 1<-TH, 1 2<-8H, 2 D<-9C, 3 1<-9D (19), 4 2<-8D, 5 D<-7S down (16), 6 seat 2 splits for 1000, 7-8 the split
    # hands' cards (18, 18), 9 reveal, 10 the dealer draws (18), 11 the 19 wins, 12-13 two stand offs.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "8H"),
            deal("dealer", "9C"),
            deal("1", "9D"),
            deal("2", "8D"),
            deal("dealer", "7S", "down"),
            split("2", 1000),
            deal("2", "TC"),
            deal("2.2", "TD"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "win", W),
            settle("2", "push", 0),
            settle("2.2", "push", 0),
        ],
        wagers=(W, 1000),
    )
    assert findings(r) == []


# --- the double card (19:47-2.10(c), 13:69F-2.12(a)2), judged at the end ---------------------------------------------


def test_double_cards_of_the_last_box_judged_whatever_the_boxes_before() -> None:
    # Four boxes at a face-up table: seat 1 does not double, seat 2 doubles and is never dealt its card
    # (13:69F-2.12(a)2), seat 3 doubles and gets its card face up, seat 4 doubles and gets its card face down
    # (19:47-2.10(c)), turned up after the dealer's hand is complete.
    # 0-3 the boxes' first cards, 4 D<-9C, 5-8 their second cards (18, 11, 11, 11), 9 D<-8S down (17),
    # 10 seat 2 doubles (no card follows), 11 seat 3 doubles, 12 its card (20), 13 seat 4 doubles, 14 its card face
    # down (20), 15 reveal the dealer's 8S, 16 reveal seat 4's card, 17-20 settlements: 18 and the 20s win, seat 2's
    # 11 loses both wagers.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "6H"),
            deal("3", "6D"),
            deal("4", "6C"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("2", "5H"),
            deal("3", "5D"),
            deal("4", "5C"),
            deal("dealer", "8S", "down"),
            double("2", W),
            double("3", W),
            deal("3", "9D"),
            double("4", W),
            deal("4", "9H", "down"),
            reveal("dealer", "8S"),
            reveal("4", "9H"),
            settle("1", "win", W),
            settle("2", "lose", 2 * W),
            settle("3", "win", 2 * W),
            settle("4", "win", 2 * W),
        ],
        wagers=(W, W, W, W),
    )
    assert findings(r) == [
        want("19:47-2.10(c)", 14, "4", "face up", "face down"),
        want("13:69F-2.12(a)2", None, "2", "one card after the double", "no card"),
    ]


def test_face_down_double_card_on_a_hand_never_settled() -> None:
    # A face-down table (19:47-2.10(c)): 0-3 6H 9C 5D 8S (dealer 17), 4 double, 5 its card face down (20),
    # 6-7 both cards turned up; the hand is never settled: its 20 was owed both wagers.
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("dealer", "8S", "down"),
            double("1", W),
            deal("1", "9D", "down"),
            reveal("dealer", "8S"),
            reveal("1", "9D"),
        ],
        double_card="face_down",
    )
    assert findings(r) == [want(MISSING, None, "1", 2 * W, 0, 2 * W)]


# --- settlements judged by the hand as it stood ----------------------------------------------------------------------


def test_doubled_hand_paid_before_the_dealer_drew() -> None:
    # 0-3 6H 6C 5D TS (dealer 16), 4 double, 5 its card (20), 6 both wagers paid before the dealer drew, 7 reveal,
    # 8 the dealer busts: the payment was right, only early.
    r = nj(
        [
            deal("1", "6H"),
            deal("dealer", "6C"),
            deal("1", "5D"),
            deal("dealer", "TS", "down"),
            double("1", W),
            deal("1", "9D"),
            settle("1", "win", 2 * W),
            reveal("dealer", "TS"),
            deal("dealer", "8H"),
        ]
    )
    assert findings(r) == [
        want(EARLY, 6, "1", EARLY_EXPECTED, "settled at event 6, dealer's hand complete at event 8")
    ]


def test_standing_18_paid_early_then_dealt_a_card() -> None:
    # A settlement is judged by the hand as it stood then (18), whatever is dealt to it later. 0-3 TH 6C 8D TS
    # (dealer 16), 4 stand, 5 paid before the dealer drew, 6 a card to the settled hand, 7 reveal, 8 the dealer draws
    # to 17: the 18 won.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "6C"),
            deal("1", "8D"),
            deal("dealer", "TS", "down"),
            stand("1"),
            settle("1", "win", W),
            deal("1", "3C"),
            reveal("dealer", "TS"),
            deal("dealer", "AH"),
        ]
    )
    assert findings(r) == [
        want(EARLY, 5, "1", EARLY_EXPECTED, "settled at event 5, dealer's hand complete at event 8"),
        want(CARD, 6, "1", "no further card", "drew 3C on 18"),
    ]


def test_split_ten_and_ace_never_settled_was_owed_even_money() -> None:
    # A split hand's ace and ten is a 21, not a blackjack: owed one to one. 0-3 TH 6C KD TS (dealer 16), 4 split,
    # 5 hand 1's card (19), 6 hand 1.2's card (A: 21), 7 reveal, 8 the dealer busts, 9 hand 1 paid; hand 1.2 never.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "6C"),
            deal("1", "KD"),
            deal("dealer", "TS", "down"),
            split("1", W),
            deal("1", "9C"),
            deal("1.2", "AH"),
            reveal("dealer", "TS"),
            deal("dealer", "8H"),
            settle("1", "win", W),
        ]
    )
    assert findings(r) == [want(MISSING, None, "1.2", W, 0, W)]


def test_box_never_dealt_has_its_wager_returned_before_the_dealer_drew() -> None:
    # Seat 2 placed a wager but was dealt no cards; returning it is no settlement of a hand's outcome.
    # 0 1<-TH, 1 D<-9C, 2 1<-8D, 3 D<-7S down (16), 4 seat 2's wager returned, 5 reveal, 6 the dealer draws (18),
    # 7 a stand off for seat 1.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            settle("2", "push", 0),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
        ],
        wagers=(W, W),
    )
    assert findings(r) == []


# --- New Zealand: the dealer's second card -------------------------------------------------------------------------


def test_even_money_after_the_hole_card_was_turned_up() -> None:
    # NZ 8.3: even money is paid immediately, before the dealer's second card is known; paid after it, it is the
    # settlement of the blackjack, which against a dealer ace that made no blackjack is paid 3 to 2 (8.2).
    # A table that elects a hole card: 0 1<-AH, 1 D<-AS, 2 1<-KD, 3 D<-6C down, 4 reveal (soft 17, the dealer
    # stands), 5 even money of 1000.
    r = nz(
        [
            deal("1", "AH"),
            deal("dealer", "AS"),
            deal("1", "KD"),
            deal("dealer", "6C", "down"),
            reveal("dealer", "6C"),
            even_money(1, NZ_W),
        ],
        dealer_second_card="initial_deal",
    )
    assert findings(r) == [
        want("8.2", 5, "1", 1500, NZ_W, 500),
        want("8.3", 5, "1", "before event 4", "event 5"),
    ]


def test_blackjack_paid_while_the_dealer_holds_one_card() -> None:
    # NZ 8.2: with a ten-value first card the dealer pays a blackjack only after receiving a second card; here the
    # dealer never receives one. 0 1<-AH, 1 D<-KS, 2 1<-KD, 3 the blackjack paid 3 to 2. The blackjack waited on
    # that card (a dealer blackjack would push it), so stopping on the king alone is a fault of the dealer's draw.
    r = nz(
        [
            deal("1", "AH"),
            deal("dealer", "KS"),
            deal("1", "KD"),
            settle("1", "win", 1500),
        ]
    )
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


# --- rounds that stop at a contradiction (nothing claimed at or after it) -----------------------------------------


def test_busted_hand_collected_while_the_dealer_held_only_its_hole_card() -> None:
    # The hole card dealt first, face down: 0 1<-TH, 1 D<-7C down, 2 1<-6D, 3 1<-KS (26), 4 the bust collected,
    # 5 a card to a seat that placed no wager (the contradiction). A bust loses whatever the dealer holds.
    result = audit(
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "7C", "down"),
                deal("1", "6D"),
                deal("1", "KS"),
                settle("1", "lose", W),
                deal("2", "2C"),
            ]
        )
    )
    assert result["verdict"] == "unreplayable"
    assert [got(f) for f in result["findings"]] == [want("record", 5, "2", None, None)]


def test_double_before_the_dealer_had_a_card() -> None:
    # 0 1<-6H, 1 1<-5D, 2 double, 3 its card face up (20), 4 a card to a seat that placed no wager (the
    # contradiction): nothing before it breaks a rule.
    result = audit(
        nj(
            [
                deal("1", "6H"),
                deal("1", "5D"),
                double("1", W),
                deal("1", "9D"),
                deal("2", "2C"),
            ]
        )
    )
    assert result["verdict"] == "unreplayable"
    assert [got(f) for f in result["findings"]] == [want("record", 4, "2", None, None)]
