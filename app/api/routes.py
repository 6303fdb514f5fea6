"""The HTTP routes: thin. Parse the request, call a use case in :mod:`app.usecases`, answer its bytes."""

from __future__ import annotations

import base64
import functools
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

import anyio
import anyio.to_thread
import orjson
from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from sqlalchemy import text
from starlette.convertors import PathConvertor, register_url_convertor

from app.api import schemas
from app.api.auth import PUBLIC, Admin, Authenticator, KnownSubmitter, Reader, Submitter
from app.api.deps import (
    JsonBody,
    SingleRounds,
    SingleRoundsDep,
    UnitOfWorkDep,
    get_database,
    json_body,
)
from app.api.problems import DATABASE_503, PROBLEM_JSON, unavailable
from app.config import Settings
from app.store import migrate
from app.store.db import Database
from app.store.rounds import Search
from app.usecases import alerts as alert_cases
from app.usecases import elections as election_cases
from app.usecases import rounds as round_cases
from app.usecases.auditing import rule_spelling, rulesets
from app.usecases.errors import InvalidQuery
from app.usecases.keys import SOURCE_PATTERN
from app.usecases.what_if import what_if
from app.wire.instants import instant

JSON = "application/json"


def _problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    descriptions = {
        404: "No such round.",
        408: "The body did not arrive within BJAUDIT_BODY_TIMEOUT_SECONDS (default 30).",
        409: "Conflict: the round_id was already submitted with a different record, or names several rounds.",
        410: "The round's month was archived (`bjaudit archive`): `archive` names the file, `archived_at` when.",
        413: "The body is over the configured limit (BJAUDIT_MAX_BODY_BYTES, default 1 MiB).",
        415: "The body is not JSON (Content-Type must be application/json, UTF-8).",
        422: "The record (or a parameter) cannot be used; `errors` has one entry per problem with its JSON pointer. "
        "A round played more than 5 minutes after the service received it is `urn:bjaudit:problem:round-in-future` "
        "(pointer `/played_at`).",
        500: "Unexpected error (no internals disclosed; nothing was stored).",
        503: DATABASE_503,
    }
    return {s: {"model": schemas.Problem, "description": descriptions[s]} for s in statuses}


ROUND_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "A recorded round, format v1. Kept byte for byte as sent.",
        "content": {JSON: {"schema": {"$ref": "#/components/schemas/RoundModel"}}},
    }
}

rounds = APIRouter(prefix="/v1", tags=["rounds"])
tables = APIRouter(prefix="/v1", tags=["tables"])
rules = APIRouter(prefix="/v1", tags=["rules"])
health = APIRouter(tags=["health"])


@rounds.post(
    "/rounds",
    status_code=201,
    response_model=schemas.AuditResult,
    responses={
        200: {
            "model": schemas.AuditResult,
            "description": "Replay: the same record was stored before; its stored "
            "audit, byte for byte, with the header Idempotent-Replayed: true.",
        },
        201: {"description": "Audited and stored."},
        **_problems(408, 409, 413, 415, 422, 500, 503),
    },
    openapi_extra=ROUND_BODY,
)
async def submit_round(request: Request, who: KnownSubmitter) -> Response:
    """Audit a round and store the record and its audit; the same record again answers the stored audit. A round
    whose `played_at` is more than 5 minutes after the service received it is refused (422, `round-in-future`)."""
    # The key may not have been looked up (app.api.auth, KnownSubmitter): the statement that stores the round checks
    # it; any other answer checks it first.
    auth: Authenticator = request.app.state.auth
    single: SingleRounds = (
        request.app.state.single_rounds
    )  # (not a dependency: ≈ 10 µs a request on the hot path)
    try:
        body = await json_body(request)
        received_at = datetime.now(UTC)
        source = who.writes(None)
        outcome = await single.submit(body, source, auth.not_looked_up(request), received_at)
    except Exception:
        await auth.recheck(request)
        raise
    if not outcome.created:
        await auth.recheck(request)
    elif outcome.findings:
        alert_cases.stored_findings()  # committed: the webhooks and streams may send them now
    location = f"/v1/rounds/{quote(outcome.round_id, safe='')}?" + urlencode(
        {"source": source, "jurisdiction": outcome.jurisdiction}
    )
    headers = {"Location": location}
    if not outcome.created:
        headers["Idempotent-Replayed"] = "true"
    return Response(
        outcome.body, status_code=201 if outcome.created else 200, media_type=JSON, headers=headers
    )


