"""Every answer's request ID and security headers, one access-log line per request, and Prometheus metrics.

:class:`Observe` is a pure ASGI wrapper around the whole application, outside even Starlette's error middleware, so
that a 500 is logged, counted and given its headers like any other answer; it never reads or buffers a body (but the
small ``/docs`` page, whose inline script it hashes for the Content-Security-Policy). ``/metrics`` is declared here
(:func:`metrics_guard` decides who may read it).
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import anyio.to_thread
from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from fastapi.routing import APIRoute
from prometheus_client.core import Metric
from prometheus_client.exposition import choose_encoder
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import logs, metrics
from app.api.deps import READ_FROM
from app.api.hosts import HostGuard, allowed_hosts
from app.usecases.errors import Forbidden

access_log = logging.getLogger("bjaudit.access")

REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
DOCS_PATH = "/docs"
METRICS_PATH = "/metrics"
BATCH_QUERY_SECONDS = 2.0
"""The longest a scrape waits for the batches' progress before answering without it."""

API_CSP = "default-src 'none'; frame-ancestors 'none'"
DOCS_CSP = (
    "default-src 'none'; script-src {scripts}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""Swagger UI (app.api.openapi): its files from /docs/assets, its inline start-up script by hash, the document
and "Try it out" requests to this origin, the images its stylesheet inlines (data:), inline styles."""
UI_PATH = "/ui"
UI_CSP = (
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
"""The workbench (app.api.workbench): its stylesheet, forms to itself, and script only from its own files (the pit
page's live.js, which follows a stream of this origin): no inline script, no inline handler, nothing from elsewhere."""

_BASE = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
_COMMON = (*_BASE, (b"referrer-policy", b"no-referrer"))
_API = (*_COMMON, (b"content-security-policy", API_CSP.encode()))
_V1 = (*_API, (b"cache-control", b"no-store"))
# The workbench's pages: "same-origin", not "no-referrer", which makes browsers send `Origin: null` with the page's
# own form posts (the Fetch standard's origin serialization), so that its Origin check refused every login. Nothing
# leaves for another site either way.
_UI = (
    *_BASE,
    (b"referrer-policy", b"same-origin"),
    (b"content-security-policy", UI_CSP.encode()),
    (b"cache-control", b"no-store"),
)
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def _request_id(scope: Scope) -> str:
    value: bytes
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            if REQUEST_ID.fullmatch(value):
                return value.decode("ascii")
            break
    return uuid.uuid4().hex


def _template(route: Any) -> str | None:
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    return template if isinstance(template, str) else None


def docs_csp(html: bytes) -> str:
    """The docs page's policy: its inline scripts allowed by their SHA-256, nothing else inline.

    >>> docs_csp(b"<script>go()</script>").split("; ")[1]
    "script-src 'self' 'sha256-5KYv+PUboo5h+0+YAtGRPbwv5d/QxzHslP4YGnUaxRw='"
    """
    hashes = [
        f"'sha256-{base64.b64encode(hashlib.sha256(s).digest()).decode()}'"
        for s in _INLINE_SCRIPT.findall(html)
    ]
    return DOCS_CSP.format(scripts=" ".join(["'self'", *hashes]))


def _with_headers(message: Message, extra: tuple[tuple[bytes, bytes], ...]) -> Message:
    headers = list(message.get("headers", ()))
    present = {name.lower() for name, _ in headers}
    headers += [(name, value) for name, value in extra if name not in present]
    return {**message, "headers": headers}


def _hashing_docs_scripts(send: Send) -> Send:
    """Holds the /docs page (a small HTML page) until it is whole, to send it with its policy."""
    start: Message | None = None
    body: list[bytes] = []

    async def send_docs(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
            return
        if message["type"] != "http.response.body" or start is None:
            await send(message)
            return
        body.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        page = b"".join(body)
        await send(_with_headers(start, ((b"content-security-policy", docs_csp(page).encode()),)))
        await send({"type": "http.response.body", "body": page})

    return send_docs


class Observe:
    """The outermost ASGI layer: a request ID (the client's ``X-Request-ID`` when it is 1-64 of ``A-Za-z0-9._-``,
    else a new one) in the logs' context and the answer; the security headers on every answer (a route's own win);
    ``X-Bjaudit-Read-From`` (replica or primary) on an answer read where a standby may serve it, when one is
    configured; one ``bjaudit.access`` line; the HTTP metrics."""

    def __init__(self, app: ASGIApp, *, access: bool, count: bool, routes: Sequence[BaseRoute] = ()) -> None:
        self.app = app
        self.access = access
        self.count = count
        # The routes FastAPI does not name in the scope (only its own APIRoutes): the OpenAPI document, the mount.
        self.plain = [r for r in routes if isinstance(r, Route | Mount) and not isinstance(r, APIRoute)]

    def _route(self, scope: Scope, path: str) -> str | None:
        route = scope.get("route")
        if route is not None:
            return _template(route)
        probe = {"type": "http", "path": path, "root_path": "", "method": scope["method"]}
        for plain in self.plain:
            if plain.matches(probe)[0] is not Match.NONE:
                return _template(plain)
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        rid = _request_id(scope)
        token = logs.request_id.set(rid)
        path: str = scope["path"]
        extra = (
            (b"x-request-id", rid.encode()),
            *(
                _COMMON
                if path == DOCS_PATH
                else _V1
                if path.startswith("/v1/")
                else _UI
                if path == UI_PATH or path.startswith(UI_PATH + "/")
                else _API
            ),
        )
        status = 500  # what the server answers when the application raises before answering
        read_from: dict[str, str] = {}
        reading = READ_FROM.set(read_from)

        async def send_observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                served = read_from.get("served_by")
                message = _with_headers(
                    message, extra if served is None else (*extra, (b"x-bjaudit-read-from", served.encode()))
                )
            await send(message)

        try:
            await self.app(
                scope, receive, _hashing_docs_scripts(send_observed) if path == DOCS_PATH else send_observed
            )
        finally:
            try:
                self._record(scope, path, status, time.perf_counter() - started)
            finally:
                READ_FROM.reset(reading)
                logs.request_id.reset(token)

    def _record(self, scope: Scope, path: str, status: int, seconds: float) -> None:
        method: str = scope["method"]
        route = self._route(scope, path)
        if self.count:
            label = method if method in _METHODS else "OTHER"
            metrics.http_requests.labels(label, route or "unmatched", str(status)).inc()
            metrics.http_duration.labels(label, route or "unmatched").observe(seconds)
        if not self.access or not access_log.isEnabledFor(logging.INFO):
            return
        # Never headers, bodies or the query string: they may carry secrets. The raw path only for no route.
        where = route or path[:200]
        fields: dict[str, Any] = {
            "method": method,
            "path": where,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "client": (scope.get("client") or (None,))[0],
        }
        state = scope.get("state")
        principal = state.get("principal") if isinstance(state, dict) else None
        if principal is not None:
            fields["key_id"] = getattr(principal, "key_id", None)
            fields["source"] = getattr(principal, "source", None)
        access_log.info("%s %s %d", method, where, status, extra=fields)


# --- /metrics --------------------------------------------------------------------------------------------------


async def metrics_guard(request: Request) -> None:
    """Who may read /metrics: anyone with BJAUDIT_METRICS_ACCESS=public; with ``key`` (the default), an API key
    with the read scope for every source (the metrics count every source's rounds and findings)."""
    if request.app.state.settings.metrics_access == "public":
        return
    who = await request.app.state.auth.principal(request)
    request.state.principal = who
    if "read" not in who.scopes or who.source is not None:
        raise Forbidden(
            "/metrics needs a key with the read scope for every source (bjaudit keys create --all-sources "
            "--scope read --label prometheus), or BJAUDIT_METRICS_ACCESS=public.",
            extra={"required_scopes": ["read"]},
        )


metrics_guard.bjaudit_scopes = ("read",)  # type: ignore[attr-defined]


def _batch_progress(request: Request) -> metrics.BatchProgress:
    db = request.app.state.db
    progress: metrics.BatchProgress | None = getattr(request.app.state, "batch_progress", None)
    if progress is None or progress.db is not db:
        progress = request.app.state.batch_progress = metrics.BatchProgress(db)
    return progress


async def scrape(request: Request) -> Response:
    """Prometheus metrics (text format, or OpenMetrics when asked for)."""
    progress = _batch_progress(request)
    batches: list[Metric] = []
    with anyio.move_on_after(BATCH_QUERY_SECONDS):
        batches = await anyio.to_thread.run_sync(lambda: list(progress.collect()), abandon_on_cancel=True)
    encode, content_type = choose_encoder(request.headers.get("accept", ""))
    return Response(encode(metrics.Scrape(batches)), media_type=content_type)


def install(app: FastAPI) -> None:
    """Wrap the whole application (also its error middleware) in :class:`Observe`, and declare /metrics."""
    settings = app.state.settings
    count = settings.metrics_access != "off"
    if count:
        app.add_api_route(
            METRICS_PATH,
            scrape,
            methods=["GET"],
            include_in_schema=False,
            dependencies=[Depends(metrics_guard)],
            response_class=Response,
        )
    build: Callable[[], ASGIApp] = app.build_middleware_stack

    allowed = allowed_hosts(settings.allowed_hosts, settings.dev_anonymous)

    def build_observed() -> ASGIApp:
        return Observe(
            HostGuard(build(), allowed, own_address=not settings.allowed_hosts.strip()),
            access=settings.access_log,
            count=count,
            routes=app.routes,
        )

    app.build_middleware_stack = build_observed  # type: ignore[method-assign]


__all__ = ["Observe", "install", "metrics_guard", "docs_csp"]
