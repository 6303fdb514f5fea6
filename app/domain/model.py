"""A recorded round, as the replay engine sees it: validated, normalised, immutable.

The wire format (``shared/spec/round-v1.md``) is parsed and validated in :mod:`app.wire.schema`; by the time a round
reaches this module every card is canonical (``"TH"``), every hand name is a :data:`HandId` and every amount is an
integer count of minor units. Events are past-tense facts; the replay is a fold over them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

HandId = tuple[int, int]
"""``(seat, n)``: ``"3"`` and ``"3.1"`` are both ``(3, 1)``."""

DEALER = "dealer"
Target = HandId | Literal["dealer"]


def hand_name(hand: HandId) -> str:
    """The wire name of a hand: ``"3.2"``; an original hand is written ``"3"``.

    >>> hand_name((3, 1)), hand_name((3, 2))
    ('3', '3.2')
    """
    seat, n = hand
    return str(seat) if n == 1 else f"{seat}.{n}"


def target_name(target: Target) -> str:
    return DEALER if target == DEALER else hand_name(target)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Deal:
    to: Target
    card: str
    face: Literal["up", "down"] = "up"
    type: Literal["deal"] = "deal"


@dataclass(frozen=True, slots=True)
class Peek:
    dealer_blackjack: bool
    type: Literal["peek"] = "peek"


@dataclass(frozen=True, slots=True)
class Insurance:
    seat: int
    amount: int
    type: Literal["insurance"] = "insurance"


@dataclass(frozen=True, slots=True)
class EvenMoney:
    seat: int
    amount: int
    type: Literal["even_money"] = "even_money"


@dataclass(frozen=True, slots=True)
class Double:
    hand: HandId
    amount: int
    type: Literal["double"] = "double"


@dataclass(frozen=True, slots=True)
class Split:
    hand: HandId
    amount: int
    type: Literal["split"] = "split"


@dataclass(frozen=True, slots=True)
class Surrender:
    hand: HandId
    type: Literal["surrender"] = "surrender"


@dataclass(frozen=True, slots=True)
class Hit:
    hand: HandId
    type: Literal["hit"] = "hit"


@dataclass(frozen=True, slots=True)
class Stand:
    hand: HandId
    type: Literal["stand"] = "stand"


@dataclass(frozen=True, slots=True)
class Reveal:
    to: Target
    card: str
    type: Literal["reveal"] = "reveal"


@dataclass(frozen=True, slots=True)
class Burn:
    """A card leaves the shoe and is discarded, belonging to no hand (section 2.3)."""

    card: str
    face: Literal["up", "down"] = "down"
    type: Literal["burn"] = "burn"


VoidReason = Literal["misdeal", "card_exposed", "shoe_error", "equipment", "other"]


@dataclass(frozen=True, slots=True)
class Void:
    """The round is declared void: no hand wins or loses (section 2.3)."""

    reason: VoidReason
    type: Literal["void"] = "void"


Bet = Literal["main", "insurance", "additional"]
Result = Literal["win", "lose", "push", "surrender", "void"]


@dataclass(frozen=True, slots=True)
class Settle:
    bet: Bet
    result: Result
    amount: int
    hand: HandId | None = None
    seat: int | None = None
    corrects: int | None = None
    """The index of an earlier ``settle`` of the same bet that this one replaces (a correction at the table)."""
    type: Literal["settle"] = "settle"

    @property
    def net(self) -> int:
        """Money to the player (+) or from the player (-). The money decides, not the label: a push and a voided
        wager's return move nothing."""
        if self.result == "win":
            return self.amount
        if self.result == "push" or self.result == "void":
            return 0
        return -self.amount


Event = (
    Deal
    | Peek
    | Insurance
    | EvenMoney
    | Double
    | Split
    | Surrender
    | Hit
    | Stand
    | Reveal
    | Settle
    | Burn
    | Void
)

AdditionalKind = Literal["over_13", "under_13", "same_suit", "seven"]


@dataclass(frozen=True, slots=True)
class AdditionalWager:
    kind: AdditionalKind
    amount: int


@dataclass(frozen=True, slots=True)
class SeatWager:
    seat: int
    wager: int
    additional: AdditionalWager | None = None


@dataclass(frozen=True, slots=True)
class Round:
    round_id: str
    jurisdiction: str
    played_at: datetime
    table_id: str
    rules: dict[str, object] | None
    seats: tuple[SeatWager, ...]
    events: tuple[Event, ...]
    dealer_id: str | None = None
    shoe_id: str | None = None
    extra: dict[str, object] = field(default_factory=dict)
