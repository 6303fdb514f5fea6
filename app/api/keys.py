"""Key routes (admin scope): create, list, revoke API keys. The command line (`bjaudit keys ...`) does the same
with the database's own credentials."""

from __future__ import annotations

from typing import Annotated, Literal

import orjson
from fastapi import APIRouter, Path
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from app.api import schemas
from app.api.auth import Admin
from app.api.deps import JsonBody, UnitOfWorkDep, model_body
from app.usecases import keys as key_cases
from app.usecases.keys import SOURCE_PATTERN

router = APIRouter(prefix="/v1", tags=["keys"])
JSON = "application/json"
Scope = Literal["submit", "read", "admin"]


class KeyRequest(BaseModel):
    """A key to create."""

    model_config = ConfigDict(extra="forbid", strict=True)
    source: str | None = Field(
        default=None,
        pattern=SOURCE_PATTERN,
        description="The source the key acts for. Absent: the creating key's own source; a key for every source "
        "is created by a key of every source (or the command line) with `all_sources`.",
    )
    all_sources: bool = Field(default=False, description="A key for every source (read, admin; not submit).")
    scopes: list[Scope] = Field(min_length=1, description="submit, read, admin.")
    label: str = Field(
        min_length=1,
        max_length=200,
        pattern=r"^[^\x00]+$",  # stored as text: PostgreSQL's cannot hold NUL
        description="Who or what will use it.",
    )


class KeyInfo(BaseModel):
    key_id: str = Field(description="The key's public id (the key is bja_<key_id>_<secret>).")
    source: str | None = Field(description="The source it acts for; null: every source.")
    scopes: list[Scope]
    label: str
    created_at: str
    created_by: str | None
    revoked_at: str | None


class CreatedKey(KeyInfo):
    key: str = Field(description="The key itself. Shown only now: it is not stored, only its SHA-256.")


class KeyList(BaseModel):
    items: list[KeyInfo]


def _problems(*statuses: int) -> dict[int | str, dict[str, object]]:
    return {s: {"model": schemas.Problem, "description": "See the problem's detail."} for s in statuses}


@router.post(
    "/keys",
    status_code=201,
    response_model=CreatedKey,
    responses=_problems(404, 408, 413, 415, 422, 500, 503),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                JSON: {"schema": KeyRequest.model_json_schema(ref_template="#/components/schemas/{model}")}
            },
        }
    },
)
async def create_key(who: Admin, raw: JsonBody, uow: UnitOfWorkDep) -> Response:
    """Create an API key; the answer carries the key once."""
    # The key is checked first, and the body read through the one bounded reader (size, time): FastAPI would read a
    # model's body whole before any dependency, for anyone.
    body = model_body(raw, KeyRequest)
    # Absent: the creating key's own source (a key of every source must name one: 403 otherwise).
    source = None if body.all_sources else (body.source or who.writes(None))
    created = await uow.run(key_cases.create_key, source, body.scopes, body.label, who)
    return Response(orjson.dumps({**created.info, "key": created.key}), status_code=201, media_type=JSON)


@router.get("/keys", response_model=KeyList, responses=_problems(500, 503))
async def list_keys(who: Admin, uow: UnitOfWorkDep) -> Response:
    """The keys this admin key manages (its source's; every key for a key of every source). Never the secrets."""
    return Response(key_cases.keys_body(await uow.read(key_cases.list_keys, who)), media_type=JSON)


@router.delete("/keys/{key_id}", response_model=KeyInfo, responses=_problems(404, 422, 500, 503))
async def revoke_key(
    who: Admin,
    key_id: Annotated[str, Path(pattern=r"^[0-9a-f]{16}$", description="The key's public id.")],
    uow: UnitOfWorkDep,
) -> Response:
    """Revoke a key, effective at once. The key stays listed, with its revocation time."""
    return Response(orjson.dumps(await uow.run(key_cases.revoke_key, key_id, who)), media_type=JSON)