Verdict = Literal["compliant", "violations", "unreplayable"]
_WHEN = "RFC 3339 timestamp with offset, or a date (midnight UTC)."


def _instant(value: str | None, name: str) -> datetime | None:
    """``2026-12-01`` (midnight UTC) or an RFC 3339 timestamp with its offset."""
    if value is None:
        return None
    when = instant(value)
    if when is None:
        raise InvalidQuery(
            f"?{name}= must be a date (2026-12-01) or a timestamp with its offset (2026-12-01T21:00:00-05:00).",
            errors=[
                {
                    "in": "query",
                    "parameter": name,
                    "detail": f"not a date or a timestamp with offset: {value!r}",
                }
            ],
        )
    return when


def _rule(value: str | None) -> str | None:
    if value is None:
        return None
    spelt = rule_spelling(value)
    if spelt is None:
        raise InvalidQuery(
            f"?rule= names no rule we hold: {value!r}; GET /v1/rules lists them.",
            errors=[{"in": "query", "parameter": "rule", "detail": f"no such rule: {value!r}"}],
        )
    return spelt


CORRECTED = (
    "true: rounds with a finding the table corrected (its `corrected_by` is set: a settlement replaced by a later "
    "`settle` with `corrects`, round-v1 section 2.3; its `amount_delta` is what is still owed); false: rounds with a "
    "finding the table did not correct. With ?rule=, the same finding must be under the rule. The latest audit's "
    "findings."
)
VOIDED = (
    "true: rounds declared void (a `void` event; the audit's `void` gives the event and the reason, and `void_reason` "
    "in each item the reason); false: rounds not declared void. By the latest audit."
)


