"""Edges the rule cases had left untested (found by mutation testing), each finding stated whole, written from the
rules: surrender after a split, insurance placed in two parts, the four-hand cap with the box count unknown, a draw
on exactly 22, a second double, odd wagers' blackjack payouts, side wagers settled wrongly both ways, restitution
summed over several hands, the election of the dealer's second card, and the deck-count edges."""

from __future__ import annotations

from typing import Any

from tests.builders import (
    a_round,
    deal,
    double,
    even_money,
    hit,
    insurance,
    reveal,
    seat,
    settle,
    settle_additional,
    settle_insurance,
    split,
    stand,
)
from tests.rules.case import Case, fires, quiet, want

W = 2500


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    return a_round("US-NJ", seats=seats or [seat(1, W)], events=events, extra_rules=elections)


def nz(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    return a_round("NZ", seats=seats or [seat(1, 1000)], events=events, extra_rules=elections)


def opening(p1: str, up: str, p2: str, hole: str) -> list[dict[str, Any]]:
    return [deal("1", p1), deal("dealer", up), deal("1", p2), deal("dealer", hole, "down")]


NJ_CASES: list[Case] = [
    # 0-3 8H 9C 8D 8S (17), 4 split, 5 hand 1's card (18), 6 hand 1 surrenders: not on a box's first two cards
    # before any other decision (uncited:surrender); 7 half collected, as a surrender is; 8-10 hand 1.2 wins.
    fires(
        "uncited:surrender",
        "surrender after the box split",
        nj(
            [
                *opening("8H", "9C", "8D", "8S"),
                split("1", W),
                deal("1", "TH"),
                {"type": "surrender", "hand": "1"},
                settle("1", "surrender", W // 2),
                deal("1.2", "TC"),
                reveal("dealer", "8S"),
                settle("1.2", "win", W),
            ],
            surrender="late",
        ),
        "surrender_when",
        want("uncited:surrender", 6, "1", "surrender on the first two cards", "surrender with 2 cards"),
    ),
    # 0-3 TH AS 9D 7C, 4 insurance 1000, 5 insurance 500 more: 1500 in all on a 2500 wager (at most 1250)
    fires(
        "uncited:insurance",
        "insurance placed in two parts, together over half the wager",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                insurance(1, 1000),
                insurance(1, 500),
                {"type": "peek", "dealer_blackjack": False},
                settle_insurance(1, "lose", 1500),
                stand("1"),
                reveal("dealer", "7C"),
                settle("1", "win", W),
            ]
        ),
        "insurance_amount",
        want("uncited:insurance", 5, "1", "at most 1250", 1500),
    ),
    quiet(
        "uncited:insurance",
        "insurance placed in two parts, together exactly half the wager",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                insurance(1, 1000),
                insurance(1, 250),
                {"type": "peek", "dealer_blackjack": False},
                settle_insurance(1, "lose", 1250),
                stand("1"),
                reveal("dealer", "7C"),
                settle("1", "win", W),
            ]
        ),
    ),
    # Resplitting offered, the box count not recorded: every table's cap of four hands (2.11(e)) still binds.
    # 4, 6, 8 splits to four hands; 10 a fifth hand.
    fires(
        "13:69F-2.11(e)",
        "a fifth hand where the box count is unknown",
        nj(
            [
                *opening("8H", "9C", "8D", "7S"),
                split("1", W),
                deal("1", "8C"),
                split("1", W),
                deal("1", "8S"),
                split("1", W),
                deal("1", "8H"),
                split("1", W),  # 10
                deal("1", "TH"),
                deal("1.2", "TD"),
                deal("1.3", "TC"),
                deal("1.4", "TS"),
                deal("1.5", "9H"),
                reveal("dealer", "7S"),
                deal("dealer", "6H"),  # 22
                *(settle(h, "win", W) for h in ("1", "1.2", "1.3", "1.4", "1.5")),
            ],
            resplit=True,
        ),
        "resplit_limit",
        want("13:69F-2.11(e)", 10, "1", "at most 4 hands", "5 hands"),
    ),
    # 0-3 TH 6C 2D TS, 4 hit, 5 QD (22, busted), 6 another card (the fault), 7 collected, 8 reveal (every hand
    # decided, the dealer stops on 16)
    fires(
        "13:69F-2.12(a)",
        "card dealt to a hand busted at exactly 22",
        nj(
            [
                *opening("TH", "6C", "2D", "TS"),
                hit("1"),
                deal("1", "QD"),
                deal("1", "3C"),
                settle("1", "lose", W),
                reveal("dealer", "TS"),
            ]
        ),
        "hit_over_21",
        want("13:69F-2.12(a)", 6, "1", "draws only below 21", "drew 3C on 22"),
    ),
    # 0-3 6H 9C 5D 7S, 4 double, 5 a second double before the card: a hand doubles once, and never for more than
    # its wager in all (both 19:47-2.10(a)); 6 its one card, 7 reveal (16), 8 dealer 2H (18), 9 21 wins all 7500
    fires(
        "19:47-2.10(a)",
        "a hand doubled twice",
        nj(
            [
                *opening("6H", "9C", "5D", "7S"),
                double("1", W),
                double("1", W),
                deal("1", "KD"),
                reveal("dealer", "7S"),
                deal("dealer", "2H"),
                settle("1", "win", 3 * W),
            ]
        ),
        "double_when",
        want("19:47-2.10(a)", 5, "1", "one double per hand", "second double"),
        want("19:47-2.10(a)", 5, "1", "1..2500", 2500),
    ),
    # Blackjack payouts on odd wagers: 3 to 2 of 2501 is 3751.5, 6 to 5 of 1001 is 1201.2; either rounding is paid.
    quiet(
        "uncited:blackjack-odds",
        "blackjack on an odd wager paid 3 to 2 rounded down",
        nj(
            [*opening("AH", "9C", "KD", "8S"), reveal("dealer", "8S"), settle("1", "win", 3751)],
            seats=[seat(1, 2501)],
        ),
    ),
    # Spec 2.2: odds that do not come out in whole chips are rounded down (min_chip 1 when not elected); paying
    # the larger amount overpays.
    fires(
        "uncited:blackjack-odds",
        "blackjack on an odd wager paid 3 to 2 rounded up",
        nj(
            [*opening("AH", "9C", "KD", "8S"), reveal("dealer", "8S"), settle("1", "win", 3752)],
            seats=[seat(1, 2501)],
        ),
        "bj_odds",
        want("uncited:blackjack-odds", 5, "1", 3751, 3752, -1),
    ),
    fires(
        "uncited:blackjack-odds",
        "blackjack on an odd wager paid short",
        nj(
            [*opening("AH", "9C", "KD", "8S"), reveal("dealer", "8S"), settle("1", "win", 3750)],
            seats=[seat(1, 2501)],
        ),
        "bj_odds",
        want("uncited:blackjack-odds", 5, "1", 3751, 3750, 1),
    ),
    fires(
        "uncited:blackjack-odds",
        "blackjack on an odd wager at a 6 to 5 table paid rounded up",
        nj(
            [*opening("AH", "9C", "KD", "8S"), reveal("dealer", "8S"), settle("1", "win", 1202)],
            seats=[seat(1, 1001)],
            blackjack_pays="6:5",
            dealer_soft_17="hit",
        ),
        "bj_odds",
        want("uncited:blackjack-odds", 5, "1", 1201, 1202, -1),
    ),
    quiet(
        "uncited:blackjack-odds",
        "blackjack on an odd wager at a 6 to 5 table paid rounded down",
        nj(
            [*opening("AH", "9C", "KD", "8S"), reveal("dealer", "8S"), settle("1", "win", 1201)],
            seats=[seat(1, 1001)],
            blackjack_pays="6:5",
            dealer_soft_17="hit",
        ),
    ),
    fires(
        "uncited:blackjack-odds",
        "blackjack on an odd wager at a 6 to 5 table paid 3 to 2",
        nj(
            [*opening("AH", "9C", "KD", "8S"), reveal("dealer", "8S"), settle("1", "win", 1501)],
            seats=[seat(1, 1001)],
            blackjack_pays="6:5",
            dealer_soft_17="hit",
        ),
        "bj_odds",
        want("uncited:blackjack-odds", 5, "1", 1201, 1501, -300),
    ),
    # Side wagers (13:69F-2.17): two hearts win the same-suit wager; returning it as a push is the wrong outcome. A
    # losing one collects its $1.00 stake, no more.
    fires(
        "13:69F-2.17(b)",
        "a winning same-suit wager returned as a push",
        nj(
            [
                *opening("5H", "9C", "6H", "8S"),
                settle_additional(1, "push", 0),
                deal("1", "TD"),
                reveal("dealer", "8S"),
                settle("1", "win", W),
            ],
            seats=[seat(1, W, ("same_suit", 100))],
            additional_wager="same_suit",
        ),
        "additional_outcome",
        want("13:69F-2.17(b)", 4, "1", 0, 0, 0),
    ),
    fires(
        "uncited:lose-collects-stake",
        "a losing same-suit wager collected twice over",
        nj(
            [
                *opening("5H", "9C", "6D", "8S"),
                settle_additional(1, "lose", 200),
                deal("1", "TD"),
                reveal("dealer", "8S"),
                settle("1", "win", W),
            ],
            seats=[seat(1, W, ("same_suit", 100))],
            additional_wager="same_suit",
        ),
        "lose_amount",
        want("uncited:lose-collects-stake", 4, "1", -100, -200, 100),
    ),
    # The dealer draws on a hard 17 and busts; the two boxes, 16 and 17, are paid against the bust. Had the dealer
    # stood, the 16 would have lost and the 17 pushed: the players owe 5000 + 2500 back (2.12(b)1).
    fires(
        "13:69F-2.12(b)1",
        "a wrong dealer draw: restitution summed over two boxes",
        nj(
            [
                deal("1", "TH"),
                deal("2", "TC"),
                deal("dealer", "TD"),
                deal("1", "6D"),
                deal("2", "7H"),
                deal("dealer", "7S", "down"),
                reveal("dealer", "7S"),
                deal("dealer", "5H"),  # 7: drawn on hard 17
                settle("1", "win", W),
                settle("2", "win", W),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
        "draw_s17",
        # Spec 2.2: the draw carries no money; each settlement, judged against the dealer's 17, owes its part
        # (16 loses to it, 17 pushes), -7,500 in all.
        want("13:69F-2.12(b)1", 7, "dealer", "stand on hard 17", "drew 5H"),
        want("uncited:settlement-outcome", 8, "1", -W, W, -2 * W),
        want("uncited:settlement-outcome", 9, "2", 0, W, -W),
    ),
    # The election of the dealer's second card decides whether a face-up second card dealt with the players' is
    # part of the initial deal (a hole card the table system reads face up) or the dealer's play begun early.
    quiet(
        "uncited:insurance",
        "second card dealt face up in a hole-card game; insurance after it",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "AS"),
                deal("1", "9D"),
                deal("dealer", "7C"),
                insurance(1, 1250),
                settle_insurance(1, "lose", 1250),
                stand("1"),
                settle("1", "win", W),
            ],
            dealer_second_card="initial_deal",
            peek=False,
        ),
    ),
    fires(
        "uncited:insurance",
        "second card dealt face up at a table that deals it after the players; insurance after it",
        nj(
            [
                deal("1", "TH"),
                deal("dealer", "AS"),
                deal("1", "9D"),
                deal("dealer", "7C"),  # 3: the dealer's play, begun before the players'
                insurance(1, 1250),
                settle_insurance(1, "lose", 1250),
                stand("1"),
                settle("1", "win", W),
            ],
            dealer_second_card="after_players",
            peek=False,
        ),
        "insurance_timing",
        want(
            "uncited:play-out-of-turn",
            3,
            "1",
            "hand 1 completed before any card to the dealer",
            "card to the dealer, then a stand on hand 1 at event 6",
        ),
        want("uncited:insurance", 4, "1", "before event 3", "event 4"),
    ),
    # 13:69F-2.2(a)1 and (a)3: one or two decks when dealt from the hand; at least four with the seven wager.
    fires(
        "13:69F-2.2(a)1",
        "a hand-dealt game with three decks",
        nj(
            [*opening("TH", "9C", "9D", "8S"), stand("1"), reveal("dealer", "8S"), settle("1", "win", W)],
            dealt_from="hand",
            decks=3,
        ),
        "elect_decks_hand_dealt",
        want("13:69F-2.2(a)1", None, None, "1 or 2 decks", 3),
    ),
    fires(
        "13:69F-2.2(a)3",
        "the seven wager with three decks",
        nj(
            [*opening("TH", "9C", "9D", "8S"), stand("1"), reveal("dealer", "8S"), settle("1", "win", W)],
            additional_wager="seven",
            decks=3,
        ),
        "elect_decks_seven",
        want("13:69F-2.2(a)3", None, None, "at least 4 decks", 3),
    ),
    quiet(
        "13:69F-2.2(a)3",
        "the seven wager with four decks",
        nj(
            [*opening("TH", "9C", "9D", "8S"), stand("1"), reveal("dealer", "8S"), settle("1", "win", W)],
            additional_wager="seven",
            decks=4,
        ),
    ),
    # The state of play's edges: a hand's blackjack is its natural, whatever was recorded after it; the dealer's up
    # card is the first dealt face up, and there may be none.
    # 0-3 AH 9C KD 7S(down), 4 a double on the blackjack (refused by 19:47-2.10(a)); the double is void, so the hand
    # is owed no card and is judged as the blackjack it is: 6 paid 3 to 2 on the original wager is right.
    fires(
        "19:47-2.10(a)",
        "a double on a blackjack is void: owed no card, paid as the blackjack",
        nj(
            [
                *opening("AH", "9C", "KD", "7S"),
                double("1", W),
                reveal("dealer", "7S"),
                settle("1", "win", 3750),
            ]
        ),
        "double_when",
        want("19:47-2.10(a)", 4, "1", "no double on blackjack or 21", "double on AH+KD"),
    ),
    # ... and paid 1 to 1 it is short by half the wager, as any blackjack paid even would be.
    fires(
        "uncited:blackjack-odds",
        "the blackjack under a void double paid 1 to 1",
        nj([*opening("AH", "9C", "KD", "7S"), double("1", W), reveal("dealer", "7S"), settle("1", "win", W)]),
        "bj_odds",
        want("19:47-2.10(a)", 4, "1", "no double on blackjack or 21", "double on AH+KD"),
        want("uncited:blackjack-odds", 6, "1", 3750, W, 1250),
    ),
    # 0-2 AH AC KD: the dealer shows an ace and never takes a second card, but the box's blackjack waits on it (a
    # dealer blackjack would push it): the dealer must complete its hand (13:69F-2.12(b)1).
    fires(
        "13:69F-2.12(b)1",
        "dealer stops on a single ace while a blackjack waits on its second card",
        nj([deal("1", "AH"), deal("dealer", "AC"), deal("1", "KD"), settle("1", "win", 3750)]),
        "draw_s17",
        # (the blackjack was paid before the dealer's second card, which decides it: spec 2.1)
        want(
            "uncited:settled-before-dealer-complete",
            3,
            "1",
            "settled once the dealer's second card is known",
            "settled at event 3",
        ),
        want(
            "13:69F-2.12(b)1", None, "dealer", "a second card, to decide the blackjack", "stood on one card"
        ),
    ),
    # 0-3 6H 5D (down dealer cards: none) - the dealer is never dealt; 2 double, 3 its card face down, 4 turned up:
    # before the dealer had drawn anything (19:47-2.10(c)).
    fires(
        "19:47-2.10(c)",
        "face-down double card turned up when the dealer was never dealt",
        nj(
            [deal("1", "6H"), deal("1", "5D"), double("1", W), deal("1", "9S", "down"), reveal("1", "9S")]
            + [settle("1", "win", 2 * W)],
            double_card="face_down",
        ),
        "double_card_reveal",
        want("19:47-2.10(c)", 4, "1", "after the dealer's cards", "event 4"),
    ),
    # 0-3 9H AC(down) KD 7S(down): the dealer's cards are both face down, so there is no up card and no ace to
    # insure against; 4 insurance is refused, and the initial deal (which ends with an up card) was not complete.
    fires(
        "uncited:insurance",
        "insurance when the dealer shows no card face up",
        nj(
            [
                deal("1", "9H"),
                deal("dealer", "AC", "down"),
                deal("1", "KD"),
                deal("dealer", "7S", "down"),
                insurance(1, W // 2),
                stand("1"),
                reveal("dealer", "AC"),
                reveal("dealer", "7S"),
                settle_insurance(1, "lose", W // 2),
                settle("1", "win", W),
            ]
        ),
        "insurance_when",
        want("uncited:insurance", 4, "1", "dealer's up card an ace", None),
        want("uncited:insurance", 4, "1", "after the initial deal", "during the initial deal"),
    ),
]

NZ_CASES: list[Case] = [
    # r 3.1: six to eight decks. (Nine cannot be recorded: the format allows 1 to 8, see test_nine_decks_are_refused.)
    *(
        fires(
            "3.1",
            f"{decks} decks",
            nz(
                [
                    deal("1", "TH"),
                    deal("dealer", "9C"),
                    deal("1", "9D"),
                    stand("1"),
                    deal("dealer", "8S"),
                    settle("1", "win", 1000),
                ],
                decks=decks,
            ),
            "elect_decks",
            want("3.1", None, None, "6 to 8 decks", decks),
        )
        for decks in (4, 5)
    ),
    *(
        quiet(
            "3.1",
            f"{decks} decks",
            nz(
                [
                    deal("1", "TH"),
                    deal("dealer", "9C"),
                    deal("1", "9D"),
                    stand("1"),
                    deal("dealer", "8S"),
                    settle("1", "win", 1000),
                ],
                decks=decks,
            ),
        )
        for decks in (6, 8)
    ),
    # 0-2 AH AC KD, 3 the blackjack paid at once: before the dealer's second card (8.2), which never comes though
    # the blackjack waits on it.
    fires(
        "8.2",
        "blackjack paid at once against an ace the dealer never completes",
        nz([deal("1", "AH"), deal("dealer", "AC"), deal("1", "KD"), settle("1", "win", 1500)]),
        "bj_paid_early",
        want("8.2", 3, "1", "settle after the dealer's second card", "settled at event 3"),
        want(
            "uncited:dealer-draw",
            None,
            "dealer",
            "a second card, to decide the blackjack",
            "stood on one card",
        ),
    ),
    # ... but with even money taken (8.3) the blackjack no longer depends on the dealer: it may stop on the ace.
    quiet(
        "uncited:dealer-draw",
        "dealer stops on a single ace after the only blackjack took even money",
        nz([deal("1", "AH"), deal("dealer", "AC"), deal("1", "KD"), even_money(1, 1000)]),
    ),
]
