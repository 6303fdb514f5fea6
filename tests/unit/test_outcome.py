"""What a hand is due, written from the rules (NZ 4.1(a)-(g), 8.2; NJ 19:47-2.10(b), 13:69F-2.11(d); the uncited
fundamentals: a win pays 1 to 1, a loss collects the stake, a blackjack pays 3 to 2 or 6 to 5), and how a
settlement that differs is reported: the role (the rule) that a wrong direction or a wrong amount cites, and the
money owed (amount_delta = due - done, + to the player)."""

from __future__ import annotations

from typing import Any

import pytest

from app.domain.checks.outcome import Expect, dealer_facts, expect, ratio
from app.domain.checks.settlement import Terms, judge
from app.domain.rules import Ctx, Rule
from app.domain.state import HandState

W = 2500

# The dealer, as a settlement is judged against it: (total, blackjack, up card an ace or ten)
D19 = (19, False, False)
D20_TEN_UP = (20, False, True)
D21_THREE_CARDS = (21, False, False)
D_BUST = (24, False, False)
D_BJ = (21, True, True)


def due(
    total: int,
    *,
    stake: int = W,
    wager: int = W,
    surrendered: bool = False,
    blackjack: bool = False,
    dealer: tuple[int, bool, bool] = D19,
    six_five: bool = False,
    chip: int = 1,
    up: bool = False,
) -> tuple[tuple[int, ...], str, str]:
    e = expect(total, stake, wager, surrendered, blackjack, dealer, six_five, chip, up)
    return e.nets, e.direction, e.amount


@pytest.mark.parametrize(
    ("name", "got", "want"),
    [
        # A surrendered hand forfeits half its wager; of an odd wager the half returned is rounded down to the chip
        # (spec 2.2: a surrender of 1,005 at min_chip 1 returns 502 and collects 503).
        (
            "surrender",
            lambda: due(16, surrendered=True),
            ((-1250,), "surrender_amount", "surrender_amount"),
        ),
        (
            "surrender, odd wager",
            lambda: due(16, wager=2501, stake=2501, surrendered=True),
            ((-1251,), "surrender_amount", "surrender_amount"),
        ),
        (
            "surrender of 1,500 at min_chip 100 (spec 2.2)",
            lambda: due(16, wager=1500, stake=1500, surrendered=True, chip=100),
            ((-800,), "surrender_amount", "surrender_amount"),
        ),
        (
            "surrender of 1,005, rounding up",
            lambda: due(16, wager=1005, stake=1005, surrendered=True, up=True),
            ((-502,), "surrender_amount", "surrender_amount"),
        ),
        # A blackjack against the dealer's blackjack is a stand off (4.1(e), 8.2).
        (
            "blackjack v blackjack",
            lambda: due(21, blackjack=True, dealer=D_BJ),
            ((0,), "bj_vs_dealer_ace_ten", "bj_vs_dealer_ace_ten"),
        ),
        # A blackjack against a dealer 2-9 pays 3 to 2 (6 to 5 at a 6 to 5 table); a wrong direction cites the
        # outcome by the dealer's hand (4.1(b), (c), (a)), a wrong amount the odds.
        ("blackjack v 19", lambda: due(21, blackjack=True), ((3750,), "higher_total", "bj_odds")),
        (
            "blackjack v 19 at 6 to 5",
            lambda: due(21, blackjack=True, six_five=True),
            ((3000,), "higher_total", "bj_odds"),
        ),
        (
            "blackjack v 21 of three cards",
            lambda: due(21, blackjack=True, dealer=D21_THREE_CARDS),
            ((3750,), "bj_beats_21", "bj_odds"),
        ),
        (
            "blackjack v a dealer bust",
            lambda: due(21, blackjack=True, dealer=D_BUST),
            ((3750,), "dealer_bust", "bj_odds"),
        ),
        # Odds that do not come out in whole chips: rounded down (spec 2.2), up where the table elects it.
        (
            "blackjack, odd wager, 3 to 2",
            lambda: due(21, wager=2501, stake=2501, blackjack=True),
            ((3751,), "higher_total", "bj_odds"),
        ),
        (
            "blackjack, odd wager, 6 to 5",
            lambda: due(21, wager=1001, stake=1001, blackjack=True, six_five=True),
            ((1201,), "higher_total", "bj_odds"),
        ),
        (
            "blackjack of 1,500 at min_chip 100 (spec 2.2)",
            lambda: due(21, wager=1500, stake=1500, blackjack=True, chip=100),
            ((2200,), "higher_total", "bj_odds"),
        ),
        (
            "blackjack of 1,500 at min_chip 100, rounding up",
            lambda: due(21, wager=1500, stake=1500, blackjack=True, chip=100, up=True),
            ((2300,), "higher_total", "bj_odds"),
        ),
        # Against an ace or ten up with no dealer blackjack: whether it won is the totals' (one check, one rule,
        # spec 2.1), how much NZ 8.2's.
        (
            "blackjack v ten up",
            lambda: due(21, blackjack=True, dealer=D20_TEN_UP),
            ((3750,), "higher_total", "bj_vs_dealer_ace_ten"),
        ),
        # Other hands, by the whole stake (doubles included).
        ("bust", lambda: due(22, stake=5000), ((-5000,), "bust_loses", "lose_amount")),
        ("bust against a dealer bust", lambda: due(23, dealer=D_BUST), ((-W,), "bust_loses", "lose_amount")),
        (
            "21 of three cards v dealer blackjack",
            lambda: due(21, dealer=D_BJ),
            ((-W,), "dealer_bj_beats_21", "lose_amount"),
        ),
        ("20 v dealer blackjack", lambda: due(20, dealer=D_BJ), ((-W,), "lower_total", "lose_amount")),
        (
            "12 v dealer bust",
            lambda: due(12, stake=5000, dealer=D_BUST),
            ((5000,), "dealer_bust", "win_odds"),
        ),
        ("20 v 19", lambda: due(20), ((W,), "higher_total", "win_odds")),
        ("18 v 19", lambda: due(18), ((-W,), "lower_total", "lose_amount")),
        ("19 v 19", lambda: due(19), ((0,), "equal_totals", "equal_totals")),
        (
            "21 v 21 of three cards",
            lambda: due(21, dealer=D21_THREE_CARDS),
            ((0,), "equal_totals", "equal_totals"),
        ),
    ],
)
def test_what_a_hand_is_due(name: str, got: Any, want: Any) -> None:
    assert got() == want, name