@rounds.get(
    "/rounds",
    response_model=schemas.RoundPage,
    responses=_problems(422, 500, 503),
)
async def search_rounds(
    who: Reader,
    uow: UnitOfWorkDep,
    table: Annotated[str | None, Query(description="Table id.")] = None,
    dealer: Annotated[str | None, Query(description="Dealer on duty, as the record's dealer_id.")] = None,
    shoe: Annotated[str | None, Query(description="Shoe, as the record's shoe_id.")] = None,
    played_from: Annotated[
        str | None, Query(alias="from", description="Played at or after. " + _WHEN)
    ] = None,
    played_to: Annotated[str | None, Query(alias="to", description="Played before. " + _WHEN)] = None,
    rule: Annotated[
        str | None,
        Query(
            description="Rounds with a finding under this rule: its number or also-cited-as number, as "
            "GET /v1/rules spells it or another usual way (13:69F-2.12(b)(1) for 13:69F-2.12(b)1)."
        ),
    ] = None,
    verdict: Annotated[Verdict | None, Query()] = None,
    corrected: Annotated[bool | None, Query(description=CORRECTED)] = None,
    voided: Annotated[bool | None, Query(description=VOIDED)] = None,
    jurisdiction: Annotated[str | None, Query()] = None,
    source: Annotated[
        str | None,
        Query(
            pattern=SOURCE_PATTERN,
            description="Submitting table system (a key of one source reads only its own; a key of every source "
            "reads all, or the one named).",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[
        str | None, Query(max_length=200, description="next_cursor of the previous page.")
    ] = None,
) -> Response:
    """Search stored rounds by table, dealer, shoe, date, rule, verdict, corrections at the table, voided: newest
    played first, keyset-paginated."""
    q = Search(
        table=table,
        dealer=dealer,
        shoe=shoe,
        rule=_rule(rule),
        verdict=verdict,
        corrected=corrected,
        voided=voided,
        jurisdiction=jurisdiction,
        source=who.reads(source),
        played_from=_instant(played_from, "from"),
        played_to=_instant(played_to, "to"),
    )
    return Response(await uow.look(round_cases.search_rounds, q, limit, cursor), media_type=JSON)


SourceParam = Annotated[
    str | None,
    Query(
        pattern=SOURCE_PATTERN,
        description="The source: a key of one source acts only for its own (which is the default); a key of every "
        "source names the one it acts for.",
    ),
]
SourceQuery = Annotated[
    str | None, Query(pattern=SOURCE_PATTERN, description="The submitter, if several stored this round_id.")
]
JurisdictionQuery = Annotated[
    str | None, Query(description="The jurisdiction, if the round_id is in several.")
]


RoundId = Annotated[
    str,
    Path(
        pattern=r"^[A-Za-z0-9._:-]{1,128}$",
        description="The round's round_id (1-128 of A-Z a-z 0-9 . _ : -, as the record format allows).",
    ),
]


@rounds.get(
    "/rounds/{round_id}",
    response_model=schemas.StoredRound,
    responses=_problems(404, 409, 410, 422, 500, 503),
)
async def get_round(
    who: Reader,
    round_id: RoundId,
    single: SingleRoundsDep,
    source: SourceQuery = None,
    jurisdiction: JurisdictionQuery = None,
) -> Response:
    """The auditor's lookup: the record as received, its audit, and each cited rule's title, citation, paraphrase."""
    return Response(await single.lookup(round_id, who.reads(source), jurisdiction), media_type=JSON)


@rounds.get(
    "/rounds/{round_id}/audits/{audit_no}",
    response_model=schemas.AuditResult,
    responses=_problems(404, 409, 422, 500, 503),
)
async def get_round_audit(
    who: Reader,
    round_id: RoundId,
    audit_no: Annotated[int, Path(ge=1, le=1_000_000, description="1: the audit made when it was received.")],
    uow: UnitOfWorkDep,
    source: SourceQuery = None,
    jurisdiction: JurisdictionQuery = None,
) -> Response:
    """One audit of a stored round, as stored: the round's history (`audits` in the lookup) numbers them."""
    body = await uow.read(round_cases.audit_number, round_id, who.reads(source), jurisdiction, audit_no)
    return Response(body, media_type=JSON)


@rounds.get(
    "/rounds/{round_id}/record",
    response_class=Response,
    responses={
        200: {
            "description": "The record exactly as received (its SHA-256 in ETag and Repr-Digest).",
            "content": {JSON: {"schema": {"$ref": "#/components/schemas/RoundModel"}}},
        },
        **_problems(404, 409, 422, 500, 503),
    },
)
async def get_record(
    who: Reader,
    round_id: RoundId,
    uow: UnitOfWorkDep,
    source: SourceQuery = None,
    jurisdiction: JurisdictionQuery = None,
) -> Response:
    """The stored record, byte for byte as it was received."""
    rec = await uow.read(round_cases.raw_record, round_id, who.reads(source), jurisdiction)
    digest = base64.b64encode(bytes.fromhex(rec.sha256)).decode()
    return Response(
        rec.body, media_type=JSON, headers={"ETag": f'"{rec.sha256}"', "Repr-Digest": f"sha-256=:{digest}:"}
    )


@rounds.post(
    "/audit",
    response_model=schemas.DryRunResult,
    responses=_problems(408, 413, 415, 422, 500, 503),
    openapi_extra=ROUND_BODY,
)
async def dry_run(
    who: Submitter,
    body: JsonBody,
    uow: UnitOfWorkDep,
    ruleset: Annotated[
        str | None,
        Query(
            max_length=200,
            description="What-if: audit under this ruleset, whatever the round's played_at: its name (as audits "
            "and GET /v1/rulesets give it) or its alias; of the round's jurisdiction. The result says "
            "ruleset_in_force.",
            examples=["NZ Gazette 1994 No 112 Blackjack Rules", "US-NJ@2024-09-16"],
        ),
    ] = None,
    elections: Annotated[
        str | None,
        Query(
            max_length=4000,
            description="What-if: table elections, a JSON object read exactly as a round's table.rules, over the "
            "round's own (or registered) ones. The result carries them as elections_what_if.",
            examples=['{"dealer_soft_17": "hit"}'],
        ),
    ] = None,
) -> Response:
    """Audit a round without storing anything (for integrators testing their feed). A round without
    `table.rules` is audited by the elections its source registered for the table, as a submission would be, and a
    round played more than 5 minutes after it was received is refused as a submission is (422). With `?ruleset=`
    and/or `?elections=`, a what-if, marked as such."""
    received_at = datetime.now(UTC)
    try:
        asked = what_if(ruleset, elections)
        audited = await uow.read(round_cases.dry_run, body, who.writes(None), asked, received_at)
    except InvalidQuery as exc:
        for e in exc.errors or ():
            e.setdefault("in", "query")
        raise
    return Response(audited.body, media_type=JSON)


ELECTIONS_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The table's rule elections and the time they apply from.",
        "content": {JSON: {"schema": {"$ref": "#/components/schemas/ElectionsRegistration"}}},
    }
}


