"""The replay: a state machine of play, folded over a round's events (``round-v1.md`` section 2.1).

Each event is checked against the state it arrives in, once, here, and then advances it: a card to a hand that is
complete, a decision the hand's state does not allow, play after the dealer's blackjack is known, play out of turn
(:mod:`app.domain.checks.play`, ``.doubling``, ``.splitting``). What can only be judged at the end (settlements,
the dealer's drawing, insurance) is judged by the end-of-round checks on the state the replay leaves
(:class:`~app.domain.state.Trace`).

Where the record contradicts itself (a card to a hand that does not exist, more copies of a card than the shoe
holds, a reveal of a card never dealt face down, a settlement of a bet never placed) the replay notes a *record
problem* and skips the event; a round with record problems is unreplayable, and the engine replays it again only
up to the first of them (``stop``) to keep what was established before it.

Play order, as the state tracks it: boxes in seat order (seat 1 is first base), each box's hands one at a time,
the dealer after every box. A hand is *left* when a card goes to another hand of its seat while it is in play, and
*passed* when a card goes to a later seat or to the dealer; a later card or decision on a hand that was not
complete when it was left or passed shows play went out of turn, and is reported once per seat, at the card that
went elsewhere.

The fold is :func:`replay`; each kind of event has its own function below (a player's card, the dealer's card, a
settlement, each decision), reading and advancing the replay's progress (:class:`Progress`) and the trace.
"""

from __future__ import annotations

from typing import Any

from app.domain.cards import VALUES, is_natural
from app.domain.checks import dealer, doubling, play, settlement, splitting
from app.domain.checks.outcome import DealerFacts
from app.domain.model import (
    DEALER,
    Burn,
    Deal,
    Double,
    EvenMoney,
    HandId,
    Hit,
    Insurance,
    Peek,
    Reveal,
    Round,
    Settle,
    Split,
    Stand,
    Surrender,
    Void,
    hand_name,
    target_name,
)
from app.domain.rules import Ctx
from app.domain.state import (
    DEALING,
    DOUBLED,
    OPEN,
    STOOD,
    SURRENDERED,
    TWENTY_ONE,
    HandState,
    RecordProblem,
    SeatState,
    Trace,
)

__all__ = ["Trace", "replay"]

_HOLE_CARD_GAME: dict[str, bool] = {"initial_deal": True, "after_players": False}
_DECISIONS = frozenset({"double", "split", "surrender", "hit", "stand", "insurance", "even_money"})
_AFTER_VOID = {"double": "doubled", "split": "split", "surrender": "surrendered", "hit": "hit"}
_NOWHERE = Ctx({}, {})


class Progress:
    """Where the replay stands between two events: what the trace does not keep once the fold is done.

    It points at the trace and the findings; nothing points back at it, so it is freed with the fold."""

    __slots__ = (
        "t",
        "ctx",
        "decks",
        "hole_game",
        "counts",
        "owed",
        "initial_open",
        "initial_end",
        "later_card",
        "later_player",
        "dealer_play_at",
        "dbj_known_at",
        "waiting",
        "played",
        "top_seat",
        "present",
        "how",
        "dealer_hard",
        "dealer_ace",
        "dealer_facts",
        "dealer_done",
        "dealer_hidden",
        "peek_table",
        "implied_bj",
        "void_at",
    )

    def __init__(self, t: Trace, ctx: Ctx, elections: dict[str, Any]) -> None:
        self.t = t
        self.ctx = ctx
        self.decks = int(elections.get("decks") or 8)
        # Whether the dealer's second card belongs to the initial deal (a hole card): the table's election says so;
        # without one, a face-down card among the dealer's first two makes it a hole-card game (in either order).
        self.hole_game: bool | None = _HOLE_CARD_GAME.get(str(elections.get("dealer_second_card")))
        self.counts: dict[str, int] = {}
        self.owed = 2 * len(t.seats)  # initial cards still owed to the boxes' original hands
        self.initial_open = True  # still inside the initial deal
        self.initial_end: int | None = None
        self.later_card: int | None = None  # the first card after the initial deal
        self.later_player: int | None = None  # the first card to a player hand after the initial deal
        self.dealer_play_at: int | None = None
        self.dbj_known_at: int | None = None
        self.waiting: list[HandState] = []  # split hands still owed their second card
        self.played: dict[int, int] = {}  # seat -> its first card after the initial deal
        self.top_seat = 0  # the highest seat dealt a card after the initial deal
        self.present: set[str] = set()
        # What settlements are judged by (once the dealer has two cards).
        self.how: settlement.Terms | None = None
        self.dealer_hard = 0
        self.dealer_ace = False
        # The dealer's total, whether a blackjack, whether the up card is an ace or a ten.
        self.dealer_facts: DealerFacts = (0, False, False)
        # The dealer's hand is complete by rule: its cards stand (or the dealer's blackjack is known) ...
        self.dealer_done = False
        # ... and once none of them lies face down, settlements are judged as they arrive.
        self.dealer_hidden = 0
        # Section 2.1: at a table that peeks, the peek is taken to have happened, recorded or not ...
        self.peek_table = elections.get("peek") is True
        # ... so a dealer blackjack dealt in the initial deal is known before the players act.
        self.implied_bj = False
        self.void_at: int | None = None


