"""The replay: a fold over a round's events that rebuilds what was on the table after each one.

The replay judges nothing about the dealer's conduct; it only establishes the facts the rule checks read (which
card went where and why, which hands exist, what was wagered and settled, and when). Where the record contradicts
itself (a card to a hand that does not exist, more copies of a card than the shoe holds, a reveal of a card never
dealt face down, a settlement of a bet never placed) it notes a *record problem* and skips the event; a round with
record problems is unreplayable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from app.domain.cards import hand_total, is_natural
from app.domain.model import (
    DEALER,
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
    hand_name,
    target_name,
)

CardKind = Literal["initial", "split", "double", "draw"]
"""Why a card reached a player hand: the initial deal, a split hand's second card, the one card after a double,
or a draw (hit). For the dealer: "initial" for the first two cards, "draw" after."""


@dataclass(slots=True)
class CardAt:
    card: str
    event: int
    face: str
    kind: CardKind
    revealed_at: int | None = None


@dataclass(slots=True)
class HandState:
    id: HandId
    wager: int
    cards: list[CardAt] = field(default_factory=list)
    created_by: int | None = None  # event index of the split that created it (None: an original hand)
    split_aces: bool = False
    doubles: list[tuple[int, int]] = field(default_factory=list)  # (event, amount)
    double_pending: bool = False
    surrendered_at: int | None = None
    even_money: tuple[int, int] | None = None  # (event, amount)
    settles: list[tuple[int, Settle]] = field(default_factory=list)
    splits: list[int] = field(default_factory=list)  # events at which this hand was split
    blackjack: bool = False  # set when the replay ends: a natural in a hand of a seat that never split
    final_total: int = 0  # set when the replay ends: the best total of all its cards

    @property
    def name(self) -> str:
        return hand_name(self.id)

    @property
    def values(self) -> list[str]:
        return [c.card for c in self.cards]

    @property
    def doubled(self) -> int:
        return sum(a for _, a in self.doubles)

    @property
    def stake(self) -> int:
        return self.wager + self.doubled

    def total(self, upto: int | None = None) -> tuple[int, bool]:
        cards = self.cards if upto is None else self.cards[:upto]
        return hand_total(c.card for c in cards)


@dataclass(slots=True)
class SeatState:
    seat: int
    wager: int
    hands: list[HandState]
    additional_kind: str | None = None
    additional_amount: int = 0
    insurance: list[tuple[int, int]] = field(default_factory=list)  # (event, amount)
    insurance_settles: list[tuple[int, Settle]] = field(default_factory=list)
    additional_settles: list[tuple[int, Settle]] = field(default_factory=list)

    @property
    def split(self) -> bool:
        return len(self.hands) > 1

    @property
    def insured(self) -> int:
        return sum(a for _, a in self.insurance)


@dataclass(slots=True)
class RecordProblem:
    event: int | None
    hand: str | None
    message: str
    expected: Any = None
    actual: Any = None


@dataclass(slots=True)
class Trace:
    round: Round
    elections: dict[str, Any]
    seats: dict[int, SeatState]
    hands: dict[HandId, HandState]
    dealer: list[CardAt]
    problems: list[RecordProblem]
    player_cards: list[tuple[HandState, CardAt]]
    """Every card dealt to a player hand, in order, with the hand it went to."""
    player_draws: list[tuple[HandState, CardAt]]
    """The same, only the cards drawn after a hand's first two (hits and double-down cards)."""
    peeks: list[tuple[int, bool]]
    initial_deal_end: int | None
    """Index of the event that completed the initial deal (every seat two cards, the dealer its initial cards)."""
    dealer_second_at: int | None
    """Index of the event that dealt the dealer's second card."""
    first_later_player_card: int | None
    """Index of the first card dealt to any player hand after the initial deal."""
    first_later_card: int | None
    """Index of the first card dealt to anyone after the initial deal."""
    present: frozenset[str]
    """The event types other than ``deal`` the round contains (lets a check skip a round with nothing for it)."""
    dealer_values: list[str]
    dealer_blackjack: bool
    hand_list: list[HandState]
    """Every player hand, seat by seat, each seat's hands in the order they were created."""

    @property
    def events(self) -> tuple[Any, ...]:
        return self.round.events

    def is_blackjack(self, hand: HandState) -> bool:
        """A natural in a hand's first two cards; a hand of a seat that split is never a blackjack."""
        return hand.blackjack

    @property
    def dealer_up(self) -> str | None:
        return self.dealer[0].card if self.dealer else None

    def dealer_total(self) -> tuple[int, bool]:
        return hand_total(self.dealer_values)

    def dealer_done_at(self) -> int | None:
        """The last event that added to or exposed the dealer's hand."""
        marks = [c.event for c in self.dealer] + [
            c.revealed_at for c in self.dealer if c.revealed_at is not None
        ]
        return max(marks) if marks else None

    def dealer_second_known_at(self) -> int | None:
        """When the dealer's second card became known at the table: when dealt face up, else when turned up or
        peeked at."""
        if len(self.dealer) < 2:
            return None
        second = self.dealer[1]
        if second.face != "down":
            return second.event
        marks = [e for e, _ in self.peeks if e > second.event]
        if second.revealed_at is not None:
            marks.append(second.revealed_at)
        return min(marks, default=None)

    def all_hands(self) -> list[HandState]:
        return self.hand_list


