"""Wire schemas of the answers, for the OpenAPI document. Routes build their JSON directly (orjson) and declare
these as ``response_model`` without paying for validation; the request round is :class:`app.wire.schema.RoundModel`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Finding(BaseModel):
    """One departure from a rule, found by replaying the round."""

    rule: str = Field(description="The provision as its instrument numbers it, e.g. 13:69F-2.12(b)1 or 9.3.")
    also_cited_as: list[str] = Field(description="The same provision's number in the other instrument.")
    citation: str = Field(description="The full citation, e.g. N.J.A.C. 19:47-2.10(b).")
    citation_status: Literal["verified", "unverified", "uncited"]
    title: str
    category: str = Field(
        description="dealing, player_action, dealer_draw, wager, payout, timing, election, record"
    )
    event: int | None = Field(
        description="0-based index into events of the event at fault; null for an absence."
    )
    hand: str | None = Field(description='The hand concerned ("3", "3.2", "dealer"), if any.')
    message: str
    expected: Any = Field(default=None, description="What the rule required.")
    actual: Any = Field(default=None, description="What the record shows.")
    amount_delta: int | None = Field(
        default=None,
        description="Money owed to (+) or by (-) the player, in minor units, when a payout is wrong: expected - "
        "actual, or expected - corrected_actual for a settlement the table corrected (what is still owed; 0 when the "
        "correction was right). Over a round's findings, the sum is what the round owes.",
    )
    corrected_by: int | None = Field(
        default=None,
        description="Present when the table corrected the settlement at fault: the index of the (last) `settle` "
        "with `corrects` that replaced it (round-v1 section 2.3).",
    )
    corrected_actual: int | None = Field(
        default=None,
        description="With corrected_by: the player's net on the bet after the correction, in minor units.",
    )


VoidReason = Literal["misdeal", "card_exposed", "shoe_error", "equipment", "other"]


class RoundVoid(BaseModel):
    """The round was declared void: no hand wins or loses."""

    event: int = Field(description="0-based index of the `void` event.")
    reason: VoidReason


class AuditResult(BaseModel):
    """The audit of one round (round-v1 section 4)."""

    model_config = ConfigDict(extra="allow")

    round_id: str
    jurisdiction: str
    verdict: Literal["compliant", "violations", "unreplayable"]
    ruleset: str = Field(
        description="The rules in force when the round was played, e.g. 'US-NJ 13:69F as of ...'."
    )
    engine_version: str
    elections_source: Literal["record", "registered", "defaults"] = Field(
        description="Where the table's rule elections came from."
    )
    elections: dict[str, Any] = Field(default_factory=dict, description="The elections the audit applied.")
    findings: list[Finding]
    elections_registration: int | None = Field(
        default=None,
        description="When elections_source is registered: the id of the registration the audit applied.",
    )
    void: RoundVoid | None = Field(
        default=None,
        description="Present when the round was declared void (round-v1 section 2.3); the verdict is still "
        "compliant or violations.",
    )


class DryRunResult(AuditResult):
    """The audit of one round, not stored: as a submission would be audited, or a what-if (?ruleset=, ?elections=),
    marked. A stored audit never carries the marks."""

    ruleset: str = Field(
        description="The rules applied: those in force when the round was played, or those a what-if named "
        "(ruleset_in_force says which)."
    )
    ruleset_in_force: bool = Field(
        default=True,
        description="What-if only (present when ?ruleset= or ?elections= is given): whether the ruleset applied is "
        "the one in force at played_at. False: a what-if under another ruleset than the round's. Absent from a plain "
        "dry run, which is always audited by the ruleset in force and answers exactly what a submission stores.",
    )
    elections_what_if: dict[str, Any] | None = Field(
        default=None,
        description="Present when ?elections= is given: those elections, as validated. They override the round's "
        "own or registered elections (whose origin elections_source still gives) and the defaults; `elections` is "
        "what the audit applied.",
    )


class Ruleset(BaseModel):
    """A set of rules we hold, and the (local) dates of the rounds it applies to."""

    jurisdiction: Literal["US-NJ", "NZ"]
    name: str = Field(description="As audits name it (`ruleset`), and as ?ruleset= takes it.")
    alias: str = Field(description="Its short name, also taken by ?ruleset=: jurisdiction@effective.")
    effective: str = Field(description="The first date (YYYY-MM-DD, the table's local date) it is in force.")
    until: str | None = Field(
        description="The first date it is no longer in force (exclusive); null when we know no end."
    )


class Rulesets(BaseModel):
    rulesets: list[Ruleset] = Field(description="By jurisdiction, oldest first.")


class Registration(BaseModel):
    """Rule elections registered for a table, in force from effective_from until the table's next registration
    (unless a correction supersedes them)."""

    id: int = Field(description="The registration's id: audits by it name it (elections_registration).")
    source: str = Field(description="The table system the elections are for.")
    jurisdiction: Literal["US-NJ", "NZ"]
    table_id: str
    effective_from: str = Field(description="RFC 3339, UTC.")
    rules: dict[str, Any] = Field(description="The elections (round-v1 section 3), as validated.")
    reason: str = Field(description="Why they were registered.")
    registered_by: str | None = Field(description="Who registered them: the API key (id and label).")
    created_at: str = Field(description="RFC 3339, UTC: when they were registered.")
    supersedes: int | None = Field(description="The registration this one corrects, if it is a correction.")
    superseded_by: int | None = Field(
        default=None, description="The correction that replaced this registration (history only)."
    )


class RegistrationList(BaseModel):
    table_id: str
    source: str | None = Field(description="The source listed; null: every source's (a key of every source).")
    items: list[Registration] = Field(
        description="The history: newest effective_from first, at one effective_from the newest first."
    )


class RuleInfo(BaseModel):
    title: str | None
    citation: str | None
    citation_status: str | None
    paraphrase: str | None = Field(description="Our paraphrase of the rule; the citation is the authority.")


class ChainPosition(BaseModel):
    """Where an entry stands in its source's hash chain (docs/integrity.md)."""

    seq: int = Field(description="1, 2, 3 ... per source.")
    hash: str = Field(description="SHA-256 (hex) of the previous entry's hash and this entry's digest.")


