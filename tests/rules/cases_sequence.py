"""The state of play, as ``round-v1.md`` section 2.1 now says it (issue 19, part 1): cases written from the spec and
the regulation text before the engine implemented them, each finding stated whole.

* In a hole-card game the dealer's play begins with the ``reveal``: a reveal while a box is still to be played is
  out of turn, reported at the reveal (13:69F-2.11(b) when that box is split in New Jersey).
* At a ``peek: false`` table a blackjack against a 10-value or ace up card waits for the hole card.
* NZ 8.2: no blackjack paid "until all other cards have been dealt to the players and the dealer has received
  his/her second card".
* One check, one rule: an unpaid blackjack against a dealer's drawn 21 has one key, peek or no peek.
* A double on a two-card 21 (19:47-2.10(a)) and the card then dealt to it (13:69F-2.12(a)1) are two findings.
* A card to a split hand that stood while the box's next split hand waits for its second card is 13:69F-2.11(b).
* Resplit hands: a hand made by a resplit may be played before older split hands that wait for their second card,
  never before the hand it came from.

Where neither the spec nor an existing check fixes the wording of a finding that is not about money, ``WORDS``
stands for it; everything else (rule, event, hand, money) is stated. Event indices are spelled out beside each
round. New Jersey boxes wager 2500 on the test table (hole card, peek, stands on soft 17); New Zealand boxes 1000,
dated 1995, the dealer's second card after the players unless a case elects a hole card.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.builders import (
    a_round,
    deal,
    double,
    hit,
    peek,
    reveal,
    seat,
    settle,
    split,
    stand,
)
from tests.rules.case import WORDS, Case, Words, fires, quiet, want

NJ_W = 2500
NZ_W = 1000
NJ_BJ = NJ_W * 3 // 2  # 3750
NZ_BJ = NZ_W * 3 // 2  # 1500

TURN = "uncited:play-out-of-turn"
EARLY = "uncited:settled-before-dealer-complete"
OUTCOME = "uncited:settlement-outcome"
SPLIT_ORDER = "13:69F-2.11(b)"

Make = Callable[..., dict[str, Any]]
"""``nj`` or ``nz``: a round of the jurisdiction from its events, ``seats`` and elections."""

NZ_HOLE_CARD: dict[str, Any] = {"dealer_second_card": "initial_deal", "peek": True}
"""An NZ table that elects a hole card (and a peek)."""


def nj(events: list[dict[str, Any]], seats: int = 1, **elections: Any) -> dict[str, Any]:
    """A New Jersey round on the test table, ``seats`` boxes of 2500."""
    return a_round(
        "US-NJ", seats=[seat(n, NJ_W) for n in range(1, seats + 1)], events=events, extra_rules=elections
    )


def nz(events: list[dict[str, Any]], seats: int = 1, **elections: Any) -> dict[str, Any]:
    """A New Zealand round on the test table, ``seats`` boxes of 1000."""
    return a_round(
        "NZ", seats=[seat(n, NZ_W) for n in range(1, seats + 1)], events=events, extra_rules=elections
    )


def opening(p1: str, up: str, p2: str, hole: str) -> list[dict[str, Any]]:
    """Events 0-3 of a one-box hole-card round: player, dealer up card, player, dealer hole card face down."""
    return [deal("1", p1), deal("dealer", up), deal("1", p2), deal("dealer", hole, "down")]


def order(hand: str, where: str, what: str, at: int) -> tuple[str, str]:
    """The expected and actual of a finding of play out of turn (as the existing check words it)."""
    return (
        f"hand {hand} completed before any card to {where}",
        f"card to {where}, then {what} on hand {hand} at event {at}",
    )


def early_reveal(hand: str, what: str, at: int) -> tuple[Words, Words]:
    """The expected and actual of a finding of a reveal out of turn: the words are the engine's to choose, but they
    name the hand that was still to be played and the later decision on it that shows it."""
    return Words(f"hand {hand} completed before"), Words(f"{what} on hand {hand} at event {at}")


# --- Shapes shared by a firing case and its quiet variant ------------------------------------------------------


def reveal_then_hit(make: Make, w: int, *, early: bool, **elections: Any) -> dict[str, Any]:
    """0 1<-TH, 1 D<-9C, 2 1<-6D, 3 D<-8S down. ``early``: 4 reveal (17), 5 hit, 6 1<-4C (20); otherwise 4 hit,
    5 4C, 6 reveal. 7 the 20 beats the dealer's 17."""
    play = [hit("1"), deal("1", "4C")]
    dealer = [reveal("dealer", "8S")]
    ev = [*opening("TH", "9C", "6D", "8S"), *(dealer + play if early else play + dealer)]
    return make([*ev, settle("1", "win", w)], **elections)


