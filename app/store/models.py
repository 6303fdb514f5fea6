"""The tables. The schema is what the migrations in ``migrations/`` say; these models must agree with them (a test
compares the two).

``round_keys`` is the identity of each stored round: its (round_id, source, jurisdiction), unique, and the ``id`` that
the round and everything of it (findings, audits, acknowledgements) are known by. It is inserted first, in the
transaction that stores the round, which is inserted only when its key was: the key's unique constraint decides
duplicates and conflicts. On PostgreSQL ``rounds`` and ``findings`` are partitioned by month of ``played_at``
(app/store/partitions.py), and a partitioned table's unique constraints must include the partition key: the key,
unpartitioned, is the round's global home. Foreign keys point at ``round_keys`` (never at a partitioned table), so
that a month's partitions can be detached.

``rounds`` keeps each record verbatim (``bytea`` / ``BLOB``: the bytes as received, the evidence; never JSONB,
which reorders keys) with its SHA-256, and the audit made when it was received (the JSON text returned to the
submitter, so that a replayed submission gets the same bytes back). ``findings`` holds one row per finding,
denormalised with the round's jurisdiction, table and time so that auditors can search by rule, table and date.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

VERDICTS = ("compliant", "violations", "unreplayable")
ELECTIONS_SOURCES = ("record", "registered", "defaults")
DELIVERY_OUTCOMES = ("delivered", "failed", "refused")

BigId = BigInteger().with_variant(Integer(), "sqlite")  # SQLite autoincrements only INTEGER PRIMARY KEY


class UTCDateTime(TypeDecorator[datetime]):
    """An aware timestamp stored in UTC: ``timestamptz`` on PostgreSQL; on SQLite a UTC text that sorts in time
    order. Always read back aware (UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTCDateTime column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _in(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


class RoundKeyRow(Base):
    """A stored round's identity: its key (round_id, source, jurisdiction) and its ``id``, allocated here, with the
    ``played_at`` that finds the round's partition. Append-only; it outlives an archived round's partition."""

    __tablename__ = "round_keys"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    round_id: Mapped[str] = mapped_column(String(128))
    source: Mapped[str] = mapped_column(String(128))
    jurisdiction: Mapped[str] = mapped_column(String(16))
    played_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (UniqueConstraint("round_id", "source", "jurisdiction"),)


class RoundRow(Base):
    """A recorded round as received, and its audit. Its ``id`` is its key's (``round_keys``)."""

    __tablename__ = "rounds"

    id: Mapped[int] = mapped_column(
        BigId, ForeignKey("round_keys.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    source: Mapped[str] = mapped_column(String(128))
    """The table system that submitted the round (X-Bjaudit-Source, or the configured default)."""
    jurisdiction: Mapped[str] = mapped_column(String(16))
    round_id: Mapped[str] = mapped_column(String(128))
    table_id: Mapped[str] = mapped_column(Text)
    played_at: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    """Part of the primary key: the partition key on PostgreSQL must be in it."""
    dealer_id: Mapped[str | None] = mapped_column(Text)
    shoe_id: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime)
    record: Mapped[bytes] = mapped_column(LargeBinary)
    """The request body, byte for byte."""
    record_sha256: Mapped[str] = mapped_column(String(64))
    verdict: Mapped[str] = mapped_column(String(16))
    ruleset: Mapped[str] = mapped_column(Text)
    engine_version: Mapped[str] = mapped_column(String(64))
    elections_source: Mapped[str] = mapped_column(String(16))
    elections_id: Mapped[int | None] = mapped_column(BigId)
    """The table_elections registration the round was audited by (elections_source 'registered'), else NULL."""
    finding_count: Mapped[int] = mapped_column(Integer)
    audit: Mapped[str] = mapped_column(Text)
    """The audit result as returned to the submitter (JSON text)."""
    void_reason: Mapped[str | None] = mapped_column(String(16))
    """The audit's ``void.reason`` when the round was declared void (round-v1 section 2.3), else NULL: derived from
    ``audit``, kept for search and reports."""

    __table_args__ = (
        CheckConstraint(f"verdict IN ({_in(VERDICTS)})", name="verdict"),
        CheckConstraint(f"elections_source IN ({_in(ELECTIONS_SOURCES)})", name="elections_source"),
        Index(None, "played_at", "id"),
        Index(None, "table_id", "played_at"),
        Index(None, "dealer_id", "played_at"),
        Index(None, "shoe_id", "played_at"),
        Index(None, "source", "played_at"),
        Index(None, "jurisdiction", "played_at"),
        # The rare rounds, by the keyset order of searches (a search by verdict or void reads them alone).
        *(
            Index(name, "played_at", "id", postgresql_where=text(where), sqlite_where=text(where))
            for name, where in (
                ("ix_rounds_violations", "verdict = 'violations'"),
                ("ix_rounds_unreplayable", "verdict = 'unreplayable'"),
                ("ix_rounds_voided", "void_reason IS NOT NULL"),
            )
        ),
    )


class FindingRow(Base):
    """One finding of a round's audit, with the round's coordinates copied for search. Known by its round, audit
    and position (no id of its own: nothing refers to a finding row, and a partitioned table's key must hold
    ``played_at``)."""

    __tablename__ = "findings"

    round_pk: Mapped[int] = mapped_column(BigId, ForeignKey("round_keys.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    """Position in the audit's ``findings`` list."""
    rule: Mapped[str] = mapped_column(Text)
    also_cited_as: Mapped[str | None] = mapped_column(Text)
    """JSON array text of the other numbers the rule is cited as (``["13:69F-2.10(b)"]``), or NULL."""
    citation_status: Mapped[str] = mapped_column(String(16))
    category: Mapped[str] = mapped_column(String(32))
    event_index: Mapped[int | None] = mapped_column(Integer)
    hand: Mapped[str | None] = mapped_column(Text)
    amount_delta: Mapped[int | None] = mapped_column(BigInteger)
    source: Mapped[str] = mapped_column(String(128))
    jurisdiction: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[str] = mapped_column(Text)
    played_at: Mapped[datetime] = mapped_column(UTCDateTime)
    audit_no: Mapped[int] = mapped_column(Integer, server_default="1")
    """Which of the round's audits the finding is of: 1, the audit stored with the round; 2, 3 ... re-audits
    (``audits``). Search and reports read the latest audit's."""
    corrected_by: Mapped[int | None] = mapped_column(Integer)
    """The finding's ``corrected_by``: the event of the table's (last) correction of the settlement at fault (round-v1
    section 2.3); NULL when the table did not correct it. ``amount_delta`` is then what is still owed."""
    corrected_actual: Mapped[int | None] = mapped_column(BigInteger)
    """The finding's ``corrected_actual``: the player's net after that correction, in minor units; NULL as above."""

    __table_args__ = (
        PrimaryKeyConstraint("round_pk", "audit_no", "seq", "played_at"),
        # The search by rule walks a rule's findings, and those citing it as another number, newest first, a page
        # at a time (app/store/rounds.py): keyed (played_at, round_pk), as the rounds are.
        Index(None, "rule", "played_at", "round_pk"),
        Index(
            "ix_findings_also_cited_as",
            "also_cited_as",
            "played_at",
            "round_pk",
            postgresql_where=text("also_cited_as IS NOT NULL"),
            sqlite_where=text("also_cited_as IS NOT NULL"),
        ),
        Index(None, "played_at"),
        # Nothing to read back from an insert (the key is all given; audit_no's default is for old rows).
        {"implicit_returning": False},
    )


class AuditRow(Base):
    """A later audit of a stored round (audit 2, 3 ...; audit 1 is the one stored with the round, in ``rounds``),
    made by a re-audit that found something different from the round's latest audit. Append-only."""

    __tablename__ = "audits"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    round_pk: Mapped[int] = mapped_column(BigId, ForeignKey("round_keys.id", ondelete="CASCADE"))
    audit_no: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(128))
    """The round's source (whose chain records the audit)."""
    reaudit_id: Mapped[str | None] = mapped_column(String(32))
    """The re-audit job that made it."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    verdict: Mapped[str] = mapped_column(String(16))
    ruleset: Mapped[str] = mapped_column(Text)
    engine_version: Mapped[str] = mapped_column(String(64))
    elections_source: Mapped[str] = mapped_column(String(16))
    elections_id: Mapped[int | None] = mapped_column(BigId)
    finding_count: Mapped[int] = mapped_column(Integer)
    audit: Mapped[str] = mapped_column(Text)
    """The audit result (JSON text), as a dry run of the record would answer it then."""
    void_reason: Mapped[str | None] = mapped_column(String(16))
    """As ``rounds.void_reason``, of this audit."""

    __table_args__ = (
        UniqueConstraint("round_pk", "audit_no"),
        CheckConstraint("audit_no >= 2", name="audit_no"),
        CheckConstraint(f"verdict IN ({_in(VERDICTS)})", name="verdict"),
        CheckConstraint(f"elections_source IN ({_in(ELECTIONS_SOURCES)})", name="elections_source"),
    )


class ReauditRow(Base):
    """A re-audit job: the stored rounds of ``scope`` (JSON: source, jurisdiction, table, played_from, played_to)
    re-run with the current engine, in chunks of round ids fixed when it was asked for."""

    __tablename__ = "reaudits"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    source: Mapped[str | None] = mapped_column(String(128))
    """The source whose rounds are re-audited (NULL: every source's)."""
    scope: Mapped[str] = mapped_column(Text)
    requested_by: Mapped[str | None] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    round_count: Mapped[int] = mapped_column(Integer)
    chunk_count: Mapped[int] = mapped_column(Integer)


class ReauditChunkRow(Base):
    """Some rounds of a re-audit (``round_pks``: a JSON array of ``rounds.id``); ``done_at`` is set in the
    transaction that stores their new audits, so each chunk is done once, however often its job runs."""

    __tablename__ = "reaudit_chunks"

    reaudit_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("reaudits.id", ondelete="CASCADE"), primary_key=True
    )
    chunk_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_pks: Mapped[str] = mapped_column(Text)
    round_count: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    changed: Mapped[int] = mapped_column(Integer)
    """Rounds given a new audit (it differs from their latest)."""
    unchanged: Mapped[int] = mapped_column(Integer)
    unreadable: Mapped[int] = mapped_column(Integer)
    """Rounds whose stored record today's parser refuses (no new audit)."""

    __table_args__ = (
        Index(
            "ix_reaudit_chunks_undone",
            "reaudit_id",
            "chunk_no",
            postgresql_where=text("done_at IS NULL"),
            sqlite_where=text("done_at IS NULL"),
        ),
    )


BATCH_OUTCOMES = ("compliant", "violations", "unreplayable", "rejected", "duplicate", "conflict")


class BatchRow(Base):
    """An uploaded NDJSON batch. Its identity is the SHA-256 of the decompressed content with the source: the
    same file uploaded again is the same batch. ``content_sha256`` is NULL only for a failed (cut off) upload."""

    __tablename__ = "batches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    source: Mapped[str] = mapped_column(String(128))
    content_sha256: Mapped[str | None] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    """``queued`` (uploading until ``received_at`` is set; then progress is read from the chunks), or ``failed``."""
    lines_received: Mapped[int] = mapped_column(Integer)
    bytes_received: Mapped[int] = mapped_column(BigInteger)
    chunk_count: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    received_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """NULL while the upload is still arriving (its chunks are stored as they come, each in a short transaction)."""
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """The last chunk stored (or the end of the upload): an upload silent for long is dead, and swept."""
    error: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        UniqueConstraint("source", "content_sha256"),
        CheckConstraint("state IN ('queued', 'failed')", name="state"),
    )


class BatchChunkRow(Base):
    """A slice of a batch's lines, stored verbatim at upload; one job each. ``done_at`` is set in the transaction
    that stores the chunk's rounds and results, so a chunk is audited exactly once."""

    __tablename__ = "batch_chunks"

    batch_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("batches.id", ondelete="CASCADE"), primary_key=True
    )
    chunk_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    first_line: Mapped[int] = mapped_column(Integer)
    """1-based line number in the file of the chunk's first line."""
    line_count: Mapped[int] = mapped_column(Integer)
    """Non-blank lines in the chunk."""
    data: Mapped[bytes] = mapped_column(LargeBinary)
    """The chunk's physical lines as received (blank lines kept, so that line numbers are the file's), joined by LF."""
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    compliant: Mapped[int] = mapped_column(Integer, default=0)
    violations: Mapped[int] = mapped_column(Integer, default=0)
    unreplayable: Mapped[int] = mapped_column(Integer, default=0)
    rejected: Mapped[int] = mapped_column(Integer, default=0)
    duplicates: Mapped[int] = mapped_column(Integer, default=0)
    conflicts: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (
        # The undone chunks only (workers' polling, the start-up take-up, /metrics): a year's done chunks unread.
        Index(
            "ix_batch_chunks_undone",
            "batch_id",
            "chunk_no",
            postgresql_where=text("done_at IS NULL"),
            sqlite_where=text("done_at IS NULL"),
        ),
    )


class BatchResultRow(Base):
    """The outcome of one line of a batch. ``detail`` is JSON text: the findings array of an audited line, or the
    problem (RFC 9457, as the single-round API answers it) of a rejected or conflicting line."""

    __tablename__ = "batch_results"

    batch_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("batches.id", ondelete="CASCADE"), primary_key=True
    )
    line_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[str | None] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(String(16))
    verdict: Mapped[str | None] = mapped_column(String(16))
    detail: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (CheckConstraint(f"outcome IN ({_in(BATCH_OUTCOMES)})", name="outcome"),)


class TableElectionsRow(Base):
    """Rule elections registered for a table by a table system, in force from ``effective_from`` until the next
    registration's: an append-only, attributed history. A correction is a new row that ``supersedes`` the one in
    force at the same ``effective_from``; the registration in force is the one no other supersedes. A round without
    ``table.rules`` is audited by the registration in force with the greatest ``effective_from`` at or before its
    ``played_at``."""

    __tablename__ = "table_elections"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(128))
    """The table system the elections are for (the registering key's source)."""
    jurisdiction: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[str] = mapped_column(Text)
    effective_from: Mapped[datetime] = mapped_column(UTCDateTime)
    rules: Mapped[str] = mapped_column(Text)
    """The elections as validated (``table.rules`` of round-v1 section 3), JSON text with sorted keys."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    reason: Mapped[str] = mapped_column(Text, server_default="")
    """Why the registration was made (given by the registrant; empty for registrations made before it was asked)."""
    registered_by: Mapped[str | None] = mapped_column(Text)
    """Who made it: the API key (``key_id`` and label), or the CLI user."""
    supersedes_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("table_elections.id"), unique=True)
    """The registration this one corrects (same table and effective_from), or NULL for an original."""

    __table_args__ = (
        Index(
            "uq_table_elections_original",
            "source",
            "jurisdiction",
            "table_id",
            "effective_from",
            unique=True,
            postgresql_where=text("supersedes_id IS NULL"),
            sqlite_where=text("supersedes_id IS NULL"),
        ),
        Index(None, "source", "jurisdiction", "table_id", "effective_from"),
    )


class ApiKeyRow(Base):
    """A client allowed in: bound to one source (NULL: every source) and to scopes. Only the SHA-256 of the
    secret is kept; ``key_id`` is the public part of the key, by which it is found, listed and revoked."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    key_id: Mapped[str] = mapped_column(String(32), unique=True)
    secret_sha256: Mapped[str] = mapped_column(String(64))
    source: Mapped[str | None] = mapped_column(String(128))
    scopes: Mapped[str] = mapped_column(Text)
    """Space-separated, sorted: ``admin read submit``."""
    label: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_by: Mapped[str | None] = mapped_column(Text)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


