"""The HTTP API: routers, problem details, the OpenAPI document."""

from __future__ import annotations

from fastapi import Depends, FastAPI

from app.api import batches, observability, openapi, problems, routes
from app.api.deps import known_query_parameters


def install(app: FastAPI) -> None:
    problems.install(app)
    strict = [Depends(known_query_parameters)]
    for router in (routes.rounds, routes.tables, routes.rules, routes.health, batches.router):
        app.include_router(router, dependencies=strict)
    openapi.install(app)
    observability.install(app)
