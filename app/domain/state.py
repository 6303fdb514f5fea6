"""The state of play: every hand, every seat and the round as the replay leaves them (``round-v1.md`` section 2.1).

The replay (:mod:`app.domain.replay`) advances this state one event at a time and checks each event against the
state it arrives in; the end-of-round checks (:mod:`app.domain.checks`) read the state it leaves. Nothing here
judges the dealer: these are the facts the judging reads.

A hand's status says whether it may still be played, and if not, why::

    DEALING      fewer than two cards: its next card is owed (the initial deal, a split hand's second card)
    OPEN         two or more cards, and the player may still decide
    DOUBLED      doubled down, its one card still owed
    STOOD        the player stood (recorded; an implicit stand is shown by play moving on, see ``left_at``)
    BUSTED       over 21                                  \\
    TWENTY_ONE   21, or a blackjack                        |  complete by rule: a ``stand`` on them decides
    DOUBLE_DEALT its one card after a double received      |  nothing
    SPLIT_ACE    a split ace with its one card             |
    SURRENDERED  surrendered                              /

A settled hand is complete whatever its status (``settled_at``). The round's phase::

    INITIAL_DEAL -> PLAYERS -> DEALER          and OVER once the dealer's blackjack is known (a peek)
"""

from __future__ import annotations

from typing import Any, NamedTuple

from app.domain.cards import VALUES as _VALUE
from app.domain.cards import hand_total, is_natural
from app.domain.model import HandId, Round, Settle, hand_name

# Hand status (ordered: everything from STOOD on is complete, everything from BUSTED on complete by rule)
DEALING, OPEN, DOUBLED, STOOD, BUSTED, TWENTY_ONE, DOUBLE_DEALT, SPLIT_ACE, SURRENDERED = range(9)
STATUS_NAMES = (
    "dealing",
    "open",
    "doubled",
    "stood",
    "busted",
    "21",
    "doubled and dealt",
    "split ace",
    "surrendered",
)

# Round phase
INITIAL_DEAL, PLAYERS, DEALER_PLAYS, OVER = "initial deal", "players", "dealer", "over"


class HandAt(NamedTuple):
    """A hand as it stood at an event, as a settlement made then is judged (section 2.1: cards dealt later never
    change what it should have been; after a known dealer blackjack, the hand as it stood when it became known)."""

    event: int
    cards: int
    """How many cards the hand held."""
    total: int
    stake: int
    surrendered: bool
    blackjack: bool


