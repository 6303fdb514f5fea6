"""The wire format of a recorded round (``shared/spec/round-v1.md``): Pydantic v2 models, validation, and
conversion to the immutable domain model (:mod:`app.domain.model`).

Public surface::

    parse_round(data)      JSON text (bytes or str) -> Round; raises RoundInvalid
    round_from_obj(obj)    an already-decoded JSON value -> Round; raises RoundInvalid
    RoundInvalid           ValueError with .problems (list of Problem) and .round_id (str | None)
    Problem                TypedDict {pointer: RFC 6901 JSON pointer, message: plain words}
    RoundModel             the Pydantic model of a round (also the source of the OpenAPI schema)

This model is the definition of the format: the OpenAPI document is drawn from it, and it says what is wrong with a
record, one :class:`Problem` per bad value, each with the JSON pointer of that value and a short message. The
service reads rounds with :func:`app.wire.fast.parse_round` (msgspec), which hands the model every record it does not
accept itself, and is tested to accept exactly what this model accepts, as the same round
(``tests/property/test_parse_differential.py``). The limits, lexical forms and conversion into the domain that both
share are :mod:`app.wire.forms`.

Every check of the values is made in the model itself, so ``RoundModel.model_validate_json`` accepts what
:func:`parse_round` accepts, but for one thing: :func:`parse_round` also insists on strict JSON
(:mod:`app.wire.strict`: no key twice in an object, no NaN, no integer out of range, no absurd nesting), which
the model cannot see (it keeps the last of two equal keys). Cross-field checks (a duplicate seat, a push that
moves money) run once the values they compare are themselves valid.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated, Any, Literal, NotRequired

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationError,
    field_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, ErrorDetails, PydanticCustomError, core_schema
from typing_extensions import TypedDict

from app.domain.model import DEALER, Event, Round, SeatWager
from app.wire import forms
from app.wire.forms import (
    CARD_PATTERN,
    EVENT_TYPES,
    HAND_PATTERN,
    MAX_EVENTS,
    MAX_ID,
    MAX_MONEY,
    MAX_NOTE,
    MAX_SEATS,
    ROUND_ID_PATTERN,
    ROUND_ID_RE,
    TARGET_PATTERN,
    TIMESTAMP_PATTERN,
    VOID_REASONS,
    RoundInvalid,
)
from app.wire.strict import (
    Problem,
    key_tokens,
    loads_marking_duplicates,
    merged,
    pointer,
    repeated_keys,
    scan,
    value_faults,
)

__all__ = [
    "MAX_EVENTS",
    "MAX_MONEY",
    "EVENT_TYPES",
    "VOID_REASONS",
    "Problem",
    "RoundInvalid",
    "RoundModel",
    "parse_round",
    "problems_from",
    "round_from_obj",
]

# ----------------------------------------------------------------------------------------------------
# Field types
# ----------------------------------------------------------------------------------------------------


class _JsonSchema:
    """Annotation marker: add keywords to a field's JSON schema (e.g. the documented default of a TypedDict
    field, which has no default of its own)."""

    def __init__(self, **keywords: Any) -> None:
        self.keywords = keywords

    def __get_pydantic_json_schema__(
        self, core_schema: Any, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema.update(self.keywords)
        return schema


Money = Annotated[
    int,
    Field(
        strict=True,
        ge=0,
        le=MAX_MONEY,
        description="Integer count of the currency's minor unit (cents). Never a float, never a string.",
    ),
]
Wager = Annotated[
    int,
    Field(
        strict=True,
        gt=0,
        le=MAX_MONEY,
        description="A wager: a positive integer count of the currency's minor unit (cents).",
    ),
]
SeatNo = Annotated[int, Field(strict=True, ge=1, le=MAX_SEATS, description="A seat (box) number, 1-9.")]
Card = Annotated[
    str,
    Field(
        pattern=CARD_PATTERN,
        description=(
            "Rank then suit: ranks A 2 3 4 5 6 7 8 9 T J Q K (10 accepted as an alias of T), suits C D H S. "
            "Uppercase is canonical; lowercase is accepted."
        ),
        examples=["TH", "AS", "10d"],
    ),
]
PlayerHand = Annotated[
    str,
    Field(
        pattern=HAND_PATTERN,
        description=(
            'A player hand: "<seat>" or "<seat>.<n>" (seat 1-9, n 1-64). "3" and "3.1" are the same hand, '
            "seat 3's original hand; a split of 3.k moves its second card to a new hand 3.m, m being one "
            "more than the number of hands seat 3 has so far."
        ),
        examples=["3", "3.2"],
    ),
]
HandOrDealer = Annotated[
    str,
    Field(
        pattern=TARGET_PATTERN,
        description='A player hand ("<seat>" or "<seat>.<n>") or "dealer".',
        examples=["dealer", "1", "3.2"],
    ),
]


def _within_utc_years(value: datetime) -> datetime:
    """A timestamp must stay within years 1-9999 once converted to UTC (where it is stored and compared):
    9999-12-31T23:00:00-05:00 is a valid RFC 3339 string but no storable instant."""
    try:
        value.astimezone(UTC)
    except (OverflowError, ValueError):
        raise PydanticCustomError(
            "timestamp_range",
            "{value} falls outside the years 1-9999 once converted to UTC",
            {"value": str(value)},
        ) from None
    return value


class _Rfc3339:
    """Annotation marker: a timestamp is a JSON string of the RFC 3339 form (checked by a pattern) that is also
    a real date and time (checked by pydantic's datetime parser), validated into an aware datetime. Both steps
    run inside pydantic-core. pydantic's datetime parser alone would also take "2026-12-01 21:14Z" or the
    string "1700000000" (as Unix time)."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.chain_schema(
            [
                core_schema.str_schema(pattern=TIMESTAMP_PATTERN, strict=True),
                core_schema.datetime_schema(strict=False, tz_constraint="aware"),
                core_schema.no_info_after_validator_function(_within_utc_years, core_schema.any_schema()),
            ]
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "format": "date-time", "pattern": TIMESTAMP_PATTERN}


