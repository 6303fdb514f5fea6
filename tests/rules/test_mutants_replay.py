"""The replay's own bookkeeping (app/domain/replay.py), pinned by whole rounds where mutation testing found it
unpinned: the record contradictions and what the replay reads past them, face-down player cards (a hand-dealt
game) through a split and their reveals, the dealer's hole card dealt first, when the dealer's hand is
complete (settlements judged as they arrive, or reported as made before the dealer was complete), the first
card after the initial deal (13:69F-2.17(d)), the order of play (a card to a later seat, to the dealer, while
a split hand waits) and what a decision after the dealer's blackjack is.

Every expectation is written from ``round-v1.md`` section 2.1, ``docs/engine.md`` and the regulation notes,
not from the engine's output. Event indices are spelled out beside each round. New Jersey boxes wager 2500,
New Zealand boxes 1000.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import (
    a_round,
    audit,
    deal,
    double,
    even_money,
    hit,
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
from tests.rules.case import Want, got, want

W = 2500
NZ_W = 1000

RECORD = "record"
CARD = "uncited:card-to-complete-hand"
CARD_EXPECTED = "no further card"
DECISION = "uncited:decision-on-complete-hand"
DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
TURN = "uncited:play-out-of-turn"
SPLIT_ORDER = "13:69F-2.11(b)"
EARLY = "uncited:settled-before-dealer-complete"
EARLY_EXPECTED = "settled after the dealer's hand is complete"
OUTCOME = "uncited:settlement-outcome"
SURRENDER = "uncited:surrender"


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """A New Jersey round on the test table (hole card dealt with the players', peek, stands on soft 17)."""
    return a_round("US-NJ", seats=seats or [seat(1, W)], events=events, extra_rules=elections)


def nz(events: list[dict[str, Any]], **elections: Any) -> dict[str, Any]:
    """A New Zealand round on the test table (the dealer's second card after the players', stands on soft
    17)."""
    return a_round("NZ", seats=[seat(1, NZ_W)], events=events, extra_rules=elections)


def findings(r: dict[str, Any]) -> list[Want]:
    return [got(f) for f in audit(r)["findings"]]


def turn(hand: str, went: str, what: str, at: int) -> tuple[str, str]:
    """expected, actual of an out-of-turn finding, ``went`` where the card went ("hand 2", "the dealer")."""
    return (
        f"hand {hand} completed before any card to {went}",
        f"card to {went}, then {what} on hand {hand} at event {at}",
    )


# --- Record contradictions: the event and the hand named, the peek's expected and actual, and the replay
# reads on.


def test_an_insurance_settlement_for_a_seat_without_a_wager_is_listed_and_the_replay_reads_on() -> None:
    # 0-3 TH 9C 8D 7S, 4 settles insurance for seat 5, which placed no wager (a contradiction); 5-7 play on; 8
    # a card to seat 9, which placed none either: both are listed, each at its event, naming the seat.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            settle_insurance(5, "lose", 1000),
            stand("1"),
            reveal("dealer", "7S"),
            settle("1", "win", W),
            deal("9", "2C"),
        ]
    )
    assert findings(r) == [want(RECORD, 4, "5", None, None), want(RECORD, 8, "9", None, None)]


def test_a_split_of_a_hand_that_does_not_exist_is_listed_and_the_replay_reads_on() -> None:
    # 4 splits hand 1.2, which seat 1 never had (a contradiction); 8 a card to seat 9, which placed no wager.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            split("1.2", W),
            stand("1"),
            reveal("dealer", "7S"),
            settle("1", "win", W),
            deal("9", "2C"),
        ]
    )
    assert findings(r) == [want(RECORD, 4, "1.2", None, None), want(RECORD, 8, "9", None, None)]


