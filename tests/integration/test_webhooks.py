"""Issue 22: webhooks. A finding of a stored round reaches a subscriber's URL, signed as Standard Webhooks sign,
at least once and in order, filtered, and a receiver that fails is retried then paused, saying why. Against a real
receiver on the loopback (BJAUDIT_WEBHOOKS_ALLOW_PRIVATE=true), on SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.config import Settings
from app.main import create_app
from tests.keys import keyed
from tests.receiver import Receiver, verify

JSON = {"Content-Type": "application/json"}
SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url, embedded_workers=0, webhooks_allow_private=True, webhook_poll_seconds=0.05
    )


@pytest.fixture
def hooked(app: FastAPI, engine: Any, database_url: str) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as c:
        keyed(c, database_url)
        yield c


def renamed(record: bytes, round_id: str) -> bytes:
    doc = json.loads(record)
    doc["round_id"] = round_id
    return json.dumps(doc).encode()


def subscribe(client: TestClient, url: str, **filters: Any) -> dict[str, Any]:
    r = client.post("/v1/subscriptions", json={"url": url, "secret": SECRET, **filters})
    assert r.status_code == 201, r.text
    assert r.headers["location"] == f"/v1/subscriptions/{r.json()['id']}"
    return dict(r.json())


def test_a_finding_is_posted_signed_with_what_the_pit_needs(
    hooked: TestClient, receiver: Receiver, examples: dict[str, bytes]
) -> None:
    sub = subscribe(hooked, receiver.url)
    assert sub["secret"] == SECRET and sub["state"] == "active"
    assert "secret" not in hooked.get(f"/v1/subscriptions/{sub['id']}").json()
    r = hooked.post("/v1/rounds", content=examples["nj-dealer-draws-on-hard-17"], headers=JSON)
    assert r.status_code == 201
    hooked.post(
        "/v1/rounds", content=examples["nj-compliant-double"], headers=JSON
    )  # no finding: nothing sent
    (got,) = receiver.wait(1)
    headers = {k.lower(): v for k, v in got["headers"].items()}
    assert verify(SECRET, headers, got["body"])
    assert abs(int(headers["webhook-timestamp"]) - time.time()) < 60
    event = json.loads(got["body"])
    assert event["type"] == "finding.created"
    data = event["data"]
    assert headers["webhook-id"] == data["alert_id"] and data["alert_id"].startswith("default:")
    finding = r.json()["findings"][0]
    assert (
        data["round_id"] == "EX-NJ-0002"
        and data["table_id"] == json.loads(examples["nj-dealer-draws-on-hard-17"])["table"]["id"]
    )
    assert (data["rule"], data["citation"], data["message"]) == (
        finding["rule"],
        finding["citation"],
        finding["message"],
    )
    assert data["hand"] == "dealer" and data["seat"] is None and data["event"] == 7
    assert "/ui/rounds/EX-NJ-0002?source=default" in data["round_url"]
    time.sleep(0.3)
    assert len(receiver.got) == 1
    deliveries = hooked.get(f"/v1/subscriptions/{sub['id']}/deliveries").json()["items"]
    assert [(d["alert_id"], d["outcome"], d["status"]) for d in deliveries] == [
        (data["alert_id"], "delivered", 204)
    ]
    assert hooked.get(f"/v1/subscriptions/{sub['id']}").json()["delivered"] == 1


def test_findings_stored_before_the_subscription_are_not_sent(
    hooked: TestClient, receiver: Receiver, examples: dict[str, bytes]
) -> None:
    hooked.post("/v1/rounds", content=examples["nj-dealer-draws-on-hard-17"], headers=JSON)
    subscribe(hooked, receiver.url)
    hooked.post("/v1/rounds", content=renamed(examples["nz-insurance-over-half"], "NZ-LATER"), headers=JSON)
    got = receiver.wait(1)
    time.sleep(0.3)
    assert [json.loads(g["body"])["data"]["round_id"] for g in receiver.got] == ["NZ-LATER"] * len(got)
    assert len(receiver.got) == 1


def test_filters_choose_what_is_sent(
    hooked: TestClient, receiver: Receiver, examples: dict[str, bytes]
) -> None:
    nz = json.loads(examples["nz-insurance-over-half"])
    subscribe(hooked, receiver.url, tables=[nz["table"]["id"]])
    hooked.post("/v1/rounds", content=examples["nj-dealer-draws-on-hard-17"], headers=JSON)  # another table
    hooked.post("/v1/rounds", content=examples["nz-insurance-over-half"], headers=JSON)
    receiver.wait(1)
    time.sleep(0.3)
    assert [json.loads(g["body"])["data"]["table_id"] for g in receiver.got] == [nz["table"]["id"]] * len(
        receiver.got
    )
    assert len(receiver.got) >= 1


def test_a_failing_receiver_is_retried_in_order_then_paused_saying_why(
    database_url: str, engine: Any, receiver: Receiver, examples: dict[str, bytes]
) -> None:
    settings = Settings(
        database_url=database_url,
        embedded_workers=0,
        webhooks_allow_private=True,
        webhook_poll_seconds=0.05,
        webhook_max_failures=3,
    )
    receiver.statuses = [500, 204, 204, 503]  # the first attempt fails, then two succeed, then it stays down
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        keyed(c, database_url)
        sub = subscribe(c, receiver.url)
        for n in range(2):
            c.post(
                "/v1/rounds", content=renamed(examples["nj-dealer-draws-on-hard-17"], f"R-{n}"), headers=JSON
            )
        got = receiver.wait(3)
        ids = [g["headers"]["webhook-id"] for g in got[:3]]
        assert (
            ids[0] == ids[1] != ids[2]
        )  # the failed one again (same id: de-duplicable), then the next, in order
        assert [json.loads(g["body"])["data"]["round_id"] for g in got[1:3]] == ["R-0", "R-1"]
        c.post("/v1/rounds", content=renamed(examples["nj-dealer-draws-on-hard-17"], "R-2"), headers=JSON)
        deadline = time.monotonic() + 30
        while (state := c.get(f"/v1/subscriptions/{sub['id']}").json())[
            "state"
        ] != "paused" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert state["state"] == "paused", state
        assert (
            "3 deliveries in a row failed" in state["paused_reason"] and "HTTP 503" in state["paused_reason"]
        )
        assert "/resume" in state["paused_reason"]
        outcomes = [d["outcome"] for d in c.get(f"/v1/subscriptions/{sub['id']}/deliveries").json()["items"]]
        assert outcomes.count("failed") == 4 and outcomes.count("delivered") == 2
        receiver.statuses = [204]
        assert c.post(f"/v1/subscriptions/{sub['id']}/resume").json()["state"] == "active"
        receiver.wait(len(got) + 1)
        time.sleep(0.2)
        assert json.loads(receiver.got[-1]["body"])["data"]["round_id"] == "R-2"


def test_a_round_stored_while_a_webhook_is_in_flight_is_sent_next_without_waiting_for_the_poll(
    database_url: str, engine: Any, receiver: Receiver, examples: dict[str, bytes]
) -> None:
    """Its wake comes during the deliverer's pass: the next pass starts at once (the wake was once cleared at the end
    of the pass, and the round waited for the poll)."""
    settings = Settings(
        database_url=database_url, embedded_workers=0, webhooks_allow_private=True, webhook_poll_seconds=60
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        keyed(c, database_url)
        subscribe(c, receiver.url)
        receiver.release.clear()
        first = renamed(examples["nj-dealer-draws-on-hard-17"], "IN-FLIGHT")
        assert c.post("/v1/rounds", content=first, headers=JSON).status_code == 201
        assert receiver.arrived.wait(20)  # its webhook is being delivered, held by the receiver
        second = renamed(examples["nj-dealer-draws-on-hard-17"], "STORED-MEANWHILE")
        assert c.post("/v1/rounds", content=second, headers=JSON).status_code == 201
        receiver.release.set()
        got = receiver.wait(2)
        assert [json.loads(g["body"])["data"]["round_id"] for g in got] == ["IN-FLIGHT", "STORED-MEANWHILE"]


def test_a_deliverers_hold_on_a_subscription_lapses_one_timeout_after_its_last_delivery(
    database_url: str, engine: Any, receiver: Receiver, examples: dict[str, bytes]
) -> None:
    """A deliverer killed mid-pass (SIGKILL, or its database restarted under it) leaves its lease: another process,
    or itself, takes the subscription over once a POST's timeout (and a margin) has passed, not a minute later."""
    from app.store import alerts as repo
    from app.store.db import Database
    from app.usecases import alerts as alert_cases
    from app.usecases import rounds as round_cases
    from app.usecases.keys import Principal

    settings = Settings(
        database_url=database_url, embedded_workers=0, webhooks_allow_private=True, webhook_timeout_seconds=2
    )
    db = Database(engine)
    admin = Principal("k1", "test", "default", frozenset({"admin"}))
    with db.session() as session:
        new = alert_cases.NewSubscription(receiver.url, SECRET, None, None, None, None)
        sub = alert_cases.create_subscription(session, admin, None, new, allow_private=True)["id"]
    with (
        db.session() as session
    ):  # an alert for it: a deliverer takes only a subscription with something to send
        round_cases.submit_round(session, examples["nj-dealer-draws-on-hard-17"], "default")
    killed = alert_cases.Deliverer(db, settings)
    assert killed._take(sub) is not None  # taken, and never released
    with db.session() as session:
        now = datetime.now(UTC)
        assert repo.lease(session, sub, now, now) is None  # held
        later = now + timedelta(seconds=settings.webhook_timeout_seconds + 10)
        assert repo.lease(session, sub, later, later) is not None  # lapsed: taken over


