"""The replay's events of issue 19 (app/domain/replay.py), pinned by whole rounds where mutation testing found them
unpinned: burns (when the dealer's hand is complete, or needs no card), the corrections that contradict the record
(and where their record finding points), decisions after a void, and a dealer blackjack at a table that peeks with
the peek unrecorded.

Every expectation is written from ``round-v1.md`` sections 2.1 and 2.3:

* "A burned card counts toward the shoe ... and toward no hand. Burns before the round's first ``deal``, or after
  the dealer's hand is complete (it stood or busted by rule, or needed no card because every box was already
  decided ...) are the shoe's business and no finding. A burn in between removes a card that a hand or the dealer
  would otherwise have received: ``uncited:card-burned-during-play`` at that event."
* "A ``settle`` with ``corrects: k`` replaces the settlement at event ``k`` (same bet, same hand or seat; otherwise
  the record contradicts itself)"; only the last correction counts. A record contradiction is a ``record`` finding
  at the contradicting event, with the hand or seat it names.
* "After a ``void``, no card is dealt and no decision is taken ... A deal or a player decision after the ``void`` is
  a finding at that event"; "a ``stand`` on a hand that was already complete by rule (... a bust) decides nothing
  and is not a finding" (section 2.1).
* "At a ``peek: true`` table the peek is taken to have happened (its record is optional) ... if the dealer's
  blackjack is revealed later, the peek missed it, and every player decision or card after the initial deal is
  play after a known dealer blackjack."

A finding's ``actual`` says what the record shows: where the spec does not fix its words, :class:`Words` asks only
that it name what was done (the burned card, the hand and its decision). Event indices are spelled out beside each
round. New Jersey boxes wager 2500 (six decks, hole card, peek, stands on soft 17), New Zealand boxes 1000 (the
dealer's second card after the players).
"""

from __future__ import annotations

from typing import Any

from tests.builders import (
    a_round,
    audit,
    burn,
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
    stand,
    void,
)
from tests.rules.case import Want, Words, got, want

W = 2500
NZ_W = 1000
INS = 1250
SIDE = 100

BURN = "uncited:card-burned-during-play"
BURN_EXPECTED = "no burn during play"
AFTER_VOID = "uncited:play-after-void"
AFTER_VOID_EXPECTED = "no play after the round is void"
NOT_RETURNED = "uncited:void-wager-not-returned"
DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
RECORD = "record"

# Six decks without an election on soft 17 (NJ 13:69F-2.12(b) has no default): the dealer's option is not known.
NO_SOFT_17 = {"decks": 6, "blackjack_pays": "3:2", "dealer_second_card": "initial_deal", "peek": True}


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """A New Jersey round on the test table; one box of 2500 unless ``seats`` says otherwise."""
    return a_round("US-NJ", seats=seats or [seat(1, W)], events=events, extra_rules=elections)


