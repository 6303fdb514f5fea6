"""Settlement of the main wagers: outcome and odds (NZ 4.1, 8.2; NJ uncited), a dealer blackjack after a double or
a split (NJ 19:47-2.10(b), 13:69F-2.11(d)), every wager settled once, a blackjack not paid before the dealer's
second card (NZ 8.2), and no settlement that depends on the dealer's total before the dealer is complete
(section 2.1).

A settlement is judged by the hand as it stood when it was made (cards dealt later never change what it should
have been), and after a known dealer blackjack by the cards held when it became known. It is judged against the
dealer's hand as it stood then if the dealer was complete by then, else against the dealer's final hand.

Roles: ``missing_settlement``, ``settled_twice``, ``lose_amount``, ``win_odds``, ``bj_odds``,
``bj_vs_dealer_ace_ten``, ``bust_loses``, ``dealer_bust``, ``higher_total``, ``lower_total``, ``equal_totals``,
``bj_beats_21``, ``dealer_bj_beats_21``, ``dealer_bj_after_double``, ``dealer_bj_after_split``,
``surrender_amount``, ``bj_paid_early``, ``settled_early``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple, TypeVar

from app.domain.cards import TEN_VALUE, hand_total, is_natural
from app.domain.checks.outcome import (
    DealerFacts,
    Expect,
    dealer_complete,
    dealer_facts,
    depends_on_dealer,
    draw_regime,
    expect,
    judged_dealer,
    pays_six_five,
)
from app.domain.checks.words import done, due, sign
from app.domain.model import Settle
from app.domain.rules import Ctx
from app.domain.state import HandState, SeatState, Trace

ROLES: frozenset[str] = frozenset(
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
        "settled_early",
    }
)


class Terms(NamedTuple):
    """What the settlements of a round are judged by, besides the hands and the dealer."""

    six_five: bool
    """A blackjack is due at 6 to 5."""
    original_only: bool
    """A dealer blackjack after a double or split collects only the original wager."""
    h17: bool | None
    """The dealer hits soft 17 (None: the table's option is not known)."""


def terms(t: Trace, ctx: Ctx) -> Terms:
    return Terms(
        pays_six_five(t, ctx),
        ctx.params.get("dealer_blackjack_collects") == "original_only",
        draw_regime(t, ctx)[1],
    )


def on_settle(
    t: Trace, ctx: Ctx, h: HandState, i: int, settle: Settle, dealer: DealerFacts, how: Terms
) -> None:
    """A hand's first settlement, made when the dealer's hand was complete: judged now, by the hand as it stands.
    (Settlements made before the dealer was complete, or once the dealer's blackjack was known (a hand is then judged
    as it stood when it became known), are judged at the end of the round by :func:`check_settlements`.)"""
    if h.even_money is not None or t.dbj_known_at is not None:
        return
    if dealer[1] and h.seat_split_at is not None:
        return  # a split seat against a dealer blackjack is judged as a whole, at the end
    h.judged = True
    surrendered = h.surrendered_at is not None
    if len(h.cards) < 2 and not surrendered:
        return  # a box that never received its cards: we hold no irregularity rule to judge its settlement by
    judge(ctx, h, i, settle.net, h.total, h.stake, surrendered, h.blackjack, dealer, how)


def check_settlements(t: Trace, ctx: Ctx) -> None:
    dealer_blackjack = t.dealer_blackjack
    last_dealer = t.dealer_events[-1] if t.dealer else -1
    dbj = t.dbj_known_at
    how: Terms | None = None
    for seat in t.seats.values():
        split_at = seat.hands[0].seat_split_at
        if dbj is not None and split_at is not None and split_at > dbj:
            # Split after the dealer's blackjack was known: the box is judged as the hand it held then.
            _judge_unsplit(t, ctx, seat, how or terms(t, ctx))
            continue
        aggregate = dealer_blackjack and split_at is not None
        for h in seat.hands:
            settles = h.settles
            if h.even_money is not None:
                for i, again in settles:
                    ctx.emit(
                        "settled_twice",
                        i,
                        h.name,
                        f"Hand {h.name} was already settled by even money; it was settled again.",
                        expected="no further settlement",
                        actual="settled again",
                        amount_delta=-again.net,
                    )
                continue
            if len(settles) == 1:
                once: tuple[int, Settle] | None = settles[0]
            else:
                how = how or terms(t, ctx)
                once = settled_once(t, ctx, settles, _main_wager, h, partial(_due_at_end, t, h, how))
            if once is None or h.judged:
                continue
            s = h.at(once[0], t.dbj_known_at)
            if s.cards < 2 and not s.surrendered and dbj is None:
                continue  # a box that never received its cards (once the dealer's blackjack is known, it lost to it)
            how = how or terms(t, ctx)
            # A later dealer card shows the dealer was still to play (a dealer who never did is reported as such).
            if depends_on_dealer(s) and s.event < last_dealer and not dealer_complete(t, s.event, how.h17):
                ctx.emit(
                    "settled_early",
                    s.event,
                    h.name,
                    f"Hand {h.name}'s outcome depends on the dealer's total, but it was settled before the dealer's "
                    "hand was complete.",
                    expected="settled after the dealer's hand is complete",
                    actual=f"settled at event {s.event}, dealer's last card at event {last_dealer}",
                )
            if aggregate:
                continue
            dealer = judged_dealer(t, s.event, how.h17)
            if dealer is not None:
                judge(ctx, h, s.event, once[1].net, s.total, s.stake, s.surrendered, s.blackjack, dealer, how)
        if aggregate and t.complete:
            _compare_split_seat(t, ctx, seat, (how or terms(t, ctx)).original_only)


def _due_at_end(t: Trace, h: HandState, how: Terms) -> int | None:
    """What a hand never settled was owed, as it stands at the end against the dealer's final hand."""
    if (len(h.cards) < 2 and h.surrendered_at is None) or len(t.dealer) < 2:
        return None
    s = h.at(1 << 30, t.dbj_known_at)
    dealer = dealer_facts(t.dealer, t.dealer_up)
    if dealer[1] and h.seat_split_at is not None:
        return None  # a split box against a dealer blackjack is owed as a whole
    exp = expect(s.total, s.stake, h.wager, s.surrendered, s.blackjack, dealer, how.six_five)
    if dealer[1] and s.stake > h.wager and not s.blackjack and how.original_only:
        return -h.wager
    return exp.nets[0]


def _judge_unsplit(t: Trace, ctx: Ctx, seat: SeatState, how: Terms) -> None:
    hands = seat.hands
    for h in hands:
        if len(h.settles) != 1:
            settled_once(t, ctx, h.settles, _main_wager, h)
    if not all(h.settles for h in hands):
        return
    # (the box's cards when the blackjack was known: fewer than two are no blackjack, and lose to it)
    cards = [c for c, e in seat.initial() if t.dbj_known_at is None or e < t.dbj_known_at]
    net = sum(h.settles[0][1].net for h in hands)
    last = max(h.settles[0][0] for h in hands)
    total = hand_total(cards)[0]
    dealer = dealer_facts(t.dealer, t.dealer_up)
    judge(ctx, hands[0], last, net, total, seat.wager, False, is_natural(cards), dealer, how)


def judge(
    ctx: Ctx,
    h: HandState,
    i: int,
    net: int,
    total: int,
    stake: int,
    surrendered: bool,
    blackjack: bool,
    dealer: DealerFacts,
    how: Terms,
) -> None:
    """Compare a settlement's ``net`` with what the hand (of ``total``, its wagers ``stake`` in all, as it stood
    then) was due against the dealer; report the difference."""
    exp = expect(total, stake, h.wager, surrendered, blackjack, dealer, how.six_five)
    if dealer[1] and stake > h.wager and not blackjack:
        # 19:47-2.10(b): a dealer blackjack after a double collects only the original wager.
        only = -h.wager
        exp = Expect(
            (only,) if how.original_only else (-stake, only),
            "dealer_bj_after_double",
            "dealer_bj_after_double",
            "the dealer had blackjack after it doubled and only the original wager may be collected"
            if how.original_only
            else "the dealer had blackjack after it doubled",
        )
    if net in exp.nets:
        return
    want = min(exp.nets, key=lambda n: abs(n - net))
    role = exp.direction if sign(net) != sign(want) else exp.amount
    why = exp.why.format(pt=exp.pt, dt=exp.dt)
    ctx.emit(
        role,
        i,
        h.name,
        f"Hand {h.name}: {why}, so {due(want)} was due, but {done(net)}.",
        expected=want,
        actual=net,
        amount_delta=want - net,
    )


T = TypeVar("T")


def _main_wager(h: HandState) -> tuple[str, str]:
    return h.name, f"Hand {h.name}'s wager of {h.stake}"


def settled_once(
    t: Trace,
    ctx: Ctx,
    settles: list[tuple[int, Settle]],
    describe: Callable[[T], tuple[str, str]],
    subject: T,
    due: Callable[[], int | None] | None = None,
) -> tuple[int, Settle] | None:
    """A wager's settlement; a missing one, or any after the first, is reported. ``describe(subject)`` gives the
    finding's hand and the wager in words, ``due()`` what a settlement would have been owed (the money of a missing
    one, when it can be known); both are called only for a finding. A second settlement should have moved no
    money: what it moved is owed back."""
    if len(settles) == 1:
        return settles[0]
    where, wager = describe(subject)
    if not settles:
        if t.complete:
            owed = due() if due is not None else None
            ctx.emit(
                "missing_settlement",
                None,
                where,
                f"{wager} was never settled.",
                "a settlement",
                "none",
                amount_delta=owed,
            )
        return None
    for i, again in settles[1:]:
        ctx.emit(
            "settled_twice",
            i,
            where,
            f"{wager} was settled more than once.",
            "one settlement",
            "another",
            amount_delta=-again.net,
        )
    return settles[0]


def _compare_split_seat(t: Trace, ctx: Ctx, seat: SeatState, original_only: bool) -> None:
    settled = [h.settles[0] for h in seat.hands if h.settles]
    if len(settled) != len(seat.hands):
        return
    net = sum(s.net for _, s in settled)
    if original_only:
        # 19:47-2.10(b) for a double collected from a split hand; 2.11(d) for whatever else is wrong.
        for h in seat.hands:
            at, st = h.settles[0]
            n = st.net
            if h.doubles and n < -h.wager:
                ctx.emit(
                    "dealer_bj_after_double",
                    at,
                    h.name,
                    f"Hand {h.name}: the dealer had blackjack after it doubled and only the original wager may be "
                    f"collected, so a collection of {h.wager} was due, but {done(n)}.",
                    expected=-h.wager,
                    actual=n,
                    amount_delta=-h.wager - n,
                )
                net += -h.wager - n
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
        str(seat.seat),
        f"The dealer had blackjack after seat {seat.seat} split, so {due(want)} was due across its hands, but "
        f"{done(net)}.",
        expected=want,
        actual=net,
        amount_delta=want - net,
    )


def check_blackjack_paid_early(t: Trace, ctx: Ctx) -> None:
    """NZ 8.2: with a dealer ace or ten-value first card, a player blackjack is not paid (or its cards removed)
    until the dealer has received a second card; even money (8.3) is the exception, against an ace only."""
    up = t.dealer_up
    if up is None or not (up[0] == "A" or up[0] in TEN_VALUE):
        return
    second_at = t.dealer_second_at  # (None: the dealer never received it, so any payment came before it)
    for h in t.hand_list:
        times = [i for i, _ in h.settles if h.at(i, t.dbj_known_at).blackjack]
        if h.even_money is not None:
            i = h.even_money[0]
            if up[0] == "A":
                continue  # even money, 8.3
            if is_natural(h.cards_before(i)) and h.seat_split_at is None:
                times = [i]
        for i in times:
            if second_at is None or i < second_at:
                ctx.emit(
                    "bj_paid_early",
                    i,
                    h.name,
                    f"Hand {h.name}'s blackjack was settled before the dealer's second card, with the dealer showing "
                    f"{up}.",
                    expected="settle after the dealer's second card",
                    actual=f"settled at event {i}",
                )