def split_reveal(make: Make, w: int, *, early: bool, **elections: Any) -> dict[str, Any]:
    """0-3 8H 9C 8D 8S(down), 4 split, 5 1<-TH (18), 6 stand 1, 7 1.2<-3C (11). ``early``: 8 reveal (17), 9 hit 1.2,
    10 1.2<-9H (20); otherwise 8 hit, 9 9H, 10 reveal. 11-12 both hands beat 17."""
    play = [hit("1.2"), deal("1.2", "9H")]
    dealer = [reveal("dealer", "8S")]
    ev = [
        *opening("8H", "9C", "8D", "8S"),
        split("1", w),
        deal("1", "TH"),
        stand("1"),
        deal("1.2", "3C"),
        *(dealer + play if early else play + dealer),
        settle("1", "win", w),
        settle("1.2", "win", w),
    ]
    return make(ev, **elections)


def dealer_21(make: Make, w: int, bj: int | None, *, peek_at: bool, **elections: Any) -> dict[str, Any]:
    """Two boxes against a dealer king: box 1 a blackjack, box 2 a 20. The dealer (K+5) draws a 6: 21 in three
    cards. ``bj``: what box 1 is paid (None: pushed). With ``peek_at`` the peek (no blackjack) is recorded at 6."""
    ev = [
        deal("1", "AH"),
        deal("2", "TC"),
        deal("dealer", "KC"),
        deal("1", "KD"),
        deal("2", "QH"),
        deal("dealer", "5S", "down"),
        *([peek(False)] if peek_at else []),
        stand("2"),
        reveal("dealer", "5S"),
        deal("dealer", "6H"),
        settle("1", "win", bj) if bj is not None else settle("1", "push", 0),
        settle("2", "lose", w),
    ]
    return make(ev, seats=2, **elections)


def resplit_eights(
    make: Make, w: int, cards: tuple[str, ...], hole: bool, **elections: Any
) -> dict[str, Any]:
    """8+8 split (hands 1 and 1.2), hand 1 draws an 8 and is split again (1.3). Then ``cards``, three (hand, card)
    deals written "hand:card". Dealer 9+8: 17; every hand draws a ten (18) and wins.
    NJ (``hole``): 0-3 8H 9C 8D 8S(down), 4 split, 5 1<-8C, 6 split, 7-9 the three deals, 10 reveal, 11-13 settle.
    NZ: 0-2 8H 9C 8D, 3 split, 4 1<-8C, 5 split, 6-8 the three deals, 9 D<-8S, 10-12 settle."""
    head = (
        opening("8H", "9C", "8D", "8S") if hole else [deal("1", "8H"), deal("dealer", "9C"), deal("1", "8D")]
    )
    deals = [deal(*c.split(":")) for c in cards]
    dealer = [reveal("dealer", "8S")] if hole else [deal("dealer", "8S")]
    ev = [*head, split("1", w), deal("1", "8C"), split("1", w), *deals, *dealer]
    return make([*ev, *(settle(h, "win", w) for h in ("1", "1.2", "1.3"))], resplit=True, **elections)


# ---------------------------------------------------------------------------------------------------------------