def test_a_peek_that_says_blackjack_over_a_hand_that_is_not_one_states_both() -> None:
    # 0-3 TH 9C 8D 7S: the dealer holds 9C 7S; 4 a peek reports a dealer blackjack. The record contradicts
    # itself at 4: by the cards no blackjack (expected False), the record says one (actual True).
    r = nj([deal("1", "TH"), deal("dealer", "9C"), deal("1", "8D"), deal("dealer", "7S", "down"), peek(True)])
    assert findings(r) == [want(RECORD, 4, "dealer", False, True)]


def test_a_peek_reads_only_the_dealers_first_two_cards() -> None:
    # 0-3 TH AS 9D KD: the dealer's first two cards are a blackjack; 4 the dealer draws 5C on it
    # (13:69F-2.12(b)1, established before the contradiction); 5 a peek reports no blackjack, which the first
    # two cards contradict (expected True, actual False), however many cards the dealer holds by then. Nothing
    # after it is claimed.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AS"),
            deal("1", "9D"),
            deal("dealer", "KD", "down"),
            deal("dealer", "5C"),
            peek(False),
            stand("1"),
            settle("1", "lose", W),
        ]
    )
    assert findings(r) == [
        want("13:69F-2.12(b)1", 4, "dealer", "stand on blackjack", "drew 5C"),
        want(RECORD, 5, "dealer", True, False),
    ]


# --- Face-down player cards (a hand-dealt game): each is its own card to reveal, and a split carries it
# along.


def _hand_dealt(events: list[dict[str, Any]]) -> dict[str, Any]:
    return nj(events, dealt_from="hand", decks=2)


def test_both_face_down_initial_cards_of_a_box_can_be_revealed() -> None:
    # 0 TH down, 1 9C, 2 8D down, 3 7S down; 4-5 the player turns up both its cards; 6 stands on 18; 7 reveal
    # (16), 8 the dealer draws to 18; 9 a push. Each reveal turns up a card dealt face down there: nothing to
    # report.
    r = _hand_dealt(
        [
            deal("1", "TH", "down"),
            deal("dealer", "9C"),
            deal("1", "8D", "down"),
            deal("dealer", "7S", "down"),
            reveal("1", "TH"),
            reveal("1", "8D"),
            stand("1"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
        ]
    )
    assert findings(r) == []


def test_a_face_down_card_moved_by_a_split_is_revealed_on_its_new_hand() -> None:
    # 0 8H down, 1 9C, 2 8D down, 3 7S down; 4 split (8D moves to hand 1.2, still face down); 5 TH to 1 (18),
    # 6 9S to 1.2 (17); 7 hand 1 turns up its 8H, 8 hand 1.2 its 8D; 9 reveal (16), 10 the dealer draws to 18;
    # 11 push, 12 1.2 loses. A legal round.
    r = _hand_dealt(
        [
            deal("1", "8H", "down"),
            deal("dealer", "9C"),
            deal("1", "8D", "down"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9S"),
            reveal("1", "8H"),
            reveal("1.2", "8D"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
            settle("1.2", "lose", W),
        ]
    )
    assert findings(r) == []


def test_a_face_down_first_card_stays_with_the_hand_that_was_split() -> None:
    # As above, but only the first card (8H) is face down: the split moves the face-up 8D; hand 1 turns up its
    # 8H.
    r = _hand_dealt(
        [
            deal("1", "8H", "down"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9S"),
            reveal("1", "8H"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
            settle("1.2", "lose", W),
        ]
    )
    assert findings(r) == []


# --- The dealer's initial cards.


def test_a_hole_card_dealt_before_the_up_card_belongs_to_the_initial_deal() -> None:
    # No election of the dealer's second card: a face-down card among the dealer's first two makes it a
    # hole-card game, in either order (docs/engine.md). 0 TH, 1 7S down (the hole card, dealt first), 2 9D, 3
    # TC up; 4 stand on 19, 5 reveal (17), 6 paid. The up card at 3 is not the dealer's play begun early.
    r = a_round(
        "US-NJ",
        rules={"decks": 6, "dealer_soft_17": "stand", "blackjack_pays": "3:2"},
        events=[
            deal("1", "TH"),
            deal("dealer", "7S", "down"),
            deal("1", "9D"),
            deal("dealer", "TC"),
            stand("1"),
            reveal("dealer", "7S"),
            settle("1", "win", W),
        ],
    )
    assert findings(r) == []


def test_the_dealers_second_card_before_the_players_second_is_the_dealers_play_out_of_turn() -> None:
    # NZ: the dealer's second card comes after the players'. 0 TH, 1 9C, 2 the dealer's second card 7S (its
    # play, begun while hand 1 still waits for its second card), 3 9D to hand 1 (19), 4 the dealer draws to
    # 18, 5 paid.
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("dealer", "7S"),
            deal("1", "9D"),
            deal("dealer", "2H"),
            settle("1", "win", NZ_W),
        ]
    )
    assert findings(r) == [want(TURN, 2, "1", *turn("1", "the dealer", "a card", 3))]


def test_a_card_to_a_player_after_the_dealer_began_to_play_shows_play_out_of_turn() -> None:
    # NZ: 0-2 TH 9C 2D (12), 3 the dealer's second card 8S (17: the dealer plays, hand 1 not complete), 4 a
    # card to hand 1 (17): hand 1 was still being played when the dealer's card was dealt. 5 a push (17
    # against 17).
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "2D"),
            deal("dealer", "8S"),
            deal("1", "5H"),
            settle("1", "push", 0),
        ]
    )
    assert findings(r) == [want(TURN, 3, "1", *turn("1", "the dealer", "a card", 4))]