def replay(
    round_: Round, elections: dict[str, Any], ctx: Ctx | None = None, stop: int | None = None
) -> Trace:
    """Fold the events (those before ``stop`` only, when given) into the state of play; findings about the sequence
    of play go to ``ctx`` as they are found."""
    t = Trace(round_, elections)
    seats, hands, hand_list = t.seats, t.hands, t.hand_list
    for sw in round_.seats:
        extra = sw.additional
        box = SeatState(sw.seat, sw.wager, extra.kind if extra else None, extra.amount if extra else 0)
        first = HandState((sw.seat, 1), sw.wager)
        box.hands.append(first)
        seats[sw.seat] = box
        hands[first.id] = first
        hand_list.append(first)
    p = Progress(t, ctx or _NOWHERE, elections)

    events = round_.events if stop is None else round_.events[:stop]
    for i, ev in enumerate(events):
        if type(ev) is Deal:
            _deal(p, i, ev)
            continue
        kind = ev.type
        p.present.add(kind)
        judging: Ctx | None = None
        if kind in _DECISIONS:
            if p.void_at is not None and _decided_after_void(p, i, ev):
                # (reported; the wager it places is still in play, to be returned: the state follows it, unjudged)
                judging, p.ctx = p.ctx, _NOWHERE
            if p.implied_bj and p.dbj_known_at is None and kind not in ("insurance", "even_money"):
                _blackjack_known(p, i)
            if p.initial_end is not None:
                # A decision ends the initial deal. A peek, a reveal (a hand-dealt player turning up its cards) or
                # a settlement (a losing additional wager collected before the hole card, 13:69F-2.17(d)) does not.
                p.initial_open = False
        if type(ev) is Settle:
            _settle(p, i, ev)
        elif type(ev) is Stand:
            _stand(p, i, ev)
        elif type(ev) is Hit:
            _hit(p, i, ev)
        elif type(ev) is Reveal:
            _reveal(p, i, ev)
        elif type(ev) is Double:
            _double(p, i, ev)
        elif type(ev) is Split:
            _split(p, i, ev)
        elif type(ev) is Surrender:
            _surrender(p, i, ev)
        elif type(ev) is Peek:
            _peek(p, i, ev)
        elif type(ev) is Insurance:
            _insurance(p, i, ev)
        elif type(ev) is EvenMoney:
            _even_money(p, i, ev)
        elif type(ev) is Burn:
            _burn(p, i, ev)
        elif type(ev) is Void:
            _void(p, i, ev)
        if judging is not None:
            p.ctx = judging

    t.initial_end = p.initial_end
    t.first_later_card = p.later_card
    t.first_later_player_card = p.later_player
    t.present = frozenset(p.present)
    t.complete = stop is None
    return t


# The events, one function each. They take the replay's progress as an argument: nested functions closing over the
# replay's locals would, compiled by mypyc, hold its whole state in a reference cycle (mypyc keeps a function's
# closures in one environment object that also holds them), left to the garbage collector after every audit
# (tests/unit/test_compiled_engine.py: no audit leaves cyclic garbage).


