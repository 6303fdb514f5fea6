"""docs/webhook_receiver.py, the receiver docs/alerts.md gives as an example, runs: it takes the service's webhooks
(signature checked, each alert once), and refuses a forged, tampered or stale request. On SQLite and PostgreSQL."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.usecases import alerts as alert_cases
from tests.integration import test_webhooks
from tests.integration.test_webhooks import JSON, SECRET, subscribe

settings, hooked = test_webhooks.settings, test_webhooks.hooked  # (its fixtures: deliveries to the loopback)

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "webhook_receiver.py"


def _receiver_module() -> Any:
    spec = importlib.util.spec_from_file_location("webhook_receiver", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_documented_receiver_takes_the_services_webhooks_and_refuses_the_rest(
    hooked: TestClient, examples: dict[str, bytes]
) -> None:
    receiver = _receiver_module()
    got: list[dict[str, Any]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), receiver.handler(SECRET, set(), got))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    try:
        subscribe(hooked, url)
        assert (
            hooked.post(
                "/v1/rounds", content=examples["nj-dealer-draws-on-hard-17"], headers=JSON
            ).status_code
            == 201
        )
        deadline = time.monotonic() + 20
        while not got and time.monotonic() < deadline:
            time.sleep(0.02)
        (event,) = got
        assert event["type"] == "finding.created" and event["data"]["round_id"] == "EX-NJ-0002"

        body = json.dumps(event).encode()
        now = int(time.time())
        alert_id = event["data"]["alert_id"]
        signed = {
            "webhook-id": alert_id,
            "webhook-timestamp": str(now),
            "webhook-signature": alert_cases.signature(SECRET, alert_id, now, body),
            "content-type": "application/json",
        }
        assert (
            httpx.post(url, content=body, headers=signed).status_code == 204
        )  # a retry: taken, not kept twice
        assert len(got) == 1
        assert httpx.post(url, content=body + b" ", headers=signed).status_code == 401  # tampered
        forged = {
            **signed,
            "webhook-signature": alert_cases.signature(alert_cases.new_secret(), alert_id, now, body),
        }
        assert httpx.post(url, content=body, headers=forged).status_code == 401
        old = now - 3600
        stale = {
            **signed,
            "webhook-timestamp": str(old),
            "webhook-signature": alert_cases.signature(SECRET, alert_id, old, body),
        }
        assert httpx.post(url, content=body, headers=stale).status_code == 401
        assert httpx.post(url, content=body).status_code == 401  # no headers at all
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("rotation", [False, True])
def test_verify_takes_any_of_several_signatures(rotation: bool) -> None:
    receiver = _receiver_module()
    body, now = b'{"data": {}}', int(time.time())
    good = alert_cases.signature(SECRET, "s:1:0", now, body)
    header = (
        f"{alert_cases.signature(alert_cases.new_secret(), 's:1:0', now, body)} {good}" if rotation else good
    )
    assert receiver.verify(
        SECRET, {"webhook-id": "s:1:0", "webhook-timestamp": str(now), "webhook-signature": header}, body
    ) == {"data": {}}
