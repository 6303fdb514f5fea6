"""When the dealer is complete, the reveal, peek tables, a blackjack paid before the hole card, a settlement never
made (round-v1.md sections 2.1 and 2.2), and money in words (section 4): rounds that surviving mutants of
``app.domain.checks.settlement`` (``check_settlements``, ``_due_at_end``, ``_blackjack_before_hole``,
``check_blackjack_paid_early``, ``_terms``, ``on_settle``, ``settled_once``), ``app.domain.checks.outcome``
(``dealer_complete``, ``judged_dealer``, ``expect``, ``depends_on_dealer``) and ``app.domain.checks.words`` got
wrong. Each expectation is written from the spec (and the regulation notes) before the engine was run on the round,
every finding stated whole, in the engine's documented order (by event, then by rule; absences last).

Section 2.1: "a settlement that depends on the dealer's total [is made] only after the dealer is complete. In a
hole-card game the dealer's play begins with the reveal of the hole card"; "at a table whose elections say peek:
false, a blackjack against a 10-value or ace up card depends on the dealer's total ... until the hole card is
revealed: paying it before is a finding, with the money owed if the dealer did have blackjack. At a peek: true table
the peek is taken to have happened (its record is optional), so the blackjack may be paid at once". Section 2.2: a
missing settlement is "event null, hand or seat named, actual 0, expected the net that was due"; odds are paid in
whole chips of ``min_chip`` (1 minor unit when not elected), "down by default ... or up at a table that elects
payout_rounding: up". Section 4: a finding's ``message`` names money in the jurisdiction's currency (``$25.00``,
``NZ$25.00``); :func:`findings` checks only that every amount a message names is written in it.

Event indices are spelled out beside each round. New Jersey boxes wager 2500 on the test table (hole card, peek,
stands on soft 17) unless a round says otherwise; New Zealand boxes 1000, smallest chip 100, dated 1995.
"""

from __future__ import annotations

import re
from typing import Any

from app.domain.checks.outcome import expect
from app.domain.checks.words import money, owed, sign
from tests.builders import (
    a_round,
    audit,
    deal,
    even_money,
    peek,
    reveal,
    seat,
    settle,
    split,
    void,
)
from tests.rules.case import Want, Words, got, want

W = 2500
NZ_W = 1000

OUTCOME = "uncited:settlement-outcome"
"""New Jersey's settlement key (section 2.2)."""
MISSING = "uncited:missing-settlement"
TWICE = "uncited:settled-twice"
EARLY = "uncited:settled-before-dealer-complete"
BJ_ODDS = "uncited:blackjack-odds"
LOSE = "uncited:lose-collects-stake"
WIN = "uncited:win-pays-1-to-1"
EVEN_MONEY = "uncited:even-money"
EARLY_EXPECTED = "settled after the dealer's hand is complete"
BJ_EARLY_EXPECTED = "settled once the dealer's second card is known"
VOID_NOT_RETURNED = "uncited:void-wager-not-returned"
DEALER_DRAW = "uncited:dealer-draw"
NEEDLESS_DRAW = "13:69F-2.12(c)"
S17 = "13:69F-2.12(b)1"
"""The test table's dealer stands on soft 17 (and on every total of 17 or more)."""
NZ_8_2 = "8.2"
RECORD = "record"
DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"


def early(event: int, hand: str, complete_at: int) -> Want:
    """A settlement that depended on the dealer's total, made before the dealer's hand was complete (section 2.1):
    no money of its own (section 2.2)."""
    return want(
        EARLY,
        event,
        hand,
        EARLY_EXPECTED,
        f"settled at event {event}, dealer's hand complete at event {complete_at}",
    )


def early_void(event: int, hand: str, void_at: int) -> Want:
    """The same, in a round declared void before the dealer was complete (section 2.3: "a sequence finding, no
    money: the dealer never completed")."""
    return want(EARLY, event, hand, EARLY_EXPECTED, Words(f"event {event}", "void", f"event {void_at}"))


def contradiction(event: int, where: str) -> Want:
    """The record contradicting itself (section 2: a reveal of a card never dealt face down): nothing is claimed at
    or after it (section 2.1)."""
    return want(RECORD, event, where, None, None)


_AMOUNT = re.compile(r"([^\s\d(]*)\d[\d,]*\.\d\d(?![\d(])")
"""An amount of money as a message writes it (``NZ$1,250.50``), with what stands before its digits (the currency,
and a sign); a citation's number (``2.11(d)``) is none."""


def findings(r: dict[str, Any], currency: str) -> list[Want]:
    """Every finding of the round's audit, whole; and, of every finding, that its message names each amount in
    ``currency`` (section 4), never another currency or none."""
    result = audit(r)
    for f in result["findings"]:
        message = f["message"]
        assert isinstance(message, str) and message, f
        written = {before.lstrip("-") for before in _AMOUNT.findall(message)}
        assert written <= {currency}, (written, message)
    return [got(f) for f in result["findings"]]


