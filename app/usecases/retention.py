"""Retention (issue 21): whole months of rounds archived to files and their partitions dropped; archives restored.

``archive`` writes each month wholly before a date (a month partition of ``rounds``; PostgreSQL only) as gzip NDJSON:
one line a round — its record as received (base64), its columns and first audit, its re-audits, its findings rows, its
chain entry (seq, hash) and its evidence (its entries and their inclusion proofs under a head of its source's log
signed for the archive: app/evidence/archive.py) — and a manifest beside it (counts, the file's SHA-256, the heads).
It reads the file back and checks it (each round's evidence packet included) before anything is removed; then, in
one transaction, it records the archive (``archives``), detaches the month's partitions of ``rounds`` and
``findings`` and checks that they hold exactly what was written (no round of that month arrived meanwhile); it drops
them in another (a table left detached is dropped by the next archive or restore). One archive or restore runs at a
time. ``round_keys`` keeps the rounds' keys: a lookup of one answers
410 with where it went, and integrity verification reports its chain entry as archived, not deleted. Re-audits
(``audits``) and chain entries stay: they are small, and the chain must stay whole.

A month is refused while a live webhook subscription of a source has not passed one of the month's chain entries
(``subscriptions.cursor_seq``): its findings are not delivered yet. ``restore`` verifies a file against its manifest
(and each round's evidence under its heads, and those heads against the log), makes the month's partitions again
and inserts its rounds and findings. The reports' rollups follow: an archived
month leaves them, a restored one comes back to them. docs/retention.md.
"""

from __future__ import annotations

import base64
import gzip
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from typing import Any

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from psycopg.errors import LockNotAvailable
from sqlalchemy import Connection, RowMapping, and_, or_, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.evidence import archive as archive_file
from app.store import chain, partitions, rollups, tree
from app.store.db import Database
from app.store.models import audits_table as A
from app.store.models import chain_entries_table as CE
from app.store.models import findings_table as F
from app.store.models import report_rollups_table as RU
from app.store.models import rollup_cursors_table as RC
from app.store.models import rounds_table as R
from app.store.models import table_elections_table as E
from app.usecases import integrity, transparency

log = logging.getLogger(__name__)


class RetentionRefused(Exception):
    """A month that cannot be archived or restored now (why is the message); nothing of it was removed."""


@dataclass(frozen=True, slots=True)
class Archived:
    month: date
    path: Path
    rounds: int
    findings: int
    sha256: str
    heads: tuple[dict[str, Any], ...] = ()
    """The signed heads the file's proofs lead to (one a source)."""
    proved: int = 0
    """Rounds whose evidence the file holds, checked (a round with no entry in its log has none)."""


_ROUND_COLUMNS = [c.name for c in R.c]
_FINDING_COLUMNS = [c.name for c in F.c]
_REAUDIT_COLUMNS = (
    "audit_no",
    "reaudit_id",
    "created_at",
    "verdict",
    "ruleset",
    "engine_version",
    "elections_source",
    "elections_id",
    "finding_count",
    "audit",
    "void_reason",
)


def _json(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, bytes | memoryview):
        return base64.b64encode(bytes(value)).decode()
    return value


def _bound(month: date) -> datetime:
    return datetime(month.year, month.month, 1, tzinfo=UTC)


def months_before(conn: Connection, before: date) -> list[date]:
    """The months whose ``rounds`` partition exists and ends at or before ``before``, oldest first."""
    names = conn.execute(
        text(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = 'rounds'::regclass AND c.relkind = 'r'"
        )
    ).scalars()
    found = (partitions.month_of_name(name) for name in names)
    return sorted(month for month in found if month is not None and partitions.add_months(month, 1) <= before)


def _undelivered(conn: Connection, part: str) -> int:
    """Chain entries of the month's rounds that a live subscription of their source has not passed."""
    return int(
        conn.execute(
            text(
                f"SELECT count(*) FROM {part} r JOIN chain_entries e ON e.kind = 'round' AND e.ref_id = r.id "
                "WHERE EXISTS (SELECT 1 FROM subscriptions s WHERE s.source = e.source AND s.deleted_at IS NULL "
                "AND s.cursor_seq < e.seq)"
            )
        ).scalar_one()
    )


