"""Doubling down: NJ 19:47-2.10 (seed text), 13:69F-2.12(a)2; NZ rules 10.x are not held (uncited there).

Roles: ``double_when``, ``double_on_21``, ``double_amount``, ``das_prohibited_6to5``, ``das_prohibited`` (judged by
the replay as the double arrives, :func:`on_double`); ``double_one_card`` (a doubled hand never dealt its card),
``double_card_face``, ``double_card_reveal`` (19:47-2.10(c), at the end of the round).
"""

from __future__ import annotations

from app.domain.checks import play
from app.domain.checks.words import money, plural
from app.domain.rules import Ctx
from app.domain.state import SPLIT_ACE, STOOD, TWENTY_ONE, HandState, Trace

ROLES: frozenset[str] = frozenset(
    {"double_when", "double_on_21", "double_amount", "das_prohibited_6to5", "das_prohibited"}
)
END_ROLES: frozenset[str] = frozenset({"double_one_card", "double_card_face", "double_card_reveal"})


def on_double(t: Trace, ctx: Ctx, h: HandState, amount: int, i: int) -> bool:
    """Judge a double down as it is recorded; True when the hand's state did not allow it (its card is then not
    reported again)."""
    name, n = h.name, len(h.cards)
    faulted = True
    if h.status == SPLIT_ACE:
        # 13:69F-2.12(a)3: split aces "may not elect to receive additional cards"; 2.11(c)2: "no further cards".
        msg = (
            f"Hand {name} is a split ace and may have only one card dealt to it; it doubled down for another."
        )
        ctx.emit("split_aces_draw", i, name, msg, expected="no further card", actual="double down")
        ctx.emit("split_aces_more", i, name, msg, expected="no further card", actual="double down")
    elif h.doubles:
        ctx.emit(
            "double_when",
            i,
            name,
            f"Hand {name} had already doubled down; a hand may double only once.",
            expected="one double per hand",
            actual="second double",
        )
    elif n != 2:
        ctx.emit(
            "double_when",
            i,
            name,
            f"Hand {name} doubled down on {plural(n, 'card')}; a double is allowed only on a hand's first two cards.",
            expected="first two cards",
            actual=plural(n, "card"),
        )
    elif h.status == TWENTY_ONE:
        what = "a blackjack" if h.blackjack else "a two-card 21"
        ctx.emit(
            "double_on_21",
            i,
            name,
            f"Hand {name} doubled down on {what}, which may not be doubled.",
            expected="no double on blackjack or 21",
            actual=f"double on {'+'.join(h.values)}",
        )
    elif t.dbj_known_at is not None or h.status >= STOOD or h.settled_at is not None:
        play.decision_on_complete_hand(t, ctx, h, "doubled down", i)
    else:
        faulted = False
    if amount <= 0 or h.doubled + amount > h.wager:
        cur = str(ctx.params.get("currency", "$"))
        ctx.emit(
            "double_amount",
            i,
            name,
            f"Hand {name} doubled for {money(amount, cur)} on an original wager of {money(h.wager, cur)}; a double "
            "may not exceed the original wager.",
            expected=f"1..{h.wager}",
            actual=amount,
        )
    if (h.created_by is not None or h.splits) and t.elections.get("double_after_split") is False:
        six_five = t.elections.get("blackjack_pays") == "6:5"
        ctx.emit(
            "das_prohibited_6to5" if six_five else "das_prohibited",
            i,
            name,
            f"Hand {name} came from a split, and this table prohibits doubling down after splitting.",
            expected="no double after split",
            actual=f"double of {amount}",
        )
    return faulted


def check_double_cards(t: Trace, ctx: Ctx) -> None:
    """19:47-2.10(c): the double card is dealt face up unless the table deals it face down (always, or at the
    player's request); a face-down card is turned up after the dealer has drawn, when the hand is settled. And
    13:69F-2.12(a)2: a doubled hand receives its one card."""
    if "double" not in t.present:
        return
    mode = t.elections.get("double_card") or "face_up"
    dealer_done = t.dealer_done_at()  # (None: the dealer had no card, so any reveal came before it had drawn)
    void_at = t.void_at
    for h in t.all_hands():
        if not h.doubles or (t.dbj_known_at is not None and h.doubles[0][0] >= t.dbj_known_at):
            continue  # (a double after the dealer's blackjack was known is owed no card: play was over)
        # (a hand voided: its play stopped at the void, and its wagers are returned; what was dealt before still is)
        voided = void_at is not None and (h.settled_at is None or h.settled_at > void_at)
        dc = h.double_card()
        if dc is None:
            if voided:
                continue
            # (a double on 21 - a blackjack, or a split hand's two-card 21 - is void: the hand is owed no card, and a
            # blackjack is judged, and paid, as the blackjack it was)
            doubled = h.at(h.doubles[0][0], t.dbj_known_at)
            if t.complete and not h.split_aces and not (doubled.cards == 2 and doubled.total == 21):
                ctx.emit(
                    "double_one_card",
                    None,
                    h.name,
                    f"Hand {h.name} doubled down but was never dealt its one additional card.",
                    expected="one card after the double",
                    actual="no card",
                )
            continue
        _, at, down = dc
        face = "down" if down else "up"
        if (mode == "face_up" and down) or (mode == "face_down" and not down):
            ctx.emit(
                "double_card_face",
                at,
                h.name,
                f"Hand {h.name}'s double-down card was dealt face {face}; this table deals it "
                f"{mode.replace('_', ' ')}.",
                expected=mode.replace("_", " "),
                actual=f"face {face}",
            )
        if not down or voided:
            continue
        settle_at = h.settles[0][0] if h.settles else None
        revealed_at = h.revealed_at(at)
        if revealed_at is None:
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
        elif dealer_done is None or revealed_at < dealer_done:
            ctx.emit(
                "double_card_reveal",
                revealed_at,
                h.name,
                f"Hand {h.name}'s face-down double-down card was turned up before the dealer finished drawing.",
                expected="after the dealer's cards" if dealer_done is None else f"after event {dealer_done}",
                actual=f"event {revealed_at}",
            )
        elif settle_at is not None and settle_at < revealed_at:
            ctx.emit(
                "double_card_reveal",
                settle_at,
                h.name,
                f"Hand {h.name} was settled before its face-down double-down card was turned up.",
                expected="card turned up at settlement",
                actual=f"settled at event {settle_at}, revealed at event {revealed_at}",
            )
