"""The round format's limits, lexical forms and conversion into the domain model, shared by its two decoders: the
fast one (:mod:`app.wire.fast`, msgspec) and the model that names every problem (:mod:`app.wire.schema`,
Pydantic). Standard library and the domain only, so that a command that audits a file never imports Pydantic.

The converters below turn validated values into the domain's immutable events. Equal events are one shared object
however many rounds contain them (a deal of the same card to the same hand, ...): each cache is cleared when it
reaches :data:`_CACHE_LIMIT` entries. A converter given a card or hand that is no spelling of one raises
:class:`KeyError` (the fast decoder checks them so; the model has checked them already).
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from app.domain.model import (
    AdditionalWager,
    Burn,
    Deal,
    Double,
    EvenMoney,
    Event,
    HandId,
    Hit,
    Insurance,
    Peek,
    Reveal,
    SeatWager,
    Settle,
    Split,
    Stand,
    Surrender,
    Target,
    Void,
    VoidReason,
)
from app.wire.strict import Problem

# ----------------------------------------------------------------------------------------------------
# Limits and lexical forms
# ----------------------------------------------------------------------------------------------------

MAX_MONEY = 10**12
"""The largest amount accepted anywhere, in minor units (ten billion in major units)."""
MAX_EVENTS = 2000
MAX_SEATS = 9
MAX_SPLIT_HANDS = 64
MAX_ID = 128
MAX_NOTE = 1000

ROUND_ID_PATTERN = r"^[A-Za-z0-9._:-]+$"
ROUND_ID_RE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
"""A round_id of the right form and length (with ``fullmatch``)."""

CARD_PATTERN = r"^(?:[AaTtJjQqKk2-9]|10)[CcDdHhSs]$"
_N = r"(?:[1-9]|[1-5][0-9]|6[0-4])"  # n of "<seat>.<n>": 1-64, no leading zero
HAND_PATTERN = rf"^[1-9](?:\.{_N})?$"
TARGET_PATTERN = rf"^(?:dealer|[1-9](?:\.{_N})?)$"
TIMESTAMP_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?"
    r"(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$"
)

VOID_REASONS: tuple[VoidReason, ...] = ("misdeal", "card_exposed", "shoe_error", "equipment", "other")

EVENT_TYPES = (
    "deal",
    "peek",
    "insurance",
    "even_money",
    "double",
    "split",
    "surrender",
    "hit",
    "stand",
    "reveal",
    "settle",
    "burn",
    "void",
)
"""Every event type, in the order of the spec (section 2, then 2.3's): what a message about an unknown type lists."""


# Canonical forms, looked up in the conversion loop (every accepted spelling is a key: a dict of them is the pattern).
def _card_spellings() -> dict[str, str]:
    table = {}
    for rank in "A23456789TJQK":
        for suit in "CDHS":
            for r in {rank, rank.lower()} | ({"10"} if rank == "T" else set()):
                for s in (suit, suit.lower()):
                    table[r + s] = rank + suit
    return table


def _hand_names() -> dict[str, HandId]:
    table = {}
    for seat in range(1, MAX_SEATS + 1):
        table[str(seat)] = (seat, 1)
        for n in range(1, MAX_SPLIT_HANDS + 1):
            table[f"{seat}.{n}"] = (seat, n)
    return table


CARD = _card_spellings()
"""Every spelling of a card that :data:`CARD_PATTERN` accepts -> its canonical form (``10h`` -> ``TH``)."""
HAND = _hand_names()
"""Every spelling of a player hand that :data:`HAND_PATTERN` accepts -> its id (``"3"`` and ``"3.1"`` -> (3, 1))."""
TARGET: dict[str, Target] = {**HAND, "dealer": "dealer"}
"""Every spelling :data:`TARGET_PATTERN` accepts -> its target."""


def canonical_card(code: str) -> str | None:
    """A card as a record may spell it (``10h``, ``Th``, ``as`` ...) as the engine writes it, or None when it is not a
    card.

    >>> canonical_card("10h"), canonical_card("AS"), canonical_card("ZZ")
    ('TH', 'AS', None)
    """
    return CARD.get(code)


class RoundInvalid(ValueError):
    """The record cannot be read: it is not JSON, or it violates the schema. ``problems`` lists every problem;
    ``round_id`` is the round's id when it could be read (a string of the round_id form), else None."""

    problems: list[Problem]
    round_id: str | None

    def __init__(self, problems: list[Problem], round_id: str | None = None) -> None:
        self.problems = problems
        self.round_id = round_id
        first = problems[0] if problems else {"pointer": "", "message": "invalid round"}
        more = (
            f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})"
            if len(problems) > 1
            else ""
        )
        where = first["pointer"] or "(document)"
        name = f" {round_id}" if round_id else ""
        super().__init__(f"invalid round{name}: {where}: {first['message']}{more}")