def _deal(p: Progress, i: int, ev: Deal) -> None:
    """A card leaves the shoe, to a player hand or to the dealer."""
    t = p.t
    to, card = ev.to, ev.card
    n = p.counts.get(card, 0) + 1
    p.counts[card] = n
    if n > p.decks:
        _too_many(p, i, card, n, target_name(to))
        return
    h = t.hands.get(to)  # type: ignore[arg-type]
    if h is None and to != DEALER:
        _hand_of(t, i, to, "A deal")  # type: ignore[arg-type]
        return
    if p.void_at is not None:
        play.after_void(t, p.ctx, target_name(to), i, f"{card} was dealt to {target_name(to)}")
        return
    down = ev.face == "down"
    if h is not None:
        _player_card(p, i, h, card, down)
    else:
        _dealer_card(p, i, card, down)


def _too_many(p: Progress, i: int, card: str, n: int, where: str | None) -> None:
    """More copies of a card than the decks hold contradict the record."""
    decks = p.decks
    _problem(
        p.t,
        i,
        where,
        f"{card} leaves the shoe for the {_nth(n)} time, but {decks} deck"
        f"{'s hold' if decks > 1 else ' holds'} only {decks} of it.",
        decks,
        n,
    )


def _player_card(p: Progress, i: int, h: HandState, card: str, down: bool) -> None:
    t, ctx = p.t, p.ctx
    cards = h.cards
    if p.initial_open and p.dbj_known_at is None:  # (after a known dealer blackjack no card is owed)
        if h.id[1] == 1 and len(cards) < 2 and not h.splits and not h.doubles:
            # One of a box's two initial cards (HandState.take, unrolled: the commonest event).
            cards.append(card)
            h.events.append(i)
            v = VALUES[card[0]]
            h.hard += v
            if v == 1:
                h.ace = True
            if down:
                h.down = {i: None} if h.down is None else {**h.down, i: None}
            if len(cards) == 2:
                h.status = TWENTY_ONE if h.ace and h.hard == 11 else OPEN
            p.owed -= 1
            if p.owed == 0 and t.dealer and _up_dealt(t):
                p.initial_end = i
            return
        p.initial_open = False
    # A card after the initial deal.
    if p.implied_bj and p.dbj_known_at is None:
        _blackjack_known(p, i)
    if p.later_player is None:
        p.later_player = i  # (13:69F-2.17(d): a further card to a player, even inside a broken deal)
        if p.later_card is None and p.initial_end is not None:
            p.later_card = i
    waiting = p.waiting
    if waiting:
        play.card_while_split_waits(t, ctx, waiting, h, i)
    seat = t.seats[h.id[0]]
    current = seat.current
    if current is not h:
        if current is not None and current.left_at is None:
            current.left_at = i
        seat.current = h
    sn = seat.seat
    if sn not in p.played:
        p.played[sn] = i
        if sn > p.top_seat:
            p.top_seat = sn
    if h.fault_pending:
        h.fault_pending = False  # the card of a hit or double already reported
    elif h.status >= STOOD or h.settled_at is not None or p.dbj_known_at is not None:
        _to_complete_hand(p, h, card, i)
    elif not seat.order_reported and (
        h.left_at is not None or p.dealer_play_at is not None or p.top_seat > sn
    ):
        _in_turn(p, h, i)
    h.take(card, i, down)
    if waiting and len(cards) == 2 and h in waiting:
        waiting.remove(h)


