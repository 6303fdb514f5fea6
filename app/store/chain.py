"""The hash chain of each source: what an entry records, how it is linked, appending, and the reads of ``verify``.

Every stored round and registration is appended, in the transaction that stores it, as one entry of its source's
chain (docs/integrity.md has the definition an outsider can recompute):

- ``content``: a JSON object describing the stored row (:func:`round_content`, :func:`registration_content`);
- ``digest`` = SHA-256 of its canonical JSON (:func:`canonical`: keys sorted, no whitespace, UTF-8);
- ``hash`` = SHA-256(previous entry's ``hash`` || ``digest``), the previous hash of the first entry being 32 zero
  bytes; ``seq`` counts 1, 2, 3 ... per source.

The head row of a source (``chain_heads``) holds its last ``seq`` and ``hash``; an append locks it (an upsert), so
that the appends of one source are numbered and linked one after the other whatever the concurrency. Callers take
it as late as they can in their transaction. Nothing here commits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import LargeBinary, Row, bindparam, exists, func, insert, select, text, update
from sqlalchemy.orm import Session

from app.store.models import archives_table as AR
from app.store.models import audits_table as A
from app.store.models import chain_entries_table as CE
from app.store.models import chain_heads_table as CH
from app.store.models import findings_table as F
from app.store.models import round_keys_table as RK
from app.store.models import rounds_table as R
from app.store.models import table_elections_table as E

ZERO = bytes(32)
"""The "previous hash" of a source's first entry."""


def canonical(content: Mapping[str, Any]) -> bytes:
    """The canonical JSON of an entry's content: keys sorted, no whitespace, UTF-8.

    >>> canonical({"b": 1, "a": "é"})
    b'{"a":"\\xc3\\xa9","b":1}'
    """
    return orjson.dumps(content, option=orjson.OPT_SORT_KEYS)


def content_digest(content: Mapping[str, Any]) -> bytes:
    return hashlib.sha256(canonical(content)).digest()


def link(previous: bytes, digest: bytes) -> bytes:
    """An entry's hash: SHA-256 of the previous entry's hash followed by the entry's digest (64 bytes in all)."""
    return hashlib.sha256(previous + digest).digest()


def timestamp(ts: datetime) -> str:
    """A stored time as an entry's content writes it: UTC, microseconds always, ``Z``.

    >>> from datetime import timedelta, timezone
    >>> timestamp(datetime(2026, 12, 3, 9, 0, tzinfo=timezone(timedelta(hours=-5))))
    '2026-12-03T14:00:00.000000Z'
    """
    return ts.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_sha256_hex = sha256_hex


def round_content(v: Mapping[str, Any]) -> dict[str, Any]:
    """What a round's entry records: its stored columns, the record and the audit by their SHA-256.

    ``v`` has the ``rounds`` columns, except that ``record_sha256`` must be the SHA-256 (hex) of the stored record's
    bytes (as stored rows are checked: recomputed, never read from the column) and ``record`` is not needed."""
    return {
        "kind": "round",
        "source": v["source"],
        "jurisdiction": v["jurisdiction"],
        "round_id": v["round_id"],
        "table_id": v["table_id"],
        "played_at": timestamp(v["played_at"]),
        "dealer_id": v["dealer_id"],
        "shoe_id": v["shoe_id"],
        "received_at": timestamp(v["received_at"]),
        "record_sha256": v["record_sha256"],
        "verdict": v["verdict"],
        "ruleset": v["ruleset"],
        "engine_version": v["engine_version"],
        "elections_source": v["elections_source"],
        "elections_id": v.get("elections_id"),
        "finding_count": v["finding_count"],
        "audit_sha256": _sha256_hex(v["audit"].encode()),
    }


def registration_content(v: Mapping[str, Any]) -> dict[str, Any]:
    """What a registration's entry records: its stored columns, the rules by their SHA-256. ``v`` has the
    ``table_elections`` columns (the values inserted, or the row read back)."""
    return {
        "kind": "registration",
        "source": v["source"],
        "jurisdiction": v["jurisdiction"],
        "table_id": v["table_id"],
        "effective_from": timestamp(v["effective_from"]),
        "rules_sha256": _sha256_hex(v["rules"].encode()),
        "created_at": timestamp(v["created_at"]),
        "reason": v.get("reason", ""),
        "registered_by": v.get("registered_by"),
        "supersedes_id": v.get("supersedes_id"),
    }