NJ_CASES: list[Case] = [
    # --- "In a hole-card game the dealer's play begins with the reveal of the hole card: a reveal while a box is
    # still to be played is out of turn, and the finding is at the reveal (the premature event) ...; the later
    # player card or decision is not a finding of its own."
    fires(
        TURN,
        "hole card turned up, then the box hits (the dealer draws nothing)",
        reveal_then_hit(nj, NJ_W, early=True),
        "play_out_of_turn",
        want(TURN, 4, "1", *early_reveal("1", "a hit", 5)),
    ),
    quiet(TURN, "the box hits, then the hole card is turned up", reveal_then_hit(nj, NJ_W, early=False)),
    # 0 1<-TH, 1 2<-TC, 2 D<-9C, 3 1<-9D (19), 4 2<-6H (16), 5 D<-8S down, 6 stand 1, 7 reveal (17) while box 2 is
    # still to be played, 8 box 2 hits, 9 2<-3C (19), 10-11 both win
    fires(
        TURN,
        "hole card turned up while the second box is still to act",
        nj(
            [
                deal("1", "TH"),
                deal("2", "TC"),
                deal("dealer", "9C"),
                deal("1", "9D"),
                deal("2", "6H"),
                deal("dealer", "8S", "down"),
                stand("1"),
                reveal("dealer", "8S"),
                hit("2"),
                deal("2", "3C"),
                settle("1", "win", NJ_W),
                settle("2", "win", NJ_W),
            ],
            seats=2,
        ),
        "play_out_of_turn",
        want(TURN, 7, "2", *early_reveal("2", "a hit", 8)),
    ),
    # The same, but box 2 records no decision after the reveal: it stood on 16 (play moved on), and loses to 17.
    quiet(
        TURN,
        "hole card turned up after box 2's last decision (none recorded: it stood)",
        nj(
            [
                deal("1", "TH"),
                deal("2", "TC"),
                deal("dealer", "9C"),
                deal("1", "9D"),
                deal("2", "6H"),
                deal("dealer", "8S", "down"),
                stand("1"),
                reveal("dealer", "8S"),
                settle("1", "win", NJ_W),
                settle("2", "lose", NJ_W),
            ],
            seats=2,
        ),
    ),
    # "... (13:69F-2.11(b) when that box is split)": the reveal while split hand 1.2 is still being played.
    fires(
        SPLIT_ORDER,
        "hole card turned up while a split hand is still being played",
        split_reveal(nj, NJ_W, early=True),
        "split_order",
        want(SPLIT_ORDER, 8, "1.2", *early_reveal("1.2", "a hit", 9)),
    ),
    quiet(SPLIT_ORDER, "split hands played out, then the hole card", split_reveal(nj, NJ_W, early=False)),
    # --- "At a table whose elections say peek: false, a blackjack against a 10-value or ace up card depends on the
    # dealer's total (a dealer blackjack makes it a stand off) until the hole card is revealed: paying it before is
    # a finding, with the money owed if the dealer did have blackjack."
    # 0 1<-AH, 1 D<-KC, 2 1<-KD, 3 D<-7S down, 4 paid 3 to 2 before the hole card, 5 reveal (17)
    fires(
        EARLY,
        "no-peek table: blackjack against a king paid before the hole card (no dealer blackjack)",
        nj(
            [*opening("AH", "KC", "KD", "7S"), settle("1", "win", NJ_BJ), reveal("dealer", "7S")],
            peek=False,
        ),
        "settled_early",
        want(EARLY, 4, "1", WORDS, Words("settled at event 4")),
    ),
    # 0 1<-AH, 1 D<-AS, 2 1<-KD, 3 D<-7C down, 4 paid, 5 reveal (soft 18)
    fires(
        EARLY,
        "no-peek table: blackjack against an ace paid before the hole card (no dealer blackjack)",
        nj(
            [*opening("AH", "AS", "KD", "7C"), settle("1", "win", NJ_BJ), reveal("dealer", "7C")],
            peek=False,
        ),
        "settled_early",
        want(EARLY, 4, "1", WORDS, Words("settled at event 4")),
    ),
    # 0 1<-AH, 1 D<-KC, 2 1<-KD, 3 D<-AS down, 4 paid 3 to 2, 5 reveal: the dealer's blackjack made it a stand off.
    # The money is on the payout finding (the key of a blackjack against a dealer blackjack); the order finding
    # carries none.
    fires(
        EARLY,
        "no-peek table: blackjack paid before the hole card showed the dealer's blackjack",
        nj(
            [*opening("AH", "KC", "KD", "AS"), settle("1", "win", NJ_BJ), reveal("dealer", "AS")],
            peek=False,
        ),
        "settled_early",
        want("uncited:blackjack-odds", 4, "1", 0, NJ_BJ, -NJ_BJ),
        want(EARLY, 4, "1", WORDS, Words("settled at event 4")),
    ),
    quiet(
        EARLY,
        "no-peek table: blackjack against a king paid after the hole card",
        nj(
            [*opening("AH", "KC", "KD", "7S"), reveal("dealer", "7S"), settle("1", "win", NJ_BJ)],
            peek=False,
        ),
    ),
    quiet(
        EARLY,
        "no-peek table: blackjack against the dealer's blackjack pushed after the hole card",
        nj([*opening("AH", "KC", "KD", "AS"), reveal("dealer", "AS"), settle("1", "push", 0)], peek=False),
    ),
    # Against a 9 the blackjack depends on nothing: it may be paid at once at any table.
    quiet(
        EARLY,
        "no-peek table: blackjack against a 9 paid at once",
        nj(
            [*opening("AH", "9C", "KD", "8S"), settle("1", "win", NJ_BJ), reveal("dealer", "8S")],
            peek=False,
        ),
    ),
    # "At a peek: true table the peek is taken to have happened (its record is optional), so the blackjack may be
    # paid at once."
    quiet(
        EARLY,
        "peek table, no peek recorded: blackjack against a king paid at once",
        nj([*opening("AH", "KC", "KD", "7S"), settle("1", "win", NJ_BJ), reveal("dealer", "7S")]),
    ),
    # ... and so a dealer blackjack dealt in the initial deal is known at once: a hand collected against it before the
    # hole card is turned up was settled once the dealer was complete. (Regression: found by a batch of generated
    # rounds; the engine waited for the reveal.) 0 1<-TH, 1 D<-AS, 2 1<-7D, 3 D<-JH down, 4 the 17 collected, 5 reveal
    quiet(
        EARLY,
        "peek table, no peek recorded: a hand collected against the dealer's blackjack before the reveal",
        nj([*opening("TH", "AS", "7D", "JH"), settle("1", "lose", NJ_W), reveal("dealer", "JH")]),
    ),
    # --- "One check, one rule: the same fault is reported under the same citation or key whatever else the round
    # holds (for instance an unpaid blackjack against a dealer's drawn 21, with or without a recorded peek)."
    # 0 1<-AH, 1 2<-TC, 2 D<-KC, 3 1<-KD, 4 2<-QH, 5 D<-5S down, 6 peek (none), 7 stand 2, 8 reveal (15),
    # 9 D<-6H (21 in three cards), 10 the blackjack pushed: 3750 was due, 11 the 20 collected
    fires(
        OUTCOME,
        "blackjack pushed against the dealer's drawn 21, peek recorded",
        dealer_21(nj, NJ_W, None, peek_at=True),
        "bj_beats_21",
        want(OUTCOME, 10, "1", NJ_BJ, 0, NJ_BJ),
    ),
    # the same without the peek event: 9 the blackjack pushed
    fires(
        OUTCOME,
        "blackjack pushed against the dealer's drawn 21, no peek recorded",
        dealer_21(nj, NJ_W, None, peek_at=False),
        "bj_beats_21",
        want(OUTCOME, 9, "1", NJ_BJ, 0, NJ_BJ),
    ),
    fires(
        OUTCOME,
        "no-peek table: blackjack pushed against the dealer's drawn 21",
        dealer_21(nj, NJ_W, None, peek_at=False, peek=False),
        "bj_beats_21",
        want(OUTCOME, 9, "1", NJ_BJ, 0, NJ_BJ),
    ),
    quiet(
        OUTCOME,
        "blackjack paid 3 to 2 against the dealer's drawn 21, peek recorded",
        dealer_21(nj, NJ_W, NJ_BJ, peek_at=True),
    ),
    quiet(
        OUTCOME,
        "blackjack paid 3 to 2 against the dealer's drawn 21, no peek recorded",
        dealer_21(nj, NJ_W, NJ_BJ, peek_at=False),
    ),
    # --- A double on a two-card 21 is 19:47-2.10(a) ("shall not be permitted to double down on a blackjack or two
    # card 21") at the double; the card then dealt to the 21 is the draw 13:69F-2.12(a)1 forbids, at that card.
    # 0-3 TH 7C TD TS(down), 4 split, 5 1<-AC (21), 6 double (the fault), 7 1<-2H (a card on 21), 8 1.2<-9S (19),
    # 9 reveal (17), 10 hand 1 (T+A+2 = 13) loses both wagers, 11 the 19 wins
    fires(
        "19:47-2.10(a)",
        "double on a two-card 21 after a split, and its card",
        nj(
            [
                *opening("TH", "7C", "TD", "TS"),
                split("1", NJ_W),
                deal("1", "AC"),
                double("1", NJ_W),
                deal("1", "2H"),
                deal("1.2", "9S"),
                reveal("dealer", "TS"),
                settle("1", "lose", 2 * NJ_W),
                settle("1.2", "win", NJ_W),
            ]
        ),
        "double_on_21",
        want("19:47-2.10(a)", 6, "1", "no double on blackjack or 21", "double on TH+AC"),
        want("13:69F-2.12(a)1", 7, "1", "no card on 21", "drew 2H on 21"),
    ),
    # 0-3 AH 9C KD 8S(down), 4 double on the blackjack, 5 1<-5C (a card on 21), 6 reveal (17), 7 A+K+5 = 16 loses
    fires(
        "19:47-2.10(a)",
        "double on a blackjack, and its card",
        nj(
            [
                *opening("AH", "9C", "KD", "8S"),
                double("1", NJ_W),
                deal("1", "5C"),
                reveal("dealer", "8S"),
                settle("1", "lose", 2 * NJ_W),
            ]
        ),
        "double_on_21",
        want("19:47-2.10(a)", 4, "1", "no double on blackjack or 21", "double on AH+KD"),
        want("13:69F-2.12(a)1", 5, "1", "no card on 21", "drew 5C on 21"),
    ),
    # 0-3 TH 7C TD TS(down), 4 split, 5 1<-AC (21: it stands), 6 1.2<-9S, 7 reveal, 8 the 21 paid 1 to 1, 9 the 19
    quiet(
        "19:47-2.10(a)",
        "two-card 21 after a split stands, no double",
        nj(
            [
                *opening("TH", "7C", "TD", "TS"),
                split("1", NJ_W),
                deal("1", "AC"),
                deal("1.2", "9S"),
                reveal("dealer", "TS"),
                settle("1", "win", NJ_W),
                settle("1.2", "win", NJ_W),
            ]
        ),
    ),
    # --- "Prefer the verified citation": 13:69F-2.11(b) ("completes the player's decisions on the first incomplete
    # hand ... before dealing any card to any other hand") covers a card to a split hand that stood while the box's
    # next split hand still waits for its second card.
    # 0-3 8H 9C 8D 8S(down), 4 split, 5 1<-TH (18), 6 stand 1, 7 1<-2C (to the stood hand, 1.2 waiting), 8 1.2<-TC,
    # 9 reveal (17), 10-11 both win (hand 1 wins on 18 or 20 alike)
    fires(
        SPLIT_ORDER,
        "card to a split hand that stood while the next split hand waits for its second card",
        nj(
            [
                *opening("8H", "9C", "8D", "8S"),
                split("1", NJ_W),
                deal("1", "TH"),
                stand("1"),
                deal("1", "2C"),
                deal("1.2", "TC"),
                reveal("dealer", "8S"),
                settle("1", "win", NJ_W),
                settle("1.2", "win", NJ_W),
            ]
        ),
        "split_order",
        want(SPLIT_ORDER, 7, "1.2", "next card to 1.2", Words("to 1")),
    ),
    # 5 1<-2C (10), 6 1<-TH (20), 7 stand 1, 8 1.2<-TC (18), 9 reveal, 10-11 both win
    quiet(
        SPLIT_ORDER,
        "split hand draws, stands, then the next split hand gets its second card",
        nj(
            [
                *opening("8H", "9C", "8D", "8S"),
                split("1", NJ_W),
                deal("1", "2C"),
                deal("1", "TH"),
                stand("1"),
                deal("1.2", "TC"),
                reveal("dealer", "8S"),
                settle("1", "win", NJ_W),
                settle("1.2", "win", NJ_W),
            ]
        ),
    ),
    # --- "A hand made by a resplit may be played as soon as the hand it came from is complete, before older hands
    # that still wait for their second card ... So after 2 is split (2, 2.2) and 2 is split again (2.3), both 2,
    # 2.3, 2.2 and 2, 2.2, 2.3 are in turn; 2.2 before 2 is not, nor 2.3 before 2." (Here the box is seat 1.)
    quiet(
        SPLIT_ORDER,
        "resplit hands played 1, 1.3, 1.2",
        resplit_eights(nj, NJ_W, ("1:TH", "1.3:TD", "1.2:TC"), True, boxes=6),
    ),
    quiet(
        SPLIT_ORDER,
        "resplit hands played 1, 1.2, 1.3",
        resplit_eights(nj, NJ_W, ("1:TH", "1.2:TC", "1.3:TD"), True, boxes=6),
    ),
    # 7 a card to 1.2 while hand 1 (one card after the resplit) waits for its second
    fires(
        SPLIT_ORDER,
        "resplit: hand 1.2 played before hand 1",
        resplit_eights(nj, NJ_W, ("1.2:TC", "1:TH", "1.3:TD"), True, boxes=6),
        "split_order",
        want(SPLIT_ORDER, 7, "1", "next card to 1", "card to 1.2"),
    ),
    # 7 a card to 1.3 before the hand it came from (1) has its second card
    fires(
        SPLIT_ORDER,
        "resplit: hand 1.3 played before hand 1, the hand it came from",
        resplit_eights(nj, NJ_W, ("1.3:TD", "1:TH", "1.2:TC"), True, boxes=6),
        "split_order",
        want(SPLIT_ORDER, 7, "1", "next card to 1", "card to 1.3"),
    ),
]

