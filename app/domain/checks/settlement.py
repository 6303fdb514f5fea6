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
``surrender_amount``, ``bj_paid_early``, ``settled_early``, ``void_wager_not_returned``.

Money (section 2.2): every finding about money states the player's net on that bet, ``expected`` and ``actual``
in minor units, and ``amount_delta`` = expected - actual; summed over a round, what the round owes.
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
from app.domain.checks.words import done, due, money, sign
from app.domain.model import Settle
from app.domain.rules import Ctx
from app.domain.state import HandAt, HandState, SeatState, Trace

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
        "void_wager_not_returned",
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
    chip: int = 1
    """The table's smallest chip: odds are paid in whole chips of it (section 2.2)."""
    up: bool = False
    """Odds that do not come out in whole chips are rounded up (the table elects it), else down."""
    currency: str = "$"
    """How messages write money."""


def terms(t: Trace, ctx: Ctx) -> Terms:
    """The round's terms, worked out once."""
    if t.terms is None:
        t.terms = _terms(t, ctx)
    return t.terms  # type: ignore[no-any-return]


def _terms(t: Trace, ctx: Ctx) -> Terms:
    chip = t.elections.get("min_chip")
    return Terms(
        pays_six_five(t, ctx),
        ctx.params.get("dealer_blackjack_collects") == "original_only",
        draw_regime(t, ctx)[1],
        chip if isinstance(chip, int) and chip > 0 else 1,
        t.elections.get("payout_rounding") == "up",
        str(ctx.params.get("currency", "$")),
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
    surrendered = h.surrendered_at is not None
    if len(h.cards) < 2 and not surrendered:
        if not _peeked_blackjack(t):
            # a box that never received its cards: no irregularity rule held to judge it by
            h.judged = settle.net
        return  # (at a table that peeks, the dealer's blackjack was known: judged at the end, as it stood then)
    h.judged = judge(ctx, h, i, settle.net, h.total, h.stake, surrendered, h.blackjack, dealer, how)


def _peeked_blackjack(t: Trace) -> bool:
    """Whether the dealer's blackjack was known from the initial deal: at a table that peeks the peek is taken to have
    happened, recorded or not (section 2.1), so a hand is settled by the cards it held then."""
    return t.elections.get("peek") is True and t.dealer_blackjack


def check_settlements(t: Trace, ctx: Ctx) -> None:
    dealer_blackjack = t.dealer_blackjack
    last_dealer = t.dealer_done_at() or -1  # (its last card, or the reveal of one)
    dbj = t.dbj_known_at
    void_at = t.void_at
    how = terms(t, ctx)
    # In a voided round the dealer never completes: a settlement that depended on the dealer's total, made before
    # the void while the dealer was not complete, is out of order and can be judged no further (section 2.3).
    unfinished = void_at is not None and not dealer_complete(t, void_at, how.h17)
    peeked = _peeked_blackjack(t)
    for seat in t.seats.values():
        split_at = seat.hands[0].seat_split_at
        if dbj is not None and split_at is not None and split_at >= dbj:
            # Split after the dealer's blackjack was known: the box is judged as the hand it held then.
            _judge_unsplit(t, ctx, seat, how)
            continue
        aggregate = dealer_blackjack and split_at is not None and void_at is None
        for h in seat.hands:
            settles = h.settles
            if h.even_money is not None:
                em, paid = h.even_money
                if not settles or settles[0][0] > em:
                    for i, again in settles:
                        _twice(
                            ctx,
                            i,
                            h.name,
                            f"Hand {h.name} was already settled by even money; it was settled again.",
                            again.net,
                            how.currency,
                        )
                    continue
                # Settled before it was paid even money: the even money is the second settlement (section 2.2), and
                # the first is judged as any settlement is (any further one by settled_once, below).
                _twice(
                    ctx,
                    em,
                    h.name,
                    f"Hand {h.name} was already settled at event {settles[0][0]}; it was paid even money after.",
                    paid,
                    how.currency,
                )
            if void_at is not None and (h.settled_at is None or h.settled_at > void_at):
                if (
                    h.created_by is None or h.created_by < void_at
                ):  # (a split after the void is its own finding)
                    returned_on_void(t, ctx, h.name, f"Hand {h.name}'s wager", settles, how.currency)
                continue
            if aggregate:
                # (missing and further settlements of a split box against a dealer blackjack: the box, below)
                for i, again in settles[1:]:
                    _twice(
                        ctx,
                        i,
                        h.name,
                        f"Hand {h.name}'s wager was settled more than once.",
                        again.net,
                        how.currency,
                    )
                continue
            if len(settles) == 1:
                once: tuple[int, Settle] | None = settles[0]
            else:
                once = settled_once(
                    t, ctx, settles, _main_wager, h, partial(_due_at_end, t, h, how), how.currency
                )
            if once is None:
                continue
            if h.judged is not None:
                if (
                    h.ace and len(h.cards) == 2
                ):  # (a blackjack, maybe: judged as it arrived, and perhaps too early)
                    _blackjack_before_hole(t, ctx, h, h.at(once[0], t.dbj_known_at))
                continue
            s = h.at(once[0], t.dbj_known_at)
            _blackjack_before_hole(t, ctx, h, s)
            if s.cards < 2 and not s.surrendered and dbj is None and not peeked:
                continue  # a box that never received its cards (once the dealer's blackjack is known, it lost to it)
            # A later dealer card shows the dealer was still to play (a dealer who never did is reported as such).
            early = depends_on_dealer(s) and not dealer_complete(t, s.event, how.h17)
            if early and (s.event < last_dealer or unfinished):
                ctx.emit(
                    "settled_early",
                    s.event,
                    h.name,
                    f"Hand {h.name}'s outcome depends on the dealer's total, but it was settled before the dealer's "
                    "hand was complete.",
                    expected="settled after the dealer's hand is complete",
                    actual=f"settled at event {s.event}, dealer's hand complete at event {last_dealer}"
                    if not unfinished
                    else f"settled at event {s.event}; the round was declared void at event {void_at}",
                )
                if unfinished:
                    continue
            dealer = judged_dealer(t, s.event, how.h17, s)
            if dealer is not None:
                judge(ctx, h, s.event, once[1].net, s.total, s.stake, s.surrendered, s.blackjack, dealer, how)
        if aggregate and t.complete:
            if how.original_only:
                _split_seat_per_bet(t, ctx, seat, how)
            else:
                _split_seat_either(t, ctx, seat, how)


def _twice(ctx: Ctx, i: int, where: str, message: str, net: int, currency: str) -> None:
    """A further settlement of a wager already settled: it should have moved nothing (section 2.2)."""
    ctx.emit(
        "settled_twice",
        i,
        where,
        f"{message[:-1]}; {done(net, currency)} by it." if net else message,
        expected=0,
        actual=net,
        amount_delta=-net if net else None,
    )


def returned_on_void(
    t: Trace, ctx: Ctx, where: str, wager: str, settles: list[tuple[int, Settle]], currency: str
) -> None:
    """A wager still in play when the round was declared void is returned by a ``void`` settlement (section 2.3):
    one won or lost after the void is owed back; one never settled is reported, with no money (its stake is the
    player's)."""
    void = t.void
    assert void is not None
    if not settles:
        if t.complete:
            ctx.emit(
                "void_wager_not_returned",
                None,
                where,
                f"{wager} was in play when the round was declared void at event {void[0]}, and was never returned.",
                expected=0,
                actual=0,
            )
        return
    i, settle = settles[0]
    net = settle.net
    if net:
        ctx.emit(
            "void_wager_not_returned",
            i,
            where,
            f"{wager} was in play when the round was declared void at event {void[0]}, so it is returned; "
            f"{done(net, currency)}.",
            expected=0,
            actual=net,
            amount_delta=-net,
        )
    for j, again in settles[1:]:
        _twice(ctx, j, where, f"{wager} was settled more than once.", again.net, currency)


def _blackjack_before_hole(t: Trace, ctx: Ctx, h: HandState, s: HandAt) -> None:
    """Section 2.1: against a dealer ace or ten, a blackjack's result depends on the dealer's second card (a dealer
    blackjack makes it a stand off). Paid before that card was known, it was settled before the dealer was complete:
    at a table that does not peek (its elections say so), or before the dealer had the card at all. (Where NZ 8.2 is
    bound, paying before the second card was dealt is its finding, not this one.)"""
    if not s.blackjack:
        return
    up = t.dealer_up
    if up is None or not (up[0] == "A" or up[0] in TEN_VALUE):
        return
    second = t.hole
    if second is None or second[1] > s.event:
        if ctx.bound("bj_paid_early"):
            return
    elif t.elections.get("peek") is not False:
        return
    known = t.dealer_second_known_at()
    if second is not None and second[1] < s.event:
        drawn = [e for e in t.dealer_events if e > second[1]]  # (the dealer draws to a hand it has turned up)
        known = min([known, *drawn[:1]]) if known is not None else (drawn[0] if drawn else None)
        if known is None:
            return  # (never shown in the record: nothing says the payment came first)
    if known is not None and known < s.event:
        return
    ctx.emit(
        "settled_early",
        s.event,
        h.name,
        f"Hand {h.name}'s blackjack was settled before the dealer's second card was known, with the dealer showing "
        f"{up}: a dealer blackjack would have made it a stand off.",
        expected="settled once the dealer's second card is known",
        actual=f"settled at event {s.event}",
    )


def _due_at_end(t: Trace, h: HandState, how: Terms) -> int | None:
    """What a hand never settled was owed, as it stands at the end against the dealer's final hand (a surrendered or
    busted hand, and a blackjack against a dealer two to nine, whatever the dealer held)."""
    if len(h.cards) < 2 and h.surrendered_at is None:
        return None
    s = h.at(1 << 30, t.dbj_known_at)
    if len(t.dealer) < 2:
        up = t.dealer_up
        if not (s.surrendered or s.total > 21 or (s.blackjack and up is not None and up[0] not in "AKQJT")):
            return None
        dealer: DealerFacts = (0, False, False)
    else:
        dealer = dealer_facts(t.dealer_judged, t.dealer_up)
    exp = expect(
        s.total, s.stake, h.wager, s.surrendered, s.blackjack, dealer, how.six_five, how.chip, how.up
    )
    if dealer[1] and s.stake > h.wager and not s.blackjack and how.original_only:
        return -h.wager
    return exp.nets[0]


def _judge_unsplit(t: Trace, ctx: Ctx, seat: SeatState, how: Terms) -> None:
    hands = seat.hands
    for h in hands:
        if len(h.settles) != 1:
            settled_once(t, ctx, h.settles, _main_wager, h, None, how.currency)
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
) -> int:
    """Compare a settlement's ``net`` with what the hand (of ``total``, its wagers ``stake`` in all, as it stood
    then) was due against the dealer; report the difference. Returns the net that was due (``net`` when it was)."""
    exp = expect(total, stake, h.wager, surrendered, blackjack, dealer, how.six_five, how.chip, how.up)
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
        return net
    want = min(exp.nets, key=lambda n: abs(n - net))
    role = exp.direction if sign(net) != sign(want) else exp.amount
    why = exp.why.format(pt=exp.pt, dt=exp.dt)
    cur = how.currency
    ctx.emit(
        role,
        i,
        h.name,
        f"Hand {h.name}: {why}, so {due(want, cur)} was due, but {done(net, cur)}.",
        expected=want,
        actual=net,
        amount_delta=want - net,
    )
    return want


