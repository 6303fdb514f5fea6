"""Tamper evidence over HTTP: verify a source's hash chain, export its head signed. Read scope: a key of one source
verifies its own; a key of every source names the source (``?source=``)."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.api import schemas
from app.api.auth import Reader
from app.api.deps import UnitOfWorkDep, get_settings
from app.api.problems import DATABASE_503
from app.api.routes import JurisdictionQuery, RoundId
from app.api.routes import SourceQuery as RoundSourceParam
from app.usecases import integrity, transparency
from app.usecases.errors import InvalidQuery
from app.usecases.keys import SOURCE_PATTERN, Principal

JSON = "application/json"

router = APIRouter(prefix="/v1", tags=["integrity"])

SourceParam = Annotated[
    str | None,
    Query(
        pattern=SOURCE_PATTERN,
        description="The source whose chain to use: a key of one source uses its own (the default); a key of every "
        "source must name one.",
    ),
]


def _problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    descriptions = {
        404: "The source has no chain yet (nothing of it is stored), no such round, or no signed head of that size.",
        409: "Several stored rounds have that round_id (narrow with ?source= or ?jurisdiction=), or the round has no "
        "log entry (`bjaudit verify` says why).",
        422: "A parameter cannot be used (a key of every source must name ?source=).",
        500: "Unexpected error, or the service's signing key cannot be read.",
        503: DATABASE_503,
    }
    return {s: {"model": schemas.Problem, "description": descriptions[s]} for s in statuses}


def _source(who: Principal, source: str | None) -> str:
    chosen = who.reads(source)
    if chosen is None:
        raise InvalidQuery(
            "A key of every source names the source whose chain to use: ?source=.",
            errors=[{"in": "query", "parameter": "source", "detail": "required for a key of every source"}],
        )
    return chosen


def _key(request: Request) -> Any:
    return integrity.load_signing_key(get_settings(request).signing_key_file)


@router.get("/integrity", response_model=schemas.IntegrityReport, responses=_problems(422, 500, 503))
async def verify(
    request: Request,
    who: Reader,
    uow: UnitOfWorkDep,
    source: SourceParam = None,
    after: Annotated[
        int | None,
        Query(
            ge=1,
            description="Verify only what came after this entry (the `verified.seq` of an earlier answer).",
        ),
    ] = None,
    root: Annotated[
        str | None,
        Query(
            pattern="^[0-9a-f]{64}$",
            description="With `after`: the `verified.root` of that answer; the log must still give it.",
        ),
    ] = None,
) -> Response:
    """Walk the source's log and its stored rows, re-running every audit: the first entry modified, deleted,
    inserted or reordered, and a list of every problem (`ok` true when there is none). The walk stops before the
    request's deadline: `complete` false says how far it came, and `?after=&root=` goes on from there."""
    chosen = _source(who, source)
    if (after is None) != (root is None):
        raise InvalidQuery(
            "`after` and `root` go together: the `verified.seq` and `verified.root` of an earlier answer.",
            errors=[{"in": "query", "parameter": "after" if after is None else "root", "detail": "missing"}],
        )
    budget = max(get_settings(request).db_timeout_seconds * 0.6, 1.0)
    key = _key(request)

    def answer(session: Session) -> bytes:
        since = None
        if after is not None and root is not None:
            since = transparency.checkpoint_at(session, chosen, after, bytes.fromhex(root))
        return integrity.integrity_answer(session, chosen, key, since, budget)

    return Response(await uow.run(answer), media_type=JSON)


@router.get("/integrity/head", response_model=schemas.SignedHead, responses=_problems(404, 422, 500, 503))
async def head(request: Request, who: Reader, uow: UnitOfWorkDep, source: SourceParam = None) -> Response:
    """The source's chain head (last seq and hash) signed with the service's Ed25519 key: keep it outside the
    database; `bjaudit verify --head FILE` later shows whether the chain still holds it."""
    key_file = get_settings(request).signing_key_file

    def export(session: Session, chosen: str) -> bytes:
        return orjson.dumps(transparency.sign_head(session, chosen, integrity.load_signing_key(key_file)))

    return Response(await uow.run(export, _source(who, source)), media_type=JSON)


@router.get(
    "/integrity/consistency", response_model=schemas.ConsistencyProof, responses=_problems(404, 422, 500, 503)
)
async def consistency(
    request: Request,
    who: Reader,
    uow: UnitOfWorkDep,
    from_: Annotated[
        int, Query(alias="from", ge=1, description="The size of the earlier log (a head you hold).")
    ],
    to: Annotated[
        int | None,
        Query(ge=1, description="The size of a later signed head (default: the latest, signed now)."),
    ] = None,
    source: SourceParam = None,
) -> Response:
    """RFC 9162 consistency proof that the log of `from` entries (a head you hold) is the beginning of the signed
    head of `to` entries: the log was only appended to in between."""
    key, chosen = _key(request), _source(who, source)
    body = await uow.run(lambda s: orjson.dumps(transparency.consistency(s, key, chosen, from_, to)))
    return Response(body, media_type=JSON)


@router.get(
    "/rounds/{round_id}/proof",
    response_model=schemas.InclusionProof,
    responses=_problems(404, 409, 422, 500, 503),
)
async def proof(
    request: Request,
    who: Reader,
    uow: UnitOfWorkDep,
    round_id: RoundId,
    source: RoundSourceParam = None,
    jurisdiction: JurisdictionQuery = None,
    tree_size: Annotated[
        int | None,
        Query(ge=1, description="Prove against the signed head of this size (default: the latest)."),
    ] = None,
) -> Response:
    """RFC 9162 inclusion proof of the round's log entry in a signed tree head: that it was recorded, unchanged,
    without handing over the whole log."""
    key, chosen = _key(request), who.reads(source)
    body = await uow.run(
        lambda s: orjson.dumps(transparency.round_proof(s, key, round_id, chosen, jurisdiction, tree_size))
    )
    return Response(body, media_type=JSON)


@router.get(
    "/rounds/{round_id}/evidence",
    response_model=schemas.EvidencePacket,
    responses=_problems(404, 409, 422, 500, 503),
)
async def evidence(
    request: Request,
    who: Reader,
    uow: UnitOfWorkDep,
    round_id: RoundId,
    source: RoundSourceParam = None,
    jurisdiction: JurisdictionQuery = None,
) -> Response:
    """The round's evidence packet: its record's exact bytes, its audits, the registration it was audited by, each
    entry's inclusion proof and the signed head, in one file that `bjaudit check-evidence` checks offline."""
    key, chosen = _key(request), who.reads(source)
    body = await uow.run(
        lambda s: orjson.dumps(
            transparency.evidence(s, key, round_id, chosen, jurisdiction), option=orjson.OPT_INDENT_2
        )
    )
    filename = f"evidence-{round_id}.json"
    return Response(
        body, media_type=JSON, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