def audit_content(v: Mapping[str, Any]) -> dict[str, Any]:
    """What a re-audit's entry records: the ``audits`` row's columns, the audit by its SHA-256, and the round it is
    of by its identity (``v`` has the ``audits`` columns and the round's ``round_id`` and ``jurisdiction``)."""
    return {
        "kind": "audit",
        "source": v["source"],
        "jurisdiction": v["jurisdiction"],
        "round_id": v["round_id"],
        "audit_no": v["audit_no"],
        "reaudit_id": v.get("reaudit_id"),
        "created_at": timestamp(v["created_at"]),
        "verdict": v["verdict"],
        "ruleset": v["ruleset"],
        "engine_version": v["engine_version"],
        "elections_source": v["elections_source"],
        "elections_id": v.get("elections_id"),
        "finding_count": v["finding_count"],
        "audit_sha256": _sha256_hex(v["audit"].encode()),
    }


def label(content: Mapping[str, Any]) -> str:
    """What an entry records, for people (kept beside the entry, outside the hash: a deleted row is still named).

    >>> label({"kind": "round", "round_id": "BOR-1", "jurisdiction": "US-NJ"})
    'round BOR-1 (US-NJ)'
    >>> label({"kind": "audit", "round_id": "BOR-1", "jurisdiction": "US-NJ", "audit_no": 2})
    'audit 2 of round BOR-1 (US-NJ)'
    """
    if content["kind"] == "round":
        return f"round {content['round_id']} ({content['jurisdiction']})"
    if content["kind"] == "audit":
        return f"audit {content['audit_no']} of round {content['round_id']} ({content['jurisdiction']})"
    return f"registration of table {content['table_id']} ({content['jurisdiction']}) from {content['effective_from']}"


@dataclass(frozen=True, slots=True)
class Link:
    """An entry to append: the row it records and the digest of its content."""

    kind: str
    ref_id: int
    label: str
    digest: bytes


def link_of(kind: str, ref_id: int, content: Mapping[str, Any]) -> Link:
    if content.get("kind") != kind:
        raise ValueError(f"a {kind} entry with {content.get('kind')!r} content")
    return Link(kind, ref_id, label(content), content_digest(content))


@dataclass(frozen=True, slots=True)
class Position:
    """Where an entry is in its source's chain."""

    seq: int
    hash: bytes

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "hash": self.hash.hex()}


# --- appending ----------------------------------------------------------------------------------------------------

_LOCK_HEAD = text(
    "INSERT INTO chain_heads (source, seq, hash) VALUES (:source, 0, :zero) "
    "ON CONFLICT (source) DO UPDATE SET seq = chain_heads.seq RETURNING seq, hash"
).bindparams(bindparam("zero", type_=LargeBinary()))
"""Lock the source's head row (made at seq 0 for a source's first append) and read it: one statement."""


def append(session: Session, source: str, kind: str, ref_id: int, content: Mapping[str, Any]) -> Position:
    """Append one entry to ``source``'s chain, in the caller's transaction: the row ``ref_id`` of ``kind``
    (``round``, ``registration``) stored now with ``content`` (:func:`round_content`, :func:`registration_content`).
    Call it after the row is inserted, as late as possible in the transaction (it locks the source's head)."""
    return append_links(session, source, [link_of(kind, ref_id, content)])[0]


def append_links(session: Session, source: str, links: Sequence[Link]) -> list[Position]:
    """Append entries in the order given (the caller makes it deterministic): lock the head, link, insert, move
    the head. Two statements on PostgreSQL (three on SQLite) whatever the number of entries."""
    if not links:
        return []
    head = session.execute(_LOCK_HEAD, {"source": source, "zero": ZERO}).one()
    seq, previous = int(head.seq), bytes(head.hash)
    rows: list[dict[str, Any]] = []
    positions: list[Position] = []
    for item in links:
        seq += 1
        previous = link(previous, item.digest)
        positions.append(Position(seq, previous))
        rows.append(
            {
                "source": source,
                "seq": seq,
                "kind": item.kind,
                "ref_id": item.ref_id,
                "label": item.label,
                "digest": item.digest,
                "hash": previous,
            }
        )
    if session.get_bind().dialect.name == "postgresql":
        # The driver's own SQL (SQLAlchemy passes it as is, and still wraps its errors): the arrays go in binary (%b),
        # which psycopg dumps ≈ 8 times faster than as text (≈ 7 µs a round of a batch chunk's CPU, bytea arrays most).
        session.connection().exec_driver_sql(
            _PG_INSERT_AND_MOVE,
            {
                "source": source,
                "seqs": [r["seq"] for r in rows],
                "kinds": [r["kind"] for r in rows],
                "refs": [r["ref_id"] for r in rows],
                "labels": [r["label"] for r in rows],
                "digests": [r["digest"] for r in rows],
                "hashes": [r["hash"] for r in rows],
                "seq": seq,
                "hash": previous,
            },
        )
    else:
        session.execute(insert(CE), rows)
        session.execute(update(CH).where(CH.c.source == source).values(seq=seq, hash=previous))
    return positions


