"""Issue 20, failure 1: every operation of the served OpenAPI document that takes a body reads it through a bounded
reader, after the key is checked: over a real socket, an oversized body is refused (401 without a key, unread; 413
with one) and a trickled one is cut (408), each within seconds. POST /v1/keys read any body whole, for anyone."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.live_service import live_auth, live_service

BODY_TIMEOUT = 2.0


@pytest.fixture(scope="module")
def service(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[int, str, list[tuple[str, str, str]]]]:
    workdir = tmp_path_factory.mktemp("bodies")
    env = {
        "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
        "BJAUDIT_MAX_BODY_BYTES": "4096",
        "BJAUDIT_BODY_TIMEOUT_SECONDS": str(BODY_TIMEOUT),
        "BJAUDIT_UPLOAD_IDLE_SECONDS": str(BODY_TIMEOUT),
        "BJAUDIT_BATCH_MAX_UPLOAD_BYTES": "65536",
        "BJAUDIT_AUTH_FAILURE_LIMIT": "",
        "BJAUDIT_RATE_LIMIT": "",
    }
    with live_service(workdir, env) as (base, port):
        doc = httpx.get(base + "/openapi.json").json()
        ops = [
            (method.upper(), re.sub(r"\{[^}]+\}", "X-1", path), next(iter(op["requestBody"]["content"])))
            for path, item in doc["paths"].items()
            for method, op in item.items()
            if isinstance(op, dict) and "requestBody" in op
        ]
        yield port, live_auth(workdir)["Authorization"], ops


def _exchange(
    port: int, head: bytes, parts: list[bytes], pause: float, wait: float
) -> tuple[int | None, float]:
    """Send the head, then each part after ``pause``; the status of the answer and when it came (None: none)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(head)
        s.setblocking(False)
        answer = b""
        for part in [b"", *parts]:
            if part:
                try:
                    s.sendall(part)
                except OSError:
                    break
            end = time.monotonic() + pause
            while time.monotonic() < end and b"\r\n" not in answer:
                try:
                    answer += s.recv(4096)
                except BlockingIOError:
                    time.sleep(0.02)
                except OSError:
                    break
            if b"\r\n" in answer:
                break
        deadline = started + wait
        while b"\r\n" not in answer and time.monotonic() < deadline:
            try:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
            except BlockingIOError:
                time.sleep(0.02)
            except OSError:
                break
    match = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    return (int(match.group(1)) if match else None), time.monotonic() - started


def _head(method: str, path: str, media: str, length: int, auth: str | None) -> bytes:
    lines = [
        f"{method} {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Content-Type: {media}",
        f"Content-Length: {length}",
    ]
    if auth:
        lines.append(f"Authorization: {auth}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_there_are_operations_with_a_body_to_walk(service: Any) -> None:
    _, _, ops = service
    assert ("POST", "/v1/keys", "application/json") in ops and len(ops) >= 5, ops


def test_an_oversized_body_without_a_key_is_refused_unread(service: Any) -> None:
    port, _, ops = service
    for method, path, media in ops:
        status, took = _exchange(port, _head(method, path, media, 400 << 20, None), [b"x" * 65536], 0.2, 5.0)
        assert status == 401 and took < 3, (method, path, status, took)


def test_an_oversized_body_with_a_key_gets_413(service: Any) -> None:
    port, auth, ops = service
    for method, path, media in ops:
        status, took = _exchange(port, _head(method, path, media, 400 << 20, auth), [b"x" * 65536], 0.2, 5.0)
        assert status == 413 and took < 3, (method, path, status, took)


def test_a_trickled_body_is_cut_off(service: Any) -> None:
    port, auth, ops = service
    for method, path, media in ops:
        parts = [b"{"] * 10
        status, took = _exchange(port, _head(method, path, media, 100, auth), parts, 1.5 * BODY_TIMEOUT, 20.0)
        assert status == 408 and took < 3 * BODY_TIMEOUT + 2, (method, path, status, took)
