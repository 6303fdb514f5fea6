"""API keys and scopes, on SQLite and PostgreSQL: every route declares its scopes and enforces them; a key of one
source can neither write nor read another's rounds, elections or batches; revocation takes effect at once; rate
limits; anonymous development access only on loopback; the quickstart's first key from an empty database."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.api import auth
from app.api.hosts import HostGuard, allowed_hosts
from app.config import Settings
from app.main import StartupError, create_app, first_key
from app.store.migrate import upgrade_head
from tests.keys import ALL, bearer, make_key

JSON = {"Content-Type": "application/json"}
NDJSON = {"Content-Type": "application/x-ndjson"}
PROBLEM = "application/problem+json"
PUBLIC_ROUTES = {("get", "/healthz"), ("get", "/readyz"), ("get", "/v1/rules"), ("get", "/v1/rulesets")}


def _round(round_id: str, wager: int = 1000, table: str = "BJ1") -> bytes:
    doc = {
        "round_id": round_id,
        "jurisdiction": "US-NJ",
        "played_at": "2026-12-01T21:00:00-05:00",
        "table": {"id": table, "rules": {"decks": 6}},
        "seats": [{"seat": 1, "wager": wager}],
        "events": [
            {"type": "deal", "to": "1", "card": "TH"},
            {"type": "deal", "to": "dealer", "card": "9C"},
            {"type": "deal", "to": "1", "card": "8D"},
            {"type": "deal", "to": "dealer", "card": "8S", "face": "down"},
            {"type": "stand", "hand": "1"},
            {"type": "reveal", "to": "dealer", "card": "8S"},
            {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": wager},
        ],
    }
    return json.dumps(doc).encode()


def _problem(resp: Any, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"] == PROBLEM
    body: dict[str, Any] = resp.json()
    assert body["status"] == status
    return body


@pytest.fixture
def anon(app: FastAPI, engine: Engine) -> Any:
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


# --- the scope matrix --------------------------------------------------------------------------------------------


def _operations(app: FastAPI) -> list[tuple[str, str, list[str]]]:
    ops = []
    for path, methods in app.openapi()["paths"].items():
        for method, op in methods.items():
            assert "x-bjaudit-scopes" in op, f"{method.upper()} {path} declares no scopes"
            ops.append((method, path, op["x-bjaudit-scopes"]))
    return ops


def _concrete(path: str) -> str:
    return (
        path.replace("{round_id}", "NO-SUCH-ROUND")
        .replace("{table_id}", "BJ1")
        .replace("{batch_id}", "nosuchbatch")
        .replace("{key_id}", "0123456789abcdef")
        .replace("{shoe_id}", "SHOE-1")
        .replace("{audit_no}", "2")
        .replace("{reaudit_id}", "ra_000000000000000000000000")
        .replace("{sub_id}", "sub_0123456789abcdef")
        .replace("{alert_id}", "default:1:0")
    )


def test_every_route_in_the_openapi_document_declares_its_scopes(app: FastAPI) -> None:
    ops = _operations(app)
    assert len(ops) >= 15
    public = {(m, p) for m, p, scopes in ops if not scopes}
    assert public == PUBLIC_ROUTES
    doc = app.openapi()
    assert doc["components"]["securitySchemes"]["apiKey"]["scheme"] == "bearer"
    for method, path, scopes in ops:
        op = doc["paths"][path][method]
        if scopes:
            assert op["security"] == [{"apiKey": []}]
            assert {"401", "403", "429"} <= set(op["responses"]), (method, path)
            assert set(scopes) <= {"submit", "read", "admin"}


def test_a_route_without_a_declared_scope_stops_the_app_from_being_built() -> None:
    app = FastAPI()

    @app.get("/v1/forgotten")
    async def forgotten() -> dict[str, str]:
        return {}

    with pytest.raises(RuntimeError, match="/v1/forgotten declares no access"):
        auth.declare(app)


def test_every_path_parameter_is_filled_in(app: FastAPI) -> None:
    assert not [p for _, p, _ in _operations(app) if "{" in _concrete(p)]


def test_the_scope_matrix_holds_on_every_route(app: FastAPI, anon: TestClient, database_url: str) -> None:
    for method, path, scopes in _operations(app):
        url = _concrete(path)
        if (
            path == "/v1/findings/stream"
        ):  # an answer that ends (a stream would go on: an alert of another source)
            url += "?after=elsewhere:1:0"
        kwargs: dict[str, Any] = (
            {"content": b"{}", "headers": dict(JSON)} if method in ("post", "put") else {}
        )
        if path == "/v1/batches":
            kwargs = {"content": b"", "headers": dict(NDJSON)}
        if not scopes:
            resp = anon.request(method, url, **kwargs)
            assert resp.status_code < 400, (method, path, resp.text)
            continue
        resp = anon.request(method, url, **kwargs)
        body = _problem(resp, 401)
        assert resp.headers["www-authenticate"].startswith("Bearer"), (method, path)
        assert body["type"] == "urn:bjaudit:problem:unauthenticated"
        others = [s for s in ALL if s not in scopes]
        if others:
            wrong = bearer(database_url, "default", others)
            resp = anon.request(method, url, **{**kwargs, "headers": {**kwargs.get("headers", {}), **wrong}})
            assert _problem(resp, 403)["required_scopes"] == scopes, (method, path)
        for scope in scopes:
            right = bearer(database_url, "default", [scope])
            resp = anon.request(method, url, **{**kwargs, "headers": {**kwargs.get("headers", {}), **right}})
            assert resp.status_code not in (401, 403) and resp.status_code < 500, (method, path, resp.text)


@pytest.mark.parametrize(
    "header",
    [
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer not-a-key",
        "Bearer bja_0123456789abcdef_" + "A" * 43,  # well formed, unknown
        "bja_0123456789abcdef_" + "A" * 43,  # no scheme
    ],
)
def test_anything_but_a_known_key_is_401(anon: TestClient, header: str) -> None:
    resp = anon.get("/v1/rounds", headers={"Authorization": header})
    assert "A valid API key" in _problem(resp, 401)["title"]
    assert header.split(" ", 1)[-1] not in resp.text.replace("Bearer <", "")  # the key is never echoed


def test_a_key_whose_secret_is_wrong_is_401(anon: TestClient, database_url: str) -> None:
    key = make_key(database_url, "default", ALL)
    forged = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    _problem(anon.get("/v1/rounds", headers={"Authorization": f"Bearer {forged}"}), 401)
    assert anon.get("/v1/rounds", headers={"Authorization": f"Bearer {key}"}).status_code == 200


def test_keys_are_stored_only_as_hashes(engine: Engine, database_url: str) -> None:
    key = make_key(database_url, "casino-h", ["read"], fresh=True)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text("SELECT * FROM api_keys")).all()]
    secret = key.rsplit("_", 1)[1]
    assert rows and not any(secret in str(v) or key in str(v) for row in rows for v in row)


# --- one source cannot touch another's -----------------------------------------------------------------------------


def test_a_source_can_neither_read_nor_write_another_sources_rounds(
    anon: TestClient, database_url: str
) -> None:
    a, b = bearer(database_url, "casino-a"), bearer(database_url, "casino-b")
    regulator = bearer(database_url, None, ["read"])
    assert anon.post("/v1/rounds", content=_round("SQ-1"), headers={**JSON, **a}).status_code == 201
    # casino-b reads nothing of casino-a's
    _problem(anon.get("/v1/rounds/SQ-1", headers=b), 404)
    _problem(anon.get("/v1/rounds/SQ-1/record", headers=b), 404)
    assert anon.get("/v1/rounds", headers=b).json()["items"] == []
    assert (
        "reads only source 'casino-b'"
        in _problem(anon.get("/v1/rounds?source=casino-a", headers=b), 403)["detail"]
    )
    _problem(anon.get("/v1/rounds/SQ-1?source=casino-a", headers=b), 403)
    # nor can it pass for casino-a with the old header
    resp = anon.post(
        "/v1/rounds", content=_round("SQ-2"), headers={**JSON, **b, "X-Bjaudit-Source": "casino-a"}
    )
    _problem(resp, 403)
    # squatting: casino-b's record under casino-a's next round_id is casino-b's; casino-a's real one is stored
    assert anon.post("/v1/rounds", content=_round("SQ-3", 5), headers={**JSON, **b}).status_code == 201
    assert anon.post("/v1/rounds", content=_round("SQ-3", 2500), headers={**JSON, **a}).status_code == 201
    mine = anon.get("/v1/rounds/SQ-3", headers=a).json()
    assert (mine["source"], mine["record"]["seats"][0]["wager"]) == ("casino-a", 2500)
    # a regulator's key reads every source, or the one it names
    both = anon.get("/v1/rounds?table=BJ1", headers=regulator).json()["items"]
    assert sorted((i["source"], i["round_id"]) for i in both) == [
        ("casino-a", "SQ-1"),
        ("casino-a", "SQ-3"),
        ("casino-b", "SQ-3"),
    ]
    only_a = anon.get("/v1/rounds?source=casino-a", headers=regulator).json()["items"]
    assert {i["source"] for i in only_a} == {"casino-a"}
    _problem(anon.get("/v1/rounds/SQ-3", headers=regulator), 409)  # two sources' rounds: say which
    assert anon.get("/v1/rounds/SQ-3?source=casino-b", headers=regulator).json()["source"] == "casino-b"
    # and it cannot submit
    _problem(anon.post("/v1/rounds", content=_round("SQ-4"), headers={**JSON, **regulator}), 403)
    # nor name a source with the old header
    old = anon.get("/v1/rounds", headers={**regulator, "X-Bjaudit-Source": "casino-a"})
    assert "names with ?source=" in _problem(old, 403)["detail"]


def test_a_source_cannot_read_or_follow_another_sources_batch(anon: TestClient, database_url: str) -> None:
    a, b = bearer(database_url, "casino-a"), bearer(database_url, "casino-b")
    up = anon.post("/v1/batches", content=_round("BT-1") + b"\n", headers={**NDJSON, **a})
    assert up.status_code in (201, 202), up.text
    batch_id = up.json()["batch_id"]
    assert anon.get(f"/v1/batches/{batch_id}", headers=a).status_code == 200
    _problem(anon.get(f"/v1/batches/{batch_id}", headers=b), 404)
    _problem(anon.get(f"/v1/batches/{batch_id}/results", headers=b), 404)
    regulator = bearer(database_url, None, ["read"])
    assert anon.get(f"/v1/batches/{batch_id}", headers=regulator).status_code == 200


def test_a_source_cannot_read_another_sources_elections(anon: TestClient, database_url: str) -> None:
    a, b = bearer(database_url, "casino-a"), bearer(database_url, "casino-b")
    body = {
        "jurisdiction": "US-NJ",
        "effective_from": "2026-12-01T00:00:00Z",
        "rules": {"dealer_soft_17": "hit"},
        "reason": "rule card",
    }
    assert (
        anon.put("/v1/tables/BJ1/elections", content=json.dumps(body), headers={**JSON, **a}).status_code
        == 201
    )
    assert anon.get("/v1/tables/BJ1/elections", headers=b).json()["items"] == []
    _problem(anon.get("/v1/tables/BJ1/elections?source=casino-a", headers=b), 403)
    _problem(
        anon.put("/v1/tables/BJ1/elections?source=casino-a", content=json.dumps(body), headers={**JSON, **b}),
        403,
    )
    # an operator's admin key for every source acts for the one it names, and must name one
    operator = bearer(database_url, None, ["admin", "read"])
    got = anon.get("/v1/tables/BJ1/elections?source=casino-a", headers=operator).json()["items"]
    assert [i["source"] for i in got] == ["casino-a"]
    later = {**body, "effective_from": "2026-12-05T00:00:00Z"}
    _problem(
        anon.put("/v1/tables/BJ1/elections", content=json.dumps(later), headers={**JSON, **operator}), 403
    )
    resp = anon.put(
        "/v1/tables/BJ1/elections?source=casino-a", content=json.dumps(later), headers={**JSON, **operator}
    )
    assert resp.status_code == 201 and resp.json()["source"] == "casino-a"


# --- managing keys --------------------------------------------------------------------------------------------------


def test_revocation_takes_effect_at_once(anon: TestClient, database_url: str) -> None:
    admin = bearer(database_url, "casino-k", ["admin"])
    made = anon.post(
        "/v1/keys", content=json.dumps({"scopes": ["read"], "label": "auditor"}), headers={**JSON, **admin}
    )
    assert made.status_code == 201, made.text
    info = made.json()
    assert (info["source"], info["scopes"], info["label"]) == ("casino-k", ["read"], "auditor")
    assert info["key"].startswith(f"bja_{info['key_id']}_")
    new = {"Authorization": f"Bearer {info['key']}"}
    assert anon.get("/v1/rounds", headers=new).status_code == 200
    listed = anon.get("/v1/keys", headers=admin).json()["items"]
    assert info["key_id"] in [k["key_id"] for k in listed]
    assert all("key" not in k and k["source"] == "casino-k" for k in listed)
    gone = anon.delete(f"/v1/keys/{info['key_id']}", headers=admin)
    assert gone.status_code == 200 and gone.json()["revoked_at"]
    _problem(anon.get("/v1/rounds", headers=new), 401)
    # revoking again keeps the first time
    assert (
        anon.delete(f"/v1/keys/{info['key_id']}", headers=admin).json()["revoked_at"]
        == gone.json()["revoked_at"]
    )


def test_a_revocation_in_one_process_takes_effect_at_once_in_another(
    database_url: str, engine: Engine
) -> None:
    """Two service processes on one database: once one has revoked a key, the other refuses it on its next request,
    whatever the request (on PostgreSQL a submission takes a key it found in force before without a lookup: its
    statement checks the key, and every other answer looks it up)."""
    key = make_key(database_url, "casino-rv", ["submit", "read"], fresh=True)
    key_id = key.split("_")[1]
    admin = bearer(database_url, "casino-rv", ["admin"])
    settings = Settings(database_url=database_url, embedded_workers=0)
    with (
        TestClient(create_app(settings), raise_server_exceptions=False) as one,
        TestClient(create_app(settings), raise_server_exceptions=False) as other,
    ):
        sends = {"Authorization": f"Bearer {key}", **JSON}
        for n in range(3):  # the first looks the key up, the others may not
            assert one.post("/v1/rounds", content=_round(f"RV-{n}"), headers=sends).status_code == 201
        assert other.delete(f"/v1/keys/{key_id}", headers=admin).status_code == 200
        _problem(one.post("/v1/rounds", content=_round("RV-new"), headers=sends), 401)
        _problem(one.post("/v1/rounds", content=_round("RV-0"), headers=sends), 401)  # a replay
        _problem(one.post("/v1/rounds", content=_round("RV-0", wager=500), headers=sends), 401)  # a conflict
        _problem(one.post("/v1/rounds", content=b'{"round_id": 1}', headers=sends), 401)  # a record refused
        _problem(one.post("/v1/rounds", content=b"x", headers={**sends, "Content-Type": "text/plain"}), 401)
        _problem(
            one.post("/v1/rounds", content=_round("RV-src"), headers={**sends, "X-Bjaudit-Source": "x"}), 401
        )
        _problem(one.get("/v1/rounds/RV-0", headers=sends), 401)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT count(*) FROM rounds WHERE source = 'casino-rv'")).scalar_one()
        chained = conn.execute(
            text("SELECT count(*) FROM chain_entries WHERE source = 'casino-rv'")
        ).scalar_one()
    assert (stored, chained) == (3, 3)


def test_a_wrong_secret_for_a_known_key_id_is_401_and_leaves_the_right_key_known(database_url: str) -> None:
    """A key's id is public (it is in every log line): a wrong secret under it is refused, and does not make the
    process forget the key it found in force (which would put the key back on the lookup path at will)."""
    key = make_key(database_url, "casino-ws", ["submit"], fresh=True)
    prefix, key_id, secret = key.split("_", 2)
    forged = f"{prefix}_{key_id}_{'A' * len(secret)}"
    settings = Settings(database_url=database_url, embedded_workers=0)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        sends = {"Authorization": f"Bearer {key}", **JSON}
        assert client.post("/v1/rounds", content=_round("WS-1"), headers=sends).status_code == 201
        auth = client.app.state.auth  # type: ignore[attr-defined]
        known_before = key_id in auth._known
        _problem(
            client.post(
                "/v1/rounds", content=_round("WS-2"), headers={**sends, "Authorization": f"Bearer {forged}"}
            ),
            401,
        )
        assert (key_id in auth._known) == known_before  # on PostgreSQL True, on SQLite (no known keys) False
        assert client.post("/v1/rounds", content=_round("WS-3"), headers=sends).status_code == 201


def test_an_admin_key_manages_only_its_own_sources_keys(anon: TestClient, database_url: str) -> None:
    admin_a = bearer(database_url, "casino-a", ["admin"])
    other = make_key(database_url, "casino-b", ["read"], fresh=True)
    other_id = other.split("_")[1]
    for body in (
        {"source": "casino-b", "scopes": ["read"], "label": "x"},
        {"all_sources": True, "scopes": ["read"], "label": "x"},
    ):
        _problem(anon.post("/v1/keys", content=json.dumps(body), headers={**JSON, **admin_a}), 403)
    _problem(anon.delete(f"/v1/keys/{other_id}", headers=admin_a), 404)
    assert other_id not in [k["key_id"] for k in anon.get("/v1/keys", headers=admin_a).json()["items"]]
    # a key for every source cannot be given the submit scope
    operator = bearer(database_url, None, ["admin"])
    resp = anon.post(
        "/v1/keys",
        content=json.dumps({"all_sources": True, "scopes": ["submit"], "label": "x"}),
        headers={**JSON, **operator},
    )
    assert _problem(resp, 422)["errors"][0]["pointer"] == "/scopes"
    assert other_id in [k["key_id"] for k in anon.get("/v1/keys", headers=operator).json()["items"]]


# --- rate limits -----------------------------------------------------------------------------------------------------


def test_a_key_over_its_rate_limit_gets_429_with_retry_after(database_url: str, engine: Engine) -> None:
    app = create_app(Settings(database_url=database_url, embedded_workers=0, rate_limit="3/minute"))
    one, two = bearer(database_url, "casino-r1", ["read"]), bearer(database_url, "casino-r2", ["read"])
    with TestClient(app, raise_server_exceptions=False) as c:
        assert [c.get("/v1/rounds", headers=one).status_code for _ in range(3)] == [200, 200, 200]
        over = c.get("/v1/rounds", headers=one)
        body = _problem(over, 429)
        assert 1 <= int(over.headers["retry-after"]) <= 60
        assert body["type"] == "urn:bjaudit:problem:rate-limited" and body["limit"] == "3 per 1 minute"
        assert c.get("/v1/rounds", headers=two).status_code == 200  # per key
        assert c.get("/healthz").status_code == 200  # public routes are not counted


def _redis_up() -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


@pytest.mark.skipif(not _redis_up(), reason="no Redis on 127.0.0.1:6379")
def test_rate_limits_in_redis_are_shared_by_processes(database_url: str, engine: Engine) -> None:
    settings = Settings(
        database_url=database_url,
        embedded_workers=0,
        rate_limit="4/minute",
        rate_limit_storage="redis://127.0.0.1:6379",
    )
    key = bearer(database_url, None, ["read"])
    fresh = make_key(database_url, "casino-redis", ["read"], fresh=True)  # a new key: a count of its own
    key = {"Authorization": f"Bearer {fresh}"}
    with (
        TestClient(create_app(settings), raise_server_exceptions=False) as one,
        TestClient(create_app(settings), raise_server_exceptions=False) as two,
    ):
        codes = [c.get("/v1/rounds", headers=key).status_code for c in (one, two, one, two, one)]
    assert codes == [200, 200, 200, 200, 429]


# --- anonymous development access, and the first key --------------------------------------------------------------


def test_anonymous_access_only_when_enabled_and_only_from_loopback(database_url: str, engine: Engine) -> None:
    dev = create_app(Settings(database_url=database_url, embedded_workers=0, dev_anonymous=True))
    local_url = "http://localhost"  # a development service answers only to the loopback's names
    with TestClient(
        dev, raise_server_exceptions=False, client=("127.0.0.1", 5000), base_url=local_url
    ) as local:
        assert local.post("/v1/rounds", content=_round("DEV-1"), headers=JSON).status_code == 201
        assert local.get("/v1/rounds/DEV-1").json()["source"] == "default"
    with TestClient(
        dev, raise_server_exceptions=False, client=("10.1.2.3", 5000), base_url=local_url
    ) as remote:
        _problem(remote.get("/v1/rounds/DEV-1"), 401)
    off = create_app(Settings(database_url=database_url, embedded_workers=0))
    with TestClient(off, raise_server_exceptions=False, client=("127.0.0.1", 5000)) as local:
        _problem(local.get("/v1/rounds/DEV-1"), 401)


def test_serve_refuses_anonymous_access_on_an_address_that_is_not_loopback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app import main
    from app.config import get_settings

    monkeypatch.setenv("BJAUDIT_DEV_ANONYMOUS", "true")
    get_settings.cache_clear()
    try:
        with pytest.raises(StartupError, match="loopback"):
            main.serve(host="0.0.0.0")
    finally:
        get_settings.cache_clear()


def test_a_dns_rebinding_page_gets_nothing_from_a_development_service(
    database_url: str, engine: Engine
) -> None:
    """Issue 20, P2: with BJAUDIT_DEV_ANONYMOUS, a page of attacker.example pointed at 127.0.0.1 minted an admin key
    (Host: attacker.example). Only the loopback's names are answered; BJAUDIT_ALLOWED_HOSTS names others."""
    dev = create_app(Settings(database_url=database_url, embedded_workers=0, dev_anonymous=True))
    key = {"scopes": ["admin", "read", "submit"], "label": "rebound"}
    with TestClient(dev, raise_server_exceptions=False, client=("127.0.0.1", 5000)) as c:
        for host in ("attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example"):
            r = c.post("/v1/keys", json=key, headers={"Host": host})
            assert r.status_code == 400 and r.json()["type"] == "urn:bjaudit:problem:host-not-allowed", r.text
            assert c.get("/ui", headers={"Host": host}).status_code == 400
        for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000"):
            assert c.get("/v1/keys", headers={"Host": host}).status_code == 200, host
    named = create_app(
        Settings(database_url=database_url, embedded_workers=0, dev_anonymous=True, allowed_hosts="dev.test")
    )
    with TestClient(named, raise_server_exceptions=False, client=("127.0.0.1", 5000)) as c:
        assert c.get("/v1/keys", headers={"Host": "dev.test:8000"}).status_code == 200
        assert c.get("/v1/keys", headers={"Host": "localhost"}).status_code == 400


