"""Rule cases for New Zealand: the 1994 Blackjack Rules (NZ Gazette 1994 No 112) and the uncited fundamentals bound
in :mod:`app.jurisdictions.nz`.

Every round is a no-hole-card NZ round as the 1994 rules describe it (rules 8.2, 9.6): each box gets two cards and
the dealer ONE face-up card; the players act; then the dealer takes the second card and draws; then the
settlements. Insurance is placed after the initial deal and before any further card; a losing insurance is
collected right after the dealer's second card. The table elections are the NZ test elections of
``tests.builders`` (6 decks, dealer stands on soft 17, blackjack 3 to 2, dealer's second card after the players,
smallest chip 100) unless a case says otherwise; rounds are dated 1995.

A firing case is a legal, correctly settled round with exactly one fault; the index it names is the 0-based index
of the faulty event (None for an absence or an election). A quiet case is the closest legal variant: no finding at
all. Event indices are spelled out in the comment beside each round.
"""

from __future__ import annotations

from typing import Any

from tests.builders import (
    NZ_RULES,
    a_round,
    deal,
    double,
    even_money,
    hit,
    insurance,
    reveal,
    seat,
    settle,
    settle_insurance,
    split,
    stand,
    surrender,
)
from tests.rules.case import Case, fires, quiet, want

W = 1000
"""Every box wagers 10.00 unless a case says otherwise."""

NO_SOFT_17: dict[str, Any] = {k: v for k, v in NZ_RULES.items() if k != "dealer_soft_17"}
"""The NZ test elections without a soft-17 election (the 1994 drawing rule is not held; no default applies)."""

# ---------------------------------------------------------------------------------------------------------------
# Helpers for the common shapes


