"""Cards and hand totals.

Cards are canonical two-character strings, rank then suit: ``"TH"``, ``"AS"``.
Values follow N.J.A.C. 13:69F-2.2(b) and NZ Gazette 1994 No 112 r 3.2 (the two texts agree): two to ten at face
value, jack, queen and king ten, an ace eleven unless that would take the hand over twenty-one, then one.

>>> hand_total(["AS", "6D"])
(17, True)
>>> hand_total(["AS", "6D", "TC"])
(17, False)
>>> is_natural(["KH", "AD"])
True
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "CDHS"
TEN_VALUE = frozenset("TJQK")

VALUES: dict[str, int] = {r: (1 if r == "A" else 10 if r in TEN_VALUE else int(r)) for r in RANKS}
"""Point value of each rank, an ace counted one."""


def value(card: str) -> int:
    """Point value with an ace counted as one.

    >>> value("QS"), value("AS"), value("7C")
    (10, 1, 7)
    """
    return VALUES[card[0]]


def hand_total(cards: Iterable[str]) -> tuple[int, bool]:
    """Best total and whether it is soft (an ace counted as eleven)."""
    total = 0
    aces = False
    for card in cards:
        v = VALUES[card[0]]
        total += v
        if v == 1:
            aces = True
    if aces and total <= 11:
        return total + 10, True
    return total, False


def is_natural(cards: list[str]) -> bool:
    """An ace and a ten-value card as a hand's only two cards (whether it counts as a blackjack also depends on
    whether the hand came from a split, which the caller knows)."""
    if len(cards) != 2:
        return False
    a, b = cards[0][0], cards[1][0]
    return (a == "A" and b in TEN_VALUE) or (b == "A" and a in TEN_VALUE)
