"""Issue 20, P3: X-Forwarded-For is believed only from the proxies configured (BJAUDIT_TRUSTED_PROXIES): rotating it
from loopback no longer resets the wrong-key limit (uvicorn trusted 127.0.0.1 by default)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.live_service import live_service


def _wrong_keys(base: str, n: int, rotate: bool) -> list[int]:
    statuses = []
    for i in range(n):
        headers = {"Authorization": "Bearer bja_nope_" + "x" * 40}
        if rotate:
            headers["X-Forwarded-For"] = f"203.0.113.{i % 250 + 1}"
        statuses.append(httpx.get(base + "/v1/rounds", headers=headers).status_code)
    return statuses


def test_rotating_x_forwarded_for_from_loopback_does_not_reset_the_wrong_key_limit(tmp_path: Path) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "BJAUDIT_AUTH_FAILURE_LIMIT": "5/minute"}
    with live_service(tmp_path, env) as (base, _):
        statuses = _wrong_keys(base, 8, rotate=True)
    assert statuses[:5] == [401] * 5 and statuses[5:] == [429] * 3, statuses


def test_a_configured_proxy_is_believed(tmp_path: Path) -> None:
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BJAUDIT_AUTH_FAILURE_LIMIT": "5/minute",
        "BJAUDIT_TRUSTED_PROXIES": "127.0.0.1",
    }
    with live_service(tmp_path, env) as (base, _):
        statuses = _wrong_keys(base, 8, rotate=True)
    assert statuses == [401] * 8, statuses  # each forwarded client is its own
