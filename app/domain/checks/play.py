"""The state of play (``round-v1.md`` section 2.1), judged by the replay as each event arrives: cards and decisions
on complete hands, play after the dealer's blackjack is known, play out of turn, and surrender.

Roles: ``hit_over_21``, ``hit_on_21``, ``double_one_card``, ``split_aces_draw``, ``split_aces_more``,
``card_to_complete_hand``, ``decision_on_complete_hand``, ``play_after_dealer_bj``, ``split_order``,
``play_out_of_turn``, ``surrender_not_offered``, ``surrender_when``; and what real tables also record (section
2.3): ``card_burned_during_play``, ``play_after_void``.

One fault, one finding: a ``hit`` or ``double`` reported here marks its hand so that the card answering it is not
reported again, and an out-of-turn card is reported once per seat (section 2.1: "reported once").

Which reason a finding gives when several apply, most specific first: what the hand's own cards forbid (busted,
21, its one card after a double, a split ace's one card; cited by NJ 13:69F-2.12(a), (a)1-3 and 2.11(c)2); then
the round being over (the dealer's blackjack known); then the hand's own completion (stood, surrendered, settled).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.model import DEALER, target_name
from app.domain.rules import Ctx
from app.domain.state import (
    BUSTED,
    DOUBLE_DEALT,
    DOUBLED,
    OPEN,
    SPLIT_ACE,
    STATUS_NAMES,
    TWENTY_ONE,
    HandState,
    Trace,
)

ROLES: frozenset[str] = frozenset(
    {
        "hit_over_21",
        "hit_on_21",
        "double_one_card",
        "split_aces_draw",
        "split_aces_more",
        "card_to_complete_hand",
        "decision_on_complete_hand",
        "play_after_dealer_bj",
        "split_order",
        "play_out_of_turn",
        "surrender_not_offered",
        "surrender_when",
        "card_burned_during_play",
        "play_after_void",
    }
)


def card_to_complete_hand(t: Trace, ctx: Ctx, h: HandState, card: str | None, i: int) -> None:
    """A card (``card``) or a ``hit`` (``card`` None) on a hand that may not draw."""
    name, total, status = h.name, h.total, h.status
    got = f"{card} was dealt to it" if card else "a hit was recorded on it"
    drew = f"drew {card}" if card else "hit"
    if status == SPLIT_ACE:
        msg = f"Hand {name} is a split ace and may have only one card dealt to it; {got}."
        what = card or "a hit"
        ctx.emit("split_aces_draw", i, name, msg, expected="no further card", actual=what)
        ctx.emit("split_aces_more", i, name, msg, expected="no further card", actual=what)
    elif status == DOUBLE_DEALT:
        ctx.emit(
            "double_one_card",
            i,
            name,
            f"Hand {name} doubled down and had received its one additional card; {got}.",
            expected="one card after the double",
            actual=f"{card} as an extra card" if card else "a hit after the double card",
        )
    elif status == BUSTED:
        ctx.emit(
            "hit_over_21",
            i,
            name,
            f"Hand {name} had already busted with {total} and may not draw; {got}.",
            expected="draws only below 21",
            actual=f"{drew} on {total}",
        )
    elif status == TWENTY_ONE:
        what = "a blackjack" if h.blackjack else "21"
        ctx.emit(
            "hit_on_21",
            i,
            name,
            f"Hand {name} held {what} and may not draw; {got}.",
            expected="no card on 21",
            actual=f"{drew} on {total}",
        )
    elif t.dbj_known_at is not None:
        after_dealer_blackjack(
            t, ctx, name, i, f"{card} was dealt to hand {name}" if card else f"hand {name} hit"
        )
    else:
        ctx.emit(
            "card_to_complete_hand",
            i,
            name,
            f"Hand {name} was complete ({_why_complete(h)}); {got}.",
            expected="no further card",
            actual=f"{drew} on {total}",
        )


def decision_on_complete_hand(t: Trace, ctx: Ctx, h: HandState, what: str, i: int) -> None:
    """A double, split or surrender on a hand whose play is over (the more specific reasons were tried first)."""
    if t.dbj_known_at is not None:
        after_dealer_blackjack(t, ctx, h.name, i, f"hand {h.name} {what}")
        return
    ctx.emit(
        "decision_on_complete_hand",
        i,
        h.name,
        f"Hand {h.name} was complete ({_why_complete(h)}); it {what} nevertheless.",
        expected="no decision on a complete hand",
        actual=what,
    )


def _why_complete(h: HandState) -> str:
    if h.settled_at is not None and h.status <= OPEN:
        return f"settled at event {h.settled_at}"
    return STATUS_NAMES[h.status]


def after_dealer_blackjack(t: Trace, ctx: Ctx, where: str, i: int, what: str) -> None:
    known = t.dbj_known_at
    if known is not None and t.events[known].type == "peek":
        how = f"The peek at event {known} showed the dealer's blackjack"
    else:
        # Section 2.1: at a table that peeks, the peek is taken to have happened (its record is optional).
        how = "This table peeks for blackjack, so the dealer's blackjack was known once the cards were dealt"
    ctx.emit(
        "play_after_dealer_bj",
        i,
        where,
        f"{how}, which ends the round for every hand; {what} after it.",
        expected="no play after the dealer's blackjack is known",
        actual=what,
    )


def after_void(t: Trace, ctx: Ctx, where: str, i: int, what: str) -> None:
    """Section 2.3: after a ``void`` no card is dealt and no decision is taken."""
    void = t.void
    assert void is not None
    ctx.emit(
        "play_after_void",
        i,
        where,
        f"The round was declared void at event {void[0]} ({void[1].replace('_', ' ')}); {what} after it.",
        expected="no play after the round is void",
        actual=what,
    )


def burned_during_play(t: Trace, ctx: Ctx, i: int, card: str) -> None:
    """Section 2.3: a card burned between the first deal and the dealer's complete hand took a card that a hand or
    the dealer would otherwise have received."""
    ctx.emit(
        "card_burned_during_play",
        i,
        None,
        f"{card} was burned while the round was in play; a burn takes the card that a hand or the dealer would "
        "otherwise have received.",
        expected="no burn during play",
        actual=f"burned {card}",
    )


def card_to_left_split_hand(
    t: Trace, ctx: Ctx, h: HandState, waits: HandState, card: str | None, i: int
) -> None:
    """13:69F-2.11(b): a card (or a hit) to split hand ``h``, complete, while another hand of its box, ``waits``, is
    still incomplete: the first incomplete hand is completed before any card goes to any other hand."""
    t.seats[h.id[0]].order_reported = True
    got = f"{card} was dealt to it" if card else "a hit was recorded on it"
    ctx.emit(
        "split_order",
        i,
        waits.name,  # (as every 13:69F-2.11(b) finding: the hand that was to be completed first)
        f"Split hand {h.name} was complete ({_why_complete(h)}) while split hand {waits.name} was still incomplete; "
        f"{got}. The first incomplete split hand is completed before any card goes to any other hand.",
        expected=f"next card to {waits.name}",
        actual=f"{card or 'a hit'} to {h.name}",
    )


def out_of_turn(t: Trace, ctx: Ctx, h: HandState, at: int, i: int) -> None:
    """Hand ``h`` was played again at event ``i`` after the card at event ``at`` went elsewhere: it was not complete
    when that card was dealt. Reported once per seat, at ``at``."""
    seat = t.seats[h.id[0]]
    seat.order_reported = True
    ev = t.events[i]
    what = "a card" if ev.type == "deal" else f"a {ev.type.replace('_', ' ')}"
    premature = t.events[at]
    went = target_name(premature.to)
    where = "the dealer" if went == DEALER else f"hand {went}"
    went_text, before, done = f"A card went to {where}", f"any card to {where}", f"card to {where}"
    if premature.type == "reveal":
        # Section 2.1: in a hole-card game the dealer's play begins with the reveal of the hole card.
        went_text = "The dealer's hole card was turned up"
        before, done = "the dealer's hole card is turned up", "hole card turned up"
    if seat.split:
        ctx.emit(
            "split_order",
            at,
            h.name,
            f"{went_text} while split hand {h.name} was still being played ({what} on it follows at "
            f"event {i}); a split hand must be completed before any other hand is dealt to.",
            expected=f"hand {h.name} completed before {before}",
            actual=f"{done}, then {what} on hand {h.name} at event {i}",
        )
    else:
        ctx.emit(
            "play_out_of_turn",
            at,
            h.name,
            f"{went_text} while hand {h.name} was still being played ({what} on it follows at event "
            f"{i}); boxes are played in seat order, each hand completed before the next, the dealer last.",
            expected=f"hand {h.name} completed before {before}",
            actual=f"{done}, then {what} on hand {h.name} at event {i}",
        )


def card_while_split_waits(
    t: Trace, ctx: Ctx, waiting: Sequence[HandState], target: HandState | None, i: int
) -> None:
    """13:69F-2.11(b): no card to any other hand while a split hand waits for its second card; among a seat's split
    hands, the hand that was split (the one on the dealer's left) gets its next card first."""
    for w in waiting:
        seat = t.seats[w.id[0]]
        if w is target or seat.order_reported:
            continue
        tname = "the dealer" if target is None else target.name
        if target is None or target.id[0] != w.id[0]:
            seat.order_reported = True
            ctx.emit(
                "split_order",
                i,
                w.name,
                f"A card went to {tname} while split hand {w.name} was still incomplete; a split hand must be "
                "completed before any other hand is dealt to.",
                expected=f"next card to {w.name}",
                actual=f"card to {tname}",
            )
        elif w.splits:
            seat.order_reported = True
            ctx.emit(
                "split_order",
                i,
                w.name,
                f"A card went to {tname} before split hand {w.name}, the hand on the dealer's left, was completed.",
                expected=f"next card to {w.name}",
                actual=f"card to {tname}",
            )


def on_surrender(t: Trace, ctx: Ctx, h: HandState, i: int) -> bool:
    """Judge a surrender; True when the hand's state did not allow it."""
    name = h.name
    if t.elections.get("surrender") == "none":
        ctx.emit(
            "surrender_not_offered",
            i,
            name,
            f"Hand {name} surrendered half its wager after the cards were dealt, at a table that does not offer "
            "surrender.",
            expected="no surrender",
            actual="surrender",
        )
    if t.dbj_known_at is not None:
        after_dealer_blackjack(t, ctx, name, i, f"hand {name} surrendered")
        return True
    n = len(h.cards)
    if h.status != OPEN or n != 2 or h.seat_split_at is not None or h.doubles or h.settled_at is not None:
        ctx.emit(
            "surrender_when",
            i,
            name,
            f"Hand {name} surrendered "
            + (
                f"when it was already complete ({_why_complete(h)})"
                if h.status > DOUBLED or h.settled_at is not None
                else "after acting on it"
            )
            + "; surrender is only on the first two cards before any other decision.",
            expected="surrender on the first two cards",
            actual=f"surrender with {n} card{'s' if n != 1 else ''}",
        )
        return True
    return False
