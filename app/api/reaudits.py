"""Re-audit routes: re-run stored rounds with the current engine (a background job of the batch machinery), and
follow it. docs/service.md, "Re-audits"."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

import anyio.to_thread
import orjson
from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.api import schemas
from app.api.auth import Admin, Reader
from app.api.deps import JsonBody, UnitOfWorkDep
from app.api.problems import DATABASE_503
from app.usecases import reaudits
from app.usecases.keys import SOURCE_PATTERN
from app.wire.reaudit import ReauditRequest

log = logging.getLogger("bjaudit.api.reaudits")
JSON = "application/json"

router = APIRouter(prefix="/v1", tags=["re-audits"])

ReauditId = Annotated[
    str, Path(pattern=r"^ra_[0-9a-f]{24}$", description="The re-audit's id, as POST /v1/reaudit answered it.")
]
SourceQuery = Annotated[
    str | None,
    Query(
        pattern=SOURCE_PATTERN,
        max_length=128,
        description="For a key of every source: only this source's rounds (default: every source's).",
    ),
]


class ReauditAccepted(BaseModel):
    reaudit_id: str
    location: str
    round_count: int = Field(
        description="The stored rounds it takes (fixed now: rounds stored later are not)."
    )
    chunks: int


class ReauditCounts(BaseModel):
    rounds: int
    audited: int = Field(description="Rounds re-audited so far.")
    changed: int = Field(description="Rounds given a new audit: the result differs from their latest audit.")
    unchanged: int = Field(description="Rounds whose audit came out the same, byte for byte: nothing stored.")
    unreadable: int = Field(description="Rounds whose stored record today's parser refuses: no new audit.")


class ReauditStatus(BaseModel):
    reaudit_id: str
    source: str | None = Field(description="Whose rounds (null: every source's).")
    scope: dict[str, Any] = Field(description="What the request narrowed to: from, to, table, jurisdiction.")
    reason: str
    requested_by: str | None
    state: Literal["queued", "processing", "done"]
    created_at: str
    finished_at: str | None
    chunks: int
    chunks_done: int
    counts: ReauditCounts


def _problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    text = {
        404: "No such re-audit (or not this key's source's).",
        408: "The body did not arrive within BJAUDIT_BODY_TIMEOUT_SECONDS. Nothing was started.",
        413: "The body is over BJAUDIT_MAX_BODY_BYTES. Nothing was started.",
        415: "The body is not JSON (Content-Type must be application/json, UTF-8). Nothing was started.",
        422: "The request cannot be used; `errors` has one entry per problem with its JSON pointer.",
        500: "Unexpected error (logged).",
        503: DATABASE_503,
    }
    return {s: {"model": schemas.Problem, "description": text[s]} for s in statuses}


@router.post(
    "/reaudit",
    status_code=202,
    response_model=ReauditAccepted,
    responses={
        202: {"description": "Recorded; the rounds are being re-audited. Follow `Location`."},
        **_problems(408, 413, 415, 422, 500, 503),
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {JSON: {"schema": ReauditRequest.model_json_schema(by_alias=True)}},
        }
    },
)
async def start_reaudit(
    request: Request, who: Admin, body: JsonBody, uow: UnitOfWorkDep, source: SourceQuery = None
) -> Response:
    """Re-audit stored rounds with the current engine and rules modules, in the background: every audit is kept
    (a round gets a new one only when the result differs from its latest); the lookup lists them all, search and
    reports use the latest."""
    started = await uow.run(reaudits.request, body, who.reads(source), who.attribution)
    runner = request.app.state.batch_runner
    try:
        await anyio.to_thread.run_sync(runner.submit_reaudit, started.chunks)
    except Exception:  # noqa: BLE001 - recorded: the workers' rescue (or a restart) queues its chunks
        log.exception("re-audit %s recorded, but its chunks could not be queued now", started.reaudit_id)
    location = f"/v1/reaudit/{started.reaudit_id}"
    return Response(
        orjson.dumps(
            {
                "reaudit_id": started.reaudit_id,
                "location": location,
                "round_count": started.round_count,
                "chunks": len(started.chunks),
            }
        ),
        status_code=202,
        media_type=JSON,
        headers={"Location": location},
    )


@router.get("/reaudit/{reaudit_id}", response_model=ReauditStatus, responses=_problems(404, 422, 500, 503))
async def get_reaudit(who: Reader, reaudit_id: ReauditId, uow: UnitOfWorkDep) -> Response:
    """A re-audit's progress: rounds re-audited, changed, unchanged, unreadable."""
    return Response(orjson.dumps(await uow.read(reaudits.status, reaudit_id, who.source)), media_type=JSON)