def nj(events: list[dict[str, Any]], wager: int = W, **elections: Any) -> dict[str, Any]:
    """A New Jersey round on the test table, one box."""
    return a_round("US-NJ", seats=[seat(1, wager)], events=events, extra_rules=elections)


def nz(events: list[dict[str, Any]], wager: int = NZ_W, **elections: Any) -> dict[str, Any]:
    """A New Zealand round on the test table (smallest chip 100), one box."""
    return a_round("NZ", seats=[seat(1, wager)], events=events, extra_rules=elections)


def opening(p1: str, up: str, p2: str, hole: str) -> list[dict[str, Any]]:
    """Events 0-3 of a one-box hole-card round: player, dealer up card, player, dealer hole card face down."""
    return [deal("1", p1), deal("dealer", up), deal("1", p2), deal("dealer", hole, "down")]


# --- Money in words (section 4) ----------------------------------------------------------------------------------


def test_money_in_words_has_no_sign_for_nothing_and_names_the_currency() -> None:
    # Section 4: money is named in the jurisdiction's currency, never in minor units; a net of nothing is $0.00
    # (nothing is negative), one cent either way is $0.01, signed only when it is negative.
    assert money(0) == "$0.00"
    assert money(0, "NZ$") == "NZ$0.00"
    assert money(1) == "$0.01"
    assert money(-1) == "-$0.01"
    # What a finding's money means: + owed to the player, - owed by the player (section 4), in its currency.
    assert owed(1) == "$0.01 is owed to the player"
    assert owed(-1) == "$0.01 is owed by the player"
    assert owed(1250, "NZ$") == "NZ$12.50 is owed to the player"
    # The sign of a net: one cent paid is a payment (+1), one collected a collection (-1).
    assert (sign(1), sign(-1), sign(0), sign(2500)) == (1, -1, 0, 1)


# --- What a hand is due, at the defaults (section 2.2) -----------------------------------------------------------


def test_expect_rounds_odds_down_to_one_minor_unit_when_no_chip_is_given() -> None:
    # Section 2.2: odds are rounded to the table's min_chip, "1 minor unit when not elected", and "down by default".
    # A blackjack on 1001 against a dealer 20 (ten up) pays 3 to 2: exactly 1501.5, so 1501; a surrender of 1005
    # collects 503 ("returns 502 and collects 503").
    assert expect(21, 1001, 1001, False, True, (20, False, True), False).nets == (1501,)
    assert expect(21, 1001, 1001, False, True, (20, False, True), False, 1, True).nets == (1502,)
    assert expect(16, 1005, 1005, True, False, (20, False, True), False).nets == (-503,)


# --- A settlement never made, at a table that rounds up (section 2.2) -------------------------------------------


def test_blackjack_never_settled_at_a_table_that_rounds_up_was_due_odds_rounded_up() -> None:
    # min_chip 100, payout_rounding up, a box of 1500. 0 1:AS, 1 dealer 9C, 2 1:KD (blackjack), 3 dealer 8D down,
    # 4 reveal (17). Never settled: a blackjack against a dealer 9 pays 3 to 2, exactly 2250, "up at a table that
    # elects it" to 2300 (section 2.2's own example). Missing: event null, expected 2300, actual 0.
    r = nj(
        [*opening("AS", "9C", "KD", "8D"), reveal("dealer", "8D")],
        1500,
        min_chip=100,
        payout_rounding="up",
    )
    assert findings(r, "$") == [want(MISSING, None, "1", 2300, 0, 2300)]


# --- When the dealer is complete (section 2.1) -------------------------------------------------------------------


def test_even_money_on_a_twenty_at_a_peek_table_is_judged_against_the_known_blackjack_not_found_early() -> (
    None
):
    # peek: true. 0 1:TH, 1 dealer AS, 2 1:QD (20), 3 dealer KD down (blackjack), 4 even money 2500, 5 reveal.
    # Section 2.1: "at a peek: true table the peek is taken to have happened (its record is optional)": the
    # dealer's blackjack was known, so the dealer's hand was complete at event 4 and even money on the 20 is not a
    # settlement before the dealer was complete. Even money is only for a blackjack (no money: a provision about who
    # may bet), and it is the settlement of the main wager (section 2): the 20 loses to the dealer's blackjack,
    # -2500 due, +2500 paid, under the settlement key (the wrong way).
    r = nj([*opening("TH", "AS", "QD", "KD"), even_money(1, W), reveal("dealer", "KD")])
    assert findings(r, "$") == [
        want(EVEN_MONEY, 4, "1", "player blackjack, dealer ace", "TH+QD vs AS"),
        want(OUTCOME, 4, "1", -W, W, -2 * W),
    ]