class FindingChange(BaseModel):
    before: dict[str, Any]
    after: dict[str, Any]


class AuditChanges(BaseModel):
    """What changed from the audit before: a finding is the same finding when its rule, event and hand are."""

    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]
    changed: list[FindingChange]


class AuditHistoryEntry(BaseModel):
    audit_no: int = Field(description="1: the audit made when the round was received; 2, 3 ...: re-audits.")
    created_at: str = Field(description="RFC 3339, UTC (audit 1: when the round was received).")
    reaudit_id: str | None = Field(description="The re-audit that made it (null for audit 1).")
    verdict: Literal["compliant", "violations", "unreplayable"]
    ruleset: str
    engine_version: str
    finding_count: int
    chain_seq: int | None = Field(description="Its entry in the source's hash chain.")
    changes: AuditChanges | None = Field(description="From the audit before (null for audit 1).")


class StoredRound(BaseModel):
    """A stored round as the auditor sees it."""

    round_id: str
    source: str = Field(description="The table system that submitted it.")
    jurisdiction: str
    table_id: str
    played_at: str = Field(description="RFC 3339, UTC.")
    received_at: str = Field(description="RFC 3339, UTC.")
    record_sha256: str = Field(description="SHA-256 (hex) of the record's bytes as received.")
    record: dict[str, Any] = Field(
        description="The record as received. Byte for byte at GET /v1/rounds/{round_id}/record."
    )
    audit: AuditResult = Field(
        description="The round's latest audit: the one made when it was received, unless a re-audit found "
        "something different since (`audits` has every one; GET /v1/rounds/{round_id}/audits/{audit_no} each)."
    )
    audit_no: int = Field(description="The number of `audit` in `audits`.")
    audits: list[AuditHistoryEntry] = Field(
        description="Every audit of the round, oldest first; never overwritten."
    )
    rules: dict[str, RuleInfo] = Field(
        description="For each rule cited by a finding of any of its audits: title, citation, paraphrase."
    )
    chain: ChainPosition | None = Field(
        description="The round's entry in its source's hash chain (null only for a round stored outside the service)."
    )