def replay(round_: Round, elections: dict[str, Any]) -> Trace:
    decks = int(elections.get("decks") or 8)
    seats: dict[int, SeatState] = {}
    hands: dict[HandId, HandState] = {}
    for sw in round_.seats:
        first = HandState(id=(sw.seat, 1), wager=sw.wager)
        seats[sw.seat] = SeatState(
            seat=sw.seat,
            wager=sw.wager,
            hands=[first],
            additional_kind=sw.additional.kind if sw.additional else None,
            additional_amount=sw.additional.amount if sw.additional else 0,
        )
        hands[first.id] = first

    dealer: list[CardAt] = []
    problems: list[RecordProblem] = []
    player_cards: list[tuple[HandState, CardAt]] = []
    player_draws: list[tuple[HandState, CardAt]] = []
    present: set[str] = set()
    peeks: list[tuple[int, bool]] = []
    counts: dict[str, int] = {}
    initial_deal_end: int | None = None
    initial_open = True  # still inside the initial deal: only first and second cards dealt so far
    # Whether the dealer's second card belongs to the initial deal (a hole card): the table's election says so;
    # without one, a second card dealt face down is taken for a hole card.
    second_initial = _HOLE_CARD_GAME.get(str(elections.get("dealer_second_card")))
    dealer_second_at: int | None = None
    first_later_player_card: int | None = None
    first_later_card: int | None = None

    def problem(i: int, hand: str | None, message: str, expected: Any = None, actual: Any = None) -> None:
        problems.append(RecordProblem(i, hand, message, expected, actual))

    def hand_of(i: int, hid: HandId, what: str) -> HandState | None:
        h = hands.get(hid)
        if h is None:
            seat = seats.get(hid[0])
            if seat is None:
                problem(
                    i,
                    hand_name(hid),
                    f"{what} names hand {hand_name(hid)}, but seat {hid[0]} placed no wager.",
                )
            else:
                problem(
                    i,
                    hand_name(hid),
                    f"{what} names hand {hand_name(hid)}, but seat {hid[0]} has only "
                    f"{len(seat.hands)} hand{'s' if len(seat.hands) > 1 else ''} at this point.",
                )
        return h

    def seat_of(i: int, seat: int, what: str) -> SeatState | None:
        s = seats.get(seat)
        if s is None:
            problem(i, str(seat), f"{what} names seat {seat}, which placed no wager.")
        return s

    owed = 2 * len(seats)  # initial cards still owed to the seats' original hands
    h: HandState | None
    for i, ev in enumerate(round_.events):
        kind_of_event = ev.type
        if kind_of_event == "deal":
            assert isinstance(ev, Deal)
            to, card = ev.to, ev.card
            h = None if to == DEALER else hands.get(to)  # type: ignore[arg-type]
            initial = False
            if initial_open:
                if h is not None:
                    # a first or second card to a seat's original hand, before any split or double
                    initial = to[1] == 1 and len(h.cards) < 2 and not h.splits and not h.doubles
                elif to == DEALER:
                    nd = len(dealer)
                    initial = nd == 0 or (
                        nd == 1 and (ev.face == "down" if second_initial is None else second_initial)
                    )
                initial_open = initial
            n = counts.get(card, 0) + 1
            counts[card] = n
            if n > decks:
                problem(
                    i,
                    target_name(to),
                    f"{card} is dealt for the {_nth(n)} time, but {decks} deck"
                    f"{'s hold' if decks > 1 else ' holds'} only {decks} of it.",
                    decks,
                    n,
                )
                continue
            if h is not None:
                kind: CardKind
                if h.double_pending:
                    kind = "double"
                    h.double_pending = False
                elif len(h.cards) < 2:
                    kind = "initial" if h.created_by is None and not h.splits else "split"
                else:
                    kind = "draw"
                c = CardAt(card, i, ev.face, kind)
                h.cards.append(c)
                player_cards.append((h, c))
                if kind == "draw" or kind == "double":
                    player_draws.append((h, c))
                if initial:
                    owed -= 1
                elif initial_deal_end is not None and first_later_player_card is None:
                    first_later_player_card = i
            elif to == DEALER:
                dealer.append(CardAt(card, i, ev.face, "initial" if len(dealer) < 2 else "draw"))
                if len(dealer) == 2:
                    dealer_second_at = i
            else:
                hand_of(i, to, "A deal")  # type: ignore[arg-type]
                continue
            if initial:
                if owed == 0 and dealer:
                    initial_deal_end = i
            elif initial_deal_end is not None and first_later_card is None:
                first_later_card = i
            continue
        present.add(kind_of_event)
        if initial_deal_end is not None and kind_of_event in _DECISIONS:
            # A decision ends the initial deal. A peek, a reveal (a hand-dealt player turning up its cards) or a
            # settlement (a losing additional wager collected before the hole card, 13:69F-2.17(d)) does not.
            initial_open = False
        if kind_of_event == "stand" or kind_of_event == "hit":
            assert isinstance(ev, Hit | Stand)
            if ev.hand not in hands:
                hand_of(
                    i, ev.hand, f"A {kind_of_event}"
                )  # the optional decision events must name a real hand
        elif isinstance(ev, Settle):
            if ev.bet == "main":
                assert ev.hand is not None
                if (h := hands.get(ev.hand) or hand_of(i, ev.hand, "A settlement")) is not None:
                    h.settles.append((i, ev))
            else:
                assert ev.seat is not None
                s = seat_of(i, ev.seat, f"An {ev.bet} settlement")
                if s is None:
                    continue
                if ev.bet == "insurance":
                    if not any(e < i for e, _ in s.insurance):
                        problem(
                            i,
                            str(ev.seat),
                            f"Settlement of seat {ev.seat}'s insurance, which was never placed.",
                        )
                        continue
                    s.insurance_settles.append((i, ev))
                else:
                    if s.additional_kind is None:
                        problem(
                            i,
                            str(ev.seat),
                            f"Settlement of seat {ev.seat}'s additional wager, which was never placed.",
                        )
                        continue
                    s.additional_settles.append((i, ev))
        elif isinstance(ev, Reveal):
            pool = dealer if ev.to == DEALER else (h.cards if (h := hand_of(i, ev.to, "A reveal")) else None)  # type: ignore[arg-type]
            if pool is None:
                continue
            for c in pool:
                if c.card == ev.card and c.face == "down" and c.revealed_at is None:
                    c.revealed_at = i
                    break
            else:
                problem(
                    i,
                    target_name(ev.to),
                    f"Reveal of {ev.card} to {target_name(ev.to)}, but no such card was dealt face down "
                    "there (or it was already revealed).",
                )
        elif isinstance(ev, Peek):
            peeks.append((i, ev.dealer_blackjack))
            if len(dealer) < 2:
                problem(i, DEALER, "A peek at the hole card is recorded before the dealer had a second card.")
            elif is_natural([dealer[0].card, dealer[1].card]) != ev.dealer_blackjack:
                problem(
                    i,
                    DEALER,
                    f"The peek says the dealer {'has' if ev.dealer_blackjack else 'does not have'} blackjack, but the "
                    f"dealer's cards are {dealer[0].card} and {dealer[1].card}.",
                    expected=not ev.dealer_blackjack,
                    actual=ev.dealer_blackjack,
                )
        elif isinstance(ev, Insurance):
            if (s := seat_of(i, ev.seat, "Insurance")) is not None:
                s.insurance.append((i, ev.amount))
        elif isinstance(ev, EvenMoney):
            if (s := seat_of(i, ev.seat, "Even money")) is not None:
                h = s.hands[0]
                if h.even_money is not None:
                    problem(i, h.name, f"Even money is recorded twice for seat {ev.seat}.")
                else:
                    h.even_money = (i, ev.amount)
        elif isinstance(ev, Double):
            if (h := hand_of(i, ev.hand, "A double")) is not None:
                h.doubles.append((i, ev.amount))
                h.double_pending = True
        elif isinstance(ev, Split):
            if (h := hand_of(i, ev.hand, "A split")) is None:
                continue
            if len(h.cards) < 2:
                problem(
                    i,
                    h.name,
                    f"Split of hand {h.name}, which holds {len(h.cards)} card(s): nothing to split.",
                )
                continue
            s = seats[h.id[0]]
            new = HandState(id=(s.seat, len(s.hands) + 1), wager=ev.amount, created_by=i)
            moved = h.cards.pop(1)
            new.cards.append(moved)
            aces = h.cards[0].card[0] == "A" and moved.card[0] == "A"
            h.split_aces = new.split_aces = aces or h.split_aces
            h.splits.append(i)
            s.hands.append(new)
            hands[new.id] = new
        elif isinstance(ev, Surrender) and (h := hand_of(i, ev.hand, "A surrender")) is not None:
            h.surrendered_at = i

    hand_list = [x for st in seats.values() for x in st.hands]
    for x in hand_list:
        values = [c.card for c in x.cards]
        x.final_total = hand_total(values)[0]
        x.blackjack = len(values) == 2 and not seats[x.id[0]].split and is_natural(values)
    dealer_values = [c.card for c in dealer]
    return Trace(
        present=frozenset(present),
        dealer_values=dealer_values,
        dealer_blackjack=len(dealer) >= 2 and is_natural(dealer_values[:2]),
        hand_list=hand_list,
        round=round_,
        elections=elections,
        seats=seats,
        hands=hands,
        dealer=dealer,
        problems=problems,
        player_cards=player_cards,
        player_draws=player_draws,
        peeks=peeks,
        initial_deal_end=initial_deal_end,
        dealer_second_at=dealer_second_at,
        first_later_player_card=first_later_player_card,
        first_later_card=first_later_card,
    )


_HOLE_CARD_GAME: dict[str, bool] = {"initial_deal": True, "after_players": False}

_DECISIONS = frozenset({"double", "split", "surrender", "hit", "stand", "insurance", "even_money"})


def _nth(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
