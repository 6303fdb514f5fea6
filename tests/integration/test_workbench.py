"""The auditor's workbench (/ui) on SQLite and PostgreSQL: the login session and its cookie, CSRF, who sees what, and
each page with real rounds (the hand-written examples, generated rounds): the cards drawn as the record deals them,
each finding inside its event, the search's filters and cursor, the rule catalogue, the report and its CSV (the
API's, byte for byte), a batch's progress and lines; errors as pages; everything escaped. Pages are read with an
HTML parser (tests/html_tree.py)."""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.api import workbench as workbench_routes
from app.config import Settings
from app.main import create_app
from app.synth.generator import generate_round
from app.synth.mutator import mutate
from app.usecases import keys as key_cases
from app.workbench import session as sessions
from app.workbench import views
from tests.html_tree import Element, parse
from tests.keys import make_key

JSON = {"Content-Type": "application/json"}


@dataclass
class Bench:
    client: TestClient
    database_url: str
    settings: Settings

    def key(
        self, source: str | None = "default", scopes: tuple[str, ...] = ("submit", "read", "admin")
    ) -> str:
        return make_key(self.database_url, source, scopes)

    def submit(self, body: bytes | dict[str, Any], source: str = "default") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        r = self.client.post(
            "/v1/rounds", content=data, headers={**JSON, "Authorization": f"Bearer {self.key(source)}"}
        )
        assert r.status_code == 201, r.text

    def login(self, key: str, next_path: str = "/ui", **headers: str) -> Any:
        """Log in afresh (any session before is dropped) with ``key``."""
        self.client.cookies.clear()
        form = parse(self.client.get("/ui/login", params={"next": next_path}).text)
        csrf = form.one("form", id="login-form").one("input", attrs={"name": "csrf"}).get("value")
        return self.client.post(
            "/ui/login", data={"key": key, "csrf": csrf, "next": next_path}, headers=headers or None
        )

    def page(self, path: str, status: int = 200, **params: str) -> Element:
        r = self.client.get(path, params=params or None)
        assert r.status_code == status, (r.status_code, r.text[:2000])
        assert r.headers["content-type"].startswith("text/html")
        return parse(r.text)


def _settings(database_url: str, tmp: Any, **extra: Any) -> Settings:
    return Settings(
        database_url=database_url,
        embedded_workers=0,
        batch_runner="inline",
        session_key_file=str(tmp / "session-key"),
        **extra,
    )


@pytest.fixture
def bench(database_url: str, engine: Engine, tmp_path: Any) -> Iterator[Bench]:
    settings = _settings(database_url, tmp_path)
    with TestClient(create_app(settings), raise_server_exceptions=False, follow_redirects=False) as c:
        yield Bench(c, database_url, settings)


@pytest.fixture
def logged_in(bench: Bench) -> Bench:
    assert bench.login(bench.key()).status_code == 303
    return bench


def _cookie(response: Any, name: str) -> SimpleCookie:
    for header in response.headers.get_list("set-cookie"):
        jar: SimpleCookie = SimpleCookie()
        jar.load(header)
        if name in jar:
            return jar
    raise AssertionError(f"no Set-Cookie {name}: {response.headers.get_list('set-cookie')}")


# --- access --------------------------------------------------------------------------------------------------


def test_without_a_session_every_page_sends_to_the_login_with_where_it_was(bench: Bench) -> None:
    for path in (
        "/ui",
        "/ui/rounds/R-1?source=default",
        "/ui/rules",
        "/ui/reports",
        "/ui/batches/x",
        "/ui/nope",
    ):
        r = bench.client.get(path)
        assert r.status_code == 303, path
        assert r.headers["location"].startswith("/ui/login?next=")
    assert bench.client.get("/ui/rounds/R-1?source=default").headers["location"] == (
        "/ui/login?next=%2Fui%2Frounds%2FR-1%3Fsource%3Ddefault"
    )
    login = bench.page("/ui/login")
    assert login.one("input", attrs={"name": "key"}) and login.one("button", id="login")


def test_a_good_key_logs_in_with_a_strict_http_only_cookie_of_the_ui_path(bench: Bench) -> None:
    r = bench.login(bench.key(), "/ui/rules")
    assert r.status_code == 303 and r.headers["location"] == "/ui/rules"
    morsel = _cookie(r, sessions.SESSION_COOKIE)[sessions.SESSION_COOKIE]
    assert morsel["httponly"] is True
    assert morsel["samesite"].lower() == "strict"
    assert morsel["path"] == "/ui"
    assert not morsel["secure"]  # plain http here; https below
    assert int(morsel["max-age"]) == 8 * 3600
    key_id = key_cases.key_id_of(bench.key())
    assert morsel.value.split(".")[0] == key_id
    nav = bench.page("/ui").one("nav", id="nav")
    assert "test · default" in nav.one(id="who").text
    assert nav.one("form", id="logout-form").one("input", attrs={"name": "csrf"}).get("value")


