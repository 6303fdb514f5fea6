"""The HTTP API: routers, problem details, the OpenAPI document."""

from __future__ import annotations

from fastapi import Depends, FastAPI

from app.api import (
    alerts,
    auth,
    batches,
    integrity,
    keys,
    observability,
    openapi,
    problems,
    reaudits,
    reports,
    routes,
    shoes,
    workbench,
)
from app.api.deps import known_query_parameters


def install(app: FastAPI) -> None:
    problems.install(app)
    strict = [Depends(known_query_parameters)]
    routers = (
        routes.rounds,
        routes.tables,
        routes.rules,
        routes.health,
        batches.router,
        keys.router,
        integrity.router,
        shoes.router,
        reports.router,
        reaudits.router,
        alerts.router,
    )
    for router in routers:
        app.include_router(router, dependencies=strict)
    app.include_router(workbench.router)  # pages: their parameters are checked, and answered, by the pages
    openapi.install(app)
    observability.install(app)
    auth.declare(app, (*routers, workbench.router))