Timestamp = Annotated[
    datetime,
    _Rfc3339,
    Field(
        description=(
            "RFC 3339 timestamp with its UTC offset (or Z), e.g. 2026-12-01T21:14:05-05:00. A timestamp "
            "without an offset, a date alone, or a number (Unix time) is rejected."
        ),
        examples=["2026-12-01T21:14:05-05:00", "1995-03-04T09:00:00Z"],
    ),
]
Identifier = Annotated[str, Field(strict=True, min_length=1, max_length=MAX_ID)]
Note = Annotated[str, Field(max_length=MAX_NOTE)]


def _drop_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def _optional(**kwargs: Any) -> Any:
    """An optional field: it may be left out (the attribute is then None), but ``null`` is not accepted: a
    vendor omits what it does not know. (Accepting null later would be a compatible change; the reverse would
    not.)"""
    return Field(default=None, json_schema_extra=_drop_default, **kwargs)


# ----------------------------------------------------------------------------------------------------
# Table rule elections (spec section 3)
# ----------------------------------------------------------------------------------------------------


class TableRules(TypedDict, total=False):
    """The table's rule elections. All optional; the jurisdiction module supplies defaults and says which
    elections it permits (an election it does not permit is a finding, not a schema error). Validated into a
    plain dict holding exactly the elections given."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]

    decks: Annotated[int, Field(ge=1, le=8, description="Number of decks, 1-8.", examples=[6])]
    dealt_from: Annotated[
        Literal["shoe", "hand"],
        Field(description="NJ 13:69F-2.2(a)1, 2.12(e): dealt from a shoe or by hand."),
    ]
    dealer_soft_17: Annotated[
        Literal["stand", "hit"], Field(description="NJ 13:69F-2.12(b)1 / (b)2: the dealer on a soft 17.")
    ]
    blackjack_pays: Annotated[
        Literal["3:2", "6:5"],
        Field(description='"6:5" is the NJ 6 to 5 variation (2.12(d), 19:47-2.10(d)).'),
    ]
    dealer_second_card: Annotated[
        Literal["initial_deal", "after_players"],
        Field(
            description=(
                "Hole-card game, or the dealer's second card dealt after all player hands "
                "(NZ 1994 rules 8.2, 9.6)."
            )
        ),
    ]
    peek: Annotated[
        bool,
        Field(description="In a hole-card game, whether the dealer checks for blackjack before players act."),
    ]
    double_after_split: Annotated[
        bool, Field(description="Doubling after a split; NJ 19:47-2.10(d) lets a 6 to 5 table prohibit it.")
    ]
    double_card: Annotated[
        Literal["face_up", "face_down", "player_request"],
        Field(description="How the double-down card is dealt (NJ 19:47-2.10(c))."),
    ]
    resplit: Annotated[bool, Field(description="Resplitting (NJ 13:69F-2.11(c)1, (e)).")]
    resplit_aces: Annotated[bool, Field(description="Resplitting aces (NJ 13:69F-2.11(e)).")]
    boxes: Annotated[
        int,
        Field(
            ge=1,
            le=9,
            description="Number of player boxes at the table, 1-9; NJ 2.11(e) resplit limits depend on it.",
        ),
    ]
    surrender: Annotated[Literal["none", "late"], Field(description="Surrender offered: none, or late.")]
    min_chip: Annotated[
        int,
        Field(
            gt=0,
            le=MAX_MONEY,
            description=(
                "Smallest chip, minor units (NZ 1994 rule 9.4): the unit to which odds payouts (and the half of a "
                "surrendered wager returned) are rounded (round-v1 section 2.2). 1 when not elected."
            ),
        ),
    ]
    payout_rounding: Annotated[
        Literal["down", "up"],
        Field(
            description=(
                "Odds that do not come out in whole chips of min_chip (3 to 2 on an odd wager, 6 to 5 on a wager "
                'not divisible by 5, 2 to 1 insurance, the half of a surrendered wager returned): "down" (the '
                'default) pays floor(exact / min_chip) x min_chip, "up" the next whole chip. Even-money winnings are '
                "never rounded (round-v1 section 2.2)."
            )
        ),
        _JsonSchema(default="down"),
    ]
    min_wager: Annotated[int, Field(gt=0, le=MAX_MONEY, description="Posted table minimum, minor units.")]
    max_wager: Annotated[int, Field(gt=0, le=MAX_MONEY, description="Posted table maximum, minor units.")]
    additional_wager: Annotated[
        Literal["none", "over_under_13", "same_suit", "seven"],
        Field(description="The NJ 13:69F-2.17(a) additional wager offered at the table."),
    ]


_TD_FORBID = ConfigDict(extra="forbid", strict=True)


class Table(TypedDict):
    """The table the round was played at."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    id: Annotated[Identifier, Field(description="The table; used to look up its registered rule elections.")]
    rules: NotRequired[
        Annotated[
            TableRules,
            Field(
                description=(
                    "Optional: the table's rule elections. When absent, the elections registered for the table "
                    "at played_at apply, else the jurisdiction's defaults, and the audit says which source was "
                    "used."
                ),
                examples=[{"decks": 6, "dealer_soft_17": "stand", "blackjack_pays": "3:2"}],
            ),
        ]
    ]


