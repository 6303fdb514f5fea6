"""Tamper evidence: verify each source's hash chain, and export or check its signed head.

:func:`check_entries` is the walk, pure: entries in seq order in, problems out. It reports, per source, the FIRST
problem and a bounded list of all:

- ``deleted``: a seq missing (an entry deleted), a row an entry records that is gone, the end of the chain cut;
- ``modified``: an entry whose hash does not follow from the previous hash and its digest, a stored row whose
  content no longer gives the digest appended (its record, audit, verdict, round_id, played_at, table ...), a
  round whose ``findings`` rows disagree with its audit, a head that disagrees with the last entry;
- ``inserted``: an entry that does not belong where it stands (the next one links to the one before it), stored
  rows that no entry records (written outside the service), entries past the head;
- ``reordered``: an entry whose hash follows another entry's hash than its predecessor's (it was moved);
- ``unverifiable``: an audit naming an engine version this build does not have (it cannot be re-run: not a pass).

Every audit is re-run (:func:`replay_problems`: the record, the elections and ruleset it names, this engine) and a
re-audit's entry checked against its job (:func:`reaudit_problems`); a round received well before the one appended
ahead of it, a signed tree head or the stored tree that is not the entries' root are ``modified``. A verification can
start from a :class:`Checkpoint` of an earlier one (the chain and the stored tree must still hold it) and walk only
what came after: O(new entries).

:func:`verify_source` streams a source's entries from the database a page at a time (records are hashed by the
database and never leave it), so memory stays flat whatever the chain's length.

The signed head (:func:`signed_head`) is the last seq and hash of a source's chain, signed with the service's Ed25519
key; :func:`check_signature` checks one without the database, :func:`check_head_in_chain` that the chain still
holds that hash at that seq (a chain rewritten since the export does not). docs/integrity.md has the definitions.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy.orm import Session

from app.domain.model import Round
from app.evidence import merkle
from app.files import create_private
from app.store import chain, tree
from app.store import rounds as rounds_repo
from app.usecases import auditing, offline
from app.usecases.errors import ServiceError
from app.usecases.rounds import void_reason as void_reason_of

MAX_PROBLEMS = 100
"""Problems listed per source (all are counted)."""
PAGE = 1000
"""Entries read per query."""
WINDOW = 256
"""Entries kept behind and read ahead of the one checked, to tell a moved entry from a modified one."""


class NoChain(ServiceError):
    status, slug, title = 404, "no-chain", "The source has no chain yet"


class SigningKeyUnusable(ServiceError):
    status, slug, title = 500, "signing-key-unusable", "The service's signing key cannot be used"


# --- the walk (pure) --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Problem:
    seq: int | None
    """The entry concerned (the first missing one for a gap); None for rows no entry records."""
    kind: str
    """modified, deleted, inserted or reordered; unverifiable: the row could not be checked (its audit names an engine
    this build does not have), which is not a pass either."""
    what: str
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "what": self.what, "detail": self.detail}

    def plain(self) -> str:
        """One line for people.

        >>> Problem(7, "deleted", "round BOR-1 (US-NJ)", "the round is no longer stored").plain()
        'entry 7: deleted: round BOR-1 (US-NJ): the round is no longer stored'
        """
        where = f"entry {self.seq}: " if self.seq is not None else ""
        return f"{where}{self.kind}: {self.what}: {self.detail}"


@dataclass(frozen=True, slots=True)
class Entry:
    """A chain entry as the walk sees it, with what the database holds now for the row it records."""

    seq: int
    kind: str
    label: str
    digest: bytes
    hash: bytes
    row_digest: bytes | None
    """The digest of the recorded row's content recomputed now; None when the row is gone."""
    row_problems: tuple[str, ...] = ()
    """Other ways the row disagrees with itself (its findings rows, its record_sha256 column, its audit re-run)."""
    received_at: datetime | None = None
    """A round's receipt."""
    archived: bool = False
    """The row is gone because its month was archived (its key is known, the month is in ``archives``)."""