def test_over_https_the_session_cookie_is_secure(database_url: str, engine: Engine, tmp_path: Any) -> None:
    app = create_app(_settings(database_url, tmp_path))
    with TestClient(app, base_url="https://testserver", follow_redirects=False) as c:
        b = Bench(c, database_url, app.state.settings)
        r = b.login(b.key())
        assert r.status_code == 303
        assert _cookie(r, sessions.SESSION_COOKIE)[sessions.SESSION_COOKIE]["secure"] is True


def test_a_wrong_key_gets_the_form_again_401_and_counts_against_the_failure_limit(
    database_url: str, engine: Engine, tmp_path: Any
) -> None:
    app = create_app(_settings(database_url, tmp_path, auth_failure_limit="2/minute"))
    with TestClient(app, follow_redirects=False) as c:
        b = Bench(c, database_url, app.state.settings)
        wrong = "bja_0123456789abcdef_" + "A" * 43
        for attempt in ("not a key", wrong):
            r = b.login(attempt)
            assert r.status_code == 401
            assert "unknown, revoked or mistyped" in parse(r.text).one(id="login-error").text
            assert sessions.SESSION_COOKIE not in r.headers.get("set-cookie", "")
        r = b.login(wrong)
        assert r.status_code == 429
        assert r.headers["content-type"].startswith("text/html") and "Retry-After" in r.headers


def test_a_key_without_the_read_scope_cannot_log_in(bench: Bench) -> None:
    r = bench.login(bench.key("default", ("submit",)))
    assert r.status_code == 403
    assert "read scope" in parse(r.text).one(id="login-error").text
    assert sessions.SESSION_COOKIE not in r.headers.get("set-cookie", "")
    assert bench.client.get("/ui").status_code == 303


def test_a_tampered_expired_or_revoked_session_goes_back_to_the_login(bench: Bench, engine: Engine) -> None:
    key = make_key(bench.database_url, "default", ("read",), "to revoke", fresh=True)
    assert bench.login(key).status_code == 303
    good = bench.client.cookies[sessions.SESSION_COOKIE]
    assert bench.client.get("/ui").status_code == 200
    key_id, issued, expires, nonce, signature = good.split(".")
    secret = sessions.load_secret(None, bench.settings.session_key_file)
    other_key_id = key_cases.key_id_of(bench.key())
    now = int(time.time())
    _, expired = sessions.issue(secret, str(key_id), now - 9 * 3600, 9 * 3600 - 60)
    _, long_ago = sessions.issue(secret, str(key_id), now - 10 * 3600, 20 * 3600)  # past the 8 h lifetime
    forged = [
        f"{other_key_id}.{issued}.{expires}.{nonce}.{signature}",  # another key, the same signature
        f"{key_id}.{issued}.{int(expires) + 3600}.{nonce}.{signature}",  # extended
        f"{key_id}.{issued}.{expires}.{nonce}.{signature[:-2]}AA",
        expired,
        long_ago,
        "garbage",
    ]
    for value in forged:
        bench.client.cookies.clear()
        bench.client.cookies.set(sessions.SESSION_COOKIE, value)
        assert bench.client.get("/ui").status_code == 303, value
    bench.client.cookies.clear()
    bench.client.cookies.set(sessions.SESSION_COOKIE, good)
    assert bench.client.get("/ui").status_code == 200
    with Session(engine) as s:
        key_cases.revoke_key(s, str(key_id))
        s.commit()
    assert bench.client.get("/ui").status_code == 303


def test_forms_without_the_right_csrf_token_or_from_another_origin_are_refused(bench: Bench) -> None:
    key = bench.key()
    form = parse(bench.client.get("/ui/login").text)
    token = form.one("input", attrs={"name": "csrf"}).get("value")
    assert token
    forged = ("y" if token[0] == "x" else "x") + token[
        1:
    ]  # one character changed (a token starting with x stayed whole)
    for data in ({"key": key}, {"key": key, "csrf": forged}):
        r = bench.client.post("/ui/login", data=data)
        assert r.status_code == 403 and "security token" in r.text
    r = bench.client.post(
        "/ui/login", data={"key": key, "csrf": token}, headers={"Origin": "https://evil.example"}
    )
    assert r.status_code == 403
    bench.client.cookies.delete(sessions.CSRF_COOKIE, path="/ui")  # the double-submit cookie is gone
    assert bench.client.post("/ui/login", data={"key": key, "csrf": token}).status_code == 403
    assert bench.client.get("/ui").status_code == 303  # none of these logged in

    assert bench.login(key, Origin="http://testserver").status_code == 303
    csrf = bench.page("/ui").one("form", id="logout-form").one("input", attrs={"name": "csrf"}).get("value")
    assert bench.client.post("/ui/logout", data={"csrf": "wrong"}).status_code == 403
    assert bench.client.post("/ui/logout", data={}).status_code == 403
    assert bench.client.post("/ui/logout", data={"csrf": csrf}, headers={"Origin": "null"}).status_code == 403
    assert bench.client.get("/ui").status_code == 200
    r = bench.client.post("/ui/logout", data={"csrf": csrf})
    assert r.status_code == 303 and r.headers["location"] == "/ui/login"
    assert _cookie(r, sessions.SESSION_COOKIE)[sessions.SESSION_COOKIE]["max-age"] == "0"
    assert bench.client.get("/ui").status_code == 303


