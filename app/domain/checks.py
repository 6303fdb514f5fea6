"""Generic checks over a replayed round. Each reports by *role*; a jurisdiction decides which of its rules a role
cites (see :mod:`app.domain.rules`). Comments marked ``Interpretation:`` record how we read the law.

Roles, by check:

* player draws: ``hit_over_21``, ``hit_on_21``, ``double_one_card``, ``split_aces_draw``, ``split_aces_more``
* doubles: ``double_when``, ``double_on_21``, ``double_amount``, ``das_prohibited_6to5``, ``das_prohibited``
* splits: ``split_pair``, ``split_amount``, ``split_order``, ``resplit_not_elected``, ``resplit_limit``,
  ``resplit_aces``
* surrender: ``surrender_not_offered``, ``surrender_when``
* insurance: ``insurance_when``, ``insurance_amount``, ``insurance_timing``, ``insurance_chips``
* even money: ``even_money_when``, ``even_money_amount``, ``even_money_timing``
* dealer: ``draw_s17``, ``draw_h17``, ``draw_6to5``, ``draw_hand_dealt``, ``draw_unknown``, ``needless_draw``
* settlement: ``missing_settlement``, ``settled_twice``, ``lose_amount``, ``win_odds``, ``bj_odds``,
  ``bj_vs_dealer_ace_ten``, ``bust_loses``, ``dealer_bust``, ``higher_total``, ``lower_total``, ``equal_totals``,
  ``bj_beats_21``, ``dealer_bj_beats_21``, ``dealer_bj_after_double``, ``dealer_bj_after_split``,
  ``surrender_amount``, ``insurance_outcome``, ``insurance_odds``
* timing: ``bj_paid_early``, ``insurance_collect_timing``, ``double_card_face``, ``double_card_reveal``
* table limits: ``wager_limits``
* additional wagers: ``additional_amount``, ``additional_type``, ``additional_outcome``, ``additional_13``,
  ``additional_timing``
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar

from app.domain.cards import TEN_VALUE, hand_total, is_natural, value
from app.domain.model import Settle
from app.domain.replay import CardAt, HandState, SeatState, Trace
from app.domain.rules import Check, Ctx

# ---------------------------------------------------------------------------------------------------------------
# Player draws


def check_player_draws(t: Trace, ctx: Ctx) -> None:
    for h, c in t.player_draws:
        before = _cards_before(h, c)
        total, _ = hand_total(before)
        name = h.name
        if h.split_aces and len(before) >= 2:
            msg = (
                f"Hand {name} is a split ace and may have only one card dealt to it; {c.card} was dealt "
                f"as card {len(before) + 1}."
            )
            ctx.emit("split_aces_draw", c.event, name, msg, expected="no further card", actual=c.card)
            ctx.emit("split_aces_more", c.event, name, msg, expected="no further card", actual=c.card)
            continue
        if c.kind == "double" or len(before) < 2:
            continue
        if any(d < c.event for d, _ in h.doubles):
            ctx.emit(
                "double_one_card",
                c.event,
                name,
                f"Hand {name} doubled down and may receive only one additional card; {c.card} was a second.",
                expected="one card after the double",
                actual=f"{c.card} as an extra card",
            )
            continue
        if total == 21:
            what = "a blackjack" if t.is_blackjack(h) and len(before) == 2 else "21"
            ctx.emit(
                "hit_on_21",
                c.event,
                name,
                f"Hand {name} held {what} and may not draw; {c.card} was dealt to it.",
                expected="no card on 21",
                actual=f"drew {c.card} on {total}",
            )
        elif total > 21:
            ctx.emit(
                "hit_over_21",
                c.event,
                name,
                f"Hand {name} had already busted with {total} and may not draw; {c.card} was dealt to it.",
                expected="draws only below 21",
                actual=f"drew {c.card} on {total}",
            )
    if "double" not in t.present:
        return
    for h in t.all_hands():
        if h.doubles and not any(c.kind == "double" for c in h.cards) and not h.split_aces:
            ctx.emit(
                "double_one_card",
                None,
                h.name,
                f"Hand {h.name} doubled down but was never dealt its one additional card.",
                expected="one card after the double",
                actual="no card",
            )


def _cards_before(h: HandState, c: CardAt) -> list[str]:
    out = []
    for x in h.cards:
        if x is c:
            break
        out.append(x.card)
    return out


def _cards_at(h: HandState, event: int) -> list[str]:
    return [x.card for x in h.cards if x.event < event]


# ---------------------------------------------------------------------------------------------------------------
# Doubles, splits, surrender


def check_doubles(t: Trace, ctx: Ctx) -> None:
    if "double" not in t.present:
        return
    e = t.elections
    for h in t.all_hands():
        total_doubled = 0
        for k, (i, amount) in enumerate(h.doubles):
            cards = _cards_at(h, i)
            name = h.name
            if k > 0:
                ctx.emit(
                    "double_when",
                    i,
                    name,
                    f"Hand {name} had already doubled down; a hand may double only once.",
                    expected="one double per hand",
                    actual="second double",
                )
            elif len(cards) != 2:
                ctx.emit(
                    "double_when",
                    i,
                    name,
                    f"Hand {name} doubled down on {len(cards)} card{'s' if len(cards) != 1 else ''}; a double is "
                    "allowed only on a hand's "
                    "first two cards.",
                    expected="first two cards",
                    actual=f"{len(cards)} card{'s' if len(cards) != 1 else ''}",
                )
            elif hand_total(cards)[0] == 21:
                what = "a blackjack" if is_natural(cards) and not t.seats[h.id[0]].split else "a two-card 21"
                ctx.emit(
                    "double_on_21",
                    i,
                    name,
                    f"Hand {name} doubled down on {what}, which may not be doubled.",
                    expected="no double on blackjack or 21",
                    actual=f"double on {'+'.join(cards)}",
                )
            total_doubled += amount
            if amount <= 0 or total_doubled > h.wager:
                ctx.emit(
                    "double_amount",
                    i,
                    name,
                    f"Hand {name} doubled for {amount} on an original wager of {h.wager}; a double may not "
                    "exceed the original wager.",
                    expected=f"1..{h.wager}",
                    actual=amount,
                )
            split_before = h.created_by is not None or any(s < i for s in h.splits)
            if split_before and e.get("double_after_split") is False:
                six_five = e.get("blackjack_pays") == "6:5"
                ctx.emit(
                    "das_prohibited_6to5" if six_five else "das_prohibited",
                    i,
                    name,
                    f"Hand {name} came from a split, and this table prohibits doubling down after splitting.",
                    expected="no double after split",
                    actual=f"double of {amount}",
                )


def check_splits(t: Trace, ctx: Ctx) -> None:
    if "split" not in t.present:
        return
    e = t.elections
    for seat in t.seats.values():
        for h in seat.hands:
            for i in h.splits:
                new = next(x for x in seat.hands if x.created_by == i)
                cards = [*_cards_at(h, i)[:1], new.cards[0].card]
                n_at = len(_cards_at(h, i)) + 1
                name = h.name
                if n_at != 2:
                    ctx.emit(
                        "split_pair",
                        i,
                        name,
                        f"Hand {name} was split holding {n_at} cards; only a hand's first two cards may be split.",
                        expected="split on the first two cards",
                        actual=f"{n_at} cards",
                    )
                elif value(cards[0]) != value(cards[1]):
                    ctx.emit(
                        "split_pair",
                        i,
                        name,
                        f"Hand {name} was split on {cards[0]} and {cards[1]}, which are not of identical value.",
                        expected="two cards of identical value",
                        actual=f"{cards[0]}+{cards[1]}",
                    )
                if new.wager != seat.wager:
                    ctx.emit(
                        "split_amount",
                        i,
                        name,
                        f"Seat {seat.seat} split with a wager of {new.wager}; the split wager must equal the "
                        f"original wager of {seat.wager}.",
                        expected=seat.wager,
                        actual=new.wager,
                    )
                hands_before = sum(1 for x in seat.hands if x.created_by is None or x.created_by < i)
                if hands_before < 2:
                    continue
                # A resplit: the seat already had split hands when this split happened.
                if not e.get("resplit"):
                    if e.get("resplit") is False or ctx.params.get("resplit_default_off"):
                        ctx.emit(
                            "resplit_not_elected",
                            i,
                            name,
                            f"Hand {name} was split again; this table does not offer resplitting, so a pair may be "
                            "split only once (two hands).",
                            expected="at most 2 hands",
                            actual=f"{hands_before + 1} hands",
                        )
                    continue
                boxes = e.get("boxes")
                limit = _resplit_limit(boxes)
                if hands_before + 1 > limit:
                    where = f"a table with {boxes} boxes" if isinstance(boxes, int) else "any table"
                    ctx.emit(
                        "resplit_limit",
                        i,
                        name,
                        f"Seat {seat.seat} split into {hands_before + 1} hands; at {where} at most {limit} are allowed.",
                        expected=f"at most {limit} hands",
                        actual=f"{hands_before + 1} hands",
                    )
                if h.split_aces and e.get("resplit_aces") is False:
                    ctx.emit(
                        "resplit_aces",
                        i,
                        name,
                        f"Seat {seat.seat} split aces a second time; this table prohibits splitting aces more "
                        "than once.",
                        expected="aces split once",
                        actual="aces resplit",
                    )


def _resplit_limit(boxes: object) -> int:
    # Interpretation (13:69F-2.11(e)): up to three splits (four hands) at tables with up to six boxes, two
    # splits (three hands) at seven. A table with more boxes is not authorised to resplit at all; its election is
    # reported separately, and its hands are held to the seven-box limit here. When the box count is not known,
    # only the four-hand limit that binds every table is checked.
    if not isinstance(boxes, int):
        return 4
    return 4 if boxes <= 6 else 3


def check_split_order(t: Trace, ctx: Ctx) -> None:
    """No card to another hand while a split hand of a seat waits, incomplete, for its second card; and no return
    to a split hand once play has moved on from it."""
    split_seats = [s for s in t.seats.values() if s.split]
    if not split_seats:
        return
    first_split = min(h.created_by for s in split_seats for h in s.hands if h.created_by is not None)
    deals: list[tuple[int, HandState | None]] = [
        (c.event, h) for h, c in t.player_cards if c.event > first_split
    ]
    deals += [(c.event, None) for c in t.dealer if c.event > first_split]
    deals.sort(key=lambda d: d[0])
    for seat in split_seats:
        left: set[int] = set()  # split hands play has moved away from (by hand number)
        current: HandState | None = None
        for j, target in deals:
            pending = [
                h
                for h in seat.hands
                if h is not target
                and len([c for c in h.cards if c.event < j]) == 1
                and (h.created_by is not None and h.created_by < j or any(s < j for s in h.splits))
            ]
            tname = target.name if target is not None else "the dealer"
            if pending:
                if target is None or target.id[0] != seat.seat:
                    p = pending[0]
                    ctx.emit(
                        "split_order",
                        j,
                        p.name,
                        f"A card went to {tname} while split hand {p.name} was still incomplete; a split hand "
                        "must be completed before any other hand is dealt to.",
                        expected=f"next card to {p.name}",
                        actual=f"card to {tname}",
                    )
                    break
                parents = [
                    h
                    for h in pending
                    if any(x < j for x in h.splits)  # split, and still waiting for its next card
                ]
                if parents:
                    p = parents[0]
                    ctx.emit(
                        "split_order",
                        j,
                        p.name,
                        f"A card went to {tname} before split hand {p.name}, the hand on the dealer's left, was "
                        "completed.",
                        expected=f"next card to {p.name}",
                        actual=f"card to {tname}",
                    )
                    break
            if target is None or target.id[0] != seat.seat:
                continue
            if target.id[1] in left:
                ctx.emit(
                    "split_order",
                    j,
                    target.name,
                    f"Hand {target.name} received a card after play had moved on to another split hand.",
                    expected="each split hand completed in turn",
                    actual=f"returned to {target.name}",
                )
                break
            if current is not None and current is not target:
                left.add(current.id[1])
            current = target


def check_surrender(t: Trace, ctx: Ctx) -> None:
    if "surrender" not in t.present:
        return
    offered = t.elections.get("surrender")
    for h in t.all_hands():
        i = h.surrendered_at
        if i is None:
            continue
        if offered == "none":
            ctx.emit(
                "surrender_not_offered",
                i,
                h.name,
                f"Hand {h.name} surrendered half its wager after the cards were dealt, at a table that does not "
                "offer surrender.",
                expected="no surrender",
                actual="surrender",
            )
        cards = _cards_at(h, i)
        if len(cards) != 2 or t.seats[h.id[0]].split or any(d < i for d, _ in h.doubles):
            ctx.emit(
                "surrender_when",
                i,
                h.name,
                f"Hand {h.name} surrendered after acting on it; surrender is only on the first two cards before "
                "any other decision.",
                expected="surrender on the first two cards",
                actual=f"surrender with {len(cards)} cards",
            )


# ---------------------------------------------------------------------------------------------------------------
# Insurance and even money


def _dealer_first_at(t: Trace, event: int) -> str | None:
    return t.dealer[0].card if t.dealer and t.dealer[0].event < event else None


def check_insurance(t: Trace, ctx: Ctx) -> None:
    if "insurance" not in t.present:
        return
    min_chip = t.elections.get("min_chip")
    for seat in t.seats.values():
        placed = 0
        for i, amount in seat.insurance:
            placed += amount
            up = _dealer_first_at(t, i)
            s = seat.seat
            if up is None or up[0] != "A":
                ctx.emit(
                    "insurance_when",
                    i,
                    str(s),
                    f"Seat {s} placed insurance, but the dealer's first card was "
                    f"{'not yet dealt' if up is None else up}; insurance is offered only against an ace.",
                    expected="dealer's first card an ace",
                    actual=up,
                )
            if 2 * placed > seat.wager:
                ctx.emit(
                    "insurance_amount",
                    i,
                    str(s),
                    f"Seat {s} insured {placed} on a wager of {seat.wager}; insurance may be at most half the "
                    f"original wager ({seat.wager // 2}).",
                    expected=f"at most {seat.wager // 2}",
                    actual=placed,
                )
            if t.initial_deal_end is None or i < t.initial_deal_end:
                ctx.emit(
                    "insurance_timing",
                    i,
                    str(s),
                    f"Seat {s} placed insurance before the initial deal was complete.",
                    expected="after the initial deal",
                    actual="during the initial deal",
                )
            elif t.first_later_card is not None and i > t.first_later_card:
                ctx.emit(
                    "insurance_timing",
                    i,
                    str(s),
                    f"Seat {s} placed insurance after further cards had been dealt (event {t.first_later_card}); "
                    "insurance must be placed before any card after the initial deal.",
                    expected=f"before event {t.first_later_card}",
                    actual=f"event {i}",
                )
            if isinstance(min_chip, int) and min_chip > 0 and (2 * amount) % min_chip:
                ctx.emit(
                    "insurance_chips",
                    i,
                    str(s),
                    f"Seat {s}'s insurance of {amount} would win {2 * amount}, which cannot be paid in chips of "
                    f"{min_chip}.",
                    expected=f"a winning payout in multiples of {min_chip}",
                    actual=2 * amount,
                )


def check_even_money(t: Trace, ctx: Ctx) -> None:
    if "even_money" not in t.present:
        return
    for seat in t.seats.values():
        h = seat.hands[0]
        if h.even_money is None:
            continue
        i, amount = h.even_money
        cards = _cards_at(h, i)
        up = _dealer_first_at(t, i)
        s = seat.seat
        if not (is_natural(cards) and not seat.split) or up is None or up[0] != "A":
            ctx.emit(
                "even_money_when",
                i,
                h.name,
                f"Seat {s} was paid even money holding {'+'.join(cards) or 'no cards'} against a dealer "
                f"{up or 'without a card'}; even money is only for a blackjack against a dealer ace.",
                expected="player blackjack, dealer ace",
                actual=f"{'+'.join(cards)} vs {up}",
            )
        if amount != h.wager:
            ctx.emit(
                "even_money_amount",
                i,
                h.name,
                f"Seat {s} took even money and was paid {amount}; even money pays one to one, {h.wager}.",
                expected=h.wager,
                actual=amount,
                amount_delta=h.wager - amount,
            )
        known = t.dealer_second_known_at()
        if known is not None and i > known:
            ctx.emit(
                "even_money_timing",
                i,
                h.name,
                f"Seat {s} was paid even money after the dealer's second card was known; it is paid immediately, "
                "before the dealer's hand is known.",
                expected=f"before event {known}",
                actual=f"event {i}",
            )


# ---------------------------------------------------------------------------------------------------------------
# Dealer drawing


def _stands(total: int, soft: bool, hits_soft_17: bool | None) -> bool | None:
    """Whether the dealer must stand (True), must draw (False), or either is allowed (None: the soft-17 option
    is unknown and the hand is a soft 17)."""
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


def _live(t: Trace, before_event: int) -> bool:
    """Whether any player hand's outcome still depends on the dealer's total (its cards dealt before
    ``before_event`` neither bust it nor make it a blackjack, and it was neither surrendered nor paid even money)."""
    for h in t.all_hands():
        if h.surrendered_at is not None or h.even_money is not None:
            continue
        if any(
            c.kind == "double"
            and c.face == "down"
            and (c.revealed_at is None or c.revealed_at > before_event)
            for c in h.cards
        ):
            return True  # 19:47-2.10(c): nobody knows yet whether a face-down double card busted the hand
        cards = _cards_at(h, before_event)
        if not cards or hand_total(cards)[0] > 21 or (h.blackjack and len(cards) == 2):
            continue
        return True
    return False


def check_dealer_draw(t: Trace, ctx: Ctx) -> None:
    if len(t.dealer) == 1 and (_live(t, 1 << 30) or any(seat.insurance for seat in t.seats.values())):
        ctx.emit(
            draw_regime(t, ctx)[0],
            None,
            "dealer",
            f"The dealer stopped on a single card ({t.dealer[0].card}) while player hands were still live; the "
            "dealer must complete the hand.",
            expected="draw to a standing total",
            actual="stood on one card",
        )
        return
    if len(t.dealer) < 2 or t.dealer_blackjack:
        extra = t.dealer[2:] if t.dealer_blackjack else []
        for c in extra[:1]:
            ctx.emit(
                draw_regime(t, ctx)[0],
                c.event,
                "dealer",
                f"The dealer held blackjack and may not draw; {c.card} was dealt.",
                expected="stand on blackjack",
                actual=f"drew {c.card}",
            )
        return
    role, h17 = draw_regime(t, ctx)
    values = t.dealer_values
    for k in range(2, len(t.dealer)):
        c = t.dealer[k]
        total, soft = hand_total(values[:k])
        stands = _stands(total, soft, h17)
        if stands:
            delta, changed = _restitution(t, values[:k], _pays_six_five(t, ctx))
            note = f" Had the dealer stood, {changed}." if changed else ""
            ctx.emit(
                role,
                c.event,
                "dealer",
                f"The dealer drew {c.card} on {'soft' if soft else 'hard'} {total}, a total on which this table's "
                f"dealer must stand.{note}",
                expected=f"stand on {'soft' if soft else 'hard'} {total}",
                actual=f"drew {c.card}",
                amount_delta=delta if changed else None,
            )
            return
        if ctx.bound("needless_draw") and not _live(t, c.event):
            ctx.emit(
                "needless_draw",
                c.event,
                "dealer",
                f"The dealer drew {c.card} although every player hand was already decided and the dealer's total "
                "could not change any outcome.",
                expected="no further dealer card",
                actual=f"drew {c.card}",
            )
            return
    total, soft = t.dealer_total()
    if _stands(total, soft, h17) is False and _live(t, 1 << 30):
        ctx.emit(
            role,
            None,
            "dealer",
            f"The dealer stopped on {'soft' if soft else 'hard'} {total}, a total on which this table's dealer "
            "must draw; the outcome of the live hands cannot be known.",
            expected=f"draw on {'soft' if soft else 'hard'} {total}",
            actual="stood",
        )


def _restitution(t: Trace, dealer_cards: list[str], six_five: bool) -> tuple[int, str]:
    """What the players are owed (+) or owe (-) had the dealer stopped with ``dealer_cards``, against the
    settlements due on the cards as dealt."""
    delta = 0
    changed = []
    for h in t.all_hands():
        if h.surrendered_at is not None or h.even_money is not None:
            continue
        actual = _expect(h, _dealer_facts(t.dealer_values), six_five).nets[0]
        should = _expect(h, _dealer_facts(dealer_cards), six_five).nets[0]
        if actual != should:
            delta += should - actual
            changed.append(f"hand {h.name} would have {_verb(should)}, not {_verb(actual)}")
    return delta, "; ".join(changed)


def _verb(net: int) -> str:
    return f"won {net}" if net > 0 else f"lost {-net}" if net < 0 else "pushed"


def _due(net: int) -> str:
    return f"a payment of {net}" if net > 0 else f"a collection of {-net}" if net < 0 else "a stand off"


def _done(net: int) -> str:
    return f"{net} was paid" if net > 0 else f"{-net} was collected" if net < 0 else "nothing changed hands"


# ---------------------------------------------------------------------------------------------------------------
# Settlements


class Expect(NamedTuple):
    nets: tuple[int, ...]
    """Acceptable nets to the player (+ paid, - collected); the first is the one we quote."""
    direction: str
    amount: str
    why: str
    """Why, as a template over ``{pt}`` (the hand's total) and ``{dt}`` (the dealer's), formatted only for a
    finding."""
    pt: int = 0
    dt: int = 0


def _ratio(wager: int, num: int, den: int) -> tuple[int, ...]:
    exact, rest = divmod(wager * num, den)
    return (exact,) if rest == 0 else (exact, exact + 1)


def _pays_six_five(t: Trace, ctx: Ctx) -> bool:
    """Whether a blackjack is due at 6 to 5: the table elects it and the jurisdiction permits it (where it does not,
    the election is itself a finding and blackjacks are still due at 3 to 2)."""
    return t.elections.get("blackjack_pays") == "6:5" and ctx.params.get("six_five_permitted", True) is True


DealerFacts = tuple[int, bool, bool]
"""The dealer's total, whether it is a blackjack, and whether the first card is an ace or ten-value."""