def nz(
    events: list[dict[str, Any]],
    *,
    seats: list[dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An NZ round (1995, NZ test elections amended by ``extra`` or replaced by ``rules``); one box of 1000."""
    return a_round(
        "NZ",
        seats=seats if seats is not None else [seat(1, W)],
        events=events,
        rules=rules,
        extra_rules=extra,
    )


def opening(first: str, second: str, up: str, hand: str = "1") -> list[dict[str, Any]]:
    """The NZ initial deal for one box: its first card, the dealer's one face-up card, its second card
    (events 0, 1, 2)."""
    return [deal(hand, first), deal("dealer", up), deal(hand, second)]


def dealer(*cards: str) -> list[dict[str, Any]]:
    """The dealer's second card and any draws."""
    return [deal("dealer", c) for c in cards]


def stands(
    first: str,
    second: str,
    up: str,
    draws: tuple[str, ...],
    result: str,
    amount: int,
    *,
    extra: dict[str, Any] | None = None,
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One box stands on two cards. Events: 0-2 initial deal, 3 stand, 4.. the dealer's second card and draws,
    last (3 + len(draws) + 1) the box's settlement."""
    return nz(
        [*opening(first, second, up), stand("1"), *dealer(*draws), settle("1", result, amount)],
        extra=extra,
        rules=rules,
    )


def natural(
    up: str,
    draws: tuple[str, ...],
    result: str,
    amount: int,
    *,
    paid_at_once: bool = False,
    wager: int = W,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One box dealt AS+KH (a blackjack) against the dealer's ``up``. Events: 0-2 initial deal; then either the
    dealer's cards (3..) and the settlement last, or (``paid_at_once``) the settlement at 3 and the dealer's cards
    after it."""
    cards = dealer(*draws)
    pay = settle("1", result, amount)
    events = [*opening("AS", "KH", up), *([pay, *cards] if paid_at_once else [*cards, pay])]
    return nz(events, seats=[seat(1, wager)], extra=extra)


def insured(
    amount: int,
    second: str,
    ins: tuple[str, int],
    main: tuple[str, int],
    *,
    up: str = "AD",
    cards: tuple[str, str] = ("9H", "8C"),
) -> dict[str, Any]:
    """One box of 1000 holding ``cards`` (17 by default) insures against the dealer's ``up`` right after the
    initial deal. Events: 0-2 initial deal, 3 insurance, 4 stand, 5 dealer's second card, 6 insurance settled,
    7 main settled. The dealer stands on two cards (the caller picks a ``second`` that makes 17 or more)."""
    return nz(
        [
            *opening(*cards, up),
            insurance(1, amount),
            stand("1"),
            deal("dealer", second),
            settle_insurance(1, *ins),
            settle("1", *main),
        ]
    )


def even_money_round(
    up: str = "AD",
    cards: tuple[str, str] = ("AS", "KH"),
    paid: int = W,
    *,
    late: bool = False,
) -> dict[str, Any]:
    """Two boxes: box 1 holds ``cards`` and takes even money against the dealer's ``up``; box 2 holds TC+8C (18)
    and stands; the dealer's second card 7S; box 2 settled on 18 against the dealer's total.
    Events: 0 1, 1 2, 2 dealer, 3 1, 4 2, then either 5 even money, 6 stand 2, 7 dealer 7S, 8 settle 2, or
    (``late``) 5 stand 2, 6 dealer 7S, 7 even money, 8 settle 2."""
    dealer_total = 18 if up[0] == "A" else 17 if up[0] in "TJQK" else 0
    assert dealer_total, "the dealer's up card is an ace or a ten-value card"
    box2 = settle("2", "push", 0) if dealer_total == 18 else settle("2", "win", W)
    em = even_money(1, paid)
    head = [deal("1", cards[0]), deal("2", "TC"), deal("dealer", up), deal("1", cards[1]), deal("2", "8C")]
    tail = [stand("2"), deal("dealer", "7S"), em] if late else [em, stand("2"), deal("dealer", "7S")]
    return nz([*head, *tail, box2], seats=[seat(1, W), seat(2, W)])


def doubled(
    first: str,
    second: str,
    up: str,
    amount: int,
    card: str,
    draws: tuple[str, ...],
    result: str,
    paid: int,
    *,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One box doubles on its first two cards. Events: 0-2 initial deal, 3 double, 4 the double card, 5.. the
    dealer's second card and draws, last the settlement."""
    return nz(
        [
            *opening(first, second, up),
            double("1", amount),
            deal("1", card),
            *dealer(*draws),
            settle("1", result, paid),
        ],
        extra=extra,
    )


def split_eights(
    up: str,
    draws: tuple[str, ...],
    settles: tuple[tuple[str, int], tuple[str, int]],
    *,
    pair: tuple[str, str] = ("8H", "8C"),
    amount: int = W,
    cards: tuple[str, str] = ("TS", "9H"),
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One box splits ``pair`` for ``amount``: hand 1 keeps the first card and gets ``cards[0]``, the new hand
    1.2 the second and ``cards[1]``. Events: 0-2 initial deal, 3 split, 4 deal 1, 5 stand 1, 6 deal 1.2,
    7 stand 1.2, 8.. dealer, then settle 1, settle 1.2."""
    return nz(
        [
            *opening(*pair, up),
            split("1", amount),
            deal("1", cards[0]),
            stand("1"),
            deal("1.2", cards[1]),
            stand("1.2"),
            *dealer(*draws),
            settle("1", *settles[0]),
            settle("1.2", *settles[1]),
        ],
        extra=extra,
    )


def surrendered(kind: str | None, paid: int = W // 2) -> dict[str, Any]:
    """One box holding TH+6C (16) surrenders against a dealer TD (table surrender election ``kind``).
    Events: 0-2 initial deal, 3 surrender, 4 settled. No other box is live, so the dealer takes no card."""
    return nz(
        [*opening("TH", "6C", "TD"), surrender("1"), settle("1", "surrender", paid)],
        extra={"surrender": kind} if kind else None,
    )


# ---------------------------------------------------------------------------------------------------------------
# The cases

CASES: list[Case] = [
    # --- 3.1: six to eight decks -------------------------------------------------------------------------------
    fires(
        "3.1",
        "a five-deck shoe",
        stands("KH", "QC", "9D", ("8S",), "win", W, extra={"decks": 5}),
        "elect_decks",
        want("3.1", None, None, "6 to 8 decks", 5),
    ),
    fires(
        "3.1",
        "a single deck",
        stands("KH", "QC", "9D", ("8S",), "win", W, extra={"decks": 1}),
        "elect_decks",
        want("3.1", None, None, "6 to 8 decks", 1),
    ),
    quiet("3.1", "six decks", stands("KH", "QC", "9D", ("8S",), "win", W)),
    quiet("3.1", "eight decks", stands("KH", "QC", "9D", ("8S",), "win", W, extra={"decks": 8})),
    # --- 4.1(a): a dealer bust pays a standing player ------------------------------------------------------------
    # 0-2 deal 9H 8C vs 6D, 3 stand, 4 TS (16), 5 9C (25, bust), 6 settle
    fires(
        "4.1(a)",
        "player 17, dealer busts, wager collected",
        stands("9H", "8C", "6D", ("TS", "9C"), "lose", W),
        "dealer_bust",
        want("4.1(a)", 6, "1", 1000, -1000, 2000),
    ),
    fires(
        "4.1(a)",
        "player 17, dealer busts, settled as a push",
        stands("9H", "8C", "6D", ("TS", "9C"), "push", 0),
        "dealer_bust",
        want("4.1(a)", 6, "1", 1000, 0, 1000),
    ),
    quiet("4.1(a)", "player 17, dealer busts, paid 1 to 1", stands("9H", "8C", "6D", ("TS", "9C"), "win", W)),
    # --- 4.1(b): a higher total wins ------------------------------------------------------------------------------
    # 0-2 deal KH 9C (19) vs 7D, 3 stand, 4 TS (17), 5 settle
    fires(
        "4.1(b)",
        "19 against the dealer's 17 collected",
        stands("KH", "9C", "7D", ("TS",), "lose", W),
        "higher_total",
        want("4.1(b)", 5, "1", 1000, -1000, 2000),
    ),
    fires(
        "4.1(b)",
        "19 against the dealer's 17 pushed",
        stands("KH", "9C", "7D", ("TS",), "push", 0),
        "higher_total",
        want("4.1(b)", 5, "1", 1000, 0, 1000),
    ),
    quiet("4.1(b)", "19 against the dealer's 17 paid", stands("KH", "9C", "7D", ("TS",), "win", W)),
    # --- 4.1(c): blackjack beats a dealer 21 of more than two cards (dealer first card 2-9) ---------------------
    # 0-2 deal AS KH vs 9D, 3 5C (14), 4 7H (21 in three cards), 5 settle
    fires(
        "4.1(c)",
        "blackjack against a dealer 9-5-7 pushed",
        natural("9D", ("5C", "7H"), "push", 0),
        "bj_beats_21",
        want("4.1(c)", 5, "1", 1500, 0, 1500),
    ),
    fires(
        "4.1(c)",
        "blackjack against a dealer 9-5-7 collected",
        natural("9D", ("5C", "7H"), "lose", W),
        "bj_beats_21",
        want("4.1(c)", 5, "1", 1500, -1000, 2500),
    ),
    quiet("4.1(c)", "blackjack against a dealer 9-5-7 paid 3 to 2", natural("9D", ("5C", "7H"), "win", 1500)),
    # --- 4.1(d): dealer blackjack beats a player 21 of more than two cards ----------------------------------------
    # 0-2 deal 5H 6C (11) vs AD, 3 hit, 4 KS (21 in three cards), 5 KC (dealer blackjack), 6 settle
    fires(
        "4.1(d)",
        "player 5-6-K against a dealer A-K pushed",
        nz(
            [
                *opening("5H", "6C", "AD"),
                hit("1"),
                deal("1", "KS"),
                deal("dealer", "KC"),
                settle("1", "push", 0),
            ]
        ),
        "dealer_bj_beats_21",
        want("4.1(d)", 6, "1", -1000, 0, -1000),
    ),
    # 0-2 deal 7H 7C (14) vs KD, 3 hit, 4 7S (21 in three cards), 5 AC (dealer blackjack), 6 settle
    fires(
        "4.1(d)",
        "player 7-7-7 against a dealer K-A paid",
        nz(
            [
                *opening("7H", "7C", "KD"),
                hit("1"),
                deal("1", "7S"),
                deal("dealer", "AC"),
                settle("1", "win", W),
            ]
        ),
        "dealer_bj_beats_21",
        want("4.1(d)", 6, "1", -1000, 1000, -2000),
    ),
    quiet(
        "4.1(d)",
        "player 5-6-K against a dealer A-K collected",
        nz(
            [
                *opening("5H", "6C", "AD"),
                hit("1"),
                deal("1", "KS"),
                deal("dealer", "KC"),
                settle("1", "lose", W),
            ]
        ),
    ),
    # --- 4.1(e): equal totals are a stand off --------------------------------------------------------------------
    # 0-2 deal KH 8C (18) vs 9D, 3 stand, 4 9S (18), 5 settle
    fires(
        "4.1(e)",
        "18 against 18 paid",
        stands("KH", "8C", "9D", ("9S",), "win", W),
        "equal_totals",
        want("4.1(e)", 5, "1", 0, 1000, -1000),
    ),
    fires(
        "4.1(e)",
        "18 against 18 collected",
        stands("KH", "8C", "9D", ("9S",), "lose", W),
        "equal_totals",
        want("4.1(e)", 5, "1", 0, -1000, 1000),
    ),
    quiet("4.1(e)", "18 against 18 pushed", stands("KH", "8C", "9D", ("9S",), "push", 0)),
    quiet(
        "4.1(e)",
        "18 against 18 recorded as lose 0 (the money decides)",
        stands("KH", "8C", "9D", ("9S",), "lose", 0),
    ),
    # 0-2 deal 5H 6C vs 9D, 3 hit, 4 TS (21 in three), 5 5C (14), 6 7H (21 in three), 7 settle
    quiet(
        "4.1(e)",
        "21 in three cards against a dealer 21 in three cards pushed",
        nz(
            [
                *opening("5H", "6C", "9D"),
                hit("1"),
                deal("1", "TS"),
                *dealer("5C", "7H"),
                settle("1", "push", 0),
            ]
        ),
    ),
    # --- 4.1(f): a player over 21 loses, even when the dealer then busts ------------------------------------------
    # 0 1:TH, 1 2:9C, 2 dealer 6D, 3 1:6C (16), 4 2:8H (17), 5 hit 1, 6 1:9S (25, bust), 7 stand 2,
    # 8 dealer TS (16), 9 dealer 8C (24, bust), 10 settle 2 (wins), 11 settle 1 (the bust)
    fires(
        "4.1(f)",
        "busted box returned because the dealer busted too",
        nz(
            [
                deal("1", "TH"),
                deal("2", "9C"),
                deal("dealer", "6D"),
                deal("1", "6C"),
                deal("2", "8H"),
                hit("1"),
                deal("1", "9S"),
                stand("2"),
                *dealer("TS", "8C"),
                settle("2", "win", W),
                settle("1", "push", 0),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
        "bust_loses",
        want("4.1(f)", 11, "1", -1000, 0, -1000),
    ),
    fires(
        "4.1(f)",
        "busted box paid because the dealer busted too",
        nz(
            [
                deal("1", "TH"),
                deal("2", "9C"),
                deal("dealer", "6D"),
                deal("1", "6C"),
                deal("2", "8H"),
                hit("1"),
                deal("1", "9S"),
                stand("2"),
                *dealer("TS", "8C"),
                settle("2", "win", W),
                settle("1", "win", W),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
        "bust_loses",
        want("4.1(f)", 11, "1", -1000, 1000, -2000),
    ),
    # as above, but the busted box is collected when it busts (7), the dealer busts later
    quiet(
        "4.1(f)",
        "busted box collected although the dealer busts later",
        nz(
            [
                deal("1", "TH"),
                deal("2", "9C"),
                deal("dealer", "6D"),
                deal("1", "6C"),
                deal("2", "8H"),
                hit("1"),
                deal("1", "9S"),
                settle("1", "lose", W),
                stand("2"),
                *dealer("TS", "8C"),
                settle("2", "win", W),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
    ),
    # --- 4.1(g): a higher dealer total loses ----------------------------------------------------------------------
    # 0-2 deal 9H 8C (17) vs TD, 3 stand, 4 9S (19), 5 settle
    fires(
        "4.1(g)",
        "17 against the dealer's 19 paid",
        stands("9H", "8C", "TD", ("9S",), "win", W),
        "lower_total",
        want("4.1(g)", 5, "1", -1000, 1000, -2000),
    ),
    fires(
        "4.1(g)",
        "17 against the dealer's 19 pushed",
        stands("9H", "8C", "TD", ("9S",), "push", 0),
        "lower_total",
        want("4.1(g)", 5, "1", -1000, 0, -1000),
    ),
    quiet("4.1(g)", "17 against the dealer's 19 collected", stands("9H", "8C", "TD", ("9S",), "lose", W)),
    # --- 4.2: no wager withdrawn after the first card (surrender where none is offered) ---------------------------
    # 0-2 deal TH 6C (16) vs TD, 3 surrender, 4 settle half
    fires(
        "4.2",
        "surrender at a table offering none",
        surrendered("none"),
        "surrender_not_offered",
        want("4.2", 3, "1", "no surrender", "surrender"),
    ),
    quiet("4.2", "surrender at a late-surrender table", surrendered("late")),
    # --- 8.2: blackjack against a dealer ace or ten: wait for the second card; 3 to 2, or stand off ---------------
    # 0-2 deal AS KH vs KD, 3 7C (17), 4 settle
    fires(
        "8.2",
        "blackjack against a dealer K-7 paid 1 to 1",
        natural("KD", ("7C",), "win", W),
        "bj_vs_dealer_ace_ten",
        want("8.2", 4, "1", 1500, 1000, 500),
    ),
    quiet(
        "8.2",
        "blackjack against a dealer K-7 paid 3 to 2 after the second card",
        natural("KD", ("7C",), "win", 1500),
    ),
    # 0-2 deal AS KH vs AD, 3 6S (soft 17, stands), 4 settle
    fires(
        "8.2",
        "blackjack against a dealer A-6 paid 1 to 1 (no even money asked)",
        natural("AD", ("6S",), "win", W),
        "bj_vs_dealer_ace_ten",
        want("8.2", 4, "1", 1500, 1000, 500),
    ),
    quiet("8.2", "blackjack against a dealer A-6 paid 3 to 2", natural("AD", ("6S",), "win", 1500)),
    # 0-2 deal AS KH vs AD, 3 QC (dealer blackjack), 4 settle
    fires(
        "8.2",
        "blackjack against a dealer blackjack paid 3 to 2",
        natural("AD", ("QC",), "win", 1500),
        "bj_vs_dealer_ace_ten",
        want("8.2", 4, "1", 0, 1500, -1500),
    ),
    fires(
        "8.2",
        "blackjack against a dealer blackjack collected",
        natural("TD", ("AC",), "lose", W),
        "bj_vs_dealer_ace_ten",
        want("8.2", 4, "1", 0, -1000, 1000),
    ),
    quiet("8.2", "blackjack against a dealer A-Q is a stand off", natural("AD", ("QC",), "push", 0)),
    quiet("8.2", "blackjack against a dealer T-A is a stand off", natural("TD", ("AC",), "push", 0)),
    # 0-2 deal AS KH vs KD, 3 5C (15), 4 6H (21 in three cards), 5 settle
    # One check, one rule (spec 2.1): whether a blackjack won against a dealer's 21 of three cards is 4.1(c),
    # whatever the dealer's up card; 8.2 says how much a blackjack against an ace or a ten is paid.
    fires(
        "4.1(c)",
        "blackjack against a dealer K-5-6 pushed",
        natural("KD", ("5C", "6H"), "push", 0),
        "bj_beats_21",
        want("4.1(c)", 5, "1", 1500, 0, 1500),
    ),
    fires(
        "8.2",
        "blackjack against a dealer K-5-6 paid even money",
        natural("KD", ("5C", "6H"), "win", 1000),
        "bj_vs_dealer_ace_ten",
        want("8.2", 5, "1", 1500, 1000, 500),
    ),
    quiet("8.2", "blackjack against a dealer K-5-6 paid 3 to 2", natural("KD", ("5C", "6H"), "win", 1500)),
    # Spec 2.2, its example: 3 to 2 on 1,500 at a min_chip 100 table (the NZ test table) is 2,200, rounded down;
    # 2,300 where the table elects to round up; the exact 2,250 is no whole chips and overpays by 50.
    quiet(
        "8.2",
        "blackjack of 15.00 against a dealer Q-8 paid 22.00",
        natural("QD", ("8C",), "win", 2200, wager=1500),
    ),
    quiet(
        "8.2",
        "blackjack of 15.00 against a dealer Q-8 paid 23.00 at a table rounding up",
        natural("QD", ("8C",), "win", 2300, wager=1500, extra={"payout_rounding": "up"}),
    ),
    fires(
        "8.2",
        "blackjack of 15.00 against a dealer Q-8 paid the exact 22.50",
        natural("QD", ("8C",), "win", 2250, wager=1500),
        "bj_vs_dealer_ace_ten",
        want("8.2", 4, "1", 2200, 2250, -50),
    ),
    fires(
        "8.2",
        "blackjack of 15.00 against a dealer Q-8 paid 22.00 at a table rounding up",
        natural("QD", ("8C",), "win", 2200, wager=1500, extra={"payout_rounding": "up"}),
        "bj_vs_dealer_ace_ten",
        want("8.2", 4, "1", 2300, 2200, 100),
    ),
    # The spec example: box 1 blackjack against a dealer KH paid at 5, before the dealer's second card (7).
    # 0 1:AS, 1 3:TH, 2 dealer KH, 3 1:QD, 4 3:8S, 5 settle 1, 6 stand 3, 7 dealer 5C, 8 dealer 9D, 9 settle 3
    fires(
        "8.2",
        "blackjack against a dealer K paid before the dealer's second card",
        nz(
            [
                deal("1", "AS"),
                deal("3", "TH"),
                deal("dealer", "KH"),
                deal("1", "QD"),
                deal("3", "8S"),
                settle("1", "win", 1500),
                stand("3"),
                *dealer("5C", "9D"),
                settle("3", "win", W),
            ],
            seats=[seat(1, W), seat(3, W)],
        ),
        "bj_paid_early",
        want("8.2", 5, "1", "settle after the dealer's second card", "settled at event 5"),
    ),
    quiet(
        "8.2",
        "blackjack against a dealer K paid after the dealer's second card",
        nz(
            [
                deal("1", "AS"),
                deal("3", "TH"),
                deal("dealer", "KH"),
                deal("1", "QD"),
                deal("3", "8S"),
                stand("3"),
                *dealer("5C", "9D"),
                settle("1", "win", 1500),
                settle("3", "win", W),
            ],
            seats=[seat(1, W), seat(3, W)],
        ),
    ),
    # 0-2 deal AS KH vs AD, 3 settle (3 to 2, no even money asked), 4 dealer 7C (soft 18)
    fires(
        "8.2",
        "blackjack against a dealer ace paid 3 to 2 before the dealer's second card",
        natural("AD", ("7C",), "win", 1500, paid_at_once=True),
        "bj_paid_early",
        want("8.2", 3, "1", "settle after the dealer's second card", "settled at event 3"),
    ),
    # With a dealer 9 rule 8.2 does not apply: the blackjack may be paid at once.
    quiet(
        "8.2",
        "dealer 9: blackjack paid 3 to 2 at once",
        natural("9D", ("8C",), "win", 1500, paid_at_once=True),
    ),
    fires(
        "8.2",
        "a 6 to 5 table",
        stands("KH", "QC", "9D", ("8S",), "win", W, extra={"blackjack_pays": "6:5"}),
        "elect_bj_pays",
        want("8.2", None, None, "3:2", "6:5"),
    ),
    # --- 8.3: even money ------------------------------------------------------------------------------------------
    # 0 1:AS, 1 2:TC, 2 dealer AD, 3 1:KH, 4 2:8C, 5 even money 1, 6 stand 2, 7 dealer 7S (soft 18), 8 settle 2
    quiet("8.3", "even money on a blackjack against a dealer ace, paid 1 to 1 at once", even_money_round()),
    fires(
        "8.3",
        "even money paid 3 to 2",
        even_money_round(paid=1500),
        "even_money_amount",
        want("8.3", 5, "1", 1000, 1500, -500),
    ),
    fires(
        "8.3",
        "even money paid short",
        even_money_round(paid=500),
        "even_money_amount",
        want("8.3", 5, "1", 1000, 500, 500),
    ),
    # Even money is only against an ace (8.3); against a king 8.2 applies to the blackjack instead: nothing paid
    # before the dealer's second card, then 3 to 2 (1500 on 1000) against the dealer's K+7.
    fires(
        "8.3",
        "even money against a dealer king",
        even_money_round(up="KD"),
        "even_money_when",
        want("8.2", 5, "1", 1500, 1000, 500),
        want("8.2", 5, "1", "settle after the dealer's second card", "settled at event 5"),
        want("8.3", 5, "1", "player blackjack, dealer ace", "AS+KH vs KD"),
    ),
    fires(
        "8.3",
        "even money on a soft 20",
        even_money_round(cards=("AS", "9H")),
        "even_money_when",
        # Review: even money is the hand's settlement (spec section 2); a 20 depends on the dealer's total, so paid
        # before the dealer's second card (event 7) it was settled before the dealer's hand was complete. The money
        # is right: 20 beats the dealer's soft 18, 1000 was due.
        want("8.3", 5, "1", "player blackjack, dealer ace", "AS+9H vs AD"),
        want(
            "uncited:settled-before-dealer-complete",
            5,
            "1",
            "settled after the dealer's hand is complete",
            "settled at event 5, dealer's hand complete at event 7",
        ),
    ),
    # 5 stand 2, 6 dealer 7S, 7 even money 1, 8 settle 2. Too late for even money (8.3), the payment is the
    # blackjack's settlement: once the dealer's second card shows no blackjack, 8.2 pays it 3 to 2 (1500), so the
    # player is owed 500 more.
    fires(
        "8.3",
        "even money after the dealer's second card",
        even_money_round(late=True),
        "even_money_timing",
        want("8.2", 7, "1", 1500, 1000, 500),
        want("8.3", 7, "1", "before event 6", "event 7"),
    ),
    # --- 9.1: insurance only against a dealer ace; decided by the dealer's second card ------------------------------
    # 0-2 deal 9H 8C (17) vs AD, 3 insurance 500, 4 stand, 5 dealer 6S (soft 17), 6 insurance collected, 7 push
    quiet("9.1", "insurance against an ace, loses on a 6", insured(500, "6S", ("lose", 500), ("push", 0))),
    # 5 dealer KS (blackjack): insurance wins 2 to 1, the 17 loses
    quiet("9.1", "insurance against an ace, wins on a king", insured(500, "KS", ("win", 1000), ("lose", W))),
    fires(
        "9.1",
        "insurance against a dealer ten",
        insured(500, "7S", ("lose", 500), ("push", 0), up="TD"),
        "insurance_when",
        want("9.1", 3, "1", "dealer's up card an ace", "TD"),
    ),
    fires(
        "9.1",
        "insurance that won on a king collected",
        insured(500, "KS", ("lose", 500), ("lose", W)),
        "insurance_outcome",
        want("9.1", 6, "1", 1000, -500, 1500),
    ),
    fires(
        "9.1",
        "insurance that lost on a 6 paid",
        insured(500, "6S", ("win", 1000), ("push", 0)),
        "insurance_outcome",
        want("9.1", 6, "1", -500, 1000, -1500),
    ),
    # --- 9.3: insurance at most half the wager, after the initial deal, before any further card -------------------
    fires(
        "9.3",
        "insurance of 600 on 1000",
        insured(600, "6S", ("lose", 600), ("push", 0)),
        "insurance_amount",
        want("9.3", 3, "1", "at most 500", 600),
    ),
    quiet("9.3", "insurance of exactly half", insured(500, "6S", ("lose", 500), ("push", 0))),
    quiet("9.3", "insurance of less than half", insured(300, "6S", ("lose", 300), ("push", 0))),
    # 0-2 deal 5H 6C (11) vs AD, 3 hit, 4 9S (20), 5 insurance, 6 stand, 7 dealer 7C (soft 18), 8 ins, 9 main
    fires(
        "9.3",
        "insurance after a further card to the box",
        nz(
            [
                *opening("5H", "6C", "AD"),
                hit("1"),
                deal("1", "9S"),
                insurance(1, 500),
                stand("1"),
                deal("dealer", "7C"),
                settle_insurance(1, "lose", 500),
                settle("1", "win", W),
            ]
        ),
        "insurance_timing",
        want("9.3", 5, "1", "before event 4", "event 5"),
    ),
    # 0 1:5H, 1 2:9C, 2 dealer AD, 3 1:6C, 4 2:9D (18), 5 hit 1, 6 1:9S (20), 7 insurance 2 (after box 1's card),
    # 8 stand 1, 9 stand 2, 10 dealer 7C (soft 18), 11 insurance 2 collected, 12 settle 1, 13 settle 2
    fires(
        "9.3",
        "insurance after a further card to another box",
        nz(
            [
                deal("1", "5H"),
                deal("2", "9C"),
                deal("dealer", "AD"),
                deal("1", "6C"),
                deal("2", "9D"),
                hit("1"),
                deal("1", "9S"),
                insurance(2, 500),
                stand("1"),
                stand("2"),
                deal("dealer", "7C"),
                settle_insurance(2, "lose", 500),
                settle("1", "win", W),
                settle("2", "push", 0),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
        "insurance_timing",
        want("9.3", 7, "2", "before event 6", "event 7"),
    ),
    quiet(
        "9.3",
        "insurance by the second box before any further card",
        nz(
            [
                deal("1", "5H"),
                deal("2", "9C"),
                deal("dealer", "AD"),
                deal("1", "6C"),
                deal("2", "9D"),
                insurance(2, 500),
                hit("1"),
                deal("1", "9S"),
                stand("1"),
                stand("2"),
                deal("dealer", "7C"),
                settle_insurance(2, "lose", 500),
                settle("1", "win", W),
                settle("2", "push", 0),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
    ),
    # 0 1:9H, 1 dealer AD, 2 insurance (the box has one card), 3 1:8C, 4 stand, 5 dealer 6S, 6 ins, 7 main
    fires(
        "9.3",
        "insurance before the initial deal is complete",
        nz(
            [
                deal("1", "9H"),
                deal("dealer", "AD"),
                insurance(1, 500),
                deal("1", "8C"),
                stand("1"),
                deal("dealer", "6S"),
                settle_insurance(1, "lose", 500),
                settle("1", "push", 0),
            ]
        ),
        "insurance_timing",
        want("9.3", 2, "1", "after the initial deal", "during the initial deal"),
    ),
    # No stand is recorded (it is optional): 0-2 deal 9H 8C vs AD, 3 dealer 6S (the dealer's second card, dealt
    # after the players in this game), 4 insurance, 5 insurance collected, 6 main. The insurance was placed once
    # the dealer's second card was known: "prior to any additional cards being dealt after the initial deal".
    fires(
        "9.3",
        "insurance after the dealer's second card",
        nz(
            [
                *opening("9H", "8C", "AD"),
                deal("dealer", "6S"),
                insurance(1, 500),
                settle_insurance(1, "lose", 500),
                settle("1", "push", 0),
            ]
        ),
        "insurance_timing",
        want("9.3", 4, "1", "before event 3", "event 4"),
    ),
    # --- 9.4: insurance payable in chips (smallest chip 100) -------------------------------------------------------
    fires(
        "9.4",
        "insurance of 225 would win 450",
        insured(225, "6S", ("lose", 225), ("push", 0)),
        "insurance_chips",
        want("9.4", 3, "1", "a winning payout in multiples of 100", 450),
    ),
    quiet("9.4", "insurance of 250 would win 500", insured(250, "6S", ("lose", 250), ("push", 0))),
    quiet("9.4", "insurance of 250 wins 500", insured(250, "QS", ("win", 500), ("lose", W))),
    # --- 9.5: winning insurance pays 2 to 1 -------------------------------------------------------------------------
    fires(
        "9.5",
        "winning insurance paid 1 to 1",
        insured(500, "KS", ("win", 500), ("lose", W)),
        "insurance_odds",
        want("9.5", 6, "1", 1000, 500, 500),
    ),
    fires(
        "9.5",
        "winning insurance paid 3 to 2",
        insured(500, "JS", ("win", 750), ("lose", W)),
        "insurance_odds",
        want("9.5", 6, "1", 1000, 750, 250),
    ),
    quiet("9.5", "winning insurance paid 2 to 1", insured(500, "KS", ("win", 1000), ("lose", W))),
    # --- 9.6: losing insurance collected right after the dealer's second card --------------------------------------
    # 0-2 deal TH 9C (19) vs AD, 3 insurance, 4 stand, 5 dealer 5S (soft 16), 6 dealer 2C (soft 18), 7 ins, 8 main
    fires(
        "9.6",
        "losing insurance collected after the dealer's third card",
        nz(
            [
                *opening("TH", "9C", "AD"),
                insurance(1, 500),
                stand("1"),
                *dealer("5S", "2C"),
                settle_insurance(1, "lose", 500),
                settle("1", "win", W),
            ]
        ),
        "insurance_collect_timing",
        want("9.6", 7, "1", "between events 5 and 6", "event 7"),
    ),
    # 5 insurance collected, 6 dealer 5S, 7 dealer 2C, 8 main
    fires(
        "9.6",
        "losing insurance collected before the dealer's second card",
        nz(
            [
                *opening("TH", "9C", "AD"),
                insurance(1, 500),
                stand("1"),
                settle_insurance(1, "lose", 500),
                *dealer("5S", "2C"),
                settle("1", "win", W),
            ]
        ),
        "insurance_collect_timing",
        want("9.6", 5, "1", "between events 6 and 7", "event 5"),
    ),
    quiet(
        "9.6",
        "losing insurance collected between the dealer's second and third cards",
        nz(
            [
                *opening("TH", "9C", "AD"),
                insurance(1, 500),
                stand("1"),
                deal("dealer", "5S"),
                settle_insurance(1, "lose", 500),
                deal("dealer", "2C"),
                settle("1", "win", W),
            ]
        ),
    ),
    quiet(
        "9.6",
        "losing insurance collected after the dealer stands on two cards",
        insured(500, "9S", ("lose", 500), ("lose", W), cards=("TH", "7C")),
    ),
    # --- uncited:dealer-draw: the dealer draws by the soft 17 election ------------------------------------------------
    # 0-2 deal KH 8C (18) vs 6D, 3 stand, 4 AS (soft 17), 5 3C (20), 6 settle
    fires(
        "uncited:dealer-draw",
        "stand-on-soft-17 table: dealer draws on 6-A",
        stands("KH", "8C", "6D", ("AS", "3C"), "lose", W),
        "draw_s17",
        # Spec 2.2: the draw carries no money; the 18, judged against the dealer's 17, was owed a win.
        want("uncited:dealer-draw", 5, "dealer", "stand on soft 17", "drew 3C"),
        want("4.1(b)", 6, "1", W, -W, 2 * W),
    ),
    quiet(
        "uncited:dealer-draw",
        "stand-on-soft-17 table: dealer stands on 6-A",
        stands("KH", "8C", "6D", ("AS",), "win", W),
    ),
    # 0-2 deal KH 8C vs TD, 3 stand, 4 7S (hard 17), 5 2C (19), 6 settle
    fires(
        "uncited:dealer-draw",
        "stand-on-soft-17 table: dealer draws on hard 17",
        stands("KH", "8C", "TD", ("7S", "2C"), "lose", W),
        "draw_s17",
        want("uncited:dealer-draw", 5, "dealer", "stand on hard 17", "drew 2C"),
        want("4.1(b)", 6, "1", W, -W, 2 * W),
    ),
    # 0-2 deal KH 8C vs TD, 3 stand, 4 6S (16), 5 settle: the 18 is paid against a dealer who stopped on 16
    fires(
        "uncited:dealer-draw",
        "dealer stops on 16 against a live 18",
        stands("KH", "8C", "TD", ("6S",), "win", W),
        "draw_s17",
        want("uncited:dealer-draw", None, "dealer", "draw on hard 16", "stood"),
    ),
    quiet(
        "uncited:dealer-draw",
        "dealer draws 16 to 20 against a live 18",
        stands("KH", "8C", "TD", ("6S", "4C"), "lose", W),
    ),
    # 0-2 deal KH 8C vs 9D, 3 stand, 4 settle: the dealer never took a second card although the 18 was live
    fires(
        "uncited:dealer-draw",
        "dealer stops on one card (9) against a live 18",
        nz([*opening("KH", "8C", "9D"), stand("1"), settle("1", "win", W)]),
        "draw_s17",
        want("uncited:dealer-draw", None, "dealer", "draw to a standing total", "stood on one card"),
    ),
    # 0-2 deal KH 8C vs AD, 3 stand, 4 KC (blackjack), 5 5C (drawn on a blackjack), 6 settle
    fires(
        "uncited:dealer-draw",
        "dealer draws to a blackjack",
        stands("KH", "8C", "AD", ("KC", "5C"), "lose", W),
        "draw_s17",
        want("uncited:dealer-draw", 5, "dealer", "stand on blackjack", "drew 5C"),
    ),
    # 0-2 deal TH 6C vs 6D, 3 hit, 4 9S (bust), 5 settle: the dealer needs no card when every box has busted
    quiet(
        "uncited:dealer-draw",
        "every box busted: the dealer takes no second card",
        nz([*opening("TH", "6C", "6D"), hit("1"), deal("1", "9S"), settle("1", "lose", W)]),
    ),
    fires(
        "uncited:dealer-draw",
        "hit-soft-17 table: dealer stands on 6-A",
        stands("KH", "8C", "6D", ("AS",), "win", W, extra={"dealer_soft_17": "hit"}),
        "draw_h17",
        want("uncited:dealer-draw", None, "dealer", "draw on soft 17", "stood"),
    ),
    # 0-2 deal KH 8C vs 6D, 3 stand, 4 AS (soft 17), 5 AC (soft 18), 6 2C (20), 7 settle
    fires(
        "uncited:dealer-draw",
        "hit-soft-17 table: dealer draws on soft 18",
        stands("KH", "8C", "6D", ("AS", "AC", "2C"), "lose", W, extra={"dealer_soft_17": "hit"}),
        "draw_h17",
        want("uncited:dealer-draw", 6, "dealer", "stand on soft 18", "drew 2C"),
        want("4.1(e)", 7, "1", 0, -W, W),
    ),
    quiet(
        "uncited:dealer-draw",
        "hit-soft-17 table: dealer draws on 6-A and stands on soft 18",
        stands("KH", "8C", "6D", ("AS", "AC"), "push", 0, extra={"dealer_soft_17": "hit"}),
    ),
    quiet(
        "uncited:dealer-draw",
        "hit-soft-17 table: dealer draws on 6-A to 20",
        stands("KH", "8C", "6D", ("AS", "3C"), "lose", W, extra={"dealer_soft_17": "hit"}),
    ),
    fires(
        "uncited:dealer-draw",
        "no soft-17 election: dealer draws on hard 17",
        stands("KH", "8C", "TD", ("7S", "2C"), "lose", W, rules=NO_SOFT_17),
        "draw_unknown",
        want("uncited:dealer-draw", 5, "dealer", "stand on hard 17", "drew 2C"),
        want("4.1(b)", 6, "1", W, -W, 2 * W),
    ),
    fires(
        "uncited:dealer-draw",
        "no soft-17 election: dealer stops on 16",
        stands("KH", "8C", "TD", ("6S",), "win", W, rules=NO_SOFT_17),
        "draw_unknown",
        want("uncited:dealer-draw", None, "dealer", "draw on hard 16", "stood"),
    ),
    quiet(
        "uncited:dealer-draw",
        "no soft-17 election: dealer stands on 6-A",
        stands("KH", "8C", "6D", ("AS",), "win", W, rules=NO_SOFT_17),
    ),
    quiet(
        "uncited:dealer-draw",
        "no soft-17 election: dealer draws on 6-A",
        stands("KH", "8C", "6D", ("AS", "3C"), "lose", W, rules=NO_SOFT_17),
    ),
    # --- uncited:player-draw: no draw on 21 or after busting -------------------------------------------------------
    # 0-2 deal 5H 6C vs 9D, 3 hit, 4 KS (21), 5 hit (the fault), 6 2D (23), 7 settle (the bust is collected)
    fires(
        # Spec section 2.1: the hit on the complete 21 is the finding; the card that answers it is the same fault.
        "uncited:player-draw",
        "box draws on 21",
        nz(
            [
                *opening("5H", "6C", "9D"),
                hit("1"),
                deal("1", "KS"),
                hit("1"),
                deal("1", "2D"),
                settle("1", "lose", W),
            ]
        ),
        "hit_on_21",
        want("uncited:player-draw", 5, "1", "no card on 21", "hit on 21"),
    ),
    # 0-2 deal TH 6C vs 9D, 3 hit, 4 9S (25), 5 3D dealt to the busted box, 6 settle
    fires(
        "uncited:player-draw",
        "busted box dealt another card",
        nz([*opening("TH", "6C", "9D"), hit("1"), deal("1", "9S"), deal("1", "3D"), settle("1", "lose", W)]),
        "hit_over_21",
        want("uncited:player-draw", 5, "1", "draws only below 21", "drew 3D on 25"),
    ),
    # 0-2 deal 5H 6C vs 9D, 3 hit, 4 KS (21), 5 stand, 6 8S (17), 7 settle
    quiet(
        "uncited:player-draw",
        "box draws to 21 and stands",
        nz(
            [
                *opening("5H", "6C", "9D"),
                hit("1"),
                deal("1", "KS"),
                stand("1"),
                deal("dealer", "8S"),
                settle("1", "win", W),
            ]
        ),
    ),
    quiet(
        "uncited:player-draw",
        "box draws to 25 and is collected",
        nz([*opening("TH", "6C", "9D"), hit("1"), deal("1", "9S"), settle("1", "lose", W)]),
    ),
    # --- uncited:doubling ----------------------------------------------------------------------------------------------
    # 0-2 deal 6H 5C (11) vs 6D, 3 double, 4 9S (20), 5 TS (16), 6 7C (23), 7 settle
    quiet(
        "uncited:doubling",
        "double on 11 for the wager, one card, paid on both",
        doubled("6H", "5C", "6D", W, "9S", ("TS", "7C"), "win", 2 * W),
    ),
    quiet(
        "uncited:doubling",
        "double for less than the wager",
        doubled("6H", "5C", "6D", 500, "9S", ("TS", "7C"), "win", W + 500),
    ),
    fires(
        "uncited:doubling",
        "double for more than the wager",
        doubled("6H", "5C", "6D", 1500, "9S", ("TS", "7C"), "win", W + 1500),
        "double_amount",
        want("uncited:doubling", 3, "1", "1..1000", 1500),
    ),
    # 0-2 deal 2H 3C (5) vs 6D, 3 hit, 4 6S (11), 5 double, 6 9S (20), 7 TS, 8 7C (23), 9 settle
    fires(
        "uncited:doubling",
        "double on three cards",
        nz(
            [
                *opening("2H", "3C", "6D"),
                hit("1"),
                deal("1", "6S"),
                double("1", W),
                deal("1", "9S"),
                *dealer("TS", "7C"),
                settle("1", "win", 2 * W),
            ]
        ),
        "double_when",
        want("uncited:doubling", 5, "1", "first two cards", "3 cards"),
    ),
    # 0-2 deal 6H 5C vs 6D, 3 double, 4 2S (13), 5 8S (21: a second card after the double), 6 TS, 7 7C, 8 settle
    fires(
        "uncited:doubling",
        "doubled hand dealt two cards",
        nz(
            [
                *opening("6H", "5C", "6D"),
                double("1", W),
                deal("1", "2S"),
                deal("1", "8S"),
                *dealer("TS", "7C"),
                settle("1", "win", 2 * W),
            ]
        ),
        "double_one_card",
        want("uncited:doubling", 5, "1", "one card after the double", "8S as an extra card"),
    ),
    # 0-2 deal 6H 5C (11) vs 6D, 3 double, 4 TS (16), 5 7C (23), 6 settle (the 11 wins on the dealer's bust)
    fires(
        "uncited:doubling",
        "doubled hand never dealt its card",
        nz([*opening("6H", "5C", "6D"), double("1", W), *dealer("TS", "7C"), settle("1", "win", 2 * W)]),
        "double_one_card",
        want("uncited:doubling", None, "1", "one card after the double", "no card"),
    ),
    # 0-2 deal 8H 8C vs 6D, 3 split, 4 1:3S (11), 5 double 1, 6 1:9H (20), 7 1.2:TC (18), 8 stand 1.2,
    # 9 TS (16), 10 7C (23), 11 settle 1, 12 settle 1.2
    fires(
        "uncited:doubling",
        "double after a split at a table prohibiting it",
        nz(
            [
                *opening("8H", "8C", "6D"),
                split("1", W),
                deal("1", "3S"),
                double("1", W),
                deal("1", "9H"),
                deal("1.2", "TC"),
                stand("1.2"),
                *dealer("TS", "7C"),
                settle("1", "win", 2 * W),
                settle("1.2", "win", W),
            ],
            extra={"double_after_split": False},
        ),
        "das_prohibited",
        want("uncited:doubling", 5, "1", "no double after split", "double of 1000"),
    ),
    quiet(
        "uncited:doubling",
        "double after a split at a table allowing it",
        nz(
            [
                *opening("8H", "8C", "6D"),
                split("1", W),
                deal("1", "3S"),
                double("1", W),
                deal("1", "9H"),
                deal("1.2", "TC"),
                stand("1.2"),
                *dealer("TS", "7C"),
                settle("1", "win", 2 * W),
                settle("1.2", "win", W),
            ],
            extra={"double_after_split": True},
        ),
    ),
    # --- uncited:splitting ---------------------------------------------------------------------------------------------
    # 0-2 deal 8H 8C vs 6D, 3 split, 4 1:TS (18), 5 stand, 6 1.2:9H (17), 7 stand, 8 TD (16), 9 7C (23), 10-11 settle
    quiet(
        "uncited:splitting",
        "split 8s for the wager",
        split_eights("6D", ("TD", "7C"), (("win", W), ("win", W))),
    ),
    fires(
        "uncited:splitting",
        "split of 8 and 9",
        split_eights("6D", ("TD", "7C"), (("win", W), ("win", W)), pair=("8H", "9C")),
        "split_pair",
        want("uncited:splitting", 3, "1", "two cards of identical value", "8H+9C"),
    ),
    quiet(
        "uncited:splitting",
        "split of a king and a ten (equal value)",
        split_eights("6D", ("TD", "7C"), (("win", W), ("win", W)), pair=("KH", "TC"), cards=("8S", "9H")),
    ),
    fires(
        "uncited:splitting",
        "split for half the wager",
        split_eights("6D", ("TD", "7C"), (("win", W), ("win", 500)), amount=500),
        "split_amount",
        want("uncited:splitting", 3, "1", 1000, 500),
    ),
    # 0-2 deal 8H 8C vs 6D, 3 split (1.2 gets 8C), 4 1:8D, 5 split 1 again (1.3 gets 8D), 6 1:TS (18), 7 stand 1,
    # 8 1.2:9H (17), 9 stand 1.2, 10 1.3:JC (18), 11 stand 1.3, 12 TD (16), 13 7C (23), 14-16 settle
    fires(
        "uncited:splitting",
        "resplit at a table not offering it",
        nz(
            [
                *opening("8H", "8C", "6D"),
                split("1", W),
                deal("1", "8D"),
                split("1", W),
                deal("1", "TS"),
                stand("1"),
                deal("1.2", "9H"),
                stand("1.2"),
                deal("1.3", "JC"),
                stand("1.3"),
                *dealer("TD", "7C"),
                settle("1", "win", W),
                settle("1.2", "win", W),
                settle("1.3", "win", W),
            ],
            extra={"resplit": False},
        ),
        "resplit_not_elected",
        want("uncited:splitting", 5, "1", "at most 2 hands", "3 hands"),
    ),
    quiet(
        "uncited:splitting",
        "resplit at a table offering it",
        nz(
            [
                *opening("8H", "8C", "6D"),
                split("1", W),
                deal("1", "8D"),
                split("1", W),
                deal("1", "TS"),
                stand("1"),
                deal("1.2", "9H"),
                stand("1.2"),
                deal("1.3", "JC"),
                stand("1.3"),
                *dealer("TD", "7C"),
                settle("1", "win", W),
                settle("1.2", "win", W),
                settle("1.3", "win", W),
            ],
            extra={"resplit": True},
        ),
    ),
    # --- uncited:dealer-blackjack-extra-wagers -------------------------------------------------------------------------
    # 0-2 deal 6H 5C (11) vs AD, 3 double, 4 9S (20), 5 KC (dealer blackjack), 6 settle
    quiet(
        "uncited:dealer-blackjack-extra-wagers",
        "dealer blackjack after a double collects the original wager",
        doubled("6H", "5C", "AD", W, "9S", ("KC",), "lose", W),
    ),
    quiet(
        "uncited:dealer-blackjack-extra-wagers",
        "dealer blackjack after a double collects both wagers",
        doubled("6H", "5C", "AD", W, "9S", ("KC",), "lose", 2 * W),
    ),
    fires(
        "uncited:dealer-blackjack-extra-wagers",
        "dealer blackjack after a double collects more than both wagers",
        doubled("6H", "5C", "AD", W, "9S", ("KC",), "lose", 3 * W),
        "dealer_bj_after_double",
        want("uncited:dealer-blackjack-extra-wagers", 6, "1", -2000, -3000, 1000),
    ),
    fires(
        "uncited:dealer-blackjack-extra-wagers",
        "dealer blackjack after a double returns everything",
        doubled("6H", "5C", "AD", W, "9S", ("KC",), "push", 0),
        "dealer_bj_after_double",
        want("uncited:dealer-blackjack-extra-wagers", 6, "1", -1000, 0, -1000),
    ),
    # 0-2 deal 8H 8C vs TD, 3 split, 4 1:TS, 5 stand, 6 1.2:9H, 7 stand, 8 AC (dealer blackjack), 9 settle 1, 10 1.2
    quiet(
        "uncited:dealer-blackjack-extra-wagers",
        "dealer blackjack after a split collects the original wager only",
        split_eights("TD", ("AC",), (("lose", W), ("push", 0))),
    ),
    quiet(
        "uncited:dealer-blackjack-extra-wagers",
        "dealer blackjack after a split collects both wagers",
        split_eights("TD", ("AC",), (("lose", W), ("lose", W))),
    ),
    fires(
        "uncited:dealer-blackjack-extra-wagers",
        "dealer blackjack after a split returns both wagers",
        split_eights("TD", ("AC",), (("push", 0), ("push", 0))),
        "dealer_bj_after_split",
        want("uncited:dealer-blackjack-extra-wagers", 10, "1", -1000, 0, -1000),
    ),
    # --- uncited:blackjack-odds: a blackjack against a dealer 2-9 pays 3 to 2 ---------------------------------------
    # 0-2 deal AS KH vs 9D, 3 settle at once, 4 8C
    fires(
        "uncited:blackjack-odds",
        "dealer 9: blackjack paid 1 to 1 at once",
        natural("9D", ("8C",), "win", W, paid_at_once=True),
        "bj_odds",
        want("uncited:blackjack-odds", 3, "1", 1500, 1000, 500),
    ),
    # 0-2 deal AS KH vs 6D, 3 TS (16), 4 7C (23), 5 settle
    fires(
        "uncited:blackjack-odds",
        "dealer 6 busts: blackjack paid 1 to 1",
        natural("6D", ("TS", "7C"), "win", W),
        "bj_odds",
        want("uncited:blackjack-odds", 5, "1", 1500, 1000, 500),
    ),
    quiet(
        "uncited:blackjack-odds",
        "dealer 9: blackjack paid 3 to 2 at once",
        natural("9D", ("8C",), "win", 1500, paid_at_once=True),
    ),
    quiet(
        "uncited:blackjack-odds",
        "dealer 6 busts: blackjack paid 3 to 2",
        natural("6D", ("TS", "7C"), "win", 1500),
    ),
    # --- uncited:win-pays-1-to-1 ---------------------------------------------------------------------------------------
    # 0-2 deal KH QC (20) vs 9D, 3 stand, 4 9S (18), 5 settle
    fires(
        "uncited:win-pays-1-to-1",
        "20 against 18 paid half",
        stands("KH", "QC", "9D", ("9S",), "win", 500),
        "win_odds",
        want("uncited:win-pays-1-to-1", 5, "1", 1000, 500, 500),
    ),
    fires(
        "uncited:win-pays-1-to-1",
        "20 against 18 paid 3 to 2",
        stands("KH", "QC", "9D", ("9S",), "win", 1500),
        "win_odds",
        want("uncited:win-pays-1-to-1", 5, "1", 1000, 1500, -500),
    ),
    quiet(
        "uncited:win-pays-1-to-1", "20 against 18 paid 1 to 1", stands("KH", "QC", "9D", ("9S",), "win", W)
    ),
    fires(
        "uncited:win-pays-1-to-1",
        "doubled win paid on the original wager only",
        doubled("6H", "5C", "6D", W, "9S", ("TS", "7C"), "win", W),
        "win_odds",
        want("uncited:win-pays-1-to-1", 7, "1", 2000, 1000, 1000),
    ),
    # 0-2 deal AH AC vs 6D, 3 split, 4 1:KS (21, not a blackjack), 5 stand, 6 1.2:9H (20), 7 stand, 8 TD, 9 7C, 10-11
    fires(
        "uncited:win-pays-1-to-1",
        "split ace and king paid as a blackjack",
        split_eights("6D", ("TD", "7C"), (("win", 1500), ("win", W)), pair=("AH", "AC"), cards=("KS", "9H")),
        "win_odds",
        want("uncited:win-pays-1-to-1", 10, "1", 1000, 1500, -500),
    ),
    quiet(
        "uncited:win-pays-1-to-1",
        "split ace and king paid 1 to 1",
        split_eights("6D", ("TD", "7C"), (("win", W), ("win", W)), pair=("AH", "AC"), cards=("KS", "9H")),
    ),
    # --- uncited:lose-collects-stake -----------------------------------------------------------------------------------
    # 0-2 deal 9H 8C (17) vs TD, 3 stand, 4 9S (19), 5 settle
    fires(
        "uncited:lose-collects-stake",
        "17 against 19: 1500 collected",
        stands("9H", "8C", "TD", ("9S",), "lose", 1500),
        "lose_amount",
        want("uncited:lose-collects-stake", 5, "1", -1000, -1500, 500),
    ),
    fires(
        "uncited:lose-collects-stake",
        "17 against 19: 500 collected",
        stands("9H", "8C", "TD", ("9S",), "lose", 500),
        "lose_amount",
        want("uncited:lose-collects-stake", 5, "1", -1000, -500, -500),
    ),
    # 0-2 deal 6H 5C (11) vs TD, 3 double, 4 2S (13), 5 9C (19), 6 settle
    fires(
        "uncited:lose-collects-stake",
        "doubled hand loses: only the original wager collected",
        doubled("6H", "5C", "TD", W, "2S", ("9C",), "lose", W),
        "lose_amount",
        want("uncited:lose-collects-stake", 6, "1", -2000, -1000, -1000),
    ),
    quiet(
        "uncited:lose-collects-stake",
        "doubled hand loses: both wagers collected",
        doubled("6H", "5C", "TD", W, "2S", ("9C",), "lose", 2 * W),
    ),
    fires(
        "uncited:lose-collects-stake",
        "losing insurance of 500 collected as 1000",
        insured(500, "6S", ("lose", 1000), ("push", 0)),
        "lose_amount",
        want("uncited:lose-collects-stake", 6, "1", -500, -1000, 500),
    ),
    # --- uncited:surrender --------------------------------------------------------------------------------------------
    quiet("uncited:surrender", "late surrender on 16 against a ten, half collected", surrendered("late")),
    fires(
        "uncited:surrender",
        "late surrender: the whole wager collected",
        surrendered("late", W),
        "surrender_amount",
        want("uncited:surrender", 4, "1", -500, -1000, 500),
    ),
    fires(
        "uncited:surrender",
        "late surrender: nothing collected",
        surrendered("late", 0),
        "surrender_amount",
        want("uncited:surrender", 4, "1", -500, 0, -500),
    ),
    # 0-2 deal TH 4C (14) vs TD, 3 hit, 4 2S (16), 5 surrender, 6 settle
    fires(
        "uncited:surrender",
        "surrender after drawing a card",
        nz(
            [
                *opening("TH", "4C", "TD"),
                hit("1"),
                deal("1", "2S"),
                surrender("1"),
                settle("1", "surrender", 500),
            ],
            extra={"surrender": "late"},
        ),
        "surrender_when",
        want("uncited:surrender", 5, "1", "surrender on the first two cards", "surrender with 3 cards"),
    ),
    # --- uncited:missing-settlement ------------------------------------------------------------------------------------
    # 0-2 deal KH QC (20) vs 9D, 3 stand, 4 9S (18): never settled
    fires(
        "uncited:missing-settlement",
        "winning hand never settled",
        nz([*opening("KH", "QC", "9D"), stand("1"), deal("dealer", "9S")]),
        "missing_settlement",
        want("uncited:missing-settlement", None, "1", 1000, 0, 1000),
    ),
    # insured() without the insurance settlement: 0-2, 3 insurance, 4 stand, 5 6S, 6 main
    fires(
        "uncited:missing-settlement",
        "losing insurance never collected",
        nz(
            [
                *opening("9H", "8C", "AD"),
                insurance(1, 500),
                stand("1"),
                deal("dealer", "6S"),
                settle("1", "push", 0),
            ]
        ),
        "missing_settlement",
        want("uncited:missing-settlement", None, "1", -500, 0, -500),
    ),
    quiet(
        "uncited:missing-settlement", "every wager settled", insured(500, "6S", ("lose", 500), ("push", 0))
    ),
    # --- uncited:settled-twice -----------------------------------------------------------------------------------------
    # 0-2 deal KH QC vs 9D, 3 stand, 4 9S, 5 settle, 6 settle again
    fires(
        "uncited:settled-twice",
        "winning hand paid twice",
        nz(
            [
                *opening("KH", "QC", "9D"),
                stand("1"),
                deal("dealer", "9S"),
                settle("1", "win", W),
                settle("1", "win", W),
            ]
        ),
        "settled_twice",
        want("uncited:settled-twice", 6, "1", 0, 1000, -1000),
    ),
    # even money at 5, then box 1 settled again at 9 (after box 2 at 8)
    fires(
        "uncited:settled-twice",
        "even money followed by a settlement",
        nz(
            [
                deal("1", "AS"),
                deal("2", "TC"),
                deal("dealer", "AD"),
                deal("1", "KH"),
                deal("2", "8C"),
                even_money(1, W),
                stand("2"),
                deal("dealer", "7S"),
                settle("2", "push", 0),
                settle("1", "win", 1500),
            ],
            seats=[seat(1, W), seat(2, W)],
        ),
        "settled_twice",
        want("uncited:settled-twice", 9, "1", 0, 1500, -1500),
    ),
    # 0-2, 3 insurance, 4 stand, 5 6S, 6 insurance collected, 7 collected again, 8 main
    fires(
        "uncited:settled-twice",
        "losing insurance collected twice",
        nz(
            [
                *opening("9H", "8C", "AD"),
                insurance(1, 500),
                stand("1"),
                deal("dealer", "6S"),
                settle_insurance(1, "lose", 500),
                settle_insurance(1, "lose", 500),
                settle("1", "push", 0),
            ]
        ),
        "settled_twice",
        want("uncited:settled-twice", 7, "1", 0, -500, 500),
    ),
    quiet("uncited:settled-twice", "each wager settled once", stands("KH", "QC", "9D", ("9S",), "win", W)),
    quiet("uncited:settled-twice", "even money and no further settlement", even_money_round()),
]

# uncited:table-limits: each box's original wager within the table's posted minimum and maximum
CASES += [
    fires(
        "uncited:table-limits",
        "wager above the posted maximum",
        stands("KH", "QC", "9D", ("9S",), "win", W, extra={"max_wager": W - 100}),
        "wager_limits",
        want("uncited:table-limits", None, "1", "..900", 1000),
    ),
    fires(
        "uncited:table-limits",
        "wager below the posted minimum",
        stands("KH", "QC", "9D", ("9S",), "win", W, extra={"min_wager": W + 100}),
        "wager_limits",
        want("uncited:table-limits", None, "1", "1100..", 1000),
    ),
    quiet(
        "uncited:table-limits",
        "wager within the posted limits",
        stands("KH", "QC", "9D", ("9S",), "win", W, extra={"min_wager": W, "max_wager": W}),
    ),
]

# Regressions from the correctness review of 2026-12-02.
CASES += [
    fires(
        "9.1",
        "insurance paid although the dealer never received a second card",
        nz(
            [
                *opening("TH", "6D", "AS"),
                insurance(1, W // 2),
                deal("1", "9C"),  # 25: busted
                settle("1", "lose", W),
                settle_insurance(1, "win", W),  # 6
            ]
        ),
        "insurance_outcome",
        want("9.1", 6, "1", 0, 1000, -1000),
        # Review: the only box busted, so no hand waited on the dealer's total; the second card was owed to decide
        # the insurance (9.1, 9.6).
        want(
            "uncited:dealer-draw",
            None,
            "dealer",
            "a second card, to decide the insurance",
            "stood on one card",
        ),
    ),
    fires(
        "8.2",
        "a 6 to 5 table pays a blackjack 6 to 5: 3 to 2 was due",
        nz(
            [*opening("AH", "KD", "TS"), *dealer("6C", "5H"), settle("1", "win", W * 6 // 5)],
            extra={"blackjack_pays": "6:5"},
        ),
        "bj_vs_dealer_ace_ten",
        want("8.2", None, None, "3:2", "6:5"),
        want("8.2", 5, "1", 1500, 1200, 300),
    ),
    quiet(
        "8.3",
        "even money at a hole-card table, before the hole card is turned up",
        nz(
            [
                deal("1", "AH"),
                deal("dealer", "AS"),
                deal("1", "KD"),
                deal("dealer", "7C", "down"),
                even_money(1, W),
                reveal("dealer", "7C"),  # soft 18: the dealer stands
            ],
            extra={"dealer_second_card": "initial_deal"},
        ),
    ),
]
