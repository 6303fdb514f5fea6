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
        404: "The source has no chain yet (nothing of it is stored).",
        422: "A parameter cannot be used (a key of every source must name ?source=).",
        500: "Unexpected error, or the service's signing key cannot be read.",
        503: "The database is unreachable, or did not answer within BJAUDIT_DB_TIMEOUT_SECONDS (a chain too long "
        "to walk in that time is verified with `bjaudit verify`); retry after `Retry-After` seconds.",
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


@router.get("/integrity", response_model=schemas.IntegrityReport, responses=_problems(422, 500, 503))
async def verify(who: Reader, uow: UnitOfWorkDep, source: SourceParam = None) -> Response:
    """Walk the source's hash chain and its stored rows: the first entry modified, deleted, inserted or reordered,
    and a list of every problem (`ok` true when there is none)."""
    return Response(await uow.read(integrity.integrity_answer, _source(who, source)), media_type=JSON)


@router.get("/integrity/head", response_model=schemas.SignedHead, responses=_problems(404, 422, 500, 503))
async def head(request: Request, who: Reader, uow: UnitOfWorkDep, source: SourceParam = None) -> Response:
    """The source's chain head (last seq and hash) signed with the service's Ed25519 key: keep it outside the
    database; `bjaudit verify --head FILE` later shows whether the chain still holds it."""
    key_file = get_settings(request).signing_key_file

    def export(session: Session, chosen: str) -> bytes:
        return orjson.dumps(transparency.sign_head(session, chosen, integrity.load_signing_key(key_file)))

    return Response(await uow.run(export, _source(who, source)), media_type=JSON)
