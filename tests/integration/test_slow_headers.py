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
            for s in socks:  # every one of them, answered and closed by the server
                closed, said = _closed_by_server(s, 3)
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


def _held_for(
    s: socket.socket, trickle: bytes, every: float, wait: float, times: int = 1000
) -> tuple[float | None, bytes]:
    """Read what the server says while sending ``trickle`` every ``every`` s, ``times`` times at most; when it closed
    the connection (seconds from now; None: still open after ``wait``), and what it said."""
    started = time.monotonic()
    s.settimeout(every)
    said = b""
    while time.monotonic() - started < wait:
        try:
            chunk = s.recv(4096)
            if not chunk:
                return time.monotonic() - started, said
            said += chunk
        except TimeoutError:
            pass
        except OSError:
            return time.monotonic() - started, said
        if times > 0:
            times -= 1
            try:
                s.sendall(trickle)
            except OSError:
                return time.monotonic() - started, said
    return None, said


UNREAD = b"POST /v1/rounds HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"


def test_a_request_answered_before_its_body_ended_cannot_hold_the_connection(tmp_path: Path) -> None:
    """A request answered early (401: no key, its body unread) whose body then trickles in, or stops after one more
    byte, held its connection for ever: uvicorn drops such a body as it comes, and each byte cancelled the keep-alive
    timeout. The rest of the body has BJAUDIT_KEEP_ALIVE_SECONDS; one that ends in time keeps the connection."""
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BJAUDIT_HEADER_TIMEOUT_SECONDS": "2",
        "BJAUDIT_KEEP_ALIVE_SECONDS": "2",
    }
    with live_service(tmp_path, env) as (_, port):
        for times in (1000, 1):  # a byte every 0.2 s; one byte, then nothing
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(UNREAD)
                closed, said = _held_for(s, b"x", 0.2, 8, times)
                assert said.startswith(b"HTTP/1.1 401"), said[:200]
                assert closed is not None and closed < 4, (times, closed)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:  # a body that ends in time
            s.sendall(UNREAD.replace(b"100000", b"10"))
            assert s.recv(4096).startswith(b"HTTP/1.1 401")
            s.sendall(b"123456789" + b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            said = b""
            while b"HTTP/1.1 200" not in said:
                chunk = s.recv(4096)
                assert chunk, said
                said += chunk


def test_a_pipelined_request_whose_headers_trickle_is_cut_off(tmp_path: Path) -> None:
    """The headers of a request sent behind another (pipelined) lost their deadline when the first was answered; each
    header line they trickled then cancelled the keep-alive timeout: the connection was held for ever."""
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BJAUDIT_HEADER_TIMEOUT_SECONDS": "2",
        "BJAUDIT_KEEP_ALIVE_SECONDS": "2",
    }
    with (
        live_service(tmp_path, env) as (_, port),
        socket.create_connection(("127.0.0.1", port), timeout=5) as s,
    ):
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n")
        closed, said = _held_for(s, b"X-Slow: 1\r\n", 0.3, 8)
        assert said.startswith(b"HTTP/1.1 200") and b"HTTP/1.1 408" in said, said[:400]
        assert closed is not None and closed < 4, closed


def test_a_silent_connection_and_an_idle_keep_alive_one_are_closed(tmp_path: Path) -> None:
    """A connection that never sends a byte was held as long as its client liked (95 s seen): it has the headers'
    deadline from when it opened. One idle after its request is closed after BJAUDIT_KEEP_ALIVE_SECONDS (5 by
    default)."""
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "BJAUDIT_HEADER_TIMEOUT_SECONDS": "2"}
    with live_service(tmp_path, env) as (_, port):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as silent:
            started = time.monotonic()
            closed, said = _closed_by_server(silent, 6)
            assert closed and said.startswith(b"HTTP/1.1 408") and time.monotonic() - started < 4, said[:200]
        with socket.create_connection(("127.0.0.1", port), timeout=5) as idle:
            idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            started = time.monotonic()
            closed, said = _closed_by_server(idle, 10)
            assert closed and said.startswith(b"HTTP/1.1 200"), said[:200]
            assert 4 < time.monotonic() - started < 7
