"""US-NJ rule cases: for every checkable NJ rule (and every role nj.ENTRIES binds) a round that breaks it once,
at a known event, and the closest legal variant, on which nothing at all may be reported.

Every round is a hole-card game as NJ deals it (player, dealer up card, player, dealer hole card face down; the
hole card turned up after the players have acted) on the test table of ``tests.builders.NJ_RULES`` (6 decks,
dealer stands on soft 17, blackjack 3 to 2, dealer peeks with an ace or ten up) unless the case says otherwise.
Each round is legal and correctly settled except for the one fault it is about; ``fires_at`` is the 0-based index
of the faulty event (``None`` for an absence or an election).

Cases marked "Regression" once failed against the engine; the comment says what the engine got wrong.
"""

from __future__ import annotations

import itertools
from typing import Any

from tests.builders import (
    NJ_RULES,
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
    settle_additional,
    settle_insurance,
    split,
    stand,
    surrender,
)
from tests.rules.case import Case, fires, quiet, want

W = 2500
"""The original wager on every box (cents)."""
HALF = W // 2
BJ_3_2 = W * 3 // 2  # 3750
BJ_6_5 = W * 6 // 5  # 3000
SIDE = 100
"""The $1.00 additional wager of 13:69F-2.17(a)."""

# Table elections, amending the test table.
NO_PEEK: dict[str, Any] = {"peek": False}
H17: dict[str, Any] = {"dealer_soft_17": "hit"}
SIX_FIVE: dict[str, Any] = {"blackjack_pays": "6:5", "dealer_soft_17": "hit"}
HAND_DEALT: dict[str, Any] = {"dealt_from": "hand", "decks": 2}
LATE_SURRENDER: dict[str, Any] = {"surrender": "late"}
UNKNOWN_OPTION: dict[str, Any] = {k: v for k, v in NJ_RULES.items() if k != "dealer_soft_17"}
"""The test table with no soft-17 option recorded (and none registered, and NJ has no default)."""

_ids = itertools.count(1)


def nj(
    events: list[dict[str, Any]],
    *,
    seats: list[dict[str, Any]] | None = None,
    rules: dict[str, Any] | None = None,
    **elections: Any,
) -> dict[str, Any]:
    """A US-NJ round on the test table, with ``elections`` amending its rules (``rules`` replaces them)."""
    return a_round(
        "US-NJ",
        seats=seats if seats is not None else [seat(1, W)],
        events=events,
        rules=rules,
        extra_rules=elections,
        round_id=f"NJ-CASE-{next(_ids):03d}",
    )


def opening(p1: str, up: str, p2: str, hole: str, hand: str = "1") -> list[dict[str, Any]]:
    """Events 0-3 of a one-seat round: player card, dealer up card, player card, dealer hole card face down."""
    return [deal(hand, p1), deal("dealer", up), deal(hand, p2), deal("dealer", hole, "down")]


def opening2(one: tuple[str, str], two: tuple[str, str], up: str, hole: str) -> list[dict[str, Any]]:
    """Events 0-5 of a two-seat round: 1, 2, dealer up, 1, 2, dealer hole card face down."""
    return [
        deal("1", one[0]),
        deal("2", two[0]),
        deal("dealer", up),
        deal("1", one[1]),
        deal("2", two[1]),
        deal("dealer", hole, "down"),
    ]


def dealer_plays(hole: str, *draws: str) -> list[dict[str, Any]]:
    """The dealer turns up the hole card, then draws."""
    return [reveal("dealer", hole), *(deal("dealer", c) for c in draws)]


def two_seats() -> list[dict[str, Any]]:
    return [seat(1, W), seat(2, W)]


def with_side(kind: str, amount: int = SIDE) -> list[dict[str, Any]]:
    return [seat(1, W, (kind, amount))]


# ---------------------------------------------------------------------------------------------------------------
# Shapes shared by a firing case and its quiet variant


def busted_hand(extra: str | None = None) -> dict[str, Any]:
    """T+6 draws 9 and busts; the dealer (6+T) turns the hole card and, every hand decided, stops on 16.
    ``extra``: a card wrongly dealt to the busted hand (event 6)."""
    ev = [*opening("TH", "6C", "6D", "TS"), hit("1"), deal("1", "9C")]
    if extra:
        ev.append(deal("1", extra))
    return nj([*ev, settle("1", "lose", W), *dealer_plays("TS")])


def soft_21(extra: str | None) -> dict[str, Any]:
    """A+5 draws 5 (soft 21); ``extra`` is a card wrongly dealt on the 21 (event 6). Dealer 9+8."""
    ev = [*opening("AH", "9C", "5D", "8S"), hit("1"), deal("1", "5C")]
    ev += [deal("1", extra)] if extra else [stand("1")]
    # A+5+5 = 21, or with a 9 dealt on it a hard 20: both beat the dealer's 17.
    return nj([*ev, *dealer_plays("8S"), settle("1", "win", W)])


def split_tens(*, extra: str | None = None, pays_1: int = W) -> dict[str, Any]:
    """T+T split against a dealer 7+T; hand 1 draws an ace (a two-card 21, not a blackjack), hand 1.2 a 9.
    ``extra``: a card wrongly dealt to the 21 (event 6)."""
    ev = [*opening("TH", "7C", "TD", "TS"), split("1", W), deal("1", "AC")]
    if extra:
        ev.append(deal("1", extra))
    ev += [deal("1.2", "9S"), *dealer_plays("TS")]
    first = settle("1", "lose", W) if extra else settle("1", "win", pays_1)  # T+A+4 = 15 loses to 17
    return nj([*ev, first, settle("1.2", "win", W)])


def double_11(*, amount: int = W, card_face: str = "up") -> list[dict[str, Any]]:
    """Events 0-5: 6+5 doubles (event 4) against a dealer 9 (hole 7) and draws a king (21, event 5)."""
    return [*opening("6H", "9C", "5D", "7S"), double("1", amount), deal("1", "KD", card_face)]


def two_busts(dealer_draw: bool) -> dict[str, Any]:
    """Both seats bust; the dealer 6+T (16) turns the hole card and ``dealer_draw`` a 4 (event 11)."""
    ev = [
        *opening2(("TH", "6D"), ("9C", "5H"), "6C", "TS"),
        deal("1", "9D"),  # 6: 25
        settle("1", "lose", W),
        deal("2", "8S"),  # 8: 22
        settle("2", "lose", W),
        *dealer_plays("TS", *(["4H"] if dealer_draw else [])),
    ]
    return nj(ev, seats=two_seats())


def eights_split(*, amount: int = W) -> list[dict[str, Any]]:
    """Events 0-4: 8+8 against a dealer 9 (hole 8, 17), split at event 4."""
    return [*opening("8H", "9C", "8D", "8S"), split("1", amount)]


def four_hands(boxes: int) -> dict[str, Any]:
    """8s split three times (events 4, 6, 8) into four hands, each drawing a ten; dealer 9+7 draws a 6 and busts."""
    ev = [
        *opening("8H", "9C", "8D", "7S"),
        split("1", W),
        deal("1", "8C"),
        split("1", W),
        deal("1", "8S"),
        split("1", W),  # 8: the fourth hand
        deal("1", "TH"),
        deal("1.2", "TD"),
        deal("1.3", "TC"),
        deal("1.4", "TS"),
        *dealer_plays("7S", "6H"),
        *(settle(h, "win", W) for h in ("1", "1.2", "1.3", "1.4")),
    ]
    return nj(ev, resplit=True, boxes=boxes)


def aces_resplit(**elections: Any) -> dict[str, Any]:
    """A+A split (event 4); hand 1 draws a third ace and is split again (event 6). Dealer 9+7 draws a 5: 21."""
    ev = [
        *opening("AH", "9C", "AD", "7S"),
        split("1", W),
        deal("1", "AC"),
        split("1", W),  # 6
        deal("1", "9H"),  # A+9 = 20
        deal("1.2", "KD"),  # A+K = 21 after a split: not a blackjack
        deal("1.3", "7C"),  # A+7 = 18
        *dealer_plays("7S", "5H"),  # 21
        settle("1", "lose", W),
        settle("1.2", "push", 0),
        settle("1.3", "lose", W),
    ]
    return nj(ev, resplit=True, **elections)


def no_peek_split(second: dict[str, Any]) -> dict[str, Any]:
    """No-peek game: 8+8 split against a dealer T (hole A); the blackjack shows after play (event 7). Hand 1 is
    settled at event 8; ``second`` settles hand 1.2 (event 9)."""
    ev = [
        *opening("8H", "TC", "8D", "AS"),
        split("1", W),
        deal("1", "TH"),
        deal("1.2", "9D"),
        *dealer_plays("AS"),
        settle("1", "lose", W),
        second,
    ]
    return nj(ev, **NO_PEEK)


def no_peek_double(collected: int, busts: bool = False) -> dict[str, Any]:
    """No-peek game: 5+6 doubles against a dealer ace and draws a 9 (20) or, ``busts``, 7+5 doubles and draws a
    queen (22); the hole king shows a blackjack (event 6); the hand is settled at event 7."""
    p1, p2, third = ("7H", "5C", "QD") if busts else ("5H", "6C", "9D")
    ev = [*opening(p1, "AS", p2, "KD"), double("1", W), deal("1", third), *dealer_plays("KD")]
    return nj([*ev, settle("1", "lose", collected)], **NO_PEEK)


