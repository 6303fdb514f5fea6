"""The HTTP API: routers, problem details, the OpenAPI document."""

from __future__ import annotations

from fastapi import FastAPI

from app.api import batches, openapi, problems, routes


def install(app: FastAPI) -> None:
    problems.install(app)
    app.include_router(routes.rounds)
    app.include_router(routes.tables)
    app.include_router(routes.rules)
    app.include_router(routes.health)
    app.include_router(batches.router)
    openapi.install(app)
