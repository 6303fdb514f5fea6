"""Issue 20, failure 2: 1,000 sockets each sending `GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n` and nothing more made every
other client get 503 for as long as they were held. Headers now have a deadline (BJAUDIT_HEADER_TIMEOUT_SECONDS), and
one address holds at most BJAUDIT_MAX_CONNECTIONS_PER_ADDRESS connections: over real sockets, against `bjaudit serve`."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx

from tests.live_service import live_service


def _half_open(port: int, n: int) -> list[socket.socket]:
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # the headers never end
        socks.append(s)
    return socks


def _closed_by_server(s: socket.socket, wait: float) -> tuple[bool, bytes]:
    s.settimeout(wait)
    got = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                return True, got
            got += chunk
    except TimeoutError:
        return False, got
    except OSError:
        return True, got


def test_sockets_that_never_finish_their_headers_are_dropped_and_others_are_served(tmp_path: Path) -> None:
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BJAUDIT_MAX_CONNECTIONS": "50",
        "BJAUDIT_MAX_CONNECTIONS_PER_ADDRESS": "1000",  # this test is about the deadline
        "BJAUDIT_HEADER_TIMEOUT_SECONDS": "2",
    }
    with live_service(tmp_path, env) as (base, port):
        socks = _half_open(port, 60)
        try:
            time.sleep(0.5)
            assert httpx.get(base + "/healthz", timeout=10).status_code == 503  # every slot held, for now
            deadline = time.monotonic() + 6
            while httpx.get(base + "/healthz", timeout=10).status_code != 200:
                assert time.monotonic() < deadline, "still refused after the header deadline"
                time.sleep(0.2)
            closed, said = _closed_by_server(socks[0], 3)
            assert closed and said.startswith(b"HTTP/1.1 408"), said[:200]
            assert b"header-timeout" in said
        finally:
            for s in socks:
                s.close()


def test_one_address_cannot_take_every_connection(tmp_path: Path) -> None:
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BJAUDIT_MAX_CONNECTIONS_PER_ADDRESS": "5",
        "BJAUDIT_HEADER_TIMEOUT_SECONDS": "30",
    }
    with live_service(tmp_path, env) as (_, port):
        socks = _half_open(port, 5)
        try:
            extra = socket.create_connection(("127.0.0.1", port), timeout=5)
            closed, _ = _closed_by_server(extra, 3)
            extra.close()
            assert closed  # the sixth of one address: closed at once
            assert not _closed_by_server(socks[0], 0.5)[
                0
            ]  # the first five are still open (their deadline: 30 s)
        finally:
            for s in socks:
                s.close()
        with httpx.Client() as client:  # and once they are gone, the address is served again
            deadline = time.monotonic() + 5
            while True:
                try:
                    if client.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline
                time.sleep(0.1)