# --- When the dealer is complete. A settlement made once the dealer's hand is complete is judged by the hand
# as it stood then: a blackjack paid 3 to 2 is right whatever is recorded on the hand afterwards (here a
# surrender, itself a finding). A settlement that depends on the dealer's total, made while the dealer still
# had to draw, is reported and judged against the dealer's final hand.


@pytest.mark.parametrize(
    ("dealer", "elections", "second"),
    [
        (["7C", "AS"], {}, settle("2", "push", 0)),  # soft 18
        (
            ["TC", "7S"],
            {"dealer_soft_17": "hit"},
            settle("2", "win", W),
        ),  # hard 17: a hit-soft-17 dealer stands
        (["6C", "AS"], {}, settle("2", "win", W)),  # soft 17, standing on soft 17
        (["5C", "5D", "AS"], {}, settle("2", "lose", W)),  # 21 in three cards, with an ace
    ],
    ids=["soft 18", "hard 17 (hits soft 17)", "soft 17 (stands on soft 17)", "three-card soft 21"],
)
def test_a_blackjack_paid_once_the_dealer_is_complete_is_judged_as_it_stood(
    dealer: list[str], elections: dict[str, Any], second: dict[str, Any]
) -> None:
    # Seat 1 AH KD (blackjack), seat 2 TC 8D (18). 0-5 the initial deal, 6 stand 2, 7 reveal, (8 the dealer's
    # draw, if any: seat 2's 18 is live), then seat 1's blackjack paid 3 to 2 (correct), a surrender of that
    # settled hand (uncited:surrender, at that event), and seat 2 settled against the dealer's total.
    up, hole, *drawn = dealer
    events = [deal("1", "AH"), deal("2", "TC"), deal("dealer", up), deal("1", "KD"), deal("2", "8D")]
    events += [
        deal("dealer", hole, "down"),
        stand("2"),
        reveal("dealer", hole),
        *(deal("dealer", c) for c in drawn),
    ]
    events += [settle("1", "win", 3750), surrender("1"), second]
    r = nj(events, seats=[seat(1, W), seat(2, W)], surrender="late", **elections)
    assert findings(r) == [
        want(SURRENDER, len(events) - 2, "1", "surrender on the first two cards", "surrender with 2 cards")
    ]


