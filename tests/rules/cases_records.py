"""What real tables also record (``round-v1.md`` section 2.3, issue 19 part 3): burned cards, voided rounds and
settlements corrected at the table. Cases written from the spec before the engine implemented them, each finding
stated whole; a voided round's case also states the audit's ``void`` object.

* Burns count toward the shoe and no hand. A burn before the round's first deal, after the dealer's hand is complete
  (stood or busted by rule, or needing no card because every box was decided), or after a void is no finding; a burn
  in between is ``uncited:card-burned-during-play`` at the burn (no hand).
* After a ``void`` no card is dealt and no decision taken; every wager still in play is returned by a ``settle``
  with ``result: "void"`` (``"push"`` 0 reads the same). Settlements made before the void stand and are judged as
  usual; one that depended on the dealer's total was made before the dealer was complete (no money). A wager
  settled after the void as a win or a loss: ``uncited:void-wager-not-returned`` at that settle (expected 0); a
  wager never returned: the same key, event null, no ``amount_delta``. A deal or a player decision after the void:
  ``uncited:play-after-void`` at that event; a reveal after it is no finding.
* A ``settle`` with ``corrects: k`` replaces settlement k. A wrong settlement k is still reported at k, with
  ``corrected_by`` (the last correction), ``corrected_actual`` and ``amount_delta`` = expected - corrected_actual;
  a right settlement k whose last correction is wrong gives one finding at that correction; corrections in between
  are never findings.

Record contradictions (a ``corrects`` that names anything but an earlier settle of the same bet and hand or seat, a
burned card past the shoe's copies) are in ``test_records.py``: their verdict is ``unreplayable``.

Where neither the spec nor an existing check fixes the wording of a finding that is not about money, ``WORDS``
stands for it. New Jersey boxes wager 2500 on the test table (hole card, peek, stands on soft 17); New Zealand boxes
1000, dated 1995, the dealer's second card after the players.
"""

from __future__ import annotations

from typing import Any

