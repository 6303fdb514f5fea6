"""RFC 9457 problem details: every error this service answers, including the ones it did not mean to.

One base class (:class:`app.usecases.errors.ServiceError`) and one handler for the answers we mean; the framework's own
errors (no such route, wrong method, a bad query parameter), a database that cannot be reached, and anything
unexpected are mapped here too, so that no request ever gets a bare 500 or a stack trace.
"""

from __future__ import annotations

import logging
import sqlite3
import uuid
from http import HTTPStatus
from typing import Any

import orjson
import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, ProgrammingError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from app.logs import request_id
from app.store.db import DatabaseTimeout
from app.store.pg import PoolTimeout as PgPoolTimeout
from app.usecases.errors import PROBLEM_TYPE_PREFIX as TYPE_PREFIX
from app.usecases.errors import ServiceError, problem_body

log = logging.getLogger("bjaudit.api")

PROBLEM_JSON = "application/problem+json"


class PayloadTooLarge(ServiceError):
    status, slug, title = 413, "body-too-large", "The request body is too large"


class RequestTimeout(ServiceError):
    status, slug, title = 408, "body-timeout", "The request body did not arrive in time"


class UnsupportedMediaType(ServiceError):
    status, slug, title = 415, "unsupported-media-type", "The request body must be JSON"


class DatabaseUnavailable(ServiceError):
    status, slug, title = 503, "database-unavailable", "The database is unavailable"


class DatabaseTimedOut(ServiceError):
    status, slug, title = 503, "database-timeout", "The request took too long in the database"


class ReplicaUnavailable(ServiceError):
    status, slug, title = 503, "read-replica-unavailable", "The read replica cannot serve this read"


DATABASE_503 = (
    "The database could not serve the request; retry after `Retry-After` seconds. "
    "`urn:bjaudit:problem:database-unavailable`: it cannot be reached or is not migrated, or no connection became "
    "free within BJAUDIT_DB_POOL_TIMEOUT (nothing was stored). `urn:bjaudit:problem:database-timeout`: the request "
    "took longer than BJAUDIT_DB_TIMEOUT_SECONDS, or than a limit of the database's own (statement_timeout, "
    "lock_timeout), and was stopped; `detail` says which, and whether sending it again is safe. "
    "`urn:bjaudit:problem:read-replica-unavailable` (the reads a standby serves, with BJAUDIT_READ_FALLBACK=unavailable): "
    "the standby is behind by more than BJAUDIT_READ_MAX_LAG_SECONDS or cannot be reached."
)
"""What the routes' 503 says in the OpenAPI document."""


_IDEMPOTENT_WRITES = ("/v1/rounds", "/v1/batches")
"""Writes whose retry is safe whatever happened: a round (or an upload) already stored is answered as stored."""


def problem(
    request: Request | None,
    status: int,
    *,
    type_: str = "about:blank",
    title: str | None = None,
    detail: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    body: dict[str, Any] = {
        "type": type_,
        "title": title or HTTPStatus(status).phrase,
        "status": status,
    }
    if detail:
        body["detail"] = detail
    if request is not None:
        body["instance"] = request.url.path
    if errors is not None:
        body["errors"] = errors
    if extra:
        body.update({k: v for k, v in extra.items() if k not in body})
    _identify(body)
    return Response(orjson.dumps(body), status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _identify(body: dict[str, Any]) -> dict[str, Any]:
    """The request's ID in its problem (as in its X-Request-ID header and log lines), to quote when reporting it."""
    rid = request_id.get()
    if rid is not None:
        body.setdefault("request_id", rid)
    return body


def service_problem(request: Request | None, exc: ServiceError) -> Response:
    body = _identify(problem_body(exc, request.url.path if request is not None else None))
    return Response(
        orjson.dumps(body), status_code=exc.status, media_type=PROBLEM_JSON, headers=exc.headers or None
    )


def unavailable(request: Request | None, retry_after: int, detail: str) -> Response:
    exc = DatabaseUnavailable(detail, headers={"Retry-After": str(retry_after)})
    return service_problem(request, exc)


def _retry_after(request: Request) -> int:
    settings = getattr(request.app.state, "settings", None)
    return int(getattr(settings, "retry_after_seconds", 5))


def is_undefined_table(exc: BaseException) -> bool:
    orig = exc if isinstance(exc, psycopg.Error) else getattr(exc, "orig", None)
    return getattr(orig, "sqlstate", None) == "42P01"  # undefined_table: the database is not migrated


async def _on_service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    return service_problem(request, exc)


async def _on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and isinstance(exc.__cause__, ValueError | RecursionError):
        # FastAPI's answer to a JSON body it cannot decode (a syntax error is its 422): the 422 of every body that
        # is not JSON (the routes that read their body themselves say "malformed JSON" too).
        why = "not UTF-8 text" if isinstance(exc.__cause__, UnicodeError) else "nested too deeply"
        return problem(
            request,
            422,
            type_=TYPE_PREFIX + "parameter-invalid",
            title="A request parameter is invalid",
            detail=f"body: malformed JSON: {why}",
            errors=[{"in": "body", "parameter": "", "detail": f"malformed JSON: {why}"}],
        )
    detail = (
        exc.detail
        if isinstance(exc.detail, str) and exc.detail != HTTPStatus(exc.status_code).phrase
        else None
    )
    if exc.status_code == 404 and detail is None:
        detail = f"No route {request.url.path!r}; see /docs for the API."
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        detail = detail or f"{request.method} is not allowed on {request.url.path!r}."
        headers["Allow"] = _allowed(request, headers.get("Allow"))
    return problem(request, exc.status_code, detail=detail, headers=headers or None)


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def _allowed(request: Request, named: str | None) -> str:
    """The methods some route takes on the path, with those the 405 ``named``: starlette's names only the first
    matching route's (GET and POST of a path are two routes). A mount says for itself (it matches any method)."""
    routes = [r for r in request.app.router.routes if not isinstance(r, Mount)]
    methods = {m.strip() for m in (named or "").split(",") if m.strip()}
    methods.update(
        method
        for method in _METHODS
        if any(route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes)
    )
    return ", ".join(sorted(methods))


def _parameter_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ())]
        where, name = (loc[0], ".".join(loc[1:])) if loc else ("request", "")
        out.append({"in": where, "parameter": name, "detail": err.get("msg", "invalid")})
    return out


