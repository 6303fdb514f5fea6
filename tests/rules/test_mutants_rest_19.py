"""The engine's frame around issue 19 (round-v1.md sections 2.1-2.3): corrections judged twice, the dealer's
blackjack known at a table that peeks whether or not the peek is recorded, burns, voids, split hands played out of
order, the additional wager of a split box, what-if elections, and shoe reconciliation. Rounds that surviving mutants
of ``app.domain.engine``, ``state``, ``shoe``, ``checks.play`` and ``checks.doubling`` got wrong; each expectation is
written from the spec and the regulation notes (N.J.A.C. 13:69F-2.11, 2.12, 2.17, 19:47-2.10; NZ Gazette 1994 No 112
rules 4.1, 9.3), every finding stated whole, in the engine's documented order.

Section 4: a finding's ``message`` "is for people: it names money in the jurisdiction's currency". No test here
compares a message's words; :func:`findings` checks only that every message is text and names every amount in the
jurisdiction's currency.

Each round is built and audited inside its test (mutation testing sees only what tests run). Event indices are
spelled out beside each round. New Jersey boxes wager 2500, New Zealand boxes 1000. The New Jersey test table deals
a hole card, peeks, and stands on soft 17.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from app.domain.model import Deal, Round
from app.domain.shoe import ShoeRound, Sighting, reconcile
from app.usecases.auditing import audit_round
from app.wire.schema import round_from_obj
from tests.builders import (
    a_round,
    audit,
    burn,
    deal,
    double,
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
    void,
)
from tests.rules.case import Want, Words, got, want

W = 2500
NZ_W = 1000

DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
SPLIT_PAIR = "13:69F-2.11(a)"
SPLIT_ORDER = "13:69F-2.11(b)"
CARD = "uncited:card-to-complete-hand"
OUTCOME = "uncited:settlement-outcome"
TURN = "uncited:play-out-of-turn"
EARLY = "uncited:settled-before-dealer-complete"
EARLY_EXPECTED = "settled after the dealer's hand is complete"
AFTER_VOID = "uncited:play-after-void"
VOID = "uncited:void-wager-not-returned"
BURN = "uncited:card-burned-during-play"
SIDE = 100
"""The $1.00 additional wager of 13:69F-2.17(a)."""

_AMOUNT = re.compile(r"([^\s\d(]*)\d[\d,]*\.\d\d(?![\d(])")
"""An amount of money as a message writes it (``NZ$1,250.50``), with what stands before its digits."""


def findings(r: dict[str, Any], currency: str = "$") -> list[Want]:
    """Every finding of the round's audit, whole; and, of every finding, that its message is a string and names
    each amount in ``currency`` (section 4)."""
    result = audit(r)
    for f in result["findings"]:
        message = f["message"]
        assert isinstance(message, str) and message, f
        written = {before.lstrip("-") for before in _AMOUNT.findall(message)}
        assert written <= {currency}, (written, message)
    return [got(f) for f in result["findings"]]


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """A New Jersey round on the test table; one box of 2500 unless ``seats``."""
    return a_round("US-NJ", seats=seats or [seat(1, W)], events=events, extra_rules=elections)


def nz(events: list[dict[str, Any]], **elections: Any) -> dict[str, Any]:
    """A New Zealand round on the test table (the dealer's second card after the players); one box of 1000."""
    return a_round("NZ", seats=[seat(1, NZ_W)], events=events, extra_rules=elections)


def opening(p1: str, up: str, p2: str, hole: str) -> list[dict[str, Any]]:
    """Events 0-3 of a one-box NJ round: player, dealer up card, player, dealer hole card face down."""
    return [deal("1", p1), deal("dealer", up), deal("1", p2), deal("dealer", hole, "down")]


# --- The dealer's blackjack at a table that peeks, peek recorded or not (section 2.1) ---------------------------
# "At a peek: true table the peek is taken to have happened (its record is optional) ... if the dealer's blackjack
# is revealed later, the peek missed it, and every player decision or card after the initial deal is play after a
# known dealer blackjack." So a round without the peek's record is judged as the same round with it.


def test_a_split_of_a_blackjack_after_an_unrecorded_peek_is_judged_as_with_the_peek_recorded() -> None:
    # 0-3 AH KC KD AS(down): the player's blackjack against the dealer's; no peek recorded. 4 the box splits AH and
    # KD (not a pair: 13:69F-2.11(a)); the dealer's blackjack was known before it. 5 the reveal, 6-7 both returned.
    # "A hand is settled by the cards it held when the blackjack was known": a blackjack against a blackjack is a
    # stand off, so returning the wager owes nothing; the split wager of 1.2, placed after the round was over, is
    # returned too. The same round with the peek recorded at 4 (the split at 5) says the same, a finding later.
    unrecorded = nj(
        [
            *opening("AH", "KC", "KD", "AS"),
            split("1", W),
            reveal("dealer", "AS"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(unrecorded) == [want(SPLIT_PAIR, 4, "1", "two cards of identical value", "AH+KD")]
    recorded = nj(
        [
            *opening("AH", "KC", "KD", "AS"),
            peek(True),
            split("1", W),
            reveal("dealer", "AS"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(recorded) == [want(SPLIT_PAIR, 5, "1", "two cards of identical value", "AH+KD")]


def test_a_double_after_an_unrecorded_peek_is_owed_no_card() -> None:
    # 0-3 6H KC 5D AS(down), 4 the box doubles its 11: the dealer's blackjack was known (the peek is taken to have
    # happened), so the double is play after it, and play was over: no double card is owed (no 13:69F-2.12(a)2
    # finding for its absence). 5 the reveal, 6 the original wager collected (19:47-2.10(b): only it may be).
    r = nj(
        [
            *opening("6H", "KC", "5D", "AS"),
            double("1", W),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
        ]
    )
    assert findings(r) == [want(DBJ, 4, "1", DBJ_EXPECTED, "hand 1 doubled down")]
    recorded = nj(
        [
            *opening("6H", "KC", "5D", "AS"),
            peek(True),
            double("1", W),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
        ]
    )
    assert findings(recorded) == [want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 doubled down")]


def test_a_card_dealt_to_a_blackjack_after_an_unrecorded_peek_does_not_change_its_stand_off() -> None:
    # 0-3 AH KC KD AS(down): blackjack against the dealer's blackjack, no peek recorded. 4 a card to the blackjack:
    # "what the hand's own cards forbid" comes first, 13:69F-2.12(a)1 (no card on 21). 5 the reveal, 6 the wager
    # returned: "a hand is settled by the cards it held when the blackjack was known" (AH KD, a blackjack: a stand
    # off), so returning it owes nothing; the card dealt at 4, after the blackjack was known, does not count.
    r = nj(
        [*opening("AH", "KC", "KD", "AS"), deal("1", "5C"), reveal("dealer", "AS"), settle("1", "push", 0)]
    )
    assert findings(r) == [want("13:69F-2.12(a)1", 4, "1", "no card on 21", "drew 5C on 21")]


def test_a_surrender_after_an_unrecorded_peek_does_not_halve_what_the_dealers_blackjack_collects() -> None:
    # 0-3 TH KC 6D AS(down), 4 the box surrenders after the dealer's blackjack was known (the peek is taken to have
    # happened): play after it, and no surrender; the hand, 16, loses its whole wager to the blackjack. 5 the reveal,
    # 6 the whole wager collected: no money is owed.
    r = nj([*opening("TH", "KC", "6D", "AS"), surrender("1"), reveal("dealer", "AS"), settle("1", "lose", W)])
    assert findings(r) == [want(DBJ, 4, "1", DBJ_EXPECTED, "hand 1 surrendered")]


# --- Corrections (section 2.3) ----------------------------------------------------------------------------------


def test_a_corrected_settlement_in_new_zealand_names_the_money_still_owed_in_nz_dollars() -> None:
    # 0-2 KH 9C against 7D, 3 stand, 4 TS (17): the 19 is owed 1000. 5 it was collected, 6 corrected to a push. The
    # finding stays at 5 (4.1(b)) with corrected_by 6 and corrected_actual 0; amount_delta = expected -
    # corrected_actual = 1000 still owed. Section 4: its message names money in NZ$.
    r = nz(
        [
            deal("1", "KH"),
            deal("dealer", "7D"),
            deal("1", "9C"),
            stand("1"),
            deal("dealer", "TS"),
            settle("1", "lose", NZ_W),
            settle("1", "push", 0, corrects=5),
        ]
    )
    assert findings(r, "NZ$") == [
        want("4.1(b)", 5, "1", NZ_W, -NZ_W, NZ_W, corrected_by=6, corrected_actual=0)
    ]


def test_a_blackjack_underpaid_and_corrected_into_a_collection_keeps_its_finding_with_all_still_owed() -> (
    None
):
    # 0-3 AH 9C KD 8S(down): a blackjack against a 9; 3 to 2 on 2500 is 3750. 4 paid 2500 (wrong amount), 5 the
    # reveal (17), 6 corrected to a collection of 2500 (wrong way round). "If settlement k was wrong, its finding
    # carries the last correction's corrected_by and corrected_actual": the blackjack odds at 4, actual 2500,
    # corrected_actual -2500, amount_delta 3750 - (-2500) = 6250; "corrections in between are never findings", and
    # this one claims no money twice: nothing else.
    r = nj(
        [
            *opening("AH", "9C", "KD", "8S"),
            settle("1", "win", W),
            reveal("dealer", "8S"),
            settle("1", "lose", W, corrects=4),
        ]
    )
    assert findings(r) == [
        want("uncited:blackjack-odds", 4, "1", 3750, W, 6250, corrected_by=6, corrected_actual=-W)
    ]


def test_a_correction_keeps_the_findings_made_before_it() -> None:
    # NZ. 0-2 KH 9C against AD, 3 insurance 600 on a wager of 1000 (9.3: at most half, 500), 4 stand, 5 8S: the
    # dealer's 19, no blackjack. 6 the insurance lost and collected, 7 the 19 collected against 19 (a stand off was
    # due: 4.1(e)), 8 corrected to a push: the finding at 7 with corrected_by 8, corrected_actual 0, nothing owed.
    r = nz(
        [
            deal("1", "KH"),
            deal("dealer", "AD"),
            deal("1", "9C"),
            insurance(1, 600),
            stand("1"),
            deal("dealer", "8S"),
            settle_insurance(1, "lose", 600),
            settle("1", "lose", NZ_W),
            settle("1", "push", 0, corrects=7),
        ]
    )
    assert findings(r, "NZ$") == [
        want("9.3", 3, "1", Words("500"), 600),
        want("4.1(e)", 7, "1", 0, -NZ_W, 0, corrected_by=8, corrected_actual=0),
    ]


# --- What-if elections ------------------------------------------------------------------------------------------


def test_a_what_if_audit_applies_its_elections_over_the_records() -> None:
    # The elections an audit applies: the ruleset's defaults, overridden by the record's, overridden by a what-if
    # audit's (engine.resolve_elections). The record elects a table standing on soft 17; the what-if asks for one
    # that hits it: the audit applies, and reports, the what-if's.
    r = nj(
        [
            *opening("TH", "9C", "9D", "8S"),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
        ]
    )
    result = audit_round(round_from_obj(r), what_if_elections={"dealer_soft_17": "hit"}).to_dict()
    assert result["elections"]["dealer_soft_17"] == "hit"
    assert result["elections_source"] == "record"


# --- Split hands played out of order (13:69F-2.11(b)), reported once per box ------------------------------------


def test_two_cards_to_a_split_hand_that_stood_while_the_next_waits_are_one_split_order_finding() -> None:
    # 0-3 8H 9C 8D 8S(down), 4 split, 5 1<-TH (18), 6 stand 1, 7 1<-2C while 1.2 waits for its second card:
    # 13:69F-2.11(b) at 7, on the hand to be completed first (1.2); 8 1<-3C, a second card to the stood hand: the box's
    # order was already reported ("reported once"), so this is a card to a complete hand. 9 1.2<-TC (18), 10 reveal
    # (17), 11 hand 1 (8H TH 2C 3C: 23, busted) paid: a collection was due, -2500, 5000 owed by the player; 12 1.2
    # paid.
    r = nj(
        [
            *opening("8H", "9C", "8D", "8S"),
            split("1", W),
            deal("1", "TH"),
            stand("1"),
            deal("1", "2C"),
            deal("1", "3C"),
            deal("1.2", "TC"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.2", "win", W),
        ]
    )
    assert findings(r) == [
        want(SPLIT_ORDER, 7, "1.2", "next card to 1.2", "2C to 1"),
        want(CARD, 8, "1", "no further card", "drew 3C on 20"),
        want(OUTCOME, 11, "1", -W, W, -2 * W),
    ]


def test_a_hit_on_a_split_hand_that_stood_while_the_next_waits_is_out_of_order() -> None:
    # As above, 7 a hit on the stood hand 1 while 1.2 waits: 13:69F-2.11(b) at 7, a hit to 1; 8 1.2<-TC (18),
    # 9 reveal (17), 10-11 both 18s paid.
    r = nj(
        [
            *opening("8H", "9C", "8D", "8S"),
            split("1", W),
            deal("1", "TH"),
            stand("1"),
            hit("1"),
            deal("1.2", "TC"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.2", "win", W),
        ]
    )
    assert findings(r) == [want(SPLIT_ORDER, 7, "1.2", "next card to 1.2", "a hit to 1")]


def test_a_card_to_a_resplit_hand_that_stood_while_an_older_split_hand_waits() -> None:
    # Resplitting elected (13:69F-2.11(e)). 0-3 8H 9C 8D 8S(down), 4 split (1: 8H, 1.2: 8D), 5 1<-8C, 6 split again
    # (1.3: 8C), 7 1<-TH (18), 8 stand 1, 9 1.3<-TC (18): "a hand made by a resplit may be played as soon as the hand
    # it came from is complete, before older hands that still wait" (section 2.1), 10 stand 1.3, 11 1.3<-2C while
    # 1.2 still waits: 13:69F-2.11(b) at 11 on 1.2. 12 1.2<-TS (18), 13 reveal (17), 14-16 the 18, 20 and 18 paid.
    r = nj(
        [
            *opening("8H", "9C", "8D", "8S"),
            split("1", W),
            deal("1", "8C"),
            split("1", W),
            deal("1", "TH"),
            stand("1"),
            deal("1.3", "TC"),
            stand("1.3"),
            deal("1.3", "2C"),
            deal("1.2", "TS"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.3", "win", W),
            settle("1.2", "win", W),
        ],
        resplit=True,
        boxes=7,
    )
    assert findings(r) == [want(SPLIT_ORDER, 11, "1.2", "next card to 1.2", "2C to 1.3")]


def test_a_card_to_a_split_ace_is_reported_with_a_message() -> None:
    # 0-3 AH 9C AD 8S(down), 4 split aces, 5 1<-5C (its one card), 6 1<-6C: a split ace's second card, 13:69F-2.11(c)2
    # and 2.12(a)3 at 6; 7 1.2<-9D (20), 8 reveal (17), 9 hand 1 (AH 5C 6C: 12) collected, 10 the 20 paid. Every
    # finding carries its message (the OpenAPI Finding.message is a required string).
    r = nj(
        [
            *opening("AH", "9C", "AD", "8S"),
            split("1", W),
            deal("1", "5C"),
            deal("1", "6C"),
            deal("1.2", "9D"),
            reveal("dealer", "8S"),
            settle("1", "lose", W),
            settle("1.2", "win", W),
        ]
    )
    assert findings(r) == [
        want("13:69F-2.11(c)2", 6, "1", "no further card", "6C"),
        want("13:69F-2.12(a)3", 6, "1", "no further card", "6C"),
    ]


# --- Burns and voids (section 2.3) ------------------------------------------------------------------------------


def test_a_card_dealt_after_the_void_and_a_burn_during_play_state_what_was_due() -> None:
    # 0-3 TH 9C 7D 8S(down), 4 void (misdeal), 5 1<-5C: "a deal ... after the void is a finding at that event";
    # 6 the wager returned.
    r = nj([*opening("TH", "9C", "7D", "8S"), void("misdeal"), deal("1", "5C"), settle("1", "void", 0)])
    assert findings(r) == [want(AFTER_VOID, 5, "1", "no play after the round is void", "5C was dealt to 1")]
    assert audit(r)["void"] == {"event": 4, "reason": "misdeal"}
    # 0-3 as above, 4 hit, 5 a burn between the hit and its card, 6 1<-2C (19), 7 reveal (17), 8 paid.
    r = nj(
        [
            *opening("TH", "9C", "7D", "8S"),
            hit("1"),
            burn("5C"),
            deal("1", "2C"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
        ]
    )
    assert findings(r) == [want(BURN, 5, None, "no burn during play", "burned 5C")]


def test_a_doubled_hand_voided_before_its_card_and_never_settled_is_a_wager_not_returned() -> None:
    # 0-3 6H 9C 5D 8S(down), 4 double, 5 void (misdeal): the double card is not owed (the round stopped); the wager,
    # with its double, was in play and is never returned: uncited:void-wager-not-returned, event null, no money.
    r = nj([*opening("6H", "9C", "5D", "8S"), double("1", W), void("misdeal")])
    assert findings(r) == [want(VOID, None, "1", 0, 0)]


def test_a_face_down_double_card_of_a_hand_settled_before_the_void_is_still_judged() -> None:
    # Face-down double cards (19:47-2.10(c)). 0-3 6H 9C 5D 8S(down), 4 double, 5 1<-9S face down (20), 6 paid 5000
    # with the double card never turned up: "settlements made before the void stand as recorded and are judged as
    # usual" - the card is turned up at settlement (2.10(c)), and the 20's outcome depended on the dealer's total,
    # settled before the dealer was complete (no money). 7 void.
    r = nj(
        [
            *opening("6H", "9C", "5D", "8S"),
            double("1", W),
            deal("1", "9S", "down"),
            settle("1", "win", 2 * W),
            void("misdeal"),
        ],
        double_card="face_down",
    )
    assert findings(r) == [
        want("19:47-2.10(c)", 6, "1", "card turned up at settlement", "never revealed"),
        want(EARLY, 6, "1", EARLY_EXPECTED, Words("settled at event 6")),
    ]


def test_a_double_card_dealt_face_down_is_judged_after_an_earlier_box_voided_before_its_card() -> None:
    # Two boxes. 0 1<-5H, 1 2<-6H, 2 D<-9C, 3 1<-6D (11), 4 2<-5D (11), 5 D<-8S down, 6 box 2 doubles, 7 2<-9S face
    # down at a table dealing it face up (19:47-2.10(c) at 7) while box 1 was still to be played (its double at 8
    # follows: out of turn, at 7), 8 box 1 doubles, 9 void before box 1's card, 10-11 both wagers returned.
    r = nj(
        [
            deal("1", "5H"),
            deal("2", "6H"),
            deal("dealer", "9C"),
            deal("1", "6D"),
            deal("2", "5D"),
            deal("dealer", "8S", "down"),
            double("2", W),
            deal("2", "9S", "down"),
            double("1", W),
            void("misdeal"),
            settle("1", "void", 0),
            settle("2", "void", 0),
        ],
        seats=[seat(1, W), seat(2, W)],
    )
    assert findings(r) == [
        want("19:47-2.10(c)", 7, "2", "face up", "face down"),
        want(TURN, 7, "1", Words("hand 1 completed before"), Words("double on hand 1 at event 8")),
    ]


# --- The additional wager of a box that split (13:69F-2.17) -----------------------------------------------------


def test_the_additional_wager_of_a_split_box_is_judged_by_its_first_two_cards() -> None:
    # Same suit (13:69F-2.17(a)2, (b): "same-suit wins if" the first two cards are of one suit). 0-3 8H 9C 8D
    # 8S(down): 8H and 8D, not of one suit; 4 the $1.00 wager collected (2.17(d): right after the second card),
    # 5 split, 6 1<-3H (8H 3H: one suit, but not the box's first two cards), 7 1<-TH, 8 1.2<-TS, 9 reveal (17),
    # 10-11 hand 1 (21) and 1.2 (18) paid. Nothing is wrong.
    r = nj(
        [
            *opening("8H", "9C", "8D", "8S"),
            settle_additional(1, "lose", SIDE),
            split("1", W),
            deal("1", "3H"),
            deal("1", "TH"),
            deal("1.2", "TS"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1.2", "win", W),
        ],
        seats=[seat(1, W, ("same_suit", SIDE))],
        additional_wager="same_suit",
    )
    assert findings(r) == []


# --- Shoe reconciliation (round-v1 section 1: "rounds of one shoe share one card supply") -----------------------


def _shoe_round(rid: str, *cards: str) -> Round:
    events = tuple(Deal("dealer", c) for c in cards)
    return Round(rid, "US-NJ", datetime(2026, 12, 1, tzinfo=UTC), "BJ1", None, (), events)


def test_a_shoes_over_counts_come_by_the_round_then_the_event_and_its_cards_in_deck_order() -> None:
    # One deck. R1 shows AH twice (the second, at event 3, is one too many); R2 then shows 9S, already seen in R1,
    # at event 0. In the order they went past the deck: AH (R1, 3) before 9S (R2, 0), though 0 < 3. The cards seen,
    # in deck order (clubs, diamonds, hearts, spades; ace to king).
    done = reconcile(
        [
            ShoeRound(_shoe_round("R1", "AH", "5D", "9S", "AH"), 1),
            ShoeRound(_shoe_round("R2", "9S", "TC", "AC"), 1),
        ]
    )
    assert [(o.card, o.first_over) for o in done.over_counts] == [
        ("AH", Sighting("R1", 3)),
        ("9S", Sighting("R2", 0)),
    ]
    assert list(done.cards_seen.items()) == [("AC", 1), ("TC", 1), ("5D", 1), ("AH", 2), ("9S", 2)]


def test_a_shoe_whose_rounds_state_no_decks_allows_the_most_a_table_may_elect() -> None:
    # Section 3: decks 1-8. None stated: eight copies of each card are allowed.
    done = reconcile([ShoeRound(_shoe_round("R1", "AH", "AH"), None)])
    assert (done.decks, done.allowed, done.over_counts) == (None, 8, ())


def test_a_correction_keeps_the_findings_the_replay_made_before_it() -> None:
    # 0-3 TH 9C 9D 8S(down), 4 a burn while the round is in play (uncited:card-burned-during-play at 4), 5 stand on
    # 19, 6 reveal (17), 7 the 19 collected, 8 corrected to a payment: the finding at 7 with corrected_by 8,
    # corrected_actual 2500, nothing still owed; the burn's finding stays.
    r = nj(
        [
            *opening("TH", "9C", "9D", "8S"),
            burn("5C"),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "lose", W),
            settle("1", "win", W, corrects=7),
        ]
    )
    assert findings(r) == [
        want(BURN, 4, None, "no burn during play", "burned 5C"),
        want(OUTCOME, 7, "1", W, -W, 0, corrected_by=8, corrected_actual=W),
    ]


def test_a_correction_before_a_contradiction_is_judged_only_on_what_came_before_it() -> None:
    # 0-3 TH 9C 9D 8S(down), 4 stand on 19, 5 paid 2500 while the hole card still lay face down, 6 corrected to a
    # push, 7 a reveal of 7S, never dealt face down: the record contradicts itself at 7 (unreplayable). "The findings
    # established before the contradicting event are still reported ...; nothing is claimed at or after it." Before
    # 7 the dealer's hand was never shown, so neither the payment nor its correction can be judged: the record
    # finding alone (the 8S revealed at 8 comes after the contradiction).
    r = nj(
        [
            *opening("TH", "9C", "9D", "8S"),
            stand("1"),
            settle("1", "win", W),
            settle("1", "push", 0, corrects=5),
            reveal("dealer", "7S"),
            reveal("dealer", "8S"),
        ]
    )
    assert audit(r)["verdict"] == "unreplayable"
    assert findings(r) == [want("record", 7, "dealer", None, None)]


def test_a_doubled_hand_underpaid_and_corrected_into_a_collection_with_its_card_never_turned_up() -> None:
    # Face-down double cards (19:47-2.10(c)). 0-3 6H 9C 5D 8S(down), 4 double, 5 1<-9S face down (20), 6 reveal (17),
    # 7 the doubled 20 paid 2500 (5000 due, 1 to 1 on both wagers) with its card never turned up: 2.10(c) at 7; 8
    # corrected to a collection of 5000. The payment's finding stays at 7 with corrected_by 8, corrected_actual
    # -5000, amount_delta 5000 - (-5000) = 10000; the 2.10(c) finding, about no money, is untouched.
    r = nj(
        [
            *opening("6H", "9C", "5D", "8S"),
            double("1", W),
            deal("1", "9S", "down"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
            settle("1", "lose", 2 * W, corrects=7),
        ],
        double_card="face_down",
    )
    assert findings(r) == [
        want("19:47-2.10(c)", 7, "1", "card turned up at settlement", "never revealed"),
        want("uncited:win-pays-1-to-1", 7, "1", 2 * W, W, 4 * W, corrected_by=8, corrected_actual=-2 * W),
    ]