def _dealer_card(p: Progress, i: int, card: str, down: bool) -> None:
    """The dealer's initial cards: its first, and in a hole-card game its second (the hole card, even when a
    decision came before it: an insurance wager or an additional wager's settlement); then the dealer's play."""
    t = p.t
    dealer, dealer_events = t.dealer, t.dealer_events
    nd = len(dealer)
    if down:
        t.dealer_down[i] = None
        p.dealer_hidden += 1
    dealer.append(card)
    dealer_events.append(i)
    v = VALUES[card[0]]
    p.dealer_hard += v
    p.dealer_ace = p.dealer_ace or v == 1
    if nd >= 1 and not p.dealer_done:
        # Once complete by rule, the dealer's hand is what settlements are judged against: a card drawn after that
        # is forbidden and changes none of them (section 2.2).
        if p.how is None:
            p.how = settlement.terms(t, p.ctx)
        soft = p.dealer_ace and p.dealer_hard <= 11
        total = p.dealer_hard + 10 if soft else p.dealer_hard
        facts = p.dealer_facts
        up = facts[2] if nd > 1 else _ACE_TEN.get((t.dealer_up or "x")[0], False)
        facts = p.dealer_facts = (total, facts[1] if nd > 1 else total == 21, up)
        if facts[1] or total >= 18 or total == 17 and (not soft or p.how.h17 is False):
            p.dealer_done = True
            t.dealer_cut = nd + 1
    if nd == 0:
        initial = True
    elif nd == 1:
        t.dealer_second_at = i
        hole_game = p.hole_game
        initial = hole_game if hole_game is not None else (down or dealer_events[0] in t.dealer_down)
        if initial and p.peek_table and p.dealer_facts[1] and p.dbj_known_at is None:
            p.implied_bj = True
    else:
        initial = False
    if initial:
        if p.owed == 0 and _up_dealt(t):
            p.initial_end = i
        return
    p.initial_open = False
    if p.initial_end is not None and p.later_card is None:
        p.later_card = i
    if p.waiting:
        play.card_while_split_waits(t, p.ctx, p.waiting, None, i)
    if p.dealer_play_at is None:
        p.dealer_play_at = t.dealer_play_at = i


def _settle(p: Progress, i: int, ev: Settle) -> None:
    t = p.t
    if ev.corrects is not None:
        _correction(p, i, ev)
        return
    if ev.bet == "main":
        h = t.hands.get(ev.hand)  # type: ignore[arg-type]
        if h is None:
            _hand_of(t, i, ev.hand, "A settlement")  # type: ignore[arg-type]
            return
        h.settles.append((i, ev))
        if h.settled_at is None:
            h.settled_at = i
            shown = p.dealer_hidden == 0 or p.dbj_known_at is not None or p.implied_bj
            if p.dealer_done and shown and p.void_at is None:
                settlement.on_settle(t, p.ctx, h, i, ev, p.dealer_facts, p.how)  # type: ignore[arg-type]
        return
    s = _seat_of(t, i, ev.seat, f"An {ev.bet} settlement")  # type: ignore[arg-type]
    if s is None:
        return
    if ev.bet == "insurance":
        if not s.insurance:
            _problem(t, i, str(ev.seat), f"Settlement of seat {ev.seat}'s insurance, which was never placed.")
            return
        s.insurance_settles.append((i, ev))
    else:
        if s.additional_kind is None:
            _problem(
                t,
                i,
                str(ev.seat),
                f"Settlement of seat {ev.seat}'s additional wager, which was never placed.",
            )
            return
        s.additional_settles.append((i, ev))


def _correction(p: Progress, i: int, ev: Settle) -> None:
    """A settlement the table corrected (section 2.3): it replaces the earlier settle of the same bet that it names
    (or, through an earlier correction, the settle that one corrected); only the last correction counts. Anything
    else it could name contradicts the record."""
    t = p.t
    k = ev.corrects
    assert k is not None
    target = t.events[k] if k < i else None
    bet = "hand " + hand_name(ev.hand) if ev.hand is not None else f"seat {ev.seat}"
    where = hand_name(ev.hand) if ev.hand is not None else str(ev.seat)
    if (
        type(target) is not Settle
        or target.bet != ev.bet
        or target.hand != ev.hand
        or target.seat != ev.seat
        or (target.corrects is None and not _settled_here(t, k, ev))
        or (target.corrects is not None and k not in t.correction_of)
    ):
        _problem(
            t,
            i,
            where,
            f"This settlement corrects event {k}, which is not an earlier settlement of the {ev.bet} bet of "
            f"{bet}.",
        )
        return
    original = t.correction_of.get(k, k)
    t.corrections[original] = (i, ev)
    t.correction_of[i] = original


def _settled_here(t: Trace, k: int, ev: Settle) -> bool:
    """Whether event ``k`` was taken as a settlement of the bet ``ev`` settles (not skipped as a contradiction)."""
    if ev.bet == "main":
        h = t.hands.get(ev.hand)  # type: ignore[arg-type]
        return h is not None and any(e == k for e, _ in h.settles)
    s = t.seats.get(ev.seat)  # type: ignore[arg-type]
    if s is None:
        return False
    settles = s.insurance_settles if ev.bet == "insurance" else s.additional_settles
    return any(e == k for e, _ in settles)


