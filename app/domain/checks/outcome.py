"""What a hand is due and when the dealer is done: the arithmetic the settlement and dealer checks share.

A dealer's hand is *complete* once it is a blackjack, a bust or a total on which the table's dealer must stand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from app.domain.cards import TEN_VALUE, hand_total, is_natural
from app.domain.rules import Ctx
from app.domain.state import HandAt, Trace


def stands(total: int, soft: bool, hits_soft_17: bool | None) -> bool | None:
    """Whether the dealer must stand (True), must draw (False), or either is allowed (None: the soft-17 option
    is unknown and the hand is a soft 17).

    >>> stands(17, True, False), stands(17, True, True), stands(17, True, None), stands(16, False, None)
    (True, False, None, False)
    """
    if total >= 18 or (total == 17 and not soft):
        return True
    if total < 17:
        return False
    return None if hits_soft_17 is None else not hits_soft_17


def draw_regime(t: Trace, ctx: Ctx) -> tuple[str, bool | None]:
    """The role that dealer drawing cites at this table, and whether the dealer hits soft 17."""
    e = t.elections
    if e.get("blackjack_pays") == "6:5" and ctx.bound("draw_6to5"):
        return "draw_6to5", True
    if e.get("dealt_from") == "hand" and e.get("dealer_soft_17") == "hit" and ctx.bound("draw_hand_dealt"):
        return "draw_hand_dealt", True
    if e.get("dealer_soft_17") == "hit":
        return "draw_h17", True
    if e.get("dealer_soft_17") == "stand":
        return "draw_s17", False
    return "draw_unknown", None


DealerFacts = tuple[int, bool, bool]
"""The dealer's total, whether it is a blackjack, and whether the up card is an ace or ten-value."""


class Expect(NamedTuple):
    nets: tuple[int, ...]
    """Acceptable nets to the player (+ paid, - collected); the first is the one we quote."""
    direction: str
    """The role reported when the settlement went the wrong way (paid instead of collected, or the reverse)."""
    amount: str
    """The role reported when it went the right way for the wrong amount."""
    why: str
    """Why, as a template over ``{pt}`` (the hand's total) and ``{dt}`` (the dealer's), formatted only for a
    finding."""
    pt: int = 0
    dt: int = 0


def ratio(wager: int, num: int, den: int, chip: int = 1, up: bool = False) -> int:
    """Winnings at num to den, in whole chips of ``chip`` (spec 2.2): rounded down, or up at a table that elects it.

    >>> ratio(2500, 3, 2), ratio(1500, 3, 2, 100), ratio(1500, 3, 2, 100, up=True), ratio(1001, 6, 5)
    (3750, 2200, 2300, 1201)
    """
    whole, rest = divmod(wager * num, den * chip)
    return (whole + (1 if up and rest else 0)) * chip


def surrender_collects(wager: int, chip: int = 1, up: bool = False) -> int:
    """What a surrender collects: the wager less the half returned, that half in whole chips (rounded as odds are).

    >>> surrender_collects(2500), surrender_collects(1005), surrender_collects(1500, 100), surrender_collects(1005, up=True)
    (1250, 503, 800, 502)
    """
    return wager - ratio(wager, 1, 2, chip, up)


def pays_six_five(t: Trace, ctx: Ctx) -> bool:
    """Whether a blackjack is due at 6 to 5: the table elects it and the jurisdiction permits it (where it does not,
    the election is itself a finding and blackjacks are still due at 3 to 2)."""
    return t.elections.get("blackjack_pays") == "6:5" and ctx.params.get("six_five_permitted", True) is True


def dealer_facts(cards: Sequence[str], up: str | None = None) -> DealerFacts:
    """The facts a settlement is judged on, from the dealer's cards (``up``: the up card, when not the first)."""
    up = up if up is not None else (cards[0] if cards else None)
    return (
        hand_total(cards)[0],
        len(cards) >= 2 and is_natural([cards[0], cards[1]]),
        up is not None and (up[0] == "A" or up[0] in TEN_VALUE),
    )


