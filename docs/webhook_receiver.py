"""A receiver of bjaudit's webhooks (docs/alerts.md), standard library only: it checks each request's signature as
Standard Webhooks specify it, refuses a stale or replayed one, and prints the alert.

    python3 docs/webhook_receiver.py --port 9000 --secret whsec_...

Copy :func:`verify` into your own receiver: it is all the checking there is.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOLERANCE = 5 * 60
"""Seconds a webhook's timestamp may be off the receiver's clock: an older request (a replay) is refused."""


class Refused(Exception):
    """The request is not a webhook signed with the secret (or it is too old)."""


def verify(secret: str, headers: dict[str, str], body: bytes, now: float | None = None) -> dict[str, Any]:
    """The event a webhook carries, once its signature is checked: ``v1,`` + base64 HMAC-SHA256, under the key that
    ``secret`` (``whsec_`` + base64) holds, of ``webhook-id.webhook-timestamp.body`` (the body's exact bytes).
    Header names in lower case. Raises :class:`Refused`."""
    try:
        msg_id, stamp, signatures = (
            headers["webhook-id"],
            headers["webhook-timestamp"],
            headers["webhook-signature"],
        )
        sent = int(stamp)
    except (KeyError, ValueError):
        raise Refused("not a webhook: webhook-id, webhook-timestamp or webhook-signature missing") from None
    if abs((time.time() if now is None else now) - sent) > TOLERANCE:
        raise Refused(f"the timestamp {sent} is more than {TOLERANCE} s off this clock")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{sent}.".encode() + body, hashlib.sha256).digest())
    # The header may carry several signatures (while a secret is rotated), space-separated: one must match.
    for candidate in signatures.split():
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode(), expected):
            event: dict[str, Any] = json.loads(body)
            return event
    raise Refused("no signature matches: another secret, or the body was changed")


def handler(secret: str, seen: set[str], received: list[dict[str, Any]]) -> type[BaseHTTPRequestHandler]:
    """A request handler that answers 204 to a webhook it can verify (once per webhook-id: a retry of an alert
    already received is acknowledged and dropped), 401 to anything else."""

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                event = verify(secret, {k.lower(): v for k, v in self.headers.items()}, body)
            except Refused as exc:
                self.send_response(401)
                self.send_header("Content-Length", "0")
                self.end_headers()
                self.log_message("refused: %s", exc)
                return
            msg_id = self.headers["webhook-id"]
            if msg_id not in seen:  # at least once: the same alert may come twice
                seen.add(msg_id)
                received.append(event)
                alert = event["data"]
                print(
                    f"{alert['table_id']} {alert['rule']}: {alert['message']} "
                    f"(owed {alert['amount_owed']}) {alert['round_url']}",
                    flush=True,
                )
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Receiver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--secret", required=True, help="the subscription's secret, whsec_...")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("0.0.0.0", args.port), handler(args.secret, set(), []))
    print(f"receiving webhooks on port {args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
