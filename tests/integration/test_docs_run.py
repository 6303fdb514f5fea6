"""The documentation's commands work when pasted: every fenced block of README.md and docs/*.md whose info string
says ``runnable`` is run with bash, in a scratch directory holding only what a checkout gives (``tests/`` and the
installed ``.venv``), in document order. ``service`` blocks run against `bjaudit serve` started there for that
document (SQLite; its address put where the docs say 127.0.0.1:8000); ``exit=N`` is the status the block must end
with (0 unless said). A block passes when it ends so and nothing it ran failed to be found, to connect, or to
parse."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.live_service import live_service

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(?:sh|bash) ([^\n]*)\n(.*?)^```$", re.M | re.S)
# What a command that does not work prints, whatever its exit status.
BROKEN = (
    "command not found",
    "No such file or directory",
    "Traceback (most recent call last)",
    "Expecting value",  # python3 -m json.tool given something that is not JSON
    "curl: (",
    "usage: bjaudit",  # an option the CLI does not take
)


@dataclass(frozen=True)
class Block:
    document: str
    line: int
    code: str
    service: bool
    exit: int


def _blocks(path: Path) -> list[Block]:
    text = path.read_text()
    out = []
    for m in FENCE.finditer(text):
        words = m.group(1).split()
        if "runnable" not in words:
            continue
        exit_ = next((int(w.removeprefix("exit=")) for w in words if w.startswith("exit=")), 0)
        line = text.count("\n", 0, m.start()) + 1
        out.append(Block(path.name, line, m.group(2), "service" in words, exit_))
    return out


RUNNABLE = {p.name: _blocks(p) for p in DOCUMENTS if _blocks(p)}


def test_the_quickstart_documents_have_runnable_blocks() -> None:
    assert {"README.md", "service.md", "engine.md"} <= set(RUNNABLE)
    assert sum(len(b) for b in RUNNABLE.values()) >= 15


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    return tmp_path


@pytest.fixture
def service(scratch: Path) -> Iterator[str]:
    # As `make run` in the project directory: its database, and its first key in var/admin-key.
    env = {"DATABASE_URL": database_of(scratch), "BJAUDIT_ADMIN_KEY_FILE": str(scratch / "var" / "admin-key")}
    with live_service(scratch, env) as (base, _):
        yield base


def database_of(scratch: Path) -> str:
    return f"sqlite:///{scratch / 'docs.sqlite3'}"


@pytest.mark.parametrize("document", sorted(RUNNABLE))
def test_the_documented_commands_run_as_pasted(
    document: str, scratch: Path, request: pytest.FixtureRequest
) -> None:
    blocks = RUNNABLE[document]
    base = request.getfixturevalue("service") if any(b.service for b in blocks) else None
    env = {**os.environ, "PATH": f"{Path(sys.prefix) / 'bin'}:{os.environ.get('PATH', '')}"}
    if base is not None:
        # A reader who ran the documents' `export BJAUDIT_KEY=$(cat var/admin-key)`, on the service's database.
        env["BJAUDIT_URL"] = base
        env["BJAUDIT_KEY"] = (scratch / "var" / "admin-key").read_text().strip()
        env["DATABASE_URL"] = database_of(scratch)
    for block in blocks:
        code = block.code.replace("http://127.0.0.1:8000", base) if base else block.code
        done = subprocess.run(
            ["bash", "-c", code], cwd=scratch, env=env, capture_output=True, text=True, timeout=300
        )
        where = f"{block.document}:{block.line}"
        output = done.stdout + done.stderr
        assert done.returncode == block.exit, (
            f"{where} ended {done.returncode}, not {block.exit}:\n{output[-3000:]}"
        )
        broken = [b for b in BROKEN if b in output]
        assert not broken, f"{where} printed {broken}:\n{output[-3000:]}"
