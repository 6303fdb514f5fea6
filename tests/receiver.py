"""A webhook receiver for tests and benchmarks: an HTTP server on the loopback that records what it is sent, and
Standard Webhooks' signature check written from its specification (not from the service's code)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """An HTTP server on the loopback that records what it is sent and answers ``status`` (a list: one per request,
    the last repeated)."""

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []
        self.statuses = [204]
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.got.append({"headers": dict(self.headers), "body": body})
                status = received.statuses.pop(0) if len(received.statuses) > 1 else received.statuses[0]
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, n: int, timeout: float = 20.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.got) < n and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.got

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def verify(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """Standard Webhooks' check, written from its specification (not from the service's code)."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(part == f"v1,{expected}" for part in headers["webhook-signature"].split())
