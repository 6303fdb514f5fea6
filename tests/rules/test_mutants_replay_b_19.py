"""The replay's bookkeeping since its split into one function per event (app/domain/replay.py), pinned by whole rounds
where mutation testing (issue 19) found it unpinned: the dealer's blackjack a peek table knows without a recorded
peek, the first card after the initial deal (what late insurance is measured against), the dealer's hand shown (no
card of it still face down) before a settlement is judged as complete, corrections that name a settlement the replay
skipped as a contradiction, a card or hit on a complete split hand while another waits (13:69F-2.11(b)), the reveal of
the hole card while a box still waits for its second card, and play after a void.

Every expectation is written from ``round-v1.md`` sections 2.1 and 2.3 and ``docs/engine.md``, not from the engine's
output. Event indices are spelled out beside each round. New Jersey boxes wager 2500 (the test table: hole card
dealt with the players', peek, stands on soft 17, six decks).
"""

from __future__ import annotations

from typing import Any

from tests.builders import (
    a_round,
    audit,
    deal,
    double,
    hit,
    insurance,
    reveal,
    seat,
    settle,
    settle_insurance,
    split,
    stand,
    void,
)
from tests.rules.case import Want, got, want

W = 2500

RECORD = "record"
CARD = "uncited:card-to-complete-hand"
DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
TURN = "uncited:play-out-of-turn"
SPLIT_ORDER = "13:69F-2.11(b)"
EARLY = "uncited:settled-before-dealer-complete"
EARLY_EXPECTED = "settled after the dealer's hand is complete"
INSURANCE = "uncited:insurance"
AFTER_VOID = "uncited:play-after-void"
AFTER_VOID_EXPECTED = "no play after the round is void"


def nj(events: list[dict[str, Any]], **elections: Any) -> dict[str, Any]:
    """A New Jersey round, one box, on the test table (hole card dealt with the players', peek, stands on soft 17)."""
    return a_round("US-NJ", seats=[seat(1, W)], events=events, extra_rules=elections)


def findings(r: dict[str, Any]) -> list[Want]:
    return [got(f) for f in audit(r)["findings"]]


# --- The dealer's blackjack at a table that peeks, its peek not recorded (section 2.1).


def test_a_card_after_the_initial_deal_over_an_unrecorded_peek_is_play_after_the_dealers_blackjack() -> None:
    # 0-3 TH AS 6D KD(down): the dealer's blackjack, dealt in the initial deal at a peek table. The peek is taken to
    # have happened, so the blackjack was known before the players acted: 4, a card to hand 1 with no hit recorded,
    # is play after a known dealer blackjack, at 4. 5 reveal; 6 the 16 it held when the blackjack was known loses
    # its wager (as recorded).
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AS"),
            deal("1", "6D"),
            deal("dealer", "KD", "down"),
            deal("1", "5C"),
            reveal("dealer", "KD"),
            settle("1", "lose", W),
        ]
    )
    assert findings(r) == [want(DBJ, 4, "1", DBJ_EXPECTED, "5C was dealt to hand 1")]


def test_a_hit_after_the_initial_deal_over_an_unrecorded_peek_is_play_after_the_dealers_blackjack_at_the_hit() -> (
    None
):
    # As above, with the hit recorded at 4 and its card at 5: the blackjack is known from the first decision after
    # the initial deal, so the finding is at the hit (4), and its card is that same play, not a second finding.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AS"),
            deal("1", "6D"),
            deal("dealer", "KD", "down"),
            hit("1"),
            deal("1", "5C"),
            reveal("dealer", "KD"),
            settle("1", "lose", W),
        ]
    )
    assert findings(r) == [want(DBJ, 4, "1", DBJ_EXPECTED, "hand 1 hit")]


# --- The first card after the initial deal: insurance must be placed before it.