_PG_INSERT_AND_MOVE = (
    "WITH e AS (INSERT INTO chain_entries (source, seq, kind, ref_id, label, digest, hash) "
    "SELECT %(source)s, t.seq, t.kind, t.ref_id, t.label, t.digest, t.hash FROM unnest(%(seqs)b::bigint[], "
    "%(kinds)b::text[], %(refs)b::bigint[], %(labels)b::text[], %(digests)b::bytea[], %(hashes)b::bytea[]) "
    "AS t(seq, kind, ref_id, label, digest, hash)) "
    "UPDATE chain_heads SET seq = %(seq)s, hash = %(hash)s WHERE source = %(source)s"
)
"""PostgreSQL: the entries (as arrays: one statement whatever their number) and the head's move, in one round trip."""


# --- PostgreSQL: the append inside the one statement of a single round (app.store.pg) ------------------------------

PG_APPEND_CTES = (
    "h AS (INSERT INTO chain_heads AS head (source, seq, hash) "
    "SELECT r.source, 1, sha256(%(chain_zero)s || %(chain_digest)s) FROM r "
    "ON CONFLICT (source) DO UPDATE SET seq = head.seq + 1, hash = sha256(head.hash || %(chain_digest)s) "
    "RETURNING seq, hash), "
    "e AS (INSERT INTO chain_entries (source, seq, kind, ref_id, label, digest, hash) "
    "SELECT r.source, h.seq, 'round', r.id, %(chain_label)s, %(chain_digest)s, h.hash FROM r, h)"
)
"""Data-modifying CTEs that append the round inserted by the CTE ``r`` (``RETURNING id, source``) to its chain: the
head upsert locks the source's head row until the statement commits, and computes the entry's hash in SQL with
PostgreSQL's ``sha256(bytea)``, the same definition as :func:`link`. Nothing is appended when ``r`` is empty."""


def pg_append_params(content: Mapping[str, Any]) -> dict[str, Any]:
    return {"chain_zero": ZERO, "chain_digest": content_digest(content), "chain_label": label(content)}


# --- reading ------------------------------------------------------------------------------------------------------


def head(session: Session, source: str) -> Position | None:
    row = session.execute(select(CH.c.seq, CH.c.hash).where(CH.c.source == source)).one_or_none()
    return None if row is None or row.seq == 0 else Position(int(row.seq), bytes(row.hash))


def entry_at(session: Session, source: str, seq: int) -> Position | None:
    row = session.execute(
        select(CE.c.seq, CE.c.hash).where(CE.c.source == source, CE.c.seq == seq)
    ).one_or_none()
    return None if row is None else Position(int(row.seq), bytes(row.hash))


def entry_digest(session: Session, source: str, seq: int) -> bytes:
    return bytes(
        session.execute(select(CE.c.digest).where(CE.c.source == source, CE.c.seq == seq)).scalar_one()
    )


def sources(session: Session) -> list[str]:
    """Every source with a chain or a stored row."""
    found: set[str] = set()
    for stmt in (
        select(CH.c.source),
        select(CE.c.source).distinct(),
        select(R.c.source).distinct(),
        select(E.c.source).distinct(),
    ):
        found.update(session.execute(stmt).scalars())
    return sorted(found)


def _sha256_sql(session: Session) -> None:
    """SQLite has no ``sha256()``: lend it Python's, on this session's connection (PostgreSQL has its own)."""
    if session.get_bind().dialect.name == "sqlite":
        driver = session.connection().connection.driver_connection
        if driver is not None:
            driver.create_function(
                "sha256",
                1,
                lambda b: None if b is None else hashlib.sha256(b).digest(),
                deterministic=True,
            )


