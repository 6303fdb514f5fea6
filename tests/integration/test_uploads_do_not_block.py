"""An upload never holds the database while it waits for its client: on SQLite (one writer at a time) single
rounds and registrations are stored while an upload has stalled half way, and the stalled upload, once it fails,
leaves nothing behind."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

from app.config import sqlalchemy_url
from tests.batch.conftest import dumps, legal_rounds
from tests.live_service import live_auth, live_key, live_service

JSON = {"content-type": "application/json"}


def _count(url: str, sql: str) -> int:
    eng = create_engine(sqlalchemy_url(url))
    try:
        with eng.connect() as conn:
            return int(conn.execute(text(sql)).scalar_one())
    finally:
        eng.dispose()


def test_sqlite_writes_go_on_while_an_upload_stalls_half_way(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    env = {
        "DATABASE_URL": url,
        "BJAUDIT_BATCH_CHUNK_LINES": "50",
        "BJAUDIT_UPLOAD_IDLE_SECONDS": "30",
        "BJAUDIT_DB_TIMEOUT_SECONDS": "3",
    }
    docs = legal_rounds(1000, seed=40)
    lines = b"".join(dumps(d) + b"\n" for d in docs[:-1])
    assert len(lines) > 1 << 20  # over what the service hands to the writer at once: chunks are stored
    with live_service(tmp_path, env) as (base, port):
        upload = socket.create_connection(("127.0.0.1", port))
        try:
            upload.sendall(
                b"POST /v1/batches HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
                b"Transfer-Encoding: chunked\r\n"
                + f"Authorization: Bearer {live_key(tmp_path)}\r\n\r\n".encode()
                + f"{len(lines):x}\r\n".encode()
                + lines
                + b"\r\n"
            )
            deadline = time.monotonic() + 20
            while _count(url, "SELECT count(*) FROM batch_chunks") == 0:  # the upload has stored chunks
                assert time.monotonic() < deadline
                time.sleep(0.1)
            assert (
                _count(url, "SELECT count(*) FROM batches WHERE received_at IS NULL") == 1
            )  # still arriving
            # Blocked, they would be answered 503 after BJAUDIT_DB_TIMEOUT_SECONDS: the status is the proof.
            auth = live_auth(tmp_path)
            r = httpx.post(base + "/v1/rounds", content=dumps(docs[-1]), headers={**JSON, **auth}, timeout=30)
            assert r.status_code == 201, r.text
            reg = httpx.put(
                base + "/v1/tables/BJ99/elections",
                json={
                    "jurisdiction": "US-NJ",
                    "effective_from": "2026-11-01T00:00:00Z",
                    "rules": {"decks": 6},
                    "reason": "rule card",
                },
                headers=auth,
                timeout=30,
            )
            assert reg.status_code == 201, reg.text
        finally:
            upload.close()  # the client goes away: the upload fails
        deadline = time.monotonic() + 20
        while _count(url, "SELECT count(*) FROM batches WHERE state = 'failed'") == 0:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    assert _count(url, "SELECT count(*) FROM batch_chunks") == 0
    assert _count(url, "SELECT count(*) FROM rounds") == 1  # the single round; nothing of the upload
