"""Insurance and even money: NZ 8.3, 9.1, 9.3-9.6 (seed text); NJ uncited (13:69F-2.8/2.9 not held).

The dealer's "first card" of the rules is the up card and the "second card" the other initial card (the hole card
in a hole-card game), whichever order they were dealt in; the timing rules count from when the dealer *received*
its second card.

Roles: ``insurance_when``, ``insurance_amount``, ``insurance_timing``, ``insurance_chips``, ``insurance_outcome``,
``insurance_odds``, ``insurance_collect_timing``, ``even_money_when``, ``even_money_amount``,
``even_money_timing``; an even money the rules do not allow is judged as the hand's settlement (settlement roles).
"""

from __future__ import annotations

from functools import partial

from app.domain.cards import TEN_VALUE, is_natural
from app.domain.checks.outcome import dealer_complete, depends_on_dealer, judged_dealer, ratio
from app.domain.checks.settlement import judge, returned_on_void, settled_once, terms
from app.domain.checks.words import done, money, sign, verb
from app.domain.rules import Ctx
from app.domain.state import SeatState, Trace


def _up_before(t: Trace, event: int) -> str | None:
    at = t.up_at
    return t.dealer_up if at is not None and at < event else None


def check_insurance(t: Trace, ctx: Ctx) -> None:
    if "insurance" not in t.present:
        return
    min_chip = t.elections.get("min_chip")
    cur = str(ctx.params.get("currency", "$"))
    void_at = t.void_at
    for seat in t.seats.values():
        placed = 0
        for i, amount in seat.insurance:
            if void_at is not None and i > void_at:
                continue  # (placed after the void: a finding of its own, play after the void)
            placed += amount
            up = _up_before(t, i)
            s = seat.seat
            if up is None or up[0] != "A":
                ctx.emit(
                    "insurance_when",
                    i,
                    str(s),
                    f"Seat {s} placed insurance, but the dealer's up card was "
                    f"{'not yet dealt face up' if up is None else up}; insurance is offered only against an ace.",
                    expected="dealer's up card an ace",
                    actual=up,
                )
            if 2 * placed > seat.wager:
                ctx.emit(
                    "insurance_amount",
                    i,
                    str(s),
                    f"Seat {s} insured {money(placed, cur)} on a wager of {money(seat.wager, cur)}; insurance may "
                    f"be at most half the original wager ({money(seat.wager // 2, cur)}).",
                    expected=f"at most {seat.wager // 2}",
                    actual=placed,
                )
            if t.initial_end is None or i < t.initial_end:
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
                    f"Seat {s}'s insurance of {money(amount, cur)} would win {money(2 * amount, cur)}, which "
                    f"cannot be paid in chips of {money(min_chip, cur)}.",
                    expected=f"a winning payout in multiples of {min_chip}",
                    actual=2 * amount,
                )


def check_even_money(t: Trace, ctx: Ctx) -> None:
    """Even money (NZ 8.3): a blackjack against a dealer ace may be paid one to one at once, in full settlement.
    Paid where the rules do not allow it, it is still the settlement of the hand's wager, and judged as one."""
    if "even_money" not in t.present:
        return
    cur = str(ctx.params.get("currency", "$"))
    void_at = t.void_at
    for seat in t.seats.values():
        h = seat.hands[0]
        if h.even_money is None:
            continue
        i, amount = h.even_money
        if void_at is not None and i > void_at:
            # Even money paid after the void settles a wager that was to be returned (section 2.3).
            ctx.emit(
                "void_wager_not_returned",
                i,
                h.name,
                f"Hand {h.name}'s wager was in play when the round was declared void at event {void_at}, so it is "
                f"returned; {done(amount, cur)} as even money.",
                expected=0,
                actual=amount,
                amount_delta=-amount,
            )
            continue
        cards = h.cards_before(i)
        up = _up_before(t, i)
        s = seat.seat
        # (a split after the even money does not change what was paid for: the split is a fault of its own)
        blackjack = is_natural(cards) and (h.seat_split_at is None or h.seat_split_at > i)
        allowed = blackjack and up is not None and up[0] == "A"
        known = t.dealer_second_known_at()
        late = known is not None and i > known
        if not allowed:
            ctx.emit(
                "even_money_when",
                i,
                h.name,
                f"Seat {s} was paid even money holding {'+'.join(cards) or 'no cards'} against a dealer "
                f"{up or 'without a card'}; even money is only for a blackjack against a dealer ace.",
                expected="player blackjack, dealer ace",
                actual=f"{'+'.join(cards)} vs {up}",
            )
        if late:
            ctx.emit(
                "even_money_timing",
                i,
                h.name,
                f"Seat {s} was paid even money after the dealer's second card was known; it is paid immediately, "
                "before the dealer's hand is known.",
                expected=f"before event {known}",
                actual=f"event {i}",
            )
        if allowed and not late:
            if amount != h.wager:
                ctx.emit(
                    "even_money_amount",
                    i,
                    h.name,
                    f"Seat {s} took even money and was paid {money(amount, cur)}; even money pays one to one, "
                    f"{money(h.wager, cur)}.",
                    expected=h.wager,
                    actual=amount,
                    amount_delta=h.wager - amount,
                )
        elif len(cards) >= 2:
            # Where even money is not allowed (not a blackjack against an ace, or once the dealer's second card is
            # known) it is still what settled the wager (spec section 2): judged as a settlement of what it paid.
            how = terms(t, ctx)
            paid = h.at(i, t.dbj_known_at)
            last = t.dealer_done_at()  # (the dealer's last card, or the reveal of one)
            if (
                depends_on_dealer(paid)
                and last is not None
                and last > i
                and not dealer_complete(t, i, how.h17)
            ):
                ctx.emit(
                    "settled_early",
                    i,
                    h.name,
                    f"Hand {h.name}'s outcome depends on the dealer's total, but it was paid even money before the "
                    "dealer's hand was complete.",
                    expected="settled after the dealer's hand is complete",
                    actual=f"settled at event {i}, dealer's hand complete at event {last}",
                )
            dealer = judged_dealer(t, i, how.h17, paid)
            if dealer is not None:
                judge(ctx, h, i, amount, paid.total, paid.stake, False, paid.blackjack, dealer, how)