@dataclass
class Report:
    source: str
    limit: int = MAX_PROBLEMS
    entries: int = 0
    head: chain.Position | None = None
    problems: list[Problem] = field(default_factory=list)
    problem_count: int = 0
    since: Checkpoint | None = None
    """Where this verification started (None: at the first entry)."""
    complete: bool = True
    """False: stopped by its deadline before the head; ``checkpoint`` says how far it came."""
    checkpoint: Checkpoint | None = None
    archived: int = 0
    """Entries whose row is in an archived month: not tampering (docs/retention.md)."""

    def add(self, problem: Problem) -> None:
        self.problem_count += 1
        if len(self.problems) < self.limit:
            self.problems.append(problem)

    @property
    def ok(self) -> bool:
        return self.problem_count == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "entries": self.entries,
            "head": None if self.head is None else self.head.to_dict(),
            "ok": self.ok,
            "first_problem": self.problems[0].to_dict() if self.problems else None,
            "problem_count": self.problem_count,
            "problems": [p.to_dict() for p in self.problems],
            "complete": self.complete,
            "from_seq": 0 if self.since is None else self.since.seq,
            "archived": self.archived,
            "verified": None if self.checkpoint is None else self.checkpoint.to_dict(),
        }

    def summary(self) -> str:
        """The report in a line or two, for the command line."""
        head = "no head" if self.head is None else f"head {self.head.seq} {self.head.hash.hex()[:16]}..."
        since = f" (after entry {self.since.seq}, verified before)" if self.since is not None else ""
        line = f"source {self.source}: {self.entries} entries{since}, {head}: "
        if not self.complete:
            upto = self.checkpoint.seq if self.checkpoint is not None else 0
            line += f"stopped at entry {upto} (deadline); "
        if self.ok:
            return line + "OK"
        first = self.problems[0].plain() if self.problems else ""
        n = self.problem_count
        return line + f"{n} problem{'s' if n != 1 else ''}; the first: {first}"


def _range(first: int, last: int) -> str:
    return f"chain entry {first}" if first == last else f"chain entries {first} to {last}"


def check_entries(
    entries: Iterable[Entry], report: Report, start: tuple[int, bytes] = (1, chain.ZERO)
) -> chain.Position | None:
    """Walk a source's entries (in seq order, from seq ``start[0]``, whose predecessor's hash is ``start[1]``) and add
    what is wrong to ``report``; the last entry's position. At most one problem per entry: what is wrong with the
    entry itself before what is wrong with its row.
    """
    source = iter(entries)
    ahead: deque[Entry] = deque()
    behind: deque[Entry] = deque(maxlen=WINDOW)

    def fill() -> None:
        while len(ahead) < WINDOW:
            nxt = next(source, None)
            if nxt is None:
                return
            ahead.append(nxt)

    (expected, previous), last = start, None
    fill()
    while ahead:
        e = ahead.popleft()
        fill()
        report.entries += 1
        entry_problem: Problem | None = None
        if e.seq != expected:
            entry_problem = Problem(
                expected,
                "deleted",
                _range(expected, e.seq - 1),
                f"missing: entry {e.seq} comes after entry {expected - 1}",
            )
            previous = e.hash  # its predecessor is gone: the walk goes on from it
        elif chain.link(previous, e.digest) != e.hash:
            moved = next(
                (
                    x
                    for x in (*behind, *ahead)
                    if x.seq != e.seq - 1 and chain.link(x.hash, e.digest) == e.hash
                ),
                None,
            )
            nxt = ahead[0] if ahead else None
            if moved is not None:
                entry_problem = Problem(
                    e.seq,
                    "reordered",
                    e.label,
                    f"its hash follows entry {moved.seq}'s, not entry {e.seq - 1}'s: it was moved (it was "
                    f"appended right after the entry now at seq {moved.seq})",
                )
                previous = e.hash
            elif nxt is not None and nxt.seq == e.seq + 1 and chain.link(previous, nxt.digest) == nxt.hash:
                entry_problem = Problem(
                    e.seq,
                    "inserted",
                    e.label,
                    f"entry {nxt.seq} follows entry {e.seq - 1}: this entry was put between them",
                )
            else:
                entry_problem = Problem(
                    e.seq,
                    "modified",
                    e.label,
                    f"its hash does not follow from entry {e.seq - 1}'s hash and its digest: the entry was changed",
                )
                previous = e.hash
        else:
            previous = e.hash
        if entry_problem is not None:
            report.add(entry_problem)
        else:
            _check_row(e, report)
        behind.append(e)
        expected, last = e.seq + 1, e
    return None if last is None else chain.Position(last.seq, last.hash)