from tests.builders import (
    a_round,
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
from tests.rules.case import WORDS, Case, Words, fires, quiet, want

W = 2500
NZ_W = 1000
SIDE = 100

BURN = "uncited:card-burned-during-play"
NOT_RETURNED = "uncited:void-wager-not-returned"
AFTER_VOID = "uncited:play-after-void"
EARLY = "uncited:settled-before-dealer-complete"
OUTCOME = "uncited:settlement-outcome"
BJ_ODDS = "uncited:blackjack-odds"


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """A New Jersey round on the test table; one box of 2500 unless ``seats`` says otherwise."""
    return a_round("US-NJ", seats=seats or [seat(1, W)], events=events, extra_rules=elections)


def nz(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """A New Zealand round on the test table; one box of 1000 unless ``seats`` says otherwise."""
    return a_round("NZ", seats=seats or [seat(1, NZ_W)], events=events, extra_rules=elections)


def opening(p1: str, up: str, p2: str, hole: str) -> list[dict[str, Any]]:
    """Events 0-3 of a one-box NJ round: player, dealer up card, player, dealer hole card face down."""
    return [deal("1", p1), deal("dealer", up), deal("1", p2), deal("dealer", hole, "down")]


def voided(at: int, reason: str) -> dict[str, Any]:
    """The audit's ``void`` object."""
    return {"event": at, "reason": reason}


def two_boxes_bust(first: dict[str, Any], second: dict[str, Any]) -> list[dict[str, Any]]:
    """NJ. 0 1<-TH, 1 2<-9C, 2 D<-7C, 3 1<-6D, 4 2<-8H, 5 D<-TS down, 6 1<-9D (25: busted), 7 ``first`` (box 1),
    8 void, 9 ``second`` (box 2)."""
    return [
        deal("1", "TH"),
        deal("2", "9C"),
        deal("dealer", "7C"),
        deal("1", "6D"),
        deal("2", "8H"),
        deal("dealer", "TS", "down"),
        deal("1", "9D"),
        first,
        void("equipment"),
        second,
    ]


def nj_void_after(
    *after: dict[str, Any], cards: tuple[str, str, str, str] = ("TH", "9C", "7D", "8S"), **elections: Any
) -> dict[str, Any]:
    """NJ. 0-3 the initial deal (``cards``: player, up, player, hole), 4 void (misdeal), then ``after`` (5, ...)."""
    return nj([*opening(*cards), void("misdeal"), *after], **elections)


def nj_split_double_void(*returns: dict[str, Any]) -> dict[str, Any]:
    """NJ. 0-3 8H 9C 8D 8S(down), 4 split, 5 1<-3C (11), 6 hand 1 doubles, 7 1<-9H (20), 8 void (equipment) while
    hand 1.2 waits for its second card; then ``returns`` (9, ...)."""
    ev = [
        *opening("8H", "9C", "8D", "8S"),
        split("1", W),
        deal("1", "3C"),
        double("1", W),
        deal("1", "9H"),
        void("equipment"),
        *returns,
    ]
    return nj(ev)


def nj_blackjack_corrected(first: int, *corrections: tuple[int, int]) -> dict[str, Any]:
    """NJ. 0-3 AH 9C KD 8S(down): a blackjack against a 9 (3750 due at 3 to 2), paid ``first`` at 4; 5 the reveal
    (17); then each correction (paid, corrects) at 6, 7, ..."""
    ev = [*opening("AH", "9C", "KD", "8S"), settle("1", "win", first), reveal("dealer", "8S")]
    ev += [settle("1", "win", paid, corrects=k) for paid, k in corrections]
    return nj(ev)


def nj_19_settled(*settles: dict[str, Any]) -> dict[str, Any]:
    """NJ. 0-3 TH 9C 9D 8S(down): 19 stands (4) against 17 (5 reveal); 2500 is due; ``settles`` from 6."""
    return nj([*opening("TH", "9C", "9D", "8S"), stand("1"), reveal("dealer", "8S"), *settles])


def nz_19_settled(*settles: dict[str, Any]) -> dict[str, Any]:
    """NZ. 0-2 KH 9C against 7D, 3 stand, 4 TS (17): 1000 is due; ``settles`` from 5."""
    return nz(
        [deal("1", "KH"), deal("dealer", "7D"), deal("1", "9C"), stand("1"), deal("dealer", "TS"), *settles]
    )


# ---------------------------------------------------------------------------------------------------------------

NJ_CASES: list[Case] = [
    # --- Burns. "Burns before the round's first deal, or after the dealer's hand is complete ... are the shoe's
    # business and no finding."
    quiet(
        BURN,
        "two cards burned before the first deal, one face up",
        nj(
            [
                burn("5C"),
                burn("6D", face="up"),
                *opening("TH", "9C", "9D", "8S"),
                stand("1"),
                reveal("dealer", "8S"),
                settle("1", "win", W),
            ]
        ),
    ),
    # 4 stand, 5 reveal: the dealer stands on 17 (complete), 6 a burn, 7 the 19 paid
    quiet(
        BURN,
        "a card burned after the dealer stood",
        nj_19_settled(burn("5C"), settle("1", "win", W)),
    ),
    # 0-3 TH 6C 6D TS(down), 4 hit, 5 9C (25), 6 collected, 7 reveal: 16, every box decided, no card needed; 8 burn
    quiet(
        BURN,
        "a card burned after every box busted and the dealer needed no card",
        nj(
            [
                *opening("TH", "6C", "6D", "TS"),
                hit("1"),
                deal("1", "9C"),
                settle("1", "lose", W),
                reveal("dealer", "TS"),
                burn("5C"),
            ]
        ),
    ),
    # "A burn in between removes a card that a hand or the dealer would otherwise have received."
    # 0-3 TH 9C 7D 8S(down), 4 hit, 5 burn, 6 1<-2C (19), 7 reveal (17), 8 paid
    fires(
        BURN,
        "a card burned between a hit and its card",
        nj(
            [
                *opening("TH", "9C", "7D", "8S"),
                hit("1"),
                burn("5C"),
                deal("1", "2C"),
                reveal("dealer", "8S"),
                settle("1", "win", W),
            ]
        ),
        "card_burned_during_play",
        want(BURN, 5, None, WORDS, WORDS),
    ),
    # 0-3 TH 6C 8D TS(down), 4 stand, 5 reveal (16), 6 burn, 7 D<-2C (18), 8 the 18 pushes
    fires(
        BURN,
        "a card burned before the dealer's draw",
        nj(
            [
                *opening("TH", "6C", "8D", "TS"),
                stand("1"),
                reveal("dealer", "TS"),
                burn("4H"),
                deal("dealer", "2C"),
                settle("1", "push", 0),
            ]
        ),
        "card_burned_during_play",
        want(BURN, 6, None, WORDS, WORDS),
    ),
    # 0 1<-TH, 1 burn (the round's first deal was event 0), 2 D<-9C, 3 1<-9D, 4 D<-8S down, 5 stand, 6 reveal, 7 paid
    fires(
        BURN,
        "a card burned during the initial deal",
        nj(
            [
                deal("1", "TH"),
                burn("5C"),
                deal("dealer", "9C"),
                deal("1", "9D"),
                deal("dealer", "8S", "down"),
                stand("1"),
                reveal("dealer", "8S"),
                settle("1", "win", W),
            ]
        ),
        "card_burned_during_play",
        want(BURN, 1, None, WORDS, WORDS),
    ),
    # --- Void. "After a void, no card is dealt and no decision is taken; every wager still in play ... is returned by
    # a settle with result: "void" and amount 0."
    quiet(
        NOT_RETURNED,
        "void after the initial deal; the wager returned",
        nj_void_after(settle("1", "void", 0)),
        void=voided(4, "misdeal"),
    ),
    # '"push" with 0 reads as "void" (the money decides).'
    quiet(
        NOT_RETURNED,
        "void after the initial deal; the wager returned as a push",
        nj_void_after(settle("1", "push", 0)),
        void=voided(4, "misdeal"),
    ),
    # "a reveal after it (showing the hole card) is not [a finding]"; a burn from the void on is the shoe's business.
    quiet(
        AFTER_VOID,
        "void; the hole card shown, a card burned, the wager returned",
        nj_void_after(reveal("dealer", "8S"), burn("5C"), settle("1", "void", 0)),
        void=voided(4, "misdeal"),
    ),
    # "main with its doubles and splits": 9 hand 1 (its wager and its double) and 10 hand 1.2 returned
    quiet(
        NOT_RETURNED,
        "void after a split and a double; both hands returned",
        nj_split_double_void(settle("1", "void", 0), settle("1.2", "void", 0)),
        void=voided(8, "equipment"),
    ),
    # "Settlements made before the void stand as recorded and are judged as usual": 0-3 TH AS 7D 8S(down), 4 the
    # losing same-suit wager collected after the second cards (right), 5 insurance, 6 void, 7 insurance and 8 the
    # main wager returned.
    quiet(
        NOT_RETURNED,
        "additional wager collected before the void; insurance and main wager returned",
        nj(
            [
                *opening("TH", "AS", "7D", "8S"),
                settle_additional(1, "lose", SIDE),
                insurance(1, W // 2),
                void("card_exposed"),
                settle_insurance(1, "void", 0),
                settle("1", "void", 0),
            ],
            seats=[seat(1, W, ("same_suit", SIDE))],
            additional_wager="same_suit",
        ),
        void=voided(6, "card_exposed"),
    ),
    quiet(
        OUTCOME,
        "a bust collected before the void; the other box returned",
        nj(two_boxes_bust(settle("1", "lose", W), settle("2", "void", 0)), seats=[seat(1, W), seat(2, W)]),
        void=voided(8, "equipment"),
    ),
    fires(
        OUTCOME,
        "a bust paid before the void is judged as usual",
        nj(two_boxes_bust(settle("1", "win", W), settle("2", "void", 0)), seats=[seat(1, W), seat(2, W)]),
        "bust_loses",
        want(OUTCOME, 7, "1", -W, W, -2 * W),
        void=voided(8, "equipment"),
    ),
    # A blackjack against a 9 depends on nothing: 0 1<-AH, 1 2<-TC, 2 D<-9C, 3 1<-KD, 4 2<-7H, 5 D<-8S down, 6 paid
    # 3 to 2, 7 void, 8 box 2 returned
    quiet(
        EARLY,
        "blackjack against a 9 paid before the void",
        nj(
            [
                deal("1", "AH"),
                deal("2", "TC"),
                deal("dealer", "9C"),
                deal("1", "KD"),
                deal("2", "7H"),
                deal("dealer", "8S", "down"),
                settle("1", "win", W * 3 // 2),
                void("other"),
                settle("2", "void", 0),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
        void=voided(7, "other"),
    ),
    # What was dealt before the void is judged as usual: a double card dealt face down at a face-up table is 19:47-2.10(c)
    # at its deal, whatever came after. (Regression: the engine skipped every double-card check of a voided hand.)
    # 0 1<-5C, 1 D<-9S, 2 1<-6H, 3 D<-7C down, 4 double, 5 the double card face down, 6 void, 7 returned
    fires(
        "19:47-2.10(c)",
        "a double card dealt face down before the void",
        nj(
            [
                *opening("5C", "9S", "6H", "7C"),
                double("1", W),
                deal("1", "2C", "down"),
                void("misdeal"),
                settle("1", "void", 0),
            ]
        ),
        "double_card_face",
        want("19:47-2.10(c)", 5, "1", "face up", "face down"),
        void=voided(6, "misdeal"),
    ),
    # "one that depended on the dealer's total was made before the dealer was complete (a sequence finding, no
    # money: the dealer never completed)". 4 stand, 5 the 19 paid, 6 void.
    fires(
        EARLY,
        "a standing 19 paid, then the round voided",
        nj([*opening("TH", "9C", "9D", "8S"), stand("1"), settle("1", "win", W), void("other")]),
        "settled_early",
        want(EARLY, 5, "1", WORDS, Words("settled at event 5")),
        void=voided(6, "other"),
    ),
    # "A wager in play at the void that is never settled is uncited:void-wager-not-returned, event null with its hand
    # or seat (its stake is the player's: no amount_delta)."
    fires(
        NOT_RETURNED,
        "void; the main wager never returned",
        nj_void_after(),
        "void_wager_not_returned",
        want(NOT_RETURNED, None, "1", 0, 0),
        void=voided(4, "misdeal"),
    ),
    fires(
        NOT_RETURNED,
        "void after a split; the second hand never returned",
        nj_split_double_void(settle("1", "void", 0)),
        "void_wager_not_returned",
        want(NOT_RETURNED, None, "1.2", 0, 0),
        void=voided(8, "equipment"),
    ),
    # 0-3 TH AS 9D 7C(down), 4 insurance, 5 void, 6 the main wager returned; the insurance (seat 1) is not
    fires(
        NOT_RETURNED,
        "void; the insurance never returned",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                insurance(1, W // 2),
                void("misdeal"),
                settle("1", "void", 0),
            ]
        ),
        "void_wager_not_returned",
        want(NOT_RETURNED, None, "1", 0, 0),
        void=voided(5, "misdeal"),
    ),
    # "A wager settled after the void as a win or a loss is a money finding (expected 0)".
    fires(
        NOT_RETURNED,
        "void; the main wager paid",
        nj_void_after(settle("1", "win", W)),
        "void_wager_not_returned",
        want(NOT_RETURNED, 5, "1", 0, W, -W),
        void=voided(4, "misdeal"),
    ),
    fires(
        NOT_RETURNED,
        "void; the main wager collected",
        nj_void_after(settle("1", "lose", W)),
        "void_wager_not_returned",
        want(NOT_RETURNED, 5, "1", 0, -W, W),
        void=voided(4, "misdeal"),
    ),
    # 0-3 TH AS 9D KC(down), 4 insurance, 5 void, 6 reveal (a blackjack: no finding after the void), 7 the insurance
    # paid 2 to 1 anyway, 8 the main wager returned
    fires(
        NOT_RETURNED,
        "void; the insurance paid when the hole card showed a blackjack",
        nj(
            [
                *opening("TH", "AS", "9D", "KC"),
                insurance(1, W // 2),
                void("shoe_error"),
                reveal("dealer", "KC"),
                settle_insurance(1, "win", W),
                settle("1", "void", 0),
            ]
        ),
        "void_wager_not_returned",
        want(NOT_RETURNED, 7, "1", 0, W, -W),
        void=voided(5, "shoe_error"),
    ),
    # "A deal or a player decision after the void is a finding at that event."
    # 0-3 TH 6C 8D TS(down), 4 void, 5 reveal (no finding), 6 the dealer draws, 7 returned
    fires(
        AFTER_VOID,
        "void; the dealer draws",
        nj_void_after(
            reveal("dealer", "TS"),
            deal("dealer", "2C"),
            settle("1", "void", 0),
            cards=("TH", "6C", "8D", "TS"),
        ),
        "play_after_void",
        want(AFTER_VOID, 6, "dealer", WORDS, WORDS),
        void=voided(4, "misdeal"),
    ),
    fires(
        AFTER_VOID,
        "void; a card to the box",
        nj_void_after(deal("1", "2C"), settle("1", "void", 0)),
        "play_after_void",
        want(AFTER_VOID, 5, "1", WORDS, WORDS),
        void=voided(4, "misdeal"),
    ),
    fires(
        AFTER_VOID,
        "void; the box hits",
        nj_void_after(hit("1"), settle("1", "void", 0)),
        "play_after_void",
        want(AFTER_VOID, 5, "1", WORDS, WORDS),
        void=voided(4, "misdeal"),
    ),
    fires(
        AFTER_VOID,
        "void; the open box stands",
        nj_void_after(stand("1"), settle("1", "void", 0)),
        "play_after_void",
        want(AFTER_VOID, 5, "1", WORDS, WORDS),
        void=voided(4, "misdeal"),
    ),
    # 0-3 6H 9C 5D 8S(down), 4 void, 5 a double on the 11, 6 the wager and its double returned
    fires(
        AFTER_VOID,
        "void; the box doubles",
        nj_void_after(double("1", W), settle("1", "void", 0), cards=("6H", "9C", "5D", "8S")),
        "play_after_void",
        want(AFTER_VOID, 5, "1", WORDS, WORDS),
        void=voided(4, "misdeal"),
    ),
    # 0-3 8H 9C 8D 8S(down), 4 void, 5 a split, 6-7 both hands returned
    fires(
        AFTER_VOID,
        "void; the box splits",
        nj_void_after(
            split("1", W), settle("1", "void", 0), settle("1.2", "void", 0), cards=("8H", "9C", "8D", "8S")
        ),
        "play_after_void",
        want(AFTER_VOID, 5, "1", WORDS, WORDS),
        void=voided(4, "misdeal"),
    ),
    # 0-3 TH TC 6D 9S(down), 4 void, 5 a late surrender, 6 returned
    fires(
        AFTER_VOID,
        "void; the box surrenders",
        nj_void_after(
            surrender("1"), settle("1", "void", 0), cards=("TH", "TC", "6D", "9S"), surrender="late"
        ),
        "play_after_void",
        want(AFTER_VOID, 5, "1", WORDS, WORDS),
        void=voided(4, "misdeal"),
    ),
    # 0-3 TH AS 9D 7C(down), 4 void, 5 insurance, 6-7 both wagers returned
    fires(
        AFTER_VOID,
        "void; insurance placed",
        nj_void_after(
            insurance(1, W // 2),
            settle_insurance(1, "void", 0),
            settle("1", "void", 0),
            cards=("TH", "AS", "9D", "7C"),
        ),
        "play_after_void",
        want(AFTER_VOID, 5, "1", WORDS, WORDS),
        void=voided(4, "misdeal"),
    ),
    # --- Corrections. "Settlement k is judged as usual, and its finding - the dealer's error - is still reported, at
    # event k, with corrected_by (the correction's event), actual (the net event k did) and corrected_actual (the net
    # after the correction); for such a finding amount_delta = expected - corrected_actual".
    fires(
        BJ_ODDS,
        "blackjack paid 1 to 1, corrected to 3 to 2",
        nj_blackjack_corrected(W, (3750, 4)),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 3750, W, 0, corrected_by=6, corrected_actual=3750),
    ),
    fires(
        BJ_ODDS,
        "blackjack paid 1 to 1, corrected to 3000: 750 still owed",
        nj_blackjack_corrected(W, (3000, 4)),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 3750, W, 750, corrected_by=6, corrected_actual=3000),
    ),
    # "only the last correction counts ... Corrections in between are never findings": 6 corrects 4 (to 3000), 7
    # corrects 4 again (to 3750)
    fires(
        BJ_ODDS,
        "blackjack paid 1 to 1, corrected twice (both naming the payment), right at last",
        nj_blackjack_corrected(W, (3000, 4), (3750, 4)),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 3750, W, 0, corrected_by=7, corrected_actual=3750),
    ),
    # "its corrects may name event k or the earlier correction": 7 corrects 6
    fires(
        BJ_ODDS,
        "blackjack paid 1 to 1, corrected twice (the second naming the first correction), right at last",
        nj_blackjack_corrected(W, (3000, 4), (3750, 6)),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 3750, W, 0, corrected_by=7, corrected_actual=3750),
    ),
    fires(
        BJ_ODDS,
        "blackjack paid 1 to 1, corrected to 3 to 2, then corrected again to 3000",
        nj_blackjack_corrected(W, (3750, 4), (3000, 6)),
        "bj_odds",
        want(BJ_ODDS, 4, "1", 3750, W, 750, corrected_by=7, corrected_actual=3000),
    ),
    # "if settlement k was right and the last correction is not, one finding at the last correction (expected the
    # right net, actual the corrected net)": 6 the 19 paid (right), 7 corrected to a loss
    fires(
        OUTCOME,
        "the 19 paid, then corrected to a loss",
        nj_19_settled(settle("1", "win", W), settle("1", "lose", W, corrects=6)),
        "higher_total",
        want(OUTCOME, 7, "1", W, -W, 2 * W),
    ),
    quiet(
        OUTCOME,
        "the 19 paid, the payment recorded again as a correction",
        nj_19_settled(settle("1", "win", W), settle("1", "win", W, corrects=6)),
    ),
    # 7 a wrong correction, 8 a correction of it restoring the payment: the last counts, and it is right
    quiet(
        OUTCOME,
        "the 19 paid, corrected to a loss, corrected back",
        nj_19_settled(
            settle("1", "win", W), settle("1", "lose", W, corrects=6), settle("1", "win", W, corrects=7)
        ),
    ),
    # An insurance correction. 0-3 TH AS 9D 7C(down), 4 insurance 1250, 5 peek, 6 the losing insurance collected
    # twice over, 7 corrected to 1250, 8 stand, 9 reveal (soft 18), 10 the 19 paid
    fires(
        "uncited:lose-collects-stake",
        "losing insurance collected twice over, corrected",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                insurance(1, W // 2),
                peek(False),
                settle_insurance(1, "lose", W),
                settle_insurance(1, "lose", W // 2, corrects=6),
                stand("1"),
                reveal("dealer", "7C"),
                settle("1", "win", W),
            ]
        ),
        "lose_amount",
        want("uncited:lose-collects-stake", 6, "1", -W // 2, -W, 0, corrected_by=7, corrected_actual=-W // 2),
    ),
    # An additional wager's correction. 0-3 6H 9C 7D 8S(down), 4 over 13 paid on 6+7 (it loses on 13), 5 corrected
    # to a loss, 6 1<-5C (18), 7 reveal (17), 8 the 18 paid
    fires(
        "13:69F-2.17(c)",
        "over 13 paid on 6+7, corrected to a loss",
        nj(
            [
                *opening("6H", "9C", "7D", "8S"),
                settle_additional(1, "win", SIDE),
                settle_additional(1, "lose", SIDE, corrects=4),
                deal("1", "5C"),
                reveal("dealer", "8S"),
                settle("1", "win", W),
            ],
            seats=[seat(1, W, ("over_13", SIDE))],
            additional_wager="over_under_13",
        ),
        "additional_13",
        want("13:69F-2.17(c)", 4, "1", -SIDE, SIDE, 0, corrected_by=5, corrected_actual=-SIDE),
    ),
]

NZ_CASES: list[Case] = [
    # --- Burns
    quiet(
        BURN,
        "a card burned before the first deal",
        nz(
            [
                burn("5C"),
                deal("1", "KH"),
                deal("dealer", "9D"),
                deal("1", "QC"),
                stand("1"),
                deal("dealer", "8S"),
                settle("1", "win", NZ_W),
            ]
        ),
    ),
    # 0-2 KH QC 9D, 3 stand, 4 8S (17: the dealer is complete), 5 burn, 6 paid
    quiet(
        BURN,
        "a card burned after the dealer stood",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "9D"),
                deal("1", "QC"),
                stand("1"),
                deal("dealer", "8S"),
                burn("5C"),
                settle("1", "win", NZ_W),
            ]
        ),
    ),
    # 3 stand, 4 burn before the dealer's second card, 5 8S, 6 paid
    fires(
        BURN,
        "a card burned before the dealer's second card",
        nz(
            [
                deal("1", "KH"),
                deal("dealer", "9D"),
                deal("1", "QC"),
                stand("1"),
                burn("5C"),
                deal("dealer", "8S"),
                settle("1", "win", NZ_W),
            ]
        ),
        "card_burned_during_play",
        want(BURN, 4, None, WORDS, WORDS),
    ),
    # 0-2 TH 7C 9D, 3 hit, 4 burn, 5 1<-2S (19), 6 8S (17), 7 paid
    fires(
        BURN,
        "a card burned between a hit and its card",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "9D"),
                deal("1", "7C"),
                hit("1"),
                burn("5C"),
                deal("1", "2S"),
                deal("dealer", "8S"),
                settle("1", "win", NZ_W),
            ]
        ),
        "card_burned_during_play",
        want(BURN, 4, None, WORDS, WORDS),
    ),
    # --- Void. 0-2 TH 7D against 9C, 3 void, then ...
    quiet(
        NOT_RETURNED,
        "void after the initial deal; the wager returned",
        nz([deal("1", "TH"), deal("dealer", "9C"), deal("1", "7D"), void("misdeal"), settle("1", "void", 0)]),
        void=voided(3, "misdeal"),
    ),
    fires(
        NOT_RETURNED,
        "void; the wager never returned",
        nz([deal("1", "TH"), deal("dealer", "9C"), deal("1", "7D"), void("misdeal")]),
        "void_wager_not_returned",
        want(NOT_RETURNED, None, "1", 0, 0),
        void=voided(3, "misdeal"),
    ),
    fires(
        NOT_RETURNED,
        "void; the wager paid",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "9C"),
                deal("1", "7D"),
                void("misdeal"),
                settle("1", "win", NZ_W),
            ]
        ),
        "void_wager_not_returned",
        want(NOT_RETURNED, 4, "1", 0, NZ_W, -NZ_W),
        void=voided(3, "misdeal"),
    ),
    # 0-2 9H 8C against AD, 3 insurance, 4 void, 5 the main wager returned; the insurance is not
    fires(
        NOT_RETURNED,
        "void; the insurance never returned",
        nz(
            [
                deal("1", "9H"),
                deal("dealer", "AD"),
                deal("1", "8C"),
                insurance(1, 500),
                void("other"),
                settle("1", "void", 0),
            ]
        ),
        "void_wager_not_returned",
        want(NOT_RETURNED, None, "1", 0, 0),
        void=voided(4, "other"),
    ),
    # 3 void, 4 the dealer's second card after it, 5 returned
    fires(
        AFTER_VOID,
        "void; the dealer takes a second card",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "9C"),
                deal("1", "7D"),
                void("misdeal"),
                deal("dealer", "8S"),
                settle("1", "void", 0),
            ]
        ),
        "play_after_void",
        want(AFTER_VOID, 4, "dealer", WORDS, WORDS),
        void=voided(3, "misdeal"),
    ),
    # 3 void, 4 a card burned (from the void on, the shoe's business), 5 returned
    quiet(
        AFTER_VOID,
        "void; a card burned after it, the wager returned",
        nz(
            [
                deal("1", "TH"),
                deal("dealer", "9C"),
                deal("1", "7D"),
                void("misdeal"),
                burn("5C"),
                settle("1", "void", 0),
            ]
        ),
        void=voided(3, "misdeal"),
    ),
    # 0 1<-TH, 1 2<-9C, 2 D<-7C, 3 1<-6D, 4 2<-8H, 5 1<-9D (25), 6 the bust collected, 7 void, 8 box 2 returned
    quiet(
        OUTCOME,
        "a bust collected before the void; the other box returned",
        nz(
            [
                deal("1", "TH"),
                deal("2", "9C"),
                deal("dealer", "7C"),
                deal("1", "6D"),
                deal("2", "8H"),
                deal("1", "9D"),
                settle("1", "lose", NZ_W),
                void("equipment"),
                settle("2", "void", 0),
            ],
            seats=[seat(1, NZ_W), seat(2, NZ_W)],
        ),
        void=voided(7, "equipment"),
    ),
    # --- Corrections. 0-2 KH 9C against 7D, 3 stand, 4 TS (17): the 19 wins 1000 (4.1(b)).
    fires(
        "4.1(b)",
        "the 19 collected, corrected to a payment",
        nz_19_settled(settle("1", "lose", NZ_W), settle("1", "win", NZ_W, corrects=5)),
        "higher_total",
        want("4.1(b)", 5, "1", NZ_W, -NZ_W, 0, corrected_by=6, corrected_actual=NZ_W),
    ),
    fires(
        "4.1(b)",
        "the 19 collected, corrected to a push: 1000 still owed",
        nz_19_settled(settle("1", "lose", NZ_W), settle("1", "push", 0, corrects=5)),
        "higher_total",
        want("4.1(b)", 5, "1", NZ_W, -NZ_W, NZ_W, corrected_by=6, corrected_actual=0),
    ),
    fires(
        "4.1(b)",
        "the 19 paid, then corrected to a push",
        nz_19_settled(settle("1", "win", NZ_W), settle("1", "push", 0, corrects=5)),
        "higher_total",
        want("4.1(b)", 6, "1", NZ_W, 0, NZ_W),
    ),
    quiet(
        "4.1(b)",
        "the 19 paid, corrected to a push, corrected back",
        nz_19_settled(
            settle("1", "win", NZ_W), settle("1", "push", 0, corrects=5), settle("1", "win", NZ_W, corrects=6)
        ),
    ),
]