def dealer_complete(t: Trace, before: int, h17: bool | None) -> bool | None:
    """Whether the dealer's hand was complete by rule before event ``before``: shown (no card of it still face down:
    in a hole-card game the dealer's play begins with the reveal, section 2.1) and a blackjack, a bust, or a total on
    which the dealer must stand; or the dealer's blackjack was known (a peek). None when only a later card can tell (a
    soft 17 at a table whose option is unknown)."""
    if t.dbj_known_at is not None and t.dbj_known_at < before:
        return True
    cards = t.dealer_before(before)
    if len(cards) < 2:
        return False
    # (at a table that peeks the peek is taken to have happened, recorded or not: section 2.1)
    if t.elections.get("peek") is True and is_natural([cards[0], cards[1]]):
        return True
    for dealt, shown in t.dealer_down.items():
        # (shown by its reveal, or by a card the dealer drew after it: the dealer draws to a hand it has turned up)
        if (
            dealt < before
            and (shown is None or shown >= before)
            and not any(dealt < e < before for e in t.dealer_events)
        ):
            return False
    if is_natural([cards[0], cards[1]]):
        return True
    total, soft = hand_total(cards)
    if total >= 18 or (total == 17 and not soft) or total > 21:
        return True
    if total < 17:
        return False
    return None if h17 is None else not h17


def judged_dealer(t: Trace, before: int, h17: bool | None, s: HandAt | None = None) -> DealerFacts | None:
    """The dealer's hand a settlement made at event ``before`` is judged against: as it stood then if it was
    complete, else the final one; never with a card the drawing rule forbade (section 2.2). None when that cannot be
    known: only part of the round was replayed, and the hand settled (``s``) depends on what the dealer still held."""
    up = t.dealer_up
    cut = t.dealer_cut
    if dealer_complete(t, before, h17):
        cards = t.dealer_before(before)
        return dealer_facts(cards if cut is None else cards[:cut], up)
    if t.complete:
        return dealer_facts(t.dealer_judged, up)
    if s is not None and (
        s.surrendered
        or s.total > 21
        or (s.blackjack and (len(t.dealer) >= 2 or (up is not None and up[0] not in "AKQJT")))
    ):
        return dealer_facts(
            t.dealer_judged, up
        )  # (what the dealer holds cannot change it, or is already dealt)
    return None


_BJ_VS_BJ = "its blackjack against the dealer's blackjack is a stand off"


def expect(
    total: int,
    stake: int,
    wager: int,
    surrendered: bool,
    blackjack: bool,
    dealer: DealerFacts,
    six_five: bool,
    chip: int = 1,
    up: bool = False,
) -> Expect:
    """What a hand of ``total`` (its wagers ``stake`` in all, ``wager`` originally) is due against the dealer, its odds
    in whole chips of ``chip`` (rounded up when ``up``)."""
    dt, dbj, ace_ten = dealer
    if surrendered:
        return Expect(
            (-surrender_collects(wager, chip, up),), "surrender_amount", "surrender_amount", "it surrendered"
        )
    if blackjack:
        if dbj:
            return Expect((0,), "bj_vs_dealer_ace_ten", "bj_vs_dealer_ace_ten", _BJ_VS_BJ)
        if six_five:
            nets, why = (ratio(wager, 6, 5, chip, up),), "its blackjack pays 6 to 5"
        else:
            nets, why = (ratio(wager, 3, 2, chip, up),), "its blackjack pays 3 to 2"
        # One check, one rule: whether a blackjack won is judged by the totals, whatever the dealer's up card; how
        # much it won, by the odds (NZ 8.2 names them against an ace or a ten up).
        direction = "bj_beats_21" if dt == 21 else "dealer_bust" if dt > 21 else "higher_total"
        return Expect(nets, direction, "bj_vs_dealer_ace_ten" if ace_ten else "bj_odds", why)
    pt = total
    if pt > 21:
        return Expect((-stake,), "bust_loses", "lose_amount", "it busted with {pt}", pt, dt)
    if dbj:
        direction = "dealer_bj_beats_21" if pt == 21 else "lower_total"
        return Expect((-stake,), direction, "lose_amount", "the dealer's blackjack beats its {pt}", pt, dt)
    if dt > 21:
        return Expect((stake,), "dealer_bust", "win_odds", "the dealer busted with {dt}", pt, dt)
    if pt > dt:
        return Expect((stake,), "higher_total", "win_odds", "its {pt} beats the dealer's {dt}", pt, dt)
    if pt < dt:
        return Expect((-stake,), "lower_total", "lose_amount", "the dealer's {dt} beats its {pt}", pt, dt)
    return Expect(
        (0,), "equal_totals", "equal_totals", "its {pt} against the dealer's {dt} is a stand off", pt, dt
    )


def depends_on_dealer(s: HandAt) -> bool:
    """Whether the hand's outcome depends on the dealer's total (not surrendered, busted or a blackjack)."""
    return not (s.surrendered or s.blackjack) and s.total <= 21
