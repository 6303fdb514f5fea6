"""Issue 22, nothing lost: a service (a real process) delivers the findings of rounds submitted concurrently to two
subscriptions with different filters, each its own receiver; while findings are being delivered the service is
killed (SIGKILL) and its PostgreSQL (a throwaway server of the test's own) restarted, and a new service started.
Every alert of every stored round (read from the database, not from the service's answers) reaches the receivers of
the subscriptions whose filter it matches, at least once, signed; none reaches another; duplicates (at least once
allows them) are counted and printed, not forbidden."""

from __future__ import annotations

import base64
import random
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from sqlalchemy import create_engine, text

from app.config import sqlalchemy_url
from app.store.migrate import upgrade_head
from app.synth.generator import generate_rounds
from app.synth.mutator import mutate
from tests.keys import make_key
from tests.live_service import free_port, start_service
from tests.receiver import verify
from tests.throwaway_pg import ThrowawayPostgres

pytestmark = pytest.mark.postgres

ROUNDS = 360
SUBMITTERS = 4
SOURCE = "default"


class Receiver:
    """Records every POST (webhook-id, headers, body); answers 204 after ``delay`` seconds, a receiver slow enough
    that delivery is still going on when the service is killed."""

    def __init__(self, delay: float) -> None:
        self.got: list[tuple[str, dict[str, str], bytes]] = []
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                time.sleep(delay)
                headers = {k.lower(): v for k, v in self.headers.items()}
                received.got.append((headers.get("webhook-id", ""), headers, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def ids(self) -> set[str]:
        return {i for i, _, _ in list(self.got)}


@pytest.fixture
def receivers() -> Iterator[tuple[Receiver, Receiver]]:
    pair = (Receiver(0.01), Receiver(0.01))
    yield pair
    for r in pair:
        r.server.shutdown()
        r.server.server_close()


def secret(n: int) -> str:
    return "whsec_" + base64.b64encode(bytes([n]) * 32).decode()


def faulty_rounds(n: int, seed: int) -> list[bytes]:
    """``n`` generated rounds, each with an injected dealer or payout error (a finding or more)."""
    rng = random.Random(seed)
    out = []
    for doc in generate_rounds(n * 2, seed=seed):
        fault = mutate(doc, rng)
        if fault is not None:
            out.append(orjson.dumps(fault.round))
        if len(out) == n:
            break
    return out


def alerts_in_database(url: str, after_seq: int) -> dict[str, tuple[str, str]]:
    """Every alert of the rounds stored after chain position ``after_seq``: its id (<source>:<seq>:<index>, the
    contract of webhook-id) -> (round_id, table_id), from the rounds' stored audits."""
    engine = create_engine(sqlalchemy_url(url))
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT ce.seq, r.round_id, r.table_id, r.audit FROM chain_entries ce "
                    "JOIN rounds r ON r.id = ce.ref_id WHERE ce.source = :s AND ce.kind = 'round' AND ce.seq > :a"
                ),
                {"s": SOURCE, "a": after_seq},
            ).all()
    finally:
        engine.dispose()
    alerts = {}
    for seq, round_id, table_id, audit in rows:
        for i, _ in enumerate(orjson.loads(audit)["findings"]):
            alerts[f"{SOURCE}:{seq}:{i}"] = (round_id, table_id)
    return alerts


