"""Tamper evidence (issue 8): every stored round is appended to its source's hash chain by each path that stores
rounds (a single submission through a session, the single PostgreSQL statement, a batch chunk); ``verify`` names the
first entry modified, deleted, inserted or reordered when rows are changed in SQL by the owner; the application's
role cannot UPDATE or DELETE the evidence; the signed head checks, and catches a rewritten chain."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import secrets
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from app.cli import main as cli
from app.config import Settings, get_settings, libpq_url, sqlalchemy_url
from app.store import chain
from app.store.db import Database
from app.store.models import UTCDateTime
from app.store.pg import PgRounds
from app.store.roles import grant_app_role
from app.synth.generator import generate_rounds
from app.usecases import batches, integrity, offline, transparency
from app.usecases import rounds as round_cases
from tests.keys import bearer, make_key

SOURCE = "casino-a"


def _rounds(n: int, seed: int) -> list[bytes]:
    return [orjson.dumps(r) for r in generate_rounds(n, seed)]


def _is_pg(url: str) -> bool:
    return url.startswith("postgres")


@pytest.fixture
def db(database_url: str, engine: Engine) -> Iterator[Database]:
    """The service's database (emptied by ``engine``, and of batches here: the same upload again is the same batch)."""
    owner(engine, "DELETE FROM batch_results", "DELETE FROM batch_chunks", "DELETE FROM batches")
    database = Database.from_settings(Settings(database_url=database_url))
    yield database
    database.dispose()


def submit_session(db: Database, records: list[bytes], source: str = SOURCE) -> None:
    for record in records:
        with db.session() as s:
            round_cases.submit_round(s, record, source)


def submit_pg(database_url: str, records: list[bytes], source: str = SOURCE, concurrency: int = 1) -> None:
    async def run() -> None:
        pg = PgRounds(
            str(libpq_url(database_url)), size=concurrency, timeout=30, connect_timeout=5, deadline=60
        )
        slots = asyncio.Semaphore(concurrency)

        async def one(record: bytes) -> None:
            async with slots:
                await round_cases.submit_round_pg(pg, record, source)

        try:
            await asyncio.gather(*(one(r) for r in records))
        finally:
            await pg.close()

    asyncio.run(run())


def upload(db: Database, records: list[bytes], source: str = SOURCE, chunk_lines: int = 4) -> list[int]:
    """Store a batch upload (not audited yet); its chunk numbers."""
    writer = batches.BatchWriter(db, source, gzipped=False, chunk_lines=chunk_lines, max_line_bytes=1 << 20)
    writer.feed(b"\n".join(records) + b"\n")
    outcome = writer.finish(None)
    for chunk_no in outcome.chunks:
        batches.process_chunk(db, outcome.batch_id, chunk_no)
    return outcome.chunks


def verify(db: Database, source: str = SOURCE) -> integrity.Report:
    with db.reading() as s:
        return integrity.verify_source(s, source)


def every_path(db: Database, database_url: str, examples: dict[str, bytes]) -> int:
    """Rounds stored by every path the database has; how many."""
    records = _rounds(14, 3)
    submit_session(
        db, records[:4] + [examples["nj-dealer-draws-on-hard-17"], examples["nz-insurance-over-half"]]
    )
    upload(db, records[4:10] + [records[0]])  # a duplicate: not appended twice
    if _is_pg(database_url):
        submit_pg(database_url, records[10:])
        return 14 + 2
    return 10 + 2


def entry_of(engine: Engine, seq: int, source: str = SOURCE) -> Any:
    with engine.connect() as conn:
        return conn.execute(
            text(
                "SELECT seq, kind, ref_id, label, digest, hash FROM chain_entries WHERE source = :s AND seq = :q"
            ),
            {"s": source, "q": seq},
        ).one()


def owner(engine: Engine, *statements: str, **params: Any) -> None:
    """Statements run as the owner of the tables (the test database's superuser), in one transaction."""
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(text(statement), params)


# --- a clean chain -----------------------------------------------------------------------------------------------


def test_a_clean_chain_over_every_path_verifies(
    db: Database, database_url: str, engine: Engine, examples: dict[str, bytes]
) -> None:
    n = every_path(db, database_url, examples)
    report = verify(db)
    assert report.ok, report.to_dict()
    assert report.entries == n and report.head is not None and report.head.seq == n
    with engine.connect() as conn:
        seqs = conn.execute(
            text("SELECT seq FROM chain_entries WHERE source = :s ORDER BY seq"), {"s": SOURCE}
        )
        assert [r[0] for r in seqs] == list(range(1, n + 1))
        assert conn.execute(text("SELECT count(*) FROM rounds")).scalar_one() == n
    body = report.to_dict()
    assert body["first_problem"] is None and body["problems"] == [] and body["head"]["seq"] == n


