"""Who may call what: API keys (``Authorization: Bearer <key>``), scopes, and per-key rate limits.

Every route declares what it needs with one of the dependencies below (:data:`Submitter`, :data:`Reader`,
:data:`Admin`, :data:`SubmitterOrReader`) or as :data:`PUBLIC`; :func:`declare` refuses to build an app with a route
that declares nothing, and writes each route's scopes into the OpenAPI document (``x-bjaudit-scopes``).

The key is looked up on every request (one indexed query: on PostgreSQL on the async pool, elsewhere in the unit
of work), so a revocation takes effect at once, in every process. One exception, the hot path: ``POST /v1/rounds``
on PostgreSQL takes a key this process has found in force before without looking it up again, because its one
statement stores the round only if the key is still not revoked, in the statement's own snapshot
(:data:`app.store.pg.INSERT_ROUND_KEYED`); every other answer to such a request (an error, a replay) looks the key
up first (:meth:`Authenticator.recheck`). So a revocation still takes effect at once, in every process, and the
submission saves a round trip. The source a request acts for is its key's: the
``X-Bjaudit-Source`` header of earlier versions is no longer trusted, and one that names another source is refused.
"""

from __future__ import annotations

import hmac
import ipaddress
import math
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from limits import RateLimitItem, parse_many
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.storage import storage_from_string

from app.api.deps import UnitOfWork
from app.config import Settings
from app.store import keys as keys_repo
from app.store.pg import PgRounds
from app.usecases.errors import Forbidden, RateLimited, Unauthenticated
from app.usecases.keys import SCOPES, Principal, digest, key_id_of, principal_of

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="bjaudit"'}
KNOWN_KEYS = 10_000
"""Most keys a process remembers as found in force (then it forgets them all and looks them up again)."""
ANONYMOUS_LABEL = "anonymous (development, loopback)"


def is_loopback(host: str | None) -> bool:
    """A loopback address (a client's, or one to listen on).

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost")
    (True, True, True)
    >>> is_loopback("10.0.0.1"), is_loopback("0.0.0.0"), is_loopback("testclient"), is_loopback(None)
    (False, False, False, False)
    """
    if host == "localhost":
        return True
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Authenticator:
    """The application's key checker and rate limiter (``app.state.auth``)."""

    def __init__(self, settings: Settings, uow: UnitOfWork, pg: PgRounds | None) -> None:
        self.settings = settings
        self.uow = uow
        self.pg = pg
        self.limits: list[RateLimitItem] = parse_many(settings.rate_limit) if settings.rate_limit else []
        self.failures: list[RateLimitItem] = (
            parse_many(settings.auth_failure_limit) if settings.auth_failure_limit else []
        )
        self.limiter = (
            SlidingWindowCounterRateLimiter(storage_from_string(_async_storage(settings.rate_limit_storage)))
            if self.limits or self.failures
            else None
        )
        self._known: dict[str, tuple[str, Principal]] = {}
        """key_id -> (the key's SHA-256, its caller), for keys a lookup in this process found in force."""

    async def principal(self, request: Request, known: bool = False) -> Principal:
        """The caller of a request, its key looked up; ``known``: on PostgreSQL, a key found in force before is
        taken without a lookup, and the request remembers it (:meth:`not_looked_up`): only a use case that checks
        the key in its own statement may ask for that."""
        header = request.headers.get("authorization")
        if header is None:
            if (anonymous := self.anonymous(request)) is not None:
                return anonymous
            raise Unauthenticated(
                "Send an API key: 'Authorization: Bearer bja_...'. `bjaudit keys create` makes one.",
                headers=CHALLENGE,
            )
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        key_id = key_id_of(token) if scheme.lower() == "bearer" else None
        if key_id is None:
            await self.count_failure(request)
            raise Unauthenticated(
                "The Authorization header is not 'Bearer <bjaudit API key>'.", headers=CHALLENGE
            )
        if known and self.pg is not None:
            seen = self._known.get(key_id)
            if seen is not None and hmac.compare_digest(seen[0], digest(token)):
                request.state.key_not_looked_up = key_id
                return seen[1]
        request.state.key_not_looked_up = None
        row = await self.find_key(key_id)
        who = principal_of(row, token)
        if who is None:
            if row is None or row.revoked_at is not None:  # (not for a wrong secret: anyone knows a key's id)
                self._known.pop(key_id, None)
            await self.count_failure(request)
            raise Unauthenticated("The API key is unknown or revoked.", headers=CHALLENGE)
        if self.pg is not None and row is not None:
            if len(self._known) >= KNOWN_KEYS:
                self._known.clear()
            self._known[key_id] = (row.secret_sha256, who)
        return who

    async def find_key(self, key_id: str) -> Any:
        """A key's stored row (None if there is none): on the PostgreSQL pool, else in the unit of work."""
        return await (
            self.pg.find_key(key_id) if self.pg is not None else self.uow.read(keys_repo.find, key_id)
        )

    def anonymous(self, request: Request) -> Principal | None:
        """The development caller without a key (``BJAUDIT_DEV_ANONYMOUS``, from loopback only), else None."""
        if self.settings.dev_anonymous and is_loopback(request.client.host if request.client else None):
            return Principal(None, ANONYMOUS_LABEL, self.settings.default_source, frozenset(SCOPES))
        return None

    @staticmethod
    def not_looked_up(request: Request) -> str | None:
        """The key_id of a request let through on a known key without a lookup (``principal(known=True)``)."""
        key_id: str | None = getattr(request.state, "key_not_looked_up", None)
        return key_id

    async def recheck(self, request: Request) -> None:
        """Before any answer not given by a statement that checked the key: look up now the key of a request let
        through without a lookup (401 if it was revoked since)."""
        if self.not_looked_up(request) is not None:
            await self.principal(request)

    async def count_failure(self, request: Request) -> None:
        """Count a wrong key from the request's address (the API's, the workbench's login): 429 over the limit."""
        address = f"failed:{request.client.host if request.client else '-'}"
        await self._refuse_if_over(self.failures, address, "wrong keys from this address")

    async def limit(self, request: Request, who: Principal) -> None:
        key = who.key_id or f"anonymous:{request.client.host if request.client else '-'}"
        await self._refuse_if_over(self.limits, key, "this key's limit")

    async def _refuse_if_over(self, items: list[RateLimitItem], key: str, what: str) -> None:
        """Count a request against ``items``, and answer 429 over any of them."""
        if self.limiter is None:
            return
        for item in items:
            if not await self.limiter.hit(item, key):
                stats = await self.limiter.get_window_stats(item, key)
                wait = max(1, math.ceil(stats.reset_time - time.time()))
                raise RateLimited(
                    f"Over {what} ({item}); retry in {wait} s.",
                    headers={"Retry-After": str(wait)},
                    extra={"limit": str(item)},
                )