_ROUND_ROW = (
    R.c.id.label("r_id"),
    R.c.source.label("r_source"),
    R.c.jurisdiction.label("r_jurisdiction"),
    R.c.round_id.label("r_round_id"),
    R.c.table_id.label("r_table_id"),
    R.c.played_at.label("r_played_at"),
    R.c.dealer_id.label("r_dealer_id"),
    R.c.shoe_id.label("r_shoe_id"),
    R.c.received_at.label("r_received_at"),
    func.sha256(R.c.record, type_=LargeBinary()).label("r_record_digest"),
    R.c.record_sha256.label("r_record_sha256"),
    R.c.verdict.label("r_verdict"),
    R.c.ruleset.label("r_ruleset"),
    R.c.engine_version.label("r_engine_version"),
    R.c.elections_source.label("r_elections_source"),
    R.c.elections_id.label("r_elections_id"),
    R.c.finding_count.label("r_finding_count"),
    R.c.audit.label("r_audit"),
    R.c.void_reason.label("r_void_reason"),
    R.c.record.label("r_record"),
)
_REGISTRATION_ROW = (
    E.c.id.label("t_id"),
    E.c.source.label("t_source"),
    E.c.jurisdiction.label("t_jurisdiction"),
    E.c.table_id.label("t_table_id"),
    E.c.effective_from.label("t_effective_from"),
    E.c.rules.label("t_rules"),
    E.c.created_at.label("t_created_at"),
    E.c.reason.label("t_reason"),
    E.c.registered_by.label("t_registered_by"),
    E.c.supersedes_id.label("t_supersedes_id"),
)
_AUDIT_ROW = (
    A.c.id.label("a_id"),
    A.c.round_pk.label("a_round_pk"),
    A.c.audit_no.label("a_audit_no"),
    A.c.source.label("a_source"),
    A.c.reaudit_id.label("a_reaudit_id"),
    A.c.created_at.label("a_created_at"),
    A.c.verdict.label("a_verdict"),
    A.c.ruleset.label("a_ruleset"),
    A.c.engine_version.label("a_engine_version"),
    A.c.elections_source.label("a_elections_source"),
    A.c.elections_id.label("a_elections_id"),
    A.c.finding_count.label("a_finding_count"),
    A.c.audit.label("a_audit"),
    A.c.void_reason.label("a_void_reason"),
)
_AUDITED = R.alias("audited")
_KEY = RK.alias("round_key")
_AUDITED_KEY = RK.alias("audited_key")
"""The round a re-audit is of (its identity is in the audit's entry; its coordinates check the findings rows)."""
_PAGE = (
    select(
        CE.c.seq,
        CE.c.kind,
        CE.c.ref_id,
        CE.c.label,
        CE.c.digest,
        CE.c.hash,
        *_ROUND_ROW,
        *_REGISTRATION_ROW,
        *_AUDIT_ROW,
        _AUDITED.c.round_id.label("a_round_id"),
        _AUDITED.c.jurisdiction.label("a_jurisdiction"),
        _AUDITED.c.table_id.label("a_table_id"),
        _AUDITED.c.played_at.label("a_played_at"),
        _AUDITED.c.record.label("a_record"),
        _KEY.c.played_at.label("k_played_at"),
        _AUDITED_KEY.c.played_at.label("ak_played_at"),
    )
    .select_from(
        # A round is reached through its key, by (id, played_at): one partition of rounds, not each.
        CE.outerjoin(_KEY, (CE.c.kind == "round") & (_KEY.c.id == CE.c.ref_id))
        .outerjoin(R, (R.c.id == _KEY.c.id) & (R.c.played_at == _KEY.c.played_at))
        .outerjoin(E, (CE.c.kind == "registration") & (E.c.id == CE.c.ref_id))
        .outerjoin(A, (CE.c.kind == "audit") & (A.c.id == CE.c.ref_id))
        .outerjoin(_AUDITED_KEY, _AUDITED_KEY.c.id == A.c.round_pk)
        .outerjoin(
            _AUDITED,
            (_AUDITED.c.id == _AUDITED_KEY.c.id) & (_AUDITED.c.played_at == _AUDITED_KEY.c.played_at),
        )
    )
    .where(
        CE.c.source == bindparam("source"),
        CE.c.seq > bindparam("after"),
        CE.c.seq <= bindparam("upto"),
    )
    .order_by(CE.c.seq)
    .limit(bindparam("page"))
)


