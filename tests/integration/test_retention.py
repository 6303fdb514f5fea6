"""Retention (issue 21): ``bjaudit archive`` writes whole months to verified files and drops their partitions; a lookup
of an archived round answers 410 saying where it went; verification counts its entries as archived, not deleted;
``bjaudit restore`` brings the month back. PostgreSQL only (SQLite has no partitions to drop)."""

from __future__ import annotations

import base64
import concurrent.futures
import gzip
import hashlib
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from app.config import Settings
from app.evidence.archive import manifest_path as archive_file_manifest
from app.store import partitions
from app.store.db import Database
from app.store.migrate import upgrade_head
from app.usecases import integrity, retention
from tests.integration.test_archive_proofs import lines_of, rewrite

from .test_grouped_storing import row_of
from .test_partitions import partition_of, played_at, round_played, stored

ON_POSTGRES = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
OCTOBER, NOVEMBER = date(2024, 10, 1), date(2024, 11, 1)
KEY = Ed25519PrivateKey.generate()
"""Signs the heads of the archives' proofs (tests/integration/test_archive_proofs.py checks them)."""


@pytest.fixture
def db(database_url: str, engine: Engine) -> Iterator[Database]:
    database = Database.from_settings(Settings(database_url=database_url))
    yield database
    database.dispose()


@pytest.fixture
def two_months(
    database_url: str, engine: Engine, examples: dict[str, bytes], client: TestClient
) -> dict[str, bytes]:
    """Three rounds of source ``default``: two played in October 2024, one in November."""
    with engine.begin() as conn:
        partitions.ensure_months(conn, [OCTOBER, NOVEMBER])
    played = {
        "nj-compliant-double": datetime(2024, 10, 3, 12, tzinfo=UTC),
        "nj-double-then-dealer-blackjack": datetime(2024, 10, 30, 23, 59, tzinfo=UTC),
        "nj-dealer-draws-on-hard-17": datetime(2024, 11, 1, tzinfo=UTC),
    }
    records = {name: played_at(examples[name], f"{when:%Y-%m-%dT%H:%M:%SZ}") for name, when in played.items()}
    for record in records.values():
        assert stored(database_url, *row_of(record, "default"), False) is not None
    return records


def verify(db: Database) -> integrity.Report:
    with db.reading() as s:
        return integrity.verify_source(s, "default")


def exists(engine: Engine, table: str) -> bool:
    with engine.connect() as conn:
        return bool(conn.execute(text("SELECT to_regclass(:t) IS NOT NULL"), {"t": table}).scalar_one())