def _async_storage(uri: str) -> str:
    """limits' asynchronous storage of a storage URI.

    >>> _async_storage("memory://"), _async_storage("redis://h:6379"), _async_storage("async+redis://h")
    ('async+memory://', 'async+redis://h:6379', 'async+redis://h')
    """
    return uri if uri.startswith("async+") else "async+" + uri


def _require(*scopes: str, known: bool = False) -> Callable[..., Any]:
    needs = " or ".join(repr(s) for s in scopes)

    async def caller(request: Request) -> Principal:
        auth: Authenticator = request.app.state.auth
        who = await auth.principal(request, known)
        request.state.principal = who
        try:
            await _allowed(request, auth, who)
        except Exception:
            await auth.recheck(request)
            raise
        return who

    async def _allowed(request: Request, auth: Authenticator, who: Principal) -> None:
        if not who.scopes.intersection(scopes):
            raise Forbidden(
                f"This key has the scopes {sorted(who.scopes)}; this route needs {needs}.",
                extra={"required_scopes": list(scopes)},
            )
        claimed = request.headers.get("x-bjaudit-source")
        if claimed is not None and claimed != who.source:
            acts = (
                f"its key's source ({who.source!r})"
                if who.source is not None
                else "the source its key of every source names with ?source="
            )
            raise Forbidden(
                f"X-Bjaudit-Source is no longer read: a request acts for {acts}, not the header's {claimed!r}. "
                "Drop the header, or use a key of that source.",
            )
        await auth.limit(request, who)

    caller.bjaudit_scopes = scopes  # type: ignore[attr-defined]
    return caller


async def _public() -> None:
    """Anyone may call this route."""


_public.bjaudit_scopes = ()  # type: ignore[attr-defined]

Submitter = Annotated[Principal, Depends(_require("submit"))]
KnownSubmitter = Annotated[Principal, Depends(_require("submit", known=True))]
"""A submitter whose key may be one found in force before, not looked up again (``POST /v1/rounds``: the route
passes :meth:`Authenticator.not_looked_up` to the statement that stores, and calls :meth:`Authenticator.recheck`
before any other answer)."""
Reader = Annotated[Principal, Depends(_require("read"))]
Admin = Annotated[Principal, Depends(_require("admin"))]
SubmitterOrReader = Annotated[Principal, Depends(_require("submit", "read"))]
"""Batch progress and results: the table system that uploaded the batch, and auditors."""
PUBLIC = Depends(_public)
"""``dependencies=[PUBLIC]``: a route anyone may call (health, the rule catalogue, the API's documentation)."""


def _declared(dependant: Dependant) -> Iterator[tuple[str, ...]]:
    scopes = getattr(dependant.call, "bjaudit_scopes", None)
    if scopes is not None:
        yield scopes
    for sub in dependant.dependencies:
        yield from _declared(sub)


def route_scopes(route: APIRoute) -> tuple[str, ...] | None:
    """The scopes a route declares (any one suffices; () for a public route), or None if it declares nothing."""
    found = list(_declared(route.dependant))
    if not found:
        return None
    if len(found) > 1:
        raise RuntimeError(f"{route.path}: declares its access more than once")
    return found[0]


def declare(app: FastAPI, routers: Iterable[APIRouter] = ()) -> None:
    """Check that every route (the app's own, and those of ``routers``, which it includes) declares its access, and
    put it in the OpenAPI document: ``security`` (the bearer key) and ``x-bjaudit-scopes`` (:mod:`app.api.openapi`
    adds the 401/403/429 answers). Call it before the app serves or builds its OpenAPI document."""
    for route in [r for router in (app.router, *routers) for r in router.routes]:
        if not isinstance(route, APIRoute):
            continue
        scopes = route_scopes(route)
        if scopes is None:
            raise RuntimeError(
                f"{sorted(route.methods or ())} {route.path} declares no access: add a Submitter/Reader/Admin "
                "parameter or dependencies=[PUBLIC] (app.api.auth)"
            )
        extra = dict(route.openapi_extra or {})
        extra["x-bjaudit-scopes"] = list(scopes)
        extra["security"] = [{"apiKey": []}] if scopes else []
        route.openapi_extra = extra
