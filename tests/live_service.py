"""`bjaudit serve` as a real process on a free port, for tests of what only a real server shows (sockets, limits,
concurrency)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def live_key(workdir: Path) -> str:
    """The first API key a :func:`live_service` in ``workdir`` made (on its new database)."""
    return (workdir / "admin-key").read_text().strip()


def live_auth(workdir: Path) -> dict[str, str]:
    return {"Authorization": f"Bearer {live_key(workdir)}"}


def start_service(
    workdir: Path, env: dict[str, str], port: int | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``bjaudit serve`` with ``env`` added to the environment (its output in ``workdir/serve-<port>.log``) and
    wait until it is ready: the process and its port. For a test that ends it its own way (SIGKILL)."""
    port = free_port() if port is None else port
    log_path = workdir / f"serve-{port}.log"
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
            cwd=ROOT,
            env={
                **os.environ,
                "BJAUDIT_ACCESS_LOG": "false",
                "BJAUDIT_ADMIN_KEY_FILE": str(workdir / "admin-key"),
                "BJAUDIT_SIGNING_KEY_FILE": str(workdir / "signing-key.pem"),
                **env,
            },
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx.get(base + "/readyz").status_code == 200:
                return proc, port
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise AssertionError(log_path.read_text())
        time.sleep(0.1)


@contextmanager
def live_service(workdir: Path, env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """Serve with ``env`` added to the environment until the block ends; yields (base URL, port). On a new
    database, the service's first API key is in ``workdir / "admin-key"`` (:func:`live_key`)."""
    proc, port = start_service(workdir, env)
    try:
        yield f"http://127.0.0.1:{port}", port
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
