"""Issue 23, item 1: `make run` printed JSON log lines to a terminal. ``BJAUDIT_LOG_FORMAT=auto`` (the default) writes
human lines to a terminal and JSON anywhere else; ``json`` and ``text`` choose one wherever the log goes; a human line
carries the fields of the JSON one, its values escaped."""

from __future__ import annotations

import io
import json
import logging
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from app import logs
from app.config import Settings

ROOT = Path(__file__).resolve().parents[2]

# A process that logs as `bjaudit worker` does (logs.configure), a record with fields of its own.
LOG_ONE = """
import logging, sys
from app import logs
logs.configure(sys.argv[1])
logging.getLogger("bjaudit.example").info("stored %s", "r-1", extra={"round_id": "r-1", "note": "a\\nb"})
"""


def _stderr_of(fmt: str, *, tty: bool) -> str:
    """What a process that logs with ``fmt`` writes on its standard error, a terminal (a pty) or a pipe."""
    argv = [sys.executable, "-c", LOG_ONE, fmt]
    if not tty:
        return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True).stderr
    primary, secondary = pty.openpty()
    try:
        subprocess.run(argv, cwd=ROOT, stderr=secondary, timeout=60, check=True)
        os.close(secondary)
        secondary = -1
        out = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the terminal's other side is closed, everything read
                break
            if not chunk:
                break
            out += chunk
        return out.decode().replace("\r\n", "\n")
    finally:
        os.close(primary)
        if secondary != -1:
            os.close(secondary)


def test_auto_is_the_default() -> None:
    assert Settings.model_fields["log_format"].default == "auto"


def test_auto_writes_human_lines_to_a_terminal() -> None:
    lines = _stderr_of("auto", tty=True).splitlines()
    assert len(lines) == 1, lines
    assert " INFO bjaudit.example: stored r-1 round_id=r-1 note=a\\nb" in lines[0], lines
    assert not lines[0].startswith("{")


def test_auto_writes_json_to_a_pipe() -> None:
    line = json.loads(_stderr_of("auto", tty=False))
    assert (line["level"], line["logger"], line["message"]) == ("INFO", "bjaudit.example", "stored r-1")
    assert (line["round_id"], line["note"]) == ("r-1", "a\nb")


def test_the_setting_wins_over_what_the_stream_is() -> None:
    assert json.loads(_stderr_of("json", tty=True))["message"] == "stored r-1"
    assert "INFO bjaudit.example: stored r-1" in _stderr_of("text", tty=False)


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BJAUDIT_LOG_FORMAT", raising=False)
    assert Settings().log_format == "auto"
    for fmt in ("json", "text", "auto"):
        monkeypatch.setenv("BJAUDIT_LOG_FORMAT", fmt)
        assert Settings().log_format == fmt
    monkeypatch.setenv("BJAUDIT_LOG_FORMAT", "yaml")
    with pytest.raises(ValueError, match="log_format"):
        Settings()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Closed(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


def test_serve_hands_uvicorn_the_format_standard_error_calls_for(monkeypatch: pytest.MonkeyPatch) -> None:
    def formatter_of(fmt: logs.LogFormat) -> str:
        return str(logs.logging_config(fmt, "info")["formatters"]["bjaudit"]["()"])

    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert formatter_of("auto") == "app.logs.TextFormatter"
    assert formatter_of("json") == "app.logs.JsonFormatter"
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert formatter_of("auto") == "app.logs.JsonFormatter"
    assert formatter_of("text") == "app.logs.TextFormatter"
    assert logs.resolve("auto", _Closed()) == "json"


def test_a_human_line_carries_every_field_of_the_json_line() -> None:
    record = logging.makeLogRecord(
        {
            "name": "bjaudit.access",
            "levelno": logging.INFO,
            "levelname": "INFO",
            "msg": "%s %s %d",
            "args": ("GET", "/v1/rounds/x\nfake 2026-12-04 INFO line", 404),
            "created": 1764856924.971,
            "method": "GET",
            "path": "/v1/rounds/x\nfake",
            "status": 404,
            "duration_ms": 1.854,
            "client": "10.0.0.7",
            "source": "casino\u202ea",
        }
    )
    token = logs.request_id.set("live-1")
    try:
        as_json = json.loads(logs.JsonFormatter().format(record))
        as_text = logs.TextFormatter().format(record)
    finally:
        logs.request_id.reset(token)
    assert len(as_text.splitlines()) == 1, as_text
    head = f" {as_json['level']} {as_json['logger']}: {logs.escape(as_json['message'])} "
    assert head in as_text, as_text
    for key, value in as_json.items():
        if key not in ("time", "level", "logger", "message"):
            assert f" {key}={logs.escape(value)}" in as_text, (key, as_text)
    assert "\\n" in as_text and "\\u202e" in as_text