def _check_row(e: Entry, report: Report) -> None:
    noun = e.kind
    if e.row_digest is None and e.archived:
        report.archived += 1
        return
    if e.row_digest is None:
        report.add(Problem(e.seq, "deleted", e.label, f"the {noun} it records is no longer stored"))
        return
    why = [p for p in e.row_problems if not p.startswith(UNVERIFIABLE)]
    if e.row_digest != e.digest:
        why.insert(0, f"the stored {noun} is not what was appended (its content's digest changed)")
    if why:
        report.add(Problem(e.seq, "modified", e.label, "; ".join(why)))
    elif len(why) != len(e.row_problems):
        unverified = [p.removeprefix(UNVERIFIABLE) for p in e.row_problems if p.startswith(UNVERIFIABLE)]
        report.add(Problem(e.seq, "unverifiable", e.label, "; ".join(unverified)))


def check_end(
    report: Report,
    last: chain.Position | None,
    head: chain.Position | None,
    beyond: tuple[int, int | None],
    unchained: tuple[int, Sequence[str]],
) -> None:
    """What the walk cannot see: the head against the last entry, entries past the head, rows no entry records."""
    if head is None:
        if last is not None:
            report.add(
                Problem(
                    None,
                    "deleted",
                    "chain head",
                    f"no head row, but {last.seq} entries: the head was deleted",
                )
            )
    elif last is None or last.seq < head.seq:
        first = 1 if last is None else last.seq + 1
        report.add(
            Problem(
                first,
                "deleted",
                _range(first, head.seq),
                f"the head counts {head.seq} entries: the end of the chain was cut",
            )
        )
    elif last.hash != head.hash:
        report.add(
            Problem(
                head.seq,
                "modified",
                "chain head",
                f"its hash is not entry {head.seq}'s: the head was changed",
            )
        )
    count, top = beyond
    if count:
        start = (head.seq if head is not None else 0) + 1
        report.add(
            Problem(
                start,
                "inserted",
                f"{count} chain entries up to seq {top}",
                "past the head: appended outside the service",
            )
        )
    n, labels = unchained
    for what in labels:
        report.add(
            Problem(
                None,
                "inserted",
                what,
                "stored, but no chain entry records it: written outside the service (or its entry deleted)",
            )
        )
    report.problem_count += n - len(labels)


# --- a round's own consistency ------------------------------------------------------------------------------------


def findings_disagree(
    values: Mapping[str, Any], pk: int, rows: Sequence[Mapping[str, Any]], audit_no: int = 1
) -> str | None:
    """How the ``findings`` rows of a round's audit ``audit_no`` disagree with that audit's JSON (they are derived
    from it), or None."""
    try:
        findings = list(orjson.loads(values["audit"]).get("findings") or [])
    except (orjson.JSONDecodeError, AttributeError):
        return "its audit is not a JSON object"
    if len(rows) != len(findings):
        return f"{len(rows)} findings rows, but its audit has {len(findings)} findings"
    coordinates = SimpleNamespace(
        jurisdiction=values["jurisdiction"], table_id=values["table_id"], played_at=values["played_at"]
    )
    expected = rounds_repo.finding_rows(pk, findings, values["source"], cast(Round, coordinates), audit_no)
    for want, got in zip(expected, rows, strict=True):
        differ = [k for k, v in want.items() if k != "audit_no" and got.get(k) != v]
        if differ:
            return f"findings row {want['seq']} disagrees with its audit ({', '.join(differ)})"
    return None