T = TypeVar("T")


def _main_wager(h: HandState) -> tuple[str, str]:
    return h.name, f"Hand {h.name}'s wager"


def settled_once(
    t: Trace,
    ctx: Ctx,
    settles: list[tuple[int, Settle]],
    describe: Callable[[T], tuple[str, str]],
    subject: T,
    due_of: Callable[[], int | None] | None = None,
    currency: str = "$",
) -> tuple[int, Settle] | None:
    """A wager's settlement; a missing one, or any after the first, is reported. ``describe(subject)`` gives the
    finding's hand and the wager in words, ``due_of()`` what a settlement would have been owed (the money of a missing
    one, when it can be known); both are called only for a finding. A second settlement should have moved no
    money: what it moved is owed back."""
    if len(settles) == 1:
        return settles[0]
    where, wager = describe(subject)
    if not settles:
        if t.complete:
            owed = due_of() if due_of is not None else None
            ctx.emit(
                "missing_settlement",
                None,
                where,
                f"{wager} was never settled"
                + (f"; {due(owed, currency)} was due." if owed is not None else "."),
                expected=owed,
                actual=0,
                amount_delta=owed if owed else None,
            )
        return None
    for i, again in settles[1:]:
        _twice(ctx, i, where, f"{wager} was settled more than once.", again.net, currency)
    return settles[0]