def _due(t: Trace, seat: SeatState, chip: int, up: bool) -> int | None:
    """What an insurance never settled was owed: 2 to 1 if the dealer's second card is a ten, else its stake."""
    second = t.hole
    if second is None:
        return None
    return ratio(seat.insured, 2, 1, chip, up) if second[0][0] in TEN_VALUE else -seat.insured


def _insurance_wager(seat: SeatState) -> tuple[str, str]:
    return str(seat.seat), f"Seat {seat.seat}'s insurance"


def check_insurance_settlements(t: Trace, ctx: Ctx) -> None:
    if "insurance" not in t.present:
        return
    second = t.hole
    second_at = t.dealer_second_at
    third_at = t.dealer_events[2] if len(t.dealer) >= 3 else None
    how = terms(t, ctx)
    cur = how.currency
    void_at = t.void_at
    for seat in t.seats.values():
        if not seat.insurance:
            continue
        s = seat.seat
        settles = seat.insurance_settles
        if void_at is not None and (not settles or settles[0][0] > void_at):
            if (
                seat.insurance[0][0] < void_at or settles
            ):  # (insurance placed after the void: its own finding)
                returned_on_void(t, ctx, str(s), f"Seat {s}'s insurance", settles, cur)
            continue
        first = settled_once(
            t, ctx, settles, _insurance_wager, seat, partial(_due, t, seat, how.chip, how.up), cur
        )
        if first is None:
            continue
        i, settle = first
        if second is None or second_at is None:
            if settle.net != 0 and t.complete:
                paid = settle.net > 0
                ctx.emit(
                    "insurance_outcome" if paid else "insurance_collect_timing",
                    i,
                    str(s),
                    f"Seat {s}'s insurance was {'paid' if paid else 'collected'}, but the dealer never received the "
                    "second card that decides it.",
                    expected=0 if paid else "settled on the dealer's second card",
                    actual=settle.net if paid else f"{done(settle.net, cur)} with no second card",
                    amount_delta=-settle.net if paid else None,
                )
            continue
        wins = second[0][0] in TEN_VALUE
        want = ratio(seat.insured, 2, 1, how.chip, how.up) if wins else -seat.insured
        net = settle.net
        if net != want:
            role = (
                "insurance_outcome"
                if sign(net) != sign(want)
                else ("insurance_odds" if wins else "lose_amount")
            )
            ctx.emit(
                role,
                i,
                str(s),
                f"Seat {s}'s insurance of {money(seat.insured, cur)} {'wins' if wins else 'loses'} on the dealer's "
                f"second card {second[0]}: it should have {verb(want, cur)} but {verb(net, cur)}.",
                expected=want,
                actual=net,
                amount_delta=want - net,
            )
        elif not wins and (i < second_at or (third_at is not None and i > third_at)):
            ctx.emit(
                "insurance_collect_timing",
                i,
                str(s),
                f"Seat {s}'s losing insurance was collected "
                f"{'before' if i < second_at else 'after further dealer cards than'} the dealer's second card; "
                "it must be collected right after the second card, before any further card.",
                expected=f"between events {second_at} and {third_at if third_at is not None else 'the end'}",
                actual=f"event {i}",
            )