@pytest.mark.parametrize(
    "next_path",
    [
        "https://evil.example/ui",
        "//evil.example/ui",
        "/\\evil.example",
        "/v1/keys",
        "/ui/../v1/keys",
        "/ui/%2e%2e/v1/keys",
        "/ui/%2E%2E/v1/keys",
    ],
)
def test_the_page_after_login_is_never_another_site(bench: Bench, next_path: str) -> None:
    r = bench.login(bench.key(), next_path)
    assert r.status_code == 303 and r.headers["location"] == "/ui"


def test_a_key_of_one_source_sees_only_its_rounds(bench: Bench, examples: dict[str, bytes]) -> None:
    bench.submit(examples["nj-double-then-dealer-blackjack"], source="casino-a")
    assert bench.login(bench.key("casino-b", ("read",))).status_code == 303
    page = bench.page("/ui/rounds/EX-NJ-0003", 404)
    assert page.one(id="error").get("data-status") == "404"
    bench.page("/ui/rounds/EX-NJ-0003", 403, source="casino-a")
    assert bench.page("/ui").maybe(attrs={"data-round-id": "EX-NJ-0003"}) is None
    assert bench.client.get("/ui/rounds/EX-NJ-0003/record").status_code == 404

    assert bench.login(bench.key(None, ("read",))).status_code == 303  # a regulator's key: every source
    assert bench.page("/ui/rounds/EX-NJ-0003").one("article", id="round").get("data-round-id") == "EX-NJ-0003"
    bench.submit(examples["nj-double-then-dealer-blackjack"], source="casino-c")
    listed = bench.page("/ui/rounds/EX-NJ-0003", 409).one("ul", id="candidates").all("a", cls="round-link")
    assert sorted(a.get("href") or "" for a in listed) == [
        "/ui/rounds/EX-NJ-0003?source=casino-a&jurisdiction=US-NJ",
        "/ui/rounds/EX-NJ-0003?source=casino-c&jurisdiction=US-NJ",
    ]
    bench.page("/ui/rounds/EX-NJ-0003", source="casino-c")


def test_development_anonymous_access_works_from_loopback_only(
    database_url: str, engine: Engine, tmp_path: Any
) -> None:
    app = create_app(_settings(database_url, tmp_path, dev_anonymous=True))
    local = "http://localhost"  # a development service answers only to the loopback's names
    with TestClient(app, client=("127.0.0.1", 50000), follow_redirects=False, base_url=local) as c:
        r = c.get("/ui")
        assert r.status_code == 200
        assert "anonymous" in parse(r.text).one(id="who").text
    with TestClient(app, follow_redirects=False, base_url=local) as c:  # "testclient": not a loopback address
        assert c.get("/ui").status_code == 303


