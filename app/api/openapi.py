"""The OpenAPI document: FastAPI's, plus the round schema (the request body is read raw, not as a parameter), the
problem media type on every error answer, and the headers the routes send."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from app.api.problems import PROBLEM_JSON
from app.schema import RoundModel
from app.table_elections import ElectionsRegistration

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

    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            for status, resp in op.get("responses", {}).items():
                content = resp.get("content", {})
                if status[0] in "45" and "application/json" in content:
                    content[PROBLEM_JSON] = content.pop("application/json")
                headers = dict(_HEADERS.get((path, method, status), {}))
                if status == "503":
                    headers.update(_RETRY_AFTER)
                if headers:
                    resp.setdefault("headers", {}).update(headers)
    return doc


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