def _split_seat_per_bet(t: Trace, ctx: Ctx, seat: SeatState, how: Terms) -> None:
    """13:69F-2.11(d), bet by bet (section 2.2): after a dealer blackjack all of a seat's split hands together may
    lose at most the original wager, and (19:47-2.10(b)) nothing of any double. The hands' settlements are read in
    event order, keeping the running total the dealer was entitled to of the hands' stakes: a settlement that takes
    it past the original wager over-collects by the excess (2.11(d)); a hand paid as a win owes back what was still
    collectable from its stake (the settlement key), and counts that; a double collected is owed back (2.10(b));
    and less than the original wager collected in all is reported at the last settlement (or at the hands never
    settled), for the shortfall."""
    cur = how.currency
    dealer = dealer_facts(t.dealer_judged, t.dealer_up)
    wager = seat.wager
    settled = sorted((h.settles[0][0], n, h) for n, h in enumerate(seat.hands) if h.settles)
    running = 0
    for i, _, h in settled:
        net = _counted(h)
        collectable = max(0, wager - running)
        if net > 0:
            # A split hand paid as a win against the dealer's blackjack.
            want = -min(h.wager, collectable)
            s = h.at(i, t.dbj_known_at)
            role = expect(s.total, s.stake, h.wager, False, False, dealer, how.six_five).direction
            ctx.emit(
                role,
                i,
                h.name,
                f"Hand {h.name}: the dealer had blackjack after seat {seat.seat} split, so {due(want, cur)} was due "
                f"from it, but {done(net, cur)}.",
                expected=want,
                actual=net,
                amount_delta=want - net,
            )
            running -= want
            continue
        taken = -net
        double = min(max(0, taken - h.wager), h.doubled) if h.doubles else 0
        if double:
            ctx.emit(
                "dealer_bj_after_double",
                i,
                h.name,
                f"Hand {h.name}: the dealer had blackjack after it doubled, so its double of {money(h.doubled, cur)} "
                f"is returned, but {money(double, cur)} of it was collected.",
                expected=0,
                actual=-double,
                amount_delta=double,
            )
        stake = taken - double
        if stake > collectable:
            ctx.emit(
                "dealer_bj_after_split",
                i,
                h.name,
                f"Hand {h.name}: the dealer had blackjack after seat {seat.seat} split, and only the original wager "
                f"of {money(wager, cur)} may be collected across its hands; "
                + (
                    f"{money(collectable, cur)} of it was still to collect"
                    if collectable
                    else "it was already collected"
                )
                + f", but {money(stake, cur)} was collected here.",
                expected=-collectable,
                actual=-stake,
                amount_delta=stake - collectable,
            )
        running += stake
    short = wager - running
    if short <= 0:
        for h in seat.hands:
            if not h.settles:
                _missing(ctx, h, 0, cur)
        return
    for h in seat.hands:
        if not h.settles:
            part = min(h.wager, short)
            _missing(ctx, h, -part, cur)
            short -= part
    if short > 0 and settled:
        i, _, h = settled[-1]
        net = h.settles[0][1].net
        s = h.at(i, t.dbj_known_at)
        role = expect(s.total, s.stake, h.wager, False, False, dealer, how.six_five).direction
        ctx.emit(
            role,
            i,
            h.name,
            f"The dealer had blackjack after seat {seat.seat} split, so the original wager of {money(wager, cur)} "
            f"was due across its hands, but {money(short, cur)} less was collected.",
            expected=net - short,
            actual=net,
            amount_delta=-short,
        )