class _TableIdConvertor(PathConvertor):
    """A table id in a path: any characters, ``/`` (as ``path``) and line breaks too (``path`` is ``.*``, which
    stops at a newline: such a table id would find no route); its parameter's pattern says what it may be."""

    regex = "(?s:.*)"


register_url_convertor("any", _TableIdConvertor())
TableId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=128,
        pattern=r"^[^\x00]+$",
        description="The table, as rounds name it in table.id (URL-encoded).",
    ),
]


def _elections_location(table_id: str, jurisdiction: str) -> str:
    return f"/v1/tables/{quote(table_id, safe='')}/elections?" + urlencode({"jurisdiction": jurisdiction})


@tables.put(
    "/tables/{table_id:any}/elections",
    status_code=201,
    response_model=schemas.Registration,
    responses={
        200: {
            "model": schemas.Registration,
            "description": "The same elections were already registered for the table from that time: nothing "
            "changed; the stored registration, with the header Idempotent-Replayed: true.",
        },
        201: {"description": "Registered."},
        **_problems(408, 413, 415, 500, 503),
        409: {
            "model": schemas.Problem,
            "description": "Other elections are already registered for the table from that exact time; nothing "
            "changed.",
        },
        422: {
            "model": schemas.Problem,
            "description": "The registration cannot be used; `errors` has one entry per problem with its JSON "
            "pointer (the rules are validated exactly as a round's table.rules).",
        },
    },
    openapi_extra=ELECTIONS_BODY,
)
async def register_elections(
    who: Admin, table_id: TableId, body: JsonBody, uow: UnitOfWorkDep, source: SourceParam = None
) -> Response:
    """Register the table's rule elections from `effective_from` on, with a reason; or correct the registration
    in force at that time (`supersedes`). Rounds of the table (of this source, in this jurisdiction) sent without
    `table.rules` are audited by the registration in force at their `played_at`. Nothing is ever overwritten."""
    outcome = await uow.run(
        election_cases.register_elections, table_id, body, who.writes(source), who.attribution
    )
    headers = {"Location": _elections_location(table_id, outcome.jurisdiction)}
    if not outcome.created:
        headers["Idempotent-Replayed"] = "true"
    return Response(
        outcome.body, status_code=201 if outcome.created else 200, media_type=JSON, headers=headers
    )