def test_the_pages_are_html_with_a_strict_policy_and_not_in_the_openapi_document(logged_in: Bench) -> None:
    r = logged_in.client.get("/ui")
    csp = r.headers["content-security-policy"]
    for part in ("default-src 'none'", "style-src 'self'", "img-src 'self' data:", "form-action 'self'"):
        assert part in csp
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert r.headers["cache-control"] == "no-store"
    # Not "no-referrer": under it browsers send the page's own form posts with `Origin: null`, which the Origin
    # check refuses as another site's (every login failed in Chromium; tests/browser).
    assert r.headers["referrer-policy"] == "same-origin"
    css = logged_in.client.get("/ui/static/workbench.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert "@media print" in css.text
    paths = logged_in.client.get("/openapi.json").json()["paths"]
    assert not [p for p in paths if p.startswith("/ui")]


# --- search --------------------------------------------------------------------------------------------------


def _generated(n: int, seed: int = 5, mutated_every: int = 3) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rnd = generate_round(rng, "US-NJ" if i % 2 else "NZ", round_id=f"WB-{seed}-{i:04d}")
        if i % mutated_every == 0:
            done = mutate(rnd, rng)
            if done is not None:
                rnd = done[0]
        out.append(rnd)
    return out


def _rows(doc: Element) -> list[str]:
    table = doc.maybe("table", id="results")
    return (
        []
        if table is None
        else [tr.get("data-round-id") or "" for tr in table.all("tr", attrs={"data-round-id": None})]
    )


def test_search_pages_through_every_round_with_the_api_cursor(logged_in: Bench) -> None:
    rounds = _generated(60)
    for rnd in rounds:
        logged_in.submit(rnd)
    first = logged_in.page("/ui")
    assert len(_rows(first)) == 50
    for tr in first.one("table", id="results").all("tr", attrs={"data-round-id": None}):
        link = tr.one("a", cls="round-link")
        assert link.get(
            "href",
        ).startswith(f"/ui/rounds/{tr.get('data-round-id')}?source=default&jurisdiction=")  # type: ignore[union-attr]
    href = first.one("a", id="next-page").get("href") or ""
    second = parse(logged_in.client.get(href).text)
    assert len(_rows(second)) == 10 and second.maybe(id="next-page") is None
    assert sorted(_rows(first) + _rows(second)) == sorted(r["round_id"] for r in rounds)

    violations = _rows(logged_in.page("/ui", verdict="violations", jurisdiction="US-NJ"))
    api = logged_in.client.get(
        "/v1/rounds",
        params={"verdict": "violations", "jurisdiction": "US-NJ", "limit": 500},
        headers={"Authorization": f"Bearer {logged_in.key()}"},
    ).json()["items"]
    assert violations == [i["round_id"] for i in api] and violations


def test_search_filters_read_as_the_api_reads_them(logged_in: Bench, examples: dict[str, bytes]) -> None:
    logged_in.submit(
        examples["nj-double-then-dealer-blackjack"]
    )  # played 2026-11-30T22:15-05:00: Dec 1 in UTC
    logged_in.submit(examples["nj-compliant-double"])
    assert _rows(logged_in.page("/ui", rule="N.J.A.C. 19:47-2.10(b)")) == ["EX-NJ-0003"]
    assert _rows(logged_in.page("/ui", table="BJ07", **{"from": "2026-12-01", "to": "2026-12-02"})) == [
        "EX-NJ-0003"
    ]
    assert _rows(logged_in.page("/ui", table="BJ07", **{"from": "2026-11-30", "to": "2026-12-01"})) == []
    played = logged_in.page("/ui", rule="19:47-2.10(b)").one("tr", attrs={"data-round-id": "EX-NJ-0003"})
    assert "2026-11-30 22:15:00 (UTC-05:00)" in played.text  # the table's own time
    empty = logged_in.page("/ui", round_id="", table="", verdict="")  # an empty form: no filter
    assert sorted(_rows(empty)) == ["EX-NJ-0001", "EX-NJ-0003"]
    r = logged_in.client.get("/ui", params={"round_id": "EX-NJ-0003"})
    assert r.status_code == 303 and r.headers["location"] == "/ui/rounds/EX-NJ-0003"


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"from": "yesterday"}, "?from= must be a date"),
        ({"rule": "13:69F-9.99"}, "names no rule we hold"),
        ({"verdict": "guilty"}, "?verdict= is one of"),
        (
            {"jurisdiction": "XX"},
            "?jurisdiction= is one of",
        ),  # (as GET /v1/rounds refuses it; not "no round")
        ({"table_id": "BJ07"}, "did you mean 'table'"),
        ({"cursor": "not-a-cursor"}, "not one this service issued"),
    ],
)
def test_a_bad_filter_is_a_message_on_the_page(logged_in: Bench, params: dict[str, str], says: str) -> None:
    doc = logged_in.page("/ui", 422, **params)
    assert says in doc.one(id="search-error").text
    assert doc.one("form", id="search")


def test_a_line_number_that_is_not_ascii_digits_is_a_422_page_not_a_500(logged_in: Bench) -> None:
    r = logged_in.client.get("/ui/batches/nosuchbatch", params={"after": "\u00b2"})  # "²".isdigit() is True
    assert r.status_code == 422, (r.status_code, r.text[:500])
    assert "?after= is a line number" in parse(r.text).text


# --- the round page ------------------------------------------------------------------------------------------


def _dealt(record: dict[str, Any]) -> Counter[str]:
    return Counter(e["card"] for e in record["events"] if e["type"] == "deal")


