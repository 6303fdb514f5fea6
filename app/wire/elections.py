"""The wire format of a table's registered rule elections (``PUT /v1/tables/{table_id}/elections``).

The ``rules`` object is validated by the very type that validates a round's ``table.rules``
(:class:`app.wire.schema.TableRules`, round-v1 section 3), so that a registration accepts exactly the elections a round
may carry and reports the same problems, with JSON pointers into the registration (``/rules/decks``). A what-if
audit's elections (``POST /v1/audit?elections=``) are read by the same type too (:func:`parse_elections`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from app.wire.schema import MAX_MONEY, Problem, TableRules, Timestamp, problems_from
from app.wire.strict import key_tokens, merged, repeated_keys, scan

__all__ = [
    "ElectionsInvalid",
    "ElectionsRegistration",
    "Registration",
    "RegistrationInvalid",
    "parse_elections",
    "parse_registration",
]

_EXAMPLE: dict[str, Any] = {
    "jurisdiction": "US-NJ",
    "effective_from": "2026-12-01T00:00:00-05:00",
    "rules": {"decks": 6, "dealer_soft_17": "hit", "blackjack_pays": "3:2"},
    "reason": "Table BJ12 opened with the December rule card",
}


class ElectionsRegistration(BaseModel):
    """A table's rule elections, in force from ``effective_from`` until the table's next registration. Rounds of
    the table without ``table.rules`` are audited by the registration in force at their ``played_at``."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, json_schema_extra={"examples": [_EXAMPLE]}
    )

    jurisdiction: Literal["US-NJ", "NZ"] = Field(
        description="ISO 3166 code: the registration applies to the table's rounds of this jurisdiction."
    )
    effective_from: Timestamp = Field(
        description="RFC 3339 timestamp with offset: rounds played at or after it (and before the next "
        "registration's effective_from) are audited by these elections."
    )
    rules: TableRules = Field(
        description="The table's rule elections, exactly as a round's table.rules (round-v1 section 3)."
    )
    reason: str = Field(
        min_length=1,
        max_length=2000,
        pattern=r"\S",
        description="Why the elections are registered (kept with the registration, for the record).",
    )
    supersedes: int | None = Field(
        default=None,
        ge=1,
        description="A correction: the id of the registration in force at the same effective_from that this one "
        "replaces (from the table's elections history). Nothing is overwritten: both are kept.",
    )


@dataclass(frozen=True, slots=True)
class Registration:
    jurisdiction: str
    effective_from: datetime
    rules: dict[str, Any]
    reason: str
    supersedes: int | None


class RegistrationInvalid(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0]["message"] if problems else "invalid registration")
        self.problems = problems


def _reword(p: Problem) -> Problem:
    ptr, msg = p["pointer"], p["message"]
    if ptr.startswith("/rules/") and ptr.count("/") == 2 and msg.startswith("unknown field "):
        return {"pointer": ptr, "message": "unknown rule election " + msg.removeprefix("unknown field ")}
    if ptr == "/rules" and msg.endswith("leave the field out instead"):
        return {"pointer": ptr, "message": "must be a JSON object of rule elections, not null"}
    if ptr == "" and msg.startswith("a round must be"):
        return {"pointer": ptr, "message": "the registration" + msg.removeprefix("a round")}
    if ptr == "/effective_from" and msg.startswith("must be a string, not ") and msg[-1].isdigit():
        return {
            "pointer": ptr,
            "message": "must be an RFC 3339 timestamp with offset, e.g. 2026-12-01T00:00:00Z",
        }
    return p


def parse_registration(data: bytes | str) -> Registration:
    """JSON text of a registration. Raises :class:`RegistrationInvalid` listing every problem with its JSON
    pointer, strict JSON's first (a key given twice, NaN, an integer out of range, absurd nesting: as for a round,
    :mod:`app.wire.strict`)."""
    try:
        model = ElectionsRegistration.model_validate_json(data)
    except ValidationError as exc:
        problems = [_reword(p) for p in problems_from(exc)]
        raise RegistrationInvalid(merged(scan(data, max_int=MAX_MONEY), problems)) from None
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if key_tokens(raw) != len(model.model_fields_set) + len(model.rules):  # perhaps a key given twice
        faults = repeated_keys(raw, max_int=MAX_MONEY)
        if faults:
            raise RegistrationInvalid(faults)
    return Registration(
        model.jurisdiction, model.effective_from, dict(model.rules), model.reason.strip(), model.supersedes
    )


class ElectionsInvalid(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0]["message"] if problems else "invalid elections")
        self.problems = problems


_TABLE_RULES: TypeAdapter[TableRules] = TypeAdapter(TableRules)


def _reword_elections(p: Problem) -> Problem:
    ptr, msg = p["pointer"], p["message"]
    if ptr.count("/") == 1 and msg.startswith("unknown field "):
        return {"pointer": ptr, "message": "unknown rule election " + msg.removeprefix("unknown field ")}
    if ptr == "" and msg.startswith("a round must be"):
        return {"pointer": ptr, "message": "the elections" + msg.removeprefix("a round")}
    return p


def parse_elections(data: bytes | str) -> dict[str, Any]:
    """JSON text of table elections alone (a what-if audit's), validated exactly as a round's ``table.rules``.
    Raises :class:`ElectionsInvalid` listing every problem with its JSON pointer into the object, strict JSON's
    first.

    >>> parse_elections('{"dealer_soft_17": "hit"}')
    {'dealer_soft_17': 'hit'}
    >>> parse_elections('{"decks": 9, "colour": "red"}')
    Traceback (most recent call last):
    ...
    app.wire.elections.ElectionsInvalid: must be at most 8, not 9
    >>> parse_elections('{"decks": 6, "decks": 8}')
    Traceback (most recent call last):
    ...
    app.wire.elections.ElectionsInvalid: key 'decks' is duplicated...
    """
    try:
        rules = _TABLE_RULES.validate_json(data)
    except ValidationError as exc:
        problems = [_reword_elections(p) for p in problems_from(exc)]
        raise ElectionsInvalid(merged(scan(data, max_int=MAX_MONEY), problems)) from None
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if key_tokens(raw) != len(rules):  # perhaps a key given twice
        faults = repeated_keys(raw, max_int=MAX_MONEY)
        if faults:
            raise ElectionsInvalid(faults)
    return dict(rules)