def month_start(moment: datetime) -> datetime:
    moment = moment.astimezone(UTC)
    return datetime(moment.year, moment.month, 1, tzinfo=UTC)


def archived_months(session: Session) -> frozenset[datetime]:
    """The months archived and not restored (``archives``): their rounds are gone by design."""
    return frozenset(
        month_start(m)
        for m in session.execute(select(AR.c.month).where(AR.c.restored_at.is_(None))).scalars()
    )


def entries_page(session: Session, source: str, after: int, upto: int, page: int) -> Sequence[Row[Any]]:
    """The entries of ``source`` with ``after`` < seq <= min(``after + page``, ``upto``), in seq order — a range of
    seqs, not a LIMIT: whatever the planner believes of the table's size (a stale estimate made it sort a million
    rows for the first thousand), a page reads at most ``page`` entries by the primary key —, each with the row it
    records (``r_*`` columns for a round, ``t_*`` for a registration, ``a_*`` for a re-audit; all NULL when the row
    is gone). The record comes as its bytes (``r_record``, ``a_record``: the audits are re-run) and its SHA-256
    computed by the database (``r_record_digest``)."""
    _sha256_sql(session)
    last = min(after + page, upto)
    return session.execute(_PAGE, {"source": source, "after": after, "upto": last, "page": page}).all()


def round_values(row: Any) -> dict[str, Any]:
    """The ``r_*`` columns of an :func:`entries_page` row as :func:`round_content` takes them."""
    return {
        "source": row.r_source,
        "jurisdiction": row.r_jurisdiction,
        "round_id": row.r_round_id,
        "table_id": row.r_table_id,
        "played_at": row.r_played_at,
        "dealer_id": row.r_dealer_id,
        "shoe_id": row.r_shoe_id,
        "received_at": row.r_received_at,
        "record_sha256": bytes(row.r_record_digest).hex(),
        "verdict": row.r_verdict,
        "ruleset": row.r_ruleset,
        "engine_version": row.r_engine_version,
        "elections_source": row.r_elections_source,
        "elections_id": row.r_elections_id,
        "finding_count": row.r_finding_count,
        "audit": row.r_audit,
    }


def registration_values(row: Any) -> dict[str, Any]:
    """The ``t_*`` columns of an :func:`entries_page` row as :func:`registration_content` takes them."""
    return {
        "source": row.t_source,
        "jurisdiction": row.t_jurisdiction,
        "table_id": row.t_table_id,
        "effective_from": row.t_effective_from,
        "rules": row.t_rules,
        "created_at": row.t_created_at,
        "reason": row.t_reason,
        "registered_by": row.t_registered_by,
        "supersedes_id": row.t_supersedes_id,
    }


def audit_values(row: Any) -> dict[str, Any]:
    """The ``a_*`` columns of an :func:`entries_page` row as :func:`audit_content` takes them."""
    return {
        "source": row.a_source,
        "jurisdiction": row.a_jurisdiction,
        "round_id": row.a_round_id,
        "audit_no": row.a_audit_no,
        "reaudit_id": row.a_reaudit_id,
        "created_at": row.a_created_at,
        "verdict": row.a_verdict,
        "ruleset": row.a_ruleset,
        "engine_version": row.a_engine_version,
        "elections_source": row.a_elections_source,
        "elections_id": row.a_elections_id,
        "finding_count": row.a_finding_count,
        "audit": row.a_audit,
        "table_id": row.a_table_id,
        "played_at": row.a_played_at,
    }


FINDING_COLUMNS = (
    F.c.round_pk,
    F.c.seq,
    F.c.rule,
    F.c.also_cited_as,
    F.c.citation_status,
    F.c.category,
    F.c.event_index,
    F.c.hand,
    F.c.amount_delta,
    F.c.source,
    F.c.jurisdiction,
    F.c.table_id,
    F.c.played_at,
    F.c.audit_no,
    F.c.corrected_by,
    F.c.corrected_actual,
)


