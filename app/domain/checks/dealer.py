"""The dealer's drawing: NJ 13:69F-2.12(b)-(e) (seed text); NZ's 1994 drawing rule is not held (uncited there).

Roles: ``draw_s17``, ``draw_h17``, ``draw_6to5``, ``draw_hand_dealt``, ``draw_unknown``, ``needless_draw``.
"""

from __future__ import annotations

from app.domain.cards import TEN_VALUE, hand_total, is_natural
from app.domain.cards import VALUES as _VALUE
from app.domain.checks.outcome import draw_regime, stands
from app.domain.rules import Ctx
from app.domain.state import Trace

ROLES: frozenset[str] = frozenset(
    {"draw_s17", "draw_h17", "draw_6to5", "draw_hand_dealt", "draw_unknown", "needless_draw"}
)

_END = 1 << 30


def live(t: Trace, before: int) -> bool:
    """Whether any player hand's outcome still depends on the dealer's total: by the cards it held before event
    ``before`` (or before it was settled, when that came first: later cards are faults of their own), it is neither
    busted nor a blackjack, and it was neither surrendered nor paid even money."""
    for h in t.hand_list:
        if h.surrendered_at is not None or h.even_money is not None:
            continue
        if h.doubles:
            dc = h.double_card()
            if dc is not None and dc[2]:
                r = h.revealed_at(dc[1])
                if r is None or r > before:
                    return True  # 19:47-2.10(c): nobody knows yet whether a face-down double card busted the hand
        cut = before if h.settled_at is None or h.settled_at > before else h.settled_at
        n = hard = 0
        for c, e in zip(h.cards, h.events, strict=True):
            if e >= cut:
                break
            n += 1
            hard += _VALUE[c[0]]
        if n == 0 or hard > 21:
            continue
        if (
            n == 2
            and hard == 11
            and (h.seat_split_at is None or h.seat_split_at > cut)
            and is_natural(h.cards[:2])
        ):
            continue  # a blackjack
        return True
    return False


def _blackjack_waiting(t: Trace) -> str | None:
    """The first hand holding a blackjack whose result waits on the dealer's second card (the dealer showing an ace
    or a ten-value card): neither surrendered nor paid even money."""
    for h in t.hand_list:
        if h.surrendered_at is None and h.even_money is None and h.at(_END, t.dbj_known_at).blackjack:
            return h.name
    return None


def check_dealer_draw(t: Trace, ctx: Ctx) -> None:
    d, at = t.dealer, t.dealer_events
    # (in a voided round the dealer never completes: only the cards it drew are judged)
    finished = t.complete and t.void is None
    if len(d) == 1:
        if not finished:
            return
        if live(t, _END):
            ctx.emit(
                draw_regime(t, ctx)[0],
                None,
                "dealer",
                f"The dealer stopped on a single card ({d[0]}) while player hands were still live; the dealer "
                "must complete the hand.",
                expected="draw to a standing total",
                actual="stood on one card",
            )
        elif (d[0][0] == "A" or d[0][0] in TEN_VALUE) and (bj := _blackjack_waiting(t)):
            ctx.emit(
                draw_regime(t, ctx)[0],
                None,
                "dealer",
                f"The dealer stopped on a single card ({d[0]}) while hand {bj}'s blackjack waited on the "
                "dealer's second card (a blackjack of the dealer's would push it).",
                expected="a second card, to decide the blackjack",
                actual="stood on one card",
            )
        elif any(seat.insurance for seat in t.seats.values()):
            ctx.emit(
                draw_regime(t, ctx)[0],
                None,
                "dealer",
                f"The dealer stopped on a single card ({d[0]}) although insurance was placed; the dealer's second "
                "card decides it.",
                expected="a second card, to decide the insurance",
                actual="stood on one card",
            )
        return
    if len(d) < 2:
        return
    if t.dealer_blackjack:
        for c, e in zip(d[2:3], at[2:3], strict=True):
            ctx.emit(
                draw_regime(t, ctx)[0],
                e,
                "dealer",
                f"The dealer held blackjack and may not draw; {c} was dealt.",
                expected="stand on blackjack",
                actual=f"drew {c}",
            )
        return
    role, h17 = draw_regime(t, ctx)
    for k in range(2, len(d)):
        c, e = d[k], at[k]
        total, soft = hand_total(d[:k])
        if stands(total, soft, h17):
            # Section 2.2: the draw itself carries no money; each settlement is judged against the dealer's hand as
            # it stood before this card, and says what it owes.
            ctx.emit(
                role,
                e,
                "dealer",
                f"The dealer drew {c} on {'soft' if soft else 'hard'} {total}, a total on which this table's "
                f"dealer must stand; the settlements are judged against the dealer's {total}.",
                expected=f"stand on {'soft' if soft else 'hard'} {total}",
                actual=f"drew {c}",
            )
            return
        if ctx.bound("needless_draw") and not live(t, e):
            ctx.emit(
                "needless_draw",
                e,
                "dealer",
                f"The dealer drew {c} although every player hand was already decided and the dealer's total "
                "could not change any outcome.",
                expected="no further dealer card",
                actual=f"drew {c}",
            )
            return
    total, soft = t.dealer_total()
    if finished and stands(total, soft, h17) is False and live(t, _END):
        ctx.emit(
            role,
            None,
            "dealer",
            f"The dealer stopped on {'soft' if soft else 'hard'} {total}, a total on which this table's dealer "
            "must draw; the outcome of the live hands cannot be known.",
            expected=f"draw on {'soft' if soft else 'hard'} {total}",
            actual="stood",
        )