class _Proofs:
    """The archive's inclusion proofs and the heads they lead to: one head a source, signed (or the latest signed)
    when the month's first round of that source is written and committed at once, so that it holds every entry the
    month's snapshot sees (that snapshot is taken before). The proofs are read in sessions of their own: the tree's
    nodes and the entries up to a signed head never change."""

    def __init__(self, db: Database, key: Ed25519PrivateKey) -> None:
        self.db, self.key = db, key
        self.logs: dict[str, dict[str, Any]] = {}
        """The manifest's ``logs``: per source its ``head`` and ``registrations`` (entries by seq, as text)."""
        self._pending: list[tuple[str, dict[str, Any]]] = []

    def head(self, source: str) -> dict[str, Any]:
        if source not in self.logs:
            with self.db.session() as session:
                self.logs[source] = {
                    "head": transparency.sign_head(session, source, self.key),
                    "registrations": {},
                }
        return dict(self.logs[source]["head"])

    def registration(self, source: str, entry: dict[str, Any]) -> None:
        self.head(source)
        known = self.logs[source]["registrations"]
        if str(entry["seq"]) not in known:
            known[str(entry["seq"])] = entry
            self._pending.append((source, entry))

    def prove(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        """Give each entry (its source, the entry with its ``seq``), and each registration added since, its
        ``inclusion`` proof under its source's head."""
        everything = entries + self._pending
        self._pending = []
        wanted: dict[str, set[int]] = {}
        for source, entry in everything:
            wanted.setdefault(source, set()).add(int(entry["seq"]) - 1)
        sizes = {source: int(self.head(source)["seq"]) for source in wanted}
        with self.db.reading() as session:
            paths = {
                (source, index): path
                for source, indices in wanted.items()
                for index, path in tree.inclusions(session, source, indices, sizes[source]).items()
            }
        for source, entry in everything:
            entry["inclusion"] = [h.hex() for h in paths[(source, int(entry["seq"]) - 1)]]


def _registrations(
    conn: Connection, audits: list[RowMapping], known: dict[int, RowMapping | None]
) -> list[RowMapping]:
    """The registrations (rows with their ``entry_seq``) a round's audits were made by, read once each."""
    out = []
    for elections_id in dict.fromkeys(chain.registered_elections(audits)):
        if elections_id not in known:
            known[elections_id] = (
                conn.execute(
                    select(*E.c, CE.c.seq.label("entry_seq"))
                    .select_from(E.join(CE, (CE.c.kind == "registration") & (CE.c.ref_id == E.c.id)))
                    .where(E.c.id == elections_id)
                )
                .mappings()
                .one_or_none()
            )
        found = known[elections_id]
        if found is not None:
            out.append(found)
    return out


def _evidence(
    row: RowMapping,
    later: list[RowMapping],
    conn: Connection,
    proofs: _Proofs,
    known: dict[int, RowMapping | None],
) -> dict[str, Any] | None:
    """What a round's line carries of its evidence packet (app/evidence/archive.py), its proofs still to come: the
    round's and its re-audits' entries without their audits (the line has them), and the seqs of the registrations
    its audits were made by (the manifest has them, with their rules). None when the round has no entry in its
    log (``bjaudit verify`` names it)."""
    if row["entry_seq"] is None:
        return None
    entries = transparency.packet_entries(row, later, _registrations(conn, [row, *later], known))
    registrations = [e for e in entries if e["kind"] == "registration"]
    for entry in registrations:
        proofs.registration(row["source"], entry)
    return {
        "entries": [
            {k: v for k, v in e.items() if k != "audit"} for e in entries if e["kind"] != "registration"
        ],
        "registrations": [e["seq"] for e in registrations],
    }


def _lines(conn: Connection, month: date, proofs: _Proofs) -> Iterator[bytes]:
    part = f"rounds_{month:%Y_%m}"
    lo, hi = _bound(month), _bound(partitions.add_months(month, 1))
    findings: dict[int, list[dict[str, Any]]] = {}
    for row in conn.execute(
        text(
            "SELECT * FROM findings WHERE played_at >= :lo AND played_at < :hi ORDER BY round_pk, audit_no, seq"
        ),
        {"lo": lo, "hi": hi},
    ).mappings():
        findings.setdefault(int(row["round_pk"]), []).append({c: _json(row[c]) for c in _FINDING_COLUMNS})
    reaudits: dict[int, list[RowMapping]] = {}
    for row in conn.execute(
        text(
            f"SELECT a.*, e.seq AS entry_seq FROM audits a JOIN {part} r ON r.id = a.round_pk "
            "LEFT JOIN chain_entries e ON e.kind = 'audit' AND e.ref_id = a.id ORDER BY a.round_pk, a.audit_no"
        )
    ).mappings():
        reaudits.setdefault(int(row["round_pk"]), []).append(row)
    known: dict[int, RowMapping | None] = {}
    # The rounds (≈ 2 KB each, millions a month) stream through a server-side cursor, a thousand at a time whose
    # proofs are read together; the month's findings and re-audits (a few percent of its rounds) are held, by round.
    rows = (
        conn.execution_options(stream_results=True, yield_per=1000)
        .execute(
            text(
                f"SELECT r.*, e.seq AS entry_seq, e.hash AS chain_hash FROM {part} r "
                "LEFT JOIN chain_entries e ON e.kind = 'round' AND e.ref_id = r.id ORDER BY r.id"
            )
        )
        .mappings()
    )
    for chunk in rows.partitions(1000):
        docs = []
        for row in chunk:
            pk = int(row["id"])
            later = reaudits.get(pk, [])
            doc = {c: _json(row[c]) for c in _ROUND_COLUMNS}
            doc["chain"] = {"seq": row["entry_seq"], "hash": _json(row["chain_hash"])}
            doc["reaudits"] = [{c: _json(a[c]) for c in _REAUDIT_COLUMNS} for a in later]
            doc["findings"] = findings.get(pk, [])
            doc["evidence"] = _evidence(row, later, conn, proofs, known)
            docs.append(doc)
        proofs.prove([(d["source"], e) for d in docs if d["evidence"] for e in d["evidence"]["entries"]])
        for doc in docs:
            yield orjson.dumps(doc) + b"\n"


def _checked(path: Path, manifest: dict[str, Any], trusted: bytes | None) -> archive_file.Checked:
    """Read the file back against its manifest (app/evidence/archive.py): refused at any problem, the first named."""
    try:
        checked = archive_file.check_file(path, manifest, trusted)
    except (OSError, ValueError, EOFError) as exc:  # not gzip, cut short, a line not JSON
        raise RetentionRefused(f"{path}: it cannot be read back: {exc}") from exc
    if checked.problems:
        raise RetentionRefused(
            f"{path}: read back, {checked.problems} problem(s); the first: {checked.listed[0]}"
        )
    return checked


def archive_month(db: Database, month: date, to: Path, by: str, key: Ed25519PrivateKey) -> Archived:
    """Archive one month (see the module's docstring); :class:`RetentionRefused` leaves it as it was. ``key`` signs
    the heads the rounds' proofs lead to."""
    with _alone(db):
        return _archive_month(db, month, to, by, key)


def _archive_month(db: Database, month: date, to: Path, by: str, key: Ed25519PrivateKey) -> Archived:
    part, fpart = f"rounds_{month:%Y_%m}", f"findings_{month:%Y_%m}"
    path = to / f"bjaudit-rounds-{month:%Y-%m}.ndjson.gz"
    with db.engine.connect() as conn:
        where = conn.execute(
            text(
                "SELECT path FROM archives WHERE month = :m AND restored_at IS NULL ORDER BY id DESC LIMIT 1"
            ),
            {"m": _bound(month)},
        ).scalar()
        if where is not None:
            raise RetentionRefused(
                f"{month:%Y-%m}: archived already, to {where}, and not restored: restore it before archiving it "
                "again (its file is never written over)"
            )
    proofs = _Proofs(db, key)
    # One snapshot for the file and the counts.
    with db.engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn, conn.begin():
        if _undelivered(conn, part):
            raise RetentionRefused(
                f"{month:%Y-%m}: a webhook subscription has not delivered its findings yet (its cursor is before "
                "the month's chain entries): archive it once they are"
            )
        rounds = int(conn.execute(text(f"SELECT count(*) FROM {part}")).scalar_one())
        findings = int(conn.execute(text(f"SELECT count(*) FROM {fpart}")).scalar_one())
        to.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wb") as out:
            for line in _lines(conn, month, proofs):
                out.write(line)
    now = datetime.now(UTC)
    manifest = {
        "format": archive_file.FORMAT,
        "month": f"{month:%Y-%m}",
        "file": path.name,
        "sha256": archive_file.sha256_of(path),
        "bytes": path.stat().st_size,
        "rounds": rounds,
        "findings": findings,
        "archived_at": _json(now),
        "archived_by": by,
        "description": "gzip NDJSON, one round a line: its columns, record (base64), audit, re-audits, findings, "
        "chain entry, and evidence (its entries and their inclusion proofs under logs[source].head); "
        "docs/retention.md",
        "logs": proofs.logs,
    }
    checked = _checked(path, manifest, integrity.raw_public_key(key))
    archive_file.manifest_path(path).write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    sha = str(manifest["sha256"])

    def detach() -> None:
        with db.engine.begin() as conn:
            conn.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
            _take_for_detach(conn, part, fpart)
            _rollups_without(conn, month)
            conn.execute(text(f"ALTER TABLE rounds DETACH PARTITION {part}"))
            conn.execute(text(f"ALTER TABLE findings DETACH PARTITION {fpart}"))
            now_rounds = int(conn.execute(text(f"SELECT count(*) FROM {part}")).scalar_one())
            now_findings = int(conn.execute(text(f"SELECT count(*) FROM {fpart}")).scalar_one())
            if (now_rounds, now_findings) != (rounds, findings) or _undelivered(conn, part):
                raise RetentionRefused(
                    f"{month:%Y-%m}: rounds arrived while it was written: run the archive again"
                )
            conn.execute(
                text(
                    "INSERT INTO archives (month, path, rounds, findings, sha256, archived_at, archived_by) "
                    "VALUES (:month, :path, :rounds, :findings, :sha, :at, :by)"
                ),
                {
                    "month": _bound(month),
                    "path": str(path.resolve()),
                    "rounds": rounds,
                    "findings": findings,
                    "sha": sha,
                    "at": now,
                    "by": by,
                },
            )

    if not _when_free(DETACH_PATIENCE, detach):
        raise RetentionRefused(
            f"{month:%Y-%m}: the tables were busy for {DETACH_PATIENCE:.0f} s (long reports or batches): "
            "nothing was removed; run it again"
        )
    # Dropped in a transaction that holds nothing else: a drop locks round_keys wholly (ACCESS EXCLUSIVE, the
    # foreign keys' triggers go), which, with rounds held, deadlocked with readers of both.
    for left in _drop_detached(db, [month]):
        log.warning("%s: archived and detached; %s is dropped at the next archive or restore", month, left)
    heads = tuple(log["head"] for _, log in sorted(proofs.logs.items()))
    return Archived(month, path, rounds, findings, sha, heads, checked.proved)


def archive(db: Database, before: date, to: Path, by: str, key: Ed25519PrivateKey) -> list[Archived]:
    """Every month wholly before ``before``, oldest first; stops at the first refused (what was archived stays)."""
    if db.engine.dialect.name != "postgresql":
        raise RetentionRefused("archiving drops monthly partitions: PostgreSQL only")
    with _alone(db):
        for left in _drop_detached(db):
            log.warning("%s: a detached month's table, not dropped now either (a lock)", left)
        with db.engine.connect() as conn:
            months = months_before(conn, before)
            pending = set(partitions.archived(conn))
        done = []
        for month in months:
            if month in pending:
                # Its partitions are there again, the month archived and not restored: a restore that failed after
                # it made them, or a hand. Archiving it again would refuse, and stop every month after it.
                log.warning(
                    "%s: archived and not restored, yet its partitions are there: skipped (restore it)",
                    f"{month:%Y-%m}",
                )
                continue
            done.append(_archive_month(db, month, to, by, key))
        return done


def _take_for_detach(conn: Connection, part: str, fpart: str) -> None:
    """Every lock detaching the month needs, at once and without waiting (NOWAIT), or LockNotAvailable holding
    none: an archive never stands in a lock's queue, so it cannot deadlock, nor hold the stores back while it waits.
    ``round_keys`` SHARE ROW EXCLUSIVE (what detaching takes for the partitions' foreign keys: writers of keys wait,
    readers do not), the rollers' cursors (as the rollers take them, before any table of rounds), then the parents,
    their DEFAULT partitions and the month's partitions wholly."""
    conn.execute(text("LOCK TABLE round_keys IN SHARE ROW EXCLUSIVE MODE NOWAIT"))
    conn.execute(text(f"LOCK TABLE {RC.name} IN EXCLUSIVE MODE NOWAIT"))
    conn.execute(
        text(
            f"LOCK TABLE ONLY rounds, ONLY findings, rounds_default, findings_default, {part}, {fpart} "
            "IN ACCESS EXCLUSIVE MODE NOWAIT"
        )
    )


DETACH_PATIENCE = 60.0
"""Seconds an archive tries to have the locks to detach a month for (while reports or batch chunks hold the tables)
before it gives up, nothing removed."""
DROP_PATIENCE = 30.0
"""Seconds an archive or restore tries to drop a detached month's table for (it needs ``round_keys`` wholly, free of
readers and stores for a moment), before it leaves it to the next archive or restore."""
BUSY_PAUSE = 0.2
RESTORE_PATIENCE = 60.0
"""Seconds a restore tries to make the month's partitions for (see :func:`partitions.ensure_months`)."""
LOCK_TIMEOUT = "10s"
"""A safety net: archives take their locks without waiting (:func:`_take_for_detach`, :func:`_drop_detached`)."""


@contextmanager
def _alone(db: Database) -> Iterator[None]:
    """One archive or restore at a time (a session's advisory lock, held to the end): two archives of a month would
    write the same file."""
    with db.engine.connect() as conn:
        key = {"k": "bjaudit-retention"}
        if not conn.execute(text("SELECT pg_try_advisory_lock(hashtextextended(:k, 0))"), key).scalar_one():
            raise RetentionRefused(
                "another archive or restore is running on this database: run this one after it"
            )
        conn.commit()
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(hashtextextended(:k, 0))"), key)
            conn.commit()


def _drop_detached(db: Database, only: list[date] | None = None) -> list[str]:
    """Drop the tables of archived months (not restored) left detached (a drop that could not have its lock), of
    the months ``only`` or of all; those still there."""
    with db.engine.connect() as conn:
        archived = set(partitions.archived(conn))
        names = conn.execute(
            text(
                "SELECT relname FROM pg_class WHERE relkind = 'r' AND NOT relispartition "
                "AND relnamespace = current_schema()::regnamespace"
            )
        ).scalars()
        detached = sorted(
            (name, month)
            for name in names
            if (month := partitions.month_of_name(name)) in archived and (only is None or month in only)
        )

    def drop(name: str, month: date) -> None:
        with db.engine.begin() as conn:
            conn.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
            # Its locks at once without waiting, as for the detach: queued for round_keys it would hold every store
            # and lookup back behind it while it waited for a long reader.
            conn.execute(text(f"LOCK TABLE round_keys, {name} IN ACCESS EXCLUSIVE MODE NOWAIT"))
            # Still a detached table of a month archived and not restored, now that it is locked: never a month's
            # live partition (the callers run alone, but a hand may have restored it).
            still = conn.execute(
                text(
                    "SELECT NOT c.relispartition AND EXISTS (SELECT 1 FROM archives a WHERE a.month = :m "
                    "AND a.restored_at IS NULL) FROM pg_class c WHERE c.oid = to_regclass(:t)"
                ),
                {"t": name, "m": _bound(month)},
            ).scalar()
            if still:
                conn.execute(text(f"DROP TABLE {name}"))

    return [name for name, month in detached if not _when_free(DROP_PATIENCE, partial(drop, name, month))]


def _when_free(patience: float, attempt: Callable[[], None]) -> bool:
    """Run ``attempt`` (a transaction that takes its locks with NOWAIT) until it meets no held lock, trying again
    every :data:`BUSY_PAUSE` for ``patience`` seconds; whether it ran."""
    deadline = time.monotonic() + patience
    while True:
        try:
            attempt()
            return True
        except OperationalError as exc:
            if not isinstance(exc.orig, LockNotAvailable):
                raise
            if time.monotonic() >= deadline:
                return False
            time.sleep(BUSY_PAUSE)


def _manifest(path: Path) -> dict[str, Any]:
    where = archive_file.manifest_path(path)
    try:
        manifest = orjson.loads(where.read_bytes())
        if not isinstance(manifest, dict):
            raise TypeError("not a JSON object")
        return manifest
    except (OSError, orjson.JSONDecodeError, TypeError) as exc:
        raise RetentionRefused(f"{path}: its manifest {where} cannot be read: {exc}") from exc


def _heads_are_the_logs(db: Database, path: Path, manifest: dict[str, Any]) -> None:
    """Each head of an archive's manifest must give the root the source's log gives now at its size: the restored
    rounds are then those the log holds (whoever signed the head)."""
    with db.reading() as session:
        for source, log in sorted(dict(manifest.get("logs") or {}).items()):
            size, root = int(log["head"]["seq"]), str(log["head"]["root"])
            try:
                now = tree.root(session, source, size).hex()
            except tree.MissingLeaves as exc:
                now = f"none ({exc})"
            if now != root:
                raise RetentionRefused(
                    f"{path}: its head of source {source!r} at {size} entries has root {root}; the log's root at "
                    f"that size is {now}: these are not the rounds the log holds"
                )


RESTORE_BATCH = 1000
"""Rounds inserted a statement by :func:`restore` (and their findings in one more)."""


def _batched(docs: Iterator[dict[str, Any]], n: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for doc in docs:
        batch.append(doc)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch


def restore(db: Database, path: Path) -> Archived:
    """Bring back the month of an archive file after checking it: against its manifest (SHA-256, counts, records),
    and, for a file with proofs, each round's evidence under the manifest's heads and those heads against the log."""
    with _alone(db):
        return _restore(db, path)


def _restore(db: Database, path: Path) -> Archived:
    manifest = _manifest(path)
    checked = _checked(path, manifest, None)
    if archive_file.has_proofs(manifest):
        _heads_are_the_logs(db, path, manifest)
    year, mon = (int(x) for x in str(manifest["month"]).split("-"))
    month = date(year, mon, 1)
    if _drop_detached(db, [month]):
        raise RetentionRefused(
            f"{month:%Y-%m}: its detached tables could not be dropped now (a lock): run it again"
        )
    # The month's partitions first, on their own: making one locks round_keys (SHARE ROW EXCLUSIVE, for its foreign
    # key) to the end of its transaction, and no round could be stored while a month of them was inserted. A round
    # of the month may then arrive before the insert, and stays: only a round of the file found there (restored
    # already) refuses the restore.
    with db.engine.begin() as conn:
        made = partitions.ensure_months(conn, [month], patience=RESTORE_PATIENCE)[month]
        if made == "skipped":
            raise RetentionRefused(f"{month:%Y-%m}: rounds of that month are in the DEFAULT partition")
        if made == "busy":
            raise RetentionRefused(
                f"{month:%Y-%m}: the tables were busy for {RESTORE_PATIENCE:.0f} s (long reports or batches): "
                "nothing was restored; run it again"
            )
    _insert(db, month, path)
    heads = tuple(log["head"] for _, log in sorted(dict(manifest.get("logs") or {}).items()))
    return Archived(
        month,
        path,
        int(manifest["rounds"]),
        int(manifest["findings"]),
        str(manifest["sha256"]),
        heads,
        checked.proved,
    )


def _insert(db: Database, month: date, path: Path) -> None:
    """The file's rounds and findings inserted, with their rollups and the archive's ``restored_at``, in one
    transaction."""
    with db.engine.begin() as conn:
        restored: list[int] = []
        for docs in _batched(archive_file.lines(path), RESTORE_BATCH):
            rows = []
            for doc in docs:
                values = {c: doc[c] for c in _ROUND_COLUMNS}
                values["record"] = base64.b64decode(doc["record"])
                rows.append(values_typed(values, R))
            ids = [int(row["id"]) for row in rows]
            there = conn.execute(
                text(f"SELECT min(id) FROM rounds_{month:%Y_%m} WHERE id = ANY(:ids)"), {"ids": ids}
            ).scalar()
            # Asked before the insert: a failed insert would abort the statement's pipeline (and print its noise).
            if there is not None:
                raise RetentionRefused(
                    f"{month:%Y-%m}: a round of the file is in the database already (restored already?): nothing "
                    f"was restored (round id {there})"
                )
            keyed = conn.execute(
                text("SELECT count(*) FROM round_keys WHERE id = ANY(:ids)"), {"ids": ids}
            ).scalar()
            if keyed != len(ids):
                raise RetentionRefused(
                    f"{month:%Y-%m}: {len(ids) - int(keyed or 0)} round(s) of the file have no key in this database "
                    "(is it the database they were archived from?): nothing was restored"
                )
            restored.extend(ids)
            conn.execute(R.insert(), rows)
            found = [values_typed(f, F) for doc in docs for f in doc["findings"]]
            if found:
                conn.execute(F.insert(), found)
        _rollups_with(conn, restored)
        conn.execute(
            text("UPDATE archives SET restored_at = :at WHERE month = :m AND restored_at IS NULL"),
            {"at": datetime.now(UTC), "m": _bound(month)},
        )


# --- the reports' rollups (app/store/rollups.py) -----------------------------------------------------------------
# A report counts what the store holds: the month archived leaves the rollups with it, and comes back to them when it
# is restored. Both lock the rollers' cursors first (a roller holds its source's cursor row while it adds), so that no
# roller adds what it read of the month before the change after it.


def _rollups_without(conn: Connection, month: date) -> None:
    """Take the archived month out of the rollups (its days' rows and its month's: a round is in the rows of the day
    it was played)."""
    conn.execute(text(f"LOCK TABLE {RC.name} IN EXCLUSIVE MODE"))
    conn.execute(
        text(f"DELETE FROM {RU.name} WHERE day >= :first AND day < :end"),
        {"first": month, "end": partitions.add_months(month, 1)},
    )


def _rollups_with(conn: Connection, restored: list[int]) -> None:
    """Add the restored rounds back to the rollups: what the chain entries of the rounds and their re-audits that the
    rollers had added contribute (those past a cursor the rollers add when they get there)."""
    conn.execute(text(f"LOCK TABLE {RC.name} IN EXCLUSIVE MODE"))
    if not restored:
        return
    session = Session(bind=conn)
    ids = sorted(restored)
    rolled = [
        rollups.Entry(row.source, int(row.seq), row.kind, int(row.ref_id))
        for row in conn.execute(
            select(CE.c.source, CE.c.seq, CE.c.kind, CE.c.ref_id)
            .select_from(CE.join(RC, and_(RC.c.source == CE.c.source, CE.c.seq <= RC.c.seq)))
            .where(
                or_(
                    and_(CE.c.kind == "round", CE.c.ref_id.in_(ids)),
                    and_(CE.c.kind == "audit", CE.c.ref_id.in_(select(A.c.id).where(A.c.round_pk.in_(ids)))),
                )
            )
            .order_by(CE.c.source, CE.c.seq)
        )
    ]
    rollups.add_rolled(session, rollups.delta(session, rolled))


def values_typed(doc: dict[str, Any], table: Any) -> dict[str, Any]:
    """An archived row's JSON values as the table's columns take them (timestamps parsed)."""
    out = dict(doc)
    for c in table.c:
        if c.name in out and isinstance(out[c.name], str) and c.name.endswith(("_at",)):
            out[c.name] = datetime.fromisoformat(out[c.name].replace("Z", "+00:00"))
    return out
