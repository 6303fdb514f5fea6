"""The auditor's workbench at ``/ui``: server-rendered pages (Jinja2) over the same use cases as the API.

Not in the OpenAPI document; each route still declares its access (:func:`app.api.auth.declare`): the login page and
the stylesheet are public, every other page needs a login session of a key with the ``read`` scope
(:data:`Viewer`), or, with BJAUDIT_DEV_ANONYMOUS on a loopback client, none. Sessions and CSRF tokens:
:mod:`app.workbench.session`. Errors are pages, never problem documents: a bad filter is a message on its page, an
unknown round a 404 page.
"""

from __future__ import annotations

import asyncio
import base64
import difflib
import functools
import importlib.resources
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, TypeVar
from urllib.parse import parse_qs, urlencode

import orjson
from fastapi import APIRouter, Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from fastapi.routing import APIRoute
from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import ClientDisconnect

from app.api import problems, streams
from app.api.auth import PUBLIC, Authenticator
from app.api.deps import SingleRounds, UnitOfWork
from app.api.problems import RequestTimeout
from app.api.routes import _instant, _rule
from app.config import Settings
from app.store import ui_sessions
from app.store.reports import GROUP_BY, Summary
from app.store.rollups import Page
from app.store.rounds import Search
from app.usecases import alerts as alert_cases
from app.usecases import batches as batch_cases
from app.usecases import integrity, transparency
from app.usecases import reports as report_cases
from app.usecases import rounds as round_cases
from app.usecases.auditing import catalogue, rule_details, rulesets
from app.usecases.errors import AmbiguousRound, CannotAudit, InvalidQuery, RoundNotFound, ServiceError
from app.usecases.keys import Principal, key_id_of, principal_of
from app.usecases.what_if import what_if
from app.workbench import reads, views
from app.workbench import session as sessions

log = logging.getLogger("bjaudit.workbench")

JSON = "application/json"
ROUND_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
VERDICTS = ("compliant", "violations", "unreplayable")
SEARCH_PARAMETERS = (
    "round_id",
    "table",
    "dealer",
    "shoe",
    "from",
    "to",
    "verdict",
    "rule",
    "corrected",
    "voided",
    "jurisdiction",
    "source",
)
PAGE_SIZE = 50
FORM_BYTES = 8192


# --- templates and static files --------------------------------------------------------------------------------


