"""The state of play (``round-v1.md`` section 2.1): what each event may follow. Cases for both jurisdictions, each
finding stated whole, written from the spec before the engine was run on them.

* A complete hand (stood, busted, 21, doubled and dealt, a split ace with its card, surrendered, settled) takes no
  card or decision; a ``stand`` on a hand complete by rule decides nothing.
* Once a peek shows the dealer's blackjack, no player decision, wager or card.
* A decision on a hand after a card went to another hand shows it was not complete then: reported once, at that
  card (13:69F-2.11(b) for split hands in New Jersey).
* A settlement is judged by the hand as it stood then; one that depends on the dealer's total comes after the
  dealer's hand is complete.
* The up card is the one dealt face up, in either deal order.

Event indices are spelled out beside each round. Amounts: New Jersey boxes wager 2500, New Zealand boxes 1000.
"""

from __future__ import annotations

from typing import Any

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
    settle_insurance,
    split,
    stand,
    surrender,
)
from tests.rules.case import Case, fires, quiet, want

NJ_W = 2500
NZ_W = 1000

DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
CARD = "uncited:card-to-complete-hand"
DECISION = "uncited:decision-on-complete-hand"
TURN = "uncited:play-out-of-turn"
EARLY = "uncited:settled-before-dealer-complete"
EARLY_EXPECTED = "settled after the dealer's hand is complete"


def nj(events: list[dict[str, Any]], seats: int = 1, **elections: Any) -> dict[str, Any]:
    """A New Jersey round on the test table (hole card, peek, stands on soft 17)."""
    return a_round(
        "US-NJ", seats=[seat(n, NJ_W) for n in range(1, seats + 1)], events=events, extra_rules=elections
    )


def nz(events: list[dict[str, Any]], seats: int = 1, **elections: Any) -> dict[str, Any]:
    """A New Zealand round on the test table (no hole card unless elected, stands on soft 17)."""
    return a_round(
        "NZ", seats=[seat(n, NZ_W) for n in range(1, seats + 1)], events=events, extra_rules=elections
    )


def order(hand: str, where: str, what: str, at: int) -> tuple[str, str]:
    """The expected and actual of a finding of play out of turn."""
    return (
        f"hand {hand} completed before any card to {where}",
        f"card to {where}, then {what} on hand {hand} at event {at}",
    )


# --- New Jersey ------------------------------------------------------------------------------------------------

# 0 1<-TH, 1 D<-AS, 2 1<-6D, 3 D<-KC down (a blackjack), 4 peek: blackjack, 5 reveal, 6 the 16 collected
NJ_DBJ_OPENING = [
    deal("1", "TH"),
    deal("dealer", "AS"),
    deal("1", "6D"),
    deal("dealer", "KC", "down"),
    peek(True),
]

