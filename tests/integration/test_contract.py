"""The artifacts beside the code agree with it: the committed OpenAPI document, docker-compose.yml, the settings."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from app.config import Settings, sqlalchemy_url
from app.main import OPENAPI_PATH, create_app

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_openapi_document_matches_the_app() -> None:
    committed = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    assert create_app().openapi() == committed, (
        "openapi/openapi.json is out of date: regenerate it with `python -m app.main openapi` and review the diff"
    )


def test_the_openapi_document_describes_every_route_and_its_errors() -> None:
    doc = create_app().openapi()
    paths = doc["paths"]
    assert {"/v1/rounds", "/v1/rounds/{round_id}", "/v1/audit", "/v1/rules", "/healthz", "/readyz"} <= set(
        paths
    )
    submit = paths["/v1/rounds"]["post"]
    assert submit["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RoundModel"
    }
    assert {"200", "201", "409", "413", "415", "422", "503"} <= set(submit["responses"])
    assert "Retry-After" in submit["responses"]["503"]["headers"]
    assert "Idempotent-Replayed" in submit["responses"]["200"]["headers"]
    for path, ops in paths.items():
        for method, op in ops.items():
            for status, resp in op["responses"].items():
                if status[0] in "45":
                    assert list(resp["content"]) == ["application/problem+json"], (method, path, status)
    assert "RoundModel" in doc["components"]["schemas"]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def _env(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def test_compose_has_postgres_with_a_healthcheck_and_the_app_waits_for_it(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"postgres", "app"} <= set(services)
    assert services["postgres"]["healthcheck"]["test"]
    assert services["app"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    # the app runs migrations then uvicorn (app.main serve)
    dockerfile = services["app"]["build"]["dockerfile_inline"]
    assert "app.main" in dockerfile and "serve" in dockerfile
    for needed in ("app", "migrations", "alembic.ini", "pyproject.toml"):
        assert needed in dockerfile and (ROOT / needed).exists()


def test_compose_environment_names_real_settings(compose: dict[str, Any]) -> None:
    env = _env(compose["services"]["app"])
    fields = {f"BJAUDIT_{name.upper()}" for name in Settings.model_fields}
    for name in env:
        assert name == "DATABASE_URL" or name in fields, f"{name} is not a setting of app/config.py"
    settings = Settings.model_validate(
        {k.removeprefix("BJAUDIT_").lower(): v for k, v in env.items() if k.startswith("BJAUDIT_")}
    )
    assert settings.host == "0.0.0.0"

    # the database URL points at the postgres service with its user, password and database
    pg = _env(compose["services"]["postgres"])
    url = env["DATABASE_URL"]
    assert (
        url
        == f"postgresql://{pg['POSTGRES_USER']}:{pg['POSTGRES_PASSWORD']}@postgres:5432/{pg['POSTGRES_DB']}"
    )
    assert sqlalchemy_url(url).startswith("postgresql+psycopg://")


def test_compose_ports_agree_with_the_settings(compose: dict[str, Any]) -> None:
    env = _env(compose["services"]["app"])
    app_port = int(env["BJAUDIT_PORT"])
    published = [str(p) for p in compose["services"]["app"]["ports"]]
    assert any(re.fullmatch(rf"(?:[\d.]+:)?\d+:{app_port}", p) for p in published), published
    # PostgreSQL is reached on the compose network only: publishing 5432 would collide with a server on the host.
    assert "ports" not in compose["services"]["postgres"]
    assert f"127.0.0.1:{app_port}/readyz" in " ".join(compose["services"]["app"]["healthcheck"]["test"])


def test_compose_restarts_every_service_and_the_workers_share_the_app_database(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    assert {name: s.get("restart") for name, s in services.items()} == {
        "postgres": "unless-stopped",
        "app": "unless-stopped",
        "worker": "unless-stopped",
    }
    assert _env(services["worker"])["DATABASE_URL"] == _env(services["app"])["DATABASE_URL"]
    assert services["worker"]["command"] == ["bjaudit", "worker"]


def test_database_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BJAUDIT_DATABASE_URL", raising=False)
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@db:5432/x")
    assert Settings().database_url == "postgresql://u@db:5432/x"
    monkeypatch.setenv("BJAUDIT_DATABASE_URL", "sqlite:///elsewhere.sqlite3")
    assert Settings().database_url == "sqlite:///elsewhere.sqlite3"
    monkeypatch.delenv("BJAUDIT_DATABASE_URL")
    monkeypatch.delenv("DATABASE_URL")
    assert Settings().database_url == "sqlite:///./var/bjaudit.sqlite3"
    monkeypatch.setenv("BJAUDIT_MAX_BODY_BYTES", "2048")
    assert Settings().max_body_bytes == 2048


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgresql://postgres@127.0.0.1:5432/db", "postgresql+psycopg://postgres@127.0.0.1:5432/db"),
        ("postgres://u:p@h/db", "postgresql+psycopg://u:p@h/db"),
        ("sqlite:///var/x.sqlite3", "sqlite+pysqlite:///var/x.sqlite3"),
        ("sqlite:////abs/x.sqlite3", "sqlite+pysqlite:////abs/x.sqlite3"),
    ],
)
def test_database_urls_are_mapped_to_our_drivers(given: str, used: str) -> None:
    assert sqlalchemy_url(given) == used


def test_an_unsupported_database_url_is_refused() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        sqlalchemy_url("mysql://root@localhost/x")