NZ_CASES: list[Case] = [
    # --- The reveal out of turn, at an NZ table that elects a hole card (the same events as New Jersey's).
    fires(
        TURN,
        "hole-card table: hole card turned up, then the box hits",
        reveal_then_hit(nz, NZ_W, early=True, **NZ_HOLE_CARD),
        "play_out_of_turn",
        want(TURN, 4, "1", *early_reveal("1", "a hit", 5)),
    ),
    quiet(
        TURN,
        "hole-card table: the box hits, then the hole card is turned up",
        reveal_then_hit(nz, NZ_W, early=False, **NZ_HOLE_CARD),
    ),
    # NZ holds no splitting order provision: the fundamental is cited for split hands too.
    fires(
        TURN,
        "hole-card table: hole card turned up while a split hand is still being played",
        split_reveal(nz, NZ_W, early=True, **NZ_HOLE_CARD),
        "split_order",
        want(TURN, 8, "1.2", *early_reveal("1.2", "a hit", 9)),
    ),
    quiet(
        TURN,
        "hole-card table: split hands played out, then the hole card",
        split_reveal(nz, NZ_W, early=False, **NZ_HOLE_CARD),
    ),
    # --- 8.2: "...no payment ... until all other cards have been dealt to the players and the dealer has received
    # his/her second card". 0 1<-AS, 1 2<-TC, 2 D<-KH, 3 1<-QD, 4 2<-6H (16), 5 D<-7C (the dealer's second card
    # while box 2 is still to play: out of turn), 6 the blackjack paid 3 to 2, 7 box 2 hits, 8 2<-4S (a player card
    # after the payment), 9 the 20 beats the dealer's 17
    fires(
        "8.2",
        "blackjack paid after the dealer's second card but before another box took its cards",
        nz(
            [
                deal("1", "AS"),
                deal("2", "TC"),
                deal("dealer", "KH"),
                deal("1", "QD"),
                deal("2", "6H"),
                deal("dealer", "7C"),
                settle("1", "win", NZ_BJ),
                hit("2"),
                deal("2", "4S"),
                settle("2", "win", NZ_W),
            ],
            seats=2,
        ),
        "bj_paid_early",
        want(TURN, 5, "2", *order("2", "the dealer", "a hit", 7)),
        want("8.2", 6, "1", WORDS, Words("settled at event 6")),
    ),
    # 5 box 2 hits, 6 2<-4S, 7 D<-7C, 8 the blackjack paid, 9 the 20
    quiet(
        "8.2",
        "blackjack paid after every box's cards and the dealer's second card",
        nz(
            [
                deal("1", "AS"),
                deal("2", "TC"),
                deal("dealer", "KH"),
                deal("1", "QD"),
                deal("2", "6H"),
                hit("2"),
                deal("2", "4S"),
                deal("dealer", "7C"),
                settle("1", "win", NZ_BJ),
                settle("2", "win", NZ_W),
            ],
            seats=2,
        ),
    ),
    # --- One check, one rule: 4.1(c), "a player's blackjack beats a dealer's 21 made with more than two cards".
    # 0 1<-AS, 1 2<-TC, 2 D<-KD, 3 1<-KH, 4 2<-QH, 5 stand 2, 6 D<-5C, 7 D<-6H (21), 8 the blackjack pushed,
    # 9 the 20 collected
    fires(
        "4.1(c)",
        "blackjack pushed against the dealer's drawn 21 (dealer king, no hole card)",
        nz(
            [
                deal("1", "AS"),
                deal("2", "TC"),
                deal("dealer", "KD"),
                deal("1", "KH"),
                deal("2", "QH"),
                stand("2"),
                deal("dealer", "5C"),
                deal("dealer", "6H"),
                settle("1", "push", 0),
                settle("2", "lose", NZ_W),
            ],
            seats=2,
        ),
        "bj_beats_21",
        want("4.1(c)", 8, "1", NZ_BJ, 0, NZ_BJ),
    ),
    # A hole-card table, peek recorded: 5 D<-5C down, 6 peek, 7 stand 2, 8 reveal, 9 D<-6H, 10 pushed, 11 collected
    fires(
        "4.1(c)",
        "hole-card table: blackjack pushed against the dealer's drawn 21, peek recorded",
        dealer_21(nz, NZ_W, None, peek_at=True, **NZ_HOLE_CARD),
        "bj_beats_21",
        want("4.1(c)", 10, "1", NZ_BJ, 0, NZ_BJ),
    ),
    quiet(
        "4.1(c)",
        "blackjack paid 3 to 2 against the dealer's drawn 21 (dealer king, no hole card)",
        nz(
            [
                deal("1", "AS"),
                deal("2", "TC"),
                deal("dealer", "KD"),
                deal("1", "KH"),
                deal("2", "QH"),
                stand("2"),
                deal("dealer", "5C"),
                deal("dealer", "6H"),
                settle("1", "win", NZ_BJ),
                settle("2", "lose", NZ_W),
            ],
            seats=2,
        ),
    ),
    quiet(
        "4.1(c)",
        "hole-card table: blackjack paid 3 to 2 against the dealer's drawn 21, peek recorded",
        dealer_21(nz, NZ_W, NZ_BJ, peek_at=True, **NZ_HOLE_CARD),
    ),
    # --- Resplit order (NZ cites the fundamental). 0-2 8H 9C 8D, 3 split, 4 1<-8C, 5 split, 6-8 deals, 9 D<-8S.
    quiet(
        TURN,
        "resplit hands played 1, 1.3, 1.2",
        resplit_eights(nz, NZ_W, ("1:TH", "1.3:TD", "1.2:TC"), False),
    ),
    quiet(
        TURN,
        "resplit hands played 1, 1.2, 1.3",
        resplit_eights(nz, NZ_W, ("1:TH", "1.2:TC", "1.3:TD"), False),
    ),
    fires(
        TURN,
        "resplit: hand 1.2 played before hand 1",
        resplit_eights(nz, NZ_W, ("1.2:TC", "1:TH", "1.3:TD"), False),
        "split_order",
        want(TURN, 6, "1", "next card to 1", "card to 1.2"),
    ),
    fires(
        TURN,
        "resplit: hand 1.3 played before hand 1, the hand it came from",
        resplit_eights(nz, NZ_W, ("1.3:TD", "1:TH", "1.2:TC"), False),
        "split_order",
        want(TURN, 6, "1", "next card to 1", "card to 1.3"),
    ),
]