def test_every_alert_reaches_its_subscriber_across_a_killed_service_and_a_restarted_database(
    server: ThrowawayPostgres, receivers: tuple[Receiver, Receiver], tmp_path: Path
) -> None:
    url = server.create_database("webhooks_survive")
    upgrade_head(url)
    headers = {"Authorization": f"Bearer {make_key(url, SOURCE)}", "Content-Type": "application/json"}
    env = {
        "BJAUDIT_DATABASE_URL": url,
        "BJAUDIT_EMBEDDED_WORKERS": "0",
        "BJAUDIT_WEBHOOKS_ALLOW_PRIVATE": "true",
        "BJAUDIT_WEBHOOK_POLL_SECONDS": "0.1",
        "BJAUDIT_DB_TIMEOUT_SECONDS": "2",
        "BJAUDIT_DB_CONNECT_TIMEOUT": "1",
        "BJAUDIT_RATE_LIMIT": "1000000/second",
    }
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    service, _ = start_service(tmp_path, env, port)
    try:
        bodies = faulty_rounds(ROUNDS, seed=22)
        tables = sorted({orjson.loads(b)["table"]["id"] for b in bodies})
        assert len(tables) >= 5, tables
        chosen = (tables[0::3], tables[1::3])  # the third of the tables goes to neither
        subs = []
        for n, (receiver, picked) in enumerate(zip(receivers, chosen, strict=True)):
            r = httpx.post(
                f"{base}/v1/subscriptions",
                json={"url": receiver.url, "secret": secret(n + 1), "tables": picked},
                headers=headers,
            )
            assert r.status_code == 201, r.text
            subs.append(r.json())
        start_seq = min(s["position"]["seq"] for s in subs)

        queue = list(reversed(bodies))
        lock = threading.Lock()
        answers: Counter[int] = Counter()

        def submit() -> None:
            with httpx.Client(base_url=base, headers=headers, timeout=10) as client:
                while True:
                    with lock:
                        if not queue:
                            return
                        body = queue.pop()
                    deadline = time.monotonic() + 90
                    while True:  # a client retries until the round is stored (a replay answers 200)
                        try:
                            status = client.post("/v1/rounds", content=body).status_code
                        except httpx.TransportError:
                            status = 0
                        answers[status] += 1
                        if status in (200, 201) or time.monotonic() > deadline:
                            break
                        time.sleep(0.1)
                    time.sleep(0.03)  # a table's pace: the submissions outlast the kill

        submitters = [threading.Thread(target=submit) for _ in range(SUBMITTERS)]
        for t in submitters:
            t.start()
        deadline = time.monotonic() + 60
        while sum(len(r.got) for r in receivers) < 20:
            assert time.monotonic() < deadline, "nothing delivered"
            time.sleep(0.01)
        before_kill = [len(r.got) for r in receivers]
        service.send_signal(signal.SIGKILL)  # mid-delivery, mid-submissions
        service.wait()
        server.restart(down_for=1.0)
        service, _ = start_service(tmp_path, env, port)
        restarted_at = time.monotonic()
        for t in submitters:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in submitters)
        assert set(answers) <= {0, 200, 201, 503}, answers

        expected = alerts_in_database(url, start_seq)
        stored_rounds = {rid for rid, _ in expected.values()}
        assert len(stored_rounds) == ROUNDS, "a round was not stored (the client retries until it is)"
        wanted = [
            {a for a, (_, table) in expected.items() if table in picked} for picked in chosen
        ]  # each subscription's alerts
        assert all(wanted) and not wanted[0] & wanted[1]
        deadline = time.monotonic() + 60  # a killed service's lease lapses first (the timeout and 5 s)
        while any(not w <= r.ids() for w, r in zip(wanted, receivers, strict=True)):
            missing = [len(w - r.ids()) for w, r in zip(wanted, receivers, strict=True)]
            assert time.monotonic() < deadline, f"alerts never delivered: {missing}"
            time.sleep(0.1)
        caught_up = time.monotonic() - restarted_at
        time.sleep(1.0)  # anything sent late would show now

        for n, (receiver, want, picked) in enumerate(zip(receivers, wanted, chosen, strict=True)):
            got_ids = [i for i, _, _ in receiver.got]
            assert set(got_ids) == want, (
                f"subscriber {n}: sent to the wrong one: {sorted(set(got_ids) - want)[:5]}"
            )
            for alert_id, hdrs, body in receiver.got:
                assert verify(secret(n + 1), hdrs, body), alert_id
                data = orjson.loads(body)["data"]
                assert data["alert_id"] == alert_id
                assert (data["round_id"], data["table_id"]) == expected[alert_id]
                assert data["table_id"] in picked
            duplicates = len(got_ids) - len(set(got_ids))
            print(
                f"\nsubscriber {n}: {len(want)} alerts, {len(got_ids)} requests "
                f"({before_kill[n]} before the kill), duplicates {duplicates}"
                f" {sorted(c for c in Counter(got_ids).values() if c > 1)}"
            )
        print(
            f"rounds {ROUNDS}, alerts {len(expected)} (to neither: {len(expected) - len(wanted[0]) - len(wanted[1])}), "
            f"answers {dict(answers)}; caught up {caught_up:.1f} s after the restart"
        )
    finally:
        if service.poll() is None:
            service.send_signal(signal.SIGTERM)
            try:
                service.wait(timeout=20)
            except subprocess.TimeoutExpired:
                service.kill()
                service.wait()