def test_a_settlement_against_a_ten_up_sixteen_is_before_the_dealer_is_complete() -> None:
    # 0-3 TH TS 8D 6C: the dealer shows a ten and holds 16; 4 stand on 18, 5 reveal; 6 the 18 is paid while
    # the dealer must still draw; 7 the dealer draws to 21. The 18 lost: 2500 was due from the player, 2500
    # was paid.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "TS"),
            deal("1", "8D"),
            deal("dealer", "6C", "down"),
            stand("1"),
            reveal("dealer", "6C"),
            settle("1", "win", W),
            deal("dealer", "5H"),
        ]
    )
    assert findings(r) == [
        want(EARLY, 6, "1", EARLY_EXPECTED, "settled at event 6, dealer's hand complete at event 7"),
        want(OUTCOME, 6, "1", -W, W, -2 * W),
    ]


def test_a_settlement_against_a_hard_twelve_with_an_ace_is_before_the_dealer_is_complete() -> None:
    # 0-3 TH 5C 8D AS (soft 16), 4 stand on 18, 5 reveal, 6 the dealer draws 6H: A+5+6 is a hard 12 (not 22),
    # so the dealer must draw again; 7 the 18 is paid; 8 the dealer draws to 20. The 18 lost.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "5C"),
            deal("1", "8D"),
            deal("dealer", "AS", "down"),
            stand("1"),
            reveal("dealer", "AS"),
            deal("dealer", "6H"),
            settle("1", "win", W),
            deal("dealer", "8C"),
        ]
    )
    assert findings(r) == [
        want(EARLY, 7, "1", EARLY_EXPECTED, "settled at event 7, dealer's hand complete at event 8"),
        want(OUTCOME, 7, "1", -W, W, -2 * W),
    ]


# --- The first card after the initial deal (13:69F-2.17(d): a losing additional wager is collected after each
# player's second card and before any further card to any player).


def test_a_late_additional_wager_collection_names_the_first_further_card() -> None:
    # Same-suit wager on 5H 6D (loses). 0-3 5H 9C 6D 8S, 4 and 5 two further cards to hand 1 (13, 17), 6 the
    # losing wager collected: after the first further card, at event 4. 7 reveal (17), 8 a push.
    r = nj(
        [
            deal("1", "5H"),
            deal("dealer", "9C"),
            deal("1", "6D"),
            deal("dealer", "8S", "down"),
            deal("1", "2C"),
            deal("1", "4S"),
            settle_additional(1, "lose", 100),
            reveal("dealer", "8S"),
            settle("1", "push", 0),
        ],
        seats=[seat(1, W, ("same_suit", 100))],
        additional_wager="same_suit",
    )
    assert findings(r) == [want("13:69F-2.17(d)", 6, "1", "after event 2, before event 4", "event 6")]


def test_insurance_during_the_initial_deal_does_not_end_it() -> None:
    # Two boxes; seat 2 has a same-suit wager. 0 TH to 1, 1 5H to 2, 2 AS to the dealer, 3 9D to 1, 4 seat 1
    # insures while seat 2 still waits for its second card (before the initial deal is complete), 5 6D to 2
    # (the initial deal, not a card after it), 6 the hole card 7C; 7 the insurance loses; 8 stand 1 (19); 9
    # and 10 two cards to seat 2 (13, 20); 11 seat 2's losing wager (5H 6D) collected after further cards
    # (first at 9); 12 reveal (soft 18), 13 and 14 both boxes paid.
    r = nj(
        [
            deal("1", "TH"),
            deal("2", "5H"),
            deal("dealer", "AS"),
            deal("1", "9D"),
            insurance(1, 1250),
            deal("2", "6D"),
            deal("dealer", "7C", "down"),
            settle_insurance(1, "lose", 1250),
            stand("1"),
            deal("2", "2C"),
            deal("2", "7S"),
            settle_additional(2, "lose", 100),
            reveal("dealer", "7C"),
            settle("1", "win", W),
            settle("2", "win", W),
        ],
        seats=[seat(1, W), seat(2, W, ("same_suit", 100))],
        additional_wager="same_suit",
    )
    assert findings(r) == [
        want("uncited:insurance", 4, "1", "after the initial deal", "during the initial deal"),
        want("13:69F-2.17(d)", 11, "2", "after event 5, before event 9", "event 11"),
    ]