class HandState:
    """One player hand. Its cards are two parallel lists, ``cards`` and ``events`` (the event that dealt each: a
    card's identity); the few facts about single cards live beside them (``double_at``, ``down``). A hand does not
    point back to its seat (``id[0]`` names it): the state holds no reference cycles, so it is freed as soon as an
    audit is done."""

    __slots__ = (
        "id",
        "wager",
        "seat_split_at",
        "cards",
        "events",
        "hard",
        "ace",
        "status",
        "created_by",
        "split_aces",
        "splits",
        "given",
        "doubles",
        "double_at",
        "down",
        "surrendered_at",
        "even_money",
        "settles",
        "settled_at",
        "left_at",
        "fault_pending",
        "judged",
    )

    def __init__(self, hid: HandId, wager: int, created_by: int | None = None) -> None:
        self.id = hid
        self.wager = wager
        self.seat_split_at: int | None = created_by  # the event of its seat's first split
        self.cards: list[str] = []
        self.events: list[int] = []
        self.hard = 0  # the total with every ace counted one
        self.ace = False
        self.status = DEALING
        self.created_by = created_by  # the split event that created it (None: an original hand)
        self.split_aces = False
        self.splits: list[int] = []  # events at which this hand was split
        self.given: list[tuple[str, int]] = []  # the second card it gave up at each split (card, event dealt)
        self.doubles: list[tuple[int, int]] = []  # (event, amount)
        self.double_at: int | None = None  # the event that dealt the card after the double
        self.down: dict[int, int | None] | None = (
            None  # a face-down card's event -> the event that turned it up
        )
        self.surrendered_at: int | None = None
        self.even_money: tuple[int, int] | None = None  # (event, amount)
        self.settles: list[tuple[int, Settle]] = []
        self.settled_at: int | None = None
        self.left_at: int | None = None  # the card that went to another hand of its seat while it was in play
        self.fault_pending = (
            False  # a hit or double reported as a fault: the card answering it is not reported
        )
        # The net its settlement was due, judged as it arrived (the dealer's hand was complete); None: judged at the
        # end of the round. A box split after that keeps the judgement: its money is claimed once (section 2.2).
        self.judged: int | None = None

    def __repr__(self) -> str:
        return f"<hand {self.name} {STATUS_NAMES[self.status]} {'+'.join(self.cards)}>"

    @property
    def name(self) -> str:
        return hand_name(self.id)

    @property
    def values(self) -> list[str]:
        return self.cards

    @property
    def total(self) -> int:
        h = self.hard
        return h + 10 if self.ace and h <= 11 else h

    @property
    def soft(self) -> bool:
        return self.ace and self.hard <= 11

    @property
    def doubled(self) -> int:
        return sum(a for _, a in self.doubles)

    @property
    def stake(self) -> int:
        return self.wager + self.doubled if self.doubles else self.wager

    @property
    def complete(self) -> bool:
        return self.status >= STOOD or self.settled_at is not None

    @property
    def blackjack(self) -> bool:
        """A natural as a hand's only two cards, in a seat that never split."""
        return len(self.cards) == 2 and self.seat_split_at is None and self.status == TWENTY_ONE

    def cards_before(self, event: int) -> list[str]:
        """The cards it held just before ``event``: those dealt before it, including one it gave up to a later
        split (in the order dealt)."""
        held = [(e, c) for c, e in zip(self.cards, self.events, strict=True) if e < event]
        for (c, e), split_at in zip(self.given, self.splits, strict=True):
            if e < event <= split_at:
                held.append((e, c))
                held.sort()
        return [c for _, c in held]

    def double_card(self) -> tuple[str, int, bool] | None:
        """The card dealt after the double: (card, event, face down)."""
        at = self.double_at
        if at is None:
            return None
        return self.cards[self.events.index(at)], at, self.down is not None and at in self.down

    def revealed_at(self, event: int) -> int | None:
        """When the face-down card dealt at ``event`` was turned up."""
        return None if self.down is None else self.down.get(event)

    def take(self, card: str, i: int, down: bool) -> None:
        """Take a card and derive the status it leaves (a STOOD or SURRENDERED hand keeps its status)."""
        self.cards.append(card)
        self.events.append(i)
        v = _VALUE[card[0]]
        self.hard += v
        if v == 1:
            self.ace = True
        if down:
            if self.down is None:
                self.down = {}
            self.down[i] = None
        if len(self.cards) < 2:
            return
        status = self.status
        if self.split_aces:
            self.status = SPLIT_ACE
        elif status in (DOUBLED, DOUBLE_DEALT):
            if status == DOUBLED:
                self.double_at = i
            self.status = DOUBLE_DEALT
        elif status in (STOOD, SURRENDERED):
            return
        else:
            h = self.hard
            total = h + 10 if self.ace and h <= 11 else h
            self.status = BUSTED if total > 21 else TWENTY_ONE if total == 21 else OPEN

    def give_second(self) -> tuple[str, int]:
        """Give up the second card to a split: it leaves with its event; totals and status are counted again."""
        card, event = self.cards.pop(1), self.events.pop(1)
        self.given.append((card, event))
        self.hard = sum(_VALUE[c[0]] for c in self.cards)
        self.ace = any(c[0] == "A" for c in self.cards)
        self.status = DEALING if len(self.cards) < 2 else OPEN
        return card, event

    def at(self, i: int, dbj_known_at: int | None) -> HandAt:
        """The hand as it stood at event ``i`` (once the dealer's blackjack was known, as it stood then: nothing done
        after counts): its cards, its wagers, whether it had surrendered, and whether it was a blackjack."""
        cut = i if dbj_known_at is None or dbj_known_at > i else dbj_known_at
        events = self.events
        split = self.seat_split_at is not None and self.seat_split_at < cut
        # The usual case: no card dealt to it, and no split of it, since.
        if (not events or events[-1] < cut) and (not self.splits or self.splits[-1] < cut):
            n, total = len(events), self.total
            blackjack = (
                n == 2 and self.ace and self.hard == 11 and not split
            )  # a natural, whatever came after
        else:
            cards = self.cards_before(cut)
            n, total = len(cards), hand_total(cards)[0]
            blackjack = n == 2 and not split and is_natural(cards)
        stake = self.wager
        for e, amount in self.doubles:
            if e < cut:
                stake += amount
        surrendered = self.surrendered_at is not None and self.surrendered_at < cut
        return HandAt(i, n, total, stake, surrendered, blackjack)