def nz(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A New Zealand round on the test table, one box of 1000."""
    return a_round("NZ", seats=[seat(1, NZ_W)], events=events)


def opening(p1: str, up: str, p2: str, hole: str) -> list[dict[str, Any]]:
    """Events 0-3 of a one-box NJ round: player, dealer up card, player, dealer hole card face down."""
    return [deal("1", p1), deal("dealer", up), deal("1", p2), deal("dealer", hole, "down")]


def findings(r: dict[str, Any]) -> list[Want]:
    return [got(f) for f in audit(r)["findings"]]


def burned(at: int, card: str) -> Want:
    """The burn finding: at the burn, no hand; its actual names the card burned."""
    return want(BURN, at, None, BURN_EXPECTED, Words(card))


# --- Burns ----------------------------------------------------------------------------------------------------------


def test_a_burn_after_the_dealers_first_card_is_during_play() -> None:
    # 0 the dealer's up card comes first, 1 a burn: the round's first deal is behind it; 2-4 the rest of the initial
    # deal (19 against 9, 8 down), 5 stand, 6 reveal (17), 7 the 19 paid.
    r = nj(
        [
            deal("dealer", "9C"),
            burn("5C"),
            deal("1", "TH"),
            deal("1", "9D"),
            deal("dealer", "8S", "down"),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "win", W),
        ]
    )
    assert findings(r) == [burned(1, "5C")]


def test_a_burn_after_the_first_boxs_first_card_is_during_play() -> None:
    # Two boxes. 0 1<-TH, 1 a burn (the initial deal has begun), 2 2<-9C, 3 D<-7C, 4 1<-9D (19), 5 2<-TD (19),
    # 6 D<-TS down, 7-8 both stand, 9 reveal (17), 10-11 both paid.
    r = nj(
        [
            deal("1", "TH"),
            burn("5C"),
            deal("2", "9C"),
            deal("dealer", "7C"),
            deal("1", "9D"),
            deal("2", "TD"),
            deal("dealer", "TS", "down"),
            stand("1"),
            stand("2"),
            reveal("dealer", "TS"),
            settle("1", "win", W),
            settle("2", "win", W),
        ],
        seats=[seat(1, W), seat(2, W)],
    )
    assert findings(r) == [burned(1, "5C")]


def test_a_burned_card_may_be_the_last_copy_the_shoe_holds() -> None:
    # Six decks hold six 5C. 0 1<-5C, 1 D<-9C, 2 1<-5C, 3 D<-8S down, 4-5 1<-5C twice (20), 6 stand, 7 reveal (17:
    # the dealer stands), 8 a fifth 5C burned, 9 the 20 paid, 10 the sixth 5C burned: the shoe held it, and both burns
    # come after the dealer's hand was complete.
    r = nj(
        [
            deal("1", "5C"),
            deal("dealer", "9C"),
            deal("1", "5C"),
            deal("dealer", "8S", "down"),
            deal("1", "5C"),
            deal("1", "5C"),
            stand("1"),
            reveal("dealer", "8S"),
            burn("5C"),
            settle("1", "win", W),
            burn("5C"),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "compliant", result["findings"]


def test_a_burn_after_the_peek_showed_the_dealers_blackjack_is_no_finding() -> None:
    # 0-3 TH AC 6D KC(down), 4 peek: blackjack (the dealer's hand is complete, the round over), 5 a burn, 6 reveal,
    # 7 the 16 collected.
    r = nj(
        [
            *opening("TH", "AC", "6D", "KS"),
            peek(True),
            burn("5C"),
            reveal("dealer", "KS"),
            settle("1", "lose", W),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "compliant", result["findings"]


def test_a_burn_after_the_dealer_stood_on_soft_17_at_a_table_whose_option_is_unknown() -> None:
    # No soft-17 election. 0-3 TH AC 9D 6S(down), 4 stand (19), 5 reveal: soft 17, and the dealer stands (draws no
    # card), 6 a burn after the dealer's hand stood, 7 the 19 paid.
    events = [
        *opening("TH", "AC", "9D", "6S"),
        stand("1"),
        reveal("dealer", "6S"),
        burn("5C"),
        settle("1", "win", W),
    ]
    result = audit(a_round("US-NJ", rules=NO_SOFT_17, seats=[seat(1, W)], events=events))
    assert result["verdict"] == "compliant", result["findings"]


def test_a_burn_while_the_dealer_must_still_draw_to_16() -> None:
    # No soft-17 election. 0-3 TH TC 9D 6S(down), 4 stand (19), 5 reveal (16: the dealer must draw), 6 a burn takes
    # the dealer's card, 7 the dealer draws 2H (18), 8 the 19 paid.
    events = [
        *opening("TH", "TC", "9D", "6S"),
        stand("1"),
        reveal("dealer", "6S"),
        burn("5C"),
        deal("dealer", "2H"),
        settle("1", "win", W),
    ]
    assert findings(a_round("US-NJ", rules=NO_SOFT_17, seats=[seat(1, W)], events=events)) == [
        burned(6, "5C")
    ]


def test_a_burn_before_the_dealer_hits_soft_17() -> None:
    # A table that hits soft 17 (13:69F-2.12(b)2). 0-3 TH AC 9D 6S(down), 4 stand (19), 5 reveal (soft 17: the dealer
    # must draw), 6 a burn, 7 the dealer draws 2H (soft 19), 8 the push.
    r = nj(
        [
            *opening("TH", "AC", "9D", "6S"),
            stand("1"),
            reveal("dealer", "6S"),
            burn("5C"),
            deal("dealer", "2H"),
            settle("1", "push", 0),
        ],
        dealer_soft_17="hit",
    )
    assert findings(r) == [burned(6, "5C")]


def test_a_burn_when_the_only_box_holds_a_blackjack_and_the_dealer_has_both_cards() -> None:
    # 0-3 AH TC KD 6S(down): the dealer has its two cards (no blackjack), the only box a blackjack: every box is
    # decided and the dealer needs no card. 4 a burn, 5 the blackjack paid 3 to 2, 6 reveal.
    r = nj([*opening("AH", "TC", "KD", "6S"), burn("5C"), settle("1", "win", 3750), reveal("dealer", "6S")])
    result = audit(r)
    assert result["verdict"] == "compliant", result["findings"]


def test_nz_a_burn_before_the_dealers_second_card_against_a_blackjack_and_a_ten() -> None:
    # NZ. 0 1<-AH, 1 D<-TC, 2 1<-KD: a blackjack against a ten, which the dealer's second card decides (8.2), so the
    # dealer still needs it; 3 a burn takes it; 4 D<-7S (17), 5 the blackjack paid 3 to 2.
    r = nz(
        [
            deal("1", "AH"),
            deal("dealer", "TC"),
            deal("1", "KD"),
            burn("5C"),
            deal("dealer", "7S"),
            settle("1", "win", 1500),
        ]
    )
    assert findings(r) == [burned(3, "5C")]


def test_nz_a_burn_before_the_dealers_second_card_against_a_blackjack_and_a_nine() -> None:
    # NZ. 0 1<-AH, 1 D<-9C, 2 1<-KD: against a nine no second card can give the dealer a blackjack: the box is decided
    # and the dealer needs no card; 3 a burn, 4 D<-7S, 5 the blackjack paid 3 to 2.
    r = nz(
        [
            deal("1", "AH"),
            deal("dealer", "9C"),
            deal("1", "KD"),
            burn("5C"),
            deal("dealer", "7S"),
            settle("1", "win", 1500),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "compliant", result["findings"]


def test_nz_a_burn_after_the_only_box_busted_against_a_ten() -> None:
    # NZ. 0 1<-TH, 1 D<-TC, 2 1<-6D, 3 1<-9S (25: busted), 4 a burn: every box is decided, the dealer needs no card;
    # 5 the bust collected, 6 D<-7S.
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "TC"),
            deal("1", "6D"),
            deal("1", "9S"),
            burn("5C"),
            settle("1", "lose", NZ_W),
            deal("dealer", "7S"),
        ]
    )
    result = audit(r)
    assert result["verdict"] == "compliant", result["findings"]


# --- Corrections that contradict the record -------------------------------------------------------------------------


def _two_boxes_corrected(*tail: dict[str, Any]) -> dict[str, Any]:
    """Two boxes of 2500, each with a $1.00 same-suit wager. 0 1<-TH, 1 2<-9C, 2 D<-AS, 3 1<-9D (19), 4 2<-8H (17),
    5 D<-7S down (no blackjack); 6-7 both insure 1250; 8-9 both stand; 10 reveal (soft 18); 11 seat 1's insurance
    collected, 12 its correction (the same, right); 13 seat 2's insurance collected; 14-15 both same-suit wagers
    collected (TH 9D, 9C 8H: no pair of one suit); 16 hand 1's 19 paid, 17 its correction (the same, right), 18 hand
    2's 17 collected; then ``tail`` from 19."""
    events = [
        deal("1", "TH"),
        deal("2", "9C"),
        deal("dealer", "AS"),
        deal("1", "9D"),
        deal("2", "8H"),
        deal("dealer", "7S", "down"),
        insurance(1, INS),
        insurance(2, INS),
        stand("1"),
        stand("2"),
        reveal("dealer", "7S"),
        settle_insurance(1, "lose", INS),
        settle_insurance(1, "lose", INS, corrects=11),
        settle_insurance(2, "lose", INS),
        settle_additional(1, "lose", SIDE),
        settle_additional(2, "lose", SIDE),
        settle("1", "win", W),
        settle("1", "win", W, corrects=16),
        settle("2", "lose", W),
        *tail,
    ]
    boxes = [seat(1, W, ("same_suit", SIDE)), seat(2, W, ("same_suit", SIDE))]
    return a_round("US-NJ", seats=boxes, events=events, extra_rules={"additional_wager": "same_suit"})


def _contradictions(r: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The verdict is unreplayable; (rule, event, hand) of every finding."""
    result = audit(r)
    assert result["verdict"] == "unreplayable"
    return [(f["rule"], f["event"], f["hand"]) for f in result["findings"]]


def test_the_corrected_round_is_legal() -> None:
    result = audit(_two_boxes_corrected())
    assert result["verdict"] == "compliant", result["findings"]


def test_a_correction_of_another_seats_corrected_insurance_contradicts_the_record() -> None:
    # 19 seat 2's insurance settle that "corrects" event 12, seat 1's correction: another seat's settlement.
    r = _two_boxes_corrected(settle_insurance(2, "lose", INS, corrects=12))
    assert _contradictions(r) == [(RECORD, 19, "2")]


def test_a_correction_of_another_hands_corrected_settlement_contradicts_the_record() -> None:
    # 19 hand 2's settle that "corrects" event 17, hand 1's correction: another hand's settlement.
    r = _two_boxes_corrected(settle("2", "lose", W, corrects=17))
    assert _contradictions(r) == [(RECORD, 19, "2")]


def test_a_correction_of_the_same_seats_corrected_insurance_on_another_bet_contradicts_the_record() -> None:
    # 19 seat 1's additional-wager settle that "corrects" event 12, seat 1's insurance correction: another bet.
    r = _two_boxes_corrected(settle_additional(1, "lose", SIDE, corrects=12))
    assert _contradictions(r) == [(RECORD, 19, "1")]


def test_a_correction_of_a_correction_that_contradicted_the_record_contradicts_it_too() -> None:
    # 19 seat 1's insurance settle that "corrects" event 99, past the round's last event: no earlier settlement; 20 one
    # that "corrects" event 19, which replaced nothing: no settlement of the bet either. Every contradiction is listed.
    r = _two_boxes_corrected(
        settle_insurance(1, "lose", INS, corrects=99), settle_insurance(1, "lose", INS, corrects=19)
    )
    assert _contradictions(r) == [(RECORD, 19, "1"), (RECORD, 20, "1")]


# --- Decisions after a void ------------------------------------------------------------------------------------------


def test_insurance_after_a_void_is_one_finding_even_after_the_peek_showed_a_blackjack() -> None:
    # 0-3 TH AS 9D KC(down), 4 peek: blackjack, 5 void, 6 insurance: a decision after the void, a finding at that
    # event (the wager it places is still returned); 7 reveal (no finding after a void); 8-9 both wagers returned.
    r = nj(
        [
            *opening("TH", "AS", "9D", "KC"),
            peek(True),
            void("misdeal"),
            insurance(1, INS),
            reveal("dealer", "KC"),
            settle("1", "void", 0),
            settle_insurance(1, "void", 0),
        ]
    )
    result = audit(r)
    assert result["void"] == {"event": 5, "reason": "misdeal"}
    assert [got(f) for f in result["findings"]] == [
        want(AFTER_VOID, 6, "1", AFTER_VOID_EXPECTED, Words("seat 1", "insurance"))
    ]


def test_even_money_after_a_void_that_followed_the_dealers_blackjack() -> None:
    # 0-3 AH AS KD KC(down): blackjack against blackjack, 4 peek: blackjack, 5 void, 6 even money paid 2500: taken
    # after the dealer's blackjack was known (play after it, section 2.1), and a settlement after the void as a win:
    # 0 was due, 2500 paid.
    r = nj([*opening("AH", "AS", "KD", "KC"), peek(True), void("misdeal"), even_money(1, W)])
    assert findings(r) == [
        want(DBJ, 6, "1", DBJ_EXPECTED, Words("even money")),
        want(NOT_RETURNED, 6, "1", 0, W, -W),
    ]


def test_a_hit_after_a_void_naming_a_seat_without_a_wager_contradicts_the_record() -> None:
    # 0-3 TH 9C 9D 8S(down), 4 void, 5 a hit on hand 2: seat 2 placed no wager.
    r = nj([*opening("TH", "9C", "9D", "8S"), void("misdeal"), hit("2")])
    assert _contradictions(r) == [(RECORD, 5, "2")]


def test_a_stand_on_a_busted_hand_after_a_void_decides_nothing() -> None:
    # 0-3 TH 9C 6D 8S(down), 4 1<-9S (25: busted), 5 void, 6 a stand on the bust, 7 the wager returned.
    r = nj(
        [
            *opening("TH", "9C", "6D", "8S"),
            deal("1", "9S"),
            void("misdeal"),
            stand("1"),
            settle("1", "void", 0),
        ]
    )
    result = audit(r)
    assert result["void"] == {"event": 5, "reason": "misdeal"}
    assert result["findings"] == []


def test_a_hit_on_a_busted_hand_after_a_void_is_play_after_the_void() -> None:
    # 0-3 TH 9C 6D 8S(down), 4 1<-9S (25), 5 void, 6 a hit: a decision after the void, a finding at that event (only
    # that one: no decision is taken after a void, so its terms are not judged), 7 the wager returned.
    r = nj(
        [*opening("TH", "9C", "6D", "8S"), deal("1", "9S"), void("misdeal"), hit("1"), settle("1", "void", 0)]
    )
    assert findings(r) == [want(AFTER_VOID, 6, "1", AFTER_VOID_EXPECTED, Words("hand 1", "hit"))]


def test_a_stand_on_an_open_hand_after_a_void_is_play_after_the_void() -> None:
    # 0-3 TH 9C 6D 8S(down), 4 void, 5 the open 16 stands, 6 the wager returned.
    r = nj([*opening("TH", "9C", "6D", "8S"), void("misdeal"), stand("1"), settle("1", "void", 0)])
    assert findings(r) == [want(AFTER_VOID, 5, "1", AFTER_VOID_EXPECTED, Words("hand 1 stood"))]


def test_a_double_for_more_than_the_wager_after_a_void_is_one_finding() -> None:
    # 0-3 5H 9C 6D 8S(down), 4 void, 5 a double of 3000 on the 11: a decision after the void (not judged as a double
    # besides: no decision is taken after a void), 6 the wager and the double returned.
    r = nj([*opening("5H", "9C", "6D", "8S"), void("misdeal"), double("1", 3000), settle("1", "void", 0)])
    assert findings(r) == [want(AFTER_VOID, 5, "1", AFTER_VOID_EXPECTED, Words("hand 1", "doubl"))]


# --- A dealer blackjack at a table that peeks, the peek unrecorded ---------------------------------------------------


def test_a_hit_against_an_unrecorded_peek_at_a_dealer_blackjack() -> None:
    # Peek table. 0-3 TH AC 6D KS(down): ace and king, a blackjack, which the peek (taken to have happened) knew;
    # 4 a hit after it (play after a known dealer blackjack), 5 its card (21: the same fault), 6 reveal, 7 the hand
    # settled by the 16 it held: collected.
    r = nj(
        [
            *opening("TH", "AC", "6D", "KS"),
            hit("1"),
            deal("1", "5C"),
            reveal("dealer", "KS"),
            settle("1", "lose", W),
        ]
    )
    assert findings(r) == [want(DBJ, 4, "1", DBJ_EXPECTED, "hand 1 hit")]