# --- Complete hands: one fault is one finding, and the next card after it is a fault of its own.


def test_after_the_card_that_answers_a_reported_hit_the_next_card_is_reported() -> None:
    # 0-3 TH 9C 2D 8S, 4 stand on 12, 5 a hit (reported), 6 its card (not reported again), 7 another card to
    # the stood hand (reported: a fault of its own), 8 reveal (17), 9 the 17 pushes.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "2D"),
            deal("dealer", "8S", "down"),
            stand("1"),
            hit("1"),
            deal("1", "3C"),
            deal("1", "2H"),
            reveal("dealer", "8S"),
            settle("1", "push", 0),
        ]
    )
    assert findings(r) == [
        want(CARD, 5, "1", CARD_EXPECTED, "hit on 12"),
        want(CARD, 7, "1", CARD_EXPECTED, "drew 2H on 15"),
    ]


def test_a_card_to_a_surrendered_hand_is_reported() -> None:
    # 0-3 TH 9C 6D 8S, 4 surrender (late surrender offered), 5 a card to it, 6 reveal, 7 half the wager
    # collected.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "6D"),
            deal("dealer", "8S", "down"),
            surrender("1"),
            deal("1", "5H"),
            reveal("dealer", "8S"),
            settle("1", "surrender", W // 2),
        ],
        surrender="late",
    )
    assert findings(r) == [want(CARD, 5, "1", CARD_EXPECTED, "drew 5H on 16")]


def test_even_money_settles_the_hand_so_a_later_hit_is_reported() -> None:
    # 0-3 TH AS 9D 8C (the dealer's soft 19), 4 even money paid on 19: not a blackjack (uncited:even-money),
    # and as the settlement it is, 19 against 19 was a push, 2500 paid; 5 a hit on the settled hand, 6 its
    # card (the hit already reported), 7 reveal.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AS"),
            deal("1", "9D"),
            deal("dealer", "8C", "down"),
            even_money(1, W),
            hit("1"),
            deal("1", "2C"),
            reveal("dealer", "8C"),
        ]
    )
    assert findings(r) == [
        want("uncited:even-money", 4, "1", "player blackjack, dealer ace", "TH+9D vs AS"),
        # (a 19 depends on the dealer's total: paid before the hole card was turned up at 7, spec 2.1)
        want(EARLY, 4, "1", EARLY_EXPECTED, "settled at event 4, dealer's hand complete at event 7"),
        want(OUTCOME, 4, "1", 0, W, -W),
        want(CARD, 5, "1", CARD_EXPECTED, "hit on 19"),
    ]


# --- After the dealer's blackjack is known, every card and decision is play after it, never play out of turn.


@pytest.mark.parametrize(
    ("decision", "answer", "what", "settles"),
    [
        (split("1", W), None, "hand 1 split", [settle("1", "lose", W), settle("1.2", "push", 0)]),
        (surrender("1"), None, "hand 1 surrendered", [settle("1", "lose", W)]),
        (hit("1"), deal("1", "4D"), "hand 1 hit", [settle("1", "lose", W)]),
        (double("1", W), deal("1", "4D"), "hand 1 doubled down", [settle("1", "lose", W)]),
    ],
    ids=["split", "surrender", "hit", "double"],
)
def test_after_the_dealers_blackjack_a_decision_is_play_after_it(
    decision: dict[str, Any], answer: dict[str, Any] | None, what: str, settles: list[dict[str, Any]]
) -> None:
    # Two boxes: 8H 8D (16) and 7C 8S (15) against AS KD. 6 the peek shows the blackjack; 7 a card to seat 2,
    # 8 a decision on hand 1 (and the card that answers it): both after the blackjack was known, which ended
    # the round for every hand. Each box is settled as it stood then: both lose their wager.
    events = [
        deal("1", "8H"),
        deal("2", "7C"),
        deal("dealer", "AS"),
        deal("1", "8D"),
        deal("2", "8S"),
        deal("dealer", "KD", "down"),
        peek(True),
        deal("2", "5C"),
        decision,
        *([answer] if answer else []),
        reveal("dealer", "KD"),
        *settles,
        settle("2", "lose", W),
    ]
    r = nj(events, seats=[seat(1, W), seat(2, W)], surrender="late")
    assert findings(r) == [
        want(DBJ, 7, "2", DBJ_EXPECTED, "5C was dealt to hand 2"),
        want(DBJ, 8, "1", DBJ_EXPECTED, what),
    ]