def test_verify_command_exits_0_on_a_clean_chain_and_1_naming_the_first_problem(
    db: Database,
    database_url: str,
    engine: Engine,
    examples: dict[str, bytes],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    every_path(db, database_url, examples)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.delenv("BJAUDIT_DATABASE_URL", raising=False)
    get_settings.cache_clear()
    try:
        assert cli(["verify"]) == 0
        assert f"source {SOURCE}: " in capsys.readouterr().out
        e = entry_of(engine, 3)
        owner(engine, "DELETE FROM rounds WHERE id = :id", id=e.ref_id)
        # A row below the checkpoint the first verification left is seen by a full walk (the incremental one checks
        # the entries after it, and that the chain and the tree still hold it).
        assert cli(["verify", "--source", SOURCE, "--full"]) == 1
        out = capsys.readouterr().out
        assert f"the first: entry 3: deleted: {e.label}: the round it records is no longer stored" in out, out
        assert cli(["verify", "--format", "json", "--full"]) == 1
        (line,) = capsys.readouterr().out.splitlines()
        assert orjson.loads(line)["first_problem"]["seq"] == 3
    finally:
        get_settings.cache_clear()


# --- tampering as the owner --------------------------------------------------------------------------------------


def _findings_round(engine: Engine) -> int:
    """The seq of the first entry whose round has findings."""
    with engine.connect() as conn:
        return int(
            conn.execute(
                text(
                    "SELECT min(e.seq) FROM chain_entries e JOIN rounds r ON e.kind = 'round' AND r.id = e.ref_id "
                    "WHERE r.finding_count > 0 AND e.source = :s"
                ),
                {"s": SOURCE},
            ).scalar_one()
        )


TAMPERING: dict[str, tuple[Callable[[Engine], int | None], str, str | None]] = {}
"""name -> (what the owner does, returning the seq the first problem must name; kind; what, when it names a row)."""


def tampering(kind: str, what: str | None = "label") -> Callable[[Callable[[Engine], int | None]], Any]:
    def register(fn: Callable[[Engine], int | None]) -> Callable[[Engine], int | None]:
        TAMPERING[fn.__name__] = (fn, kind, what)
        return fn

    return register


@tampering("modified")
def change_a_rounds_record(engine: Engine) -> int:
    e = entry_of(engine, 5)
    owner(engine, "UPDATE rounds SET record = :r WHERE id = :id", r=b'{"forged": true}', id=e.ref_id)
    return 5


@tampering("modified")
def change_a_rounds_verdict(engine: Engine) -> int:
    e = entry_of(engine, 2)
    owner(engine, "UPDATE rounds SET verdict = 'unreplayable' WHERE id = :id", id=e.ref_id)
    return 2


@tampering("modified")
def change_a_findings_row(engine: Engine) -> int:
    seq = _findings_round(engine)
    e = entry_of(engine, seq)
    owner(engine, "UPDATE findings SET amount_delta = 1 WHERE round_pk = :id", id=e.ref_id)
    return seq


@tampering("modified")
def delete_a_findings_row(engine: Engine) -> int:
    seq = _findings_round(engine)
    owner(engine, "DELETE FROM findings WHERE round_pk = :id", id=entry_of(engine, seq).ref_id)
    return seq


@tampering("deleted")
def delete_a_round(engine: Engine) -> int:
    owner(engine, "DELETE FROM rounds WHERE id = :id", id=entry_of(engine, 4).ref_id)
    return 4


@tampering("deleted", what="chain entry 6")
def delete_a_chain_entry(engine: Engine) -> int:
    owner(engine, "DELETE FROM chain_entries WHERE source = :s AND seq = 6", s=SOURCE)
    return 6


@tampering("inserted", what=None)
def insert_a_round_row(engine: Engine) -> None:
    owner(
        engine,
        "INSERT INTO round_keys (round_id, source, jurisdiction, played_at) "
        "SELECT 'FORGED-1', source, jurisdiction, played_at FROM rounds WHERE id = :id",
        "INSERT INTO rounds (id, source, jurisdiction, round_id, table_id, played_at, dealer_id, shoe_id, "
        "received_at, record, record_sha256, verdict, ruleset, engine_version, elections_source, elections_id, "
        "finding_count, audit) SELECT k.id, r.source, r.jurisdiction, 'FORGED-1', r.table_id, r.played_at, "
        "r.dealer_id, r.shoe_id, r.received_at, r.record, r.record_sha256, r.verdict, r.ruleset, r.engine_version, "
        "r.elections_source, r.elections_id, 0, r.audit FROM rounds r "
        "JOIN round_keys k ON k.round_id = 'FORGED-1' AND k.source = r.source AND k.jurisdiction = r.jurisdiction "
        "WHERE r.id = :id",
        id=entry_of(engine, 1).ref_id,
    )
    return None


@tampering("reordered")
def swap_two_entries(engine: Engine) -> int:
    owner(
        engine,
        "UPDATE chain_entries SET seq = -1 WHERE source = :s AND seq = 3",
        "UPDATE chain_entries SET seq = 3 WHERE source = :s AND seq = 4",
        "UPDATE chain_entries SET seq = 4 WHERE source = :s AND seq = -1",
        s=SOURCE,
    )
    return 3


@tampering("modified")
def change_an_entrys_digest(engine: Engine) -> int:
    owner(
        engine,
        "UPDATE chain_entries SET digest = :d WHERE source = :s AND seq = 7",
        d=hashlib.sha256(b"forged").digest(),
        s=SOURCE,
    )
    return 7


@tampering("modified", what="chain head")
def change_the_head(engine: Engine) -> int | None:
    owner(engine, "UPDATE chain_heads SET hash = :h WHERE source = :s", h=bytes(32), s=SOURCE)
    return None  # the head's seq: checked below


@tampering("deleted", what="chain entries 9 to ")
def cut_the_end(engine: Engine) -> int | None:
    owner(engine, "DELETE FROM chain_entries WHERE source = :s AND seq >= 9", s=SOURCE)
    return 9


@pytest.mark.parametrize("name", sorted(TAMPERING))
def test_verify_names_the_first_entry_tampered_with(
    name: str, db: Database, database_url: str, engine: Engine, examples: dict[str, bytes]
) -> None:
    n = every_path(db, database_url, examples)
    assert verify(db).ok
    fn, kind, what = TAMPERING[name]
    labels = {seq: entry_of(engine, seq).label for seq in range(1, n + 1)}
    seq = fn(engine)
    report = verify(db)
    assert not report.ok
    first = report.to_dict()["first_problem"]
    assert first["kind"] == kind, first
    if name == "change_the_head":
        assert first["seq"] == n
    else:
        assert first["seq"] == seq, first
    if what == "label":  # the entry that stands at that seq now: for a swap, the one moved there
        assert first["what"] == labels[seq + 1 if name == "swap_two_entries" else seq]
    elif what is not None:
        assert first["what"].startswith(what), first
    else:
        assert first["what"].startswith("round FORGED-1 ")
    if name == "change_a_rounds_record":
        assert "record_sha256 column" in first["detail"]
    if name.endswith("findings_row"):
        assert "findings" in first["detail"]


def test_a_moved_entry_is_told_from_a_changed_one(
    db: Database, database_url: str, engine: Engine, examples: dict[str, bytes]
) -> None:
    every_path(db, database_url, examples)
    swap_two_entries(engine)
    problems = verify(db).problems
    assert problems[0].kind == "reordered" and "right after the entry now at seq 4" in problems[0].detail
    assert {p.kind for p in problems} == {"reordered"}


def test_the_lookup_shows_the_rounds_chain_position(
    client: TestClient, engine: Engine, examples: dict[str, bytes]
) -> None:
    for name in ("nj-compliant-double", "nz-insurance-over-half"):
        assert (
            client.post(
                "/v1/rounds", content=examples[name], headers={"content-type": "application/json"}
            ).status_code
            == 201
        )
    found = client.get("/v1/rounds/EX-NZ-0001").json()
    e = entry_of(engine, found["chain"]["seq"], "default")
    assert found["chain"] == {"seq": 2, "hash": e.hash.hex()}
    assert e.label == f"round {found['round_id']} (NZ)"


# --- the application's role ---------------------------------------------------------------------------------------


@pytest.fixture
def app_role(database_url: str, engine: Engine) -> Iterator[str]:
    """A throwaway login role granted what the service needs (bjaudit grant-app-role); its database URL."""
    if not _is_pg(database_url):
        pytest.skip("roles are PostgreSQL's")
    role = f"bjaudit_app_{os.getpid()}_{secrets.token_hex(3)}"
    owner(engine, f"CREATE ROLE {role} LOGIN")
    try:
        with engine.begin() as conn:
            grant_app_role(conn, role)
        yield make_url(sqlalchemy_url(database_url)).set(username=role).render_as_string(hide_password=False)
    finally:
        owner(engine, f"DROP OWNED BY {role}")
        owner(engine, f"DROP ROLE {role}")


@pytest.mark.postgres
def test_the_application_role_cannot_update_or_delete_the_evidence(
    app_role: str, db: Database, database_url: str, engine: Engine, examples: dict[str, bytes]
) -> None:
    every_path(db, database_url, examples)
    conninfo = str(libpq_url(app_role))
    statements = [
        statement
        for table in chain.APPEND_ONLY_TABLES
        for statement in (f"UPDATE {table} SET source = 'x' WHERE false", f"DELETE FROM {table} WHERE false")
    ]
    role = make_url(app_role).username
    for grants in ("the application's", "every privilege"):
        if grants == "every privilege":  # a careless deployment: the trigger still refuses
            owner(engine, *(f"GRANT ALL ON {t} TO {role}" for t in chain.APPEND_ONLY_TABLES))
        for statement in statements:
            with psycopg.connect(conninfo, autocommit=True) as conn:
                with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
                    conn.execute(statement)
                if grants == "every privilege":
                    assert "is append-only" in str(refused.value), statement
    with (
        psycopg.connect(conninfo, autocommit=True) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        conn.execute("TRUNCATE chain_entries")
    assert verify(db).ok  # and nothing changed


@pytest.mark.postgres
def test_the_application_role_revokes_a_key_and_cannot_bring_it_back(
    app_role: str, database_url: str
) -> None:
    key_id = make_key(database_url, "casino-z", ("read",), fresh=True).split("_")[1]
    with psycopg.connect(str(libpq_url(app_role)), autocommit=True) as conn:
        conn.execute(
            "UPDATE api_keys SET revoked_at = now() WHERE key_id = %s", (key_id,)
        )  # DELETE /v1/keys/{id}
        for change in ("NULL", "now() + interval '1 day'"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
                conn.execute(f"UPDATE api_keys SET revoked_at = {change} WHERE key_id = %s", (key_id,))
            assert "a revocation is final" in str(refused.value)
        revoked = conn.execute("SELECT revoked_at FROM api_keys WHERE key_id = %s", (key_id,)).fetchone()
    assert revoked is not None and revoked[0] is not None


@pytest.mark.postgres
def test_the_application_role_submits_rounds_and_batches(
    app_role: str, database_url: str, engine: Engine, examples: dict[str, bytes]
) -> None:
    records = _rounds(12, 9)
    as_app = Database.from_settings(Settings(database_url=app_role))
    try:
        submit_session(as_app, records[:3])
        submit_pg(app_role, records[3:6])
        upload(as_app, records[6:] + [records[0]])
        report = verify(as_app)
        assert report.ok and report.entries == 12, report.to_dict()
    finally:
        as_app.dispose()


# --- concurrency --------------------------------------------------------------------------------------------------


def test_concurrent_appends_of_one_source_leave_a_gap_free_chain(
    db: Database, database_url: str, engine: Engine
) -> None:
    records = _rounds(60, 21)
    threads = [
        threading.Thread(target=submit_session, args=(db, records[i:48:4])) for i in range(3)
    ]  # three writers through sessions
    writer = batches.BatchWriter(db, SOURCE, gzipped=False, chunk_lines=4, max_line_bytes=1 << 20)
    writer.feed(b"\n".join(records[3:48:4]) + b"\n")
    outcome = writer.finish(None)
    threads += [
        threading.Thread(target=batches.process_chunk, args=(db, outcome.batch_id, c)) for c in outcome.chunks
    ]
    more = records[48:]
    if _is_pg(database_url):
        threads.append(threading.Thread(target=submit_pg, args=(database_url, more, SOURCE, 6)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    n = 48 + (12 if _is_pg(database_url) else 0)
    report = verify(db)
    assert report.ok and report.entries == n, report.to_dict()
    with engine.connect() as conn:
        seqs = [r[0] for r in conn.execute(text("SELECT seq FROM chain_entries ORDER BY seq"))]
    assert seqs == list(range(1, n + 1))


# --- the signed head -----------------------------------------------------------------------------------------------


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=database_url, embedded_workers=0, signing_key_file=str(tmp_path / "signing-key.pem")
    )


def _rewrite_from(engine: Engine, seq: int) -> None:
    """What an owner who knows the scheme does: change a round and recompute every hash from it on (the chain then
    verifies, but no longer holds the hashes exported before)."""
    e = entry_of(engine, seq)
    owner(
        engine,
        "UPDATE rounds SET verdict = 'compliant', record = :r, record_sha256 = :h WHERE id = :id",
        r=b"{}",
        h=hashlib.sha256(b"{}").hexdigest(),
        id=e.ref_id,
    )
    with engine.begin() as conn:
        round_row = (
            conn.execute(
                text("SELECT * FROM rounds WHERE id = :id").columns(
                    played_at=UTCDateTime(), received_at=UTCDateTime()
                ),
                {"id": e.ref_id},
            )
            .one()
            ._mapping
        )
        values = {**round_row, "record_sha256": hashlib.sha256(round_row["record"]).hexdigest()}
        conn.execute(
            text("UPDATE chain_entries SET digest = :d WHERE source = :s AND seq = :q"),
            {"d": chain.content_digest(chain.round_content(values)), "s": SOURCE, "q": seq},
        )
        previous = entry_of(engine, seq - 1).hash if seq > 1 else chain.ZERO
        rows = conn.execute(
            text("SELECT seq, digest FROM chain_entries WHERE source = :s AND seq >= :q ORDER BY seq"),
            {"s": SOURCE, "q": seq},
        ).all()
        for row in rows:
            previous = chain.link(previous, bytes(row.digest))
            conn.execute(
                text("UPDATE chain_entries SET hash = :h WHERE source = :s AND seq = :q"),
                {"h": previous, "s": SOURCE, "q": row.seq},
            )
        conn.execute(text("UPDATE chain_heads SET hash = :h WHERE source = :s"), {"h": previous, "s": SOURCE})


def test_the_signed_head_verifies_and_catches_a_rewritten_chain(
    db: Database,
    database_url: str,
    engine: Engine,
    examples: dict[str, bytes],
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    n = every_path(db, database_url, examples)
    key_file = Path(settings.signing_key_file)
    key = integrity.load_signing_key(key_file)
    assert key_file.stat().st_mode & 0o777 == 0o600
    with db.session() as s:
        doc = transparency.sign_head(s, SOURCE, key)
    assert (doc["source"], doc["seq"], doc["hash"]) == (SOURCE, n, entry_of(engine, n).hash.hex())
    trusted = integrity.raw_public_key(key)
    assert integrity.check_signature(doc, trusted) == []
    assert integrity.check_signature({**doc, "hash": "00" * 32}, trusted)
    forged = base64.b64encode(bytes(64)).decode()
    assert integrity.check_signature({**doc, "signature": forged}, trusted)
    other = integrity.raw_public_key(Ed25519PrivateKey.generate())
    assert integrity.check_signature(doc, other) == ["it is signed with another key than the one trusted"]

    head_file = tmp_path / "head.json"
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("BJAUDIT_SIGNING_KEY_FILE", str(key_file))
    get_settings.cache_clear()
    try:
        assert cli(["integrity", "head", "--source", SOURCE, "--out", str(head_file)]) == 0
        assert cli(["integrity", "public-key", "--out", str(tmp_path / "public.pem")]) == 0
        assert cli(["verify", "--head", str(head_file)]) == 0
        out = capsys.readouterr().out
        assert "signature valid" in out and "the chain still holds it" in out
        # the signature alone, with the key given, without the database
        monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
        get_settings.cache_clear()
        assert (
            cli(
                [
                    "verify",
                    "--head",
                    str(head_file),
                    "--public-key",
                    str(tmp_path / "public.pem"),
                    "--signature-only",
                ]
            )
            == 0
        )
        tampered = orjson.loads(head_file.read_bytes()) | {"seq": 1}
        (tmp_path / "tampered.json").write_bytes(orjson.dumps(tampered))
        assert cli(["verify", "--head", str(tmp_path / "tampered.json"), "--signature-only"]) == 1
        assert "NOT VALID" in capsys.readouterr().out

        monkeypatch.setenv("DATABASE_URL", database_url)
        get_settings.cache_clear()
        _rewrite_from(engine, 3)
        # Rewritten whole, the chain links again; but the round's audit is not what the engine makes of its record,
        # and the tree head signed before no longer has the entries' root.
        report = verify(db)
        assert not report.ok
        said = [(p.seq, p.kind, p.detail) for p in report.problems]
        assert any(q[:2] == (3, "modified") and "its record cannot be read" in q[2] for q in said), said
        signed = "its root is not the root of the entries up to it; its chain hash is not the entry's"
        assert (n, "modified", signed) in said, said
        # and the nodes kept for proofs (a node per 16 entries) no longer give the entries' root
        assert any(q[:2] == (n, "modified") and "(merkle_nodes)" in q[2] for q in said) == (n >= 16), said
        assert cli(["verify", "--head", str(head_file)]) == 1  # ...but not the one exported
        out = capsys.readouterr().out
        assert "NOT IN THE CHAIN" in out and "rewritten after the export" in out
    finally:
        get_settings.cache_clear()
    with db.reading() as s:
        assert integrity.check_head_in_chain(s, doc)


def test_the_head_checks_outside_bjaudit(
    db: Database, database_url: str, examples: dict[str, bytes], tmp_path: Path
) -> None:
    """What docs/integrity.md shows: the signature checked with openssl alone, and with a few lines of Python."""
    every_path(db, database_url, examples)
    key = integrity.load_signing_key(tmp_path / "k.pem")
    with db.session() as s:
        doc = transparency.sign_head(s, SOURCE, key)
    (tmp_path / "head.json").write_bytes(orjson.dumps(doc))
    (tmp_path / "public.pem").write_bytes(integrity.public_key_pem(key))
    python = (
        "import base64, json, sys\n"
        "from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey\n"
        "head = json.load(open('head.json'))\n"
        "signed = {k: v for k, v in head.items() if k != 'signature'}\n"
        "payload = json.dumps(signed, sort_keys=True, separators=(',', ':')).encode()\n"
        "key = Ed25519PublicKey.from_public_bytes(base64.b64decode(head['public_key']))\n"
        "key.verify(base64.b64decode(head['signature']), payload)\n"
        "print('signature valid')\n"
    )
    done = subprocess.run([sys.executable, "-c", python], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "signature valid" in done.stdout, done.stderr
    if shutil.which("openssl") is None:
        pytest.skip("no openssl")
    payload = integrity.signed_payload(doc)
    (tmp_path / "payload").write_bytes(payload)
    (tmp_path / "sig").write_bytes(base64.b64decode(doc["signature"]))
    openssl = ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "public.pem", "-rawin", "-in", "payload"]
    ok = subprocess.run([*openssl, "-sigfile", "sig"], cwd=tmp_path, capture_output=True, text=True)
    assert ok.returncode == 0 and "Signature Verified Successfully" in ok.stdout, ok.stdout + ok.stderr
    (tmp_path / "payload").write_bytes(payload.replace(doc["hash"].encode(), b"0" * 64))
    bad = subprocess.run([*openssl, "-sigfile", "sig"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode != 0


# --- over HTTP ----------------------------------------------------------------------------------------------------


def test_integrity_over_http_with_the_read_scope(
    app: FastAPI, client: TestClient, database_url: str, engine: Engine, examples: dict[str, bytes]
) -> None:
    body = examples["nj-compliant-double"]
    assert (
        client.post("/v1/rounds", content=body, headers={"content-type": "application/json"}).status_code
        == 201
    )
    report = client.get("/v1/integrity")
    assert report.status_code == 200, report.text
    assert report.json() | {"head": None, "verified": None} == {
        "source": "default",
        "entries": 1,
        "head": None,
        "ok": True,
        "first_problem": None,
        "problem_count": 0,
        "problems": [],
        "complete": True,
        "from_seq": 0,
        "archived": 0,
        "verified": None,
    }
    assert report.json()["verified"]["seq"] == 1
    head = client.get("/v1/integrity/head")
    assert head.status_code == 200 and integrity.check_signature(head.json()) == []
    assert head.json()["hash"] == report.json()["head"]["hash"]

    everyone = bearer(database_url, None, ("read",))
    assert client.get("/v1/integrity", headers=everyone).status_code == 422
    assert client.get("/v1/integrity", params={"source": "default"}, headers=everyone).json()["ok"]
    other = bearer(database_url, "casino-b", ("read",))
    assert client.get("/v1/integrity", params={"source": "default"}, headers=other).status_code == 403
    assert client.get("/v1/integrity/head", headers=other).status_code == 404  # casino-b has no chain
    submit_only = bearer(database_url, "default", ("submit",))
    assert client.get("/v1/integrity", headers=submit_only).status_code == 403

    owner(engine, "UPDATE rounds SET table_id = 'BJ99'")
    broken = client.get("/v1/integrity").json()
    assert broken["ok"] is False and broken["first_problem"]["kind"] == "modified"
    assert broken["first_problem"]["what"] == "round EX-NJ-0001 (US-NJ)"


# --- rows stored before the chain ---------------------------------------------------------------------------------


def test_the_migration_chains_what_was_stored_before_it(tmp_path: Path, examples: dict[str, bytes]) -> None:
    from alembic import command
    from sqlalchemy import insert

    from app.store import rounds as repo
    from app.store.migrate import alembic_config, upgrade_head
    from app.store.models import rounds_table

    url = f"sqlite:///{tmp_path / 'before.sqlite3'}"
    command.upgrade(alembic_config(url), "d5e8a1c3f7b2")
    eng = create_engine(sqlalchemy_url(url))
    try:
        for i, name in enumerate(("nj-dealer-draws-on-hard-17", "nz-insurance-over-half")):
            done = offline.audit(examples[name])
            row = round_cases.round_row(
                done, examples[name], hashlib.sha256(examples[name]).hexdigest(), f"s{i % 2}"
            )
            with eng.begin() as conn:
                from sqlalchemy.orm import Session

                with Session(bind=conn) as s:
                    # The schema of that revision: rounds had no void_reason, findings no audit_no (every finding
                    # was of audit 1) nor corrections.
                    then = {k: v for k, v in row.items() if k != "void_reason"} | {"id": i + 1}
                    pk = s.execute(
                        insert(rounds_table).values(then).returning(rounds_table.c.id)
                    ).scalar_one()
                    rows = repo.finding_rows(pk, done.result["findings"], f"s{i % 2}", done.round)
                    later = ("audit_no", "corrected_by", "corrected_actual")
                    repo.insert_findings(s, [{k: v for k, v in r.items() if k not in later} for r in rows])
                    s.flush()
        upgrade_head(url)
        database = Database.from_settings(Settings(database_url=url))
        try:
            for source in ("s0", "s1"):
                report = verify(database, source)
                assert report.ok and report.entries == 1, report.to_dict()
        finally:
            database.dispose()
    finally:
        eng.dispose()


# --- registrations ------------------------------------------------------------------------------------------------


def test_a_registration_appended_with_its_row_verifies(db: Database, engine: Engine) -> None:
    """What the elections use case does when it stores a registration: the row, then its entry, in one transaction."""
    from app.store.models import table_elections_table as E

    values = {
        "source": SOURCE,
        "jurisdiction": "US-NJ",
        "table_id": "BJ12",
        "effective_from": datetime(2026, 11, 1, 5, tzinfo=UTC),
        "rules": '{"decks":6}',
        "created_at": datetime.now(UTC),
        "reason": "opening",
        "registered_by": "key test",
        "supersedes_id": None,
    }
    with db.session() as s:
        pk = s.execute(E.insert().values(**values).returning(E.c.id)).scalar_one()
        chain.append(s, SOURCE, "registration", pk, chain.registration_content(values))
    submit_session(db, _rounds(2, 5))
    report = verify(db)
    assert report.ok and report.entries == 3, report.to_dict()
    owner(engine, "UPDATE table_elections SET rules = :r", r='{"decks":8}')
    first = verify(db).to_dict()["first_problem"]
    assert (first["seq"], first["kind"]) == (1, "modified")
    assert first["what"] == "registration of table BJ12 (US-NJ) from 2026-11-01T05:00:00.000000Z"


def test_a_registration_over_http_is_chained(client: TestClient, engine: Engine) -> None:
    done = client.put(
        "/v1/tables/BJ12/elections",
        content=b'{"jurisdiction": "US-NJ", "effective_from": "2026-11-01T00:00:00-05:00", "rules": {"decks": 6}, "reason": "opening"}',
        headers={"content-type": "application/json"},
    )
    assert done.status_code == 201, done.text
    report = client.get("/v1/integrity").json()
    assert report["ok"] and report["entries"] == 1, report