def _stand(p: Progress, i: int, ev: Stand) -> None:
    if (h := _hand_of(p.t, i, ev.hand, "A stand")) is None:
        return
    # A stand on a hand already complete (or not yet dealt its cards) decides nothing.
    if h.status == OPEN and h.settled_at is None and p.dbj_known_at is None:
        _in_turn(p, h, i)
        h.status = STOOD


def _hit(p: Progress, i: int, ev: Hit) -> None:
    if (h := _hand_of(p.t, i, ev.hand, "A hit")) is None:
        return
    if h.status >= STOOD or h.settled_at is not None or p.dbj_known_at is not None:
        _to_complete_hand(p, h, None, i)
        h.fault_pending = True
    elif h.status == OPEN:
        _in_turn(p, h, i)


def _reveal(p: Progress, i: int, ev: Reveal) -> None:
    t = p.t
    if ev.to == DEALER:
        pool, downs, order = t.dealer, t.dealer_down, t.dealer_events
    else:
        if (h := _hand_of(t, i, ev.to, "A reveal")) is None:  # type: ignore[arg-type]
            return
        pool, downs, order = h.cards, h.down or {}, h.events
    for c, e in zip(pool, order, strict=True):
        if c == ev.card and downs.get(e, 0) is None:
            downs[e] = i
            if ev.to == DEALER:
                p.dealer_hidden -= 1
            if ev.to == DEALER and p.dealer_play_at is None and p.dbj_known_at is None and p.void_at is None:
                # Section 2.1: in a hole-card game the dealer's play begins with the reveal of the hole card.
                p.initial_open = False
                p.dealer_play_at = t.dealer_play_at = i
            return
    _problem(
        t,
        i,
        target_name(ev.to),
        f"Reveal of {ev.card} to {target_name(ev.to)}, but no such card was dealt face down there (or it was "
        "already revealed).",
    )


def _double(p: Progress, i: int, ev: Double) -> None:
    if (h := _hand_of(p.t, i, ev.hand, "A double")) is None:
        return
    on_21 = h.status == TWENTY_ONE and len(h.cards) == 2
    if doubling.on_double(p.t, p.ctx, h, ev.amount, i):
        # One fault, one finding: the card answering a double the hand's state did not allow is not reported
        # again, unless the double was on 21 (19:47-2.10(a)): the double is void, and the card then dealt is a draw
        # on 21, which another provision forbids (13:69F-2.12(a)1), at another event.
        h.fault_pending = not on_21
    elif h.status == OPEN:
        _in_turn(p, h, i)
    h.doubles.append((i, ev.amount))
    if h.status != SURRENDERED and not on_21:
        h.status = DOUBLED


def _split(p: Progress, i: int, ev: Split) -> None:
    t = p.t
    if (h := _hand_of(t, i, ev.hand, "A split")) is None:
        return
    if len(h.cards) < 2:
        _problem(
            t, i, h.name, f"Split of hand {h.name}, which holds {len(h.cards)} card(s): nothing to split."
        )
        return
    s = t.seats[h.id[0]]
    faulted = splitting.on_split(t, p.ctx, h, ev.amount, i)
    if not faulted and h.status != DEALING:
        _in_turn(p, h, i)
    new = HandState((s.seat, len(s.hands) + 1), ev.amount, created_by=i)
    if h.seat_split_at is None:
        for x in s.hands:
            x.seat_split_at = i
    new.seat_split_at = h.seat_split_at
    moved, moved_at = h.give_second()
    new.cards.append(moved)
    new.events.append(moved_at)
    new.hard, new.ace = VALUES[moved[0]], moved[0] == "A"
    if h.down is not None and moved_at in h.down:
        new.down = {moved_at: h.down.pop(moved_at)}
    h.split_aces = new.split_aces = h.split_aces or (h.cards[0][0] == "A" and moved[0] == "A")
    h.splits.append(i)
    s.hands.append(new)
    t.hands[new.id] = new
    t.hand_list.insert(t.hand_list.index(s.hands[-2]) + 1, new)
    if len(h.cards) < 2:
        p.waiting.append(h)
    p.waiting.append(new)
    if faulted:
        h.fault_pending = new.fault_pending = True


