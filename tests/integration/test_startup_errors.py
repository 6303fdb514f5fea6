"""A service or worker that cannot start says why in one line, and what to do, with a non-zero exit (never a
traceback): a database that does not exist, a port nothing listens on, a SQLite file that cannot be opened."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from app.config import sqlalchemy_url
from tests.integration.conftest import postgres_admin_url
from tests.live_service import free_port

ROOT = Path(__file__).resolve().parents[2]


def _run(command: str, database_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url, "BJAUDIT_PORT": str(free_port())}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *command.split()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _last_line(err: str) -> str:
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


@pytest.mark.postgres
@pytest.mark.parametrize("command", ["serve", "worker"])
def test_a_database_that_does_not_exist(command: str) -> None:
    admin = make_url(sqlalchemy_url(postgres_admin_url()))
    url = admin.set(drivername="postgresql", database="bjaudit_no_such_database").render_as_string(False)
    done = _run(command, url)
    assert done.returncode == 2
    assert _last_line(done.stderr) == (
        f"bjaudit {command}: the database 'bjaudit_no_such_database' does not exist on "
        f"{admin.host}:{admin.port or 5432}: create it first (createdb -h {admin.host} -p {admin.port or 5432} "
        f"-U {admin.username} bjaudit_no_such_database), never use the maintenance database 'postgres'"
    )


@pytest.mark.parametrize("command", ["serve", "keys list", "verify"])
def test_a_port_nothing_listens_on(command: str) -> None:
    port = free_port()
    done = _run(command, f"postgresql://postgres@127.0.0.1:{port}/bjaudit")
    assert done.returncode == 2
    assert _last_line(done.stderr) == (
        f"bjaudit {command.split()[0]}: cannot connect to PostgreSQL at 127.0.0.1:{port} (connection refused): is the server "
        "running there, and are the host and port of DATABASE_URL right?"
    )


def test_a_sqlite_file_that_cannot_be_opened(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    url = f"sqlite:///{blocker}/bjaudit.sqlite3"
    done = _run("serve", url)
    assert done.returncode == 2
    assert (
        _last_line(done.stderr)
        == f"bjaudit serve: cannot open the database {url}: unable to open database file"
    )