NJ_CASES: list[Case] = [
    # Once the peek shows the dealer's blackjack the round is over for every hand.
    fires(
        DBJ,
        "hit and a card after the peek showed a blackjack and the hand was settled",
        nj([*NJ_DBJ_OPENING, reveal("dealer", "KC"), settle("1", "lose", NJ_W), hit("1"), deal("1", "5C")]),
        "play_after_dealer_bj",
        want(DBJ, 7, "1", DBJ_EXPECTED, "hand 1 hit"),
    ),
    # 5 double after the peek, 6 its card, 7 reveal, 8 settled by the cards held at the peek: 16 loses the original
    # wager only (the double is returned, 19:47-2.10(b))
    fires(
        DBJ,
        "double after the peek showed a blackjack",
        nj(
            [
                *NJ_DBJ_OPENING,
                double("1", NJ_W),
                deal("1", "5C"),
                reveal("dealer", "KC"),
                settle("1", "lose", NJ_W),
            ]
        ),
        "play_after_dealer_bj",
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 doubled down"),
    ),
    # 0-3 8H AS 8D KC, 4 peek, 5 split, 6-7 the split hands' cards, 8 reveal, 9-10 only the original wager collected
    fires(
        DBJ,
        "split after the peek showed a blackjack",
        nj(
            [
                deal("1", "8H"),
                deal("dealer", "AS"),
                deal("1", "8D"),
                deal("dealer", "KC", "down"),
                peek(True),
                split("1", NJ_W),
                deal("1", "3C"),
                deal("1.2", "4D"),
                reveal("dealer", "KC"),
                settle("1", "lose", NJ_W),
                settle("1.2", "push", 0),
            ]
        ),
        "play_after_dealer_bj",
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 split"),
    ),
    # 0-3 TH AS 9D KC, 4 peek, 5 insurance after it, 6 reveal, 7 insurance paid 2 to 1, 8 the 19 collected
    fires(
        DBJ,
        "insurance placed after the peek showed a blackjack",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "AS"),
                deal("1", "9D"),
                deal("dealer", "KC", "down"),
                peek(True),
                insurance(1, NJ_W // 2),
                reveal("dealer", "KC"),
                settle_insurance(1, "win", NJ_W),
                settle("1", "lose", NJ_W),
            ]
        ),
        "play_after_dealer_bj",
        want(DBJ, 5, "1", DBJ_EXPECTED, "an insurance wager was placed"),
    ),
    # Found by review: once the blackjack is known, what a hand does afterwards does not count when it is settled.
    # 0-3 AS AH KD KC (a blackjack each), 4 peek, 5 even money after it: the blackjack was a stand off, 2500 overpaid
    fires(
        DBJ,
        "even money paid after the peek showed a blackjack",
        nj(
            [
                deal("1", "AS"),
                deal("dealer", "AH"),
                deal("1", "KD"),
                deal("dealer", "KC", "down"),
                peek(True),
                even_money(1, NJ_W),
                reveal("dealer", "KC"),
            ]
        ),
        "play_after_dealer_bj",
        want(
            "uncited:blackjack-odds",
            5,
            "1",
            0,
            NJ_W,
            -NJ_W,
        ),
        want(DBJ, 5, "1", DBJ_EXPECTED, "even money was paid"),
    ),
    # 5 a surrender after the peek: the 16 held at the peek loses its whole wager, 6 as collected
    fires(
        DBJ,
        "surrender after the peek showed a blackjack; the whole wager collected",
        nj(
            [*NJ_DBJ_OPENING, surrender("1"), settle("1", "lose", NJ_W), reveal("dealer", "KC")],
            surrender="late",
        ),
        "play_after_dealer_bj",
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 surrendered"),
    ),
    fires(
        DBJ,
        "surrender after the peek showed a blackjack; only half collected",
        nj(
            [*NJ_DBJ_OPENING, surrender("1"), settle("1", "surrender", NJ_W // 2), reveal("dealer", "KC")],
            surrender="late",
        ),
        "play_after_dealer_bj",
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 surrendered"),
        want("uncited:lose-collects-stake", 6, "1", -NJ_W, -NJ_W // 2, -NJ_W // 2),
    ),
    # 5 a double after the peek, no card (none was owed: play was over), 7 the 16 collected its one wager
    fires(
        DBJ,
        "double after the peek showed a blackjack, no card dealt",
        nj([*NJ_DBJ_OPENING, double("1", NJ_W), reveal("dealer", "KC"), settle("1", "lose", NJ_W)]),
        "play_after_dealer_bj",
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 doubled down"),
    ),
    # 5 double, 6 its card, 8 the double collected too: the hand at the peek staked 2500 (not 19:47-2.10(b), whose
    # blackjack comes after the double)
    fires(
        DBJ,
        "double after the peek showed a blackjack, both wagers collected",
        nj(
            [
                *NJ_DBJ_OPENING,
                double("1", NJ_W),
                deal("1", "9C"),
                reveal("dealer", "KC"),
                settle("1", "lose", 2 * NJ_W),
            ]
        ),
        "play_after_dealer_bj",
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 doubled down"),
        want("uncited:lose-collects-stake", 8, "1", -NJ_W, -2 * NJ_W, NJ_W),
    ),
    # 0-3 8H AS 8D KC, 4 peek, 5 split, 6-7 cards, 8 reveal, 9-10 both hands collected: the box held one 16 at the
    # peek (not 13:69F-2.11(d), whose blackjack comes after the split)
    fires(
        DBJ,
        "split after the peek showed a blackjack, both wagers collected",
        nj(
            [
                deal("1", "8H"),
                deal("dealer", "AS"),
                deal("1", "8D"),
                deal("dealer", "KC", "down"),
                peek(True),
                split("1", NJ_W),
                deal("1", "TC"),
                deal("1.2", "9C"),
                reveal("dealer", "KC"),
                settle("1", "lose", NJ_W),
                settle("1.2", "lose", NJ_W),
            ]
        ),
        "play_after_dealer_bj",
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 split"),
        want("uncited:lose-collects-stake", 10, "1", -NJ_W, -2 * NJ_W, NJ_W),
    ),
    quiet(
        DBJ,
        "the peek shows a blackjack; the hand is settled and nothing follows",
        nj([*NJ_DBJ_OPENING, reveal("dealer", "KC"), settle("1", "lose", NJ_W)]),
    ),
    # A legal order: the player's blackjack is settled (a stand off) before the dealer's hole card is turned up.
    quiet(
        DBJ,
        "a blackjack pushed against the peeked blackjack before the reveal",
        nj(
            [
                deal("1", "AH"),
                deal("dealer", "AS"),
                deal("1", "KD"),
                deal("dealer", "KC", "down"),
                peek(True),
                settle("1", "push", 0),
                reveal("dealer", "KC"),
            ]
        ),
    ),
    # A card to a blackjack that was already settled: 2.12(a)1, and the push stands judged by the blackjack.
    # 0-3 AH AS KD KC, 4 peek, 5 reveal, 6 push, 7 a card to the settled blackjack
    fires(
        "13:69F-2.12(a)1",
        "card dealt to a blackjack after its stand off was settled",
        nj(
            [
                deal("1", "AH"),
                deal("dealer", "AS"),
                deal("1", "KD"),
                deal("dealer", "KC", "down"),
                peek(True),
                reveal("dealer", "KC"),
                settle("1", "push", 0),
                deal("1", "5C"),
            ]
        ),
        "hit_on_21",
        want("13:69F-2.12(a)1", 7, "1", "no card on 21", "drew 5C on 21"),
    ),
    # Regression (found by the mutator): the card dealt to the blackjack after it was paid made the hand "live" again
    # as the engine judged the dealer's stop on 13 with no live hand (an extra 13:69F-2.12(b)1 finding).
    # 0-3 TC 7S AD 6C, 4 reveal (13; every hand decided, the dealer stops), 5 the blackjack paid, 6 a card to it
    fires(
        "13:69F-2.12(a)1",
        "card dealt to a blackjack after it was paid; the dealer had stopped with no live hand",
        nj(
            [
                deal("1", "TC"),
                deal("dealer", "7S"),
                deal("1", "AD"),
                deal("dealer", "6C", "down"),
                reveal("dealer", "6C"),
                settle("1", "win", NJ_W * 3 // 2),
                deal("1", "KS"),
            ]
        ),
        "hit_on_21",
        want("13:69F-2.12(a)1", 6, "1", "no card on 21", "drew KS on 21"),
    ),
    # 0-3 TH 9C 8D 7S (18 against 9+7), 4 stand, 5 hit (the fault), 6 its card (20), 7 reveal, 8 dealer 2H (18),
    # 9 the hand as it stood then (20) wins
    fires(
        CARD,
        "hit and a card after the hand stood",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                deal("dealer", "7S", "down"),
                stand("1"),
                hit("1"),
                deal("1", "2C"),
                reveal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "win", NJ_W),
            ]
        ),
        "card_to_complete_hand",
        want(CARD, 5, "1", "no further card", "hit on 18"),
    ),
    # 4 stand, 5 reveal, 6 dealer 2H (18), 7 the 18 pushes, 8 a card to the settled hand
    fires(
        CARD,
        "card dealt to a hand after it was settled",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                deal("dealer", "7S", "down"),
                stand("1"),
                reveal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "push", 0),
                deal("1", "3C"),
            ]
        ),
        "card_to_complete_hand",
        want(CARD, 8, "1", "no further card", "drew 3C on 18"),
    ),
    quiet(
        CARD,
        "the hand stands on 18 and pushes",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                deal("dealer", "7S", "down"),
                stand("1"),
                reveal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "push", 0),
            ]
        ),
    ),
    # 0-3 6H 9C 5D 7S (11), 4 stand, 5 double (the fault), 6 its card KD (21), 7 reveal, 8 dealer 2H (18), 9 paid
    fires(
        DECISION,
        "double after the hand stood",
        nj(
            [
                deal("1", "6H"),
                deal("dealer", "9C"),
                deal("1", "5D"),
                deal("dealer", "7S", "down"),
                stand("1"),
                double("1", NJ_W),
                deal("1", "KD"),
                reveal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "win", 2 * NJ_W),
            ]
        ),
        "decision_on_complete_hand",
        want(DECISION, 5, "1", "no decision on a complete hand", "doubled down"),
    ),
    # 0-3 8H 9C 8D 8S (16 against 17), 4 stand, 5 split (the fault), 6-7 the split hands' cards (18, 18), 8 reveal
    fires(
        DECISION,
        "split after the hand stood",
        nj(
            [
                deal("1", "8H"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                deal("dealer", "8S", "down"),
                stand("1"),
                split("1", NJ_W),
                deal("1", "TH"),
                deal("1.2", "TC"),
                reveal("dealer", "8S"),
                settle("1", "win", NJ_W),
                settle("1.2", "win", NJ_W),
            ]
        ),
        "decision_on_complete_hand",
        want(DECISION, 5, "1", "no decision on a complete hand", "split"),
    ),
    quiet(
        DECISION,
        "double on 11 without standing first",
        nj(
            [
                deal("1", "6H"),
                deal("dealer", "9C"),
                deal("1", "5D"),
                deal("dealer", "7S", "down"),
                double("1", NJ_W),
                deal("1", "KD"),
                reveal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "win", 2 * NJ_W),
            ]
        ),
    ),
    # 0 1<-TH, 1 2<-9C, 2 D<-7C, 3 1<-6D, 4 2<-5H, 5 D<-TS down; 6 a card to seat 2 (18): seat 1 was passed;
    # 7 seat 1 hits, 8 its card (18), 9 reveal (17), 10-11 both win
    fires(
        TURN,
        "seat 2 draws, then seat 1 hits",
        nj(
            [
                deal("1", "TH"),
                deal("2", "9C"),
                deal("dealer", "7C"),
                deal("1", "6D"),
                deal("2", "5H"),
                deal("dealer", "TS", "down"),
                deal("2", "4S"),
                hit("1"),
                deal("1", "2C"),
                reveal("dealer", "TS"),
                settle("1", "win", NJ_W),
                settle("2", "win", NJ_W),
            ],
            seats=2,
        ),
        "play_out_of_turn",
        want(TURN, 6, "1", *order("1", "hand 2", "a hit", 7)),
    ),
    # 0-3 TH 6C 6D TS (16 against 16), 4 reveal, 5 the dealer draws 5H (21), 6 the player stands after it, 7 the 16
    # collected
    fires(
        TURN,
        "the dealer draws, then the player stands",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "6C"),
                deal("1", "6D"),
                deal("dealer", "TS", "down"),
                reveal("dealer", "TS"),
                deal("dealer", "5H"),
                stand("1"),
                settle("1", "lose", NJ_W),
            ]
        ),
        "play_out_of_turn",
        # Spec 2.1: in a hole-card game the dealer's play begins with the reveal of the hole card (event 4).
        want(
            TURN,
            4,
            "1",
            "hand 1 completed before the dealer's hole card is turned up",
            "hole card turned up, then a stand on hand 1 at event 6",
        ),
    ),
    quiet(
        TURN,
        "seat 1 hits, then seat 2 draws",
        nj(
            [
                deal("1", "TH"),
                deal("2", "9C"),
                deal("dealer", "7C"),
                deal("1", "6D"),
                deal("2", "5H"),
                deal("dealer", "TS", "down"),
                hit("1"),
                deal("1", "2C"),
                deal("2", "4S"),
                reveal("dealer", "TS"),
                settle("1", "win", NJ_W),
                settle("2", "win", NJ_W),
            ],
            seats=2,
        ),
    ),
    # 0-3 8H 9C 8D 8S, 4 split, 5 hand 1's card (18), 6 hand 1.2's card (18), 7 the stand on hand 1 shows it was not
    # complete when 1.2 was dealt to
    fires(
        "13:69F-2.11(b)",
        "the stand on the first split hand is recorded after the second hand's card",
        nj(
            [
                deal("1", "8H"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                deal("dealer", "8S", "down"),
                split("1", NJ_W),
                deal("1", "TH"),
                deal("1.2", "TC"),
                stand("1"),
                reveal("dealer", "8S"),
                settle("1", "win", NJ_W),
                settle("1.2", "win", NJ_W),
            ]
        ),
        "split_order",
        want("13:69F-2.11(b)", 6, "1", *order("1", "hand 1.2", "a stand", 7)),
    ),
    quiet(
        "13:69F-2.11(b)",
        "the first split hand stands before the second is dealt to",
        nj(
            [
                deal("1", "8H"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                deal("dealer", "8S", "down"),
                split("1", NJ_W),
                deal("1", "TH"),
                stand("1"),
                deal("1.2", "TC"),
                stand("1.2"),
                reveal("dealer", "8S"),
                settle("1", "win", NJ_W),
                settle("1.2", "win", NJ_W),
            ]
        ),
    ),
    # A split ace with its card is complete: a stand recorded on it later decides nothing.
    quiet(
        "13:69F-2.11(b)",
        "explicit stand on a split ace after play moved on",
        nj(
            [
                deal("1", "AH"),
                deal("dealer", "9C"),
                deal("1", "AD"),
                deal("dealer", "8S", "down"),
                split("1", NJ_W),
                deal("1", "KC"),
                deal("1.2", "7S"),
                stand("1"),
                stand("1.2"),
                reveal("dealer", "8S"),
                settle("1", "win", NJ_W),
                settle("1.2", "win", NJ_W),
            ]
        ),
    ),
    # 0-3 TH 6C 9D TS (19 against 16), 4 stand, 5 paid before the dealer drew, 6 reveal, 7 dealer 8H (24)
    fires(
        EARLY,
        "a standing 19 paid before the dealer drew",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "6C"),
                deal("1", "9D"),
                deal("dealer", "TS", "down"),
                stand("1"),
                settle("1", "win", NJ_W),
                reveal("dealer", "TS"),
                deal("dealer", "8H"),
            ]
        ),
        "settled_early",
        want(EARLY, 5, "1", EARLY_EXPECTED, "settled at event 5, dealer's hand complete at event 7"),
    ),
    quiet(
        EARLY,
        "a standing 19 paid after the dealer busted",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "6C"),
                deal("1", "9D"),
                deal("dealer", "TS", "down"),
                stand("1"),
                reveal("dealer", "TS"),
                deal("dealer", "8H"),
                settle("1", "win", NJ_W),
            ]
        ),
    ),
    # The hole card dealt first: 0 1<-9H, 1 D<-7C down, 2 1<-8D, 3 D<-AS up. The up card is the ace.
    quiet(
        "uncited:insurance",
        "hole card dealt first, insurance against the ace dealt face up second",
        nj(
            [
                deal("1", "9H"),
                deal("dealer", "7C", "down"),
                deal("1", "8D"),
                deal("dealer", "AS"),
                insurance(1, NJ_W // 2),
                peek(False),
                settle_insurance(1, "lose", NJ_W // 2),
                stand("1"),
                reveal("dealer", "7C"),
                settle("1", "lose", NJ_W),
            ]
        ),
    ),
    quiet(
        "uncited:even-money",
        "hole card dealt first, even money against the ace dealt face up second",
        nj(
            [
                deal("1", "AH"),
                deal("dealer", "5C", "down"),
                deal("1", "KD"),
                deal("dealer", "AS"),
                even_money(1, NJ_W),
                peek(False),
                reveal("dealer", "5C"),
            ]
        ),
    ),
    quiet(
        "13:69F-2.12(b)1",
        "hole card dealt first; the dealer draws to 18",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "6C", "down"),
                deal("1", "8D"),
                deal("dealer", "TS"),
                peek(False),
                stand("1"),
                reveal("dealer", "6C"),
                deal("dealer", "2H"),
                settle("1", "push", 0),
            ]
        ),
    ),
    # A box's second card dealt after a peek that found the dealer's blackjack: 0 AH, 1 AS, 2 KC down, 3 peek, 4 KD
    # is a card after the blackjack was known (spec 2.1), and the hand is settled by what it held then - one ace,
    # which loses: 6 collecting the wager is right.
    fires(
        DBJ,
        "box's second card after the peek found the dealer's blackjack",
        nj(
            [
                deal("1", "AH"),
                deal("dealer", "AS"),
                deal("dealer", "KC", "down"),
                peek(True),
                deal("1", "KD"),
                reveal("dealer", "KC"),
                settle("1", "lose", NJ_W),
            ]
        ),
        "play_after_dealer_bj",
        want(DBJ, 4, "1", DBJ_EXPECTED, "KD was dealt to hand 1"),
    ),
    # A hand settled early and then split: 0-3 8H 9C 8D 7S, 4 stand, 5 the 16 collected before the dealer played
    # (it held 8H+8D then, though the split took the 8D away later), 6 a split of the settled hand; the split is
    # carried out, so hand 1 waits for its second card when 8 the dealer draws, and 1.2 is never settled.
    fires(
        EARLY,
        "a hand settled early and then split is judged as it stood when settled",
        nj(
            [
                deal("1", "8H"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                deal("dealer", "7S", "down"),
                stand("1"),
                settle("1", "lose", NJ_W),
                split("1", NJ_W),
                reveal("dealer", "7S"),
                deal("dealer", "4H"),
            ]
        ),
        "settled_early",
        want(EARLY, 5, "1", EARLY_EXPECTED, "settled at event 5, dealer's hand complete at event 8"),
        want(DECISION, 6, "1", "no decision on a complete hand", "split"),
        want("13:69F-2.11(b)", 8, "1", "next card to 1", "card to the dealer"),
        want("uncited:missing-settlement", None, "1.2", None, 0),
    ),
    # Even money on a blackjack against an ace, then a split of the settled box: the even money was paid on AH+KD
    # (allowed); the split is the fault (the two cards are not a pair), and what follows it is reported as it is.
    fires(
        "13:69F-2.11(a)",
        "even money on a blackjack is judged by the cards held when paid, not after a later split",
        nj(
            [
                deal("1", "AH"),
                deal("dealer", "AS"),
                deal("1", "KD"),
                deal("dealer", "6C", "down"),
                even_money(1, NJ_W),
                peek(False),
                split("1", NJ_W),
                reveal("dealer", "6C"),
                deal("dealer", "TC"),
            ]
        ),
        "split_pair",
        want("13:69F-2.11(a)", 6, "1", "two cards of identical value", "AH+KD"),
        want("13:69F-2.11(b)", 8, "1", "next card to 1", "card to the dealer"),
        want("13:69F-2.12(b)1", 8, "dealer", "stand on soft 17", "drew TC"),
        want("uncited:missing-settlement", None, "1.2", None, 0),
    ),
    # The box held one card when the peek found the dealer's blackjack (0 8H, 1 AS, 2 KC down, 3 peek, 4 8D after
    # it): one card is no blackjack, so the box lost its wager to the dealer's; 6 returning it is wrong by the wager.
    fires(
        "uncited:settlement-outcome",
        "a box with one card when the dealer's blackjack was known loses to it",
        nj(
            [
                deal("1", "8H"),
                deal("dealer", "AS"),
                deal("dealer", "KC", "down"),
                peek(True),
                deal("1", "8D"),
                reveal("dealer", "KC"),
                settle("1", "push", 0),
            ]
        ),
        "lower_total",
        want(DBJ, 4, "1", DBJ_EXPECTED, "8D was dealt to hand 1"),
        want("uncited:settlement-outcome", 6, "1", -NJ_W, 0, -NJ_W),
    ),
    # ... and split after it (5), its two hands collected (10, 11): only the original wager was at stake, so the box
    # was owed back one wager (the split and the cards after it are play after the blackjack, and do not count).
    fires(
        "uncited:lose-collects-stake",
        "a box with one card when the dealer's blackjack was known, split after it, collected twice",
        nj(
            [
                deal("1", "8H"),
                deal("dealer", "AS"),
                deal("dealer", "KC", "down"),
                peek(True),
                deal("1", "8D"),
                split("1", NJ_W),
                deal("1", "3C"),
                deal("1.2", "4C"),
                reveal("dealer", "KC"),
                settle("1", "lose", NJ_W),
                settle("1.2", "lose", NJ_W),
            ]
        ),
        "lose_amount",
        want(DBJ, 4, "1", DBJ_EXPECTED, "8D was dealt to hand 1"),
        want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 split"),
        want("uncited:lose-collects-stake", 10, "1", -NJ_W, -2 * NJ_W, NJ_W),
    ),
    # The same with an ace before the peek and a king after it (4): the box held one ace when the blackjack was
    # known, not a blackjack of its own, so it lost one wager; 9 and 10 collecting that one wager are right.
    fires(
        DBJ,
        "a box's ace before the peek and its king after it are no blackjack against the dealer's",
        nj(
            [
                deal("1", "AH"),
                deal("dealer", "AS"),
                deal("dealer", "KC", "down"),
                peek(True),
                deal("1", "KD"),
                split("1", NJ_W),
                deal("1", "3C"),
                deal("1.2", "4C"),
                reveal("dealer", "KC"),
                settle("1", "lose", NJ_W),
                settle("1.2", "push", 0),
            ]
        ),
        "play_after_dealer_bj",
        want(DBJ, 4, "1", DBJ_EXPECTED, "KD was dealt to hand 1"),
        want("13:69F-2.11(a)", 5, "1", "two cards of identical value", "AH+KD"),
    ),
]

