"""Issue 22: the live stream, ``GET /v1/findings/stream`` (Server-Sent Events), against a real ``bjaudit serve``
(tests/live_service.py): only what only a real server shows (a long answer through the protocol's deadlines and the
middleware, a client that goes, a server that stops) is tested there, on SQLite and PostgreSQL. What the issue asks:
each matching finding as an event (``id:`` the alert id, ``event: finding``, ``data:`` the alert), from the head
(only new findings) or after ``Last-Event-ID``, filtered as webhooks are, found at once when stored by this process
and within the poll interval when stored by another, heartbeats, one source per stream."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api import streams
from app.usecases import alerts as alert_cases
from tests.keys import make_key
from tests.live_service import live_key, live_service

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
WITH_FINDING = "nj-dealer-draws-on-hard-17"
COMPLIANT = "nj-compliant-double"


def example(name: str, round_id: str, table: str | None = None) -> bytes:
    doc = json.loads((EXAMPLES / f"{name}.round.json").read_text())
    doc["round_id"] = round_id
    if table is not None:
        doc["table"]["id"] = table
    return json.dumps(doc).encode()


class Stream:
    """An SSE client in a thread: its events (dicts of the fields, ``data`` parsed) and comments in a queue."""

    def __init__(
        self,
        base: str,
        key: str | None,
        params: Any = None,
        last_event_id: str | None = None,
        path: str = "/v1/findings/stream",
    ) -> None:
        self.items: queue.Queue[dict[str, Any]] = queue.Queue()
        self.status: int | None = None
        self.socket: socket.socket | None = None
        self.headers: httpx.Headers | None = None
        self.ended = threading.Event()
        self.client = httpx.Client(timeout=httpx.Timeout(5, read=60))
        headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(base + path, params, headers), daemon=True)
        self.thread.start()
        assert self.started.wait(10), "the stream did not answer"

    def _run(self, url: str, params: Any, headers: dict[str, str]) -> None:
        try:
            with self.client.stream("GET", url, params=params, headers=headers) as answer:
                self.status, self.headers = answer.status_code, answer.headers
                self.socket = answer.extensions["network_stream"].get_extra_info("socket")
                self.started.set()
                fields: dict[str, Any] = {}
                for line in answer.iter_lines():
                    if line.startswith(":"):
                        self.items.put({"comment": line[1:].strip()})
                    elif line == "":
                        if fields:
                            fields["data"] = json.loads(fields["data"]) if "data" in fields else None
                            self.items.put(fields)
                        fields = {}
                    else:
                        name, _, value = line.partition(":")
                        fields[name] = value.removeprefix(" ")
        except httpx.HTTPError:
            pass
        finally:
            self.started.set()
            self.ended.set()

    def next_event(self, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            item = self.items.get(timeout=max(0.01, deadline - time.monotonic()))
            if "id" in item:
                return item

    def quiet(self, seconds: float) -> list[dict[str, Any]]:
        """The events that arrive within ``seconds`` (comments left out)."""
        time.sleep(seconds)
        got = []
        while not self.items.empty():
            item = self.items.get()
            if "id" in item:
                got.append(item)
        return got

    def close(self) -> None:
        """Hang up, as a client that goes away does (the reading thread wakes at once)."""
        if self.socket is not None and not self.ended.is_set():
            with contextlib.suppress(OSError):
                self.socket.shutdown(socket.SHUT_RDWR)
        self.thread.join(10)
        assert not self.thread.is_alive()
        self.client.close()


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    workdir = tmp_path_factory.mktemp(f"stream-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite:///{workdir / 'live.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_database")("stream")
    with live_service(workdir, {"DATABASE_URL": url, "BJAUDIT_WEBHOOK_POLL_SECONDS": "0.2"}) as (base, _):
        yield {"base": base, "key": live_key(workdir), "url": url, "workdir": workdir}


_n = 0


def fresh(tag: str) -> str:
    global _n
    _n += 1
    return f"ST-{tag}-{time.time_ns() % 10**9}-{_n}"


def submit(served: dict[str, Any], record: bytes) -> dict[str, Any]:
    r = httpx.post(
        served["base"] + "/v1/rounds",
        content=record,
        headers={"Authorization": f"Bearer {served['key']}", "Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text
    return dict(r.json())


@pytest.fixture
def opened() -> Iterator[list[Stream]]:
    streams_opened: list[Stream] = []
    yield streams_opened
    for s in streams_opened:
        s.close()


def test_a_new_finding_is_an_event_and_the_stream_starts_at_the_head(
    served: dict[str, Any], opened: list[Stream]
) -> None:
    before = fresh("before")
    submit(served, example(WITH_FINDING, before))  # stored before the stream opened: not news
    s = Stream(served["base"], served["key"])
    opened.append(s)
    assert s.status == 200 and s.headers is not None
    assert s.headers["content-type"].startswith("text/event-stream")
    assert s.headers["cache-control"] == "no-store"
    rid = fresh("new")
    submit(served, example(COMPLIANT, fresh("quiet")))  # no finding: no event
    answer = submit(served, example(WITH_FINDING, rid))
    got = s.next_event()
    assert got["event"] == "finding"
    assert got["data"]["round_id"] == rid and got["id"] == got["data"]["alert_id"]
    assert got["data"]["rule"] == answer["findings"][0]["rule"]
    alert = httpx.get(
        f"{served['base']}/v1/alerts/{got['id']}", headers={"Authorization": f"Bearer {served['key']}"}
    ).json()
    assert {k: v for k, v in alert.items() if k != "acknowledgement"} == got["data"]
    assert s.quiet(0.5) == []  # the round before the stream, and the compliant one, never came


def test_last_event_id_resumes_after_it_and_after_does_too(
    served: dict[str, Any], opened: list[Stream]
) -> None:
    s = Stream(served["base"], served["key"])
    opened.append(s)
    first, second, third = fresh("a"), fresh("b"), fresh("c")
    for rid in (first, second, third):
        submit(served, example(WITH_FINDING, rid))
    got = [s.next_event() for _ in range(3)]
    assert [e["data"]["round_id"] for e in got] == [first, second, third]
    s.close()
    again = Stream(served["base"], served["key"], last_event_id=got[0]["id"])
    opened.append(again)
    assert [again.next_event()["id"] for _ in range(2)] == [got[1]["id"], got[2]["id"]]
    query = Stream(served["base"], served["key"], params={"after": got[1]["id"]})
    opened.append(query)
    assert query.next_event()["id"] == got[2]["id"]
    assert again.quiet(0.3) == [] and query.quiet(0.1) == []


def test_filters_as_the_subscriptions(served: dict[str, Any], opened: list[Stream]) -> None:
    s = Stream(served["base"], served["key"], params=[("tables", "BJ-PIT-2"), ("tables", "BJ-PIT-3")])
    opened.append(s)
    by_amount = Stream(served["base"], served["key"], params={"min_amount": 10**9})
    opened.append(by_amount)
    other, wanted = fresh("other"), fresh("wanted")
    submit(served, example(WITH_FINDING, other, table="BJ-PIT-1"))
    submit(served, example(WITH_FINDING, wanted, table="BJ-PIT-3"))
    got = s.next_event()
    assert got["data"]["round_id"] == wanted and got["data"]["table_id"] == "BJ-PIT-3"
    assert s.quiet(0.3) == []
    assert by_amount.quiet(0.2) == []  # no finding owes that much


def test_one_source_per_stream(served: dict[str, Any]) -> None:
    every = make_key(served["url"], None, ("read",), label="every")
    r = httpx.get(served["base"] + "/v1/findings/stream", headers={"Authorization": f"Bearer {every}"})
    assert r.status_code == 422 and "source" in r.json()["detail"]
    r = httpx.get(
        served["base"] + "/v1/findings/stream",
        params={"source": "other"},
        headers={"Authorization": f"Bearer {served['key']}"},
    )
    assert r.status_code == 403
    r = httpx.get(
        served["base"] + "/v1/findings/stream",
        params={"after": "other:1:0"},
        headers={"Authorization": f"Bearer {served['key']}"},
    )
    assert r.status_code == 422
    submitter = make_key(served["url"], "default", ("submit",), label="submitter")
    r = httpx.get(served["base"] + "/v1/findings/stream", headers={"Authorization": f"Bearer {submitter}"})
    assert r.status_code == 403


def test_a_key_of_every_source_streams_the_source_it_names(
    served: dict[str, Any], opened: list[Stream]
) -> None:
    every = make_key(served["url"], None, ("read",), label="every")
    s = Stream(served["base"], every, params={"source": "default"})
    opened.append(s)
    rid = fresh("every")
    submit(served, example(WITH_FINDING, rid))
    assert s.next_event()["data"]["round_id"] == rid


def test_findings_stored_by_another_process_arrive_within_the_poll(
    served: dict[str, Any], opened: list[Stream], tmp_path: Path
) -> None:
    s = Stream(served["base"], served["key"])
    opened.append(s)
    with live_service(tmp_path, {"DATABASE_URL": served["url"]}) as (other, _):
        rid = fresh("other-process")
        record = example(WITH_FINDING, rid)
        r = httpx.post(
            other + "/v1/rounds",
            content=record,
            headers={"Authorization": f"Bearer {served['key']}", "Content-Type": "application/json"},
        )
        assert r.status_code == 201
        assert s.next_event(timeout=5)["data"]["round_id"] == rid


def test_the_stream_ends_cleanly_when_the_service_stops(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'stop.sqlite3'}"
    with live_service(tmp_path, {"DATABASE_URL": url}) as (base, _):
        s = Stream(base, live_key(tmp_path))
        assert s.items.get(timeout=5)  # the first comment: the answer is open
        started = time.monotonic()
    # live_service sent SIGTERM and waited for the process: the open stream did not hold the shutdown (uvicorn
    # waits for every answer in progress), and the client saw its answer end.
    assert time.monotonic() - started < 10
    assert s.ended.wait(5)
    s.close()


def test_heartbeats_keep_a_quiet_stream_open() -> None:
    """A comment every ``heartbeat`` seconds of silence; between them, a look every ``poll`` seconds (no
    connection held: each look is one read)."""
    import asyncio

    looks: list[tuple[int, int]] = []

    class Reads:
        async def read(self, fn: Any, *args: Any) -> Any:
            assert fn is alert_cases.next_alerts
            looks.append(args[1])
            return [], args[1], False

    async def first(n: int) -> list[bytes | list[Any]]:
        out: list[bytes | list[Any]] = []
        gen = streams.follow(Reads(), "s", (7, 2), alert_cases.Filters(), poll=0.01, lasts=60, heartbeat=0.05)  # type: ignore[arg-type]
        async for item in gen:
            out.append(item)
            if len(out) == n:
                break
        await gen.aclose()
        return out

    got = asyncio.run(first(3))
    assert got[0].startswith(b": alerts of s\nretry: ")  # type: ignore[union-attr]
    assert got[1:] == [b": keep-alive\n\n", b": keep-alive\n\n"]
    assert len(looks) >= 5 and set(looks) == {(7, 2)}


def test_an_answer_ends_after_its_longest_and_the_client_resumes_with_the_last_id(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'max.sqlite3'}"
    with live_service(tmp_path, {"DATABASE_URL": url, "BJAUDIT_STREAM_MAX_SECONDS": "1"}) as (base, _):
        key = live_key(tmp_path)
        served = {"base": base, "key": key}
        s = Stream(base, key)
        submit(served, example(WITH_FINDING, fresh("max")))
        got = s.next_event()
        assert s.ended.wait(5)  # ended by the service after 1 s
        s.close()
        later = fresh("later")
        submit(served, example(WITH_FINDING, later))
        again = Stream(base, key, last_event_id=got["id"])
        assert again.next_event()["data"]["round_id"] == later
        again.close()


def _open_streams(served: dict[str, Any]) -> float:
    every = make_key(served["url"], None, ("read",), label="prometheus")
    text = httpx.get(served["base"] + "/metrics", headers={"Authorization": f"Bearer {every}"}).text
    (line,) = [x for x in text.splitlines() if x.startswith("bjaudit_streams_open ")]
    return float(line.split()[1])


def test_a_client_that_goes_ends_its_stream_on_the_server(served: dict[str, Any]) -> None:
    before = _open_streams(served)
    s = Stream(served["base"], served["key"])
    assert s.items.get(timeout=5)
    assert _open_streams(served) == before + 1
    s.close()
    deadline = time.monotonic() + 5
    while _open_streams(served) != before:
        assert time.monotonic() < deadline, "the stream went on after its client left"
        time.sleep(0.05)


def test_the_pit_pages_stream_goes_on_from_where_the_page_was_read(tmp_path: Path) -> None:
    """A finding stored between the page's answer and its script's connection is not missed: the page names the
    chain's head it was read at (BJAUDIT_DEV_ANONYMOUS: no login from this machine)."""
    url = f"sqlite:///{tmp_path / 'pit.sqlite3'}"
    with live_service(tmp_path, {"DATABASE_URL": url, "BJAUDIT_DEV_ANONYMOUS": "true"}) as (base, _):
        served = {"base": base, "key": live_key(tmp_path)}
        submit(served, example(WITH_FINDING, fresh("before"), table="BJ-P"))
        page = httpx.get(base + "/ui/live", params={"table": "BJ-P"}).text
        stream_path = page.split('data-stream="')[1].split('"')[0].replace("&amp;", "&")
        assert "head=1" in stream_path
        between = fresh("between")
        submit(served, example(WITH_FINDING, between, table="BJ-P"))  # before the script connects
        s = Stream(base, None, path=stream_path)
        got = s.next_event()
        assert got["event"] == "finding" and got["data"]["id"] == got["id"]
        assert f'data-round-id="{between}"' in got["data"]["html"]
        assert s.quiet(0.3) == []
        s.close()