@ON_POSTGRES
def test_a_month_is_archived_verified_and_dropped_and_its_rounds_answer_410(
    database_url: str,
    db: Database,
    engine: Engine,
    client: TestClient,
    two_months: dict[str, bytes],
    rows: Callable[..., int],
    tmp_path: Path,
) -> None:
    (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    assert (done.month, done.rounds, done.findings) == (OCTOBER, 2, 1)
    assert not exists(engine, "rounds_2024_10") and not exists(engine, "findings_2024_10")
    assert exists(engine, "rounds_2024_11")
    assert rows("rounds") == 1 and rows("round_keys") == 3  # the keys stay: the round_ids stay taken

    # The file: each round's record as received, its findings, its chain entry; the manifest's SHA-256 is the file's.
    with gzip.open(done.path, "rb") as f:
        lines = [orjson.loads(line) for line in f]
    assert sorted(d["round_id"] for d in lines) == ["EX-NJ-0001", "EX-NJ-0003"]
    records = {d["round_id"]: base64.b64decode(d["record"]) for d in lines}
    assert records["EX-NJ-0001"] == two_months["nj-compliant-double"]
    assert all(d["chain"]["seq"] for d in lines)
    assert [len(d["findings"]) for d in sorted(lines, key=lambda d: d["round_id"])] == [0, 1]
    manifest = orjson.loads((tmp_path / "bjaudit-rounds-2024-10.manifest.json").read_bytes())
    assert manifest["sha256"] == hashlib.sha256(done.path.read_bytes()).hexdigest() == done.sha256
    assert (manifest["rounds"], manifest["findings"], manifest["archived_by"]) == (2, 1, "auditor")

    gone = client.get("/v1/rounds/EX-NJ-0001")
    assert gone.status_code == 410, gone.text
    problem = gone.json()
    assert problem["archive"] == str(done.path.resolve())
    assert problem["type"].endswith("round-archived")
    assert client.get("/v1/rounds/EX-NJ-0002").status_code == 200  # November stays
    assert client.get("/v1/rounds/NO-SUCH").status_code == 404

    report = verify(db)
    assert report.ok, report.to_dict()  # archived, not tampered with
    assert report.archived == 2 and report.entries == 3

    # A round_id of the archived month is still taken.
    again = round_played(two_months["nj-compliant-double"], datetime(2024, 11, 5, tzinfo=UTC))
    assert stored(database_url, *again, False) is None


@ON_POSTGRES
def test_an_archived_month_is_restored_from_its_file(
    db: Database, engine: Engine, client: TestClient, two_months: dict[str, bytes], tmp_path: Path
) -> None:
    before = client.get("/v1/rounds/EX-NJ-0003").content
    (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    restored = retention.restore(db, done.path)
    assert (restored.month, restored.rounds, restored.findings) == (OCTOBER, 2, 1)
    assert exists(engine, "rounds_2024_10")
    assert client.get("/v1/rounds/EX-NJ-0003").content == before
    report = verify(db)
    assert report.ok and report.archived == 0, report.to_dict()
    with engine.connect() as conn:
        assert conn.execute(text("SELECT restored_at IS NOT NULL FROM archives")).scalar_one()


@ON_POSTGRES
def test_a_changed_archive_file_is_not_restored(
    db: Database, engine: Engine, two_months: dict[str, bytes], tmp_path: Path
) -> None:
    (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    data = gzip.decompress(done.path.read_bytes()).replace(b"EX-NJ-0001", b"EX-NJ-0009")
    done.path.write_bytes(gzip.compress(data))
    with pytest.raises(retention.RetentionRefused, match="not the manifest's"):
        retention.restore(db, done.path)
    assert not exists(engine, "rounds_2024_10")


@ON_POSTGRES
def test_a_month_a_webhook_has_not_delivered_is_refused_and_kept(
    db: Database, engine: Engine, client: TestClient, two_months: dict[str, bytes], tmp_path: Path
) -> None:
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO subscriptions (id, source, url, secret, filters, created_at, created_by, cursor_seq, "
                "cursor_index) VALUES ('sub_test', 'default', 'https://example.invalid/', 'whsec_x', '{}', now(), "
                "'test', 1, 0)"
            )
        )
    try:
        with pytest.raises(retention.RetentionRefused, match="webhook subscription"):
            retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
        assert exists(engine, "rounds_2024_10")
        assert client.get("/v1/rounds/EX-NJ-0003").status_code == 200
        with engine.begin() as conn:  # delivered past the month's entries: now it may go
            conn.execute(text("UPDATE subscriptions SET cursor_seq = 3"))
        assert [a.month for a in retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)] == [OCTOBER]
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM subscriptions"))


@ON_POSTGRES
def test_the_command_line_archives_and_restores_and_says_why_it_refuses(
    database_url: str, engine: Engine, client: TestClient, two_months: dict[str, bytes], tmp_path: Path
) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "DATABASE_URL": database_url, "BJAUDIT_SIGNING_KEY_FILE": str(tmp_path / "key.pem")}

    def bjaudit(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app.cli", *argv],
            cwd=Path(__file__).resolve().parents[2],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    bad = bjaudit("archive", "--before", "soon", "--to", str(tmp_path))
    assert bad.returncode == 2 and "give a date" in bad.stderr
    done = bjaudit("archive", "--before", "2024-11-01", "--to", str(tmp_path), "--by", "J. Smith")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2024-10: 2 rounds, 1 findings -> ")
    assert client.get("/v1/rounds/EX-NJ-0003").status_code == 410
    again = bjaudit("archive", "--before", "2024-11-01", "--to", str(tmp_path))
    assert again.returncode == 0 and "no month partition ends on or before 2024-11-01" in again.stdout
    file = tmp_path / "bjaudit-rounds-2024-10.ndjson.gz"
    back = bjaudit("restore", str(file))
    assert back.returncode == 0, back.stderr
    assert "2024-10: 2 rounds, 1 findings restored" in back.stdout
    assert client.get("/v1/rounds/EX-NJ-0003").status_code == 200
    twice = bjaudit("restore", str(file))
    assert twice.returncode == 1 and "restored already?" in twice.stderr
    with engine.connect() as conn:
        assert conn.execute(text("SELECT archived_by FROM archives")).scalar_one() == "J. Smith"


def _reports(db: Database) -> list[tuple[object, ...]]:
    """Every group_by's summary over all time and over October 2024 alone, from the rollups and from the raw rows."""
    from app.store.reports import GROUP_BY, Summary
    from app.usecases.reports import summary

    out = []
    for group_by in GROUP_BY:
        for start, stop in (
            (None, None),
            (datetime(2024, 10, 1, tzinfo=UTC), datetime(2024, 11, 1, tzinfo=UTC)),
        ):
            q = Summary(group_by, start, stop)
            with db.reading() as s:
                rolled = summary(s, q)
            with db.reading() as s:
                raw = summary(s, q, raw=True)
            assert (rolled.groups, rolled.totals) == (raw.groups, raw.totals), q
            out.append((group_by, start, rolled.totals["rounds"], rolled.totals["findings"]))
    return out


@ON_POSTGRES
def test_the_reports_rollups_leave_with_an_archived_month_and_come_back_with_it(
    db: Database, engine: Engine, two_months: dict[str, bytes], tmp_path: Path
) -> None:
    from app.usecases.rollups import roll_behind

    roll_behind(db)  # the three rounds added to the rollups
    before = _reports(db)
    assert [t[2] for t in before if t[1] is None] == [3] * 5  # every group_by's total: 3 rounds
    (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    after_archive = _reports(db)  # the rollups equal the raw rows: October is in neither
    assert [t[2] for t in after_archive if t[1] is None] == [1] * 5
    assert [t[2] for t in after_archive if t[1] is not None] == [0] * 5
    retention.restore(db, done.path)
    assert _reports(db) == before
    roll_behind(db)  # nothing to add twice: the restored month's entries were rolled before
    assert _reports(db) == before


@ON_POSTGRES
def test_a_month_archived_while_a_round_is_stored_waits_for_the_store(
    db: Database,
    engine: Engine,
    two_months: dict[str, bytes],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A store locks ``round_keys`` and then ``rounds``; detaching and dropping a month locked ``rounds`` and then
    ``round_keys`` (its foreign key): an archive run while the tables deal deadlocked with a store. The archive now
    takes its locks at once or none, and tries again after the store."""
    busy = found_busy(monkeypatch)
    with engine.connect() as store, concurrent.futures.ThreadPoolExecutor(1) as pool:
        store.begin()
        store.execute(text("LOCK TABLE round_keys IN ROW EXCLUSIVE MODE"))
        archiving = pool.submit(retention.archive, db, NOVEMBER, tmp_path, "auditor", KEY)
        assert busy.wait(60), "the archive never found the tables busy"
        store.execute(text("LOCK TABLE rounds IN ROW EXCLUSIVE MODE"))
        store.execute(text("LOCK TABLE findings IN ROW EXCLUSIVE MODE"))
        store.commit()
        (done,) = archiving.result(timeout=60)
    assert (done.month, done.rounds, done.findings) == (OCTOBER, 2, 1)
    assert not exists(engine, "rounds_2024_10")


def found_busy(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set once an archive has tried to take its locks and found one held."""
    busy, take = threading.Event(), retention._take_for_detach

    def taking(conn: Any, part: str, fpart: str) -> None:
        try:
            take(conn, part, fpart)
        except OperationalError:
            busy.set()
            raise

    monkeypatch.setattr(retention, "_take_for_detach", taking)
    return busy


@ON_POSTGRES
def test_an_archived_month_is_not_made_again_and_its_file_is_never_written_over(
    database_url: str, db: Database, engine: Engine, examples: dict[str, bytes], tmp_path: Path
) -> None:
    """A month of the last two years, archived, was made again (empty) by the service's daily making of months; the
    next archive found it and wrote an empty month over the archive's file and manifest: the only copy of its
    rounds. The months made ahead now leave an archived month alone (a late round of it goes to DEFAULT, and is
    kept), and an archive never writes over the file of a month archived and not restored."""
    month = partitions.add_months(partitions.month_of(datetime.now(UTC)), -3)
    when = datetime(month.year, month.month, 10, 12, tzinfo=UTC)
    assert stored(database_url, *round_played(examples["nj-compliant-double"], when), False) is not None
    following = partitions.add_months(month, 1)
    archived = [a for a in retention.archive(db, following, tmp_path, "auditor", KEY) if a.month == month]
    assert [a.rounds for a in archived] == [1]
    (done,) = archived
    kept = done.path.read_bytes(), archive_file_manifest(done.path).read_bytes()
    part = f"rounds_{month:%Y_%m}"
    assert not exists(engine, part)

    made = partitions.ensure_ahead(engine)
    assert made is not None and made[month] == "archived"
    assert not exists(engine, part)
    late = round_played(examples["nj-dealer-draws-on-hard-17"], when)
    assert stored(database_url, *late, False) is not None
    assert partition_of(engine, "EX-NJ-0002") == "rounds_default"

    # Asked for that month again, archive refuses it, and its file is not written over.
    with pytest.raises(retention.RetentionRefused, match="archived already"):
        retention.archive_month(db, month, tmp_path, "auditor", KEY)
    assert (done.path.read_bytes(), archive_file_manifest(done.path).read_bytes()) == kept


@ON_POSTGRES
def test_rounds_are_stored_while_a_month_is_restored(
    db: Database,
    engine: Engine,
    two_months: dict[str, bytes],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Restoring a month inserts all its rounds (minutes, for a month of a regulator's store). It made the month's
    partitions in the same transaction, and held the lock a partition takes on ``round_keys`` to its end: no round
    could be stored meanwhile. The month is now made first, on its own."""
    (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    made, halfway, go_on = threading.Event(), threading.Event(), threading.Event()
    read, ensure = retention.archive_file.lines, partitions.ensure_months

    def making(conn: Any, wanted: list[date], **options: Any) -> dict[date, str]:
        made.set()
        return ensure(conn, wanted, **options)

    def slowly(path: Path) -> Iterator[dict[str, Any]]:
        """The file's rounds, with a pause after the first of them once the month is made (it is inserted, in the
        restore's open transaction)."""
        for n, doc in enumerate(read(path)):
            if n == 1 and made.is_set():
                halfway.set()
                assert go_on.wait(30)
            yield doc

    monkeypatch.setattr(retention.partitions, "ensure_months", making)
    monkeypatch.setattr(retention.archive_file, "lines", slowly)
    monkeypatch.setattr(retention, "RESTORE_BATCH", 1)  # the first round is inserted when the pause comes
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        restoring = pool.submit(retention.restore, db, done.path)
        try:
            assert halfway.wait(30)
            with engine.begin() as store:
                store.execute(text("SET LOCAL lock_timeout = '1s'"))
                store.execute(text("LOCK TABLE round_keys IN ROW EXCLUSIVE MODE"))
        finally:
            go_on.set()
        restored = restoring.result(timeout=60)
    assert (restored.rounds, restored.findings) == (2, 1)


@ON_POSTGRES
def test_readers_of_rounds_and_then_of_keys_go_on_while_a_month_is_archived(
    db: Database,
    engine: Engine,
    two_months: dict[str, bytes],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A re-audit reads rounds and then inserts audits (whose foreign-key check reads ``round_keys``); a report reads
    rounds and then ``round_keys``; a roller holds its cursor and reads the keys. An archive that took ``round_keys``
    wholly before it detached deadlocked with each of them (a review of the fix above). Here a reader holds rounds
    while the archive waits to detach, then reads the keys, both ways: it must not wait."""
    busy = found_busy(monkeypatch)
    with engine.connect() as reader, concurrent.futures.ThreadPoolExecutor(1) as pool:
        reader.begin()
        reader.execute(text("LOCK TABLE rounds IN ACCESS SHARE MODE"))
        archiving = pool.submit(retention.archive, db, NOVEMBER, tmp_path, "auditor", KEY)
        assert busy.wait(60), "the archive never found the tables busy"
        reader.execute(text("SET LOCAL lock_timeout = '5s'"))
        assert reader.execute(text("SELECT count(*) FROM round_keys")).scalar_one() == 3
        reader.execute(text("SELECT id FROM round_keys FOR KEY SHARE"))  # what a foreign-key check takes
        reader.commit()
        (done,) = archiving.result(timeout=60)
    assert (done.month, done.rounds) == (OCTOBER, 2)
    assert not exists(engine, "rounds_2024_10")


@ON_POSTGRES
def test_a_month_detached_but_not_dropped_is_dropped_by_the_next_restore(
    db: Database,
    engine: Engine,
    client: TestClient,
    two_months: dict[str, bytes],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The drop, in a transaction of its own, needs ``round_keys`` free of every reader: past its patience the
    month stays archived (recorded, detached, its rounds answer 410) and its tables stay, until the next archive or
    restore drops them."""
    monkeypatch.setattr(retention, "DROP_PATIENCE", 0.3)
    with engine.connect() as reader:
        reader.begin()
        reader.execute(text("LOCK TABLE round_keys IN ACCESS SHARE MODE"))
        (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
        reader.commit()
    monkeypatch.setattr(
        retention, "DROP_PATIENCE", 30.0
    )  # the restore's drop waits out the service's own work
    assert done.rounds == 2
    assert client.get("/v1/rounds/EX-NJ-0001").status_code == 410
    with engine.connect() as conn:
        assert (
            conn.execute(
                text("SELECT relispartition FROM pg_class WHERE relname = 'rounds_2024_10'")
            ).scalar_one()
            is False
        )
    restored = retention.restore(db, done.path)
    assert (restored.rounds, restored.findings) == (2, 1)
    assert partition_of(engine, "EX-NJ-0001") == "rounds_2024_10"
    assert client.get("/v1/rounds/EX-NJ-0001").status_code == 200


@ON_POSTGRES
def test_a_round_of_the_month_stored_before_its_restore_stays_and_a_second_restore_is_refused(
    database_url: str,
    db: Database,
    engine: Engine,
    client: TestClient,
    examples: dict[str, bytes],
    two_months: dict[str, bytes],
    tmp_path: Path,
) -> None:
    """A restore makes the month's partitions and then inserts: a round of the month stored between the two goes to
    the month's partition. It stays, beside the restored ones; a round of the file found there (restored already)
    refuses the restore, and nothing of it is inserted."""
    (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    with engine.begin() as conn:
        assert partitions.ensure_months(conn, [OCTOBER]) == {
            OCTOBER: "created"
        }  # as the restore's first step
    late = played_at(
        examples["nj-compliant-double"].replace(b'"EX-NJ-0001"', b'"LATE-1"'), "2024-10-20T20:00:00Z"
    )
    assert stored(database_url, *row_of(late, "default"), False) is not None
    retention.restore(db, done.path)
    with engine.connect() as conn:
        in_month = conn.execute(text("SELECT count(*) FROM rounds_2024_10")).scalar_one()
    assert in_month == 3
    with pytest.raises(retention.RetentionRefused, match="restored already"):
        retention.restore(db, done.path)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM rounds_2024_10")).scalar_one() == 3


@ON_POSTGRES
def test_a_month_archived_a_moment_before_is_not_made_again_by_the_service(
    db: Database, engine: Engine, two_months: dict[str, bytes], tmp_path: Path
) -> None:
    """The service reads which months are archived, then makes the others one by one: a month archived in between
    was made again, empty, and every later archive stopped at it. The check is made again once the month's locks
    are held (an archive's detach holds the same ones)."""
    (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    with engine.begin() as conn:
        assert partitions.ensure_months(conn, [OCTOBER], leave_archived=True) == {OCTOBER: "archived"}
    assert not exists(engine, "rounds_2024_10") and not exists(engine, "findings_2024_10")


@ON_POSTGRES
def test_an_archived_month_whose_partitions_are_there_again_is_skipped_not_a_stop(
    db: Database, engine: Engine, examples: dict[str, bytes], two_months: dict[str, bytes], tmp_path: Path
) -> None:
    """A restore that failed after it made the month's partitions leaves the month archived, not restored, with
    partitions: archiving it again is refused, and that refusal stopped every month after it."""
    (october,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    with engine.begin() as conn:
        assert partitions.ensure_months(conn, [OCTOBER]) == {OCTOBER: "created"}
    done = retention.archive(db, date(2024, 12, 1), tmp_path, "auditor", KEY)
    assert [(a.month, a.rounds) for a in done] == [(NOVEMBER, 1)]
    assert exists(engine, "rounds_2024_10")
    assert retention.restore(db, october.path).rounds == 2  # and the restore finishes it


@ON_POSTGRES
def test_a_file_restored_into_another_database_is_refused_and_says_why(
    db: Database,
    two_months: dict[str, bytes],
    tmp_path: Path,
    postgres_database: Callable[[str], str],
) -> None:
    """A file of the first format (no proofs, so no log to hold its heads against) restored into a database that
    never held its rounds: their keys are not there. Said so, and nothing restored."""
    (done,) = retention.archive(db, NOVEMBER, tmp_path, "auditor", KEY)
    manifest = orjson.loads(archive_file_manifest(done.path).read_bytes())
    for name in ("format", "logs", "description"):
        del manifest[name]
    docs = [{k: v for k, v in d.items() if k != "evidence"} for d in lines_of(done.path)]
    rewrite(done.path, docs, manifest)
    other_url = postgres_database("other")
    upgrade_head(other_url)
    other = Database.from_settings(Settings(database_url=other_url))
    try:
        with pytest.raises(
            retention.RetentionRefused, match=r"2 round\(s\) of the file have no key in this database"
        ):
            retention.restore(other, done.path)
        with other.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM rounds")).scalar_one() == 0
    finally:
        other.dispose()