class IntegrityProblem(BaseModel):
    seq: int | None = Field(
        description="The chain entry concerned; null for a stored row that no entry records."
    )
    kind: Literal["modified", "deleted", "inserted", "reordered", "unverifiable"] = Field(
        description="unverifiable: the row could not be checked (its audit names an engine version this build does "
        "not have): not a pass either."
    )
    what: str = Field(description="What is concerned, e.g. 'round BOR-1 (US-NJ)' or 'chain entries 5 to 7'.")
    detail: str


class Checkpoint(BaseModel):
    seq: int
    hash: str = Field(description="The chain's hash at entry `seq` (hex).")
    root: str = Field(description="The Merkle root of entries 1 to `seq` (hex), computed from them.")
    frontier: list[str] = Field(
        description="The roots of the perfect subtrees the tree ends in (hex), largest first."
    )
    received_at: str | None
    max_ids: dict[str, int]


class IntegrityReport(BaseModel):
    """The verification of one source's hash chain and of the rows it records."""

    source: str
    entries: int = Field(description="Chain entries walked.")
    head: ChainPosition | None = Field(description="The chain's head when the walk began; null: no chain.")
    ok: bool
    first_problem: IntegrityProblem | None = Field(description="The first problem met, in chain order.")
    problem_count: int
    problems: list[IntegrityProblem] = Field(description="The first 100 problems, in the order met.")
    complete: bool = Field(
        description="false: the walk stopped at its deadline before the head; `verified.seq` says how far it came, "
        "and `?after=` with `verified` goes on from there."
    )
    from_seq: int = Field(description="The walk began after this entry (0: at the first).")
    archived: int = Field(
        0,
        description="Entries walked whose round (or re-audit of a round) is in an archived month (`bjaudit "
        "archive`): linked and counted, their rows not checked here (the archive file was verified when written).",
    )
    verified: Checkpoint | None = Field(
        description="Where the walk stopped: the last entry walked, its chain hash, and the tree's root and right "
        "edge computed from the entries walked. Give `seq` and `root` back as `?after=&root=` to verify only what "
        "came after."
    )


class SignedHead(BaseModel):
    """A source's signed tree head (Ed25519): its log of `seq` entries, their chain hash and Merkle root. The signature
    covers the canonical JSON (keys sorted, no whitespace, UTF-8) of every other field; docs/integrity.md shows how
    to check it without bjaudit."""

    source: str
    seq: int
    hash: str = Field(description="SHA-256 (hex) of the chain's last entry.")
    root: str | None = Field(
        default=None,
        description="The RFC 9162 Merkle root (hex) of the entries 1 to `seq` (absent from heads signed before the "
        "Merkle log).",
    )
    exported_at: str = Field(description="RFC 3339, UTC, microseconds.")
    public_key: str = Field(description="The service's Ed25519 public key, raw (32 bytes), base64.")
    signature: str = Field(description="Ed25519 signature (64 bytes), base64.")


class RoundSummary(BaseModel):
    round_id: str
    source: str
    jurisdiction: str
    table_id: str
    played_at: str
    received_at: str
    verdict: Literal["compliant", "violations", "unreplayable"]
    ruleset: str
    engine_version: str
    finding_count: int
    record_sha256: str
    void_reason: VoidReason | None = Field(
        description="The reason the round was declared void (its latest audit's `void`); null when it was not."
    )


class RoundPage(BaseModel):
    items: list[RoundSummary] = Field(description="Newest played first.")
    next_cursor: str | None = Field(description="Pass as ?cursor= for the next page; null on the last page.")


class CatalogueRule(BaseModel):
    model_config = ConfigDict(extra="allow")

    jurisdiction: str
    ruleset: str
    rule: str
    also_cited_as: list[str]
    citation: str
    citation_status: Literal["verified", "unverified", "uncited"]
    title: str
    category: str
    elections: list[str] = Field(description="The table elections the rule depends on.")
    checkable: bool = Field(description="Whether the service checks this rule from a recorded round.")
    not_checkable_reason: str | None
    paraphrase: str


class Catalogue(BaseModel):
    rules: list[CatalogueRule]


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class ReadReplica(BaseModel):
    state: Literal["in_use", "not_used"] = Field(
        description="in_use: it serves searches, reports, shoes and the workbench's pages; not_used: it lags by more "
        "than BJAUDIT_READ_MAX_LAG_SECONDS or cannot be reached."
    )
    lag_seconds: float | None = Field(
        description="How far behind the primary it was (an upper bound, checked at most once a second); null when "
        "not known."
    )
    reason: str | None = Field(description="Why it is not used, or why its lag is not known.")