# ----------------------------------------------------------------------------------------------------
# Seats
# ----------------------------------------------------------------------------------------------------


class AdditionalWager(TypedDict):
    """NJ 13:69F-2.17 additional (side) wager."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    kind: Literal["over_13", "under_13", "same_suit", "seven"]
    amount: Annotated[Wager, Field(description="The side wager, minor units.")]


class Seat(TypedDict):
    """One box with a wager."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    seat: SeatNo
    wager: Annotated[Wager, Field(description="The original wager, minor units.", examples=[2500])]
    additional_wager: NotRequired[
        Annotated[AdditionalWager, Field(description="Optional NJ 13:69F-2.17 side wager.")]
    ]


# ----------------------------------------------------------------------------------------------------
# Events (spec section 2)
# ----------------------------------------------------------------------------------------------------


# Events are validated into plain dicts (TypedDicts: markedly cheaper than model instances, and a round has
# many events), then turned into the domain's event dataclasses by the converters below.


class _EventBase(TypedDict):
    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    at: NotRequired[
        Annotated[Timestamp, Field(description="Optional: when it happened (RFC 3339, with offset).")]
    ]
    note: NotRequired[
        Annotated[Note, Field(description="Optional free text for people; ignored by the audit.")]
    ]


class DealEvent(_EventBase):
    """A card leaves the shoe (or the dealer's hand, in a hand-held game) to a hand."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["deal"]
    to: HandOrDealer
    card: Card
    face: NotRequired[
        Annotated[
            Literal["up", "down"],
            Field(description='"up" (the default) or "down".'),
            _JsonSchema(default="up"),
        ]
    ]


class PeekEvent(_EventBase):
    """The dealer (or a card-reader device) checked the hole card. Recorded where the table system knows of
    one (typically only with an ace or a 10-value up card); its absence proves nothing."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["peek"]
    dealer_blackjack: Annotated[bool, Field(description="Whether the dealer had blackjack.")]


class InsuranceEvent(_EventBase):
    """An insurance wager is placed."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["insurance"]
    seat: SeatNo
    amount: Annotated[Wager, Field(description="The insurance wager, minor units.")]


class EvenMoneyEvent(_EventBase):
    """A player with blackjack takes even money; amount is what was paid. It is itself the settlement of that
    seat's main wager ("in full settlement", NZ 8.3): no settle follows for it."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["even_money"]
    seat: SeatNo
    amount: Annotated[Money, Field(description="What was paid, minor units.")]


class DoubleEvent(_EventBase):
    """A double-down wager is placed on the hand."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["double"]
    hand: PlayerHand
    amount: Annotated[Wager, Field(description="The double-down wager, minor units.")]


class SplitEvent(_EventBase):
    """The hand is split; its second card moves to a new hand."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["split"]
    hand: PlayerHand
    amount: Annotated[Wager, Field(description="The wager placed on the new hand, minor units.")]


class SurrenderEvent(_EventBase):
    """The player surrenders the hand."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["surrender"]
    hand: PlayerHand


class HitEvent(_EventBase):
    """Optional: the player asked for a card (a deal to a player hand after its first two cards already
    means a hit)."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["hit"]
    hand: PlayerHand