def test_the_round_page_draws_the_cards_and_shows_the_finding_at_its_event(
    logged_in: Bench, examples: dict[str, bytes]
) -> None:
    body = examples["nj-double-then-dealer-blackjack"]
    logged_in.submit(body)
    doc = logged_in.page("/ui/rounds/EX-NJ-0003")
    table = doc.one("section", id="table-view")
    record = json.loads(body)
    assert Counter(c.get("data-card") for c in table.all(cls="card")) == _dealt(record)
    dealer = table.one(cls="hand", attrs={"data-hand": "dealer"})
    assert [c.get("data-card") for c in dealer.all(cls="card")] == ["AS", "KD"]
    assert not [c for c in dealer.all(cls="card") if "down" in c.classes]  # the hole card was turned up
    seat = table.one(cls="hand", attrs={"data-hand": "1.1"})
    assert [c.get("data-card") for c in seat.all(cls="card")] == ["5H", "6C", "9D"]
    assert "20" in seat.one(cls="total").text and "$50.00 collected" in seat.one(cls="outcome").text

    events = doc.one("ol", id="timeline").all("li", cls="event")
    assert [e.get("data-event-index") for e in events] == [str(i) for i in range(len(record["events"]))]
    with_findings = [e for e in events if e.all(cls="finding")]
    assert [e.get("data-event-index") for e in with_findings] == ["7"]
    finding = with_findings[0].one(cls="finding")
    assert finding.get("data-rule") == "19:47-2.10(b)"
    assert "N.J.A.C. 19:47-2.10(b)" in finding.one(cls="citation").text
    assert finding.one(cls="status").text == "verified"
    assert finding.one(cls="title").text == "Dealer blackjack after a double down"
    assert finding.one(cls="paraphrase").text
    assert finding.one(cls="expected").text == "$25.00 collected from the player"
    assert finding.one(cls="actual").text == "$50.00 collected from the player"
    assert finding.one(cls="amount").text == "$25.00 owed to the player"
    assert "Settled the main wager of seat 1" in events[7].text and "$50.00 collected" in events[7].text
    assert "face down" in events[3].text
    assert not doc.one("section", id="absences").all(cls="finding")

    href = finding.one("a", cls="rule-link").get("href") or ""
    path, _, anchor = href.partition("#")
    assert path == "/ui/rules?jurisdiction=US-NJ"
    row = logged_in.page(path).one("tr", id=anchor)
    assert "rule" in row.classes and row.get("data-rule") == "19:47-2.10(b)"

    summary = doc.one("dl", id="summary").text
    assert "2026-11-30 22:15:00 (UTC-05:00)" in summary and "US-NJ 13:69F as of 2024-09-16" in summary
    assert doc.one(id="elections-source").get("data-source") == "record"
    assert doc.one(id="record-sha256").text == hashlib.sha256(body).hexdigest()
    raw = logged_in.client.get(doc.one("a", id="record-link").get("href") or "")
    assert (
        raw.status_code == 200 and raw.content == body and raw.headers["content-type"] == "application/json"
    )
    assert doc.one("section", id="audits").all("li", cls="audit")


def test_generated_rounds_are_drawn_card_for_card(logged_in: Bench) -> None:
    rounds = _generated(24, seed=9)
    for rnd in rounds:
        logged_in.submit(rnd)
    for rnd in rounds:
        doc = logged_in.page(f"/ui/rounds/{rnd['round_id']}")
        table = doc.one("section", id="table-view")
        hands = [c.get("data-card") for h in table.all(cls="hand") for c in h.all(cls="card")]
        assert Counter(hands) == _dealt(rnd)
        burned = [c.get("data-card") for b in table.all(cls="burn") for c in b.all(cls="card")]
        assert burned == [
            e["card"] for e in rnd["events"] if e["type"] == "burn"
        ]  # apart, in the order burned
        findings = logged_in.client.get(
            f"/v1/rounds/{rnd['round_id']}", headers={"Authorization": f"Bearer {logged_in.key()}"}
        ).json()["audit"]["findings"]
        shown = {
            (f.get("data-rule"), int(li.get("data-event-index") or -1))
            for li in doc.one("ol", id="timeline").all("li", cls="event")
            for f in li.all(cls="finding")
        }
        absent = {(f.get("data-rule"), None) for f in doc.one("section", id="absences").all(cls="finding")}
        assert shown | absent == {(f["rule"], f["event"]) for f in findings}


def test_a_finding_of_an_absence_is_shown_at_the_end(logged_in: Bench, examples: dict[str, bytes]) -> None:
    doc = json.loads(examples["nj-compliant-double"])
    doc["events"] = doc["events"][:-1]  # the hand is never settled
    logged_in.submit(doc)
    page = logged_in.page("/ui/rounds/EX-NJ-0001")
    absent = page.one("section", id="absences").all(cls="finding")
    assert [f.get("data-rule") for f in absent] == ["uncited:missing-settlement"]
    assert not page.one("ol", id="timeline").all(cls="finding")


def test_the_round_page_compares_a_what_if_audit_never_stored(
    logged_in: Bench, examples: dict[str, bytes], rows: Any
) -> None:
    logged_in.submit(examples["nj-double-then-dealer-blackjack"])
    form = logged_in.page("/ui/rounds/EX-NJ-0003").one("form", id="compare")
    options = [o.get("value") for o in form.all("option")]
    assert options == ["US-NJ 13:69F as of 2024-09-16"]
    doc = logged_in.page("/ui/rounds/EX-NJ-0003", compare="US-NJ@2024-09-16")
    label = doc.one(id="compare-summary")
    assert label.get("data-in-force") == "true"
    li = doc.one("li", attrs={"data-event-index": "7"})
    assert [f.get("data-rule") for f in li.all(cls="whatif-finding")] == ["19:47-2.10(b)"]
    assert [f.get("data-rule") for f in li.all(cls="finding")] == ["19:47-2.10(b)"]
    wrong = logged_in.page("/ui/rounds/EX-NJ-0003", compare="NZ@1994-10-31")
    assert (
        "a what-if audits a round under a ruleset of its own jurisdiction"
        in wrong.one(id="compare-error").text
    )
    assert (
        "No ruleset is named"
        in logged_in.page("/ui/rounds/EX-NJ-0003", compare="nope").one(id="compare-error").text
    )
    assert rows("rounds") == 1


