"""The fast reading of a recorded round: msgspec decodes and type-checks the JSON in C, a short loop checks what
msgspec cannot say (a card's spelling, a timestamp's form, a settle's fields together) and builds the domain round.

It takes the same decision as the model (:func:`app.wire.schema.parse_round`) on every input, by construction where
it refuses: a record this path does not accept, for whatever reason, is read again by the model, which accepts it or
names every problem with the messages the service has always given. So this module only has to be right when it
accepts, and ``tests/property/test_parse_differential.py`` checks that it is (the same round, field for field),
over generated rounds, every mutator fault and garbage. The model, and Pydantic with it, is imported only then:
``bjaudit audit`` of good records never imports Pydantic.

What it accepts, exactly:

* strict JSON: msgspec refuses NaN, Infinity, trailing text, invalid UTF-8; a key given twice (msgspec keeps the
  last) makes the text hold more member names than the decoded round has members (:func:`~app.wire.strict.key_tokens`),
  and such a record goes to the model, which names the key;
* the types and bounds of ``round-v1``: every object closed (an unknown member refused, ``table.rules`` included);
  an optional member absent, never ``null``; integers never floats or booleans, within their bounds (an integer
  too large for any bound is refused before it is built);
* patterns as the model's (Rust's regex: ``$`` is the end of the text, a final newline is not let through): round_id
  by :data:`~app.wire.forms.ROUND_ID_RE`, cards and hands by their tables of spellings, timestamps by
  :data:`_TIMESTAMP` then the calendar (no 24:00, no leap second, no 30 February) then years 1-9999 in UTC;
  fractions of a second beyond microseconds are cut, as the model's parser does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from app.domain.model import Event, Round, SeatWager
from app.wire import forms
from app.wire.forms import MAX_EVENTS, MAX_ID, MAX_MONEY, MAX_NOTE, MAX_SEATS, ROUND_ID_RE
from app.wire.strict import key_tokens

__all__ = ["parse_round"]

Money = Annotated[int, Meta(ge=0, le=MAX_MONEY)]
Wager = Annotated[int, Meta(gt=0, le=MAX_MONEY)]
SeatNo = Annotated[int, Meta(ge=1, le=MAX_SEATS)]
Note = Annotated[str, Meta(max_length=MAX_NOTE)]
Identifier = Annotated[str, Meta(min_length=1, max_length=MAX_ID)]


class _Closed(Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    pass


class Rules(_Closed, frozen=True, kw_only=True):
    """``table.rules``: the fields in the order of :class:`app.wire.schema.TableRules` (the order of the dict the
    model builds, whatever the order in the text)."""

    decks: Annotated[int, Meta(ge=1, le=8)] | UnsetType = UNSET
    dealt_from: Literal["shoe", "hand"] | UnsetType = UNSET
    dealer_soft_17: Literal["stand", "hit"] | UnsetType = UNSET
    blackjack_pays: Literal["3:2", "6:5"] | UnsetType = UNSET
    dealer_second_card: Literal["initial_deal", "after_players"] | UnsetType = UNSET
    peek: bool | UnsetType = UNSET
    double_after_split: bool | UnsetType = UNSET
    double_card: Literal["face_up", "face_down", "player_request"] | UnsetType = UNSET
    resplit: bool | UnsetType = UNSET
    resplit_aces: bool | UnsetType = UNSET
    boxes: Annotated[int, Meta(ge=1, le=9)] | UnsetType = UNSET
    surrender: Literal["none", "late"] | UnsetType = UNSET
    min_chip: Wager | UnsetType = UNSET
    payout_rounding: Literal["down", "up"] | UnsetType = UNSET
    min_wager: Wager | UnsetType = UNSET
    max_wager: Wager | UnsetType = UNSET
    additional_wager: Literal["none", "over_under_13", "same_suit", "seven"] | UnsetType = UNSET


_RULE_NAMES = Rules.__struct_fields__


class Table(_Closed, frozen=True, kw_only=True):
    id: Identifier
    rules: Rules | UnsetType = UNSET


class AdditionalWager(_Closed, frozen=True, kw_only=True):
    kind: Literal["over_13", "under_13", "same_suit", "seven"]
    amount: Wager


class Seat(_Closed, frozen=True, kw_only=True):
    seat: SeatNo
    wager: Wager
    additional_wager: AdditionalWager | UnsetType = UNSET


class _Event(_Closed, tag_field="type", frozen=True, kw_only=True):
    at: str | UnsetType = UNSET
    note: Note | UnsetType = UNSET


class Deal(_Event, tag="deal", frozen=True, kw_only=True):
    to: str
    card: str
    face: Literal["up", "down"] | UnsetType = UNSET


class Peek(_Event, tag="peek", frozen=True, kw_only=True):
    dealer_blackjack: bool


class Insurance(_Event, tag="insurance", frozen=True, kw_only=True):
    seat: SeatNo
    amount: Wager


class EvenMoney(_Event, tag="even_money", frozen=True, kw_only=True):
    seat: SeatNo
    amount: Money


class Double(_Event, tag="double", frozen=True, kw_only=True):
    hand: str
    amount: Wager


class Split(_Event, tag="split", frozen=True, kw_only=True):
    hand: str
    amount: Wager


class Surrender(_Event, tag="surrender", frozen=True, kw_only=True):
    hand: str


class Hit(_Event, tag="hit", frozen=True, kw_only=True):
    hand: str


class Stand(_Event, tag="stand", frozen=True, kw_only=True):
    hand: str


class Reveal(_Event, tag="reveal", frozen=True, kw_only=True):
    to: str
    card: str


class Settle(_Event, tag="settle", frozen=True, kw_only=True):
    bet: Literal["main", "insurance", "additional"]
    hand: str | UnsetType = UNSET
    seat: SeatNo | UnsetType = UNSET
    result: Literal["win", "lose", "push", "surrender", "void"]
    amount: Money
    corrects: Annotated[int, Meta(ge=0, le=MAX_EVENTS - 1)] | UnsetType = UNSET


class Burn(_Event, tag="burn", frozen=True, kw_only=True):
    card: str
    face: Literal["up", "down"] | UnsetType = UNSET


class Void(_Event, tag="void", frozen=True, kw_only=True):
    reason: Literal["misdeal", "card_exposed", "shoe_error", "equipment", "other"]


AnyEvent = (
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


class RoundRecord(_Closed, frozen=True, kw_only=True):
    round_id: str
    jurisdiction: Literal["US-NJ", "NZ"]
    played_at: str
    table: Table
    seats: Annotated[list[Seat], Meta(min_length=1, max_length=MAX_SEATS)]
    events: Annotated[list[AnyEvent], Meta(min_length=1, max_length=MAX_EVENTS)]
    dealer_id: Annotated[str, Meta(max_length=MAX_ID)] | UnsetType = UNSET
    shoe_id: Annotated[str, Meta(max_length=MAX_ID)] | UnsetType = UNSET


_decode = msgspec.json.Decoder(RoundRecord).decode


class _NotHere(Exception):
    """This path does not accept the record: the model reads it."""


# --- timestamps -------------------------------------------------------------------------------------------------

_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?"
    r"(?:[Zz]|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))"
)
""":data:`app.wire.forms.TIMESTAMP_PATTERN`, with groups, for ``fullmatch``."""


def _instant(text: str) -> datetime:
    m = _TIMESTAMP.fullmatch(text)
    if (
        m is None or text[11:13] >= "24"
    ):  # (a later Python's fromisoformat takes 24:00 as the next day's 00:00)
        raise _NotHere
    try:
        when = datetime.fromisoformat(
            text
        )  # in C; it truncates a fraction to microseconds, as the model does
    except ValueError:  # a lowercase z; a day, hour or second that does not exist
        when = _calendar(m)
    try:
        when.astimezone(UTC)
    except (ValueError, OverflowError):  # outside years 1-9999 in UTC
        raise _NotHere from None
    return when


_DAYS: dict[str, bool] = {}
"""Dates (``YYYY-MM-DD``) seen in an event's time -> whether the calendar has them."""