class StandEvent(_EventBase):
    """Optional: the player stood (play moving on to another hand already means a stand)."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["stand"]
    hand: PlayerHand


class RevealEvent(_EventBase):
    """A face-down card is turned face up (the dealer's hole card, or a face-down double-down card)."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["reveal"]
    to: HandOrDealer
    card: Card


class BurnEvent(_EventBase):
    """A card leaves the shoe and is discarded, belonging to no hand (round-v1 section 2.3). It counts toward the
    shoe (copies of a card, shoe reconciliation) and toward no hand. A burn before the round's first deal, or once
    the dealer's hand is complete (or from a void on), is the shoe's business; a burn in between removes a card a
    hand or the dealer would have received, and is a finding (uncited:card-burned-during-play)."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["burn"]
    card: Card
    face: NotRequired[
        Annotated[
            Literal["up", "down"],
            Field(description='"down" (the default) or "up": whether the burned card was shown.'),
            _JsonSchema(default="down"),
        ]
    ]


class VoidEvent(_EventBase):
    """The round is declared void: no hand wins or loses (round-v1 section 2.3). After it no card is dealt and no
    decision is taken (a reveal of the hole card may still follow); every wager still in play (main with its
    doubles and splits, insurance, additional) is returned by a settle with result "void" and amount 0.
    Settlements made before the void stand as recorded and are judged as usual. The audit says
    ``"void": {"event": i, "reason": ...}``."""

    __pydantic_config__ = _TD_FORBID  # type: ignore[misc]

    type: Literal["void"]
    reason: Annotated[
        Literal["misdeal", "card_exposed", "shoe_error", "equipment", "other"],
        Field(
            description=(
                'Why the round was declared void: "misdeal", "card_exposed" (a card exposed that should not have '
                'been), "shoe_error", "equipment" (a fault of the shoe, the table system or another device), or '
                '"other".'
            )
        ),
    ]


_SETTLE_SCHEMA_RULES: dict[str, Any] = {
    "allOf": [
        {
            "if": {"properties": {"bet": {"const": "main"}}, "required": ["bet"]},
            "then": {"required": ["hand"], "not": {"required": ["seat"]}},
            "else": {
                "required": ["seat"],
                "not": {"required": ["hand"]},
                "properties": {"result": {"enum": ["win", "lose", "push", "void"]}},
            },
        },
        {
            "if": {"properties": {"result": {"enum": ["push", "void"]}}, "required": ["result"]},
            "then": {"properties": {"amount": {"const": 0}}},
        },
    ]
}


class SettleEvent(_EventBase):
    """A wager is settled. ``main`` (the hand's wager, including any double) names the ``hand``;
    ``insurance`` and ``additional`` (the NJ 13:69F-2.17 side wager) name the ``seat``. ``surrender`` settles
    only a main bet. A wager returned in full is canonically ``push`` with 0 (``lose`` with 0 reads the same);
    the money decides, not the label. ``void`` (with 0) returns a wager of a round declared void (round-v1
    section 2.3). With ``corrects``, the settlement replaces an earlier one that the table corrected."""

    __pydantic_config__ = ConfigDict(  # type: ignore[misc]
        extra="forbid", strict=True, json_schema_extra=_SETTLE_SCHEMA_RULES
    )

    type: Literal["settle"]
    bet: Annotated[
        Literal["main", "insurance", "additional"],
        Field(description='"main" (names the hand), "insurance" or "additional" (name the seat).'),
    ]
    hand: NotRequired[Annotated[PlayerHand, Field(description="The hand settled; with bet main only.")]]
    seat: NotRequired[
        Annotated[SeatNo, Field(description="The seat settled; with bet insurance or additional only.")]
    ]
    result: Annotated[
        Literal["win", "lose", "push", "surrender", "void"],
        Field(
            description=(
                '"win", "lose", "push", "surrender" (a main bet only) or "void": a wager returned because the '
                "round was declared void (round-v1 section 2.3), on any bet."
            )
        ),
    ]
    amount: Annotated[
        Money,
        Field(
            description=(
                "What changed hands, minor units: paid to the player for win (winnings only, the returned "
                "stake not included), collected from the player for lose and surrender, 0 for push and void."
            )
        ),
    ]
    corrects: NotRequired[
        Annotated[
            int,
            Field(
                strict=True,
                ge=0,
                le=MAX_EVENTS - 1,
                description=(
                    "Optional: the 0-based index in events of an earlier settle of the same bet (same hand or "
                    "seat) that the table corrected: this settlement replaces it, and only the last correction "
                    "of a bet counts. The corrected settlement is still judged, its finding carrying "
                    "corrected_by and corrected_actual, and amount_delta is then what is still owed (round-v1 "
                    "section 2.3). An index that names no earlier settle of the same bet makes the round "
                    "unreplayable (a record contradiction), not a schema error."
                ),
                examples=[12],
            ),
        ]
    ]


def _settle_consistent(event: SettleEvent) -> SettleEvent:
    """The checks of a settle that involve more than one of its fields."""
    bet, result, amount = event["bet"], event["result"], event["amount"]
    moves = amount == 0 or (result != "push" and result != "void")
    if bet == "main":
        if "hand" in event and "seat" not in event and moves:
            return event
    elif "seat" in event and "hand" not in event and result != "surrender" and moves:
        return event
    wrong: list[tuple[str, str]] = []
    if bet == "main":
        if "hand" not in event:
            wrong.append(
                ("hand", "required field 'hand' is missing: a main settle names the hand it settles")
            )
        if "seat" in event:
            wrong.append(("seat", "'seat' is not allowed on a main settle, which names the 'hand'"))
    else:
        if "seat" not in event:
            wrong.append(("seat", f"required field 'seat' is missing: an {bet} settle names the seat"))
        if "hand" in event:
            wrong.append(("hand", f"'hand' is not allowed on an {bet} settle, which names the 'seat'"))
        if result == "surrender":
            wrong.append(("result", f"'surrender' settles only a main bet, not an {bet} bet"))
    if result == "push" and amount != 0:
        wrong.append(("amount", f"a push moves no money: amount must be 0, not {amount}"))
    if result == "void" and amount != 0:
        wrong.append(
            (
                "amount",
                f"a void settlement returns the wager and moves no money: amount must be 0, not {amount}",
            )
        )
    raise PydanticCustomError("settle_inconsistent", "{summary}", {"summary": wrong[0][1], "wrong": wrong})


AnyEvent = Annotated[
    DealEvent
    | PeekEvent
    | InsuranceEvent
    | EvenMoneyEvent
    | DoubleEvent
    | SplitEvent
    | SurrenderEvent
    | HitEvent
    | StandEvent
    | RevealEvent
    | Annotated[SettleEvent, AfterValidator(_settle_consistent)]
    | BurnEvent
    | VoidEvent,
    Field(discriminator="type"),
]

_EXAMPLE_ROUND: dict[str, Any] = {
    "round_id": "EX-NJ-0001",
    "jurisdiction": "US-NJ",
    "played_at": "2026-11-30T22:10:00-05:00",
    "table": {
        "id": "BJ12",
        "rules": {
            "decks": 6,
            "dealer_soft_17": "stand",
            "blackjack_pays": "3:2",
            "dealer_second_card": "initial_deal",
            "peek": True,
        },
    },
    "seats": [{"seat": 1, "wager": 2500}],
    "events": [
        {"type": "deal", "to": "1", "card": "6H"},
        {"type": "deal", "to": "dealer", "card": "9C"},
        {"type": "deal", "to": "1", "card": "5D"},
        {"type": "deal", "to": "dealer", "card": "7S", "face": "down"},
        {"type": "double", "hand": "1", "amount": 2500},
        {"type": "deal", "to": "1", "card": "KD"},
        {"type": "reveal", "to": "dealer", "card": "7S"},
        {"type": "deal", "to": "dealer", "card": "4C"},
        {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000},
    ],
}


class RoundModel(BaseModel):
    """A recorded round, format v1: what table-game systems send and auditors read back. Money is an integer
    count of minor units; events record what the table did, right or wrong."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, json_schema_extra={"examples": [_EXAMPLE_ROUND]}
    )

    round_id: str = Field(
        min_length=1,
        max_length=MAX_ID,
        pattern=ROUND_ID_PATTERN,
        description=(
            "Unique per submitter; the idempotency key of the round. 1-128 characters of A-Z a-z 0-9 . _ : -"
        ),
        examples=["BOR-BJ12-20261201-000123"],
    )
    jurisdiction: Literal["US-NJ", "NZ"] = Field(
        description="ISO 3166 code; selects the rules module.", examples=["US-NJ"]
    )
    played_at: Timestamp = Field(
        description=(
            "RFC 3339 timestamp with offset; selects the version of the rules in force (never the server "
            "clock). A round whose played_at is more than 5 minutes after the moment the service receives it cannot "
            "have been played yet, and is refused (422 round-in-future, naming /played_at; a batch line alone)."
        ),
        examples=["2026-12-01T21:14:05-05:00"],
    )
    table: Table
    seats: list[Seat] = Field(
        min_length=1,
        max_length=MAX_SEATS,
        description="One entry per box with a wager; seat 1-9, each seat at most once.",
        examples=[
            [
                {"seat": 1, "wager": 2500},
                {"seat": 4, "wager": 1000, "additional_wager": {"kind": "same_suit", "amount": 100}},
            ]
        ],
    )
    events: list[AnyEvent] = Field(
        min_length=1,
        max_length=MAX_EVENTS,
        description="What happened, in the order it happened (at most 2000 events).",
    )
    dealer_id: Annotated[str, Field(max_length=MAX_ID)] = _optional(
        description="The dealer on duty (employee number); for per-dealer reporting."
    )
    shoe_id: Annotated[str, Field(max_length=MAX_ID)] = _optional(
        description=(
            "The shoe (one shuffle) the round was dealt from; rounds of one shoe share one card supply."
        ),
    )

    @field_validator("seats")
    @classmethod
    def _seats_unique(cls, seats: list[Seat]) -> list[Seat]:
        if len(seats) > 1:
            numbers = [s["seat"] for s in seats]
            if len(set(numbers)) != len(numbers):
                first: dict[int, int] = {}
                dups = []
                for i, n in enumerate(numbers):
                    if n in first:
                        dups.append((i, n, first[n]))
                    else:
                        first[n] = i
                raise PydanticCustomError(
                    "duplicate_seat",
                    "seat {seat} is listed more than once",
                    {"seat": dups[0][1], "duplicates": dups},
                )
        return seats

    def to_domain(self) -> Round:
        """The validated round as the replay engine's immutable :class:`~app.domain.model.Round`."""
        return _to_domain(self)


_CONVERT: dict[str, Callable[[Any], Event]] = {
    "deal": lambda e: forms.deal(e["to"], e["card"], e.get("face", "up")),
    "peek": lambda e: forms.PEEKS[e["dealer_blackjack"]],
    "insurance": lambda e: forms.seat_wager("insurance", e["seat"], e["amount"]),
    "even_money": lambda e: forms.seat_wager("even_money", e["seat"], e["amount"]),
    "double": lambda e: forms.hand_wager("double", e["hand"], e["amount"]),
    "split": lambda e: forms.hand_wager("split", e["hand"], e["amount"]),
    "surrender": lambda e: forms.by_hand("surrender", e["hand"]),
    "hit": lambda e: forms.by_hand("hit", e["hand"]),
    "stand": lambda e: forms.by_hand("stand", e["hand"]),
    "reveal": lambda e: forms.reveal(e["to"], e["card"]),
    "settle": lambda e: forms.settle(
        e["bet"], e.get("hand"), e.get("seat"), e["result"], e["amount"], e.get("corrects")
    ),
    "burn": lambda e: forms.burn(e["card"], e.get("face", "down")),
    "void": lambda e: forms.VOIDS[e["reason"]],
}


def _seat(s: Seat) -> SeatWager:
    aw = s.get("additional_wager")
    if aw is None:
        return forms.seat_of(s["seat"], s["wager"], None, 0)
    return forms.seat_of(s["seat"], s["wager"], aw["kind"], aw["amount"])


_ZONES: dict[timedelta, timezone] = {}


def _stdlib_zone(when: datetime) -> datetime:
    """``when`` with the standard library's timezone of its offset, not pydantic-core's ``TzInfo``: a round is the
    same value whichever reader read it (:mod:`app.wire.fast` builds ``datetime.timezone``; ``TzInfo`` names itself
    ``-05:00`` where ``timezone`` says ``UTC-05:00``)."""
    offset = when.utcoffset()
    if not offset:
        return when.replace(tzinfo=UTC)
    zone = _ZONES.get(offset)
    if zone is None:
        zone = _ZONES[offset] = timezone(offset)
    return when.replace(tzinfo=zone)


def _to_domain(m: RoundModel) -> Round:
    table = m.table
    rules = table.get("rules")
    convert = _CONVERT
    return Round(
        m.round_id,
        m.jurisdiction,
        _stdlib_zone(m.played_at),
        table["id"],
        None if rules is None else dict(rules),
        tuple([_seat(s) for s in m.seats]),
        tuple([convert[e["type"]](e) for e in m.events]),
        m.dealer_id,
        m.shoe_id,
    )


# ----------------------------------------------------------------------------------------------------
# Problems
# ----------------------------------------------------------------------------------------------------


_MONEY_FIELDS = frozenset({"amount", "wager", "min_chip", "min_wager", "max_wager"})
_PATTERN_WHAT = {
    CARD_PATTERN: "card",
    HAND_PATTERN: "hand",
    TARGET_PATTERN: "target",
    TIMESTAMP_PATTERN: "timestamp",
    ROUND_ID_PATTERN: "round_id",
}
_OBJECT_TYPES = frozenset({"model_type", "model_attributes_type", "dict_type"})
_INT_TYPES = frozenset({"int_type", "int_parsing", "int_from_float"})
_OPTIONAL_FIELDS = frozenset(
    {"dealer_id", "shoe_id", "rules", "additional_wager", "at", "note", "hand", "seat"}
)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _show(value: object, limit: int = 40) -> str:
    """A short rendering of a JSON value for a message: ``'1H'``, ``2500.5``, ``true``, ``null``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        try:
            text = str(value)
        except ValueError:  # over the 4300 digits of str(): a decoded value (pydantic's JSON stops before)
            return "a number of over 4300 digits"
        return text if len(text) <= limit else f"a {len(text)}-digit number"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else f"a string of {len(value)} characters"
    return _json_type(value)


def _show_as(value: object) -> str:
    """Like :func:`_show` but says 'the string' for strings: 'not the string '2500''."""
    if isinstance(value, str) and len(value) <= 40:
        return f"the string {value!r}"
    return _show(value)


def _one_of(options: tuple[str, ...] | list[str]) -> str:
    return ", ".join(options)


def _split_loc(loc: tuple[str | int, ...]) -> tuple[list[str | int], str]:
    """Strip discriminator tags from a pydantic location. Returns the JSON location and the event type (or
    '' outside events)."""
    out = list(loc)
    kind = ""
    if len(out) >= 3 and out[0] == "events" and isinstance(out[1], int):
        kind = str(out.pop(2))  # the "type" tag: present whenever the error is inside a resolved event
    return out, kind


def _literal_options(ctx: dict[str, Any] | None) -> str:
    expected = str((ctx or {}).get("expected", ""))
    return expected.replace(" or ", ", ")


def _problem(err: dict[str, Any]) -> list[Problem]:  # noqa: C901 - one branch per kind of error, on purpose
    etype: str = err["type"]
    ctx: dict[str, Any] = err.get("ctx") or {}
    value = err.get("input")
    loc, kind = _split_loc(tuple(err["loc"]))
    field = loc[-1] if loc else ""
    in_events = bool(loc) and loc[0] == "events"

    def at(msg: str, where: list[str | int] | None = None) -> list[Problem]:
        return [{"pointer": pointer(loc if where is None else where), "message": msg}]

    if etype == "json_invalid":
        return at(f"malformed JSON: {ctx.get('error', err.get('msg', ''))}", [])
    if etype in _OBJECT_TYPES:
        if not loc:
            return at(f"a round must be a JSON object, not {_json_type(value)}")
        if value is None and field in _OPTIONAL_FIELDS:
            return at("must be a JSON object, not null: leave the field out instead")
        if in_events and len(loc) == 2:
            return at(f"an event must be a JSON object, not {_show(value)}")
        return at(f"must be a JSON object, not {_show(value)}")
    if etype == "missing":
        return at(f"required field {field!r} is missing")
    if etype == "extra_forbidden":
        if loc[:2] == ["table", "rules"] and len(loc) == 3:
            return at(f"unknown rule election {field!r}")
        return at(f"unknown field {field!r}")
    if etype == "union_tag_not_found":
        return at(f"required field 'type' is missing: must be one of {_one_of(EVENT_TYPES)}", [*loc, "type"])
    if etype == "union_tag_invalid":
        got = value.get("type") if isinstance(value, dict) else ctx.get("tag")
        return at(f"unknown event type {_show(got)}: must be one of {_one_of(EVENT_TYPES)}", [*loc, "type"])
    if etype in _INT_TYPES:
        if value is None and field == "corrects":
            return at("must be an integer, not null: leave the field out instead")
        if field in _MONEY_FIELDS:
            return at(f"must be an integer count of minor units (cents), not {_show_as(value)}")
        return at(f"must be an integer, not {_show_as(value)}")
    if etype in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return at(_range_message(field, value, etype, ctx))
    if etype == "bool_type":
        return at(f"must be true or false, not {_show_as(value)}")
    if etype == "string_type":
        if value is None and field in _OPTIONAL_FIELDS:
            return at("must be a string, not null: leave the field out instead")
        return at(f"must be a string, not {_show(value)}")
    if etype == "list_type":
        return at(f"must be an array, not {_show(value)}")
    if etype == "string_too_short":
        return at("must not be empty")
    if etype == "string_too_long":
        n = len(value) if isinstance(value, str) else "more"
        return at(f"must be at most {ctx.get('max_length')} characters long, not {n}")
    if etype == "too_short":
        things = "events" if field == "events" else "seats" if field == "seats" else "entries"
        return at(f"must list at least {ctx.get('min_length')} {things[:-1]}, not 0")
    if etype == "too_long":
        things = "events" if field == "events" else "seats" if field == "seats" else "entries"
        n = ctx.get("actual_length") or (len(value) if isinstance(value, list) else "more")
        return at(f"has {n} {things}; at most {ctx.get('max_length')} are allowed")
    if etype == "string_pattern_mismatch":
        what = _PATTERN_WHAT.get(ctx.get("pattern", ""), "")
        shown = _show(value)
        if what == "card":
            return at(
                f"{shown} is not a card: rank must be one of A 2-9 T J Q K (or 10), suit one of C D H S"
            )
        if what == "hand":
            if value == DEALER:
                return at(f"'dealer' is not allowed here: a {kind} names a player hand such as '3' or '3.2'")
            return at(f"{shown} is not a hand: write '<seat>' or '<seat>.<n>' with seat 1-9 and n 1-64")
        if what == "target":
            return at(
                f"{shown} is not a hand: write 'dealer', '<seat>' or '<seat>.<n>' with seat 1-9 and n 1-64"
            )
        if what == "timestamp":
            return at(_timestamp_message(value))
        if what == "round_id":
            return at(f"{shown} is not a round_id: use only A-Z a-z 0-9 . _ : -")
        return at(f"{shown} does not have the required form")
    if etype == "literal_error":
        return at(f"{_show(value)} is not one of {_literal_options(ctx)}")
    if etype == "duplicate_seat":
        return [
            {
                "pointer": pointer([*loc, i, "seat"]),
                "message": f"seat {n} is listed more than once (also at /seats/{j})",
            }
            for i, n, j in ctx["duplicates"]
        ]
    if etype == "settle_inconsistent":
        return [{"pointer": pointer([*loc, f]), "message": m} for f, m in ctx["wrong"]]
    if etype in ("datetime_parsing", "datetime_from_date_parsing"):
        return at(f"{_show(value)} is not a real date and time")
    return at(err.get("msg", "invalid value"))


def _range_message(field: str | int, value: object, etype: str, ctx: dict[str, Any]) -> str:
    money = field in _MONEY_FIELDS
    unit = " minor units" if money else ""
    if field == "seat":
        return f"must be a seat number 1-9, not {_show(value)}"
    if field == "corrects":
        return f"must be the index of an earlier settle event (0-{MAX_EVENTS - 1}), not {_show(value)}"
    if etype == "less_than_equal":
        return f"must be at most {ctx.get('le')}{unit}, not {_show(value)}"
    if etype == "less_than":
        return f"must be less than {ctx.get('lt')}{unit}, not {_show(value)}"
    if etype == "greater_than" and ctx.get("gt") == 0 and money:
        return f"must be a positive amount of minor units, not {_show(value)}"
    if etype == "greater_than":
        return f"must be greater than {ctx.get('gt')}, not {_show(value)}"
    if money:
        return f"must not be negative, not {_show(value)}"
    return f"must be at least {ctx.get('ge')}, not {_show(value)}"


_DATE_ONLY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_NAIVE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?")


def _timestamp_message(value: object) -> str:
    shown = _show(value)
    if isinstance(value, str):
        if _DATE_ONLY.fullmatch(value):
            return f"{shown} is a date, not a timestamp: add the time and UTC offset, e.g. {value}T21:14:05Z"
        if _NAIVE.fullmatch(value):
            return f"{shown} has no UTC offset: add 'Z' or '+hh:mm' (RFC 3339)"
    return f"{shown} is not an RFC 3339 timestamp with offset, e.g. 2026-12-01T21:14:05-05:00"


def problems_from(exc: ValidationError) -> list[Problem]:
    """Readable problems for a pydantic ValidationError raised by :class:`RoundModel`."""
    return _problems(exc.errors(include_url=False))


def _problems(errors: list[ErrorDetails]) -> list[Problem]:
    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for err in errors:
        if err["type"] == "string_type" and _timestamp_like(err):
            err = {**err, "type": "string_pattern_mismatch", "ctx": {"pattern": TIMESTAMP_PATTERN}}
        for p in _problem(dict(err)):
            key = (p["pointer"], p["message"])
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out


def _value_faults(errors: list[ErrorDetails]) -> list[Problem]:
    """The faults of strict JSON among the values the model refused (NaN, an integer out of range, nesting too
    deep): no field takes such a value, so each is, or is inside, the input of an error at that error's location
    (but for ``missing``, whose input is the object the field is missing from)."""
    faults: list[Problem] = []
    for err in errors:
        value = err.get("input")
        if (
            err["type"] == "missing"
            or isinstance(value, bool)
            or not isinstance(value, int | float | dict | list)
        ):
            continue
        if isinstance(value, int | float) and -MAX_MONEY <= value <= MAX_MONEY:
            continue
        loc, _ = _split_loc(tuple(err["loc"]))
        faults += value_faults(value, loc, max_int=MAX_MONEY)
    return faults


def _timestamp_like(err: Any) -> bool:
    loc = err["loc"]
    return bool(loc) and loc[-1] in ("played_at", "at") and isinstance(err.get("input"), int | float)


def _readable_round_id(obj: object) -> str | None:
    if isinstance(obj, dict):
        rid = obj.get("round_id")
        if isinstance(rid, str) and ROUND_ID_RE.fullmatch(rid):
            return rid
    return None


# ----------------------------------------------------------------------------------------------------
# Entry points
# ----------------------------------------------------------------------------------------------------

_validate_json = RoundModel.model_validate_json
_validate = RoundModel.model_validate


def parse_round(data: bytes | str) -> Round:
    """JSON text of a recorded round -> :class:`~app.domain.model.Round`.

    Raises :class:`RoundInvalid` listing every problem (malformed JSON included: pointer ``""`` and a message
    with the line and column), strict JSON's first (:mod:`app.wire.strict`)."""
    try:
        model = _validate_json(data)
    except ValidationError as exc:
        raise _refused(data, exc) from None
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if key_tokens(raw) != _members(model):  # perhaps a key given twice: look closer (rare, and exact)
        faults = repeated_keys(raw, max_int=MAX_MONEY)
        if faults:
            raise RoundInvalid(faults, None if _names_round_id(faults) else model.round_id)
    return _to_domain(model)


def _members(m: RoundModel) -> int:
    """How many members the objects of a validated round hold together: as many as its text has distinct keys in
    each object (a key that is no field is refused, and no default is added to what the text holds)."""
    fields = m.__dict__  # the validated fields (read here: attribute access costs more, on the hot path)
    table = fields["table"]
    n = len(m.model_fields_set) + len(table) + sum(map(len, fields["events"]))
    rules = table.get("rules")
    if rules is not None:
        n += len(rules)
    for seat in fields["seats"]:
        n += len(seat)
        aw = seat.get("additional_wager")
        if aw is not None:
            n += len(aw)
    return n


def _names_round_id(faults: list[Problem]) -> bool:
    return any(f["pointer"] == "/round_id" for f in faults)


def _refused(data: bytes | str, exc: ValidationError) -> RoundInvalid:
    errors = exc.errors(include_url=False)
    problems = _problems(errors)
    if any(e["type"] == "json_invalid" for e in errors):  # perhaps only NaN, a huge integer, deep nesting
        return RoundInvalid(merged(scan(data, max_int=MAX_MONEY), problems))
    try:
        obj, repeated = loads_marking_duplicates(data)
    except (ValueError, RecursionError):
        obj, repeated = None, True
    faults = scan(data, max_int=MAX_MONEY) if repeated else _value_faults(errors)
    return RoundInvalid(
        merged(faults, problems), None if _names_round_id(faults) else _readable_round_id(obj)
    )


def round_from_obj(obj: object) -> Round:
    """An already-decoded JSON value (dict, list, ...) -> :class:`~app.domain.model.Round`, with the same
    rules and problems as :func:`parse_round` (no key can be repeated in a decoded value). Raises
    :class:`RoundInvalid`."""
    try:
        model = _validate(obj)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        raise RoundInvalid(
            merged(_value_faults(errors), _problems(errors)), _readable_round_id(obj)
        ) from None
    return _to_domain(model)
