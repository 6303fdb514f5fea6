"""Issue 20, failure 1: every operation of the served OpenAPI document that takes a body, and every form the workbench
takes, reads it through a bounded reader, after the key (or the session) is checked: over a real socket, an oversized
body is refused (401 without a key, unread: a workbench page sends to the login page; 413 with one) and a body trickled
a byte at a time is cut (408) within BJAUDIT_BODY_TIMEOUT_SECONDS and a little. POST /v1/keys read any body whole,
for anyone; a batch upload trickled faster than BJAUDIT_UPLOAD_IDLE_SECONDS was never cut."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.api.auth import PUBLIC
from app.api.workbench import router as workbench
from app.workbench.session import SESSION_COOKIE
from tests.live_service import live_auth, live_key, live_service

BODY_TIMEOUT = 2.0
FORM = "application/x-www-form-urlencoded"

Op = tuple[str, str, str, str | None]
"""(method, path, media type, credentials: an Authorization or a Cookie header, None for a public form)"""


def _forms(base: str, key: str) -> list[Op]:
    """Every form the workbench takes (POST, PUT, PATCH), with a session's cookie for those that need one."""
    with httpx.Client(base_url=base) as client:
        page = client.get("/ui/login").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf, page
        r = client.post("/ui/login", data={"key": key, "csrf": csrf.group(1), "next": "/ui"})
        assert r.status_code == 303, r.text
        cookie = f"Cookie: {SESSION_COOKIE}={client.cookies[SESSION_COOKIE]}"
    return [
        (method, route.path, FORM, None if PUBLIC in route.dependencies else cookie)
        for route in workbench.routes
        for method in sorted(getattr(route, "methods", ()) or ())
        if method in ("POST", "PUT", "PATCH")
    ]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, list[Op]]]:
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
        auth = "Authorization: " + live_auth(workdir)["Authorization"]
        ops: list[Op] = [
            (
                method.upper(),
                re.sub(r"\{[^}]+\}", "X-1", path),
                next(iter(op["requestBody"]["content"])),
                auth,
            )
            for path, item in doc["paths"].items()
            for method, op in item.items()
            if isinstance(op, dict) and "requestBody" in op
        ]
        yield port, ops + _forms(base, live_key(workdir))


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


def _head(method: str, path: str, media: str, length: int, credentials: str | None) -> bytes:
    lines = [
        f"{method} {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Content-Type: {media}",
        f"Content-Length: {length}",
    ]
    if credentials:
        lines.append(credentials)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_there_are_operations_with_a_body_to_walk(service: Any) -> None:
    _, ops = service
    walked = {(method, path) for method, path, _, _ in ops}
    assert {
        ("POST", "/v1/keys"),
        ("POST", "/v1/batches"),
        ("POST", "/ui/login"),
        ("POST", "/ui/logout"),
    } <= walked
    assert len(ops) >= 8, ops


def test_an_oversized_body_without_a_key_is_refused_unread(service: Any) -> None:
    port, ops = service
    for method, path, media, credentials in ops:
        if credentials is None:
            continue  # a public form: the next test
        expected = 303 if credentials.startswith("Cookie") else 401  # a workbench page: off to the login page
        status, took = _exchange(port, _head(method, path, media, 400 << 20, None), [b"x" * 65536], 0.2, 5.0)
        assert status == expected and took < 3, (method, path, status, took)


def test_an_oversized_body_with_a_key_gets_413(service: Any) -> None:
    port, ops = service
    for method, path, media, credentials in ops:
        head = _head(method, path, media, 400 << 20, credentials)
        status, took = _exchange(port, head, [b"x" * 65536], 0.2, 5.0)
        assert status == 413 and took < 3, (method, path, status, took)


def test_a_body_trickled_a_byte_at_a_time_is_cut_off(service: Any) -> None:
    port, ops = service
    for method, path, media, credentials in ops:
        parts = [b"{"] * 100  # a byte every 0.2 s: 20 s, far faster than BJAUDIT_UPLOAD_IDLE_SECONDS
        status, took = _exchange(port, _head(method, path, media, 1000, credentials), parts, 0.2, 30.0)
        assert status == 408 and took < BODY_TIMEOUT + 1.5, (method, path, status, took)
