"""Use cases of table elections: register a table's rule elections from a time, list a table's registrations.

Functions take a :class:`~sqlalchemy.orm.Session` and never commit (the edge owns the transaction)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy.orm import Session

from app.store import elections as elections_repo
from app.usecases.errors import ElectionsConflict, ElectionsInvalid
from app.usecases.rounds import iso_utc
from app.wire.elections import RegistrationInvalid, parse_registration

# --- table elections --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Registered:
    created: bool
    """False: the same elections were registered before for that table and effective_from (nothing changed)."""
    jurisdiction: str
    body: bytes


def _check_table_id(table_id: str) -> None:
    if "\x00" in table_id:
        raise ElectionsInvalid(
            "The table id cannot be stored; nothing was stored.",
            errors=[
                {
                    "in": "path",
                    "parameter": "table_id",
                    "detail": "must not contain the NUL character (\\u0000)",
                }
            ],
        )


def _registration(row: Any) -> dict[str, Any]:
    return {
        "source": row.source,
        "jurisdiction": row.jurisdiction,
        "table_id": row.table_id,
        "effective_from": iso_utc(row.effective_from),
        "rules": orjson.Fragment(row.rules.encode()),
        "created_at": iso_utc(row.created_at),
    }


def register_elections(session: Session, table_id: str, body: bytes, source: str) -> Registered:
    """Register a table's rule elections from ``effective_from``, once per (source, jurisdiction, table_id,
    effective_from): the same elections again change nothing (``created`` False); different ones are a conflict
    and change nothing. The elections are validated exactly as a round's ``table.rules``."""
    _check_table_id(table_id)
    try:
        jurisdiction, effective_from, rules = parse_registration(body)
    except RegistrationInvalid as exc:
        errors = [{"pointer": p["pointer"], "detail": p["message"]} for p in exc.problems]
        n = len(errors)
        raise ElectionsInvalid(
            f"The registration has {n} problem{'s' if n != 1 else ''}; nothing was stored.", errors=errors
        ) from exc
    rules_json = orjson.dumps(rules, option=orjson.OPT_SORT_KEYS).decode()
    key = (source, jurisdiction, table_id, effective_from)
    pk = elections_repo.insert(
        session,
        {
            "source": source,
            "jurisdiction": jurisdiction,
            "table_id": table_id,
            "effective_from": effective_from,
            "rules": rules_json,
            "created_at": datetime.now(UTC),
        },
    )
    row = elections_repo.stored(session, *key)
    if row is None:  # cannot happen without a delete path
        raise ElectionsConflict("The registration was being changed concurrently; retry.")
    if pk is None and row.rules != rules_json:
        raise ElectionsConflict(
            f"Table {table_id!r} ({jurisdiction}) already has other elections registered by {source!r} from "
            f"{iso_utc(effective_from)}; nothing was changed. Register the new elections from a later time.",
            extra={"stored_rules": orjson.loads(row.rules), "rules": rules},
        )
    return Registered(pk is not None, jurisdiction, orjson.dumps(_registration(row)))


def list_elections(session: Session, table_id: str, source: str, jurisdiction: str | None) -> bytes:
    """A table's registrations by ``source``, newest effective_from first."""
    rows = elections_repo.listing(session, source, table_id, jurisdiction)
    return orjson.dumps({"table_id": table_id, "source": source, "items": [_registration(r) for r in rows]})