def test_unknown_rounds_and_pages_are_html_pages_and_everything_is_escaped(logged_in: Bench) -> None:
    rnd = _generated(1, seed=3, mutated_every=99)[0]
    rnd["table"]["id"] = "<script>alert(1)</script>"
    rnd["dealer_id"] = '"><img src=x onerror=alert(2)>'
    logged_in.submit(rnd)
    for doc in (
        logged_in.page("/ui", table="<script>alert(1)</script>"),
        logged_in.page(f"/ui/rounds/{rnd['round_id']}"),
    ):
        assert not doc.all("script") and not doc.all("img")
        assert "<script>alert(1)</script>" in doc.one("main").text
    page = logged_in.page(f"/ui/rounds/{rnd['round_id']}")
    assert page.one(id="table-id").text == "<script>alert(1)</script>"

    for path in ("/ui/rounds/%3Cscript%3Ealert(3)%3C%2Fscript%3E", "/ui/rounds/NO-SUCH-ROUND"):
        r = logged_in.client.get(path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
        assert not parse(r.text).all("script")
    assert (
        "<script>alert(3)</script>"
        in parse(logged_in.client.get("/ui/rounds/%3Cscript%3Ealert(3)%3C%2Fscript%3E").text)
        .one(id="error")
        .text
    )
    logged_in.page("/ui/batches/no-such-batch", 404)
    logged_in.page("/ui/no/such/page", 404)
    assert logged_in.client.get("/ui/").headers["location"] == "/ui"
    logged_in.page("/ui/rounds/X", 422, verdit="x")


def test_the_stylesheet_route_keeps_no_memory_of_names_it_refuses(logged_in: Bench) -> None:
    from app.api import workbench

    before = workbench._static_file.cache_info().currsize
    for n in range(50):
        assert logged_in.client.get(f"/ui/static/nothing-{n}.png").status_code == 404
    assert workbench._static_file.cache_info().currsize == before
    assert logged_in.client.get("/ui/static/workbench.css").status_code == 200


def test_a_database_that_cannot_be_used_is_a_503_page_as_the_api_says_it(
    logged_in: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every error the API answers 503 (app.api.problems.database_problem) is a 503 page, not a 500: psycopg's
    InterfaceError (a connection closed under the hot path) among them."""
    import psycopg

    from app.api import deps

    async def closed(*_: Any) -> bytes:
        raise psycopg.InterfaceError("the connection is closed")

    monkeypatch.setattr(deps.SingleRounds, "lookup", closed)
    r = logged_in.client.get("/ui/rounds/ANY-ROUND")
    assert r.status_code == 503, (r.status_code, r.text[:300])
    assert r.headers["retry-after"] and "The database is unavailable" in parse(r.text).text


def test_a_page_that_ran_too_long_in_the_database_says_so_not_that_the_database_is_unavailable(
    logged_in: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: a page past the database deadline, or one whose statement the database stopped, said "The database is
    unavailable"; it says what the API's problem says."""
    import psycopg

    from app.api import deps
    from app.store.db import DatabaseTimeout

    for exc, said in [
        (
            DatabaseTimeout("the database did not answer within 10 s"),
            "This request was stopped: the database did",
        ),
        (
            psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
            "The database is up: it stopped this request's statement",
        ),
    ]:

        async def too_long(*_: Any, exc: Exception = exc) -> bytes:
            raise exc

        monkeypatch.setattr(deps.SingleRounds, "lookup", too_long)
        r = logged_in.client.get("/ui/rounds/ANY-ROUND")
        assert r.status_code == 503, (r.status_code, r.text[:300])
        text = parse(r.text).text
        assert r.headers["retry-after"] and "The request took too long in the database" in text, text
        assert said in text and "unavailable" not in text, text


# --- rules, reports, batches ---------------------------------------------------------------------------------


def test_the_rule_catalogue_counts_findings_in_the_range_and_links_to_the_search(
    logged_in: Bench, examples: dict[str, bytes]
) -> None:
    logged_in.submit(examples["nj-double-then-dealer-blackjack"])
    doc = logged_in.page("/ui/rules", jurisdiction="US-NJ", **{"from": "2026-11-01", "to": "2027-01-01"})
    rows = doc.one("table", id="rules").all("tr", cls="rule")
    api = logged_in.client.get("/v1/rules", params={"jurisdiction": "US-NJ"}).json()["rules"]
    assert [r.get("data-rule") for r in rows] == [r["rule"] for r in api]
    assert len({r.get("id") for r in rows}) == len(rows)
    fired = {r.get("data-rule"): r.one(cls="fired-link") for r in rows}
    assert fired["19:47-2.10(b)"].text == "1" and fired["13:69F-2.12(b)1"].text == "0"
    found = parse(logged_in.client.get(fired["19:47-2.10(b)"].get("href") or "").text)
    assert _rows(found) == ["EX-NJ-0003"]
    default = logged_in.page("/ui/rules").one("form", id="rules-filter")  # the last 30 days, today included
    shown = (default.one("input", id="from").get("value"), default.one("input", id="to").get("value"))
    assert shown == views.default_range(views.utc_today())
    logged_in.page("/ui/rules", 422, jurisdiction="XX")


def test_the_report_page_adds_up_as_the_api_does_and_its_csv_is_the_apis(logged_in: Bench) -> None:
    rounds = _generated(30, seed=21)
    for rnd in rounds:
        logged_in.submit(rnd)
    query = {"from": "1994-01-01", "to": "2028-01-01", "group_by": "table"}
    api = logged_in.client.get(
        "/v1/reports/summary", params=query, headers={"Authorization": f"Bearer {logged_in.key()}"}
    ).json()
    doc = logged_in.page("/ui/reports", **query)
    totals = doc.one("tr", id="totals")
    for column in ("rounds", "rounds_with_findings", "findings"):
        assert totals.one("td", attrs={"data-column": column}).text == str(api["totals"][column])
    assert [g.get("data-key") for g in doc.one("table", id="summary").all("tr", cls="group")] == [
        g["key"] for g in api["groups"]
    ]
    csv_href = doc.one("a", id="download-csv").get("href") or ""
    mine = logged_in.client.get(csv_href)
    theirs = logged_in.client.get(
        "/v1/reports/summary",
        params={**query, "format": "csv"},
        headers={"Authorization": f"Bearer {logged_in.key()}"},
    )
    assert mine.status_code == 200 and mine.content == theirs.content
    assert mine.headers["content-disposition"] == theirs.headers["content-disposition"]
    assert mine.headers["content-disposition"].startswith("attachment;")

    days = logged_in.page("/ui/reports", **{"from": "2026-11-29", "to": "2026-12-03", "group_by": "day"})
    chart = days.one("svg", id="findings-per-day")
    assert [b.get("data-day") for b in chart.all("rect", cls="bar")] == [
        "2026-11-29",
        "2026-11-30",
        "2026-12-01",
        "2026-12-02",
    ]
    assert chart.all("text", cls="x-label") and chart.all("text", cls="y-label")
    logged_in.page("/ui/reports", 422, group_by="colour")
    logged_in.page("/ui/reports", 422, **{"from": "soon"})
    logged_in.page("/ui/reports", 422, group_by="table", cursor="not-a-cursor")


def test_the_report_page_shows_its_groups_a_page_at_a_time(
    logged_in: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    for rnd in _generated(30, seed=21):
        logged_in.submit(rnd)
    query = {"from": "1994-01-01", "to": "2028-01-01", "group_by": "table"}
    api = logged_in.client.get(
        "/v1/reports/summary", params=query, headers={"Authorization": f"Bearer {logged_in.key()}"}
    ).json()
    assert len(api["groups"]) >= 3
    monkeypatch.setattr(workbench_routes, "REPORT_GROUPS", 2)
    doc = logged_in.page("/ui/reports", **query)
    keys: list[str | None] = []
    for _ in range(len(api["groups"])):
        keys += [g.get("data-key") for g in doc.one("table", id="summary").all("tr", cls="group")]
        assert doc.one("tr", id="totals").one("td", attrs={"data-column": "rounds"}).text == str(
            api["totals"]["rounds"]
        )
        assert "cursor" not in (doc.one("a", id="download-csv").get("href") or "")  # the CSV: every group
        links = doc.all("a", id="next-page")
        if not links:
            break
        resp = logged_in.client.get(links[0].get("href") or "")
        assert resp.status_code == 200, resp.text
        doc = parse(resp.text)
    assert keys == [g["key"] for g in api["groups"]]


def test_the_batch_page_shows_progress_and_pages_through_the_lines(logged_in: Bench) -> None:
    rounds = _generated(205, seed=13, mutated_every=4)
    lines = [json.dumps(r).encode() for r in rounds] + [b'{"not": "a round"}']
    r = logged_in.client.post(
        "/v1/batches",
        content=b"\n".join(lines) + b"\n",
        headers={"Content-Type": "application/x-ndjson", "Authorization": f"Bearer {logged_in.key()}"},
    )
    assert r.status_code == 202, r.text
    batch_id = r.json()["batch_id"]
    deadline = time.monotonic() + 60
    while True:
        doc = logged_in.page(f"/ui/batches/{batch_id}")
        state = doc.one("section", id="progress").get("data-state")
        refresh = doc.maybe("meta", attrs={"http-equiv": "refresh"})
        if state == "done":
            assert refresh is None
            break
        assert refresh is not None and refresh.get("content") == "2"
        assert time.monotonic() < deadline, state
        time.sleep(0.2)
    progress = doc.one("progress", id="progress-bar")
    assert progress.get("value") == progress.get("max") == "206"
    first = doc.one("table", id="outcomes").all("tr", attrs={"data-line": None})
    assert [int(tr.get("data-line") or 0) for tr in first] == list(range(1, 201))
    link = first[0].one("a", cls="round-link")
    assert link.get("href") == f"/ui/rounds/{rounds[0]['round_id']}?source=default"
    assert logged_in.client.get(link.get("href") or "").status_code == 200
    rest = parse(logged_in.client.get(doc.one("a", id="next-page").get("href") or "").text)
    lines_after = [
        int(tr.get("data-line") or 0)
        for tr in rest.one("table", id="outcomes").all("tr", attrs={"data-line": None})
    ]
    assert lines_after == list(range(201, 207)) and rest.maybe(id="next-page") is None
    rejected = logged_in.page(f"/ui/batches/{batch_id}", only="rejected").one("table", id="outcomes")
    assert [tr.get("data-line") for tr in rejected.all("tr", attrs={"data-line": None})] == ["206"]
    with_findings = logged_in.page(f"/ui/batches/{batch_id}", only="findings").one("table", id="outcomes")
    assert {tr.get("data-outcome") for tr in with_findings.all("tr", attrs={"data-line": None})} <= {
        "violations",
        "unreplayable",
    }
    listed = logged_in.page("/ui/batches").one("table", id="batches")
    assert listed.one("tr", attrs={"data-batch-id": batch_id})
    logged_in.page(f"/ui/batches/{batch_id}", 422, only="everything")


def test_the_round_page_gives_the_evidence_packet_that_checks_offline(logged_in: Bench) -> None:
    """Issue 20: the round's page links its evidence packet (GET /v1/rounds/{id}/evidence), a file that checks."""
    from app.evidence import packet

    rnd = generate_round(random.Random(20), "US-NJ")
    logged_in.submit(rnd)
    doc = logged_in.page(f"/ui/rounds/{rnd['round_id']}")
    href = doc.one("a", id="evidence-link").get("href") or ""
    answer = logged_in.client.get(href)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-disposition"] == f'attachment; filename="evidence-{rnd["round_id"]}.json"'
    problems, _ = packet.check(answer.json())
    assert problems == []
    assert answer.json()["round_id"] == rnd["round_id"]


def test_bidi_and_control_characters_in_ids_are_shown_written_out(logged_in: Bench) -> None:
    """Issue 20, P7: a table, dealer or shoe ID with U+202E (which reads what follows backwards) reached the pages
    raw; each is now shown as ‹U+202E›, on the round's page and in the search."""
    rnd = generate_round(random.Random(21), "US-NJ")
    rnd["table"]["id"] = "BJ\u202e21"
    rnd["dealer_id"] = "D\u2066-7\u0007"
    rnd["shoe_id"] = "S\u200f1"
    logged_in.submit(rnd)
    pages = [
        logged_in.client.get(f"/ui/rounds/{rnd['round_id']}").text,
        logged_in.client.get("/ui", params={"table": "BJ\u202e21"}).text,
    ]
    for html in pages:
        for raw in ("\u202e", "\u2066", "\u0007", "\u200f"):
            assert raw not in html
    assert "BJ‹U+202E›21" in pages[0] and "D‹U+2066›-7‹U+0007›" in pages[0] and "S‹U+200F›1" in pages[0]
    assert "BJ‹U+202E›21" in pages[1]


def test_a_copy_of_the_session_cookie_is_refused_after_logout(bench: Bench) -> None:
    """Issue 20, P4: the cookie is signed, not stored; logout cleared it in the browser only, and a copy kept working
    for up to 8 hours. The session now ends on the server; another session of the same key goes on."""
    key = bench.key()
    assert bench.login(key).status_code == 303
    copied = bench.client.cookies.get(sessions.SESSION_COOKIE)
    assert copied
    assert bench.login(key).status_code == 303  # a second session of the same key, elsewhere
    other = bench.client.cookies.get(sessions.SESSION_COOKIE)
    bench.client.cookies.clear()
    bench.client.cookies.set(sessions.SESSION_COOKIE, copied, path="/ui")
    csrf = bench.page("/ui").one("form", id="logout-form").one("input", attrs={"name": "csrf"}).get("value")
    assert bench.client.post("/ui/logout", data={"csrf": csrf}).status_code == 303
    for cookie, works in ((copied, False), (other, True)):
        bench.client.cookies.clear()
        bench.client.cookies.set(sessions.SESSION_COOKIE, cookie or "", path="/ui")
        assert bench.client.get("/ui").status_code == (200 if works else 303)