def test_dealer_blackjack_shown_by_a_draw_is_complete_for_a_settlement_before_the_reveal() -> None:
    # peek: false. 0 1:TH, 1 dealer AS, 2 1:QD (20), 3 dealer KD down (blackjack), 4 dealer 5H (a draw on a
    # blackjack: 13:69F-2.12(b)1, no money), 5 hand 1 collected 2500, 6 reveal. Section 2.1: the dealer's play
    # began by event 4 (the dealer draws to a hand it has turned up), and a blackjack is complete; the settlement at
    # 5 is judged against the blackjack (section 2.2: the hand as it stood before the forbidden card), and the 20
    # loses 2500: right, and not before the dealer was complete.
    r = nj(
        [
            *opening("TH", "AS", "QD", "KD"),
            deal("dealer", "5H"),
            settle("1", "lose", W),
            reveal("dealer", "KD"),
        ],
        peek=False,
    )
    assert findings(r, "$") == [want(S17, 4, "dealer", "stand on blackjack", "drew 5H")]


def test_settlement_before_the_reveal_in_a_round_voided_after_the_dealer_stood_on_19_is_judged() -> None:
    # 0 1:TH, 1 dealer TC, 2 1:8D (18), 3 dealer 9D down, 4 hand 1 collected 1000, 5 reveal (19: complete), 6 void.
    # Section 2.3: "settlements made before the void stand as recorded and are judged as usual"; the dealer was
    # complete (19) before the void, so this one is judged: 18 loses to 19, -2500 due, -1000 collected (delta -1500).
    # It was made before the reveal, so before the dealer was complete (section 2.1), complete at event 5.
    r = nj(
        [*opening("TH", "TC", "8D", "9D"), settle("1", "lose", 1000), reveal("dealer", "9D"), void("other")]
    )
    assert findings(r, "$") == [want(LOSE, 4, "1", -W, -1000, -1500), early(4, "1", 5)]
    assert audit(r)["void"] == {"event": 6, "reason": "other"}


def test_at_a_table_that_hits_soft_17_a_hard_17_and_an_18_are_complete_before_a_void() -> None:
    # dealer_soft_17: hit. 0 1:TH, 1 dealer TC, 2 1:8D (18) or 9D (19), 3 dealer 7D (hard 17) or 8D (18) down,
    # 4 hand 1 paid 1000, 5 reveal, 6 void. A dealer who hits soft 17 stands on hard 17 and on 18 (13:69F-2.12(b)2):
    # complete before the void, so the settlement is judged: the hand beats the dealer by one, +2500 due, 1000 paid
    # (delta 1500); and it was made before the reveal (complete at event 5).
    for player, hole in (("8D", "7D"), ("9D", "8D")):
        r = nj(
            [
                *opening("TH", "TC", player, hole),
                settle("1", "win", 1000),
                reveal("dealer", hole),
                void("other"),
            ],
            dealer_soft_17="hit",
        )
        assert findings(r, "$") == [early(4, "1", 5), want(WIN, 4, "1", W, 1000, 1500)], (player, hole)


def test_at_a_table_that_stands_on_soft_17_a_soft_17_is_complete_before_a_void() -> None:
    # 0 1:TH, 1 dealer 6C, 2 1:8D (18), 3 dealer AD down (soft 17), 4 hand 1 collected 2500, 5 reveal, 6 void. The
    # test table stands on soft 17 (13:69F-2.12(b)1): complete before the void, so the settlement is judged: 18 beats
    # 17, +2500 due, -2500 collected, the wrong way (settlement key, delta 5000); made before the reveal.
    r = nj([*opening("TH", "6C", "8D", "AD"), settle("1", "lose", W), reveal("dealer", "AD"), void("other")])
    assert findings(r, "$") == [early(4, "1", 5), want(OUTCOME, 4, "1", W, -W, 2 * W)]


def test_settlement_before_the_reveal_in_a_round_voided_before_it_is_found_early_against_the_void() -> None:
    # 0 1:TH, 1 dealer TC, 2 1:8D (18), 3 dealer 9D down, 4 hand 1 collected 2500, 5 void, 6 reveal (showing the
    # hole card after a void is no finding). Section 2.3: a settlement made before the void "that depended on the
    # dealer's total was made before the dealer was complete (a sequence finding, no money: the dealer never
    # completed)": the finding says the round was voided, and nothing is judged of its money.
    r = nj([*opening("TH", "TC", "8D", "9D"), settle("1", "lose", W), void("other"), reveal("dealer", "9D")])
    assert findings(r, "$") == [early_void(4, "1", 5)]


