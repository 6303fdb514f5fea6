"""Issue 20: a database timeout says what happened (the database answered, not in time), and whether a retry is
safe depends on the request: never "the database is unavailable, retrying is safe" for a long read."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import orjson
from starlette.requests import Request

from app.api import problems
from app.store.db import DatabaseTimeout


def _answer(method: str, path: str) -> dict[str, object]:
    app = SimpleNamespace(state=SimpleNamespace(settings=SimpleNamespace(retry_after_seconds=5)))
    scope = {"type": "http", "method": method, "path": path, "headers": [], "query_string": b"", "app": app}
    request = Request(scope)
    response = asyncio.run(problems._on_database_timeout(request, DatabaseTimeout("10 s")))
    assert response.status_code == 503 and response.headers["retry-after"]
    return dict(orjson.loads(bytes(response.body)))


def test_a_read_that_timed_out_is_not_called_an_outage_nor_safe_to_repeat_as_is() -> None:
    body = _answer("GET", "/v1/integrity")
    assert body["type"] == "urn:bjaudit:problem:database-timeout"
    assert body["title"] == "The database did not answer in time"
    assert "may take as long again" in str(body["detail"]) and "safe" not in str(body["detail"])


def test_a_round_is_safe_to_send_again_another_write_is_looked_at_first() -> None:
    assert "safe" in str(_answer("POST", "/v1/rounds")["detail"])
    assert "look before you retry" in str(_answer("POST", "/v1/keys")["detail"])