def test_a_loopback_url_is_refused_unless_allowed(database_url: str, engine: Any) -> None:
    with TestClient(create_app(Settings(database_url=database_url, embedded_workers=0))) as client:
        keyed(client, database_url)
        refused(client)


def refused(client: TestClient) -> None:
    r = client.post("/v1/subscriptions", json={"url": "http://127.0.0.1:9/hook"})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"] == "/url" and "loopback" in r.json()["detail"]
    for bad in (
        {"url": "ftp://example.com/"},
        {"url": "http://example.com/", "secret": "nope"},
        {"url": "http://example.com/", "min_amount": 0},
        {"url": "http://example.com", "extra": 1},
        {"url": "http://[::1/hook"},  # not a URL: each is a 422 naming /url, not a 500
        {"url": "http://example.com:99999/hook"},
        {"url": "http://example.com:port/hook"},
    ):
        assert client.post("/v1/subscriptions", json=bad).status_code == 422, bad


def test_subscriptions_are_an_admins_and_their_sources(
    hooked: TestClient, receiver: Receiver, database_url: str
) -> None:
    from tests.keys import as_source

    sub = subscribe(hooked, receiver.url)
    other = as_source(hooked, "casino-b")
    assert hooked.get(f"/v1/subscriptions/{sub['id']}", headers=other).status_code == 404
    assert hooked.get("/v1/subscriptions", headers=other).json()["items"] == []
    reader = as_source(hooked, "default", ("read",))
    assert hooked.get("/v1/subscriptions", headers=reader).status_code == 403
    assert hooked.delete(f"/v1/subscriptions/{sub['id']}").status_code == 204
    assert hooked.get(f"/v1/subscriptions/{sub['id']}").status_code == 404
    assert hooked.delete(f"/v1/subscriptions/{sub['id']}").status_code == 404