def _check_time(text: str) -> None:
    """An event's time (``at``) is checked, not kept (the domain has no use for it): the form, then the date once
    per day seen, the clock by its digits, and the range of years by :func:`_instant` at the edges of the calendar."""
    if _TIMESTAMP.fullmatch(text) is None:
        raise _NotHere
    day = text[:10]
    real = _DAYS.get(day)
    if real is None:
        try:
            datetime(int(day[:4]), int(day[5:7]), int(day[8:10]))
            real = True
        except ValueError:
            real = False
        if len(_DAYS) >= 4096:
            _DAYS.clear()
        _DAYS[day] = real
    if not real or text[11:13] >= "24" or text[14:16] >= "60" or text[17:19] >= "60":
        raise _NotHere
    if day <= "0001-01-01" or day >= "9999-12-31":  # an offset may carry it out of years 1-9999 in UTC
        _instant(text)


def _calendar(m: re.Match[str]) -> datetime:
    year, month, day, hour, minute, second, fraction, sign, oh, om = m.groups()
    if sign is None or (oh == "00" and om == "00"):
        zone: timezone = UTC
    else:
        zone = timezone((-1 if sign == "-" else 1) * timedelta(hours=int(oh), minutes=int(om)))
    micro = int(fraction[:6].ljust(6, "0")) if fraction else 0
    try:
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, zone)
    except ValueError:
        raise _NotHere from None