def test_both_split_hands_settled_before_a_void_that_came_before_the_dealer_was_complete() -> None:
    # 0 1:8H, 1 dealer TC, 2 1:8D, 3 dealer 7S down, 4 split 2500, 5 hand 1 TH (18), 6 hand 1.2 9D (17), 7 hand 1
    # collected 2500, 8 hand 1.2 collected 2500, 9 void (the hole card never turned up). Each settlement depended on
    # the dealer's total and was made before the dealer was complete: one sequence finding each, no money.
    r = nj(
        [
            *opening("8H", "TC", "8D", "7S"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9D"),
            settle("1", "lose", W),
            settle("1.2", "lose", W),
            void("other"),
        ]
    )
    assert findings(r, "$") == [early_void(7, "1", 9), early_void(8, "1.2", 9)]


def test_a_21_settled_before_the_reveal_depends_on_the_dealers_total() -> None:
    # 0 1:TH, 1 dealer 9C, 2 1:5D, 3 dealer TD down, 4 1:6S (21), 5 hand 1 paid 2500, 6 reveal (19). A 21 that is no
    # blackjack depends on the dealer's total (a dealer 21 would push it): settled before the dealer was complete
    # (section 2.1), complete at event 6. 21 beats 19: the money is right.
    r = nj([*opening("TH", "9C", "5D", "TD"), deal("1", "6S"), settle("1", "win", W), reveal("dealer", "TD")])
    assert findings(r, "$") == [early(5, "1", 6)]


def test_dealer_soft_17_reached_by_a_draw_is_complete_at_a_table_that_stands_on_it() -> None:
    # 0 1:TH, 1 dealer 2C, 2 1:8D (18), 3 dealer 4D down, 4 dealer AS (soft 17: the dealer draws to a hand it has
    # turned up), 5 hand 1 paid 2500, 6 reveal. The test table stands on soft 17: the dealer was complete at event 5,
    # and 18 beats 17. Nothing to report.
    r = nj(
        [
            *opening("TH", "2C", "8D", "4D"),
            deal("dealer", "AS"),
            settle("1", "win", W),
            reveal("dealer", "4D"),
        ]
    )
    assert findings(r, "$") == []


def test_settlements_between_forbidden_dealer_draws_are_judged_against_the_dealers_soft_18() -> None:
    # 0 1:TH, 1 dealer 7C, 2 1:9D (19), 3 dealer AD down, 4 reveal (soft 18: the dealer stands), 5 dealer 5H
    # (forbidden: 13:69F-2.12(b)1, reported once), 6 hand 1 paid 2500, 7 dealer 6S. Section 2.2: "the dealer's hand
    # is taken as it stood before that card": 18, complete by rule at the reveal, so the settlement at 6 came after
    # the dealer was complete, and 19 beats 18.
    r = nj(
        [
            *opening("TH", "7C", "9D", "AD"),
            reveal("dealer", "AD"),
            deal("dealer", "5H"),
            settle("1", "win", W),
            deal("dealer", "6S"),
        ]
    )
    assert findings(r, "$") == [want(S17, 5, "dealer", "stand on soft 18", "drew 5H")]
    # The same with a split box against a dealer ace (soft 18): 0 1:8H, 1 dealer AC, 2 1:8D, 3 dealer 7D down,
    # 4 split, 5 hand 1 TH (18), 6 hand 1.2 TC (18), 7 reveal, 8 dealer 5H (forbidden), 9 and 10 both hands pushed,
    # 11 dealer 6S. Both 18s push against 18, settled after the dealer was complete.
    r = nj(
        [
            *opening("8H", "AC", "8D", "7D"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "TC"),
            reveal("dealer", "7D"),
            deal("dealer", "5H"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
            deal("dealer", "6S"),
        ]
    )
    assert findings(r, "$") == [want(S17, 8, "dealer", "stand on soft 18", "drew 5H")]


# --- The dealer's hand a settlement is judged against (section 2.2) --------------------------------------------


def test_settlement_after_a_forbidden_draw_is_judged_against_the_dealers_hand_before_it() -> None:
    # 0 1:TH, 1 dealer TC, 2 1:6D (16), 3 dealer 7D down, 4 dealer 5H (a draw on hard 17, forbidden: 13:69F-2.12(b)1;
    # the dealer draws to a hand it has turned up), 5 hand 1 collected 2500, 6 reveal. Section 2.2: "the dealer's
    # hand is taken as it stood before that card" (17, not the 22 it became), so 16 loses: collecting 2500 is right.
    r = nj(
        [
            *opening("TH", "TC", "6D", "7D"),
            deal("dealer", "5H"),
            settle("1", "lose", W),
            reveal("dealer", "7D"),
        ]
    )
    assert findings(r, "$") == [want(S17, 4, "dealer", "stand on hard 17", "drew 5H")]


def test_dealer_soft_17_by_a_draw_judges_a_settlement_in_a_round_cut_short_by_a_contradiction() -> None:
    # 0 1:TH, 1 dealer 2C, 2 1:8D (18), 3 dealer 4D down, 4 dealer AS (soft 17: complete, the table stands on it),
    # 5 hand 1 collected 2500, 6 a reveal of a card never dealt face down (the record contradicts itself). The
    # findings before the contradiction are still reported (section 2.1): the dealer was complete at 17 when hand 1
    # was settled, 18 beats 17, +2500 due, -2500 collected (settlement key, the wrong way).
    r = nj(
        [
            *opening("TH", "2C", "8D", "4D"),
            deal("dealer", "AS"),
            settle("1", "lose", W),
            reveal("dealer", "5C"),
        ]
    )
    assert findings(r, "$") == [want(OUTCOME, 5, "1", W, -W, 2 * W), contradiction(6, "dealer")]


def test_in_a_round_cut_short_a_bust_is_judged_and_a_21_is_not() -> None:
    # 0 1:TH, 1 dealer TC, 2 1:5D, 3 dealer 6D down (16: the dealer must still draw), 4 1:7S (22, bust) or 6S (21),
    # 5 hand 1 collected 1000 / 2500, 6 a reveal of a card never dealt face down: the record contradicts itself, and
    # what the dealer would have drawn is not known. A busted hand loses whatever the dealer holds: 2500 due, 1000
    # collected (delta -1500). A 21 depends on the dealer's final total (a dealer 21 pushes it): nothing is claimed.
    r = nj(
        [*opening("TH", "TC", "5D", "6D"), deal("1", "7S"), settle("1", "lose", 1000), reveal("dealer", "5C")]
    )
    assert findings(r, "$") == [want(LOSE, 5, "1", -W, -1000, -1500), contradiction(6, "dealer")]
    r = nj(
        [*opening("TH", "TC", "5D", "6D"), deal("1", "6S"), settle("1", "lose", W), reveal("dealer", "5C")]
    )
    assert findings(r, "$") == [contradiction(6, "dealer")]


def test_in_a_round_cut_short_a_blackjack_is_judged_once_the_dealer_holds_two_cards() -> None:
    # 0 1:AS, 1 dealer TC, 2 1:KD (blackjack), 3 dealer 6D down (no dealer blackjack: the peek table pays at once),
    # 4 hand 1 paid 2500, 5 a reveal of a card never dealt: the dealer's two cards decide the blackjack, 3 to 2 on
    # 2500 is 3750 (delta 1250).
    r = nj([*opening("AS", "TC", "KD", "6D"), settle("1", "win", W), reveal("dealer", "5C")])
    assert findings(r, "$") == [want(BJ_ODDS, 4, "1", 3750, W, 1250), contradiction(5, "dealer")]


def test_in_a_round_cut_short_a_blackjack_against_a_lone_ten_is_not_judged() -> None:
    # 0 1:AS, 1 dealer TC, 2 1:KD (blackjack), 3 hand 1 pushed, 4 a reveal of a card never dealt. The dealer's
    # second card was never dealt: a dealer blackjack would have made it a stand off, so what it was due cannot be
    # known, and no money is claimed. It was settled before the dealer's second card was known (section 2.1).
    r = nj(
        [
            deal("1", "AS"),
            deal("dealer", "TC"),
            deal("1", "KD"),
            settle("1", "push", 0),
            reveal("dealer", "5C"),
        ]
    )
    assert findings(r, "$") == [
        want(EARLY, 3, "1", BJ_EARLY_EXPECTED, "settled at event 3"),
        contradiction(4, "dealer"),
    ]


def test_in_a_round_cut_short_a_blackjack_is_judged_by_the_up_card_dealt_second() -> None:
    # New Zealand, dealer's second card in the initial deal. 0 1:AS, 1 dealer 5D face down, 2 1:KD (blackjack),
    # 3 dealer TC face up (the up card), 4 hand 1 paid 1000, 5 a reveal of a card never dealt. The dealer shows a ten
    # (15, still to draw): 8.2 names the odds of a blackjack against an ace or ten up, 3 to 2 on 1000 = 1500, so 8.2
    # carries the money (delta 500).
    r = nz(
        [
            deal("1", "AS"),
            deal("dealer", "5D", "down"),
            deal("1", "KD"),
            deal("dealer", "TC"),
            settle("1", "win", NZ_W),
            reveal("dealer", "5C"),
        ],
        dealer_second_card="initial_deal",
    )
    assert findings(r, "NZ$") == [want(NZ_8_2, 4, "1", 1500, NZ_W, 500), contradiction(5, "dealer")]


# --- A blackjack paid before the hole card (section 2.1) --------------------------------------------------------


def test_blackjack_paid_before_the_dealer_drew_at_a_table_that_does_not_peek() -> None:
    # peek: false. 0 1:AS, 1 dealer TC, 2 1:KD, 3 dealer 6D down, 4 hand 1 paid 3750, 5 dealer 5H (every box
    # decided: a needless draw, 13:69F-2.12(c)). The hole card was first shown by the dealer's draw at 5, after the
    # payment: "paying it before is a finding", with no money (the dealer had no blackjack).
    r = nj([*opening("AS", "TC", "KD", "6D"), settle("1", "win", 3750), deal("dealer", "5H")], peek=False)
    assert findings(r, "$") == [
        want(EARLY, 4, "1", BJ_EARLY_EXPECTED, "settled at event 4"),
        want(NEEDLESS_DRAW, 5, "dealer", "no further dealer card", "drew 5H"),
    ]


def test_blackjack_paid_after_the_dealer_drew_at_a_table_that_does_not_peek() -> None:
    # The same, the dealer's draw (4) before the payment (5): the dealer had turned up its hand, so the payment came
    # after the hole card was known. Only the needless draw.
    r = nj([*opening("AS", "TC", "KD", "6D"), deal("dealer", "5H"), settle("1", "win", 3750)], peek=False)
    assert findings(r, "$") == [want(NEEDLESS_DRAW, 4, "dealer", "no further dealer card", "drew 5H")]


def test_blackjack_paid_with_the_hole_card_never_shown_in_the_record() -> None:
    # peek: false. 0 1:AS, 1 dealer TC, 2 1:KD, 3 dealer 6D down, 4 hand 1 paid 3750; the hole card is never turned
    # up in the record. The project's reading of section 2.1 (commit 30333fd): a record that never turns the hole
    # card up says nothing of the order, so no finding; 3 to 2 is right.
    r = nj([*opening("AS", "TC", "KD", "6D"), settle("1", "win", 3750)], peek=False)
    assert findings(r, "$") == []


# --- New Zealand 8.2: a blackjack paid before all other cards ---------------------------------------------------


def test_nz_blackjack_returned_on_a_void_is_no_blackjack_paid() -> None:
    # 0 1:AS, 1 dealer TC, 2 1:KD, 3 void (misdeal), 4 hand 1 returned. A wager returned because the round was
    # declared void is neither won nor lost (section 2.3): no blackjack was paid before the dealer's second card.
    r = nz([deal("1", "AS"), deal("dealer", "TC"), deal("1", "KD"), void("misdeal"), settle("1", "void", 0)])
    assert findings(r, "NZ$") == []
    assert audit(r)["void"] == {"event": 3, "reason": "misdeal"}


def test_nz_blackjack_paid_before_its_own_forbidden_card_is_not_paid_before_other_players_cards() -> None:
    # 0 1:AS, 1 dealer TC, 2 1:KD, 3 dealer 7H (second card, 17), 4 hand 1 paid 1500, 5 1:5H (a card to a
    # blackjack). 8.2: not paid "until all other cards have been dealt to the players and the dealer has received
    # his/her second card": the card at 5 went to the blackjack itself, no other player's; only the draw on it.
    r = nz(
        [
            deal("1", "AS"),
            deal("dealer", "TC"),
            deal("1", "KD"),
            deal("dealer", "7H"),
            settle("1", "win", 1500),
            deal("1", "5H"),
        ]
    )
    assert findings(r, "NZ$") == [want("uncited:player-draw", 5, "1", "no card on 21", "drew 5H on 21")]


def test_nz_blackjack_paid_before_another_players_card() -> None:
    # Seats 1 and 2 of 1000. 0 1:AS, 1 2:TH, 2 dealer TC, 3 1:KD, 4 2:6C, 5 dealer 7H (the dealer's second card,
    # while hand 2 was still to be played: out of turn), 6 hand 1 paid 1500, 7 2:5D (21), 8 hand 2 paid 1000. 8.2:
    # the blackjack was paid before all other cards had been dealt to the players (the card at 7).
    r = a_round(
        "NZ",
        seats=[seat(1, NZ_W), seat(2, NZ_W)],
        events=[
            deal("1", "AS"),
            deal("2", "TH"),
            deal("dealer", "TC"),
            deal("1", "KD"),
            deal("2", "6C"),
            deal("dealer", "7H"),
            settle("1", "win", 1500),
            deal("2", "5D"),
            settle("2", "win", NZ_W),
        ],
    )
    assert findings(r, "NZ$") == [
        want(
            "uncited:play-out-of-turn",
            5,
            "2",
            "hand 2 completed before any card to the dealer",
            "card to the dealer, then a card on hand 2 at event 7",
        ),
        want(
            NZ_8_2,
            6,
            "1",
            "settle after every player's cards",
            "settled at event 6, a player's card at event 7",
        ),
    ]


def test_nz_hand_with_one_card_when_the_dealers_blackjack_was_known_is_no_blackjack_paid() -> None:
    # New Zealand, dealer's second card in the initial deal, peek. Seats 1 and 2 of 1000. 0 1:AS, 1 2:9H, 2 dealer
    # TC, 3 2:7C, 4 dealer AD down, 5 peek: blackjack (hand 1 still holds one card), 6 1:KD, 7 hand 1 pushed, 8 2:5S,
    # 9 reveal, 10 hand 2 collected 1000. Section 2.1: after the peek every card is play after a known dealer
    # blackjack (6 and 8), and "a hand is settled by the cards it held when the blackjack was known": hand 1's lone
    # ace (11) loses to the blackjack (4.1(g)), -1000 due, nothing changed hands. It held no blackjack then, so 8.2
    # (a blackjack paid before all other cards were dealt, the card at 8) does not apply.
    r = a_round(
        "NZ",
        seats=[seat(1, NZ_W), seat(2, NZ_W)],
        events=[
            deal("1", "AS"),
            deal("2", "9H"),
            deal("dealer", "TC"),
            deal("2", "7C"),
            deal("dealer", "AD", "down"),
            peek(True),
            deal("1", "KD"),
            settle("1", "push", 0),
            deal("2", "5S"),
            reveal("dealer", "AD"),
            settle("2", "lose", NZ_W),
        ],
        extra_rules={"dealer_second_card": "initial_deal", "peek": True},
    )
    assert findings(r, "NZ$") == [
        want(DBJ, 6, "1", DBJ_EXPECTED, "KD was dealt to hand 1"),
        want("4.1(g)", 7, "1", -NZ_W, 0, -NZ_W),
        want(DBJ, 8, "2", DBJ_EXPECTED, "5S was dealt to hand 2"),
    ]


# --- A settlement never made, with the dealer's second card never dealt (section 2.2) ---------------------------


def test_nz_hands_never_settled_against_a_dealer_who_never_received_a_second_card() -> None:
    # New Zealand: the dealer's second card comes after the players. 0 1:AS, 1 dealer 9C, 2 1:KD: a blackjack
    # against a 9 wins 3 to 2 whatever the dealer's second card, 1500 due (no blackjack of the dealer's can push it).
    r = nz([deal("1", "AS"), deal("dealer", "9C"), deal("1", "KD")])
    assert findings(r, "NZ$") == [want(MISSING, None, "1", 1500, 0, 1500)]
    # 0 1:TH, 1 dealer 9C, 2 1:6D, 3 1:6S (22): a busted hand loses, -1000 due.
    r = nz([deal("1", "TH"), deal("dealer", "9C"), deal("1", "6D"), deal("1", "6S")])
    assert findings(r, "NZ$") == [want(MISSING, None, "1", -NZ_W, 0, -NZ_W)]
    # A blackjack against a ten, and a 21: each depends on the dealer's hand, never completed (a finding of its
    # own): what either was due cannot be known, the missing settlement carries no money.
    r = nz([deal("1", "AS"), deal("dealer", "TC"), deal("1", "KD")])
    assert findings(r, "NZ$") == [
        want(DEALER_DRAW, None, "dealer", "a second card, to decide the blackjack", "stood on one card"),
        want(MISSING, None, "1", None, 0),
    ]
    r = nz([deal("1", "TH"), deal("dealer", "9C"), deal("1", "5D"), deal("1", "6S")])
    assert findings(r, "NZ$") == [
        want(DEALER_DRAW, None, "dealer", "draw to a standing total", "stood on one card"),
        want(MISSING, None, "1", None, 0),
    ]


# --- Settled twice, returned on a void: money named in the currency (sections 2.2, 2.3, 4) ---------------------


def test_nz_hand_settled_twice_and_never_settled_name_the_money_in_nz_dollars() -> None:
    # 0 1:TH, 1 dealer 9C, 2 1:9D (19), 3 dealer 7H, 4 dealer 2S (18), 5 hand 1 paid 1000, 6 and again 1000: a second
    # settlement should have moved nothing (expected 0, actual 1000, delta -1000), its message in NZ$.
    r = nz(
        [
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "9D"),
            deal("dealer", "7H"),
            deal("dealer", "2S"),
            settle("1", "win", NZ_W),
            settle("1", "win", NZ_W),
        ]
    )
    assert findings(r, "NZ$") == [want(TWICE, 6, "1", 0, NZ_W, -NZ_W)]
    # A 20 never settled against the dealer's 18: 1000 due.
    r = nz(
        [deal("1", "TH"), deal("dealer", "9C"), deal("1", "QD"), deal("dealer", "7H"), deal("dealer", "2S")]
    )
    assert findings(r, "NZ$") == [want(MISSING, None, "1", NZ_W, 0, NZ_W)]


def test_settled_again_after_even_money_names_the_money_in_dollars() -> None:
    # 0 1:AS, 1 dealer AC, 2 1:KD, 3 dealer 7D down, 4 even money 2500, 5 reveal, 6 hand 1 paid 3750. Even money is
    # the settlement "in full settlement" (section 2): the settle at 6 is a second one, expected 0, actual 3750.
    r = nj(
        [*opening("AS", "AC", "KD", "7D"), even_money(1, W), reveal("dealer", "7D"), settle("1", "win", 3750)]
    )
    assert findings(r, "$") == [want(TWICE, 6, "1", 0, 3750, -3750)]


def test_wager_won_after_a_void_names_the_money_in_dollars() -> None:
    # 0-3 TH TC 8D 7D(down), 4 void, 5 hand 1 paid 2500: a wager settled after the void as a win is a money finding,
    # expected 0 (section 2.3).
    r = nj([*opening("TH", "TC", "8D", "7D"), void("misdeal"), settle("1", "win", W)])
    assert findings(r, "$") == [want(VOID_NOT_RETURNED, 5, "1", 0, W, -W)]


def test_split_hand_settled_twice_against_a_dealer_blackjack_names_the_money_in_dollars() -> None:
    # peek: false. 0 1:8H, 1 dealer TC, 2 1:8D, 3 dealer AS down, 4 split 2500, 5 hand 1 TH, 6 hand 1.2 9D, 7 reveal
    # (blackjack), 8 hand 1 collected 2500 (the original wager: all 13:69F-2.11(d) allows), 9 hand 1.2 pushed, 10
    # hand 1 collected 2500 again: settled twice, expected 0, actual -2500.
    r = nj(
        [
            *opening("8H", "TC", "8D", "AS"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9D"),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
            settle("1.2", "push", 0),
            settle("1", "lose", W),
        ],
        peek=False,
    )
    assert findings(r, "$") == [want(TWICE, 10, "1", 0, -W, W)]


# --- A box's other hands are judged too ---------------------------------------------------------------------------


def test_hand_split_after_even_money_is_still_owed_its_settlement() -> None:
    # 0 1:AS, 1 dealer AC, 2 1:AD (12), 3 dealer 7D down (18), 4 even money 2500, 5 split 2500, 6 1:KH, 7 1.2:9C (20),
    # 8 reveal. Even money on a 12 is not allowed (no money: who may bet), is the settlement of hand 1, made before the
    # dealer was complete (complete at 8), and judged: the 12 loses to 18, -2500 due, +2500 paid. The split after it
    # is a decision on a complete hand; hand 1.2's wager of 2500 was never settled: 20 beats 18, 2500 due.
    r = nj(
        [
            *opening("AS", "AC", "AD", "7D"),
            even_money(1, W),
            split("1", W),
            deal("1", "KH"),
            deal("1.2", "9C"),
            reveal("dealer", "7D"),
        ]
    )
    assert findings(r, "$") == [
        want(EVEN_MONEY, 4, "1", "player blackjack, dealer ace", "AS+AD vs AC"),
        early(4, "1", 8),
        want(OUTCOME, 4, "1", -W, W, -2 * W),
        want("uncited:decision-on-complete-hand", 5, "1", "no decision on a complete hand", "split"),
        want(MISSING, None, "1.2", W, 0, W),
    ]


def test_split_hand_settled_with_one_card_leaves_the_other_hand_judged() -> None:
    # 0 1:8H, 1 dealer TC, 2 1:8D, 3 dealer 7S down (17), 4 split 2500, 5 hand 1 collected 2500 before its second
    # card, 6 1.2:9D (17; a card to 1.2 before hand 1 was completed: 13:69F-2.11(b)), 7 hand 1.2 collected 2500,
    # 8 reveal. Hand 1.2 was settled before the dealer was complete (complete at 8), and its 17 against the dealer's
    # 17 is a stand off: 0 due, -2500 collected.
    r = nj(
        [
            *opening("8H", "TC", "8D", "7S"),
            split("1", W),
            settle("1", "lose", W),
            deal("1.2", "9D"),
            settle("1.2", "lose", W),
            reveal("dealer", "7S"),
        ]
    )
    assert findings(r, "$") == [
        want("13:69F-2.11(b)", 6, "1", "next card to 1", "card to 1.2"),
        early(7, "1.2", 8),
        want(OUTCOME, 7, "1.2", 0, -W, W),
    ]


def test_split_hand_never_settled_leaves_the_other_hand_judged() -> None:
    # 0 1:8H, 1 dealer TC, 2 1:8D, 3 dealer 7S down (17), 4 split 2500, 5 1:TH (18), 6 1.2:9D (17), 7 hand 1.2
    # collected 2500, 8 reveal. Hand 1.2: settled before the dealer was complete, and a stand off was due (0, -2500
    # collected). Hand 1 was never settled: its 18 beats 17, 2500 due (section 2.2: event null, actual 0).
    r = nj(
        [
            *opening("8H", "TC", "8D", "7S"),
            split("1", W),
            deal("1", "TH"),
            deal("1.2", "9D"),
            settle("1.2", "lose", W),
            reveal("dealer", "7S"),
        ]
    )
    assert findings(r, "$") == [
        early(7, "1.2", 8),
        want(OUTCOME, 7, "1.2", 0, -W, W),
        want(MISSING, None, "1", W, 0, W),
    ]