# --- New Zealand (the dealer's second card after the players, unless a case elects a hole card) -----------------

NZ_CASES: list[Case] = [
    # A table that elects a hole card and a peek: 0-3 TH AS 6D KC, 4 peek, 5 reveal, 6 the 16 collected, 7 hit
    fires(
        DBJ,
        "hit and a card after the peek showed a blackjack and the hand was settled",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "AS"),
                deal("1", "6D"),
                deal("dealer", "KC", "down"),
                peek(True),
                reveal("dealer", "KC"),
                settle("1", "lose", NZ_W),
                hit("1"),
                deal("1", "5C"),
            ],
            dealer_second_card="initial_deal",
            peek=True,
        ),
        "play_after_dealer_bj",
        want(DBJ, 7, "1", DBJ_EXPECTED, "hand 1 hit"),
    ),
    quiet(
        DBJ,
        "the peek shows a blackjack; the hand is settled and nothing follows",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "AS"),
                deal("1", "6D"),
                deal("dealer", "KC", "down"),
                peek(True),
                reveal("dealer", "KC"),
                settle("1", "lose", NZ_W),
            ],
            dealer_second_card="initial_deal",
            peek=True,
        ),
    ),
    # 0-2 TH 9C 8D (18), 3 stand, 4 hit (the fault), 5 its card (20), 6-7 dealer 7S 2H (18), 8 the 20 wins
    fires(
        CARD,
        "hit and a card after the hand stood",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                stand("1"),
                hit("1"),
                deal("1", "2C"),
                deal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "win", NZ_W),
            ]
        ),
        "card_to_complete_hand",
        want(CARD, 4, "1", "no further card", "hit on 18"),
    ),
    quiet(
        CARD,
        "the hand stands on 18 and pushes",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                stand("1"),
                deal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "push", 0),
            ]
        ),
    ),
    # 0-2 6H 9C 5D (11), 3 stand, 4 double (the fault), 5 KD (21), 6-7 dealer 7S 2H (18), 8 paid on both wagers
    fires(
        DECISION,
        "double after the hand stood",
        nz(
            [
                deal("1", "6H"),
                deal("dealer", "9C"),
                deal("1", "5D"),
                stand("1"),
                double("1", NZ_W),
                deal("1", "KD"),
                deal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "win", 2 * NZ_W),
            ]
        ),
        "decision_on_complete_hand",
        want(DECISION, 4, "1", "no decision on a complete hand", "doubled down"),
    ),
    quiet(
        DECISION,
        "double on 11",
        nz(
            [
                deal("1", "6H"),
                deal("dealer", "9C"),
                deal("1", "5D"),
                double("1", NZ_W),
                deal("1", "KD"),
                deal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "win", 2 * NZ_W),
            ]
        ),
    ),
    # 0 1<-TH, 1 2<-9C, 2 D<-7C, 3 1<-6D, 4 2<-5H; 5 a card to seat 2 (18); 6 seat 1 hits, 7 its card (18);
    # 8 dealer TS (17); 9-10 both win
    fires(
        TURN,
        "seat 2 draws, then seat 1 hits",
        nz(
            [
                deal("1", "TH"),
                deal("2", "9C"),
                deal("dealer", "7C"),
                deal("1", "6D"),
                deal("2", "5H"),
                deal("2", "4S"),
                hit("1"),
                deal("1", "2C"),
                deal("dealer", "TS"),
                settle("1", "win", NZ_W),
                settle("2", "win", NZ_W),
            ],
            seats=2,
        ),
        "play_out_of_turn",
        want(TURN, 5, "1", *order("1", "hand 2", "a hit", 6)),
    ),
    # The NZ splitting rules are not held: split hands played out of turn cite the fundamental.
    # 0-2 8H 9C 8D, 3 split, 4 hand 1's card (18), 5 hand 1.2's card (18), 6 stand on hand 1, 7 dealer 8S (17)
    fires(
        TURN,
        "the stand on the first split hand is recorded after the second hand's card",
        nz(
            [
                deal("1", "8H"),
                deal("dealer", "9C"),
                deal("1", "8D"),
                split("1", NZ_W),
                deal("1", "TH"),
                deal("1.2", "TC"),
                stand("1"),
                deal("dealer", "8S"),
                settle("1", "win", NZ_W),
                settle("1.2", "win", NZ_W),
            ]
        ),
        "split_order",
        want(TURN, 5, "1", *order("1", "hand 1.2", "a stand", 6)),
    ),
    quiet(
        TURN,
        "each box and each split hand played in turn",
        nz(
            [
                deal("1", "8H"),
                deal("2", "9C"),
                deal("dealer", "9H"),
                deal("1", "8D"),
                deal("2", "5H"),
                split("1", NZ_W),
                deal("1", "TH"),
                stand("1"),
                deal("1.2", "TC"),
                deal("2", "4S"),
                deal("dealer", "8S"),
                settle("1", "win", NZ_W),
                settle("1.2", "win", NZ_W),
                settle("2", "win", NZ_W),
            ],
            seats=2,
        ),
    ),
    # 0-2 TH 6C 9D (19), 3 stand, 4 paid before the dealer's second card, 5-6 dealer TS 8H (24)
    fires(
        EARLY,
        "a standing 19 paid before the dealer's second card",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "6C"),
                deal("1", "9D"),
                stand("1"),
                settle("1", "win", NZ_W),
                deal("dealer", "TS"),
                deal("dealer", "8H"),
            ]
        ),
        "settled_early",
        want(EARLY, 4, "1", EARLY_EXPECTED, "settled at event 4, dealer's hand complete at event 6"),
    ),
    quiet(
        EARLY,
        "a standing 19 paid after the dealer busted",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "6C"),
                deal("1", "9D"),
                stand("1"),
                deal("dealer", "TS"),
                deal("dealer", "8H"),
                settle("1", "win", NZ_W),
            ]
        ),
    ),
]