# --- events -----------------------------------------------------------------------------------------------------


def _settle(e: Settle) -> Event:
    hand, seat, result, amount = e.hand, e.seat, e.result, e.amount
    if e.bet == "main":
        if hand is UNSET or seat is not UNSET:
            raise _NotHere
    elif seat is UNSET or hand is not UNSET or result == "surrender":
        raise _NotHere
    if amount and (result == "push" or result == "void"):
        raise _NotHere
    return forms.settle(
        e.bet,
        None if hand is UNSET else hand,
        None if seat is UNSET else seat,
        result,
        amount,
        None if e.corrects is UNSET else e.corrects,
    )


_CONVERT: dict[type[Struct], Callable[[Any], Event]] = {
    Deal: lambda e: forms.deal(e.to, e.card, "up" if e.face is UNSET else e.face),
    Peek: lambda e: forms.PEEKS[e.dealer_blackjack],
    Insurance: lambda e: forms.seat_wager("insurance", e.seat, e.amount),
    EvenMoney: lambda e: forms.seat_wager("even_money", e.seat, e.amount),
    Double: lambda e: forms.hand_wager("double", e.hand, e.amount),
    Split: lambda e: forms.hand_wager("split", e.hand, e.amount),
    Surrender: lambda e: forms.by_hand("surrender", e.hand),
    Hit: lambda e: forms.by_hand("hit", e.hand),
    Stand: lambda e: forms.by_hand("stand", e.hand),
    Reveal: lambda e: forms.reveal(e.to, e.card),
    Settle: _settle,
    Burn: lambda e: forms.burn(e.card, "down" if e.face is UNSET else e.face),
    Void: lambda e: forms.VOIDS[e.reason],
}
_REQUIRED = {cls: 1 + sum(f.required for f in msgspec.structs.fields(cls)) for cls in _CONVERT}
"""Members every event of a type has in its text: its required fields and ``type``."""
_OPTIONAL = {cls: tuple(f.name for f in msgspec.structs.fields(cls) if not f.required) for cls in _CONVERT}
"""The optional members of each type of event (each present in the text when not UNSET)."""


_KNOWN: dict[Struct, tuple[Any, int]] = {}
"""Each event (and seat) read before -> its domain value and the number of members its object holds. The decoded
structs are frozen values, hashed and compared in C: most of a round's events were seen in an earlier round, and
then cost one lookup. An event is checked once, the first time (its card, hand, timestamp, fields together)."""


