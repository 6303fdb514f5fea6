"""Splitting pairs: NJ 13:69F-2.11(a), (c)1, (e) (found text); NZ splitting rules not held (uncited there). Judged
by the replay as each split arrives, before it moves the second card to the new hand. The order in which split
hands are played (2.11(b)) is judged with the rest of the order of play, in :mod:`app.domain.checks.play`.

Roles: ``split_pair``, ``split_amount``, ``resplit_not_elected``, ``resplit_limit``, ``resplit_aces``.
"""

from __future__ import annotations

from app.domain.cards import value
from app.domain.checks import play
from app.domain.checks.words import money
from app.domain.rules import Ctx
from app.domain.state import DOUBLED, STOOD, SURRENDERED, HandState, Trace

ROLES: frozenset[str] = frozenset(
    {"split_pair", "split_amount", "resplit_not_elected", "resplit_limit", "resplit_aces"}
)


def on_split(t: Trace, ctx: Ctx, h: HandState, amount: int, i: int) -> bool:
    """Judge a split of ``h`` (still holding both cards); True when the hand's state did not allow it."""
    seat, name, cards = t.seats[h.id[0]], h.name, h.values
    n = len(cards)
    faulted = True
    if n != 2:
        ctx.emit(
            "split_pair",
            i,
            name,
            f"Hand {name} was split holding {n} cards; only a hand's first two cards may be split.",
            expected="split on the first two cards",
            actual=f"{n} cards",
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
    elif (
        t.dbj_known_at is not None
        or h.status in (DOUBLED, STOOD, SURRENDERED)
        or h.settled_at is not None
        or h.doubles
    ):
        play.decision_on_complete_hand(t, ctx, h, "split", i)
    else:
        faulted = False
    if amount != seat.wager:
        cur = str(ctx.params.get("currency", "$"))
        ctx.emit(
            "split_amount",
            i,
            name,
            f"Seat {seat.seat} split with a wager of {money(amount, cur)}; the split wager must equal the original "
            f"wager of {money(seat.wager, cur)}.",
            expected=seat.wager,
            actual=amount,
        )
    hands_before = len(seat.hands)
    if hands_before < 2:
        return faulted
    # A resplit: the seat already had split hands when this split happened.
    e = t.elections
    if not e.get("resplit"):
        if e.get("resplit") is False or ctx.params.get("resplit_default_off"):
            ctx.emit(
                "resplit_not_elected",
                i,
                name,
                f"Hand {name} was split again; this table does not offer resplitting, so a pair may be split only "
                "once (two hands).",
                expected="at most 2 hands",
                actual=f"{hands_before + 1} hands",
            )
        return faulted
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
            f"Seat {seat.seat} split aces a second time; this table prohibits splitting aces more than once.",
            expected="aces split once",
            actual="aces resplit",
        )
    return faulted


def _resplit_limit(boxes: object) -> int:
    # Interpretation (13:69F-2.11(e)): up to three splits (four hands) at tables with up to six boxes, two splits
    # (three hands) at seven. A table with more boxes is not authorised to resplit at all; its election is reported
    # separately, and its hands are held to the seven-box limit here. When the box count is not known, only the
    # four-hand limit that binds every table is checked.
    if not isinstance(boxes, int):
        return 4
    return 4 if boxes <= 6 else 3