CHAIN_KINDS = ("round", "registration", "audit")


class ChainEntryRow(Base):
    """One link of a source's hash chain: a stored round or registration, appended in the transaction that stores
    it. ``hash`` = SHA-256(previous entry's ``hash`` || ``digest``), 32 zero bytes before the first; ``digest`` =
    SHA-256 of the canonical JSON of what the entry records (docs/integrity.md). Append-only (a trigger refuses
    UPDATE and DELETE to every role but the owner's, on PostgreSQL)."""

    __tablename__ = "chain_entries"

    source: Mapped[str] = mapped_column(String(128), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    """1, 2, 3 ... per source, without gaps."""
    kind: Mapped[str] = mapped_column(String(16))
    ref_id: Mapped[int] = mapped_column(BigId)
    """The id of the row recorded (``rounds.id``, ``table_elections.id`` or ``audits.id``, by ``kind``); no foreign key: a
    deleted row must leave its entry behind, to be reported."""
    label: Mapped[str] = mapped_column(Text)
    """What the entry records, for people (``round BOR-1 (US-NJ)``); not covered by the hash."""
    digest: Mapped[bytes] = mapped_column(LargeBinary)
    hash: Mapped[bytes] = mapped_column(LargeBinary)

    __table_args__ = (
        CheckConstraint(f"kind IN ({_in(CHAIN_KINDS)})", name="kind"),
        UniqueConstraint("kind", "ref_id"),
    )


class ChainHeadRow(Base):
    """The last entry of each source's chain: appends lock this row, so that a source's entries are numbered and
    linked one after the other."""

    __tablename__ = "chain_heads"

    source: Mapped[str] = mapped_column(String(128), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[bytes] = mapped_column(LargeBinary)


class MerkleNodeRow(Base):
    """The root of a perfect subtree of a source's Merkle tree (RFC 9162 hashing over the chain entries' digests):
    level ``level`` (2**level leaves), the ``idx``-th from the left. Only every fourth level is kept (a cache of what
    the leaves give, so that a proof reads O(log n) rows). Append-only."""

    __tablename__ = "merkle_nodes"

    source: Mapped[str] = mapped_column(String(128), primary_key=True)
    level: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    idx: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    hash: Mapped[bytes] = mapped_column(LargeBinary)


class TreeHeadRow(Base):
    """A signed tree head of a source: its Merkle tree of ``seq`` leaves has the root ``root``, its chain the hash
    ``hash`` at entry ``seq``; ``doc`` is the signed JSON as published. Append-only."""

    __tablename__ = "tree_heads"

    source: Mapped[str] = mapped_column(String(128), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    root: Mapped[bytes] = mapped_column(LargeBinary)
    hash: Mapped[bytes] = mapped_column(LargeBinary)
    signed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    doc: Mapped[str] = mapped_column(Text)


class EndedSessionRow(Base):
    """A workbench session ended by logout before it expired: its cookie is refused from then on (the cookie is
    signed, not stored, so the end must be). Rows past ``ends_at`` are removed at the next logout."""

    __tablename__ = "ended_sessions"

    nonce: Mapped[str] = mapped_column(String(64), primary_key=True)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SubscriptionRow(Base):
    """A webhook of a source's findings (issue 22): where to POST them, the secret that signs them, the filters, and
    how far delivery has got. Its cursor is a position in the source's chain (``cursor_seq``, ``cursor_index``: every
    finding at or before it was delivered or did not match): the chain is the outbox, appended in the transaction that
    stores each round, numbered in the order of commit."""

    __tablename__ = "subscriptions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    source: Mapped[str] = mapped_column(String(128))
    url: Mapped[str] = mapped_column(Text)
    secret: Mapped[str] = mapped_column(Text)
    """``whsec_`` + base64 of the signing key (Standard Webhooks); never answered after the subscription's creation."""
    filters: Mapped[str] = mapped_column(Text)
    """JSON: ``rules``, ``categories``, ``tables`` (lists or null), ``min_amount`` (minor units or null)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_by: Mapped[str] = mapped_column(Text)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    paused_reason: Mapped[str | None] = mapped_column(Text)
    cursor_seq: Mapped[int] = mapped_column(BigInteger)
    cursor_index: Mapped[int] = mapped_column(Integer)
    failures: Mapped[int] = mapped_column(Integer, server_default="0")
    """Deliveries failed in a row (0 after a success)."""
    first_failure_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """While a deliverer holds the subscription (one at a time, whichever process)."""
    delivered: Mapped[int] = mapped_column(BigInteger, server_default="0")

    __table_args__ = (Index(None, "source"),)


class DeliveryRow(Base):
    """One attempt to deliver one finding to one subscription, and what came of it. Append-only."""

    __tablename__ = "deliveries"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    subscription_id: Mapped[str] = mapped_column(String(32))
    event_id: Mapped[str] = mapped_column(Text)
    attempted_at: Mapped[datetime] = mapped_column(UTCDateTime)
    outcome: Mapped[str] = mapped_column(String(16))
    status: Mapped[int | None] = mapped_column(Integer)
    """The receiver's HTTP status, when it answered."""
    error: Mapped[str | None] = mapped_column(Text)
    seconds: Mapped[float] = mapped_column(Float)
    latency_seconds: Mapped[float | None] = mapped_column(Float)
    """From the round's receipt to the receiver's answer (a delivered event)."""

    __table_args__ = (
        CheckConstraint(f"outcome IN ({_in(DELIVERY_OUTCOMES)})", name="outcome"),
        Index(None, "subscription_id", "id"),
    )


class AcknowledgementRow(Base):
    """A supervisor's acknowledgement of an alert (a finding of a round's first audit), attributed to the key that
    made it. Append-only; one per alert."""

    __tablename__ = "acknowledgements"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(128))
    seq: Mapped[int] = mapped_column(BigInteger)
    finding_index: Mapped[int] = mapped_column(Integer)
    round_pk: Mapped[int] = mapped_column(BigId, ForeignKey("round_keys.id", ondelete="CASCADE"))
    acknowledged_at: Mapped[datetime] = mapped_column(UTCDateTime)
    key_id: Mapped[str | None] = mapped_column(String(16))
    acknowledged_by: Mapped[str] = mapped_column(Text)
    note: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (UniqueConstraint("source", "seq", "finding_index"), Index(None, "round_pk"))


ROLLUP_DIMENSIONS = ("all", "table", "dealer", "shoe", "rule")


class ReportRollupRow(Base):
    """A UTC day's (or month's) report figures of a source and jurisdiction: its total (``dim`` 'all', ``key`` '') or one group's
    (a table, dealer, shoe or rule), added up from the rounds and re-audits the source's chain recorded up to its
    cursor (``rollup_cursors``). ``null_key``: the group of rounds without a dealer (or shoe), whose ``key`` is ''.
    Derived data, kept by the rollers (app.store.rollups): rebuilt from the chain if lost."""

    __tablename__ = "report_rollups"

    span: Mapped[str] = mapped_column(String(5), primary_key=True)
    """``day``: the figures of the UTC day ``day``; ``month``: of the month that begins on ``day`` (all but the
    shoes)."""
    dim: Mapped[str] = mapped_column(String(8), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    source: Mapped[str] = mapped_column(String(128), primary_key=True)
    jurisdiction: Mapped[str] = mapped_column(String(16), primary_key=True)
    null_key: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    key: Mapped[str] = mapped_column(Text().with_variant(Text(collation="C"), "postgresql"), primary_key=True)
    """In code point order (PostgreSQL's "C" collation; SQLite compares bytes): a report's pages of groups walk it."""
    rounds: Mapped[int] = mapped_column(BigInteger)
    rounds_with_findings: Mapped[int] = mapped_column(BigInteger)
    findings: Mapped[int] = mapped_column(BigInteger)
    owed_to_players: Mapped[int] = mapped_column(BigInteger)
    owed_by_players: Mapped[int] = mapped_column(BigInteger)
    voided_rounds: Mapped[int] = mapped_column(BigInteger)
    corrected_findings: Mapped[int] = mapped_column(BigInteger)
    corrected_still_owed: Mapped[int] = mapped_column(BigInteger)
    alerts: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        CheckConstraint(f"dim IN ({_in(ROLLUP_DIMENSIONS)})", name="dim"),
        CheckConstraint("span IN ('day', 'month')", name="span"),
        # A report's groups a page at a time, in the keys' order (migration f8b0d2e4a6c8)
        Index("ix_report_rollups_keys", "dim", "span", "null_key", "key", "day"),
    )


class RollupCursorRow(Base):
    """How far a source's chain is added up in ``report_rollups``: every entry at or before ``seq``."""

    __tablename__ = "rollup_cursors"

    source: Mapped[str] = mapped_column(String(128), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger)


round_keys_table = cast(Table, RoundKeyRow.__table__)


class ArchiveRow(Base):
    """A month of rounds archived (``bjaudit archive``): written to a file, read back and verified, then its partitions
    dropped. ``restored_at`` is set when ``bjaudit restore`` brought it back; the month is archived while the latest
    row of it has none."""

    __tablename__ = "archives"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    month: Mapped[datetime] = mapped_column(UTCDateTime)
    """The first moment of the UTC month (its partitions' lower bound)."""
    path: Mapped[str] = mapped_column(Text)
    """The archive file as written (the manifest beside it)."""
    rounds: Mapped[int] = mapped_column(BigInteger)
    findings: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the archive file."""
    archived_at: Mapped[datetime] = mapped_column(UTCDateTime)
    archived_by: Mapped[str] = mapped_column(Text)
    restored_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (Index(None, "month"),)


rounds_table = cast(Table, RoundRow.__table__)
findings_table = cast(Table, FindingRow.__table__)
batches_table = cast(Table, BatchRow.__table__)
batch_chunks_table = cast(Table, BatchChunkRow.__table__)
batch_results_table = cast(Table, BatchResultRow.__table__)
table_elections_table = cast(Table, TableElectionsRow.__table__)
api_keys_table = cast(Table, ApiKeyRow.__table__)
chain_entries_table = cast(Table, ChainEntryRow.__table__)
chain_heads_table = cast(Table, ChainHeadRow.__table__)
audits_table = cast(Table, AuditRow.__table__)
merkle_nodes_table = cast(Table, MerkleNodeRow.__table__)
tree_heads_table = cast(Table, TreeHeadRow.__table__)
ended_sessions_table = cast(Table, EndedSessionRow.__table__)
reaudits_table = cast(Table, ReauditRow.__table__)
reaudit_chunks_table = cast(Table, ReauditChunkRow.__table__)
subscriptions_table = cast(Table, SubscriptionRow.__table__)
deliveries_table = cast(Table, DeliveryRow.__table__)
acknowledgements_table = cast(Table, AcknowledgementRow.__table__)
report_rollups_table = cast(Table, ReportRollupRow.__table__)
rollup_cursors_table = cast(Table, RollupCursorRow.__table__)
archives_table = cast(Table, ArchiveRow.__table__)
metadata = Base.metadata

__all__: list[Any] = [
    "Base",
    "RoundKeyRow",
    "RoundRow",
    "FindingRow",
    "round_keys_table",
    "metadata",
    "rounds_table",
    "findings_table",
    "BatchRow",
    "BatchChunkRow",
    "BatchResultRow",
    "batches_table",
    "batch_chunks_table",
    "batch_results_table",
    "TableElectionsRow",
    "table_elections_table",
    "ApiKeyRow",
    "api_keys_table",
    "ChainEntryRow",
    "ChainHeadRow",
    "chain_entries_table",
    "chain_heads_table",
    "AuditRow",
    "ReauditRow",
    "ReauditChunkRow",
    "audits_table",
    "merkle_nodes_table",
    "tree_heads_table",
    "ended_sessions_table",
    "reaudits_table",
    "reaudit_chunks_table",
    "subscriptions_table",
    "deliveries_table",
    "acknowledgements_table",
    "report_rollups_table",
    "rollup_cursors_table",
    "archives_table",
    "NAMING_CONVENTION",
    "UTCDateTime",
]
