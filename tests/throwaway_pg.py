"""A PostgreSQL server of a test's own, to stop, restart and break: fault tests never touch the shared server.

``initdb`` into a temporary folder, ``pg_ctl`` on a free port with its socket in that folder, trust
authentication on the loopback only. Run as the ``postgres`` user when the tests run as root (initdb refuses
root). Unavailable binaries: the tests that need it are skipped, or fail under BJAUDIT_REQUIRE_POSTGRES=1.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from tests.live_service import free_port


def _bindir() -> Path | None:
    try:
        out = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    candidates = [out] if out else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for c in candidates:
        if (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c)
    return None


class ThrowawayPostgres:
    def __init__(self, *, init: bool = True) -> None:
        bindir = _bindir()
        if bindir is None:
            message = "no initdb/pg_ctl found (apt install postgresql) for a throwaway PostgreSQL"
            if os.environ.get("BJAUDIT_REQUIRE_POSTGRES", "") not in ("", "0", "false", "no"):
                pytest.fail(message, pytrace=False)
            pytest.skip(message)
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="bjaudit-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        if init:
            self._run(
                "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"
            )

    def standby(self) -> ThrowawayPostgres:
        """A streaming standby of this (running) server, in a folder and on a port of its own, started: a copy by
        ``pg_basebackup -R`` (initdb's trust lines let the loopback replicate), replaying as the primary writes."""
        standby = ThrowawayPostgres(init=False)
        standby._run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-D", str(standby.data),
            "-R", "-X", "stream", "-c", "fast", "--no-sync",
        )  # fmt: skip
        standby.start()
        return standby

    def sql(self, statement: str) -> list[tuple[object, ...]]:
        """One statement on the server's own database ``postgres``, autocommit; its rows."""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            cur = conn.execute(statement)
            return cur.fetchall() if cur.description else []

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bindir / tool), *args]
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "30", "start"
        )

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "30", "stop")

    def restart(self, down_for: float = 0.0) -> None:
        """Stop the server (fast: connections are cut), leave it down ``down_for`` seconds, start it again."""
        self.stop()
        time.sleep(down_for)
        self.start()

    def _pids(self) -> list[int]:
        """The postmaster and every process it started (backends, background workers)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = subprocess.run(
            ["pgrep", "-P", str(postmaster)], capture_output=True, text=True
        ).stdout.split()
        return [postmaster, *map(int, children)]

    def hang(self) -> None:
        """Stop every server process (SIGSTOP): connections stay open, nothing answers."""
        for pid in self._pids():
            os.kill(pid, signal.SIGSTOP)

    def resume(self) -> None:
        for pid in self._pids():
            os.kill(pid, signal.SIGCONT)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