def _surrender(p: Progress, i: int, ev: Surrender) -> None:
    if (h := _hand_of(p.t, i, ev.hand, "A surrender")) is None:
        return
    if not play.on_surrender(p.t, p.ctx, h, i) and h.status == OPEN:
        _in_turn(p, h, i)
    h.surrendered_at = i
    h.status = SURRENDERED


def _peek(p: Progress, i: int, ev: Peek) -> None:
    t = p.t
    dealer = t.dealer
    t.peeks.append((i, ev.dealer_blackjack))
    if len(dealer) < 2:
        _problem(t, i, DEALER, "A peek at the hole card is recorded before the dealer had a second card.")
        return
    natural = is_natural(dealer[:2])
    if natural != ev.dealer_blackjack:
        _problem(
            t,
            i,
            DEALER,
            f"The peek says the dealer {'has' if ev.dealer_blackjack else 'does not have'} blackjack, but the "
            f"dealer's cards are {dealer[0]} and {dealer[1]}.",
            expected=not ev.dealer_blackjack,
            actual=ev.dealer_blackjack,
        )
        return
    if natural and p.dbj_known_at is None:
        # The round is over for every hand: each is settled by the cards it holds now.
        p.dbj_known_at = t.dbj_known_at = i
        p.dealer_done = True


def _insurance(p: Progress, i: int, ev: Insurance) -> None:
    if (s := _seat_of(p.t, i, ev.seat, "Insurance")) is not None:
        if p.dbj_known_at is not None:
            play.after_dealer_blackjack(p.t, p.ctx, str(s.seat), i, "an insurance wager was placed")
        s.insurance.append((i, ev.amount))


def _even_money(p: Progress, i: int, ev: EvenMoney) -> None:
    t = p.t
    if (s := _seat_of(t, i, ev.seat, "Even money")) is None:
        return
    h = s.hands[0]
    if h.even_money is not None:
        _problem(t, i, h.name, f"Even money is recorded twice for seat {ev.seat}.")
        return
    if p.dbj_known_at is not None:
        play.after_dealer_blackjack(t, p.ctx, h.name, i, "even money was paid")
    h.even_money = (i, ev.amount)
    if h.settled_at is None:
        h.settled_at = i


def _burn(p: Progress, i: int, ev: Burn) -> None:
    """A card burned (section 2.3): it counts toward the shoe and no hand. Burns before the first deal, once the
    dealer's hand is complete or needs no card, or after a void are the shoe's business; any other took a card
    that a hand or the dealer would otherwise have received."""
    t = p.t
    n = p.counts.get(ev.card, 0) + 1
    p.counts[ev.card] = n
    if n > p.decks:
        _too_many(p, i, ev.card, n, None)
        return
    dealt = bool(t.dealer) or p.owed < 2 * len(t.seats) or p.later_player is not None
    if dealt and p.void_at is None and not _dealer_complete_now(p, i):
        play.burned_during_play(t, p.ctx, i, ev.card)


def _dealer_complete_now(p: Progress, i: int) -> bool:
    """Whether the dealer's hand is complete at event ``i``: its play begun, it stands or busted by rule (a soft 17
    where the table's option is not known counts as standing), or it needs no card because every box is already
    decided (and no blackjack or insurance waits on its second card)."""
    t = p.t
    if p.dbj_known_at is not None:
        return True
    facts = p.dealer_facts
    how = p.how
    stands = p.dealer_done or (how is not None and how.h17 is None and facts[0] == 17 and len(t.dealer) >= 2)
    if stands and p.dealer_play_at is not None:
        return True
    if p.initial_end is None or dealer.live(t, i):
        return False
    if len(t.dealer) >= 2:
        return True
    up = t.dealer_up
    if up is not None and _ACE_TEN.get(up[0], False):
        for h in t.hand_list:
            if h.surrendered_at is None and h.even_money is None and h.blackjack:
                return False
    return not any(seat.insurance for seat in t.seats.values())


def _void(p: Progress, i: int, ev: Void) -> None:
    """The round is declared void (section 2.3): from here no card is dealt and no decision is taken, and every
    wager still in play is returned."""
    if p.void_at is None:
        p.void_at = i
        p.t.void = (i, ev.reason)