class Ready(BaseModel):
    status: Literal["ready"]
    database: str
    revision: list[str] = Field(
        description="The database's Alembic revision(s), equal to the code's head(s)."
    )
    batch_workers: int | None = Field(
        description="Batch workers with a recent heartbeat (the queue, on PostgreSQL; the service's own included). "
        "0 means uploaded batches wait. Null when the service audits batches itself (SQLite)."
    )
    read_replica: ReadReplica | None = Field(
        description="The read replica (BJAUDIT_DATABASE_READ_URL) as last checked, or null when none is configured. "
        "Its state does not make the service unready: reads go to the primary, or are answered 503, as "
        "BJAUDIT_READ_FALLBACK says."
    )


class ProblemEntry(BaseModel):
    """One problem with the request: a JSON pointer into the body, or a named parameter."""

    pointer: str | None = Field(
        default=None,
        description="JSON pointer into the body, e.g. /events/7/card; with parameter, into that parameter's JSON "
        "(?elections=).",
    )
    parameter: str | None = Field(default=None, description="A query parameter or header, by name.")
    in_: str | None = Field(default=None, alias="in", description="query, header or path.")
    detail: str


class Problem(BaseModel):
    """RFC 9457 problem details (media type application/problem+json)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="urn:bjaudit:problem:<name>, or about:blank for plain HTTP errors.")
    title: str
    status: int
    detail: str | None = None
    instance: str | None = Field(default=None, description="The request path.")
    errors: list[ProblemEntry] | None = Field(default=None, description="For 422: one entry per problem.")
    request_id: str | None = Field(
        default=None,
        description="The request's ID (as in its X-Request-ID header and the service's log lines): quote it when "
        "reporting a problem.",
    )


class InclusionProof(BaseModel):
    """RFC 9162 inclusion proof of a round's chain entry in a signed tree head."""

    source: str
    round_id: str
    jurisdiction: str
    seq: int = Field(description="The round's chain entry.")
    leaf_index: int = Field(description="seq - 1: its leaf in the tree.")
    digest: str = Field(description="The entry's digest (hex): SHA-256 of its content's canonical JSON.")
    tree_size: int
    inclusion: list[str] = Field(description="The audit path (hex), deepest first (RFC 9162 2.1.3).")
    head: SignedHead


class ConsistencyProof(BaseModel):
    """RFC 9162 consistency proof: the log of `from` entries is the beginning of the signed head of `to`."""

    source: str
    from_: int = Field(alias="from")
    to: int
    from_root: str = Field(
        description="The root of the first `from` entries as the log holds them now (hex)."
    )
    proof: list[str] = Field(description="RFC 9162 2.1.4 (hex).")
    head: SignedHead


class EvidenceEntry(BaseModel):
    seq: int
    kind: Literal["round", "audit", "registration"]
    content: dict[str, Any] = Field(description="What the entry was appended with (docs/integrity.md).")
    audit: str | None = Field(default=None, description="The audit (JSON text) the content names by SHA-256.")
    rules: str | None = Field(
        default=None, description="A registration's rules (JSON text), named by SHA-256."
    )
    elections_id: int | None = Field(
        default=None,
        description="A registration's id, which the audits it made name (their content's elections_id): each audit "
        "is re-run with its own registration's rules. Outside the content: a wrong one makes the re-run differ.",
    )
    inclusion: list[str] = Field(description="Its inclusion proof in `head` (hex).")


class EvidencePacket(BaseModel):
    """Everything needed to check offline that a round and its audits are those the service logged: `bjaudit
    check-evidence FILE`, or the script of docs/integrity.md (hashlib and cryptography only)."""

    format: Literal["bjaudit-evidence/1"]
    source: str
    round_id: str
    jurisdiction: str
    record: str = Field(description="The record's exact bytes, base64.")
    entries: list[EvidenceEntry] = Field(
        description="The round's entry first, then its re-audits', then each registration its audits were made by."
    )
    head: SignedHead
