"""Wagers: the table's posted limits (uncited fundamental), and the NJ 13:69F-2.17 additional wagers (found text).

Roles: ``wager_limits``; ``additional_type``, ``additional_amount``, ``additional_outcome``, ``additional_13``,
``additional_timing`` (and ``missing_settlement``, ``settled_twice``, ``lose_amount`` for the additional wager).
"""

from __future__ import annotations

from functools import partial

from app.domain.cards import value
from app.domain.checks.settlement import returned_on_void, settled_once
from app.domain.checks.words import done, money
from app.domain.rules import Ctx
from app.domain.state import SeatState, Trace


def _additional_wager(seat: SeatState) -> tuple[str, str]:
    return str(seat.seat), f"Seat {seat.seat}'s additional wager"


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
    cur = str(ctx.params.get("currency", "$"))
    void_at = t.void_at
    last_initial = max((e for seat in t.seats.values() for _, e in seat.initial()), default=None)
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
                f"Seat {s}'s additional wager was {money(seat.additional_amount, cur)}; it must be exactly "
                f"{money(required, cur)}.",
                expected=required,
                actual=seat.additional_amount,
            )
        settles = seat.additional_settles
        if void_at is not None and (not settles or settles[0][0] > void_at):
            returned_on_void(t, ctx, str(s), f"Seat {s}'s additional wager", settles, cur)
            continue
        first = settled_once(t, ctx, settles, _additional_wager, seat, partial(_due, t, seat), cur)
        if first is None:
            continue
        i, settle = first
        own = [c for c, _ in seat.initial()]
        if len(own) < 2:
            continue
        up = t.dealer_up
        wins = _additional_wins(kind, own, [up] if up else [])
        if wins != (settle.net > 0) or (not wins and settle.net == 0):
            total = sum(value(c) for c in own)
            role = (
                "additional_13" if kind in ("over_13", "under_13") and total == 13 else "additional_outcome"
            )
            # Interpretation: what a winning additional wager pays is on the table's layout, which we do not hold;
            # a winner collected or pushed is owed at least its stake back (expected 0), and its winnings besides.
            want = 0 if wins else -seat.additional_amount
            ctx.emit(
                role,
                i,
                str(s),
                f"Seat {s}'s {kind} additional wager on {'+'.join(own)} "
                f"{'wins' if wins else 'loses'}, but {done(settle.net, cur)}"
                + (
                    "; its stake is owed back, and its winnings at the layout's odds (not held here) besides."
                    if wins
                    else "."
                ),
                expected=want,
                actual=settle.net,
                amount_delta=want - settle.net,
            )
        elif not wins and -settle.net != seat.additional_amount:
            ctx.emit(
                "lose_amount",
                i,
                str(s),
                f"Seat {s}'s losing additional wager of {money(seat.additional_amount, cur)} was collected as "
                f"{money(-settle.net, cur)}.",
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


def _due(t: Trace, seat: SeatState) -> int | None:
    """What an additional wager never settled was owed: its stake, collected, when it lost (what a winner pays is on
    the table's layout, which we do not hold)."""
    own = [c for c, _ in seat.initial()]
    up = t.dealer_up
    if (
        len(own) < 2
        or seat.additional_kind is None
        or _additional_wins(seat.additional_kind, own, [up] if up else [])
    ):
        return None
    return -seat.additional_amount


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
    cur = str(ctx.params.get("currency", "$"))
    for seat in t.seats.values():
        if isinstance(low, int) and seat.wager < low or isinstance(high, int) and seat.wager > high:
            ctx.emit(
                "wager_limits",
                None,
                str(seat.seat),
                f"Seat {seat.seat} wagered {money(seat.wager, cur)}, outside this table's posted limits "
                f"({money(low, cur) if isinstance(low, int) else 'no minimum'} to "
                f"{money(high, cur) if isinstance(high, int) else 'no maximum'}).",
                expected=f"{low if low is not None else ''}..{high if high is not None else ''}",
                actual=seat.wager,
            )