class SeatState:
    __slots__ = (
        "seat",
        "wager",
        "hands",
        "additional_kind",
        "additional_amount",
        "insurance",
        "insurance_settles",
        "additional_settles",
        "current",
        "order_reported",
    )

    def __init__(self, seat: int, wager: int, additional_kind: str | None, additional_amount: int) -> None:
        self.seat = seat
        self.wager = wager
        self.hands: list[HandState] = []
        self.additional_kind = additional_kind
        self.additional_amount = additional_amount
        self.insurance: list[tuple[int, int]] = []  # (event, amount)
        self.insurance_settles: list[tuple[int, Settle]] = []
        self.additional_settles: list[tuple[int, Settle]] = []
        self.current: HandState | None = None  # the hand of this seat in play
        self.order_reported = False  # an out-of-order card is reported once per seat

    @property
    def split(self) -> bool:
        return len(self.hands) > 1

    def initial(self) -> list[tuple[str, int]]:
        """The box's two cards of the initial deal, (card, event): its first hand's first card, and its second card
        unless the first split moved that to hand 2."""
        hands = self.hands
        first = hands[0]
        out = list(zip(first.cards[:1], first.events[:1], strict=True))
        if (
            len(hands) > 1
            and hands[1].events
            and (len(first.events) < 2 or hands[1].events[0] < first.events[1])
        ):
            out.append((hands[1].cards[0], hands[1].events[0]))
        else:
            out.extend(zip(first.cards[1:2], first.events[1:2], strict=True))
        return out

    @property
    def insured(self) -> int:
        return sum(a for _, a in self.insurance)


class RecordProblem(NamedTuple):
    event: int
    hand: str | None
    message: str
    expected: Any = None
    actual: Any = None