def findings_of(session: Session, round_pks: Sequence[int]) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """The ``findings`` rows of these rounds, by (round, audit number), each audit's in seq order (the rows
    without their ``audit_no``, which is in the key)."""
    out: dict[tuple[int, int], list[dict[str, Any]]] = {}
    pks = sorted(set(round_pks))
    for i in range(0, len(pks), 500):
        stmt = (
            select(*FINDING_COLUMNS)
            .where(F.c.round_pk.in_(pks[i : i + 500]))
            .order_by(F.c.round_pk, F.c.audit_no, F.c.seq)
        )
        for row in session.execute(stmt):
            values = dict(row._mapping)
            audit_no = int(values.pop("audit_no"))
            out.setdefault((int(row.round_pk), audit_no), []).append(values)
    return out


def entries_beyond(session: Session, source: str, seq: int) -> tuple[int, int | None]:
    """How many entries of ``source`` have a seq over ``seq``, and the greatest."""
    row = session.execute(
        select(func.count(), func.max(CE.c.seq)).where(CE.c.source == source, CE.c.seq > seq)
    ).one()
    return int(row[0]), None if row[1] is None else int(row[1])


def max_ids(session: Session) -> dict[str, int]:
    """The greatest id of each table a chain records (0 when empty): rows beyond are those stored since."""
    return {
        name: int(session.execute(select(func.coalesce(func.max(t.c.id), 0))).scalar_one())
        for name, t in (("rounds", R), ("registrations", E), ("audits", A))
    }


def unchained(
    session: Session, source: str, limit: int, after: Mapping[str, int] | None = None
) -> tuple[int, list[str]]:
    """Stored rows of ``source`` that no entry records (inserted outside the service, or their entry deleted): how
    many, and the labels of the first ``limit``. ``after``: only rows with a greater id (:func:`max_ids`)."""
    since = after or {}
    no_round_entry = ~exists().where(CE.c.kind == "round", CE.c.ref_id == R.c.id) & (
        R.c.id > since.get("rounds", 0)
    )
    no_registration_entry = ~exists().where(CE.c.kind == "registration", CE.c.ref_id == E.c.id) & (
        E.c.id > since.get("registrations", 0)
    )
    no_audit_entry = ~exists().where(CE.c.kind == "audit", CE.c.ref_id == A.c.id) & (
        A.c.id > since.get("audits", 0)
    )
    count = (
        int(session.execute(select(func.count()).where(R.c.source == source, no_round_entry)).scalar_one())
        + int(
            session.execute(
                select(func.count()).where(E.c.source == source, no_registration_entry)
            ).scalar_one()
        )
        + int(session.execute(select(func.count()).where(A.c.source == source, no_audit_entry)).scalar_one())
    )
    labels: list[str] = []
    if count:
        rounds = (
            select(R.c.round_id, R.c.jurisdiction)
            .where(R.c.source == source, no_round_entry)
            .order_by(R.c.id)
            .limit(limit)
        )
        labels += [f"round {r.round_id} ({r.jurisdiction})" for r in session.execute(rounds)]
        registrations = (
            select(E.c.table_id, E.c.jurisdiction, E.c.effective_from)
            .where(E.c.source == source, no_registration_entry)
            .order_by(E.c.id)
            .limit(max(limit - len(labels), 0))
        )
        labels += [
            f"registration of table {r.table_id} ({r.jurisdiction}) from {timestamp(r.effective_from)}"
            for r in session.execute(registrations)
        ]
        audits = (
            select(A.c.audit_no, R.c.round_id, R.c.jurisdiction)
            .join(R, R.c.id == A.c.round_pk)
            .where(A.c.source == source, no_audit_entry)
            .order_by(A.c.id)
            .limit(max(limit - len(labels), 0))
        )
        labels += [
            f"audit {r.audit_no} of round {r.round_id} ({r.jurisdiction})" for r in session.execute(audits)
        ]
    return count, labels


APPEND_ONLY_TABLES = (
    "round_keys",
    "rounds",
    "findings",
    "table_elections",
    "chain_entries",
    "audits",
    "merkle_nodes",
    "tree_heads",
)
"""Tables whose rows are never updated or deleted by the service (on PostgreSQL a trigger refuses it to every role
but the owner's)."""

__all__ = [
    "ZERO",
    "canonical",
    "content_digest",
    "link",
    "round_content",
    "registration_content",
    "audit_content",
    "append",
    "append_links",
    "Link",
    "Position",
]


# --- what a round's evidence needs ----------------------------------------------------------------------------------