@tables.get(
    "/tables/{table_id:any}/elections",
    response_model=schemas.RegistrationList,
    responses=_problems(422, 500, 503),
)
async def list_elections(
    who: Reader,
    table_id: TableId,
    uow: UnitOfWorkDep,
    source: SourceParam = None,
    jurisdiction: Annotated[
        Literal["US-NJ", "NZ"] | None, Query(description="Only this jurisdiction's registrations.")
    ] = None,
) -> Response:
    """The table's elections history: every registration, who made it and why, corrections and the ones they
    superseded; newest effective_from first."""
    return Response(
        await uow.read(election_cases.list_elections, table_id, who.reads(source), jurisdiction),
        media_type=JSON,
    )


@rules.get("/rules", response_model=schemas.Catalogue, responses=_problems(422, 500), dependencies=[PUBLIC])
async def list_rules(
    jurisdiction: Annotated[str | None, Query(description="US-NJ or NZ; all when absent.")] = None,
) -> Response:
    """The rule catalogue: citation, title, status, and whether the service can check each rule."""
    return Response(_catalogue(jurisdiction), media_type=JSON)


@functools.lru_cache(maxsize=16)
def _catalogue(jurisdiction: str | None) -> bytes:
    return orjson.dumps({"rules": round_cases.rules(jurisdiction)})


@rules.get("/rulesets", response_model=schemas.Rulesets, responses=_problems(422, 500), dependencies=[PUBLIC])
async def list_rulesets() -> Response:
    """Every ruleset we hold: its jurisdiction, name and alias (as ?ruleset= of POST /v1/audit takes them), and
    the dates of the rounds it applies to."""
    return Response(_rulesets(), media_type=JSON)


@functools.cache
def _rulesets() -> bytes:
    return orjson.dumps({"rulesets": rulesets()})


@health.get("/healthz", response_model=schemas.Health, dependencies=[PUBLIC])
async def healthz(request: Request) -> Response:
    """The process is up (no database call)."""
    return Response(orjson.dumps({"status": "ok", "version": request.app.version}), media_type=JSON)


@health.get("/readyz", response_model=schemas.Ready, responses=_problems(500, 503), dependencies=[PUBLIC])
async def readyz(request: Request) -> Response:
    """Ready to serve: the database answers, within the database deadline, and its schema is at the migrations'
    head."""
    settings = request.app.state.settings
    retry = settings.retry_after_seconds
    try:
        with anyio.fail_after(settings.db_timeout_seconds):
            current, workers = await anyio.to_thread.run_sync(
                _readiness,
                get_database(request),
                settings,
                request.app.state.migration_heads,
                abandon_on_cancel=True,
            )
    except TimeoutError:
        return unavailable(
            request, retry, f"The database did not answer within {settings.db_timeout_seconds:g} s."
        )
    except Exception:  # noqa: BLE001 - any failure here means "not ready"
        return unavailable(request, retry, "The database cannot be reached.")
    heads = request.app.state.migration_heads
    if heads is None or current != heads:
        return unavailable(
            request,
            retry,
            f"The database schema is at {sorted(current) or 'no revision'}, the code needs {sorted(heads or [])}; "
            "run `alembic upgrade head`.",
        )
    replica = getattr(request.app.state, "replica", None)
    body = {
        "status": "ready",
        "database": get_database(request).engine.dialect.name,
        "revision": sorted(current),
        "batch_workers": workers,
        "read_replica": None
        if replica is None
        else (await anyio.to_thread.run_sync(replica.state, abandon_on_cancel=True)).as_json(),
    }
    return Response(orjson.dumps(body), media_type=JSON)


def _readiness(
    db: Database, settings: Settings, heads: frozenset[str] | None
) -> tuple[frozenset[str], int | None]:
    """The schema's revisions, and the batch workers alive (None when the service audits batches itself, or the
    schema is not at head: the queue's tables may not be there)."""
    with db.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
        current = migrate.current_revisions(conn)
    if not settings.uses_queue() or current != heads:
        return current, None
    from app.usecases.batch_queue import live_workers

    with db.reading() as session:
        return current, live_workers(session, settings.batch_stalled_seconds)


__all__ = ["rounds", "tables", "rules", "health", "PROBLEM_JSON"]