# ----------------------------------------------------------------------------------------------------
# Into the domain
# ----------------------------------------------------------------------------------------------------

_CACHE_LIMIT = 1 << 16
_DEALS: dict[tuple[str, str, str], Event] = {}
_REVEALS: dict[tuple[str, str], Event] = {}
_BY_HAND: dict[tuple[str, str], Event] = {}  # (type, hand): surrender, hit, stand
_WAGERS: dict[tuple[str, str | int, int], Event] = {}  # (type, hand or seat, amount)
_SETTLES: dict[tuple[str, str | None, int | None, str, int, int | None], Event] = {}
_BURNS: dict[tuple[str, str], Event] = {}
_SEATS: dict[tuple[int, int, str | None, int], SeatWager] = {}
VOIDS: dict[str, Event] = {reason: Void(reason) for reason in VOID_REASONS}
PEEKS: dict[bool, Event] = {True: Peek(True), False: Peek(False)}
_BY_HAND_CLASS: dict[str, type[Surrender | Hit | Stand]] = {
    "surrender": Surrender,
    "hit": Hit,
    "stand": Stand,
}
_HAND_WAGER_CLASS: dict[str, type[Double | Split]] = {"double": Double, "split": Split}
_SEAT_WAGER_CLASS: dict[str, type[Insurance | EvenMoney]] = {"insurance": Insurance, "even_money": EvenMoney}


T = TypeVar("T")


def keep(cache: dict[Any, T], key: Any, value: T) -> T:
    """``value`` kept in ``cache`` under ``key`` (the cache emptied first when full); ``value``. The caches of values
    read (here, and :mod:`app.wire.fast`'s) are bounded so."""
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


def deal(to: str, card: str, face: str) -> Event:
    key = (to, card, face)
    return _DEALS.get(key) or keep(_DEALS, key, Deal(TARGET[to], CARD[card], face))  # type: ignore[arg-type]


def reveal(to: str, card: str) -> Event:
    key = (to, card)
    return _REVEALS.get(key) or keep(_REVEALS, key, Reveal(TARGET[to], CARD[card]))


def by_hand(kind: str, hand: str) -> Event:
    """A surrender, hit or stand (``kind``) of ``hand``."""
    key = (kind, hand)
    return _BY_HAND.get(key) or keep(_BY_HAND, key, _BY_HAND_CLASS[kind](HAND[hand]))


def hand_wager(kind: str, hand: str, amount: int) -> Event:
    """A double or split (``kind``) of ``hand``."""
    key = (kind, hand, amount)
    return _WAGERS.get(key) or keep(_WAGERS, key, _HAND_WAGER_CLASS[kind](HAND[hand], amount))


def seat_wager(kind: str, seat: int, amount: int) -> Event:
    """An insurance or even money (``kind``) of ``seat``."""
    key = (kind, seat, amount)
    return _WAGERS.get(key) or keep(_WAGERS, key, _SEAT_WAGER_CLASS[kind](seat, amount))


def settle(
    bet: str, hand: str | None, seat: int | None, result: str, amount: int, corrects: int | None
) -> Event:
    key = (bet, hand, seat, result, amount, corrects)
    return _SETTLES.get(key) or keep(
        _SETTLES,
        key,
        Settle(bet, result, amount, None if hand is None else HAND[hand], seat, corrects),  # type: ignore[arg-type]
    )


def burn(card: str, face: str) -> Event:
    key = (card, face)
    return _BURNS.get(key) or keep(_BURNS, key, Burn(CARD[card], face))  # type: ignore[arg-type]


def seat_of(seat: int, wager: int, kind: str | None, amount: int) -> SeatWager:
    """A seat's wagers (``kind`` None: no additional wager)."""
    key = (seat, wager, kind, amount)
    return _SEATS.get(key) or keep(
        _SEATS,
        key,
        SeatWager(seat, wager, None if kind is None else AdditionalWager(kind, amount)),  # type: ignore[arg-type]
    )