def round_evidence_rows(session: Session, round_pk: int) -> tuple[Any, Sequence[Any], list[Any]]:
    """A round's row with its entry (``seq``, ``digest``), its re-audits' rows with theirs (in order), and the
    registrations its audits were made by, with their entries, in the order the audits first used them."""
    rnd = session.execute(
        select(*R.c, CE.c.seq.label("entry_seq"), CE.c.digest.label("entry_digest"))
        .select_from(R.outerjoin(CE, (CE.c.kind == "round") & (CE.c.ref_id == R.c.id)))
        .where(R.c.id == round_pk)
    ).one()
    later = session.execute(
        select(*A.c, CE.c.seq.label("entry_seq"), CE.c.digest.label("entry_digest"))
        .select_from(A.outerjoin(CE, (CE.c.kind == "audit") & (CE.c.ref_id == A.c.id)))
        .where(A.c.round_pk == round_pk)
        .order_by(A.c.audit_no)
    ).all()
    ids = list(dict.fromkeys(registered_elections([rnd._mapping, *(a._mapping for a in later)])))
    found = {
        int(r.id): r
        for r in session.execute(
            select(*E.c, CE.c.seq.label("entry_seq"), CE.c.digest.label("entry_digest"))
            .select_from(E.outerjoin(CE, (CE.c.kind == "registration") & (CE.c.ref_id == E.c.id)))
            .where(E.c.id.in_(ids))
        )
    }
    return rnd, later, [found[i] for i in ids if i in found]


def registered_elections(audits: Sequence[Mapping[Any, Any]]) -> list[int]:
    """The registrations (ids) that audits (rows of ``rounds`` or ``audits``) were made by, in their order."""
    return [
        int(a["elections_id"]) for a in audits if a["elections_source"] == "registered" and a["elections_id"]
    ]


def registrations_by_id(session: Session, ids: Sequence[int]) -> dict[int, Any]:
    """Registrations (source, jurisdiction, table_id, rules) by id: the elections an audit names."""
    out: dict[int, Any] = {}
    wanted = sorted(set(ids))
    for i in range(0, len(wanted), 500):
        stmt = select(E.c.id, E.c.source, E.c.jurisdiction, E.c.table_id, E.c.rules).where(
            E.c.id.in_(wanted[i : i + 500])
        )
        out.update({int(r.id): r for r in session.execute(stmt)})
    return out


@dataclass(frozen=True, slots=True)
class ReauditJob:
    source: str | None
    requested_by: str | None
    created_at: datetime
    round_pks: frozenset[int]


def reaudit_jobs(session: Session, ids: Sequence[str]) -> dict[str, ReauditJob]:
    """Re-audit jobs by id, with the rounds they were asked to re-run (from their chunks)."""
    from app.store.models import reaudit_chunks_table as RC
    from app.store.models import reaudits_table as RA

    out: dict[str, ReauditJob] = {}
    for job in session.execute(
        select(RA.c.id, RA.c.source, RA.c.requested_by, RA.c.created_at).where(RA.c.id.in_(sorted(set(ids))))
    ):
        pks: set[int] = set()
        for chunk in session.execute(select(RC.c.round_pks).where(RC.c.reaudit_id == job.id)).scalars():
            try:
                pks.update(int(x) for x in orjson.loads(chunk))
            except (orjson.JSONDecodeError, TypeError, ValueError):
                continue
        out[job.id] = ReauditJob(job.source, job.requested_by, job.created_at, frozenset(pks))
    return out


def existing_key_ids(session: Session, key_ids: Sequence[str]) -> list[str]:
    from app.store.models import api_keys_table as K

    if not key_ids:
        return []
    return list(session.execute(select(K.c.key_id).where(K.c.key_id.in_(list(key_ids)))).scalars())


def rounds_received_before(
    session: Session, source: str, after_seq: int, before: datetime, limit: int = 20
) -> list[tuple[int, str, datetime]]:
    """Round entries after ``after_seq`` whose round was received before ``before``: (seq, label, received_at)."""
    rows = session.execute(
        select(CE.c.seq, CE.c.label, R.c.received_at)
        .join(R, (CE.c.kind == "round") & (R.c.id == CE.c.ref_id))
        .where(CE.c.source == source, CE.c.seq > after_seq, R.c.received_at < before)
        .order_by(CE.c.seq)
        .limit(limit)
    ).all()
    return [(int(r.seq), r.label, r.received_at) for r in rows]
