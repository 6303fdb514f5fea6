"""The wire format of a re-audit request (``POST /v1/reaudit``): which stored rounds to re-run, and why."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from app.wire.forms import MAX_ID, MAX_MONEY
from app.wire.schema import Problem, Timestamp, problems_from
from app.wire.strict import key_tokens, merged, repeated_keys, scan

_EXAMPLE: dict[str, Any] = {
    "jurisdiction": "US-NJ",
    "from": "2026-11-01T00:00:00-05:00",
    "to": "2026-12-01T00:00:00-05:00",
    "reason": "Engine 0.2 corrects the soft-17 check (issue 12)",
}


class ReauditRequest(BaseModel):
    """Which stored rounds to re-audit with the current engine (every one of the key's source when nothing is
    narrowed), and why. Each round gets a new audit only if the result differs from its latest."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        populate_by_name=False,
        json_schema_extra={"examples": [_EXAMPLE]},
    )

    played_from: Timestamp | None = Field(
        default=None, alias="from", description="Rounds played at or after this time (RFC 3339 with offset)."
    )
    played_to: Timestamp | None = Field(
        default=None, alias="to", description="Rounds played before this time (RFC 3339 with offset)."
    )
    table: str | None = Field(
        default=None, min_length=1, max_length=MAX_ID, description="Only this table's rounds."
    )
    jurisdiction: Literal["US-NJ", "NZ"] | None = Field(
        default=None, description="Only this jurisdiction's rounds."
    )
    reason: str = Field(
        min_length=1,
        max_length=2000,
        pattern=r"\S",
        description="Why the rounds are re-audited (kept with the re-audit, for the record).",
    )

    @model_validator(mode="after")
    def _ordered(self) -> ReauditRequest:
        if self.played_from is not None and self.played_to is not None and self.played_to <= self.played_from:
            raise ValueError("'to' must be after 'from'")  # reworded with its pointer by _reword
        return self


@dataclass(frozen=True, slots=True)
class Reaudit:
    played_from: datetime | None
    played_to: datetime | None
    table: str | None
    jurisdiction: str | None
    reason: str


class ReauditInvalid(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0]["message"] if problems else "invalid re-audit request")
        self.problems = problems


def _reword(p: Problem) -> Problem:
    if p["pointer"] == "" and p["message"].endswith("'to' must be after 'from'"):
        return {"pointer": "/to", "message": "must be after 'from'"}
    return p


def parse_reaudit(data: bytes | str) -> Reaudit:
    """JSON text of a re-audit request. Raises :class:`ReauditInvalid` listing every problem with its JSON pointer
    (strict JSON's first, as for a round: :mod:`app.wire.strict`).

    >>> parse_reaudit(b'{"table": "BJ12", "reason": "engine 0.2"}').table
    'BJ12'
    >>> try:
    ...     parse_reaudit(b'{"reason": "x", "to": "2026-01-01T00:00:00Z", "from": "2026-02-01T00:00:00Z"}')
    ... except ReauditInvalid as exc:
    ...     exc.problems
    [{'pointer': '/to', 'message': "must be after 'from'"}]
    """
    try:
        model = ReauditRequest.model_validate_json(data)
    except ValidationError as exc:
        problems = [_reword(p) for p in problems_from(exc)]
        raise ReauditInvalid(merged(scan(data, max_int=MAX_MONEY), problems)) from None
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if key_tokens(raw) != len(model.model_fields_set):  # perhaps a key given twice
        faults = repeated_keys(raw, max_int=MAX_MONEY)
        if faults:
            raise ReauditInvalid(faults)
    nul = [name for name in ("table", "reason") if "\x00" in (getattr(model, name) or "")]
    if nul:  # (PostgreSQL's text cannot hold it)
        raise ReauditInvalid(
            [
                {"pointer": f"/{name}", "message": "must not contain the NUL character (\\u0000)"}
                for name in nul
            ]
        )
    return Reaudit(model.played_from, model.played_to, model.table, model.jurisdiction, model.reason.strip())