# --- Order of play: a decision after a card went to a later seat shows the hand was not complete; reported
# once, at that card.


def _two_boxes(first: tuple[str, str], second: tuple[str, str], hole: str = "7S") -> list[dict[str, Any]]:
    return [
        deal("1", first[0]),
        deal("2", second[0]),
        deal("dealer", "9C"),
        deal("1", first[1]),
        deal("2", second[1]),
        deal("dealer", hole, "down"),
    ]


def test_a_card_to_a_hand_after_a_later_seat_drew_is_reported_at_that_seats_card() -> None:
    # 0-5 seat 1 TH 2D (12), seat 2 5C 7H (12), the dealer 9C 8S; 6 seat 1 draws 3C (15), 7 seat 2 draws 2H
    # (14), 8 seat 1 draws again (19): hand 1 was still being played when seat 2's card was dealt (at 7, not
    # at seat 1's own card at 6). 9 stand 2, 10 reveal (17), 11 19 paid, 12 14 collected.
    r = nj(
        [
            *_two_boxes(("TH", "2D"), ("5C", "7H"), hole="8S"),
            deal("1", "3C"),
            deal("2", "2H"),
            deal("1", "4S"),
            stand("2"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("2", "lose", W),
        ],
        seats=[seat(1, W), seat(2, W)],
    )
    assert findings(r) == [want(TURN, 7, "1", *turn("1", "hand 2", "a card", 8))]


def test_a_double_after_a_later_seat_drew_is_reported_at_that_seats_card() -> None:
    # 0-5 seat 1 6H 5D (11), seat 2 TC 6D (16), the dealer 9C 7S; 6 seat 2 draws 4H (20), 7 seat 1 doubles, 8
    # its card (20): the double shows hand 1 was still being played at 6. 9 reveal (16), 10 the dealer draws
    # to 18, 11 and 12 both paid.
    r = nj(
        [
            *_two_boxes(("6H", "5D"), ("TC", "6D")),
            deal("2", "4H"),
            double("1", W),
            deal("1", "9H"),
            reveal("dealer", "7S"),
            deal("dealer", "2C"),
            settle("1", "win", 2 * W),
            settle("2", "win", W),
        ],
        seats=[seat(1, W), seat(2, W)],
    )
    assert findings(r) == [want(TURN, 6, "1", *turn("1", "hand 2", "a double", 7))]


def test_a_split_after_a_later_seat_drew_is_reported_at_that_seats_card() -> None:
    # 0-5 seat 1 8H 8D, seat 2 TC 7D (17), the dealer 9C 7S; 6 seat 2 draws 2H (19), 7 seat 1 splits: hand 1
    # (not yet split when seat 2's card was dealt) was still being played. 8 TH to 1 (18), 9 9S to 1.2 (17),
    # 10 reveal (16), 11 the dealer draws to 18; 12-14 push, loss, win.
    r = nj(
        [
            *_two_boxes(("8H", "8D"), ("TC", "7D")),
            deal("2", "2H"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9S"),
            reveal("dealer", "7S"),
            deal("dealer", "2C"),
            settle("1", "push", 0),
            settle("1.2", "lose", W),
            settle("2", "win", W),
        ],
        seats=[seat(1, W), seat(2, W)],
    )
    assert findings(r) == [want(TURN, 6, "1", *turn("1", "hand 2", "a split", 7))]


def test_a_surrender_after_a_later_seat_drew_is_reported_at_that_seats_card() -> None:
    # 0-5 seat 1 TH 6D (16), seat 2 TC 4D (14), the dealer 9C 7S; 6 seat 2 draws 5H (19), 7 seat 1 surrenders
    # (a late surrender is offered): hand 1 was still being played at 6. 8 reveal, 9 the dealer draws to 18;
    # 10 half of seat 1's wager collected, 11 seat 2 paid.
    r = nj(
        [
            *_two_boxes(("TH", "6D"), ("TC", "4D")),
            deal("2", "5H"),
            surrender("1"),
            reveal("dealer", "7S"),
            deal("dealer", "2C"),
            settle("1", "surrender", W // 2),
            settle("2", "win", W),
        ],
        seats=[seat(1, W), seat(2, W)],
        surrender="late",
    )
    assert findings(r) == [want(TURN, 6, "1", *turn("1", "hand 2", "a surrender", 7))]


def test_a_split_of_a_stood_hand_after_a_later_seat_drew_is_not_play_out_of_turn() -> None:
    # 0-5 seat 1 8H 8D, seat 2 TC 4D (14), the dealer 9C 8S (17); 6 stand 1 (16: complete), 7 seat 2 draws 5H
    # (19), 8 seat 1 splits its stood hand: a decision on a complete hand, and hand 1 was complete when seat 2
    # drew, so play was in turn. 9 reveal (17); 10 hand 1 (16 when it stood) loses; 11 the new hand's wager
    # returned (it never received a card, and is not judged); 12 seat 2 paid.
    r = nj(
        [
            *_two_boxes(("8H", "8D"), ("TC", "4D"), hole="8S"),
            stand("1"),
            deal("2", "5H"),
            split("1", W),
            reveal("dealer", "8S"),
            settle("1", "lose", W),
            settle("1.2", "push", 0),
            settle("2", "win", W),
        ],
        seats=[seat(1, W), seat(2, W)],
    )
    assert findings(r) == [want(DECISION, 8, "1", "no decision on a complete hand", "split")]


def test_a_card_to_the_dealer_while_a_split_hand_waits_is_2_11_b_at_once() -> None:
    # 0-3 8H 9C 8D 7S, 4 split, 5 TH to 1 (18), 6 reveal (16), 7 the dealer draws 2H while 1.2 still waits for
    # its second card (13:69F-2.11(b) at 7), 8 9S to 1.2 (17); 9 push, 10 loss against the dealer's 18.
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
            deal("1.2", "9S"),
            settle("1", "push", 0),
            settle("1.2", "lose", W),
        ]
    )
    assert findings(r) == [want(SPLIT_ORDER, 7, "1.2", "next card to 1.2", "card to the dealer")]


def test_a_boxs_second_card_while_a_split_hand_waits_is_2_11_b() -> None:
    # Seat 1 splits before seat 2 has its second card. 0 8H to 1, 1 TC to 2, 2 9C to the dealer, 3 8D to 1, 4
    # split, 5 TH to hand 1 (18), 6 7D to seat 2 (17) while 1.2 still waits for its second card:
    # 13:69F-2.11(b) at 6. 7 the hole card 8S, 8 9S to 1.2 (17), 9 reveal (17); 10-12 win, push, push.
    r = nj(
        [
            deal("1", "8H"),
            deal("2", "TC"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            split("1", W),
            deal("1", "TH"),
            deal("2", "7D"),
            deal("dealer", "8S", "down"),
            deal("1.2", "9S"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.2", "push", 0),
            settle("2", "push", 0),
        ],
        seats=[seat(1, W), seat(2, W)],
    )
    assert findings(r) == [want(SPLIT_ORDER, 6, "1.2", "next card to 1.2", "card to 2")]


# --- Splits: the new hand belongs to the seat that split, comes from a split, and is played (and listed)
# next.


def test_a_split_at_seat_three() -> None:
    # Only seat 3 plays. 0-3 8H 9C 8D 8S (17), 4 split, 5 TH to 3 (18), 6 9S to 3.2 (17), 7 reveal; 8 paid, 9
    # push.
    r = nj(
        [
            deal("3", "8H"),
            deal("dealer", "9C"),
            deal("3", "8D"),
            deal("dealer", "8S", "down"),
            split("3", W),
            deal("3", "TH"),
            deal("3.2", "9S"),
            reveal("dealer", "8S"),
            settle("3", "win", W),
            settle("3.2", "push", 0),
        ],
        seats=[seat(3, W)],
    )
    assert findings(r) == []


def test_a_double_on_the_new_split_hand_where_doubling_after_splitting_is_prohibited() -> None:
    # 6 to 5 table (hits soft 17) that prohibits doubling after splitting (19:47-2.10(d)). 0-3 8H 9C 8D 7S, 4
    # split, 5 TH to 1 (18), 6 3C to 1.2 (11), 7 1.2 doubles: the new hand came from a split. 8 its card (20),
    # 9 reveal (16), 10 the dealer draws to 18; 11 push, 12 the doubled 20 paid 5000.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "3C"),
            double("1.2", W),
            deal("1.2", "9S"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
            settle("1.2", "win", 2 * W),
        ],
        blackjack_pays="6:5",
        dealer_soft_17="hit",
        double_after_split=False,
    )
    assert findings(r) == [want("19:47-2.10(d)", 7, "1.2", "no double after split", f"double of {W}")]


def test_an_eight_split_from_an_ace_is_no_split_ace() -> None:
    # 0-3 AH 9C 8D 8S (17), 4 split of A+8 (not a pair: 13:69F-2.11(a)); 5 5C to 1, 6 3C to 1.2 (11), 7 9H to
    # 1.2 (20): a hand holding an eight is not a split ace, and may draw. 8 reveal (17); 9 soft 16 loses, 10
    # 20 paid.
    r = nj(
        [
            deal("1", "AH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            split("1", W),
            deal("1", "5C"),
            deal("1.2", "3C"),
            deal("1.2", "9H"),
            reveal("dealer", "8S"),
            settle("1", "lose", W),
            settle("1.2", "win", W),
        ]
    )
    assert findings(r) == [want("13:69F-2.11(a)", 4, "1", "two cards of identical value", "AH+8D")]


def test_absences_follow_the_order_of_play_a_split_hand_before_the_next_seat() -> None:
    # Three boxes. 0-7 seat 1 8H 8D, seat 2 6C 5D (11), seat 3 TD 9H (19), the dealer 9C 9S (18); 8 seat 1
    # splits, 9 TH to 1 (18), 10 3C to 1.2 (11), 11 1.2 doubles, 12 seat 2 doubles: neither doubled hand is
    # ever dealt its card (13:69F-2.12(a)2, absences, listed in the order the hands are played: 1.2, then 2).
    # 13 stand 3, 14 reveal; 15-18 push, the doubled 11s lose 5000 each, 19 paid.
    r = nj(
        [
            deal("1", "8H"),
            deal("2", "6C"),
            deal("3", "TD"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("2", "5D"),
            deal("3", "9H"),
            deal("dealer", "9S", "down"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "3C"),
            double("1.2", W),
            double("2", W),
            stand("3"),
            reveal("dealer", "9S"),
            settle("1", "push", 0),
            settle("1.2", "lose", 2 * W),
            settle("2", "lose", 2 * W),
            settle("3", "win", W),
        ],
        seats=[seat(1, W), seat(2, W), seat(3, W)],
    )
    missing = ("one card after the double", "no card")
    assert findings(r) == [
        want("13:69F-2.12(a)2", None, "1.2", *missing),
        want("13:69F-2.12(a)2", None, "2", *missing),
    ]