def void_disagrees(audit: str, void_reason: str | None) -> str | None:
    """How a round's or a re-audit's ``void_reason`` column disagrees with its audit's ``void`` (it is derived from
    it), or None."""
    try:
        result = orjson.loads(audit)
    except orjson.JSONDecodeError:
        return None  # said by findings_disagree
    said = void_reason_of(result) if isinstance(result, dict) else None
    if said == void_reason:
        return None
    return f"its void_reason column says {void_reason!r}, its audit {said!r}"


# --- replaying the audits (an audit is a function of the record, the elections, the ruleset and the engine) --------

UNVERIFIABLE = "not verified: "
"""The start of a row problem that says the row could not be checked (not that it is wrong): an ``unverifiable``
problem."""

RECEIVED_SLACK = timedelta(minutes=5)
"""How much earlier than the round entry before it a round's ``received_at`` may be: entries are appended at commit,
in the order transactions end, and a batch chunk's rounds are received when the chunk starts."""


@dataclass
class Context:
    """What the walk of one page needs besides its rows: the registrations and re-audit jobs the audits name."""

    registrations: Mapping[int, Any]
    jobs: Mapping[str, chain.ReauditJob]
    keys: frozenset[str]


def _context(session: Session, rows: Sequence[Any], jobs: dict[str, chain.ReauditJob]) -> Context:
    """``jobs``: the re-audit jobs read for earlier pages, added to (a job's rounds are read once per walk, not once
    per page that holds one of its audits)."""
    ids = [int(r.r_elections_id) for r in rows if r.r_id is not None and r.r_elections_id is not None]
    ids += [int(r.a_elections_id) for r in rows if r.a_id is not None and r.a_elections_id is not None]
    unread = sorted({r.a_reaudit_id for r in rows if r.a_id is not None and r.a_reaudit_id} - jobs.keys())
    if unread:
        jobs.update(chain.reaudit_jobs(session, unread))
    named = sorted({k for j in jobs.values() if (k := _key_named(j.requested_by)) is not None})
    return Context(
        chain.registrations_by_id(session, ids), jobs, frozenset(chain.existing_key_ids(session, named))
    )


def _key_named(requested_by: str | None) -> str | None:
    """The key id a re-audit's ``requested_by`` names (``key bja_x (label)``), or None (the command line's)."""
    if requested_by and requested_by.startswith("key "):
        return requested_by[4:].split(" ", 1)[0]
    return None


def replay_problems(values: Mapping[str, Any], record: bytes, ctx: Context) -> list[str]:
    """How a stored audit (a round's first, or a re-audit's) differs from the one the engine makes of the stored
    record, by the elections and the ruleset it names: the audit the service would have stored. An audit naming an
    engine version this build does not have cannot be re-run and says so."""
    engine = auditing.ENGINE_VERSION
    if values["engine_version"] != engine:
        return [
            f"{UNVERIFIABLE}its audit names engine {values['engine_version']!r}; this build is engine {engine!r} "
            "and cannot re-run it"
        ]
    try:
        rnd = offline.read_round(record)
    except ServiceError as exc:
        return [f"its record cannot be read by the engine it names: {exc.detail}"]
    said = {
        "round_id": rnd.round_id,
        "jurisdiction": rnd.jurisdiction,
        "table_id": rnd.table_id,
        "played_at": rnd.played_at,
        "dealer_id": rnd.dealer_id,
        "shoe_id": rnd.shoe_id,
    }
    differ = [k for k, v in said.items() if k in values and values[k] != v]
    if differ:
        return [f"its record says another {', '.join(differ)} than its row"]
    registered = None
    if values["elections_source"] == "registered":
        found = ctx.registrations.get(values["elections_id"]) if values["elections_id"] is not None else None
        if found is None:
            return [f"its audit names registration {values['elections_id']}, which is not stored"]
        if (found.source, found.jurisdiction, found.table_id) != (
            values["source"],
            rnd.jurisdiction,
            rnd.table_id,
        ):
            return [f"its audit names registration {values['elections_id']}, of another table"]
        registered = (int(found.id), dict(orjson.loads(found.rules)))
    try:
        again = offline.audit_read(rnd, registered)
    except ServiceError as exc:
        return [f"the engine refuses to audit its record: {exc.detail}"]
    if again.body.decode() != values["audit"]:
        return [
            f"its audit is not the one engine {engine} makes of its record (verdict "
            f"{again.result.get('verdict')!r} with {len(again.result.get('findings') or ())} findings, stored "
            f"{values['verdict']!r} with {values['finding_count']}): it was not made by the service"
        ]
    return []