def test_an_alert_is_acknowledged_once_attributed(hooked: TestClient, examples: dict[str, bytes]) -> None:
    hooked.post("/v1/rounds", content=examples["nj-dealer-draws-on-hard-17"], headers=JSON)
    alert_id = "default:1:0"
    got = hooked.get(f"/v1/alerts/{alert_id}")
    assert got.status_code == 200, got.text
    assert got.json()["round_id"] == "EX-NJ-0002" and got.json()["acknowledgement"] is None
    first = hooked.post(
        f"/v1/alerts/{alert_id}/acknowledgement", json={"note": "paid the player at the table"}
    )
    assert first.status_code == 201, first.text
    assert (
        first.json()["acknowledged_by"].startswith("key ")
        and first.json()["note"] == "paid the player at the table"
    )
    again = hooked.post(f"/v1/alerts/{alert_id}/acknowledgement", json={})
    assert again.status_code == 200 and again.json() == first.json()
    assert hooked.get(f"/v1/alerts/{alert_id}").json()["acknowledgement"] == first.json()
    assert hooked.get("/v1/alerts/default:1:5").status_code == 404
    assert hooked.get("/v1/alerts/default:2:0").status_code == 404


def test_a_read_passes_the_entries_committed_after_it_found_its_range(
    hooked: TestClient, engine: Any, examples: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of alerts finds the end of its range of entries, then the rounds with findings in it: two statements,
    each with its own snapshot. A round committed between them is among the rows though not within the end found:
    the position must pass it, or the stream's next read sends its alerts again (bench-alerts saw 3,715 events for
    3,272 alerts)."""
    from app.store import alerts as repo
    from app.store.db import Database
    from app.usecases import alerts as alert_cases

    for n in range(2):
        r = hooked.post(
            "/v1/rounds", content=renamed(examples["nj-dealer-draws-on-hard-17"], f"R-{n}"), headers=JSON
        )
        assert r.status_code == 201
    real = repo.entries_with_findings

    def raced(session: Any, source: str, first: int, last: int) -> Any:
        reached, rows = real(session, source, first, last)
        return reached - 1, rows  # the last entry was committed between the two statements

    monkeypatch.setattr(repo, "entries_with_findings", raced)
    everything = alert_cases.Filters()
    with Database(engine).session() as session:
        alerts, position, _ = alert_cases.next_alerts(
            session, "default", (0, alert_cases.WHOLE_ENTRY), everything
        )
        assert [a.round_id for a in alerts] == ["R-0", "R-1"]
        again, _, _ = alert_cases.next_alerts(session, "default", position, everything)
        assert [a.round_id for a in again] == []


def test_a_look_with_nothing_to_send_writes_nothing(
    database_url: str, engine: Any, receiver: Receiver, examples: dict[str, bytes]
) -> None:
    """The outbox's cost (issue 22): a subscription whose new entries hold no alert for it is not leased, and its
    cursor moves only every CURSOR_STRIDE entries."""
    from app.store.db import Database
    from app.usecases import alerts as alert_cases
    from app.usecases import rounds as round_cases
    from app.usecases.keys import Principal

    db = Database(engine)
    admin = Principal("k1", "test", "default", frozenset({"admin"}))
    with db.session() as session:
        new = alert_cases.NewSubscription(receiver.url, SECRET, None, None, ["NO-SUCH-TABLE"], None)
        sub = alert_cases.create_subscription(session, admin, None, new, allow_private=True)["id"]
    with db.session() as session:
        round_cases.submit_round(session, examples["nj-dealer-draws-on-hard-17"], "default")
    settings = Settings(database_url=database_url, embedded_workers=0, webhooks_allow_private=True)
    deliverer = alert_cases.Deliverer(db, settings)

    def state() -> tuple[Any, ...]:
        with engine.connect() as conn:
            return tuple(
                conn.execute(
                    text("SELECT cursor_seq, cursor_index, lease_until FROM subscriptions WHERE id = :i"),
                    {"i": sub},
                ).one()
            )

    before = state()
    assert deliverer._take(sub) is None and state() == before  # not leased, the cursor where it was
    assert before[2] is None


def test_a_url_that_is_no_url_is_refused_naming_it_even_where_private_addresses_are_allowed(
    hooked: TestClient,
) -> None:
    for url in ("http://[::1/hook", "http://127.0.0.1:99999/hook", "http://127.0.0.1:port/hook"):
        r = hooked.post("/v1/subscriptions", json={"url": url})
        assert r.status_code == 422, (url, r.text)
        assert r.json()["errors"][0]["pointer"] == "/url" and "not a URL" in r.json()["detail"], r.json()


def test_ids_past_the_database_integers_are_answered_not_crashed(hooked: TestClient) -> None:
    assert hooked.get("/v1/alerts/default:9999999999999999999:0").status_code == 404
    assert hooked.post("/v1/alerts/default:9999999999999999999:0/acknowledgement", json={}).status_code == 404
    sub = subscribe(hooked, "http://127.0.0.1:9/hook")
    r = hooked.get(f"/v1/subscriptions/{sub['id']}/deliveries?before={2**64}")
    assert r.status_code == 422 and "before" in r.text
