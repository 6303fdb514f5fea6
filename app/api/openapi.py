"""The OpenAPI document: FastAPI's, plus the round schema (the request body is read raw, not as a parameter), the
problem media type on every error answer, and the headers the routes send."""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from app.api.auth import PUBLIC
from app.api.problems import PROBLEM_JSON
from app.wire.elections import ElectionsRegistration
from app.wire.schema import RoundModel

_HEADERS: dict[tuple[str, str, str], dict[str, Any]] = {
    ("/v1/rounds", "post", "200"): {
        "Idempotent-Replayed": {
            "description": "Always `true`: this answer is the stored one.",
            "schema": {"type": "string"},
        },
        "Location": {"description": "The stored round.", "schema": {"type": "string"}},
    },
    ("/v1/rounds", "post", "201"): {
        "Location": {"description": "The stored round.", "schema": {"type": "string"}}
    },
}
_REGISTERED = {
    "Location": {"description": "The table's registrations.", "schema": {"type": "string"}},
}
_HEADERS[("/v1/tables/{table_id}/elections", "put", "201")] = _REGISTERED
_HEADERS[("/v1/tables/{table_id}/elections", "put", "200")] = {
    "Idempotent-Replayed": {
        "description": "Always `true`: these elections were registered before.",
        "schema": {"type": "string"},
    },
    **_REGISTERED,
}
_RETRY_AFTER = {
    "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}
}


def build(app: FastAPI) -> dict[str, Any]:
    doc = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
    )
    schemas: dict[str, Any] = doc.setdefault("components", {}).setdefault("schemas", {})
    for model in (RoundModel, ElectionsRegistration):
        body_schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, sub in body_schema.pop("$defs", {}).items():
            if name in schemas and schemas[name] != sub:
                raise RuntimeError(f"OpenAPI schema name clash: {name}")
            schemas[name] = sub
        schemas[model.__name__] = body_schema

    doc["components"]["securitySchemes"] = {
        "apiKey": {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key, `bja_<key_id>_<secret>` (`bjaudit keys create`; `bjaudit serve` prints the "
            "first one on a new database).",
        }
    }
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            _parameter_problem(op["responses"])
            scopes = op.get("x-bjaudit-scopes")
            if scopes:
                op["responses"].update(_access_answers(scopes))
            for status, resp in op.get("responses", {}).items():
                content = resp.get("content", {})
                if status[0] in "45" and "application/json" in content:
                    content[PROBLEM_JSON] = content.pop("application/json")
                headers = dict(_HEADERS.get((path, method, status), {}))
                if status == "503":
                    headers.update(_RETRY_AFTER)
                if headers:
                    resp.setdefault("headers", {}).update(headers)
    if _FASTAPI_422["$ref"] not in str(doc["paths"]):
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
    return doc


_FASTAPI_422 = {"$ref": "#/components/schemas/HTTPValidationError"}


def _parameter_problem(responses: dict[str, Any]) -> None:
    """FastAPI declares its own 422 (``{"detail": [...]}``) on a route with parameters that declares none; the app
    answers a bad parameter with a problem (:func:`app.api.problems._on_validation_error`)."""
    content = responses.get("422", {}).get("content", {}).get("application/json", {})
    if content.get("schema") == _FASTAPI_422:
        content["schema"] = {"$ref": "#/components/schemas/Problem"}
        responses["422"]["description"] = "A parameter cannot be used; `errors` has one entry per parameter."


def _access_answers(scopes: list[str]) -> dict[str, Any]:
    problem = {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    return {
        "401": {"description": "No valid API key (missing, unknown or revoked).", "content": problem},
        "403": {
            "description": f"The key lacks the scope ({' or '.join(scopes)}), or the data is another source's.",
            "content": problem,
        },
        "429": {
            "description": "Over the key's rate limit (BJAUDIT_RATE_LIMIT); retry after `Retry-After` seconds.",
            "content": problem,
            "headers": dict(_RETRY_AFTER),
        },
    }


DOCS_ASSETS = "/docs/assets"


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    _install_docs(app)


def docs_assets() -> Path:
    """Swagger UI 5 (which reads OpenAPI 3.1, the version FastAPI writes; swagger-ui-bundle's 4.15 reads none of it
    and showed "Unable to render this definition"), as the fastapi-offline package ships it: its files only."""
    return Path(str(importlib.resources.files("fastapi_offline") / "static"))


def _install_docs(app: FastAPI) -> None:
    """Swagger UI at /docs, its files served by the app itself: the page works offline (FastAPI's default loads it
    from a CDN, a blank page without the internet)."""
    app.mount(DOCS_ASSETS, StaticFiles(directory=docs_assets()), name="docs-assets")

    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )

    app.add_api_route(
        "/docs", docs, include_in_schema=False, response_class=HTMLResponse, dependencies=[PUBLIC]
    )