def _missing(ctx: Ctx, h: HandState, want: int, cur: str) -> None:
    ctx.emit(
        "missing_settlement",
        None,
        h.name,
        f"Hand {h.name}'s wager was never settled; {due(want, cur)} was due.",
        expected=want,
        actual=0,
        amount_delta=want if want else None,
    )


def _counted(h: HandState) -> int:
    """What a split box against a dealer blackjack counts for a hand's settlement: its net, or, where it was judged
    as it arrived (settled before the box split), the net it was due then: any difference was claimed there, once."""
    return h.settles[0][1].net if h.judged is None else h.judged


def _split_seat_either(t: Trace, ctx: Ctx, seat: SeatState, how: Terms) -> None:
    """Where the rule that decides it is not held (NZ), a dealer blackjack after a split collects either the original
    wager or every wager of the box's hands: judged as a whole, at the box's last settlement."""
    cur = how.currency
    settled = [h.settles[0] for h in seat.hands if h.settles]
    everything = -sum(h.stake for h in seat.hands)
    net = sum(_counted(h) for h in seat.hands if h.settles)
    if len(settled) != len(seat.hands):
        for h in seat.hands:
            if not h.settles:
                # the least it could owe: nothing more once the original wager was collected
                _missing(ctx, h, min(0, max(-h.stake, -seat.wager - net)), cur)
        return
    nets = (-seat.wager, everything)
    if net in nets:
        return
    last = max(i for i, _ in settled)
    want = min(nets, key=lambda n: abs(n - net))
    ctx.emit(
        "dealer_bj_after_split",
        last,
        str(seat.seat),
        f"The dealer had blackjack after seat {seat.seat} split, so {due(want, cur)} was due across its hands, but "
        f"{done(net, cur)}.",
        expected=want,
        actual=net,
        amount_delta=want - net,
    )