def _decided_after_void(p: Progress, i: int, ev: Any) -> bool:
    """A player decision after the void is a finding of its own (section 2.3); True when ``ev`` was one (a stand on a
    hand already complete decides nothing, and even money is judged as the settlement it is)."""
    t = p.t
    kind = ev.type
    if kind == "even_money":
        return False
    if kind == "insurance":
        if ev.seat in t.seats:
            play.after_void(t, p.ctx, str(ev.seat), i, f"seat {ev.seat} placed insurance")
        return True
    h = t.hands.get(ev.hand)
    if h is not None and (kind != "stand" or (h.status == OPEN and h.settled_at is None)):
        play.after_void(t, p.ctx, h.name, i, f"hand {h.name} {_AFTER_VOID.get(kind, 'stood')}")
    return True


def _blackjack_known(p: Progress, i: int) -> None:
    """At a table that peeks, a dealer blackjack dealt in the initial deal was known before the players acted, peek
    recorded or not (section 2.1): the first player card or decision after the initial deal finds the round over."""
    p.dbj_known_at = p.t.dbj_known_at = i
    p.dealer_done = True


def _to_complete_hand(p: Progress, h: HandState, card: str | None, i: int) -> None:
    """A card (``card``) or a hit (``card`` None) on a complete hand. Where its only reason is the hand's own
    completion (it stood, surrendered or was settled) while another hand of its box still waits for a card,
    13:69F-2.11(b) applies to the split hands, and a verified provision is cited before a fundamental (section 2.1)."""
    t = p.t
    seat = t.seats[h.id[0]]
    if (
        seat.split
        and p.dbj_known_at is None
        and not seat.order_reported
        and (h.status in (STOOD, SURRENDERED) or h.status <= DOUBLED)
    ):
        for other in seat.hands:
            # (a hand still owed a card; one with its cards that play moved on from stood, implicitly)
            if other is not h and other.settled_at is None and other.status in (DEALING, DOUBLED):
                play.card_to_left_split_hand(t, p.ctx, h, other, card, i)
                return
    play.card_to_complete_hand(t, p.ctx, h, card, i)


# Helpers


def _problem(
    t: Trace, i: int, where: str | None, message: str, expected: Any = None, actual: Any = None
) -> None:
    t.problems.append(RecordProblem(i, where, message, expected, actual))


def _hand_of(t: Trace, i: int, hid: HandId, what: str) -> HandState | None:
    h = t.hands.get(hid)
    if h is None:
        seat = t.seats.get(hid[0])
        name = hand_name(hid)
        if seat is None:
            _problem(t, i, name, f"{what} names hand {name}, but seat {hid[0]} placed no wager.")
        else:
            n = len(seat.hands)
            _problem(
                t,
                i,
                name,
                f"{what} names hand {name}, but seat {hid[0]} has only {n} hand{'s' * (n > 1)} at this point.",
            )
    return h


def _seat_of(t: Trace, i: int, seat: int, what: str) -> SeatState | None:
    s = t.seats.get(seat)
    if s is None:
        _problem(t, i, str(seat), f"{what} names seat {seat}, which placed no wager.")
    return s


def _up_dealt(t: Trace) -> bool:
    """Whether the dealer has a card face up (the initial deal is not complete before)."""
    return any(e not in t.dealer_down for e in t.dealer_events[:2])


def _in_turn(p: Progress, h: HandState, i: int) -> None:
    """A card or decision on an incomplete hand: had play already gone past it (to another hand of its seat, a
    later seat or the dealer)? Then it is reported, once per seat, at the card that went elsewhere."""
    n = h.id[0]
    t = p.t
    dealer_play_at, top_seat = p.dealer_play_at, p.top_seat
    if t.seats[n].order_reported or (h.left_at is None and dealer_play_at is None and top_seat <= n):
        return
    marks = [e for e in (h.left_at, dealer_play_at) if e is not None]
    if top_seat > n:
        marks.extend(e for s, e in p.played.items() if s > n)
    play.out_of_turn(t, p.ctx, h, min(marks), i)


_ACE_TEN = {"A": True, "T": True, "J": True, "Q": True, "K": True}


def _nth(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