class Trace:
    """The round as the replay leaves it. The dealer's cards are parallel lists like a hand's."""

    __slots__ = (
        "round",
        "elections",
        "seats",
        "hands",
        "hand_list",
        "dealer",
        "dealer_events",
        "dealer_down",
        "problems",
        "peeks",
        "present",
        "initial_end",
        "dealer_second_at",
        "first_later_player_card",
        "first_later_card",
        "dealer_play_at",
        "dbj_known_at",
        "complete",
        "void",
        "corrections",
        "correction_of",
        "dealer_cut",
        "terms",
    )

    def __init__(self, round_: Round, elections: dict[str, Any]) -> None:
        self.round = round_
        self.elections = elections
        self.seats: dict[int, SeatState] = {}
        self.hands: dict[HandId, HandState] = {}
        self.hand_list: list[HandState] = []
        """Every player hand, seat by seat, each seat's hands in the order they were created."""
        self.dealer: list[str] = []
        self.dealer_events: list[int] = []
        self.dealer_down: dict[int, int | None] = {}
        """The dealer's face-down cards (by the event that dealt them) -> the event that turned each up."""
        self.problems: list[RecordProblem] = []
        self.peeks: list[tuple[int, bool]] = []
        self.present: frozenset[str] = frozenset()
        """The event types other than ``deal`` the round contains (lets a check skip a round with nothing for it)."""
        self.initial_end: int | None = None
        """The event that completed the initial deal (every box two cards, the dealer its initial cards)."""
        self.dealer_second_at: int | None = None
        """The event that dealt the dealer's second card."""
        self.first_later_player_card: int | None = None
        """The first card dealt to a player hand after the initial deal."""
        self.first_later_card: int | None = None
        """The first card dealt to anyone after the initial deal."""
        self.dealer_play_at: int | None = None
        """The first card dealt to the dealer after the initial deal: the dealer's play began."""
        self.dbj_known_at: int | None = None
        """The peek that showed the dealer's blackjack: the round was over for every hand."""
        self.complete = True
        """False when only a prefix of the events was replayed (the rest contradicted the record): nothing may be
        claimed that depends on what came after."""
        self.void: tuple[int, str] | None = None
        """The ``void`` event that declared the round void, and its reason (section 2.3)."""
        self.corrections: dict[int, tuple[int, Settle]] = {}
        """A corrected settlement's event -> the last correction of it (its event, and the settlement it made)."""
        self.correction_of: dict[int, int] = {}
        """A correction's event -> the event of the settlement it (finally) corrects."""
        self.terms: Any = None
        """What the settlements are judged by (:func:`app.domain.checks.settlement.terms`), once worked out."""
        self.dealer_cut: int | None = None
        """How many of the dealer's cards its hand is judged by: those it held when it became complete by rule (a
        card drawn after that was forbidden, and changes no settlement, section 2.2); None while it was not."""

    @property
    def events(self) -> tuple[Any, ...]:
        return self.round.events

    @property
    def phase(self) -> str:
        """Where the round stands: the initial deal, the players' turn, the dealer's, or over (the dealer's
        blackjack known)."""
        if self.dbj_known_at is not None:
            return OVER
        if self.dealer_play_at is not None:
            return DEALER_PLAYS
        return PLAYERS if self.initial_end is not None else INITIAL_DEAL

    def all_hands(self) -> list[HandState]:
        return self.hand_list

    @property
    def dealer_values(self) -> list[str]:
        return self.dealer

    def _up_index(self) -> int | None:
        """Which of the dealer's first two cards is the up card: the first dealt face up (None: none was)."""
        ev, down = self.dealer_events, self.dealer_down
        for k in range(min(2, len(ev))):
            if ev[k] not in down:
                return k
        return None

    @property
    def dealer_up(self) -> str | None:
        """The dealer's up card: the first of its initial two cards dealt face up (in either deal order)."""
        k = self._up_index()
        return None if k is None else self.dealer[k]

    @property
    def up_at(self) -> int | None:
        """The event that dealt the up card."""
        k = self._up_index()
        return None if k is None else self.dealer_events[k]

    @property
    def hole(self) -> tuple[str, int] | None:
        """The dealer's other initial card, the "second card" of the rules (the hole card in a hole-card game), and
        the event that dealt it."""
        if len(self.dealer) < 2:
            return None
        k = 1 if self._up_index() == 0 else 0
        return self.dealer[k], self.dealer_events[k]

    @property
    def dealer_blackjack(self) -> bool:
        d = self.dealer
        return len(d) >= 2 and is_natural([d[0], d[1]])

    def dealer_before(self, event: int) -> list[str]:
        return [c for c, e in zip(self.dealer, self.dealer_events, strict=True) if e < event]

    def dealer_total(self) -> tuple[int, bool]:
        return hand_total(self.dealer)

    @property
    def dealer_judged(self) -> list[str]:
        """The dealer's hand the settlements are judged against: as it stood before any card the drawing rule
        forbade (section 2.2)."""
        cut = self.dealer_cut
        return self.dealer if cut is None else self.dealer[:cut]

    @property
    def void_at(self) -> int | None:
        v = self.void
        return None if v is None else v[0]

    def dealer_done_at(self) -> int | None:
        """The last event that added to or exposed the dealer's hand."""
        marks = [*self.dealer_events, *(r for r in self.dealer_down.values() if r is not None)]
        return max(marks) if marks else None

    def dealer_second_known_at(self) -> int | None:
        """When the dealer's second card (the hole card) became known at the table: when dealt face up, else when
        turned up or peeked at."""
        hole = self.hole
        if hole is None:
            return None
        at = hole[1]
        if at not in self.dealer_down:
            return at
        marks = [e for e, _ in self.peeks if e > at]
        r = self.dealer_down[at]
        if r is not None:
            marks.append(r)
        return min(marks, default=None)

    def is_blackjack(self, hand: HandState) -> bool:
        return hand.blackjack