def check_blackjack_paid_early(t: Trace, ctx: Ctx) -> None:
    """NZ 8.2: with a dealer ace or ten-value first card, a player blackjack is not paid (or its cards removed)
    "until all other cards have been dealt to the players and the dealer has received his/her second card"; even
    money (8.3) is the exception, against an ace only."""
    up = t.dealer_up
    if up is None or not (up[0] == "A" or up[0] in TEN_VALUE):
        return
    second_at = t.dealer_second_at  # (None: the dealer never received it, so any payment came before it)
    void_at = t.void_at
    for h in t.hand_list:
        # (a wager returned because the round was declared void is no blackjack paid)
        times = [
            i for i, _ in h.settles if (void_at is None or i < void_at) and h.at(i, t.dbj_known_at).blackjack
        ]
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
            elif (later := _player_card_after(t, h, i)) is not None:
                ctx.emit(
                    "bj_paid_early",
                    i,
                    h.name,
                    f"Hand {h.name}'s blackjack was settled before all other cards had been dealt to the players "
                    f"(event {later}), with the dealer showing {up}.",
                    expected="settle after every player's cards",
                    actual=f"settled at event {i}, a player's card at event {later}",
                )


def _player_card_after(t: Trace, h: HandState, i: int) -> int | None:
    """The first card dealt to another player hand after event ``i``."""
    later = [e for x in t.hand_list if x is not h for e in x.events if e > i]
    return min(later, default=None)