def test_a_database_that_does_not_answer_ends_the_answer_cleanly() -> None:
    """The client reconnects (``retry:``) rather than reading a cut connection and a traceback in the log."""
    import asyncio

    class Away:
        async def read(self, fn: Any, *args: Any) -> Any:
            raise ConnectionError("the database is away")

    async def everything() -> list[bytes | list[Any]]:
        gen = streams.follow(Away(), "s", (1, 0), alert_cases.Filters(), poll=0.01, lasts=60)  # type: ignore[arg-type]
        return [item async for item in gen]

    (first,) = asyncio.run(everything())
    assert first.startswith(b": alerts of s")  # type: ignore[union-attr]


def test_a_wake_while_a_stream_reads_is_not_lost() -> None:
    """A round stored in this process while a stream is between two looks wakes it all the same: its next wait
    returns at once, not after the poll interval."""
    import asyncio

    async def scenario() -> tuple[bool, bool, float]:
        hub = alert_cases.Broadcast()
        seen = hub.generation  # noted before a read
        hub.wake()  # a round stored during the read (no one waiting yet)
        started = time.monotonic()
        woken = await hub.wait(30, seen)
        quiet = await hub.wait(0.01, hub.generation)  # nothing since: times out
        return woken, quiet, time.monotonic() - started

    woken, quiet, seconds = asyncio.run(scenario())
    assert woken and not quiet and seconds < 5
