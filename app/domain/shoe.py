"""Shoe reconciliation: the rounds of one ``shoe_id`` were dealt from one card supply (round-v1, section 1: "rounds
of one shoe share one card supply"), so across them no card can be seen more often than the shoe's decks hold it.

A single round is checked on its own by the replay (more copies of a card than its decks hold makes it
unreplayable); here the count runs over every round of the shoe, in the order they were played. A card seen once
too often across rounds means a card was added to the shoe, or a round is misrecorded (a card keyed in wrong, or a
round filed under the wrong shoe); rounds that state different numbers of decks cannot all be right either.

Which events show a card (round-v1, section 2):

* every ``deal``, face up or face down, is a card leaving the shoe (or the dealer's hand, in a hand-held game);
* a ``reveal`` turns a card already dealt face down face up: the same card seen again, never counted (a reveal of a
  card never dealt face down is a contradiction of its round's own record, which its audit reports);
* every ``burn`` (section 2.3) is a card leaving the shoe too, discarded, to no hand;
* no other event carries a card.

Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from app.domain.cards import RANKS, SUITS
from app.domain.model import Burn, Deal, Round

__all__ = [
    "MAX_DECKS",
    "OverCount",
    "Reconciliation",
    "ShoeRound",
    "Sighting",
    "cards_shown",
    "reconcile",
]

MAX_DECKS = 8
"""The most decks a table may elect (round-v1, section 3: ``decks`` 1-8)."""

_ORDER = {rank + suit: i for i, (suit, rank) in enumerate((s, r) for s in SUITS for r in RANKS)}


@dataclass(frozen=True, slots=True)
class ShoeRound:
    """A round of the shoe, and the decks its table held as its record or its audit states them (None: unknown)."""

    round: Round
    decks: int | None


@dataclass(frozen=True, slots=True)
class Sighting:
    """Where a card was seen: the round, and the index of its ``deal`` event."""

    round_id: str
    event: int


@dataclass(frozen=True, slots=True)
class OverCount:
    """A card seen more often than the shoe holds it."""

    card: str
    allowed: int
    """The copies the shoe holds (its decks)."""
    sightings: tuple[Sighting, ...]
    """Every time it was seen, in the order played."""

    @property
    def seen(self) -> int:
        return len(self.sightings)

    @property
    def first_over(self) -> Sighting:
        """The sighting that went past the copies the shoe holds."""
        return self.sightings[self.allowed]


@dataclass(frozen=True, slots=True)
class Reconciliation:
    cards_seen: dict[str, int]
    """How often each card was seen, in deck order (clubs, diamonds, hearts, spades; ace to king)."""
    cards_per_round: tuple[int, ...]
    """How many cards each round showed, in the order given."""
    decks: int | None
    """The decks every round that states them states; None when none does, or when they disagree."""
    allowed: int
    """The copies of each card the check allowed."""
    decks_stated: dict[int, tuple[str, ...]]
    """Each number of decks the rounds state, with the rounds stating it, in the order first stated."""
    over_counts: tuple[OverCount, ...]
    """Cards seen more often than ``allowed``, in the order they went past it."""

    @property
    def decks_disagree(self) -> bool:
        return len(self.decks_stated) > 1


def cards_shown(round_: Round) -> Iterator[tuple[int, str]]:
    """The cards a round's record shows leaving the shoe, with their event index: every ``deal`` and every ``burn``;
    a ``reveal`` is a face-down card dealt before, seen again.

    >>> from datetime import UTC, datetime
    >>> from app.domain.model import Reveal, Settle
    >>> events = (Burn("2D"), Deal((1, 1), "AS"), Deal("dealer", "7C"), Deal((1, 1), "9D"),
    ...           Deal("dealer", "KH", "down"), Reveal("dealer", "KH"), Settle("main", "lose", 100, hand=(1, 1)))
    >>> r = Round("R1", "US-NJ", datetime(2026, 12, 1, tzinfo=UTC), "BJ1", None, (), events)
    >>> list(cards_shown(r))
    [(0, '2D'), (1, 'AS'), (2, '7C'), (3, '9D'), (4, 'KH')]
    """
    for i, ev in enumerate(round_.events):
        if type(ev) is Deal or type(ev) is Burn:
            yield i, ev.card


def reconcile(rounds: Iterable[ShoeRound]) -> Reconciliation:
    """Count the cards of a shoe's rounds (given in the order played) against the copies its decks hold.

    The copies allowed are the decks the rounds state. Interpretation: where rounds state different numbers, the
    largest is allowed (an over-count is never claimed that a round's own elections would explain; the
    disagreement is reported of its own); where none states them, :data:`MAX_DECKS`, the most a table may elect
    (as the replay assumes for one round).

    >>> from datetime import UTC, datetime
    >>> def rnd(rid, *cards):
    ...     events = tuple(Deal("dealer", c) for c in cards)
    ...     return Round(rid, "US-NJ", datetime(2026, 12, 1, tzinfo=UTC), "BJ1", None, (), events)
    >>> done = reconcile([ShoeRound(rnd("R1", "AS", "7C"), 1), ShoeRound(rnd("R2", "7D", "AS"), 1)])
    >>> done.cards_seen, done.cards_per_round, done.decks, done.allowed
    ({'7C': 1, '7D': 1, 'AS': 2}, (2, 2), 1, 1)
    >>> [(o.card, o.seen, o.first_over) for o in done.over_counts]
    [('AS', 2, Sighting(round_id='R2', event=1))]
    >>> done = reconcile([ShoeRound(rnd("R1", "AS"), 2), ShoeRound(rnd("R2", "AS"), 1), ShoeRound(rnd("R3"), None)])
    >>> done.decks, done.allowed, done.decks_stated, done.over_counts
    (None, 2, {2: ('R1',), 1: ('R2',)}, ())
    """
    sightings: dict[str, list[Sighting]] = {}
    per_round: list[int] = []
    stated: dict[int, list[str]] = {}
    played: dict[str, int] = {}  # round_id -> its place in the order played
    for sr in rounds:
        rid = sr.round.round_id
        played.setdefault(rid, len(played))
        if sr.decks is not None:
            stated.setdefault(sr.decks, []).append(rid)
        n = 0
        for i, card in cards_shown(sr.round):
            sightings.setdefault(card, []).append(Sighting(rid, i))
            n += 1
        per_round.append(n)
    allowed = max(stated) if stated else MAX_DECKS
    over = [OverCount(card, allowed, tuple(s)) for card, s in sightings.items() if len(s) > allowed]
    # In the order they went past the limit: by the round, then the event, of the sighting that did.
    over.sort(key=lambda o: (played[o.first_over.round_id], o.first_over.event))
    return Reconciliation(
        cards_seen={card: len(sightings[card]) for card in sorted(sightings, key=_deck_order)},
        cards_per_round=tuple(per_round),
        decks=next(iter(stated)) if len(stated) == 1 else None,
        allowed=allowed,
        decks_stated={d: tuple(ids) for d, ids in stated.items()},
        over_counts=tuple(over),
    )


def _deck_order(card: str) -> tuple[int, str]:
    return (_ORDER.get(card, len(_ORDER)), card)