async def _on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = _parameter_errors(exc)
    return problem(
        request,
        422,
        type_=TYPE_PREFIX + "parameter-invalid",
        title="A request parameter is invalid",
        detail="; ".join(f"{e['in']} {e['parameter']}: {e['detail']}" for e in errors),
        errors=errors,
    )


def is_unavailable(exc: Exception) -> bool:
    # psycopg's own errors come from the PostgreSQL hot path (app.store.pg), which has no SQLAlchemy around it;
    # its pool timeout is a psycopg.OperationalError.
    if isinstance(
        exc,
        PoolTimeout | OperationalError | InterfaceError | psycopg.OperationalError | psycopg.InterfaceError,
    ):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, ProgrammingError) and is_undefined_table(exc)


_STOPPED_BY_SERVER = ("57014", "55P03")
"""PostgreSQL stopped the statement itself: query_canceled (its statement_timeout, a cancel), lock_not_available (its
lock_timeout)."""

_WHY_STOPPED = {
    "statement timeout": "it ran longer than the database's statement_timeout",
    "lock timeout": "it waited for a lock longer than the database's lock_timeout",
    "user request": "it was cancelled on the database (pg_cancel_backend)",
}


def _stopped_by_database(exc: Exception, settings: Any) -> str | None:
    """What the database, which answered, said when it stopped the request's statement, and why; None when it did
    not stop it."""
    orig = exc if isinstance(exc, psycopg.Error | sqlite3.Error) else getattr(exc, "orig", None)
    if isinstance(orig, psycopg.Error) and orig.sqlstate in _STOPPED_BY_SERVER:
        said = next((line.strip() for line in str(orig).splitlines() if line.strip()), orig.sqlstate or "")
        why = next(
            (w for cue, w in _WHY_STOPPED.items() if cue in said), "it took longer than the database allows"
        )
        return f"it stopped this request's statement ({said!r}): {why}"
    if isinstance(orig, sqlite3.OperationalError) and "locked" in str(orig):
        seconds = getattr(settings, "db_pool_timeout", None)
        within = f" longer than {seconds:g} s" if isinstance(seconds, int | float) else ""
        return f"another connection held its lock{within} (BJAUDIT_DB_POOL_TIMEOUT), and this request waited for it"
    return None


def _retry_advice(request: Request) -> str:
    if request.method in ("GET", "HEAD"):
        return (
            "The same request may take as long again: narrow it (a shorter range, a smaller page) or retry when the "
            "database is less busy."
        )
    if request.url.path.startswith(_IDEMPOTENT_WRITES):
        return "Retry: the same request again is safe (a round already stored is answered as stored, never twice)."
    return "Whether it took effect is not known: look before you retry."