def test_late_insurance_is_measured_from_the_first_card_after_the_initial_deal_the_dealers() -> None:
    # 0-3 TH AS 6D 5C(down): the initial deal ends at 3. 4 the hole card is turned up while box 1 is still to be
    # played (the dealer's play begun out of turn, at 4), 5 the dealer draws 9H: the first card after the initial
    # deal. 6 insurance, after that card: late, before event 5 expected. 7 box 1's own first later card (21) does
    # not move the mark past the insurance. 8 the dealer draws to 19; 9 insurance lost, 10 21 paid even.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "AS"),
            deal("1", "6D"),
            deal("dealer", "5C", "down"),
            reveal("dealer", "5C"),
            deal("dealer", "9H"),
            insurance(1, W // 2),
            deal("1", "5D"),
            deal("dealer", "4D"),
            settle_insurance(1, "lose", W // 2),
            settle("1", "win", W),
        ]
    )
    assert findings(r) == [
        want(
            TURN,
            4,
            "1",
            "hand 1 completed before the dealer's hole card is turned up",
            "hole card turned up, then a card on hand 1 at event 7",
        ),
        want(INSURANCE, 6, "1", "before event 5", "event 6"),
    ]


# --- The dealer's hand is complete only once none of its cards lies face down (section 2.1: in a hole-card game the
# dealer's play begins with the reveal of the hole card).


def test_a_players_own_reveal_does_not_turn_up_the_dealers_hole_card() -> None:
    # A hand-dealt game: 0 TH to 1 face down, 1 9C, 2 8D face up, 3 8S the hole card (the dealer's 17). 4 the
    # player turns up its TH; 5 stands on 18; 6 paid 1 to 1, correctly, but while the dealer's hole card is still
    # face down: settled before the dealer's hand was complete (at 7, its reveal).
    r = nj(
        [
            deal("1", "TH", "down"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            reveal("1", "TH"),
            stand("1"),
            settle("1", "win", W),
            reveal("dealer", "8S"),
        ],
        dealt_from="hand",
        decks=2,
    )
    assert findings(r) == [
        want(EARLY, 6, "1", EARLY_EXPECTED, "settled at event 6, dealer's hand complete at event 7")
    ]


def test_a_dealers_card_drawn_face_down_leaves_its_hand_incomplete_until_turned_up() -> None:
    # 0-3 TH 9C 8D 5S(down); 4 stand on 18; 5 reveal (14), 6 the dealer draws 4D face down (18); 7 the push
    # settled while that card is still face down: the dealer's total was not yet shown, so the settlement came
    # before the dealer's hand was complete (at 8, the card's reveal). The push itself is right (18 against 18).
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "5S", "down"),
            stand("1"),
            reveal("dealer", "5S"),
            deal("dealer", "4D", "down"),
            settle("1", "push", 0),
            reveal("dealer", "4D"),
        ]
    )
    assert findings(r) == [
        want(EARLY, 7, "1", EARLY_EXPECTED, "settled at event 7, dealer's hand complete at event 8")
    ]


# --- Corrections (section 2.3): a settle with ``corrects: k`` replaces the settlement at event k, same bet, same
# hand or seat; otherwise the record contradicts itself. A settlement the replay skipped as a contradiction is not
# one.


def test_correcting_an_insurance_settlement_of_a_seat_without_a_wager_contradicts_the_record() -> None:
    # 0-3 TH 9C 8D 8S, 4 stand on 18, 5 reveal (17), 6 paid; 7 an insurance settlement for seat 5, which placed no
    # wager (a contradiction), and 8 its correction, which names a settlement that never was: a second
    # contradiction, at 8, naming seat 5.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle_insurance(5, "lose", 1000),
            settle_insurance(5, "push", 0, corrects=7),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    assert [got(f) for f in result["findings"]] == [
        want(RECORD, 7, "5", None, None),
        want(RECORD, 8, "5", None, None),
    ]