def _new_event(e: AnyEvent) -> tuple[Event, int]:
    cls = type(e)
    members = _REQUIRED[cls]
    for name in _OPTIONAL[cls]:
        if getattr(e, name) is not UNSET:
            members += 1
    if e.at is not UNSET:
        _instant(e.at)
    return _CONVERT[cls](e), members


def _new_seat(s: Seat) -> tuple[SeatWager, int]:
    aw = s.additional_wager
    if aw is UNSET:
        return forms.seat_of(s.seat, s.wager, None, 0), 2
    return forms.seat_of(s.seat, s.wager, aw.kind, aw.amount), 5


def _known(value: Struct, new: Callable[[Any], tuple[Any, int]]) -> tuple[Any, int]:
    return forms.keep(_KNOWN, value, new(value))


def _event(e: AnyEvent) -> tuple[Event, int]:
    """An event not in the cache. One with a time or a note (its own, seen once) is the same event without them,
    cached, and its time checked: the cache holds only what repeats."""
    at, note = e.at, e.note
    if at is UNSET and note is UNSET:
        return _known(e, _new_event)
    bare = msgspec.structs.replace(e, at=UNSET, note=UNSET)
    event, members = _KNOWN.get(bare) or _known(bare, _new_event)
    if at is not UNSET:
        _check_time(at)
        members += 1
    return event, members + (note is not UNSET)


def _seat(s: Seat) -> tuple[SeatWager, int]:
    return _known(s, _new_seat)


def _events(events: list[AnyEvent]) -> tuple[tuple[Event, ...], int]:
    """The domain's events and how many members their objects hold."""
    known = _KNOWN.get
    out, members = zip(*[known(e) or _event(e) for e in events], strict=True)
    return out, sum(members)


def _seats(seats: list[Seat]) -> tuple[tuple[SeatWager, ...], int]:
    known = _KNOWN.get
    out, members = zip(*[known(s) or _seat(s) for s in seats], strict=True)
    if len(seats) > 1 and len({s.seat for s in seats}) != len(seats):
        raise _NotHere
    return out, sum(members)


def _new_rules(rules: Rules) -> tuple[tuple[tuple[str, object], ...], int]:
    given = tuple((name, value) for name in _RULE_NAMES if (value := getattr(rules, name)) is not UNSET)
    return given, len(given)


# --- the round --------------------------------------------------------------------------------------------------


def _read(raw: bytes) -> Round:
    try:
        r = _decode(raw)
    except msgspec.DecodeError:  # a ValidationError too
        raise _NotHere from None
    if ROUND_ID_RE.fullmatch(r.round_id) is None:
        raise _NotHere
    played_at = _instant(r.played_at)
    table = r.table
    members = 6 + (r.dealer_id is not UNSET) + (r.shoe_id is not UNSET) + 1  # the round's, and table.id
    if table.rules is UNSET:
        rules: dict[str, object] | None = None
    else:
        given, n = _KNOWN.get(table.rules) or _known(table.rules, _new_rules)
        rules = dict(given)  # a round's own (the round may be changed by whoever holds it)
        members += 1 + n
    seats, in_seats = _seats(r.seats)
    events, in_events = _events(r.events)
    if key_tokens(raw) != members + in_seats + in_events:  # a key given twice, or a string holding '":'
        raise _NotHere
    return Round(
        r.round_id,
        r.jurisdiction,
        played_at,
        table.id,
        rules,
        seats,
        events,
        None if r.dealer_id is UNSET else r.dealer_id,
        None if r.shoe_id is UNSET else r.shoe_id,
    )


def parse_round(data: bytes | str) -> Round:
    """JSON text of a recorded round -> :class:`~app.domain.model.Round`, as :func:`app.wire.schema.parse_round`
    (raises its :class:`~app.wire.forms.RoundInvalid`), faster."""
    try:
        return _read(data.encode() if isinstance(data, str) else data)
    except (_NotHere, KeyError, UnicodeError):  # KeyError: a card or hand that is no spelling of one
        from app.wire import schema

        return schema.parse_round(data)