def _dealer_facts(dealer: Sequence[str]) -> DealerFacts:
    up = dealer[0] if dealer else None
    return (
        hand_total(dealer)[0],
        len(dealer) >= 2 and is_natural([dealer[0], dealer[1]]),
        up is not None and (up[0] == "A" or up[0] in TEN_VALUE),
    )


_BJ_VS_BJ = "its blackjack against the dealer's blackjack is a stand off"


def _expect(h: HandState, dealer: DealerFacts, six_five: bool) -> Expect:
    wager = h.wager
    stake = wager + sum(a for _, a in h.doubles) if h.doubles else wager
    dt, dbj, ace_ten = dealer
    if h.surrendered_at is not None:
        return Expect(
            (-(wager // 2), -((wager + 1) // 2)), "surrender_amount", "surrender_amount", "it surrendered"
        )
    if h.blackjack:
        if dbj:
            return Expect((0,), "bj_vs_dealer_ace_ten", "bj_vs_dealer_ace_ten", _BJ_VS_BJ)
        if six_five:
            nets, why = _ratio(wager, 6, 5), "its blackjack pays 6 to 5"
        else:
            nets, why = _ratio(wager, 3, 2), "its blackjack pays 3 to 2"
        if ace_ten:
            return Expect(nets, "bj_vs_dealer_ace_ten", "bj_vs_dealer_ace_ten", why)
        direction = "bj_beats_21" if dt == 21 else "dealer_bust" if dt > 21 else "higher_total"
        return Expect(nets, direction, "bj_odds", why)
    pt = h.final_total
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


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def check_settlements(t: Trace, ctx: Ctx) -> None:
    facts = _dealer_facts(t.dealer_values)
    six_five = _pays_six_five(t, ctx)
    original_only = ctx.params.get("dealer_blackjack_collects") == "original_only"
    for seat in t.seats.values():
        aggregate = t.dealer_blackjack and seat.split
        for h in seat.hands:
            if h.even_money is not None:
                for i, _ in h.settles:
                    ctx.emit(
                        "settled_twice",
                        i,
                        h.name,
                        f"Hand {h.name} was already settled by even money; it was settled again.",
                        expected="no further settlement",
                        actual="settled again",
                    )
                continue
            first = _settled_once(ctx, h.settles, _main_wager, h)
            if first is None or aggregate:
                continue
            i, settle = first
            if len(h.cards) < 2 and h.surrendered_at is None:
                # A box that never received its cards: we hold no irregularity rule to judge its settlement by.
                continue
            exp = _expect(h, facts, six_five)
            if t.dealer_blackjack and h.doubles and not t.is_blackjack(h):
                # 19:47-2.10(b): a dealer blackjack after a double collects only the original wager.
                only = -h.wager
                exp = Expect(
                    (only,) if original_only else (-h.stake, only),
                    "dealer_bj_after_double",
                    "dealer_bj_after_double",
                    "the dealer had blackjack after it doubled and only the original wager may be collected"
                    if original_only
                    else "the dealer had blackjack after it doubled",
                )
            _compare(ctx, i, h, settle.net, exp)
        if aggregate:
            _compare_split_seat(t, ctx, seat.seat, original_only)


T = TypeVar("T")


def _main_wager(h: HandState) -> tuple[str, str]:
    return h.name, f"Hand {h.name}'s wager of {h.stake}"


def _insurance_wager(seat: SeatState) -> tuple[str, str]:
    return str(seat.seat), f"Seat {seat.seat}'s insurance of {seat.insured}"


def _additional_wager(seat: SeatState) -> tuple[str, str]:
    return str(seat.seat), f"Seat {seat.seat}'s additional wager"


def _settled_once(
    ctx: Ctx, settles: list[tuple[int, Settle]], describe: Callable[[T], tuple[str, str]], subject: T
) -> tuple[int, Settle] | None:
    """A wager's settlement; a missing one, or any after the first, is reported. ``describe(subject)`` gives the
    finding's hand and the wager in words (built only for a finding)."""
    if len(settles) == 1:
        return settles[0]
    where, wager = describe(subject)
    if not settles:
        ctx.emit("missing_settlement", None, where, f"{wager} was never settled.", "a settlement", "none")
        return None
    for i, _ in settles[1:]:
        ctx.emit(
            "settled_twice", i, where, f"{wager} was settled more than once.", "one settlement", "another"
        )
    return settles[0]


def _compare(ctx: Ctx, event: int, h: HandState, net: int, exp: Expect) -> None:
    if net in exp.nets:
        return
    want = min(exp.nets, key=lambda n: abs(n - net))
    role = exp.direction if _sign(net) != _sign(want) else exp.amount
    why = exp.why.format(pt=exp.pt, dt=exp.dt)
    ctx.emit(
        role,
        event,
        h.name,
        f"Hand {h.name}: {why}, so {_due(want)} was due, but {_done(net)}.",
        expected=want,
        actual=net,
        amount_delta=want - net,
    )


def _compare_split_seat(t: Trace, ctx: Ctx, seat_no: int, original_only: bool) -> None:
    seat = t.seats[seat_no]
    settled = [(i, s) for h in seat.hands for i, s in h.settles[:1]]
    if len(settled) != len(seat.hands):
        return
    net = sum(s.net for _, s in settled)
    if original_only:
        # 19:47-2.10(b) for a double collected from a split hand; 2.11(d) for whatever else is wrong.
        for h in seat.hands:
            i, st = h.settles[0]
            if h.doubles and st.net < -h.wager:
                ctx.emit(
                    "dealer_bj_after_double",
                    i,
                    h.name,
                    f"Hand {h.name}: the dealer had blackjack after it doubled and only the original wager may be "
                    f"collected, so a collection of {h.wager} was due, but {_done(st.net)}.",
                    expected=-h.wager,
                    actual=st.net,
                    amount_delta=-h.wager - st.net,
                )
                net += -h.wager - st.net
    only = -seat.wager
    everything = -sum(h.stake for h in seat.hands)
    nets = (only,) if original_only else (only, everything)
    if net in nets:
        return
    last = max(i for i, _ in settled)
    want = min(nets, key=lambda n: abs(n - net))
    ctx.emit(
        "dealer_bj_after_split",
        last,
        str(seat_no),
        f"The dealer had blackjack after seat {seat_no} split, so {_due(want)} was due across its hands, but "
        f"{_done(net)}.",
        expected=want,
        actual=net,
        amount_delta=want - net,
    )


def check_insurance_settlements(t: Trace, ctx: Ctx) -> None:
    if "insurance" not in t.present:
        return
    second = t.dealer[1] if len(t.dealer) >= 2 else None
    third_at = t.dealer[2].event if len(t.dealer) >= 3 else None
    for seat in t.seats.values():
        if not seat.insurance:
            continue
        s = seat.seat
        first = _settled_once(ctx, seat.insurance_settles, _insurance_wager, seat)
        if first is None:
            continue
        i, settle = first
        if second is None:
            if settle.net != 0:
                paid = settle.net > 0
                ctx.emit(
                    "insurance_outcome" if paid else "insurance_collect_timing",
                    i,
                    str(s),
                    f"Seat {s}'s insurance was {'paid' if paid else 'collected'}, but the dealer never received the "
                    "second card that decides it.",
                    expected="settled on the dealer's second card",
                    actual=f"{_done(settle.net)} with no second card",
                    amount_delta=-settle.net if paid else None,
                )
            continue
        wins = second.card[0] in TEN_VALUE
        want = 2 * seat.insured if wins else -seat.insured
        net = settle.net
        if net != want:
            role = (
                "insurance_outcome"
                if _sign(net) != _sign(want)
                else ("insurance_odds" if wins else "lose_amount")
            )
            ctx.emit(
                role,
                i,
                str(s),
                f"Seat {s}'s insurance of {seat.insured} {'wins' if wins else 'loses'} on the dealer's second card "
                f"{second.card}: it should have {_verb(want)} but {_verb(net)}.",
                expected=want,
                actual=net,
                amount_delta=want - net,
            )
        elif not wins and (i < second.event or (third_at is not None and i > third_at)):
            ctx.emit(
                "insurance_collect_timing",
                i,
                str(s),
                f"Seat {s}'s losing insurance was collected "
                f"{'before' if i < second.event else 'after further dealer cards than'} the dealer's second card; "
                "it must be collected right after the second card, before any further card.",
                expected=f"between events {second.event} and {third_at if third_at is not None else 'the end'}",
                actual=f"event {i}",
            )


# ---------------------------------------------------------------------------------------------------------------
# Timing and dealing procedure


def check_blackjack_paid_early(t: Trace, ctx: Ctx) -> None:
    """With a dealer ace or ten-value first card, a player blackjack is not paid (or its cards removed) until the
    dealer has received a second card."""
    if not t.dealer or not (t.dealer[0].card[0] == "A" or t.dealer[0].card[0] in TEN_VALUE):
        return
    second_at = t.dealer_second_at
    for h in t.all_hands():
        if not t.is_blackjack(h) or h.even_money is not None:
            continue
        for i, _ in h.settles:
            if second_at is None or i < second_at:
                ctx.emit(
                    "bj_paid_early",
                    i,
                    h.name,
                    f"Hand {h.name}'s blackjack was settled before the dealer's second card, with the dealer "
                    f"showing {t.dealer[0].card}.",
                    expected="settle after the dealer's second card",
                    actual=f"settled at event {i}",
                )


def check_double_card(t: Trace, ctx: Ctx) -> None:
    if "double" not in t.present:
        return
    mode = t.elections.get("double_card") or "face_up"
    dealer_done = t.dealer_done_at()
    dealer_done = -1 if dealer_done is None else dealer_done
    for h, c in t.player_cards:
        if c.kind != "double":
            continue
        if (mode == "face_up" and c.face == "down") or (mode == "face_down" and c.face == "up"):
            ctx.emit(
                "double_card_face",
                c.event,
                h.name,
                f"Hand {h.name}'s double-down card was dealt face {c.face}; this table deals it "
                f"{mode.replace('_', ' ')}.",
                expected=mode.replace("_", " "),
                actual=f"face {c.face}",
            )
        if c.face != "down":
            continue
        settle_at = h.settles[0][0] if h.settles else None
        if c.revealed_at is None:
            if settle_at is not None:
                ctx.emit(
                    "double_card_reveal",
                    settle_at,
                    h.name,
                    f"Hand {h.name}'s face-down double-down card was never turned face up before the hand was "
                    "settled.",
                    expected="card turned up at settlement",
                    actual="never revealed",
                )
        elif c.revealed_at < dealer_done:
            ctx.emit(
                "double_card_reveal",
                c.revealed_at,
                h.name,
                f"Hand {h.name}'s face-down double-down card was turned up before the dealer finished drawing.",
                expected=f"after event {dealer_done}",
                actual=f"event {c.revealed_at}",
            )
        elif settle_at is not None and settle_at < c.revealed_at:
            ctx.emit(
                "double_card_reveal",
                settle_at,
                h.name,
                f"Hand {h.name} was settled before its face-down double-down card was turned up.",
                expected="card turned up at settlement",
                actual=f"settled at event {settle_at}, revealed at event {c.revealed_at}",
            )


# ---------------------------------------------------------------------------------------------------------------
# Additional (side) wagers


_KIND_ELECTION = {
    "over_13": "over_under_13",
    "under_13": "over_under_13",
    "same_suit": "same_suit",
    "seven": "seven",
}


def check_additional(t: Trace, ctx: Ctx) -> None:
    if all(seat.additional_kind is None for seat in t.seats.values()):
        return
    offered = t.elections.get("additional_wager") or "none"
    required = ctx.params.get("additional_wager_amount")
    initial = sorted((c for _, c in t.player_cards if c.kind == "initial"), key=lambda c: c.event)
    last_initial = max((c.event for c in initial), default=None)
    for seat in t.seats.values():
        kind = seat.additional_kind
        if kind is None:
            continue
        s = seat.seat
        if offered == "none":
            ctx.emit(
                "additional_type",
                None,
                str(s),
                f"Seat {s} placed a {kind} additional wager at a table that offers none.",
                expected="no additional wager",
                actual=kind,
            )
        elif _KIND_ELECTION[kind] != offered:
            ctx.emit(
                "additional_type",
                None,
                str(s),
                f"Seat {s} placed a {kind} additional wager; this table offers only {offered}.",
                expected=offered,
                actual=kind,
            )
        if required is not None and seat.additional_amount != required:
            ctx.emit(
                "additional_amount",
                None,
                str(s),
                f"Seat {s}'s additional wager was {seat.additional_amount}; it must be exactly {required}.",
                expected=required,
                actual=seat.additional_amount,
            )
        first = _settled_once(ctx, seat.additional_settles, _additional_wager, seat)
        if first is None:
            continue
        i, settle = first
        own = [c.card for c in initial if any(c in h.cards for h in seat.hands)][:2]
        if len(own) < 2:
            continue
        wins = _additional_wins(kind, own, t.dealer_values[:1])
        if wins != (settle.net > 0) or (not wins and settle.net == 0):
            total = sum(value(c) for c in own)
            role = (
                "additional_13" if kind in ("over_13", "under_13") and total == 13 else "additional_outcome"
            )
            ctx.emit(
                role,
                i,
                str(s),
                f"Seat {s}'s {kind} additional wager on {'+'.join(own)} "
                f"{'wins' if wins else 'loses'}, but {_done(settle.net)}.",
                expected="win" if wins else "lose",
                actual=settle.result,
                amount_delta=None if wins else -seat.additional_amount - settle.net,
            )
        elif not wins and -settle.net != seat.additional_amount:
            ctx.emit(
                "lose_amount",
                i,
                str(s),
                f"Seat {s}'s losing additional wager of {seat.additional_amount} was collected as {-settle.net}.",
                expected=-seat.additional_amount,
                actual=settle.net,
                amount_delta=-seat.additional_amount - settle.net,
            )
        if settle.net <= 0 and not wins:
            late = t.first_later_player_card is not None and i > t.first_later_player_card
            early = last_initial is not None and i < last_initial
            if late or early:
                ctx.emit(
                    "additional_timing",
                    i,
                    str(s),
                    f"Seat {s}'s losing additional wager was collected "
                    f"{'after further cards were dealt to players' if late else 'before every player had two cards'}"
                    "; it must be collected right after each player's second card.",
                    expected=f"after event {last_initial}"
                    + (
                        f", before event {t.first_later_player_card}"
                        if t.first_later_player_card is not None
                        else ""
                    ),
                    actual=f"event {i}",
                )


def _additional_wins(kind: str, own: list[str], dealer_first: list[str]) -> bool | None:
    # 13:69F-2.2(b)3ii: for the over/under-13 wager an ace among the first two cards counts one.
    total = sum(value(c) for c in own)
    if kind == "over_13":
        return total > 13
    if kind == "under_13":
        return total < 13
    if kind == "same_suit":
        return own[0][1] == own[1][1]
    # Interpretation (13:69F-2.17(a)3, (d)): "the first three cards" are the player's two cards and the dealer's
    # first card, the only reading under which (d) can collect a losing seven wager right after the players'
    # second cards.
    return any(c[0] == "7" for c in own + dealer_first)


def check_table_limits(t: Trace, ctx: Ctx) -> None:
    """Each box's original wager lies within the table's posted minimum and maximum, when the table posts them."""
    low, high = t.elections.get("min_wager"), t.elections.get("max_wager")
    if low is None and high is None:
        return
    for seat in t.seats.values():
        if isinstance(low, int) and seat.wager < low or isinstance(high, int) and seat.wager > high:
            ctx.emit(
                "wager_limits",
                None,
                str(seat.seat),
                f"Seat {seat.seat} wagered {seat.wager}, outside this table's posted limits "
                f"({low if low is not None else 'no minimum'} to {high if high is not None else 'no maximum'}).",
                expected=f"{low if low is not None else ''}..{high if high is not None else ''}",
                actual=seat.wager,
            )


ROLES: dict[Check, frozenset[str]] = {
    check_table_limits: frozenset({"wager_limits"}),
    check_player_draws: frozenset(
        {"hit_over_21", "hit_on_21", "double_one_card", "split_aces_draw", "split_aces_more"}
    ),
    check_doubles: frozenset(
        {"double_when", "double_on_21", "double_amount", "das_prohibited_6to5", "das_prohibited"}
    ),
    check_splits: frozenset(
        {"split_pair", "split_amount", "resplit_not_elected", "resplit_limit", "resplit_aces"}
    ),
    check_split_order: frozenset({"split_order"}),
    check_surrender: frozenset({"surrender_not_offered", "surrender_when"}),
    check_insurance: frozenset({"insurance_when", "insurance_amount", "insurance_timing", "insurance_chips"}),
    check_even_money: frozenset({"even_money_when", "even_money_amount", "even_money_timing"}),
    check_dealer_draw: frozenset(
        {"draw_s17", "draw_h17", "draw_6to5", "draw_hand_dealt", "draw_unknown", "needless_draw"}
    ),
    check_settlements: frozenset(
        {
            "missing_settlement",
            "settled_twice",
            "lose_amount",
            "win_odds",
            "bj_odds",
            "bj_vs_dealer_ace_ten",
            "bust_loses",
            "dealer_bust",
            "higher_total",
            "lower_total",
            "equal_totals",
            "bj_beats_21",
            "dealer_bj_beats_21",
            "dealer_bj_after_double",
            "dealer_bj_after_split",
            "surrender_amount",
        }
    ),
    check_insurance_settlements: frozenset(
        {
            "missing_settlement",
            "settled_twice",
            "insurance_outcome",
            "insurance_odds",
            "lose_amount",
            "insurance_collect_timing",
        }
    ),
    check_blackjack_paid_early: frozenset({"bj_paid_early"}),
    check_double_card: frozenset({"double_card_face", "double_card_reveal"}),
    check_additional: frozenset(
        {
            "additional_type",
            "additional_amount",
            "additional_outcome",
            "additional_13",
            "additional_timing",
            "missing_settlement",
            "settled_twice",
            "lose_amount",
        }
    ),
}
"""The roles each check reports in: a ruleset runs only the checks with at least one role it binds."""

ALL_CHECKS = (
    check_table_limits,
    check_player_draws,
    check_doubles,
    check_splits,
    check_split_order,
    check_surrender,
    check_insurance,
    check_even_money,
    check_dealer_draw,
    check_settlements,
    check_insurance_settlements,
    check_blackjack_paid_early,
    check_double_card,
    check_additional,
)