def insured(amount: int, *, collected: bool = True) -> dict[str, Any]:
    """T+9 against a dealer ace; insurance placed (event 4); the peek finds no blackjack (hole 7: soft 18); the
    losing insurance collected at event 6 (unless not ``collected``); 19 beats 18."""
    ev = [*opening("TH", "AS", "9D", "7C"), insurance(1, amount), peek(False)]
    ev += [settle_insurance(1, "lose", amount)] if collected else []
    return nj([*ev, stand("1"), *dealer_plays("7C"), settle("1", "win", W)])


def insured_vs_blackjack(result: str, amount: int) -> dict[str, Any]:
    """T+9 insures for half against a dealer ace; the peek finds a blackjack; insurance settled at event 7."""
    ev = [
        *opening("TH", "AS", "9D", "KC"),
        insurance(1, HALF),
        peek(True),
        *dealer_plays("KC"),
        settle_insurance(1, result, amount),
        settle("1", "lose", W),
    ]
    return nj(ev)


def even_money_round(
    amount: int, hole: str = "5C", up: str = "AS", p: tuple[str, str] = ("AH", "KD")
) -> dict[str, Any]:
    """A blackjack takes even money (event 4) against a dealer ace; every hand decided, the dealer stops."""
    ev = [*opening(p[0], up, p[1], hole), even_money(1, amount), peek(hole[0] in "TJQK" and up[0] == "A")]
    return nj([*ev, *dealer_plays(hole)])


def surrendered(*, collected: int = HALF, **elections: Any) -> dict[str, Any]:
    """T+6 against a dealer ten: peek (no blackjack), late surrender (event 5), half collected (event 6)."""
    ev = [
        *opening("TH", "TC", "6D", "9S"),
        peek(False),
        surrender("1"),
        settle("1", "surrender", collected),
        *dealer_plays("9S"),
    ]
    return nj(ev, **{**LATE_SURRENDER, **elections})


def same_suit(
    p2: str, side: tuple[str, int] | None, *, late: bool = False, **elections: Any
) -> dict[str, Any]:
    """5H and ``p2`` with a same-suit wager; the additional wager is settled at event 4 (or, ``late``, after the hit
    card, at event 5); the 11 draws a ten and beats the dealer's 9+8."""
    ev = opening("5H", "9C", p2, "8S")
    side_ev = [settle_additional(1, *side)] if side else []
    ev += [deal("1", "TD"), *side_ev] if late else [*side_ev, deal("1", "TD")]
    return nj(
        [*ev, *dealer_plays("8S"), settle("1", "win", W)],
        seats=with_side("same_suit"),
        **{"additional_wager": "same_suit", **elections},
    )


def over_under(kind: str, p1: str, p2: str, draw: str, side: tuple[str, int] | None) -> dict[str, Any]:
    """An over/under-13 wager on ``p1``+``p2``, settled at event 4; the player draws ``draw`` to 18 (beating the
    dealer's 9+8)."""
    side_ev = [settle_additional(1, *side)] if side else []
    ev = [*opening(p1, "9C", p2, "8S"), *side_ev, deal("1", draw), *dealer_plays("8S"), settle("1", "win", W)]
    return nj(ev, seats=with_side(kind), additional_wager="over_under_13")


def seven_wager(
    up: str, hole: str, p2: str, draw: str, side: tuple[str, int], **elections: Any
) -> dict[str, Any]:
    """A seven wager on 5H+``p2`` and the dealer's first card ``up``, settled at event 4; the player draws
    ``draw`` and wins the main wager."""
    ev = [*opening("5H", up, p2, hole), settle_additional(1, *side), deal("1", draw), *dealer_plays(hole)]
    return nj(
        [*ev, settle("1", "win", W)], seats=with_side("seven"), **{"additional_wager": "seven", **elections}
    )


def plain(**elections: Any) -> dict[str, Any]:
    """A plain round: T+9 stands on 19 against a dealer 9+8; paid 1 to 1. Legal at any table."""
    return nj(
        [*opening("TH", "9C", "9D", "8S"), stand("1"), *dealer_plays("8S"), settle("1", "win", W)],
        **elections,
    )


def stands_against(
    p: tuple[str, str], up: str, hole: str, *draws: str, result: str, amount: int, **elections: Any
) -> dict[str, Any]:
    """The player stands on two cards (event 4); the dealer turns the hole card (5) and draws (6...); the hand is
    settled last."""
    ev = [
        *opening(p[0], up, p[1], hole),
        stand("1"),
        *dealer_plays(hole, *draws),
        settle("1", result, amount),
    ]
    return nj(ev, **elections)


# ---------------------------------------------------------------------------------------------------------------