def test_expect_names_its_totals_for_the_message() -> None:
    e = expect(18, W, W, False, False, (20, False, False), False)
    assert e == Expect((-W,), "lower_total", "lose_amount", "the dealer's {dt} beats its {pt}", 18, 20)


@pytest.mark.parametrize(
    ("wager", "num", "den", "chip", "up", "paid"),
    [
        (2500, 3, 2, 1, False, 3750),
        (2501, 3, 2, 1, False, 3751),
        (2501, 3, 2, 1, True, 3752),
        (1000, 6, 5, 1, False, 1200),
        (1001, 6, 5, 1, False, 1201),
        (1001, 6, 5, 1, True, 1202),
        (1, 3, 2, 1, False, 1),
        (2, 6, 5, 1, True, 3),
        # spec 2.2: 3 to 2 on 1,500 at a min_chip 100 table is 2,200 (exact 2,250); whole chips stay whole
        (1500, 3, 2, 100, False, 2200),
        (1500, 3, 2, 100, True, 2300),
        (2000, 3, 2, 100, True, 3000),
        (1225, 2, 1, 100, False, 2400),
        (500, 1, 2, 500, False, 0),
        (500, 1, 2, 500, True, 500),
    ],
)
def test_ratio_pays_in_whole_chips_rounded_as_the_table_elects(
    wager: int, num: int, den: int, chip: int, up: bool, paid: int
) -> None:
    assert ratio(wager, num, den, chip, up) == paid


@pytest.mark.parametrize(
    ("cards", "up", "facts"),
    [
        (["TS", "9H"], None, (19, False, True)),
        (["9S", "TH"], None, (19, False, False)),
        (["9S", "TH"], "TH", (19, False, True)),  # the hole card dealt first: the up card is the second
        (["AS", "KD"], None, (21, True, True)),
        (["KD", "AS"], "AS", (21, True, True)),
        (["6C", "5D", "KH"], None, (21, False, False)),
        (["AS", "5C", "AH"], None, (17, False, True)),
        (["6C", "TD", "9H"], None, (25, False, False)),
        ([], None, (0, False, False)),
    ],
)
def test_dealer_facts(cards: list[str], up: str | None, facts: tuple[int, bool, bool]) -> None:
    assert dealer_facts(cards, up) == facts


# --- judge: which rule a difference cites, and the money owed ---------------------------------------------------


class Recording(Ctx):
    def __init__(self) -> None:
        roles = {role: _rule(role) for role in _ROLES}
        super().__init__(roles, {})


_ROLES = [
    "surrender_amount",
    "bj_vs_dealer_ace_ten",
    "bj_odds",
    "higher_total",
    "bj_beats_21",
    "dealer_bust",
    "bust_loses",
    "lose_amount",
    "dealer_bj_beats_21",
    "lower_total",
    "win_odds",
    "equal_totals",
    "dealer_bj_after_double",
]


def _rule(role: str) -> Rule:
    return Rule(role, role, "uncited", role, "payout", role)