@functools.cache
def _templates() -> Environment:
    env = Environment(
        loader=PackageLoader("app.workbench", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=views.visible,  # every value shown: no control or bidi character reaches the page raw
    )
    env.globals.update(
        money=views.money,
        percent=views.percent,
        round_href=views.round_href,
        local_time=views.local_time,
        duration=views.duration,
    )
    return env


STATIC_TYPES = {"css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"}


def _static(name: str) -> bytes | None:
    # (the name is checked before the cache: a cache keyed by any name asked for would grow without bound)
    return _static_file(name) if re.fullmatch(r"[a-z0-9-]+\.(css|js)", name) else None


@functools.cache
def _static_file(name: str) -> bytes | None:
    resource = importlib.resources.files("app.workbench") / "static" / name
    return resource.read_bytes() if resource.is_file() else None


@functools.cache
def _jurisdictions() -> tuple[str, ...]:
    return tuple(sorted({rs["jurisdiction"] for rs in rulesets()}))


@functools.cache
def _aliases() -> dict[str, str]:
    return {rs["name"]: rs["alias"] for rs in rulesets()}


# --- who is looking ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Viewing:
    """The workbench's caller: a key's principal, its login session (None: anonymous development access) and the CSRF
    token of its forms."""

    who: Principal
    session: sessions.Session | None
    csrf: str | None


class LoginRequired(Exception):
    def __init__(self, next_path: str) -> None:
        super().__init__(next_path)
        self.next_path = next_path


class FormRefused(ServiceError):
    status, slug, title = 403, "form-refused", "The form cannot be accepted"


class FormTooLarge(ServiceError):
    status, slug, title = 413, "form-too-large", "The form is too large"


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _secret(request: Request) -> bytes:
    secret: bytes | None = getattr(request.app.state, "workbench_secret", None)
    if secret is None:
        settings = _settings(request)
        secret = request.app.state.workbench_secret = sessions.load_secret(
            settings.session_secret, settings.session_key_file
        )
    return secret


def _lifetime(request: Request) -> int:
    return int(_settings(request).session_hours * 3600)


async def _find_key(request: Request, key_id: str) -> Any:
    auth: Authenticator = request.app.state.auth
    return await auth.find_key(key_id)


def _here(request: Request) -> str:
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


async def _session_of(request: Request) -> Viewing | None:
    """The caller's login session, if its cookie is good and its key is still known, not revoked, and reads."""
    secret = _secret(request)
    found = sessions.verify(
        secret, request.cookies.get(sessions.SESSION_COOKIE), int(time.time()), _lifetime(request)
    )
    if found is None:
        return None
    row = await _find_key(request, found.key_id)
    if row is None or row.revoked_at is not None:
        return None
    if await _uow(request).read(
        ui_sessions.ended, found.nonce
    ):  # logged out: a copy of the cookie is no good
        return None
    scopes = frozenset(row.scopes.split())
    if "read" not in scopes:
        return None
    who = Principal(row.key_id, row.label, row.source, scopes)
    return Viewing(who, found, sessions.session_token(secret, found))


async def _viewer(request: Request) -> Viewing:
    """A workbench page's caller: a login session (its key looked up: a revoked key ends it at once), or anonymous
    development access on loopback; else off to the login page."""
    auth: Authenticator = request.app.state.auth
    viewing = await _session_of(request)
    if viewing is None:
        anonymous = auth.anonymous(request)
        if anonymous is None:
            raise LoginRequired(_here(request) if request.method == "GET" else "/ui")
        viewing = Viewing(anonymous, None, None)
    request.state.principal = viewing.who
    request.state.workbench = viewing
    await auth.limit(request, viewing.who)
    return viewing


_viewer.bjaudit_scopes = ("read",)  # type: ignore[attr-defined]
Viewer = Annotated[Viewing, Depends(_viewer)]


# --- answers -------------------------------------------------------------------------------------------------


def render(request: Request, template: str, code: int = 200, **context: Any) -> HTMLResponse:
    viewing: Viewing | None = getattr(request.state, "workbench", None)
    html = (
        _templates()
        .get_template(template)
        .render(
            viewer=viewing.who if viewing else None,
            csrf=viewing.csrf if viewing else None,
            logged_in=bool(viewing and viewing.session),
            **context,
        )
    )
    return HTMLResponse(html, status_code=code)


def error_page(request: Request, status: int, title: str, detail: str, errors: Any = None) -> HTMLResponse:
    items = [
        str(e.get("detail") or e.get("msg") or e) if isinstance(e, Mapping) else str(e)
        for e in (errors or ())
    ]
    return render(request, "error.html", status, title=title, status=status, detail=detail, errors=items)


class _Pages(APIRoute):
    """A workbench route: what it cannot answer is a page (a login redirect, a 404, a 422 message), never a problem
    document."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def page(request: Request) -> Response:
            try:
                return await handler(request)
            except LoginRequired as exc:
                return RedirectResponse("/ui/login?" + urlencode({"next": exc.next_path}), status_code=303)
            except ServiceError as exc:
                answer = error_page(request, exc.status, exc.title, exc.detail, exc.errors)
                if "Retry-After" in exc.headers:
                    answer.headers["Retry-After"] = exc.headers["Retry-After"]
                return answer
            except RequestValidationError as exc:
                return error_page(
                    request, 422, "A parameter is invalid", "The address cannot be used.", exc.errors()
                )
            except ClientDisconnect:  # gone while sending a form: nobody reads the answer
                log.info("client disconnected during %s %s", request.method, request.url.path)
                return Response(b"", status_code=400)
            except Exception as exc:  # noqa: BLE001 - a page, logged with an id to quote
                database = problems.database_problem(request, exc)
                if database is not None:  # said as the API says it
                    problems.log_database_problem(request, exc, database)
                    answer = error_page(request, database.status, database.title, database.detail)
                    answer.headers.update(database.headers)
                    return answer
                error_id = uuid.uuid4().hex[:16]
                log.error(
                    "unexpected error %s on %s %s", error_id, request.method, request.url.path, exc_info=exc
                )
                return error_page(
                    request,
                    500,
                    "Internal error",
                    f"The page failed unexpectedly; the error was logged ({error_id}).",
                )

        return page


S = TypeVar("S", bound=str)

router = APIRouter(prefix="/ui", include_in_schema=False, route_class=_Pages)


def _uow(request: Request) -> UnitOfWork:
    uow: UnitOfWork = request.app.state.unit_of_work
    return uow


def _params(request: Request) -> dict[str, str]:
    """The query's parameters, the blank ones (an empty form field) left out."""
    return {k: v.strip() for k, v in request.query_params.items() if v.strip()}


async def _form(request: Request) -> dict[str, str]:
    """A posted form (``application/x-www-form-urlencoded``, a few fields), read here without a multipart parser. A
    body of another kind, or one that cannot be read, is an empty form: its CSRF token is missing."""
    media = (request.headers.get("content-type") or "").partition(";")[0].strip().lower()
    if media != "application/x-www-form-urlencoded":
        return {}
    body = b""
    timeout = _settings(request).body_timeout_seconds
    try:
        async with asyncio.timeout(timeout):  # a form that never finishes must not hold the connection
            async for chunk in request.stream():
                body += chunk
                if len(body) > FORM_BYTES:
                    raise FormTooLarge(f"The form is over {FORM_BYTES} bytes.")
    except TimeoutError:
        raise RequestTimeout(
            f"The form did not arrive within {timeout:g} s; send it again.", headers={"Connection": "close"}
        ) from None
    try:
        fields = parse_qs(body.decode(), keep_blank_values=True, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        return {}
    return {k: v[-1] for k, v in fields.items()}


def _check_origin(request: Request) -> None:
    """A form posted from another site's page is refused (with SameSite=Strict cookies, a second line of defence)."""
    origin = request.headers.get("origin")
    own = f"{request.url.scheme}://{request.url.netloc}"
    if origin is not None and origin != own:
        raise FormRefused(f"The form was sent from another site ({origin}).")


def _cookie(response: Response, request: Request, name: str, value: str, max_age: int | None) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path=sessions.COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def _drop_cookie(response: Response, request: Request, name: str) -> None:
    """Clear a cookie set by :func:`_cookie` (with the same attributes, or browsers keep it)."""
    response.delete_cookie(
        name,
        path=sessions.COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


# --- login ---------------------------------------------------------------------------------------------------


def _login_form(request: Request, status: int, message: str | None, next_path: str) -> HTMLResponse:
    cookie = request.cookies.get(sessions.CSRF_COOKIE) or ""
    if not re.fullmatch(r"[A-Za-z0-9_-]{32}", cookie):
        cookie = sessions.new_csrf_cookie()
    answer = render(
        request,
        "login.html",
        status,
        title="Log in",
        message=message,
        next_path=next_path,
        login_csrf=sessions.cookie_token(_secret(request), cookie),
    )
    _cookie(answer, request, sessions.CSRF_COOKIE, cookie, None)
    return answer


@router.get("/login", dependencies=[PUBLIC])
async def login_page(request: Request) -> Response:
    """The login form (an API key with the read scope)."""
    next_path = sessions.safe_next(request.query_params.get("next"))
    if await _session_of(request) is not None:
        return RedirectResponse(next_path, status_code=303)
    return _login_form(request, 200, None, next_path)


@router.post("/login", dependencies=[PUBLIC])
async def login(request: Request) -> Response:
    """Check the key; on success a signed session cookie, and off to the page asked for."""
    _check_origin(request)
    form = await _form(request)
    secret = _secret(request)
    cookie = request.cookies.get(sessions.CSRF_COOKIE)
    if not cookie or not sessions.same(sessions.cookie_token(secret, cookie), form.get("csrf")):
        raise FormRefused(
            "The form's security token is missing or stale: open the login page again and resend it."
        )
    next_path = sessions.safe_next(form.get("next"))
    token = form.get("key", "").strip()
    key_id = key_id_of(token)
    who = principal_of(await _find_key(request, key_id), token) if key_id is not None else None
    if who is None or who.key_id is None:
        auth: Authenticator = request.app.state.auth
        await auth.count_failure(request)
        return _login_form(request, 401, "That API key is unknown, revoked or mistyped.", next_path)
    if "read" not in who.scopes:
        return _login_form(
            request,
            403,
            f"This key has the scopes {', '.join(sorted(who.scopes))}; the workbench needs one with the read scope.",
            next_path,
        )
    lifetime = _lifetime(request)
    _, value = sessions.issue(secret, who.key_id, int(time.time()), lifetime)
    answer = RedirectResponse(next_path, status_code=303)
    _cookie(answer, request, sessions.SESSION_COOKIE, value, lifetime)
    _drop_cookie(answer, request, sessions.CSRF_COOKIE)
    return answer


@router.post("/logout")
async def logout(request: Request, viewing: Viewer) -> Response:
    """End the session: on the server (its cookie is refused from now on, wherever a copy is) and in the browser."""
    _check_origin(request)
    form = await _form(request)
    if viewing.csrf is not None and not sessions.same(viewing.csrf, form.get("csrf")):
        raise FormRefused("The form's security token is missing or stale: reload the page and log out again.")
    if viewing.session is not None:  # ended here, not only in this browser: a copy of the cookie is refused
        ends = datetime.fromtimestamp(viewing.session.expires, UTC)
        await _uow(request).run(ui_sessions.end, viewing.session.nonce, ends, datetime.now(UTC))
    answer = RedirectResponse("/ui/login", status_code=303)
    _drop_cookie(answer, request, sessions.SESSION_COOKIE)
    return answer


@router.get("/static/{name}", dependencies=[PUBLIC])
async def static(name: str) -> Response:
    """The workbench's stylesheet and script."""
    body = _static(name)
    if body is None:
        return Response(b"", status_code=404)
    media = STATIC_TYPES[name.rpartition(".")[2]]
    return Response(body, media_type=media, headers={"Cache-Control": "max-age=300"})


# --- search --------------------------------------------------------------------------------------------------


def _unknown(params: Mapping[str, str], known: tuple[str, ...]) -> None:
    """A parameter the page does not take is said, as the API says it (never silently ignored)."""
    errors = []
    for name in params:
        if name not in known:
            near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f"did you mean {near[0]!r}? " if near else ""
            errors.append(
                {
                    "parameter": name,
                    "detail": f"unknown parameter {name!r}; {hint}this page takes {', '.join(known)}",
                }
            )
    if errors:
        raise InvalidQuery("; ".join(e["detail"] for e in errors), errors=errors)


def _one_of(name: str, value: str | None, allowed: Sequence[S], what: str) -> S | None:
    """A query parameter that takes one of ``allowed`` values (None: not given); any other value is said."""
    if value is None:
        return None
    for choice in allowed:
        if choice == value:
            return choice
    raise InvalidQuery(
        f"?{name}= is one of {', '.join(allowed)}; not {value!r}.",
        errors=[{"parameter": name, "detail": f"{what}: {value!r}"}],
    )


def _verdict(value: str | None) -> str | None:
    return _one_of("verdict", value, VERDICTS, "not a verdict")


def _yes_no(name: str, value: str | None) -> bool | None:
    """``?corrected=`` / ``?voided=``: true or false, as the API takes them (None: not given)."""
    said = _one_of(name, value, ("true", "false"), "neither true nor false")
    return None if said is None else said == "true"


@router.get("")
async def search_page(request: Request, viewing: Viewer) -> Response:
    """Search stored rounds: the filters of GET /v1/rounds, a round_id box, the API's cursor."""
    params = _params(request)
    who = viewing.who
    if "round_id" in params and "cursor" not in params:
        return RedirectResponse(
            views.round_href(params["round_id"], params.get("source"), params.get("jurisdiction")),
            status_code=303,
        )
    items: list[dict[str, Any]] = []
    next_href = None
    error = None
    errors: list[str] = []
    searched = any(k in params for k in SEARCH_PARAMETERS) or "cursor" in params
    try:
        _unknown(params, (*SEARCH_PARAMETERS, "cursor"))
        q = Search(
            table=params.get("table"),
            dealer=params.get("dealer"),
            shoe=params.get("shoe"),
            rule=_rule(params.get("rule")),
            verdict=_verdict(params.get("verdict")),
            corrected=_yes_no("corrected", params.get("corrected")),
            voided=_yes_no("voided", params.get("voided")),
            jurisdiction=_jurisdiction(params.get("jurisdiction")),
            source=who.reads(params.get("source")),
            played_from=_instant(params.get("from"), "from"),
            played_to=_instant(params.get("to"), "to"),
        )
        page = orjson.loads(
            await _uow(request).look(round_cases.search_rounds, q, PAGE_SIZE, params.get("cursor"))
        )
    except InvalidQuery as exc:
        error = exc.detail
        errors = [str(e.get("detail", "")) for e in exc.errors or ()]
    else:
        items = page["items"]
        keys = [(i["round_id"], i["source"], i["jurisdiction"]) for i in items]
        stated = await _uow(request).look(reads.played_at_local, keys)
        for item, key in zip(items, keys, strict=True):
            item["local"] = views.local_time(stated.get(key) or item["played_at"])
            item["href"] = views.round_href(item["round_id"], item["source"], item["jurisdiction"])
        if page["next_cursor"]:
            query = {k: v for k, v in params.items() if k != "cursor"}
            next_href = "/ui?" + urlencode({**query, "cursor": page["next_cursor"]})
    return render(
        request,
        "search.html",
        422 if error else 200,
        title="Search rounds",
        params=params,
        items=items,
        next_href=next_href,
        first_href="/ui?" + urlencode({k: v for k, v in params.items() if k != "cursor"})
        if "cursor" in params
        else None,
        error=error,
        errors=errors,
        searched=searched,
        verdicts=VERDICTS,
        jurisdictions=_jurisdictions(),
        every_source=who.source is None,
    )


# --- a round -------------------------------------------------------------------------------------------------


def _round_id(round_id: str) -> str:
    if not ROUND_ID.match(round_id):
        raise RoundNotFound(f"No round {round_id!r}: a round_id is 1-128 of A-Z a-z 0-9 . _ : -.")
    return round_id


def _what_if_stored(session: Any, round_id: str, source: str, jurisdiction: str, name: str) -> dict[str, Any]:
    asked = what_if(name, None)
    assert asked is not None
    rec = round_cases.raw_record(session, round_id, source, jurisdiction)
    return reads.what_if_audit(session, rec.body, source, asked)


@router.get("/rounds/{round_id}")
async def round_page(request: Request, round_id: str, viewing: Viewer) -> Response:
    """A round: the table drawn, the events with each finding at its event, the elections, the audits, a what-if."""
    params = _params(request)
    _unknown(params, ("source", "jurisdiction", "compare"))
    source = viewing.who.reads(params.get("source"))
    single: SingleRounds = request.app.state.single_rounds
    try:
        answer = await single.lookup(_round_id(round_id), source, params.get("jurisdiction"))
    except AmbiguousRound as exc:
        candidates = [
            {**c, "href": views.round_href(round_id, c["source"], c["jurisdiction"])}
            for c in exc.extra.get("candidates", ())
        ]
        return render(
            request,
            "ambiguous.html",
            409,
            title=f"Round {round_id}",
            round_id=round_id,
            candidates=candidates,
        )
    lookup = orjson.loads(answer)
    compare = compare_error = None
    compare_rules: dict[str, Any] = {}
    name = params.get("compare")
    if name:
        try:
            compare = await _uow(request).read(
                _what_if_stored, lookup["round_id"], lookup["source"], lookup["jurisdiction"], name
            )
        except (InvalidQuery, CannotAudit) as exc:
            compare_error = exc.detail
        else:
            compare_rules = {
                f["rule"]: rule_details(lookup["jurisdiction"], compare["ruleset"], f["rule"]) or {}
                for f in compare.get("findings", ())
            }
    page = views.round_page(lookup, _aliases(), compare, compare_rules)
    choices = [rs for rs in rulesets() if rs["jurisdiction"] == page.jurisdiction]
    shown = await _uow(request).read(
        reads.round_alerts, lookup["round_id"], lookup["source"], lookup["jurisdiction"]
    )
    return render(
        request,
        "round.html",
        title=f"Round {page.round_id}",
        page=page,
        rulesets=choices,
        compare_name=name,
        compare_error=compare_error,
        source_param=params.get("source"),
        jurisdiction_param=params.get("jurisdiction"),
        alerts=_views(shown, _settings(request).public_url),
        back=_here(request),
    )


@router.get("/rounds/{round_id}/record")
async def round_record(request: Request, round_id: str, viewing: Viewer) -> Response:
    """The stored record, byte for byte as it was received."""
    params = _params(request)
    _unknown(params, ("source", "jurisdiction"))
    rec = await _uow(request).read(
        round_cases.raw_record,
        _round_id(round_id),
        viewing.who.reads(params.get("source")),
        params.get("jurisdiction"),
    )
    digest = base64.b64encode(bytes.fromhex(rec.sha256)).decode()
    return Response(
        rec.body, media_type=JSON, headers={"ETag": f'"{rec.sha256}"', "Repr-Digest": f"sha-256=:{digest}:"}
    )


@router.get("/rounds/{round_id}/evidence")
async def round_evidence(request: Request, round_id: str, viewing: Viewer) -> Response:
    """The round's evidence packet (GET /v1/rounds/{id}/evidence), as a file to keep and check offline."""
    params = _params(request)
    _unknown(params, ("source", "jurisdiction"))
    settings: Settings = request.app.state.settings
    key = integrity.load_signing_key(settings.signing_key_file)
    rid, source = _round_id(round_id), viewing.who.reads(params.get("source"))
    body = await _uow(request).run(
        lambda s: orjson.dumps(
            transparency.evidence(s, key, rid, source, params.get("jurisdiction")), option=orjson.OPT_INDENT_2
        )
    )
    return Response(
        body, media_type=JSON, headers={"Content-Disposition": f'attachment; filename="evidence-{rid}.json"'}
    )


# --- rules and reports ---------------------------------------------------------------------------------------


def _range(params: Mapping[str, str]) -> tuple[str, str]:
    start, end = views.default_range(views.utc_today())
    return params.get("from", start), params.get("to", end)


def _jurisdiction(value: str | None) -> str | None:
    return _one_of("jurisdiction", value, _jurisdictions(), "unknown jurisdiction")


@router.get("/rules")
async def rules_page(request: Request, viewing: Viewer) -> Response:
    """The rule catalogue, with how often each rule fired in a range (default: the last 30 days)."""
    params = _params(request)
    played_from, played_to = _range(params)
    error = None
    fired: dict[str, int] = {}
    jurisdiction = None
    try:
        _unknown(params, ("jurisdiction", "from", "to"))
        jurisdiction = _jurisdiction(params.get("jurisdiction"))
        q = Summary(
            group_by="rule",
            played_from=_instant(played_from, "from"),
            played_to=_instant(played_to, "to"),
            source=viewing.who.reads(None),
            jurisdiction=jurisdiction,
        )
        report = await _uow(request).look(report_cases.summary, q)
        fired = views.findings_by_key(report.groups)
    except InvalidQuery as exc:
        error = exc.detail
    aliases = _aliases()
    rows = []
    for r in catalogue(jurisdiction):
        query = {"rule": r["rule"], "from": played_from, "to": played_to, "jurisdiction": r["jurisdiction"]}
        rows.append(
            {
                **r,
                "anchor": views.rule_anchor(aliases.get(r["ruleset"], r["ruleset"]), r["rule"]),
                "fired": fired.get(r["rule"], 0),
                "search_href": "/ui?" + urlencode(query),
            }
        )
    return render(
        request,
        "rules.html",
        422 if error else 200,
        title="Rules",
        rows=rows,
        error=error,
        jurisdiction=jurisdiction,
        jurisdictions=_jurisdictions(),
        played_from=played_from,
        played_to=played_to,
    )


def _report_query(params: Mapping[str, str], who: Principal) -> Summary:
    played_from, played_to = _range(params)
    group_by = _one_of("group_by", params.get("group_by", "day"), GROUP_BY, "not a grouping")
    assert group_by is not None  # (given a default)
    return Summary(
        group_by=group_by,
        played_from=_instant(played_from, "from"),
        played_to=_instant(played_to, "to"),
        source=who.reads(params.get("source")),
        jurisdiction=_jurisdiction(params.get("jurisdiction")),
    )


def _chart_days(q: Summary) -> tuple[date | None, date | None]:
    first = q.played_from.date() if q.played_from else None
    last = (q.played_to - timedelta(microseconds=1)).date() if q.played_to else None
    return first, last


REPORT_PARAMETERS = ("from", "to", "group_by", "jurisdiction", "source")
REPORT_GROUPS = 500
"""Groups on a page of the reports page (a year by shoe holds hundreds of thousands); its CSV holds them all."""


@router.get("/reports")
async def reports_page(request: Request, viewing: Viewer) -> Response:
    """The summary report of a range, with a chart of findings per day and its CSV."""
    params = _params(request)
    played_from, played_to = _range(params)
    report = chart = None
    error = None
    next_href = None
    try:
        _unknown(params, (*REPORT_PARAMETERS, "cursor"))
        q = _report_query(params, viewing.who)
        cursor = params.get("cursor")
        page = Page(REPORT_GROUPS, report_cases.decode_cursor(cursor, q.group_by) if cursor else None)
        report = await _uow(request).look(functools.partial(report_cases.summary, page=page), q)
        by_day = (
            report
            if q.group_by == "day" and cursor is None and report.next_cursor is None
            else await _uow(request).look(
                report_cases.summary, Summary("day", q.played_from, q.played_to, q.source, q.jurisdiction)
            )
        )
        chart = views.day_chart(views.findings_by_key(by_day.groups), *_chart_days(q))
        if report.next_cursor is not None:
            next_href = "/ui/reports?" + urlencode({**params, "cursor": report.next_cursor})
    except InvalidQuery as exc:
        error = exc.detail
    query = {
        k: v
        for k, v in {
            **params,
            "from": played_from,
            "to": played_to,
            "group_by": params.get("group_by", "day"),
        }.items()
        if k != "cursor"
    }
    return render(
        request,
        "reports.html",
        422 if error else 200,
        title="Reports",
        report=report,
        chart=chart,
        error=error,
        params=query,
        group_bys=GROUP_BY,
        jurisdictions=_jurisdictions(),
        currency_of=query.get("jurisdiction"),
        next_href=next_href,
        csv_href="/ui/reports/summary.csv?" + urlencode(query),
        search_href="/ui?"
        + urlencode({k: v for k, v in query.items() if k in ("from", "to", "jurisdiction")}),
    )


@router.get("/reports/summary.csv")
async def report_csv(request: Request, viewing: Viewer) -> Response:
    """The summary report as CSV, exactly as GET /v1/reports/summary?format=csv answers it."""
    params = _params(request)
    _unknown(params, REPORT_PARAMETERS)
    q = _report_query(params, viewing.who)
    report = await _uow(request).look(report_cases.summary, q)
    return Response(
        report_cases.as_csv(report),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{report_cases.csv_filename(q)}"'},
    )


# --- the pit page: live alerts ------------------------------------------------------------------------------

LIVE_REFRESH = 5
"""Seconds between the pit page's reloads without script."""
LIVE_TABLES = 50
TABLE_ID = re.compile(r"^[^\x00-\x1f]{1,128}$")
SOURCE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


@dataclass(frozen=True, slots=True)
class Pit:
    """What a pit page (and its stream) follows: one source, some tables (None: every table)."""

    source: str
    tables: list[str]

    def query(self) -> list[tuple[str, str]]:
        return [("source", self.source), *(("table", t) for t in self.tables)]

    @property
    def href(self) -> str:
        return "/ui/live?" + urlencode(self.query())


def _pit(request: Request, viewing: Viewing, known: tuple[str, ...]) -> Pit:
    params = request.query_params
    _unknown(dict.fromkeys(params, ""), known)
    tables = list(dict.fromkeys(t.strip() for t in params.getlist("table") if t.strip()))
    if len(tables) > LIVE_TABLES or not all(TABLE_ID.match(t) for t in tables):
        raise InvalidQuery(
            f"?table= is a table's id (1-128 characters), at most {LIVE_TABLES} of them.",
            errors=[{"parameter": "table", "detail": "not a table id, or too many"}],
        )
    asked = (params.get("source") or "").strip() or None
    if asked is not None and not SOURCE.match(asked):
        raise InvalidQuery(
            f"?source= is 1-128 of A-Z a-z 0-9 . _ : -; not {asked!r}.",
            errors=[{"parameter": "source", "detail": "not a source"}],
        )
    source = viewing.who.reads(asked) or _settings(request).default_source
    return Pit(source, tables)


def _alert_html(views_of: Sequence[views.AlertView], csrf: str | None, back: str) -> list[str]:
    macro = _templates().get_template("_alerts.html").module.alert_item  # type: ignore[attr-defined]
    return [str(macro(a, csrf, back)) for a in views_of]


def _views(shown: Sequence[alert_cases.Shown], public_url: str) -> list[views.AlertView]:
    return [views.alert_view(s.alert.body(public_url), s.acknowledgement) for s in shown]


@router.get("/live")
async def live_page(request: Request, viewing: Viewer) -> Response:
    """The pit page: the alerts of the tables picked (``?table=``, repeated), the newest first; it reloads itself
    without script, and follows :func:`live_stream` with it."""
    error = None
    alerts: list[views.AlertView] = []
    head = None
    try:
        pit = _pit(request, viewing, ("table", "source"))
    except InvalidQuery as exc:
        error, pit = exc.detail, Pit(viewing.who.source or _settings(request).default_source, [])
    else:
        shown, head = await _uow(request).read(alert_cases.latest, pit.source, pit.tables or None)
        alerts = _views(shown, _settings(request).public_url)
    return render(
        request,
        "live.html",
        422 if error else 200,
        title="Live alerts",
        error=error,
        alerts=alerts,
        tables=pit.tables,
        source=pit.source,
        every_source=viewing.who.source is None,
        refresh=LIVE_REFRESH,
        back=pit.href,
        # The stream goes on from the chain's head the page was read at: a finding stored before the script
        # connects is not missed.
        stream_href="/ui/live/stream?"
        + urlencode([*pit.query(), *([("head", str(head))] if head is not None else [])]),
    )


@router.get("/live/stream")
async def live_stream(request: Request, viewing: Viewer) -> Response:
    """The pit page's stream (Server-Sent Events, authenticated by the session's cookie: EventSource sends no
    header): each new alert of its tables as ``{"id", "html"}``, the HTML as the page renders it; from after
    ``Last-Event-ID`` (a reconnection), ``?after=`` (an alert id) or ``?head=`` (the chain entry the page was read at),
    else from now."""
    pit = _pit(request, viewing, ("table", "source", "after", "head"))
    settings = _settings(request)
    uow = _uow(request)
    after = request.headers.get("last-event-id") or request.query_params.get("after")
    head_text = request.query_params.get("head")
    if head_text is not None and re.fullmatch(r"[0-9]{1,18}", head_text) is None:
        raise InvalidQuery(
            "?head= is a chain entry's number.", errors=[{"parameter": "head", "detail": "not a number"}]
        )
    head = None if head_text is None else int(head_text)
    start = await uow.read(alert_cases.stream_start, pit.source, after, head)
    filters = alert_cases.Filters(tables=frozenset(pit.tables) if pit.tables else None)
    csrf, back = viewing.csrf, pit.href

    async def events() -> AsyncIterator[bytes]:
        async for item in streams.follow(
            uow, pit.source, start, filters, settings.webhook_poll_seconds, settings.stream_max_seconds
        ):
            if isinstance(item, bytes):
                yield item
                continue
            try:
                shown = await uow.read(alert_cases.shown, item)
            except Exception as exc:  # noqa: BLE001 - the database away: the answer ends, the page comes back
                log.warning(
                    "the pit page's stream ended: the database did not answer (%s)", type(exc).__name__
                )
                return
            htmls = _alert_html(_views(shown, settings.public_url), csrf, back)
            yield b"".join(
                streams.event(s.alert.id, "finding", {"id": s.alert.id, "html": html})
                for s, html in zip(shown, htmls, strict=True)
            )

    return StreamingResponse(events(), media_type=streams.MEDIA_TYPE, headers=streams.HEADERS)


@router.post("/alerts/{alert_id}/acknowledge")
async def acknowledge_alert(request: Request, alert_id: str, viewing: Viewer) -> Response:
    """Acknowledge an alert from the pit page or the round page (attributed to the session's key), then back there."""
    _check_origin(request)
    form = await _form(request)
    if viewing.csrf is not None and not sessions.same(viewing.csrf, form.get("csrf")):
        raise FormRefused(
            "The form's security token is missing or stale: reload the page and acknowledge again."
        )
    note = form.get("note", "").strip() or None
    if note is not None and (len(note) > 1000 or "\x00" in note):
        raise InvalidQuery(
            "A note is at most 1000 characters.", errors=[{"parameter": "note", "detail": "too long"}]
        )
    await _uow(request).run(alert_cases.acknowledge, viewing.who, alert_id, note)
    return RedirectResponse(sessions.safe_next(form.get("next")), status_code=303)


# --- batches -------------------------------------------------------------------------------------------------


@router.get("/batches")
async def batches_page(request: Request, viewing: Viewer) -> Response:
    """The latest batches of the key's source (of every source for a key of every source)."""
    _unknown(_params(request), ())
    items = await _uow(request).read(reads.recent_batches, viewing.who.source)
    for item in items:
        item["created"] = views.local_time(item["created_at"])
    return render(request, "batches.html", title="Batches", items=items)


@router.get("/batches/{batch_id}")
async def batch_page(request: Request, batch_id: str, viewing: Viewer) -> Response:
    """A batch's progress (refreshing itself until done) and its per-line outcomes, 200 lines a page."""
    params = _params(request)
    _unknown(params, ("after", "only"))
    after_text, only = params.get("after", "0"), params.get("only")
    if re.fullmatch(r"[0-9]{1,12}", after_text) is None:  # (str.isdigit() takes "²", which int() refuses)
        raise InvalidQuery(
            "?after= is a line number.", errors=[{"parameter": "after", "detail": "not a line number"}]
        )
    _one_of("only", only, tuple(batch_cases.ONLY), "not a filter")
    if "\x00" in batch_id or len(batch_id) > 128:
        raise batch_cases.BatchNotFound(f"No batch {batch_id!r}.")
    uow = _uow(request)
    status = await uow.read(batch_cases.batch_status, batch_id, viewing.who.source)
    settings = _settings(request)
    stalled = None
    if settings.uses_queue() and status["state"] in ("queued", "processing"):
        from app.api.batches import NO_WORKER
        from app.usecases.batch_queue import live_workers

        if await uow.read(live_workers, settings.batch_stalled_seconds) == 0:
            stalled = NO_WORKER
    outcomes = await uow.read(reads.batch_outcomes, batch_id, int(after_text), only)
    base = {"only": only} if only else {}
    return render(
        request,
        "batch.html",
        title=f"Batch {batch_id}",
        status=status,
        stalled=stalled,
        live=status["state"] in ("uploading", "queued", "processing"),
        outcomes=outcomes,
        only=only,
        after=int(after_text),
        next_href=f"/ui/batches/{batch_id}?" + urlencode({**base, "after": outcomes.next_after})
        if outcomes.next_after is not None
        else None,
        filter_hrefs={
            name: f"/ui/batches/{batch_id}" + (f"?{urlencode({'only': name})}" if name else "")
            for name in ("", *batch_cases.ONLY)
        },
        created=views.local_time(status["created_at"]),
        finished=views.local_time(status["finished_at"]),
    )


@router.get("/{rest:path}")
async def not_found(request: Request, rest: str, viewing: Viewer) -> Response:
    """No such page (``/ui/``: the search)."""
    if not rest:
        return RedirectResponse("/ui", status_code=303)
    return error_page(request, 404, "No such page", f"There is no workbench page {request.url.path!r}.")