def database_problem(request: Request, exc: Exception) -> ServiceError | None:
    """What a database failure means for a request, said as it happened: the request ran past the service's deadline
    (the database may be slow, or not answering at all), the database stopped it (it is up), no connection came
    free, the database cannot be reached or is not migrated. None: not an outage but an error of ours (a constraint,
    bad data: 500)."""
    settings = getattr(request.app.state, "settings", None)
    retry = {"Retry-After": str(_retry_after(request))}
    if isinstance(exc, DatabaseTimeout):
        return DatabaseTimedOut(
            f"This request was stopped: {exc} (BJAUDIT_DB_TIMEOUT_SECONDS). A slow query, a lock another request "
            "held, or a database that does not answer at all: GET /readyz says whether it answers. "
            + _retry_advice(request),
            headers=retry,
        )
    stopped = _stopped_by_database(exc, settings)
    if stopped is not None:
        return DatabaseTimedOut(
            f"The database is up: {stopped}. {_retry_advice(request)}",
            headers=retry,
        )
    if not is_unavailable(exc):
        return None
    if is_undefined_table(exc):
        detail = "The database is not migrated; run `alembic upgrade head`."
    elif isinstance(exc, PoolTimeout | PgPoolTimeout):
        seconds = getattr(settings, "db_pool_timeout", None)
        within = f" within {seconds:g} s" if isinstance(seconds, int | float) else ""
        detail = (
            f"No database connection became free{within} (BJAUDIT_DB_POOL_TIMEOUT): other requests held them all. "
            "Nothing was stored; retry later."
        )
    else:
        detail = "The database cannot be reached; nothing was stored. Retry later."
    return DatabaseUnavailable(detail, headers=retry)


def log_database_problem(request: Request, exc: Exception, answer: ServiceError) -> None:
    what = "database timeout" if isinstance(answer, DatabaseTimedOut) else "database unavailable"
    log.warning("%s on %s %s: %s", what, request.method, request.url.path, getattr(exc, "orig", None) or exc)


async def _on_database_error(request: Request, exc: Exception) -> Response:
    answer = database_problem(request, exc)
    if answer is None:  # a constraint or data error is a bug of ours, not an outage
        return await _on_unexpected(request, exc)
    log_database_problem(request, exc, answer)
    return service_problem(request, answer)


async def _on_client_disconnect(request: Request, exc: Exception) -> Response:
    # The client went away while sending its body: nobody reads this answer, and nothing was stored.
    log.info("client disconnected during %s %s", request.method, request.url.path)
    return problem(request, 400, detail="The client disconnected before the request body was complete.")


async def _on_unexpected(request: Request, exc: Exception) -> Response:
    error_id = uuid.uuid4().hex[:16]
    log.error("unexpected error %s on %s %s", error_id, request.method, request.url.path, exc_info=exc)
    return problem(
        request,
        500,
        type_=TYPE_PREFIX + "internal",
        title="Internal error",
        detail="The request failed unexpectedly and nothing was stored; the error was logged.",
        extra={"error_id": error_id},
    )


class RejectNul:
    """A NUL character in the query string gets a 422 before any route runs: no database column can hold or
    compare it (PostgreSQL text refuses it outright). Path parameters are checked by their routes' patterns. A pure
    ASGI wrapper: it costs one scan per request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            query: bytes = scope.get("query_string", b"")
            if b"%00" in query or b"\x00" in query:
                response = problem(
                    None,
                    422,
                    type_=TYPE_PREFIX + "parameter-invalid",
                    title="A request parameter is invalid",
                    detail="The query string contains a NUL character (%00).",
                    errors=[{"in": "query", "detail": "must not contain the NUL character"}],
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class LimitHeaders:
    """Request headers over ``max_bytes`` in all get a 431 before any route runs (a pure ASGI wrapper: one sum per
    request). The server has read them by then; this keeps them from going further."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            size = sum(len(k) + len(v) for k, v in scope.get("headers", ()))
            if size > self.max_bytes:
                response = problem(
                    None,
                    431,
                    type_=TYPE_PREFIX + "headers-too-large",
                    title="The request headers are too large",
                    detail=f"The request's headers hold {size} bytes, over the limit of {self.max_bytes} "
                    "(BJAUDIT_MAX_HEADER_BYTES).",
                    headers={"Connection": "close"},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def install(app: FastAPI) -> None:
    app.add_middleware(RejectNul)
    app.add_middleware(LimitHeaders, max_bytes=app.state.settings.max_header_bytes)
    app.add_exception_handler(ServiceError, _on_service_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    # 503 (database_problem): OperationalError/InterfaceError (cannot connect, connection lost, SQLite cannot open),
    # a table that does not exist (not migrated), a pool with no connection to give within db_pool_timeout, the
    # same from psycopg directly on the PostgreSQL hot path; database-timeout: the request's deadline, a statement
    # the database stopped (statement_timeout, lock_timeout, SQLite's lock wait).
    app.add_exception_handler(DBAPIError, _on_database_error)
    app.add_exception_handler(PoolTimeout, _on_database_error)
    app.add_exception_handler(psycopg.Error, _on_database_error)
    app.add_exception_handler(DatabaseTimeout, _on_database_error)
    app.add_exception_handler(ClientDisconnect, _on_client_disconnect)
    app.add_exception_handler(Exception, _on_unexpected)