def test_correcting_a_settlement_of_a_hand_made_before_the_hand_existed_contradicts_the_record() -> None:
    # 0-3 8H 9C 8D 7S; 4 a settlement of hand 1.2, which does not exist yet (a contradiction); 5 the split makes
    # 1.2; 6-7 TH to 1 (18), 9S to 1.2 (17); 8 reveal (16), 9 the dealer draws to 18; 10 push; 11 a correction of
    # event 4: hand 1.2 exists by now, but event 4 was never taken as its settlement: a second contradiction.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "7S", "down"),
            settle("1.2", "lose", W),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9S"),
            reveal("dealer", "7S"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
            settle("1.2", "lose", W, corrects=4),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    assert [got(f) for f in result["findings"]] == [
        want(RECORD, 4, "1.2", None, None),
        want(RECORD, 11, "1.2", None, None),
    ]


# --- A card or a hit on a complete split hand (13:69F-2.11(b) where another hand of the box still waits).


def test_the_double_card_of_a_settled_split_hand_while_the_other_waits_is_2_11_b() -> None:
    # 0-3 8H 9C 8D 8S(down, the dealer's 17); 4 split; 5 3C to hand 1 (11), 6 double; 7 hand 1 collected (its 11
    # against the 17 loses both wagers, but settled before the dealer's hand was shown: early); 8 the double's
    # card TH to hand 1, settled and so complete, while hand 1.2 still waits for its second card: 13:69F-2.11(b)
    # at 8, on 1.2. 9 9S to 1.2 (17); 10 reveal; 11 the push.
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            split("1", W),
            deal("1", "3C"),
            double("1", W),
            settle("1", "lose", 2 * W),
            deal("1", "TH"),
            deal("1.2", "9S"),
            reveal("dealer", "8S"),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(r) == [
        want(EARLY, 7, "1", EARLY_EXPECTED, "settled at event 7, dealer's hand complete at event 10"),
        want(SPLIT_ORDER, 8, "1.2", "next card to 1.2", "TH to 1"),
    ]


def test_a_hit_on_a_stood_split_hand_when_no_hand_of_the_box_waits_is_a_hit_on_a_complete_hand() -> None:
    # 0-3 8H 9C 8D 8S(down); 4 split; 5 TH to 1 (18), 6 stand; 7 9S to 1.2 (17), 8 stand: both hands complete. 9
    # a hit on 1.2: a hit on a complete hand (no hand of the box still waits, so not 13:69F-2.11(b)). 10 reveal
    # (17); 11 18 paid, 12 17 pushed (the hit brought no card).
    r = nj(
        [
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            split("1", W),
            deal("1", "TH"),
            stand("1"),
            deal("1.2", "9S"),
            stand("1.2"),
            hit("1.2"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(r) == [want(CARD, 9, "1.2", "no further card", "hit on 17")]


# --- The reveal of the hole card begins the dealer's play (section 2.1).


def test_the_hole_card_turned_up_before_the_boxs_second_card_is_the_dealers_play_out_of_turn() -> None:
    # 0 TH to 1, 1-2 the dealer's 9C and 7S(down); 3 the hole card turned up while box 1 still waits for its second
    # card: the dealer's play begun out of turn, at 3, shown by 4, 8D to hand 1 (its second card comes after the
    # reveal, so it is a card after the dealer's play began, not part of the initial deal). 5 stand on 18, 6 the
    # dealer draws to 18; 7 push.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("dealer", "7S", "down"),
            reveal("dealer", "7S"),
            deal("1", "8D"),
            stand("1"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
        ]
    )
    assert findings(r) == [
        want(
            TURN,
            3,
            "1",
            "hand 1 completed before the dealer's hole card is turned up",
            "hole card turned up, then a card on hand 1 at event 4",
        )
    ]


# --- Void (section 2.3): after a void no card is dealt and no decision is taken; each is a finding at its event.


def test_a_hit_and_its_card_after_a_void_are_each_a_finding() -> None:
    # 0-3 TH 9C 6D 7S(down); 4 void (misdeal); 5 hand 1 hits, 6 5C dealt to it: both after the void, each a finding
    # at its event. 7 the hole card turned up (no finding after a void); 8 the wager returned.
    r = nj(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "6D"),
            deal("dealer", "7S", "down"),
            void("misdeal"),
            hit("1"),
            deal("1", "5C"),
            reveal("dealer", "7S"),
            settle("1", "void", 0),
        ]
    )
    result = audit(r)
    assert result["void"] == {"event": 4, "reason": "misdeal"}
    assert [got(f) for f in result["findings"]] == [
        want(AFTER_VOID, 5, "1", AFTER_VOID_EXPECTED, "hand 1 hit"),
        want(AFTER_VOID, 6, "1", AFTER_VOID_EXPECTED, "5C was dealt to 1"),
    ]
