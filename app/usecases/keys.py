"""Use cases of API keys: who may do what, for which source.

A key is ``bja_<key_id>_<secret>``: ``key_id`` (16 hex digits) is public — it finds the key, and names it in lists,
logs and attributions — and the secret (256 random bits) is never stored: only the SHA-256 of the whole key is kept,
and compared in constant time. A key is bound to one source (the tenant: a casino's table system, whose rounds,
elections and batches it sees) or to every source (``source`` NULL: a regulator's or an operator's key), and to
scopes:

- ``submit``: table-game systems — rounds, batches, dry runs (needs a source: a round belongs to one);
- ``read``: auditors — lookups, searches, batch progress, integrity; a key for every source reads every source;
- ``admin``: keys and table elections (a key for every source manages every source's).

Functions take a :class:`~sqlalchemy.orm.Session` and never commit (the edge owns the transaction).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy.orm import Session

from app.store import keys as repo
from app.usecases.errors import Forbidden, KeyInvalid, KeyNotFound
from app.usecases.offline import iso_utc

SCOPES = ("submit", "read", "admin")
PREFIX = "bja_"
_TOKEN = re.compile(r"^bja_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$")
SOURCE_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"
"""A source's name (the tenant a key acts for): the one pattern the API, the keys and the CLI check."""


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: a key (``key_id``), or the anonymous development caller (``key_id`` None)."""

    key_id: str | None
    label: str
    source: str | None
    """The one source the key acts for, or None: every source."""
    scopes: frozenset[str]

    @property
    def attribution(self) -> str:
        """How the caller is named in what it records (a registration's ``registered_by``)."""
        return f"key {self.key_id} ({self.label})" if self.key_id else self.label

    def reads(self, requested: str | None) -> str | None:
        """The source a read is limited to: the key's own (asking for another's is :class:`Forbidden`), or, for
        a key of every source, the one asked for (None: all)."""
        if self.source is None:
            return requested
        if requested is not None and requested != self.source:
            raise Forbidden(
                f"This key reads only source {self.source!r}; it asked for {requested!r}.",
                extra={"key_source": self.source},
            )
        return self.source

    def writes(self, requested: str | None) -> str:
        """The source a write acts for: the key's own, or for a key of every source the one it names."""
        if self.source is not None:
            return self.reads(requested) or self.source
        if requested is None:
            raise Forbidden(
                "This key acts for every source: name the source to act for (?source=).",
                extra={"key_source": None},
            )
        return requested


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def key_id_of(token: str) -> str | None:
    """The public id of a well-formed key, else None.

    >>> key_id_of("bja_0123456789abcdef_" + "A" * 43)
    '0123456789abcdef'
    >>> key_id_of("bja_0123456789abcdef_short"), key_id_of("Bearer x")
    (None, None)
    """
    m = _TOKEN.match(token)
    return m.group(1) if m else None


def principal_of(row: Any, token: str) -> Principal | None:
    """The caller a stored key row makes of ``token``, or None when the token is not that key's or it is revoked."""
    if row is None or row.revoked_at is not None:
        return None
    if not hmac.compare_digest(row.secret_sha256, digest(token)):
        return None
    return Principal(row.key_id, row.label, row.source, frozenset(row.scopes.split()))


def authenticate(session: Session, token: str) -> Principal | None:
    key_id = key_id_of(token)
    return None if key_id is None else principal_of(repo.find(session, key_id), token)


# --- managing keys --------------------------------------------------------------------------------------------


def check_scopes(scopes: Iterable[str], source: str | None) -> frozenset[str]:
    wanted = frozenset(scopes)
    errors = [
        {"pointer": "/scopes", "detail": f"unknown scope {s!r}; scopes are {', '.join(SCOPES)}"}
        for s in sorted(wanted - set(SCOPES))
    ]
    if not wanted:
        errors.append({"pointer": "/scopes", "detail": f"at least one of {', '.join(SCOPES)}"})
    if source is None and "submit" in wanted:
        errors.append(
            {
                "pointer": "/scopes",
                "detail": "a key for every source cannot submit: a round belongs to one source",
            }
        )
    if source is not None and not re.match(SOURCE_PATTERN, source):
        errors.append({"pointer": "/source", "detail": "1-128 of A-Z a-z 0-9 . _ : -"})
    if errors:
        raise KeyInvalid("The key cannot be created; nothing was stored.", errors=errors)
    return wanted


def _public(row: Any) -> dict[str, Any]:
    return {
        "key_id": row.key_id,
        "source": row.source,
        "scopes": row.scopes.split(),
        "label": row.label,
        "created_at": iso_utc(row.created_at),
        "created_by": row.created_by,
        "revoked_at": iso_utc(row.revoked_at) if row.revoked_at else None,
    }


@dataclass(frozen=True, slots=True)
class Created:
    key: str
    """The key itself: shown once, never stored."""
    info: dict[str, Any]


def create_key(
    session: Session,
    source: str | None,
    scopes: Iterable[str],
    label: str,
    by: Principal | None = None,
) -> Created:
    """Create a key for ``source`` (None: every source). ``by`` is the admin key creating it (None: the command
    line, run by whoever holds the database): a key of one source creates keys of that source only."""
    wanted = check_scopes(scopes, source)
    if not label.strip():
        raise KeyInvalid(
            "The key needs a label (who or what will use it).",
            errors=[{"pointer": "/label", "detail": "must not be empty"}],
        )
    if by is not None and by.source is not None and source != by.source:
        raise Forbidden(f"This key manages only source {by.source!r}'s keys.")
    key_id = secrets.token_hex(8)
    token = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
    values = {
        "key_id": key_id,
        "secret_sha256": digest(token),
        "source": source,
        "scopes": " ".join(s for s in SCOPES if s in wanted),
        "label": label.strip(),
        "created_at": datetime.now(UTC),
        "created_by": by.attribution if by is not None else "command line",
        "revoked_at": None,
    }
    repo.add(session, values)
    row = repo.find(session, key_id)
    return Created(token, _public(row))


def list_keys(session: Session, by: Principal | None = None) -> list[dict[str, Any]]:
    """Every key (None: the command line; a key of every source), or a key's own source's."""
    everyone = by is None or by.source is None
    return [_public(r) for r in repo.listing(session, by.source if by else None, everyone)]


def revoke_key(session: Session, key_id: str, by: Principal | None = None) -> dict[str, Any]:
    """Revoke a key, effective at once (every request looks its key up). Revoking twice keeps the first time."""
    row = repo.find(session, key_id)
    if row is None or (by is not None and by.source is not None and row.source != by.source):
        raise KeyNotFound(
            f"No API key {key_id!r}" + ("" if by is None else " among this key's source's keys.")
        )
    repo.revoke(session, key_id, datetime.now(UTC))
    return _public(repo.find(session, key_id))


def keys_body(items: list[dict[str, Any]]) -> bytes:
    return orjson.dumps({"items": items})


def bootstrap(session: Session, source: str) -> Created | None:
    """The first key, on a service with none: every scope, for ``source`` (the default source of the quickstart).
    None when a key exists. Callers serialise (one process at start-up)."""
    if repo.count(session):
        return None
    return create_key(session, source, SCOPES, "first admin key (created at first start)")