def test_the_first_start_makes_one_admin_key_readable_only_by_its_user(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    upgrade_head(url)
    key_file = tmp_path / "var" / "admin-key"
    settings = Settings(database_url=url, admin_key_file=str(key_file), embedded_workers=0)
    key = first_key(settings)
    assert key is not None and re.fullmatch(r"bja_[0-9a-f]{16}_[A-Za-z0-9_-]{43}", key)
    assert key_file.read_text().strip() == key
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert first_key(settings) is None  # never a second one
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        c.headers["Authorization"] = f"Bearer {key}"
        assert c.post("/v1/rounds", content=_round("Q-1"), headers=JSON).status_code == 201
        assert c.get("/v1/rounds/Q-1").json()["source"] == "default"
        assert c.get("/v1/keys").json()["items"][0]["scopes"] == ["submit", "read", "admin"]


def test_a_key_file_that_cannot_be_written_stops_the_start_and_makes_no_key(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    upgrade_head(url)
    (tmp_path / "a-file").write_text("not a folder")
    unwritable = tmp_path / "a-file" / "admin-key"  # its folder is a file: no user can write it, root neither
    with pytest.raises(StartupError) as stopped:
        first_key(Settings(database_url=url, admin_key_file=str(unwritable), embedded_workers=0))
    assert "cannot be written" in str(stopped.value) and "was not made" in str(stopped.value)
    written = tmp_path / "admin-key"
    key = first_key(Settings(database_url=url, admin_key_file=str(written), embedded_workers=0))
    assert key is not None and written.read_text().strip() == key  # no key was made before: this is the first


def test_the_first_key_is_never_written_on_the_log_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 20, P5: standard error is the log stream (collectors keep it): it says where the first key is, not the
    key; without a key file and a terminal, the key is shown nowhere, and how to make another is said."""
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    upgrade_head(url)
    key_file = tmp_path / "admin-key"
    key = first_key(Settings(database_url=url, admin_key_file=str(key_file), embedded_workers=0))
    err = capsys.readouterr().err
    assert key is not None and key not in err and str(key_file) in err
    url2 = f"sqlite:///{tmp_path / 'fresh2.sqlite3'}"
    upgrade_head(url2)
    key = first_key(Settings(database_url=url2, admin_key_file="", embedded_workers=0))
    err = capsys.readouterr().err
    assert key is not None and key not in err and "bjaudit keys create" in err


def test_metrics_need_a_read_key_for_every_source(anon: TestClient, database_url: str) -> None:
    _problem(anon.get("/metrics"), 401)
    resp = anon.get("/metrics", headers=bearer(database_url, "casino-m", ["read"]))
    assert "every source" in _problem(resp, 403)["detail"]
    assert anon.get("/metrics", headers=bearer(database_url, None, ["read"])).status_code == 200


def test_an_address_sending_wrong_keys_is_slowed_down(database_url: str, engine: Engine) -> None:
    app = create_app(Settings(database_url=database_url, embedded_workers=0, auth_failure_limit="3/minute"))
    wrong = {"Authorization": "Bearer bja_0123456789abcdef_" + "w" * 43}
    with TestClient(app, raise_server_exceptions=False, client=("10.9.8.7", 1)) as c:
        assert [c.get("/v1/rounds", headers=wrong).status_code for _ in range(3)] == [401, 401, 401]
        over = c.get("/v1/rounds", headers=wrong)
        assert "wrong keys from this address" in _problem(over, 429)["detail"]
        assert int(over.headers["retry-after"]) >= 1
        # a right key from the same address (a shared proxy) is never refused
        assert c.get("/v1/rounds", headers=bearer(database_url, "default", ["read"])).status_code == 200
    with TestClient(app, raise_server_exceptions=False, client=("10.9.8.6", 1)) as other:
        assert other.get("/v1/rounds", headers=bearer(database_url, "default", ["read"])).status_code == 200


def test_a_development_service_answers_to_the_address_it_is_bound_on() -> None:
    """Issue 20, P2: the default list is the loopback's names and the address the service listens on (a development
    service on 127.0.0.2 answers to Host: 127.0.0.2); a rebinding page's name still gets 400."""
    default = HostGuard(_ok, allowed_hosts("", True), own_address=True)
    assert _status(default, b"127.0.0.2:8000", "127.0.0.2") == 200
    assert _status(default, b"localhost:8000", "127.0.0.2") == 200
    assert _status(default, b"[::1]:8000", "::1") == 200
    assert _status(default, b"127.0.0.2:8000", "127.0.0.1") == 400  # not the address it was reached on
    assert _status(default, b"attacker.example:8000", "127.0.0.2") == 400
    named = HostGuard(_ok, allowed_hosts("dev.test", True), own_address=False)  # a list set: its names only
    assert _status(named, b"127.0.0.2:8000", "127.0.0.2") == 400
    assert _status(named, b"dev.test", "127.0.0.2") == 200


def _status(guard: HostGuard, host: bytes, server: str) -> int:
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request", "body": b"", "more_body": False}

    asyncio.run(
        guard({"type": "http", "headers": [(b"host", host)], "server": (server, 8000)}, receive, send)
    )
    return int(sent[0]["status"])


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})
