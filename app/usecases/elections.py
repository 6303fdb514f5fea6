"""Use cases of table elections: register a table's rule elections from a time, list a table's registrations.

Functions take a :class:`~sqlalchemy.orm.Session` and never commit (the edge owns the transaction)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy.orm import Session

from app.store import chain
from app.store import elections as elections_repo
from app.usecases.errors import ElectionsConflict, ElectionsInvalid
from app.usecases.offline import iso_utc
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
        "id": row.id,
        "source": row.source,
        "jurisdiction": row.jurisdiction,
        "table_id": row.table_id,
        "effective_from": iso_utc(row.effective_from),
        "rules": orjson.Fragment(row.rules.encode()),
        "reason": row.reason,
        "registered_by": row.registered_by,
        "created_at": iso_utc(row.created_at),
        "supersedes": row.supersedes_id,
        "superseded_by": getattr(row, "superseded_by", None),
    }


def register_elections(session: Session, table_id: str, body: bytes, source: str, by: str) -> Registered:
    """Register a table's rule elections from ``effective_from``, by ``by`` (who: the key), for ``source``.

    The history is append-only. The first registration at a time is an original; registering the same elections
    again changes nothing (``created`` False); other elections at that time must say which registration they
    correct (``supersedes``: the one in force there), else they are a conflict and change nothing. A correction is
    a new registration: the one it supersedes stays in the history. The elections are validated exactly as a
    round's ``table.rules``."""
    _check_table_id(table_id)
    try:
        reg = parse_registration(body)
    except RegistrationInvalid as exc:
        errors = [{"pointer": p["pointer"], "detail": p["message"]} for p in exc.problems]
        n = len(errors)
        raise ElectionsInvalid(
            f"The registration has {n} problem{'s' if n != 1 else ''}; nothing was stored.", errors=errors
        ) from exc
    if "\x00" in reg.reason:  # stored as text: PostgreSQL's cannot hold NUL
        raise ElectionsInvalid(
            "The registration has 1 problem; nothing was stored.",
            errors=[{"pointer": "/reason", "detail": "must not contain the NUL character (\\u0000)"}],
        )
    rules_json = orjson.dumps(reg.rules, option=orjson.OPT_SORT_KEYS).decode()
    key = (source, reg.jurisdiction, table_id, reg.effective_from)
    where = f"Table {table_id!r} ({reg.jurisdiction}) of source {source!r} from {iso_utc(reg.effective_from)}"
    current = elections_repo.current_at(session, *key)
    if current is not None and reg.supersedes is None:
        if current.rules == rules_json:
            return Registered(False, reg.jurisdiction, orjson.dumps(_registration(current)))
        raise ElectionsConflict(
            f"{where} already has other elections registered (id {current.id}); nothing was changed. To correct "
            f'them, send "supersedes": {current.id} with a reason; to change them for later rounds, register from '
            "a later time.",
            extra={
                "registration": current.id,
                "stored_rules": orjson.loads(current.rules),
                "rules": reg.rules,
            },
        )
    if reg.supersedes is not None and (current is None or current.id != reg.supersedes):
        raise ElectionsConflict(
            f"{where}: registration {reg.supersedes} is not the one in force there"
            + (f" (registration {current.id} is)" if current is not None else " (none is)")
            + "; nothing was changed. A correction supersedes the registration in force at the same table, "
            "jurisdiction and effective_from.",
            extra={"registration": current.id if current is not None else None},
        )
    values = {
        "source": source,
        "jurisdiction": reg.jurisdiction,
        "table_id": table_id,
        "effective_from": reg.effective_from,
        "rules": rules_json,
        "created_at": datetime.now(UTC),
        "reason": reg.reason,
        "registered_by": by,
        "supersedes_id": reg.supersedes,
    }
    pk = elections_repo.insert(session, values)
    if pk is None:
        raise ElectionsConflict(
            f"{where} was registered or corrected concurrently; nothing was changed. Read the history and retry."
        )
    chain.append(session, source, "registration", pk, chain.registration_content(values))
    row = elections_repo.by_id(session, pk)
    return Registered(True, reg.jurisdiction, orjson.dumps(_registration(row)))


def list_elections(session: Session, table_id: str, source: str | None, jurisdiction: str | None) -> bytes:
    """A table's registration history (``source`` None: every source's), newest effective_from first; superseded
    registrations are listed with ``superseded_by``."""
    rows = elections_repo.history(session, source, table_id, jurisdiction)
    return orjson.dumps({"table_id": table_id, "source": source, "items": [_registration(r) for r in rows]})