def reaudit_problems(row: Any, ctx: Context) -> list[str]:
    """A re-audit's audit must come from a re-audit job that exists, was asked for, covers its round, and is older."""
    job = ctx.jobs.get(row.a_reaudit_id) if row.a_reaudit_id else None
    if job is None:
        return [f"it cites re-audit {row.a_reaudit_id!r}, which does not exist"]
    out = []
    key = _key_named(job.requested_by)
    if not job.requested_by or (key is not None and key not in ctx.keys):
        out.append(f"re-audit {row.a_reaudit_id} was asked for by no key ({job.requested_by!r})")
    if int(row.a_round_pk) not in job.round_pks:
        out.append(f"re-audit {row.a_reaudit_id} was not asked to re-run this round")
    if job.source is not None and job.source != row.a_source:
        out.append(f"re-audit {row.a_reaudit_id} is of source {job.source!r}")
    if row.a_created_at < job.created_at:
        out.append(f"it is older than re-audit {row.a_reaudit_id}")
    return out


# --- the database -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Where a verification that found nothing stopped: the next one starts after it (``bjaudit verify`` keeps it
    outside the database). ``frontier``: the right edge of the tree of ``seq`` entries (app/evidence/merkle.py),
    computed by that verification from the entries themselves."""

    seq: int
    hash: bytes
    frontier: tuple[bytes, ...]
    received_at: datetime | None = None
    max_ids: Mapping[str, int] = field(default_factory=dict)

    @property
    def root(self) -> bytes:
        return merkle.Frontier(self.seq, self.frontier).root()

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "hash": self.hash.hex(),
            "root": self.root.hex(),
            "frontier": [h.hex() for h in self.frontier],
            "received_at": None if self.received_at is None else chain.timestamp(self.received_at),
            "max_ids": dict(self.max_ids),
        }

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Checkpoint:
        received = doc.get("received_at")
        point = cls(
            int(doc["seq"]),
            bytes.fromhex(doc["hash"]),
            tuple(bytes.fromhex(h) for h in doc["frontier"]),
            None if received is None else datetime.fromisoformat(received.replace("Z", "+00:00")),
            {str(k): int(v) for k, v in (doc.get("max_ids") or {}).items()},
        )
        if "root" in doc and point.root.hex() != doc["root"]:
            raise ValueError("its frontier does not give its root")
        return point


def _entries(
    session: Session, source: str, after: int, upto: int, page: int, replay: bool, walk: _Walk
) -> Iterator[Entry]:
    jobs: dict[str, chain.ReauditJob] = {}
    archived: frozenset[datetime] | None = None
    while after < upto:
        rows = chain.entries_page(session, source, after, upto, page)
        after = min(after + page, upto)  # a range of seqs: a page with entries deleted is shorter, or empty
        if not rows:
            continue
        pks = [int(r.r_id) for r in rows if r.r_id is not None]
        pks += [int(r.a_round_pk) for r in rows if r.a_id is not None]
        findings = chain.findings_of(session, pks)
        ctx = _context(session, rows, jobs) if replay else None
        if archived is None:
            archived = chain.archived_months(session)
        for r in rows:
            yield walk.passing(_entry(r, findings, ctx, archived))
        if walk.out_of_time():
            return


def _entry(
    r: Any,
    findings: Mapping[tuple[int, int], Sequence[Mapping[str, Any]]],
    ctx: Context | None,
    archived: frozenset[datetime] = frozenset(),
) -> Entry:
    row_digest: bytes | None = None
    why: list[str] = []
    received = None
    if r.kind == "round" and r.r_id is not None:
        values = chain.round_values(r)
        received = r.r_received_at
        row_digest = chain.content_digest(chain.round_content(values))
        if values["record_sha256"] != r.r_record_sha256:
            why.append("its record_sha256 column is not the SHA-256 of its record")
        disagree = findings_disagree(values, int(r.r_id), findings.get((int(r.r_id), 1), ()))
        if disagree:
            why.append(disagree)
        void = void_disagrees(values["audit"], r.r_void_reason)
        if void:
            why.append(void)
        if ctx is not None:
            why += replay_problems(values, bytes(r.r_record), ctx)
    elif r.kind == "registration" and r.t_id is not None:
        row_digest = chain.content_digest(chain.registration_content(chain.registration_values(r)))
    elif r.kind == "audit" and r.a_id is not None:
        values = chain.audit_values(r)
        if (
            values["round_id"] is not None
        ):  # else its round is gone, and the audit with it: reported as deleted
            row_digest = chain.content_digest(chain.audit_content(values))
            key = (int(r.a_round_pk), int(r.a_audit_no))
            disagree = findings_disagree(values, key[0], findings.get(key, ()), audit_no=key[1])
            if disagree:
                why.append(disagree)
            void = void_disagrees(values["audit"], r.a_void_reason)
            if void:
                why.append(void)
            if ctx is not None:
                why += reaudit_problems(r, ctx)
                why += replay_problems(
                    {**values, "source": r.a_source, "jurisdiction": r.a_jurisdiction}, bytes(r.a_record), ctx
                )
    played = r.k_played_at if r.kind == "round" else r.ak_played_at if r.kind == "audit" else None
    gone = row_digest is None and played is not None and chain.month_start(played) in archived
    return Entry(
        int(r.seq), r.kind, r.label, bytes(r.digest), bytes(r.hash), row_digest, tuple(why), received, gone
    )


class _Walk:
    """What the walk keeps besides the chain's links: the tree's right edge (each entry's leaf appended), the signed
    tree heads to compare with it as their sizes are passed, the rounds' receipt order, the clock."""

    def __init__(
        self,
        report: Report,
        start: Checkpoint | None,
        heads: Sequence[Any],
        deadline: float | None,
        trusted: bytes | None,
    ) -> None:
        self.report = report
        self.frontier = merkle.Frontier(start.seq, start.frontier) if start else merkle.Frontier()
        self.heads = {h.seq: h for h in heads}
        self.received = start.received_at if start else None
        self.deadline = deadline
        self.trusted = trusted

    def passing(self, e: Entry) -> Entry:
        if e.seq == self.frontier.size + 1:
            self.frontier.append(merkle.leaf_hash(e.digest))
        received = e.received_at
        if received is not None:
            if self.received is not None and received < self.received - RECEIVED_SLACK:
                late = (
                    f"received {chain.timestamp(received)}, before the round appended ahead of it "
                    f"(received {chain.timestamp(self.received)}): it was put in the chain afterwards"
                )
                e = replace(e, row_problems=(*e.row_problems, late))
            else:
                self.received = received if self.received is None else max(self.received, received)
        head = self.heads.get(e.seq)
        if head is not None and e.seq == self.frontier.size:
            self._check_head(head, e)
        return e

    def _check_head(self, head: Any, e: Entry) -> None:
        wrong = []
        if self.frontier.root() != head.root:
            wrong.append("its root is not the root of the entries up to it")
        if e.hash != head.hash:
            wrong.append("its chain hash is not the entry's")
        wrong += check_signature(orjson.loads(head.doc), self.trusted)
        if wrong:
            self.report.add(
                Problem(head.seq, "modified", f"signed tree head of {head.seq} entries", "; ".join(wrong))
            )

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline


def verify_source(
    session: Session,
    source: str,
    *,
    page: int = PAGE,
    limit: int = MAX_PROBLEMS,
    since: Checkpoint | None = None,
    replay: bool = True,
    deadline: float | None = None,
    trusted: bytes | None = None,
) -> Report:
    """Verify one source's chain, its rows and its tree; the audits re-run (``replay``). ``since``: only what was
    appended after a checkpoint of an earlier verification (that entry must still be where it was, and the stored
    tree must still hold its root). ``deadline`` (``time.monotonic()``): stop there and say how far it came.
    Entries appended while it runs are left for the next verification."""
    report = Report(source, limit)
    head = chain.head(session, source)
    upto = head.seq if head is not None else (chain.entries_beyond(session, source, 0)[1] or 0)
    report.since = since
    start = since.seq if since is not None else 0
    if since is not None:
        _check_since(session, source, since, report)
    walk = _Walk(report, since, tree.heads(session, source, start), deadline, trusted)
    entries = _entries(session, source, start, upto, page, replay, walk)
    last = check_entries(entries, report, start=(start + 1, since.hash if since is not None else chain.ZERO))
    if last is None and since is not None:
        last = chain.Position(since.seq, since.hash)
    report.head = head
    if last is not None and head is not None and last.seq < head.seq and walk.out_of_time():
        report.complete = False  # stopped by the deadline: the rest is not checked, nor said to be missing
    else:
        now = chain.head(session, source)  # appends made meanwhile moved it on: they are not "past the head"
        check_end(
            report,
            last,
            head,
            chain.entries_beyond(session, source, now.seq if now is not None else (last.seq if last else 0)),
            chain.unchained(session, source, limit, since.max_ids if since is not None else None),
        )
        _check_stored_tree(session, source, walk.frontier, report)
    if last is not None and walk.frontier.size == last.seq:
        report.checkpoint = Checkpoint(
            last.seq, last.hash, tuple(walk.frontier.nodes), walk.received, chain.max_ids(session)
        )
    return report


def _check_since(session: Session, source: str, since: Checkpoint, report: Report) -> None:
    found = chain.entry_at(session, source, since.seq)
    if found is None or found.hash != since.hash:
        report.add(
            Problem(
                since.seq,
                "modified",
                f"chain entry {since.seq}",
                "the chain no longer holds the hash verified last time at this entry: it was rewritten since "
                "(bjaudit verify --full names what)",
            )
        )
        return
    try:
        stored = tree.root(session, source, since.seq)
    except tree.MissingLeaves as exc:
        report.add(Problem(since.seq, "deleted", "the tree's entries", str(exc)))
        return
    if stored != since.root:
        report.add(
            Problem(
                since.seq,
                "modified",
                f"tree of {since.seq} entries",
                "the stored tree no longer gives the root verified last time: it was rewritten since",
            )
        )


def _check_stored_tree(session: Session, source: str, frontier: merkle.Frontier, report: Report) -> None:
    """The nodes kept for proofs must give the root the walk computed from the entries."""
    latest = tree.latest_head(session, source)
    size = min(frontier.size, latest.seq) if latest is not None else 0
    if size == 0 or size != frontier.size:
        return
    try:
        stored = tree.root(session, source, size)
    except tree.MissingLeaves as exc:
        report.add(Problem(size, "deleted", "the tree's entries", str(exc)))
        return
    if stored != frontier.root():
        report.add(
            Problem(
                size,
                "modified",
                f"the stored tree of {size} entries",
                "its nodes (merkle_nodes) do not give the root of the entries: proofs made from them are false",
            )
        )


def verify(
    session: Session, source: str | None = None, since: Mapping[str, Checkpoint] | None = None
) -> list[Report]:
    """Verify one source, or every source with a chain or a stored row (each after its checkpoint in ``since``)."""
    return [
        verify_source(session, s, since=(since or {}).get(s))
        for s in ([source] if source is not None else chain.sources(session))
    ]


def integrity_answer(
    session: Session,
    source: str,
    key: Ed25519PrivateKey | None = None,
    since: Checkpoint | None = None,
    seconds: float = 8.0,
) -> bytes:
    """``GET /v1/integrity``: the verification of one source as JSON, within ``seconds``: a log too long to walk in
    that time is verified as far as it went (``complete`` false), and ``next`` says how to go on from there."""
    if key is not None:
        from app.usecases import transparency

        transparency.sign_head(
            session, source, key
        )  # the tree filled up to now: proofs and frontiers are cheap
    report = verify_source(
        session,
        source,
        since=since,
        deadline=time.monotonic() + seconds,
        trusted=raw_public_key(key) if key is not None else None,
    )
    return orjson.dumps(report.to_dict())


# --- the signed head -------------------------------------------------------------------------------------------------

SIGNED_FIELDS = ("source", "seq", "hash", "exported_at", "public_key")
"""What the signature covers: the canonical JSON of these fields of the export."""


def load_signing_key(path: Path | str, *, create: bool = True) -> Ed25519PrivateKey:
    """The service's Ed25519 key, from a PEM file (PKCS#8); made (mode 0600) when missing and ``create``."""
    path = Path(path)
    if not path.exists() and create:
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        if create_private(path, pem):  # else made meanwhile by another process: use that one
            return key
    try:
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise SigningKeyUnusable(f"The signing key {str(path)!r} cannot be read: {exc}") from exc
    if not isinstance(loaded, Ed25519PrivateKey):
        raise SigningKeyUnusable(f"The signing key {str(path)!r} is not an Ed25519 key.")
    return loaded


def raw_public_key(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_key_pem(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def signed_payload(doc: Mapping[str, Any]) -> bytes:
    """The bytes a head's signature covers: the canonical JSON of every field but the signature (a head signed
    before the Merkle log has just :data:`SIGNED_FIELDS`; one signed since adds its tree's ``root``)."""
    return chain.canonical({k: v for k, v in doc.items() if k != "signature"})


def signed_head(
    source: str,
    position: chain.Position,
    key: Ed25519PrivateKey,
    now: datetime | None = None,
    root: bytes | None = None,
) -> dict[str, Any]:
    """The export of a source's chain head, signed; with ``root``, a signed tree head (app/usecases/transparency.py)."""
    doc: dict[str, Any] = {
        "source": source,
        "seq": position.seq,
        "hash": position.hash.hex(),
        "exported_at": chain.timestamp(now or datetime.now(UTC)),
        "public_key": base64.b64encode(raw_public_key(key)).decode(),
    }
    if root is not None:
        doc["root"] = root.hex()
    doc["signature"] = base64.b64encode(key.sign(signed_payload(doc))).decode()
    return doc


def check_signature(doc: Mapping[str, Any], trusted: bytes | None = None) -> list[str]:
    """What is wrong with a signed head on its own (no database): its fields, its signature, and its key when a
    ``trusted`` raw public key is given. Empty when it is sound."""
    missing = [k for k in (*SIGNED_FIELDS, "signature") if k not in doc]
    if missing:
        return [f"the export lacks {', '.join(missing)}"]
    try:
        public = base64.b64decode(doc["public_key"], validate=True)
        signature = base64.b64decode(doc["signature"], validate=True)
        key = Ed25519PublicKey.from_public_bytes(public)
    except (binascii.Error, ValueError, TypeError) as exc:
        return [f"the export's public_key or signature is not usable: {exc}"]
    problems = []
    if trusted is not None and public != trusted:
        problems.append("it is signed with another key than the one trusted")
    try:
        key.verify(signature, signed_payload(doc))
    except InvalidSignature:
        problems.append("the signature does not match its fields: the export was changed after it was signed")
    return problems


def check_head_in_chain(session: Session, doc: Mapping[str, Any]) -> list[str]:
    """Whether the database's chain still holds the exported hash at the exported seq."""
    source, seq = str(doc["source"]), int(doc["seq"])
    found = chain.entry_at(session, source, seq)
    if found is None:
        return [f"source {source!r} has no chain entry {seq} any more: the chain was cut or rewritten"]
    if found.hash.hex() != doc["hash"]:
        return [
            f"entry {seq} of source {source!r} now has the hash {found.hash.hex()}, not the {doc['hash']} exported: "
            "the chain was rewritten after the export"
        ]
    return []


def read_trusted_key(text: str) -> bytes:
    """A trusted public key given as PEM (SubjectPublicKeyInfo) or as the raw key in base64."""
    stripped = text.strip()
    if stripped.startswith("-----BEGIN"):
        loaded = serialization.load_pem_public_key(stripped.encode())
        if not isinstance(loaded, Ed25519PublicKey):
            raise ValueError("not an Ed25519 public key")
        return raw_public_key(loaded)
    raw = base64.b64decode(stripped, validate=True)
    Ed25519PublicKey.from_public_bytes(raw)
    return raw