def judged(
    net: int,
    total: int,
    *,
    stake: int = W,
    blackjack: bool = False,
    surrendered: bool = False,
    dealer: tuple[int, bool, bool] = D19,
    six_five: bool = False,
    original_only: bool = True,
) -> list[tuple[str, int, str, Any, Any, int | None]]:
    ctx = Recording()
    hand = HandState((1, 1), W)
    judge(
        ctx, hand, 7, net, total, stake, surrendered, blackjack, dealer, Terms(six_five, original_only, False)
    )
    return [
        (f.rule.rule, f.event or 0, f.hand or "", f.expected, f.actual, f.amount_delta) for f in ctx.findings
    ]


@pytest.mark.parametrize(
    ("name", "got", "want"),
    [
        ("right", lambda: judged(W, 20), []),
        ("a winner collected: the outcome", lambda: judged(-W, 20), [("higher_total", 7, "1", W, -W, 2 * W)]),
        ("a winner paid short: the odds", lambda: judged(2000, 20), [("win_odds", 7, "1", W, 2000, 500)]),
        ("a winner pushed: the outcome", lambda: judged(0, 20), [("higher_total", 7, "1", W, 0, W)]),
        ("a loser paid: the outcome", lambda: judged(W, 18), [("lower_total", 7, "1", -W, W, -2 * W)]),
        (
            "a loser over-collected: the stake",
            lambda: judged(-5000, 18),
            [("lose_amount", 7, "1", -W, -5000, W)],
        ),
        ("a bust pushed", lambda: judged(0, 23, dealer=D_BUST), [("bust_loses", 7, "1", -W, 0, -W)]),
        ("a push paid", lambda: judged(W, 19), [("equal_totals", 7, "1", 0, W, -W)]),
        ("a push collected", lambda: judged(-W, 19), [("equal_totals", 7, "1", 0, -W, W)]),
        (
            "a blackjack paid even",
            lambda: judged(W, 21, blackjack=True),
            [("bj_odds", 7, "1", 3750, W, 1250)],
        ),
        (
            "a blackjack collected against 21 of three cards",
            lambda: judged(-W, 21, blackjack=True, dealer=D21_THREE_CARDS),
            [("bj_beats_21", 7, "1", 3750, -W, 6250)],
        ),
        (
            "a blackjack paid 3 to 2 at a 6 to 5 table",
            lambda: judged(3750, 21, blackjack=True, six_five=True),
            [("bj_odds", 7, "1", 3000, 3750, -750)],
        ),
        (
            "a blackjack v blackjack paid",
            lambda: judged(3750, 21, blackjack=True, dealer=D_BJ),
            [("bj_vs_dealer_ace_ten", 7, "1", 0, 3750, -3750)],
        ),
        (
            "an odd blackjack paid short by one",
            lambda: judged(3750, 21, blackjack=True, stake=2501),
            [],
        ),  # (stake is not the wager: the wager is the hand's, 2500; 3750 is exact)
        (
            "surrender collected in full",
            lambda: judged(-W, 16, surrendered=True),
            [("surrender_amount", 7, "1", -1250, -W, 1250)],
        ),
        (
            "surrender paid",
            lambda: judged(1250, 16, surrendered=True),
            [("surrender_amount", 7, "1", -1250, 1250, -2500)],
        ),
        # 19:47-2.10(b): against a dealer blackjack after a double only the original wager is collected.
        (
            "double collected against a dealer blackjack",
            lambda: judged(-5000, 20, stake=5000, dealer=D_BJ),
            [("dealer_bj_after_double", 7, "1", -W, -5000, W)],
        ),
        ("double: the original collected", lambda: judged(-W, 20, stake=5000, dealer=D_BJ), []),
        (
            "double: nothing collected",
            lambda: judged(0, 20, stake=5000, dealer=D_BJ),
            [("dealer_bj_after_double", 7, "1", -W, 0, -W)],
        ),
        # Where either reading is accepted (NZ: the rule is not held), both nets are right.
        (
            "double, either reading: all",
            lambda: judged(-5000, 20, stake=5000, dealer=D_BJ, original_only=False),
            [],
        ),
        (
            "double, either reading: original",
            lambda: judged(-W, 20, stake=5000, dealer=D_BJ, original_only=False),
            [],
        ),
        (
            "double, either reading: too much",
            lambda: judged(-6000, 20, stake=5000, dealer=D_BJ, original_only=False),
            [("dealer_bj_after_double", 7, "1", -5000, -6000, 1000)],
        ),
        # A blackjack that doubled (it cannot, but the record may say so) is still a blackjack.
        (
            "a doubled blackjack against a blackjack",
            lambda: judged(0, 21, stake=5000, blackjack=True, dealer=D_BJ),
            [],
        ),
    ],
)
def test_how_a_difference_is_reported(name: str, got: Any, want: Any) -> None:
    assert got() == want, name