CASES: list[Case] = [
    # ------------------------------------------------------------------------------------------------------------
    # 13:69F-2.12(a): a player draws only below 21
    fires(
        "13:69F-2.12(a)",
        "card dealt to a hand that had already busted",
        busted_hand(extra="3H"),
        "hit_over_21",
        want("13:69F-2.12(a)", 6, "1", "draws only below 21", "drew 3H on 25"),
    ),
    quiet("13:69F-2.12(a)", "busted hand collected, no further card", busted_hand()),
    quiet(
        "13:69F-2.12(a)",
        "a hit on hard 20 is the player's choice",
        nj(
            [
                *opening("TH", "6C", "QD", "TS"),
                hit("1"),
                deal("1", "AC"),
                *dealer_plays("TS", "8H"),
                settle("1", "win", W),
            ]
        ),
    ),
    # 13:69F-2.12(a)1: no draw on a blackjack or a hard or soft 21
    fires(
        "13:69F-2.12(a)1",
        "card dealt on a soft 21",
        soft_21(extra="9H"),
        "hit_on_21",
        want("13:69F-2.12(a)1", 6, "1", "no card on 21", "drew 9H on 21"),
    ),
    fires(
        "13:69F-2.12(a)1",
        "card dealt to a blackjack",
        nj([*opening("AH", "9C", "KD", "8S"), deal("1", "5C"), *dealer_plays("8S"), settle("1", "lose", W)]),
        "hit_on_21",
        want("13:69F-2.12(a)1", 4, "1", "no card on 21", "drew 5C on 21"),
    ),
    fires(
        "13:69F-2.12(a)1",
        "card dealt on a two-card 21 after splitting tens",
        split_tens(extra="4H"),
        "hit_on_21",
        want("13:69F-2.12(a)1", 6, "1", "no card on 21", "drew 4H on 21"),
    ),
    quiet("13:69F-2.12(a)1", "stands on a soft 21", soft_21(extra=None)),
    quiet(
        "13:69F-2.12(a)1",
        "blackjack paid 3 to 2 at once against a dealer 9, no card dealt to it",
        nj([*opening("AH", "9C", "KD", "8S"), settle("1", "win", BJ_3_2), *dealer_plays("8S")]),
    ),
    quiet("13:69F-2.12(a)1", "two-card 21 after a split stands and is paid 1 to 1", split_tens()),
    # 13:69F-2.12(a)2: one and only one card to a doubled hand
    fires(
        "13:69F-2.12(a)2",
        "second card dealt to a doubled hand",
        nj(
            [
                *opening("5H", "9C", "4D", "8S"),
                double("1", W),
                deal("1", "3C"),
                deal("1", "7H"),
                *dealer_plays("8S"),
                settle("1", "win", 2 * W),
            ]
        ),
        "double_one_card",
        want("13:69F-2.12(a)2", 6, "1", "one card after the double", "7H as an extra card"),
    ),
    fires(
        "13:69F-2.12(a)2",
        "doubled hand never dealt its card",
        nj(
            [
                *opening("6H", "9C", "5D", "8S"),
                double("1", W),
                *dealer_plays("8S"),
                settle("1", "lose", 2 * W),
            ]
        ),
        "double_one_card",
        want("13:69F-2.12(a)2", None, "1", "one card after the double", "no card"),
    ),
    quiet(
        "13:69F-2.12(a)2",
        "6+5 doubles, draws one card, is paid on both wagers",
        nj([*double_11(), *dealer_plays("7S", "4C"), settle("1", "win", 2 * W)]),
    ),
    # 13:69F-2.12(a)3 and 2.11(c)2: split aces get one card each (one fault, both provisions)
    fires(
        "13:69F-2.12(a)3",
        "hit on a split ace",
        nj(
            [
                *opening("AH", "9C", "AD", "8S"),
                split("1", W),
                deal("1", "5C"),
                deal("1", "3H"),
                deal("1.2", "9S"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
            ]
        ),
        "split_aces_draw",
        want("13:69F-2.11(c)2", 6, "1", "no further card", "3H"),
        want("13:69F-2.12(a)3", 6, "1", "no further card", "3H"),
    ),
    fires(
        # Spec section 2.1: the double on the complete split ace is the finding (event 6); the card that answers it
        # is the same fault, not a second finding.
        "13:69F-2.11(c)2",
        "double down on a split ace",
        nj(
            [
                *opening("AH", "9C", "AD", "8S"),
                split("1", W),
                deal("1", "6C"),
                double("1", W),
                deal("1", "3H"),
                deal("1.2", "7S"),
                *dealer_plays("8S"),
                settle("1", "win", 2 * W),
                settle("1.2", "win", W),
            ]
        ),
        "split_aces_more",
        want("13:69F-2.11(c)2", 6, "1", "no further card", "double down"),
        want("13:69F-2.12(a)3", 6, "1", "no further card", "double down"),
    ),
    quiet(
        "13:69F-2.12(a)3",
        "split aces take one card each; ace+king is 21, paid 1 to 1",
        nj(
            [
                *opening("AH", "9C", "AD", "8S"),
                split("1", W),
                deal("1", "KC"),
                deal("1.2", "7S"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
            ]
        ),
    ),
    quiet(
        "13:69F-2.11(c)2",
        "split aces take one card each and stand, a soft 13 included",
        nj(
            [
                *opening("AH", "9C", "AD", "8S"),
                split("1", W),
                deal("1", "2C"),
                deal("1.2", "9S"),
                *dealer_plays("8S"),
                settle("1", "lose", W),
                settle("1.2", "win", W),
            ]
        ),
    ),
    # ------------------------------------------------------------------------------------------------------------
    # 13:69F-2.12(b)1: dealer stands on all 17s (this table's option)
    fires(
        "13:69F-2.12(b)1",
        "dealer draws on hard 17",
        stands_against(("KH", "QD"), "TC", "7S", "2H", result="win", amount=W),
        "draw_s17",
        want("13:69F-2.12(b)1", 6, "dealer", "stand on hard 17", "drew 2H"),
    ),
    fires(
        "13:69F-2.12(b)1",
        "dealer draws on soft 17",
        stands_against(("TH", "8D"), "6C", "AS", "4H", result="lose", amount=W),
        "draw_s17",
        # Spec 2.2: the draw carries no money; the settlement, judged against the dealer's 17, does.
        want("13:69F-2.12(b)1", 6, "dealer", "stand on soft 17", "drew 4H"),
        want("uncited:settlement-outcome", 7, "1", W, -W, 2 * W),
    ),
    fires(
        "13:69F-2.12(b)1",
        "dealer stops on 16 with a live hand",
        stands_against(("TH", "8D"), "6C", "TS", result="win", amount=W),
        "draw_s17",
        want("13:69F-2.12(b)1", None, "dealer", "draw on hard 16", "stood"),
    ),
    quiet(
        "13:69F-2.12(b)1",
        "dealer stands on soft 17",
        stands_against(("TH", "8D"), "6C", "AS", result="win", amount=W),
    ),
    quiet(
        "13:69F-2.12(b)1",
        "dealer draws 16 to a hard 17 and stands",
        stands_against(("TH", "8D"), "6C", "TS", "AH", result="win", amount=W),
    ),
    quiet(
        "13:69F-2.12(b)1",
        "dealer draws soft 16 to a two-ace soft 17 and stands",
        stands_against(("TH", "8D"), "5C", "AS", "AH", result="win", amount=W),
    ),
    # 13:69F-2.12(b)2: dealer hits soft 17 (the table's option)
    fires(
        "13:69F-2.12(b)2",
        "hit-soft-17 table: dealer stands on soft 17",
        stands_against(("TH", "8D"), "6C", "AS", result="win", amount=W, **H17),
        "draw_h17",
        want("13:69F-2.12(b)2", None, "dealer", "draw on soft 17", "stood"),
    ),
    fires(
        "13:69F-2.12(b)2",
        "hit-soft-17 table: dealer draws on hard 17",
        stands_against(("TH", "9D"), "7C", "TS", "2H", result="push", amount=0, **H17),
        "draw_h17",
        want("13:69F-2.12(b)2", 6, "dealer", "stand on hard 17", "drew 2H"),
        want("uncited:settlement-outcome", 7, "1", W, 0, W),
    ),
    quiet(
        "13:69F-2.12(b)2",
        "hit-soft-17 table: dealer hits soft 17 to 21",
        stands_against(("TH", "8D"), "6C", "AS", "4H", result="lose", amount=W, **H17),
    ),
    quiet(
        "13:69F-2.12(b)2",
        "hit-soft-17 table: dealer stands on soft 18",
        stands_against(("TH", "9D"), "7C", "AS", result="win", amount=W, **H17),
    ),
    # 13:69F-2.12(b): option unknown; only what both options require is checked
    fires(
        "13:69F-2.12(b)",
        "no option known: dealer draws on hard 17",
        stands_against(("TH", "9D"), "7C", "TS", "2H", result="push", amount=0, rules=UNKNOWN_OPTION),
        "draw_unknown",
        want("13:69F-2.12(b)", 6, "dealer", "stand on hard 17", "drew 2H"),
        want("uncited:settlement-outcome", 7, "1", W, 0, W),
    ),
    fires(
        "13:69F-2.12(b)",
        "no option known: dealer stops on 16",
        stands_against(("TH", "8D"), "6C", "TS", result="win", amount=W, rules=UNKNOWN_OPTION),
        "draw_unknown",
        want("13:69F-2.12(b)", None, "dealer", "draw on hard 16", "stood"),
    ),
    quiet(
        "13:69F-2.12(b)",
        "no option known: dealer stands on soft 17",
        stands_against(("TH", "8D"), "6C", "AS", result="win", amount=W, rules=UNKNOWN_OPTION),
    ),
    quiet(
        "13:69F-2.12(b)",
        "no option known: dealer hits soft 17",
        stands_against(("TH", "8D"), "6C", "AS", "4H", result="lose", amount=W, rules=UNKNOWN_OPTION),
    ),
    # 13:69F-2.12(c): no needless dealer draw
    fires(
        "13:69F-2.12(c)",
        "dealer draws after every player hand busted",
        two_busts(dealer_draw=True),
        "needless_draw",
        want("13:69F-2.12(c)", 11, "dealer", "no further dealer card", "drew 4H"),
    ),
    fires(
        "13:69F-2.12(c)",
        "dealer draws when one hand busted and the other was a paid blackjack",
        nj(
            [
                *opening2(("AH", "KD"), ("9C", "5H"), "6C", "TS"),
                settle("1", "win", BJ_3_2),
                deal("2", "8S"),
                settle("2", "lose", W),
                *dealer_plays("TS", "4H"),
            ],
            seats=two_seats(),
        ),
        "needless_draw",
        want("13:69F-2.12(c)", 10, "dealer", "no further dealer card", "drew 4H"),
    ),
    quiet(
        "13:69F-2.12(c)",
        "every hand busted: dealer turns the hole card and stops on 16",
        two_busts(dealer_draw=False),
    ),
    quiet(
        "13:69F-2.12(c)",
        "one hand busted, the other stands on 14: the dealer must draw",
        nj(
            [
                *opening2(("TH", "6D"), ("9C", "5H"), "6C", "TS"),
                deal("1", "9D"),
                settle("1", "lose", W),
                stand("2"),
                *dealer_plays("TS", "4H"),
                settle("2", "lose", W),
            ],
            seats=two_seats(),
        ),
    ),
    # 13:69F-2.12(d): the 6 to 5 variation hits soft 17
    fires(
        "13:69F-2.12(d)",
        "6 to 5 table: dealer stands on soft 17",
        stands_against(("TH", "8D"), "6C", "AS", result="win", amount=W, **SIX_FIVE),
        "draw_6to5",
        want("13:69F-2.12(d)", None, "dealer", "draw on soft 17", "stood"),
    ),
    fires(
        "13:69F-2.12(d)",
        "6 to 5 table with no soft-17 election: dealer stands on soft 17",
        stands_against(
            ("TH", "8D"),
            "6C",
            "AS",
            result="win",
            amount=W,
            rules={**UNKNOWN_OPTION, "blackjack_pays": "6:5"},
        ),
        "draw_6to5",
        want("13:69F-2.12(d)", None, "dealer", "draw on soft 17", "stood"),
    ),
    fires(
        "13:69F-2.12(d)",
        "6 to 5 table elects to stand on soft 17",
        stands_against(
            ("TH", "QD"), "9C", "TS", result="win", amount=W, blackjack_pays="6:5", dealer_soft_17="stand"
        ),
        "elect_6to5_soft17",
        want("13:69F-2.12(d)", None, None, "hit soft 17", "stand on soft 17"),
    ),
    quiet(
        "13:69F-2.12(d)",
        "6 to 5 table: dealer hits soft 17",
        stands_against(("TH", "8D"), "6C", "AS", "2H", result="lose", amount=W, **SIX_FIVE),
    ),
    quiet(
        "13:69F-2.12(d)",
        "6 to 5 table: dealer stands on hard 17",
        stands_against(("TH", "8D"), "7C", "TS", result="win", amount=W, **SIX_FIVE),
    ),
    # 13:69F-2.12(e): a hand-dealt game may elect hit soft 17
    fires(
        "13:69F-2.12(e)",
        "hand-dealt hit-soft-17 table: dealer stands on soft 17",
        stands_against(("TH", "8D"), "6C", "AS", result="win", amount=W, **HAND_DEALT, **H17),
        "draw_hand_dealt",
        want("13:69F-2.12(e)", None, "dealer", "draw on soft 17", "stood"),
    ),
    fires(
        "13:69F-2.12(e)",
        "hand-dealt hit-soft-17 table: dealer draws on soft 18",
        stands_against(("TH", "8D"), "7C", "AS", "2H", result="lose", amount=W, **HAND_DEALT, **H17),
        "draw_hand_dealt",
        want("13:69F-2.12(e)", 6, "dealer", "stand on soft 18", "drew 2H"),
        want("uncited:settlement-outcome", 7, "1", 0, -W, W),
    ),
    quiet(
        "13:69F-2.12(e)",
        "hand-dealt double deck: dealer hits soft 17",
        stands_against(("TH", "8D"), "6C", "AS", "2H", result="lose", amount=W, **HAND_DEALT, **H17),
    ),
    quiet(
        "13:69F-2.12(e)",
        "hand-dealt single deck keeping option 1: dealer stands on soft 17",
        stands_against(("TH", "8D"), "6C", "AS", result="win", amount=W, dealt_from="hand", decks=1),
    ),
    # ------------------------------------------------------------------------------------------------------------
    # 19:47-2.10(a): double on the first two cards, not on 21, for no more than the original wager
    fires(
        "19:47-2.10(a)",
        "double down on three cards",
        nj(
            [
                *opening("5H", "9C", "3D", "8S"),
                deal("1", "2C"),
                double("1", W),
                deal("1", "TH"),
                *dealer_plays("8S"),
                settle("1", "win", 2 * W),
            ]
        ),
        "double_when",
        want("19:47-2.10(a)", 5, "1", "first two cards", "3 cards"),
    ),
    fires(
        "19:47-2.10(a)",
        "double down on a blackjack",
        nj(
            [
                *opening("AH", "9C", "KD", "8S"),
                double("1", W),
                deal("1", "5C"),
                *dealer_plays("8S"),
                settle("1", "lose", 2 * W),
            ]
        ),
        "double_on_21",
        want("19:47-2.10(a)", 4, "1", "no double on blackjack or 21", "double on AH+KD"),
        # (two provisions at two events: the card then dealt to the blackjack is a draw 13:69F-2.12(a)1 forbids)
        want("13:69F-2.12(a)1", 5, "1", "no card on 21", "drew 5C on 21"),
    ),
    fires(
        "19:47-2.10(a)",
        "double down on a two-card 21 after splitting tens",
        nj(
            [
                *opening("TH", "7C", "TD", "TS"),
                split("1", W),
                deal("1", "AC"),
                double("1", W),
                deal("1", "2H"),
                deal("1.2", "9S"),
                *dealer_plays("TS"),
                settle("1", "lose", 2 * W),
                settle("1.2", "win", W),
            ]
        ),
        "double_on_21",
        want("19:47-2.10(a)", 6, "1", "no double on blackjack or 21", "double on TH+AC"),
        want("13:69F-2.12(a)1", 7, "1", "no card on 21", "drew 2H on 21"),
    ),
    fires(
        "19:47-2.10(a)",
        "double for more than the original wager",
        nj([*double_11(amount=3000), *dealer_plays("7S", "4C"), settle("1", "win", W + 3000)]),
        "double_amount",
        want("19:47-2.10(a)", 4, "1", "1..2500", 3000),
    ),
    quiet(
        "19:47-2.10(a)",
        "double for less than the wager",
        nj([*double_11(amount=1000), *dealer_plays("7S", "4C"), settle("1", "win", W + 1000)]),
    ),
    quiet(
        "19:47-2.10(a)",
        "double on a soft 18",
        nj(
            [
                *opening("AH", "9C", "7D", "8S"),
                double("1", W),
                deal("1", "2C"),
                *dealer_plays("8S"),
                settle("1", "win", 2 * W),
            ]
        ),
    ),
    quiet(
        "19:47-2.10(a)",
        "double on the first two cards of a split hand",
        nj(
            [
                *eights_split(),
                deal("1", "3C"),
                double("1", W),
                deal("1", "TH"),
                deal("1.2", "TC"),
                *dealer_plays("8S"),
                settle("1", "win", 2 * W),
                settle("1.2", "win", W),
            ]
        ),
    ),
    # 19:47-2.10(b): dealer blackjack after a double collects only the original wager
    fires(
        "19:47-2.10(b)",
        "no-peek game: double and the dealer's blackjack collected",
        no_peek_double(2 * W),
        "dealer_bj_after_double",
        want("19:47-2.10(b)", 7, "1", -2500, -5000, 2500),
    ),
    fires(
        "19:47-2.10(b)",
        "no-peek game: doubled hand busts, then dealer blackjack, double collected",
        no_peek_double(2 * W, busts=True),
        "dealer_bj_after_double",
        want("19:47-2.10(b)", 7, "1", -2500, -5000, 2500),
    ),
    quiet(
        "19:47-2.10(b)",
        "no-peek game: dealer blackjack after a double collects the original wager only",
        no_peek_double(W),
    ),
    quiet(
        "19:47-2.10(b)",
        "no-peek game: doubled hand busts, dealer blackjack collects the original wager only",
        no_peek_double(W, busts=True),
    ),
    quiet(
        "19:47-2.10(b)",
        "no-peek game: double after split, dealer blackjack, the original wager only collected",
        nj(
            [
                *opening("8H", "TC", "8D", "AS"),
                split("1", W),
                deal("1", "3C"),
                double("1", W),
                deal("1", "9H"),
                deal("1.2", "TD"),
                *dealer_plays("AS"),
                settle("1", "lose", W),
                settle("1.2", "push", 0),
            ],
            **NO_PEEK,
        ),
    ),
    # Regression: with a split seat the engine judges the seat's total only and cites 2.11(d) at the last
    # settlement; here the split wager was returned (2.11(d) kept) and the doubled hand paid its double, which
    # 19:47-2.10(b) forbids ("shall not collect the additional amount wagered in doubling down").
    fires(
        "19:47-2.10(b)",
        "no-peek game: double after split, dealer blackjack, the double collected",
        nj(
            [
                *opening("8H", "TC", "8D", "AS"),
                split("1", W),
                deal("1", "3C"),
                double("1", W),
                deal("1", "9H"),
                deal("1.2", "TD"),
                *dealer_plays("AS"),
                settle("1", "lose", 2 * W),
                settle("1.2", "push", 0),
            ],
            **NO_PEEK,
        ),
        "dealer_bj_after_double",
        # Spec 2.2, bet by bet: hand 1's stake is the original wager, collected as it may be; its double's part
        # collected is the 2.10(b) finding (expected 0 for that part, actual minus the part collected).
        want("19:47-2.10(b)", 10, "1", 0, -W, W),
    ),
    # 19:47-2.10(c): the double card face up unless elected otherwise; a face-down card turned up at settlement
    fires(
        "19:47-2.10(c)",
        "face-up table deals the double card face down",
        nj(
            [
                *double_11(card_face="down"),
                *dealer_plays("7S", "4C"),
                reveal("1", "KD"),
                settle("1", "win", 2 * W),
            ]
        ),
        "double_card_face",
        want("19:47-2.10(c)", 5, "1", "face up", "face down"),
    ),
    fires(
        "19:47-2.10(c)",
        "face-down table deals the double card face up",
        nj([*double_11(), *dealer_plays("7S", "4C"), settle("1", "win", 2 * W)], double_card="face_down"),
        "double_card_face",
        want("19:47-2.10(c)", 5, "1", "face down", "face up"),
    ),
    fires(
        "19:47-2.10(c)",
        "face-down double card turned up before the dealer drew",
        nj(
            [
                *double_11(card_face="down"),
                reveal("1", "KD"),
                *dealer_plays("7S", "4C"),
                settle("1", "win", 2 * W),
            ],
            double_card="face_down",
        ),
        "double_card_reveal",
        want("19:47-2.10(c)", 6, "1", "after event 8", "event 6"),
    ),
    fires(
        "19:47-2.10(c)",
        "face-down double card never turned up",
        nj(
            [*double_11(card_face="down"), *dealer_plays("7S", "4C"), settle("1", "win", 2 * W)],
            double_card="face_down",
        ),
        "double_card_reveal",
        want("19:47-2.10(c)", 8, "1", "card turned up at settlement", "never revealed"),
    ),
    fires(
        "19:47-2.10(c)",
        "hand settled before its face-down double card was turned up",
        nj(
            [
                *double_11(card_face="down"),
                *dealer_plays("7S", "4C"),
                settle("1", "win", 2 * W),
                reveal("1", "KD"),
            ],
            double_card="face_down",
        ),
        "double_card_reveal",
        want(
            "19:47-2.10(c)", 8, "1", "card turned up at settlement", "settled at event 8, revealed at event 9"
        ),
    ),
    # Regression: the engine takes the dealer's last *dealt* card (the hole card, event 3) as the end of the
    # dealer's play, so a double card turned up before the hole card is turned (dealer stands pat) passes. The
    # seed requires it turned up "after the dealer has drawn additional cards ... and at such time as the
    # player's wagers are to be settled in rotation at the conclusion of the round of play".
    fires(
        "19:47-2.10(c)",
        "face-down double card turned up before the dealer's hole card (dealer stands pat)",
        nj(
            [
                *opening("6H", "9C", "5D", "8S"),
                double("1", W),
                deal("1", "KD", "down"),
                reveal("1", "KD"),
                *dealer_plays("8S"),
                settle("1", "win", 2 * W),
            ],
            double_card="face_down",
        ),
        "double_card_reveal",
        want("19:47-2.10(c)", 6, "1", "after event 7", "event 6"),
    ),
    quiet(
        "19:47-2.10(c)",
        "face-down table: double card turned up after the dealer drew, at settlement",
        nj(
            [
                *double_11(card_face="down"),
                *dealer_plays("7S", "4C"),
                reveal("1", "KD"),
                settle("1", "win", 2 * W),
            ],
            double_card="face_down",
        ),
    ),
    quiet(
        "19:47-2.10(c)",
        "player-request table: double card face down at the player's request",
        nj(
            [
                *double_11(card_face="down"),
                *dealer_plays("7S", "4C"),
                reveal("1", "KD"),
                settle("1", "win", 2 * W),
            ],
            double_card="player_request",
        ),
    ),
    quiet(
        "19:47-2.10(c)",
        "player-request table: double card face up",
        nj(
            [*double_11(), *dealer_plays("7S", "4C"), settle("1", "win", 2 * W)], double_card="player_request"
        ),
    ),
    quiet(
        "19:47-2.10(c)",
        "face-down double card turned up after the dealer's hole card (dealer stands pat)",
        nj(
            [
                *opening("6H", "9C", "5D", "8S"),
                double("1", W),
                deal("1", "KD", "down"),
                *dealer_plays("8S"),
                reveal("1", "KD"),
                settle("1", "win", 2 * W),
            ],
            double_card="face_down",
        ),
    ),
    # 19:47-2.10(d): only a 6 to 5 table may prohibit doubling after splitting
    fires(
        "19:47-2.10(d)",
        "6 to 5 table without doubling after splitting: double on a split hand",
        nj(
            [
                *eights_split(),
                deal("1", "3C"),
                double("1", W),
                deal("1", "TH"),
                deal("1.2", "TC"),
                *dealer_plays("8S"),
                settle("1", "win", 2 * W),
                settle("1.2", "win", W),
            ],
            **SIX_FIVE,
            double_after_split=False,
        ),
        "das_prohibited_6to5",
        want("19:47-2.10(d)", 6, "1", "no double after split", "double of 2500"),
    ),
    fires(
        "19:47-2.10(d)",
        "3 to 2 table prohibits doubling after splitting",
        plain(double_after_split=False),
        "elect_das",
        want("19:47-2.10(d)", None, None, "doubling after splitting allowed", "prohibited"),
    ),
    quiet(
        "19:47-2.10(d)",
        "6 to 5 table without doubling after splitting: split hands draw",
        nj(
            [
                *eights_split(),
                deal("1", "3C"),
                hit("1"),
                deal("1", "TH"),
                deal("1.2", "TC"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
            ],
            **SIX_FIVE,
            double_after_split=False,
        ),
    ),
    quiet(
        "19:47-2.10(d)",
        "6 to 5 table allowing it: double on a split hand",
        nj(
            [
                *eights_split(),
                deal("1", "3C"),
                double("1", W),
                deal("1", "TH"),
                deal("1.2", "TC"),
                *dealer_plays("8S"),
                settle("1", "win", 2 * W),
                settle("1.2", "win", W),
            ],
            **SIX_FIVE,
        ),
    ),
    # ------------------------------------------------------------------------------------------------------------
    # 13:69F-2.11(a): split only a pair of identical value, for a wager equal to the original
    fires(
        "13:69F-2.11(a)",
        "split of an 8 and a 9",
        nj(
            [
                *opening("8H", "9C", "9D", "8S"),
                split("1", W),
                deal("1", "TC"),
                deal("1.2", "TH"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
            ]
        ),
        "split_pair",
        want("13:69F-2.11(a)", 4, "1", "two cards of identical value", "8H+9D"),
    ),
    fires(
        "13:69F-2.11(a)",
        "split of a pair after drawing a third card",
        nj(
            [
                *opening("4H", "9C", "4D", "8S"),
                deal("1", "4C"),
                split("1", W),
                deal("1", "TC"),
                deal("1.2", "9S"),
                deal("1.2", "5H"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
            ]
        ),
        "split_pair",
        want("13:69F-2.11(a)", 5, "1", "split on the first two cards", "3 cards"),
    ),
    fires(
        "13:69F-2.11(a)",
        "split for less than the original wager",
        nj(
            [
                *eights_split(amount=1000),
                deal("1", "TH"),
                deal("1.2", "TC"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", 1000),
            ]
        ),
        "split_amount",
        want("13:69F-2.11(a)", 4, "1", 2500, 1000),
    ),
    quiet(
        "13:69F-2.11(a)",
        "split of a king and a queen (identical value)",
        nj(
            [
                *opening("KH", "9C", "QD", "8S"),
                split("1", W),
                deal("1", "9H"),
                deal("1.2", "7C"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "push", 0),
            ]
        ),
    ),
    # 13:69F-2.11(b): split hands completed one at a time, the first on the dealer's left first
    # Regression: check_split_order decides whether hand 1 is the waiting "parent" from its *final* cards
    # (it does receive its second card later, at event 6), not from its cards at event 5, so dealing hand 1.2
    # first passes.
    fires(
        "13:69F-2.11(b)",
        "second split hand dealt to before the first has its second card",
        nj(
            [
                *eights_split(),
                deal("1.2", "TC"),
                deal("1", "TH"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
            ]
        ),
        "split_order",
        want("13:69F-2.11(b)", 5, "1", "next card to 1", "card to 1.2"),
    ),
    fires(
        # Spec section 2.1: reported at the card that went to the other hand (1.2, event 6); the later card to
        # hand 1 shows hand 1 was not complete then, and is not a finding of its own.
        "13:69F-2.11(b)",
        "first split hand dealt to again after play moved on",
        nj(
            [
                *eights_split(),
                deal("1", "3C"),
                deal("1.2", "TC"),
                deal("1", "9H"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
            ]
        ),
        "split_order",
        want(
            "13:69F-2.11(b)",
            6,
            "1",
            "hand 1 completed before any card to hand 1.2",
            "card to hand 1.2, then a card on hand 1 at event 7",
        ),
    ),
    fires(
        "13:69F-2.11(b)",
        "next seat dealt to while a split hand waits for its second card",
        nj(
            [
                *opening2(("8H", "8D"), ("TC", "2H"), "9C", "8S"),
                split("1", W),
                deal("1", "TD"),
                deal("2", "7H"),
                deal("1.2", "QS"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
                settle("2", "win", W),
            ],
            seats=two_seats(),
        ),
        "split_order",
        want("13:69F-2.11(b)", 8, "1.2", "next card to 1.2", "card to 2"),
    ),
    quiet(
        "13:69F-2.11(b)",
        "split hands completed in turn, then the next seat",
        nj(
            [
                *opening2(("8H", "8D"), ("TC", "2H"), "9C", "8S"),
                split("1", W),
                deal("1", "TD"),
                deal("1.2", "QS"),
                deal("2", "7H"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
                settle("2", "win", W),
            ],
            seats=two_seats(),
        ),
    ),
    quiet(
        "13:69F-2.11(b)",
        "first split hand gets its second card before the second hand",
        nj(
            [
                *eights_split(),
                deal("1", "TH"),
                deal("1.2", "TC"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1.2", "win", W),
            ]
        ),
    ),
    # 13:69F-2.11(c)1: no resplit unless offered under 2.11(e)
    fires(
        "13:69F-2.11(c)1",
        "resplit at a table that does not offer it",
        nj(
            [
                *eights_split(),
                deal("1", "8C"),
                split("1", W),
                deal("1", "TH"),
                deal("1.2", "TD"),
                deal("1.3", "TC"),
                *dealer_plays("8S"),
                *(settle(h, "win", W) for h in ("1", "1.2", "1.3")),
            ]
        ),
        "resplit_not_elected",
        want("13:69F-2.11(c)1", 6, "1", "at most 2 hands", "3 hands"),
    ),
    quiet(
        "13:69F-2.11(c)1",
        "a split hand that draws a third 8 plays it out",
        nj(
            [
                *eights_split(),
                deal("1", "8C"),
                stand("1"),
                deal("1.2", "TD"),
                *dealer_plays("8S"),
                settle("1", "lose", W),
                settle("1.2", "win", W),
            ]
        ),
    ),
    quiet(
        "13:69F-2.11(c)1",
        "resplit at a seven-box table offering it: three hands",
        nj(
            [
                *eights_split(),
                deal("1", "8C"),
                split("1", W),
                deal("1", "TH"),
                deal("1.2", "TD"),
                deal("1.3", "TC"),
                *dealer_plays("8S"),
                *(settle(h, "win", W) for h in ("1", "1.2", "1.3")),
            ],
            resplit=True,
            boxes=7,
        ),
    ),
    # 13:69F-2.11(d): dealer blackjack after a split collects only the original wager
    fires(
        "13:69F-2.11(d)",
        "no-peek game: dealer blackjack after a split collects both wagers",
        no_peek_split(settle("1.2", "lose", W)),
        "dealer_bj_after_split",
        # Spec 2.2, bet by bet: hand 1 collected the original wager; hand 1.2's collection takes the running total
        # past it, by its whole stake (nothing was still collectable).
        want("13:69F-2.11(d)", 9, "1.2", 0, -W, W),
    ),
    quiet(
        "13:69F-2.11(d)",
        "no-peek game: dealer blackjack after a split returns the split wager",
        no_peek_split(settle("1.2", "push", 0)),
    ),
    quiet(
        "13:69F-2.11(d)",
        "no-peek game: the split wager returned, recorded as lose 0",
        no_peek_split(settle("1.2", "lose", 0)),
    ),
    # 13:69F-2.11(e): resplit limits (4 hands up to six boxes, 3 at seven), aces once if so elected
    fires(
        "13:69F-2.11(e)",
        "seven-box table: resplit to a fourth hand",
        four_hands(boxes=7),
        "resplit_limit",
        want("13:69F-2.11(e)", 8, "1", "at most 3 hands", "4 hands"),
    ),
    fires(
        "13:69F-2.11(e)",
        "six-box table: resplit to a fifth hand",
        nj(
            [
                *eights_split(),
                deal("1", "8C"),
                split("1", W),
                deal("1", "8S"),
                split("1", W),
                deal("1", "8H"),
                split("1", W),
                deal("1", "TH"),
                deal("1.2", "TD"),
                deal("1.3", "TC"),
                deal("1.4", "TS"),
                deal("1.5", "JH"),
                *dealer_plays("8S"),
                *(settle(h, "win", W) for h in ("1", "1.2", "1.3", "1.4", "1.5")),
            ],
            resplit=True,
            boxes=6,
        ),
        "resplit_limit",
        want("13:69F-2.11(e)", 10, "1", "at most 4 hands", "5 hands"),
    ),
    fires(
        "13:69F-2.11(e)",
        "aces resplit where the table prohibits it",
        aces_resplit(resplit_aces=False),
        "resplit_aces",
        want("13:69F-2.11(e)", 6, "1", "aces split once", "aces resplit"),
    ),
    fires(
        "13:69F-2.11(e)",
        "resplitting offered at an eight-box table",
        plain(resplit=True, boxes=8),
        "elect_resplit",
        want("13:69F-2.11(e)", None, None, "at most 7 boxes", 8),
    ),
    quiet("13:69F-2.11(e)", "six-box table: resplit to four hands", four_hands(boxes=6)),
    quiet("13:69F-2.11(e)", "aces resplit where the table allows it", aces_resplit()),
    quiet(
        "13:69F-2.11(e)",
        "seven-box table: resplit to three hands",
        nj(
            [
                *eights_split(),
                deal("1", "8C"),
                split("1", W),
                deal("1", "TH"),
                deal("1.2", "TD"),
                deal("1.3", "TC"),
                *dealer_plays("8S"),
                *(settle(h, "win", W) for h in ("1", "1.2", "1.3")),
            ],
            resplit=True,
            boxes=7,
        ),
    ),
    # ------------------------------------------------------------------------------------------------------------
    # 13:69F-2.17(a): a $1.00 additional wager, of the one type the table offers
    fires(
        "13:69F-2.17(a)",
        "additional wager at a table that offers none",
        same_suit("6H", ("win", SIDE), additional_wager="none"),
        "additional_type",
        want("13:69F-2.17(a)", None, "1", "no additional wager", "same_suit"),
    ),
    fires(
        "13:69F-2.17(a)",
        "same-suit wager at an over/under-13 table",
        same_suit("6C", ("lose", SIDE), additional_wager="over_under_13"),
        "additional_type",
        want("13:69F-2.17(a)", None, "1", "over_under_13", "same_suit"),
    ),
    fires(
        "13:69F-2.17(a)",
        "additional wager of $5",
        nj(
            [
                *opening("5H", "9C", "6C", "8S"),
                settle_additional(1, "lose", 500),
                deal("1", "TD"),
                *dealer_plays("8S"),
                settle("1", "win", W),
            ],
            seats=with_side("same_suit", 500),
            additional_wager="same_suit",
        ),
        "additional_amount",
        want("13:69F-2.17(a)", None, "1", 100, 500),
    ),
    quiet(
        "13:69F-2.17(a)",
        "$1 same-suit wager lost and collected after the second cards",
        same_suit("6C", ("lose", SIDE)),
    ),
    # 13:69F-2.17(b): outcomes (over/under with an ace counted one; seven among player's two + dealer's first)
    fires(
        "13:69F-2.17(b)",
        "same-suit wager on two hearts collected",
        same_suit("6H", ("lose", SIDE)),
        "additional_outcome",
        want("13:69F-2.17(b)", 4, "1", 0, -SIDE, SIDE),
    ),
    fires(
        "13:69F-2.17(b)",
        "over 13 paid on A+3 (the ace counts one: 4)",
        over_under("over_13", "AH", "3D", "4C", ("win", SIDE)),
        "additional_outcome",
        want("13:69F-2.17(b)", 4, "1", -SIDE, SIDE, -2 * SIDE),
    ),
    fires(
        "13:69F-2.17(b)",
        "under 13 collected on A+2 (the ace counts one: 3, not 13)",
        over_under("under_13", "AH", "2D", "5C", ("lose", SIDE)),
        "additional_outcome",
        want("13:69F-2.17(b)", 4, "1", 0, -SIDE, SIDE),
    ),
    fires(
        "13:69F-2.17(b)",
        "seven wager collected though the dealer's first card is a seven",
        seven_wager("7S", "TC", "9D", "4C", ("lose", SIDE)),
        "additional_outcome",
        want("13:69F-2.17(b)", 4, "1", 0, -SIDE, SIDE),
    ),
    quiet("13:69F-2.17(b)", "same-suit wager on two hearts paid", same_suit("6H", ("win", SIDE))),
    quiet("13:69F-2.17(b)", "under 13 paid on A+2", over_under("under_13", "AH", "2D", "5C", ("win", SIDE))),
    quiet(
        "13:69F-2.17(b)", "over 13 collected on A+3", over_under("over_13", "AH", "3D", "4C", ("lose", SIDE))
    ),
    quiet(
        "13:69F-2.17(b)",
        "seven wager paid on the dealer's first card",
        seven_wager("7S", "TC", "9D", "4C", ("win", SIDE)),
    ),
    quiet(
        "13:69F-2.17(b)",
        "seven wager collected: the only seven is the player's hit card",
        seven_wager("9C", "8S", "9D", "7C", ("lose", SIDE)),
    ),
    # 13:69F-2.17(c): over/under 13 loses on exactly 13
    fires(
        "13:69F-2.17(c)",
        "over 13 paid on 6+7",
        over_under("over_13", "6H", "7D", "5C", ("win", SIDE)),
        "additional_13",
        want("13:69F-2.17(c)", 4, "1", -SIDE, SIDE, -2 * SIDE),
    ),
    # Regression: a losing additional wager returned (push, 0) is read as "not paid", hence correct; the
    # wager loses on exactly 13 and must be collected.
    fires(
        "13:69F-2.17(c)",
        "over 13 on 6+7 returned as a push",
        over_under("over_13", "6H", "7D", "5C", ("push", 0)),
        "additional_13",
        want("13:69F-2.17(c)", 4, "1", -SIDE, 0, -SIDE),
    ),
    quiet(
        "13:69F-2.17(c)",
        "under 13 collected on 6+7",
        over_under("under_13", "6H", "7D", "5C", ("lose", SIDE)),
    ),
    quiet(
        "13:69F-2.17(c)", "over 13 collected on 6+7", over_under("over_13", "6H", "7D", "5C", ("lose", SIDE))
    ),
    quiet("13:69F-2.17(c)", "over 13 paid on K+4", over_under("over_13", "KH", "4D", "4C", ("win", SIDE))),
    # 13:69F-2.17(d): losing additional wagers collected after each player's second card, before any further card
    fires(
        "13:69F-2.17(d)",
        "losing additional wager collected after a hit card",
        same_suit("6C", ("lose", SIDE), late=True),
        "additional_timing",
        want("13:69F-2.17(d)", 5, "1", "after event 2, before event 4", "event 5"),
    ),
    fires(
        "13:69F-2.17(d)",
        "losing additional wager collected before the next seat's second card",
        nj(
            [
                deal("1", "TH"),
                deal("2", "TC"),
                deal("dealer", "9D"),
                deal("1", "8C"),
                settle_additional(1, "lose", SIDE),
                deal("2", "9H"),
                deal("dealer", "8S", "down"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("2", "win", W),
            ],
            seats=[seat(1, W, ("same_suit", SIDE)), seat(2, W)],
            additional_wager="same_suit",
        ),
        "additional_timing",
        want("13:69F-2.17(d)", 4, "1", "after event 5", "event 4"),
    ),
    quiet(
        "13:69F-2.17(d)",
        "losing additional wager collected after every second card and the hole card",
        nj(
            [
                *opening2(("TH", "8C"), ("TC", "9H"), "9D", "8S"),
                settle_additional(1, "lose", SIDE),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("2", "win", W),
            ],
            seats=[seat(1, W, ("same_suit", SIDE)), seat(2, W)],
            additional_wager="same_suit",
        ),
    ),
    # 13:69F-2.2(a)1 and (a)3: minimum decks
    fires(
        "13:69F-2.2(a)1",
        "hand-dealt game with six decks",
        plain(dealt_from="hand", decks=6),
        "elect_decks_hand_dealt",
        want("13:69F-2.2(a)1", None, None, "1 or 2 decks", 6),
    ),
    fires(
        "13:69F-2.2(a)3",
        "seven wager offered with two decks",
        plain(additional_wager="seven", decks=2),
        "elect_decks_seven",
        want("13:69F-2.2(a)3", None, None, "at least 4 decks", 2),
    ),
    quiet("13:69F-2.2(a)1", "hand-dealt double deck", plain(**HAND_DEALT)),
    quiet("13:69F-2.2(a)1", "hand-dealt single deck", plain(dealt_from="hand", decks=1)),
    quiet(
        "13:69F-2.2(a)3",
        "seven wager at a four-deck table",
        seven_wager("7S", "TC", "9D", "4C", ("win", SIDE), decks=4),
    ),
    # ------------------------------------------------------------------------------------------------------------
    # uncited: settlement outcome (no NJ provision held)
    fires(
        "uncited:settlement-outcome",
        "busted hand paid because the dealer busted too",
        nj(
            [
                *opening2(("TH", "6D"), ("TC", "7H"), "6C", "TS"),
                deal("1", "9D"),
                stand("2"),
                *dealer_plays("TS", "8H"),
                settle("1", "win", W),
                settle("2", "win", W),
            ],
            seats=two_seats(),
        ),
        "bust_loses",
        want("uncited:settlement-outcome", 10, "1", -2500, 2500, -5000),
    ),
    fires(
        "uncited:settlement-outcome",
        "dealer busted, standing hand collected",
        stands_against(("TH", "7D"), "6C", "TS", "8H", result="lose", amount=W),
        "dealer_bust",
        want("uncited:settlement-outcome", 7, "1", 2500, -2500, 5000),
    ),
    fires(
        "uncited:settlement-outcome",
        "20 against the dealer's 18 pushed",
        stands_against(("TH", "QD"), "9C", "9S", result="push", amount=0),
        "higher_total",
        want("uncited:settlement-outcome", 6, "1", 2500, 0, 2500),
    ),
    fires(
        "uncited:settlement-outcome",
        "17 against the dealer's 19 paid",
        stands_against(("TH", "7D"), "9C", "TS", result="win", amount=W),
        "lower_total",
        want("uncited:settlement-outcome", 6, "1", -2500, 2500, -5000),
    ),
    fires(
        "uncited:settlement-outcome",
        "19 against the dealer's 19 collected",
        stands_against(("TH", "9D"), "9C", "TS", result="lose", amount=W),
        "equal_totals",
        want("uncited:settlement-outcome", 6, "1", 0, -2500, 2500),
    ),
    fires(
        "uncited:settlement-outcome",
        "blackjack pushed against the dealer's three-card 21",
        nj(
            [
                *opening2(("AH", "KD"), ("TC", "QH"), "6C", "5S"),
                stand("2"),
                *dealer_plays("5S", "TD"),
                settle("1", "push", 0),
                settle("2", "lose", W),
            ],
            seats=two_seats(),
        ),
        "bj_beats_21",
        want("uncited:settlement-outcome", 9, "1", 3750, 0, 3750),
    ),
    fires(
        "uncited:settlement-outcome",
        "no-peek game: three-card 21 pushed against a dealer blackjack",
        nj(
            [*opening("5H", "AS", "6C", "KD"), deal("1", "TD"), *dealer_plays("KD"), settle("1", "push", 0)],
            **NO_PEEK,
        ),
        "dealer_bj_beats_21",
        want("uncited:settlement-outcome", 6, "1", -2500, 0, -2500),
    ),
    quiet(
        "uncited:settlement-outcome",
        "busted hand collected though the dealer busted too",
        nj(
            [
                *opening2(("TH", "6D"), ("TC", "7H"), "6C", "TS"),
                deal("1", "9D"),
                stand("2"),
                *dealer_plays("TS", "8H"),
                settle("1", "lose", W),
                settle("2", "win", W),
            ],
            seats=two_seats(),
        ),
    ),
    quiet(
        "uncited:settlement-outcome",
        "19 against 19 pushed",
        stands_against(("TH", "9D"), "9C", "TS", result="push", amount=0),
    ),
    quiet(
        "uncited:settlement-outcome",
        "19 against 19 recorded as lose 0 (a push)",
        stands_against(("TH", "9D"), "9C", "TS", result="lose", amount=0),
    ),
    quiet(
        "uncited:settlement-outcome",
        "blackjack paid 3 to 2 against the dealer's three-card 21",
        nj(
            [
                *opening2(("AH", "KD"), ("TC", "QH"), "6C", "5S"),
                stand("2"),
                *dealer_plays("5S", "TD"),
                settle("1", "win", BJ_3_2),
                settle("2", "lose", W),
            ],
            seats=two_seats(),
        ),
    ),
    quiet(
        "uncited:settlement-outcome",
        "no-peek game: three-card 21 loses to a dealer blackjack",
        nj(
            [*opening("5H", "AS", "6C", "KD"), deal("1", "TD"), *dealer_plays("KD"), settle("1", "lose", W)],
            **NO_PEEK,
        ),
    ),
    quiet(
        "uncited:settlement-outcome",
        "two-card 21 after a split pushes against the dealer's three-card 21",
        nj(
            [
                *opening("TH", "6C", "TD", "5S"),
                split("1", W),
                deal("1", "AC"),
                deal("1.2", "9S"),
                *dealer_plays("5S", "TC"),
                settle("1", "push", 0),
                settle("1.2", "lose", W),
            ]
        ),
    ),
    # uncited: a win pays 1 to 1
    fires(
        "uncited:win-pays-1-to-1",
        "doubled hand paid on the original wager only",
        nj([*double_11(), *dealer_plays("7S", "4C"), settle("1", "win", W)]),
        "win_odds",
        want("uncited:win-pays-1-to-1", 8, "1", 5000, 2500, 2500),
    ),
    fires(
        "uncited:win-pays-1-to-1",
        "two-card 21 after a split paid 3 to 2 as if a blackjack",
        split_tens(pays_1=BJ_3_2),
        "win_odds",
        want("uncited:win-pays-1-to-1", 8, "1", 2500, 3750, -1250),
    ),
    quiet(
        "uncited:win-pays-1-to-1",
        "doubled hand paid on both wagers",
        nj([*double_11(), *dealer_plays("7S", "4C"), settle("1", "win", 2 * W)]),
    ),
    quiet("uncited:win-pays-1-to-1", "two-card 21 after a split paid 1 to 1", split_tens()),
    # uncited: a loss collects the stake
    fires(
        "uncited:lose-collects-stake",
        "losing hand collected twice over",
        stands_against(("TH", "7D"), "9C", "TS", result="lose", amount=2 * W),
        "lose_amount",
        want("uncited:lose-collects-stake", 6, "1", -2500, -5000, 2500),
    ),
    fires(
        "uncited:lose-collects-stake",
        "losing insurance collected as the whole wager",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                insurance(1, HALF),
                peek(False),
                settle_insurance(1, "lose", W),
                stand("1"),
                *dealer_plays("7C"),
                settle("1", "win", W),
            ]
        ),
        "lose_amount",
        want("uncited:lose-collects-stake", 6, "1", -1250, -2500, 1250),
    ),
    quiet(
        "uncited:lose-collects-stake",
        "17 against 19 collected",
        stands_against(("TH", "7D"), "9C", "TS", result="lose", amount=W),
    ),
    # uncited: blackjack odds
    fires(
        "uncited:blackjack-odds",
        "blackjack paid 1 to 1 against a dealer 9",
        nj([*opening("AH", "9C", "KD", "8S"), settle("1", "win", W), *dealer_plays("8S")]),
        "bj_odds",
        want("uncited:blackjack-odds", 4, "1", 3750, 2500, 1250),
    ),
    fires(
        "uncited:blackjack-odds",
        "6 to 5 table pays a blackjack 3 to 2",
        nj([*opening("AH", "9C", "KD", "8S"), settle("1", "win", BJ_3_2), *dealer_plays("8S")], **SIX_FIVE),
        "bj_odds",
        want("uncited:blackjack-odds", 4, "1", 3000, 3750, -750),
    ),
    fires(
        "uncited:blackjack-odds",
        "blackjack paid 1 to 1 against a dealer ten without blackjack",
        nj([*opening("AH", "KC", "KD", "7S"), peek(False), settle("1", "win", W), *dealer_plays("7S")]),
        "bj_vs_dealer_ace_ten",
        want("uncited:blackjack-odds", 5, "1", 3750, 2500, 1250),
    ),
    fires(
        "uncited:blackjack-odds",
        "blackjack collected against a dealer blackjack",
        nj([*opening("AH", "AS", "KD", "KC"), peek(True), *dealer_plays("KC"), settle("1", "lose", W)]),
        "bj_vs_dealer_ace_ten",
        want("uncited:blackjack-odds", 6, "1", 0, -2500, 2500),
    ),
    quiet(
        "uncited:blackjack-odds",
        "6 to 5 table pays a blackjack 6 to 5",
        nj([*opening("AH", "9C", "KD", "8S"), settle("1", "win", BJ_6_5), *dealer_plays("8S")], **SIX_FIVE),
    ),
    quiet(
        "uncited:blackjack-odds",
        "blackjack paid 3 to 2 after the peek against a dealer ten",
        nj([*opening("AH", "KC", "KD", "7S"), peek(False), settle("1", "win", BJ_3_2), *dealer_plays("7S")]),
    ),
    quiet(
        "uncited:blackjack-odds",
        "blackjack against a dealer blackjack pushes",
        nj([*opening("AH", "AS", "KD", "KC"), peek(True), *dealer_plays("KC"), settle("1", "push", 0)]),
    ),
    # uncited: insurance offered against an ace, for at most half, before further cards
    fires(
        "uncited:insurance",
        "insurance against a dealer king",
        nj(
            [
                *opening("TH", "KS", "9D", "7C"),
                insurance(1, HALF),
                peek(False),
                settle_insurance(1, "lose", HALF),
                stand("1"),
                *dealer_plays("7C"),
                settle("1", "win", W),
            ]
        ),
        "insurance_when",
        want("uncited:insurance", 4, "1", "dealer's up card an ace", "KS"),
    ),
    fires(
        "uncited:insurance",
        "insurance over half the wager",
        insured(1500),
        "insurance_amount",
        want("uncited:insurance", 4, "1", "at most 1250", 1500),
    ),
    fires(
        "uncited:insurance",
        "insurance placed after the player drew",
        nj(
            [
                *opening("5H", "AS", "6D", "7C"),
                peek(False),
                deal("1", "9C"),
                insurance(1, HALF),
                settle_insurance(1, "lose", HALF),
                *dealer_plays("7C"),
                settle("1", "win", W),
            ]
        ),
        "insurance_timing",
        want("uncited:insurance", 6, "1", "before event 5", "event 6"),
    ),
    quiet("uncited:insurance", "insurance of exactly half against an ace, lost", insured(HALF)),
    # uncited: insurance pays 2 to 1
    fires(
        "uncited:insurance-pays-2-to-1",
        "winning insurance collected",
        insured_vs_blackjack("lose", HALF),
        "insurance_outcome",
        want("uncited:insurance-pays-2-to-1", 7, "1", 2500, -1250, 3750),
    ),
    fires(
        "uncited:insurance-pays-2-to-1",
        "winning insurance paid 1 to 1",
        insured_vs_blackjack("win", HALF),
        "insurance_odds",
        want("uncited:insurance-pays-2-to-1", 7, "1", 2500, 1250, 1250),
    ),
    quiet("uncited:insurance-pays-2-to-1", "winning insurance paid 2 to 1", insured_vs_blackjack("win", W)),
    # uncited: even money
    fires(
        "uncited:even-money",
        "even money paid 3 to 2",
        even_money_round(BJ_3_2),
        "even_money_amount",
        want("uncited:even-money", 4, "1", 2500, 3750, -1250),
    ),
    fires(
        # Even money is the settlement of the wager: paid where it is not allowed, it is judged as one. The
        # blackjack against K+7 was due 3 to 2 (3750); 2500 was paid.
        "uncited:even-money",
        "even money against a dealer king",
        even_money_round(W, up="KS", hole="7C"),
        "even_money_when",
        want("uncited:blackjack-odds", 4, "1", 3750, 2500, 1250),
        want("uncited:even-money", 4, "1", "player blackjack, dealer ace", "AH+KD vs KS"),
    ),
    fires(
        "uncited:even-money",
        "even money on a 20",
        even_money_round(W, hole="7C", p=("TH", "QD")),
        "even_money_when",
        want("uncited:even-money", 4, "1", "player blackjack, dealer ace", "TH+QD vs AS"),
        # (a 20 depends on the dealer's total, and was paid before the hole card was turned up at 6: spec 2.1, the
        # dealer's play begins with the reveal; the money is right, 20 beats the dealer's soft 18)
        want(
            "uncited:settled-before-dealer-complete",
            4,
            "1",
            "settled after the dealer's hand is complete",
            "settled at event 4, dealer's hand complete at event 6",
        ),
    ),
    quiet(
        "uncited:even-money",
        "even money on a blackjack against an ace, no dealer blackjack",
        even_money_round(W),
    ),
    quiet(
        "uncited:even-money",
        "even money on a blackjack against an ace, dealer blackjack",
        even_money_round(W, hole="KC"),
    ),
    # uncited: late surrender
    fires(
        "uncited:surrender",
        "surrender at a table that offers none",
        surrendered(surrender="none"),
        "surrender_not_offered",
        want("uncited:surrender", 5, "1", "no surrender", "surrender"),
    ),
    fires(
        "uncited:surrender",
        "surrender after drawing a card",
        nj(
            [
                *opening("TH", "TC", "2D", "9S"),
                peek(False),
                deal("1", "4C"),
                surrender("1"),
                settle("1", "surrender", HALF),
                *dealer_plays("9S"),
            ],
            **LATE_SURRENDER,
        ),
        "surrender_when",
        want("uncited:surrender", 6, "1", "surrender on the first two cards", "surrender with 3 cards"),
    ),
    fires(
        "uncited:surrender",
        "surrender collects the whole wager",
        surrendered(collected=W),
        "surrender_amount",
        want("uncited:surrender", 6, "1", -1250, -2500, 1250),
    ),
    quiet("uncited:surrender", "late surrender of 16 against a ten collects half", surrendered()),
    # uncited: every wager settled
    fires(
        "uncited:missing-settlement",
        "main wager never settled",
        nj([*opening("TH", "9C", "7D", "TS"), stand("1"), *dealer_plays("TS")]),
        "missing_settlement",
        want("uncited:missing-settlement", None, "1", -2500, 0, -2500),
    ),
    fires(
        "uncited:missing-settlement",
        "insurance never settled",
        insured(HALF, collected=False),
        "missing_settlement",
        want("uncited:missing-settlement", None, "1", -1250, 0, -1250),
    ),
    fires(
        "uncited:missing-settlement",
        "additional wager never settled",
        same_suit("6C", None),
        "missing_settlement",
        want("uncited:missing-settlement", None, "1", -100, 0, -100),
    ),
    quiet(
        "uncited:missing-settlement",
        "main, insurance and additional wagers all settled",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                settle_additional(1, "lose", SIDE),
                insurance(1, HALF),
                peek(False),
                settle_insurance(1, "lose", HALF),
                stand("1"),
                *dealer_plays("7C"),
                settle("1", "win", W),
            ],
            seats=with_side("same_suit"),
            additional_wager="same_suit",
        ),
    ),
    # uncited: no wager settled twice
    fires(
        "uncited:settled-twice",
        "winning hand paid twice",
        nj(
            [
                *opening("TH", "9C", "QD", "8S"),
                stand("1"),
                *dealer_plays("8S"),
                settle("1", "win", W),
                settle("1", "win", W),
            ]
        ),
        "settled_twice",
        want("uncited:settled-twice", 7, "1", 0, 2500, -2500),
    ),
    fires(
        "uncited:settled-twice",
        "blackjack settled again after even money",
        nj(
            [
                *opening("AH", "AS", "KD", "5C"),
                even_money(1, W),
                peek(False),
                *dealer_plays("5C"),
                settle("1", "win", BJ_3_2),
            ]
        ),
        "settled_twice",
        want("uncited:settled-twice", 7, "1", 0, 3750, -3750),
    ),
    fires(
        "uncited:settled-twice",
        "losing insurance collected twice",
        nj(
            [
                *opening("TH", "AS", "9D", "7C"),
                insurance(1, HALF),
                peek(False),
                settle_insurance(1, "lose", HALF),
                settle_insurance(1, "lose", HALF),
                stand("1"),
                *dealer_plays("7C"),
                settle("1", "win", W),
            ]
        ),
        "settled_twice",
        want("uncited:settled-twice", 7, "1", 0, -1250, 1250),
    ),
    # Regression: check_additional reads only the first settlement of an additional wager and never reports
    # a second one.
    fires(
        "uncited:settled-twice",
        "winning additional wager paid twice",
        nj(
            [
                *opening("5H", "9C", "6H", "8S"),
                settle_additional(1, "win", SIDE),
                settle_additional(1, "win", SIDE),
                deal("1", "TD"),
                *dealer_plays("8S"),
                settle("1", "win", W),
            ],
            seats=with_side("same_suit"),
            additional_wager="same_suit",
        ),
        "settled_twice",
        want("uncited:settled-twice", 5, "1", 0, 100, -100),
    ),
    quiet("uncited:settled-twice", "each wager settled once", plain()),
]

# uncited:table-limits: each box's original wager within the table's posted minimum and maximum
CASES += [
    fires(
        "uncited:table-limits",
        "wager above the posted maximum",
        plain(min_wager=1000, max_wager=2000),
        "wager_limits",
        want("uncited:table-limits", None, "1", "1000..2000", 2500),
    ),
    fires(
        "uncited:table-limits",
        "wager below the posted minimum",
        plain(min_wager=5000),
        "wager_limits",
        want("uncited:table-limits", None, "1", "5000..", 2500),
    ),
    quiet("uncited:table-limits", "wager exactly at the posted maximum", plain(min_wager=1000, max_wager=W)),
    quiet("uncited:table-limits", "wager exactly at the posted minimum", plain(min_wager=W)),
]

# Regressions from the correctness review of 2026-12-02.
CASES += [
    quiet(
        "13:69F-2.11(e)",
        "resplit to four hands where the box count is not recorded (a six-box table may)",
        nj(
            four_hands(6)["events"],
            rules={k: v for k, v in four_hands(6)["table"]["rules"].items() if k != "boxes"},
        ),
    ),
    fires(
        "19:47-2.10(a)",
        "double on a split ace holding one card: its card is not an extra card",
        nj(
            [
                *opening("AH", "6S", "AD", "TC"),
                split("1", W),
                double("1", W),  # 5: a double on one card
                deal("1", "9D"),  # the ace's one card
                deal("1.2", "7C"),
                *dealer_plays("TC", "2H"),  # 18
                settle("1", "win", 2 * W),  # A+9 = 20
                settle("1.2", "push", 0),  # A+7 = 18
            ]
        ),
        "double_when",
        want("19:47-2.10(a)", 5, "1", "first two cards", "1 card"),
    ),
    quiet(
        "uncited:settlement-outcome",
        "a box that was never dealt has its wager returned",
        nj(
            [
                *opening("TH", "6S", "8D", "TC"),
                stand("1"),
                reveal("dealer", "TC"),
                deal("dealer", "2H"),
                settle("1", "push", 0),
                settle("2", "push", 0),
            ],
            seats=two_seats(),
        ),
    ),
]
