"""Alert routes (issue 22): webhook subscriptions (admin scope), their deliveries, and alerts with their
acknowledgement (read scope). :mod:`app.usecases.alerts` says how alerts are found and delivered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, Path, Query
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from app.api import schemas
from app.api.auth import Admin, Reader
from app.api.deps import JsonBody, SettingsDep, UnitOfWorkDep, model_body
from app.api.streams import HEADERS, MEDIA_TYPE, event, follow
from app.usecases import alerts as alert_cases
from app.usecases.keys import SOURCE_PATTERN

router = APIRouter(prefix="/v1", tags=["alerts"])
JSON = "application/json"
SUBSCRIPTION_ID = Annotated[str, Path(pattern=r"^sub_[0-9a-f]{16}$", description="The subscription's id.")]
ALERT_ID = Annotated[
    str,
    Path(
        pattern=r"^[A-Za-z0-9._:-]{1,128}:[1-9][0-9]{0,18}:[0-9]{1,4}$",
        description="<source>:<seq>:<index>: the finding ``index`` of the round at entry ``seq`` of the source's chain.",
    ),
]
Names = list[Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[^\x00]+$")]]


class SubscriptionRequest(BaseModel):
    """A webhook to register: where, signed by what, and which findings (every finding when no filter is given)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    url: str = Field(
        min_length=8,
        max_length=2000,
        pattern=r"^https?://[^\s\x00]+$",
        description="Where each matching finding is POSTed (http or https). Loopback, private, link-local and reserved "
        "addresses are refused unless BJAUDIT_WEBHOOKS_ALLOW_PRIVATE=true.",
    )
    secret: str | None = Field(
        default=None,
        max_length=200,
        description="The signing secret as Standard Webhooks writes it: 'whsec_' + base64 of 24 to 64 random bytes. "
        "Absent: one is made, and answered once.",
    )
    source: str | None = Field(
        default=None,
        pattern=SOURCE_PATTERN,
        description="The source whose findings are sent: the key's own (a key of every source must name one).",
    )
    rules: Names | None = Field(
        default=None, max_length=200, description="Only these rules (a rule's id or an also-cited number)."
    )
    categories: Names | None = Field(
        default=None, max_length=50, description="Only these categories (payout, dealer_draw ...)."
    )
    tables: Names | None = Field(
        default=None, max_length=1000, description="Only the findings of these tables."
    )
    min_amount: int | None = Field(
        default=None,
        ge=1,
        le=10**12,
        description="Only findings owing at least this much either way, minor units (findings not about money are left out).",
    )


class Subscription(BaseModel):
    id: str
    source: str
    url: str
    rules: list[str] | None
    categories: list[str] | None
    tables: list[str] | None
    min_amount: int | None
    created_at: str
    created_by: str
    state: str = Field(
        description="active, retrying (the last delivery failed: see next_attempt_at) or paused."
    )
    paused_at: str | None
    paused_reason: str | None = Field(description="Why it was paused, and how to resume it.")
    delivered: int
    failures_in_a_row: int
    next_attempt_at: str | None
    last_error: str | None
    position: dict[str, int | None] = Field(
        description="How far delivery has got: the chain entry (seq) and its finding (index) delivered or passed last; "
        "index null: every finding of that entry."
    )


class CreatedSubscription(Subscription):
    secret: str = Field(description="The signing secret. Answered only now.")


class SubscriptionList(BaseModel):
    items: list[Subscription]


class Delivery(BaseModel):
    id: int
    alert_id: str = Field(description="The webhook-id sent: receivers de-duplicate by it.")
    attempted_at: str
    outcome: str = Field(
        description="delivered (2xx), failed, or refused (not sent: the address is not allowed)."
    )
    status: int | None
    error: str | None
    seconds: float
    latency_seconds: float | None = Field(description="From the round's receipt to the receiver's answer.")


class DeliveryList(BaseModel):
    items: list[Delivery]
    next_before: int | None = Field(description="Pass as ?before= for the older deliveries; null at the end.")


class AcknowledgementRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    note: str | None = Field(default=None, max_length=1000, pattern=r"^[^\x00]*$")


class Acknowledgement(BaseModel):
    alert_id: str
    acknowledged_at: str
    acknowledged_by: str
    key_id: str | None
    note: str | None


def _problems(*statuses: int) -> dict[int | str, dict[str, object]]:
    return {s: {"model": schemas.Problem, "description": "See the problem's detail."} for s in statuses}


def _body_of(model: type[BaseModel]) -> dict[str, Any]:
    return {
        "requestBody": {
            "required": True,
            "content": {
                JSON: {"schema": model.model_json_schema(ref_template="#/components/schemas/{model}")}
            },
        }
    }


def _json(doc: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(doc), status_code=status, media_type=JSON, headers=headers)


@router.post(
    "/subscriptions",
    status_code=201,
    response_model=CreatedSubscription,
    responses=_problems(403, 408, 413, 415, 422, 500, 503),
    openapi_extra=_body_of(SubscriptionRequest),
)
async def create_subscription(
    who: Admin, raw: JsonBody, uow: UnitOfWorkDep, settings: SettingsDep
) -> Response:
    """Register a webhook: every finding of the source's rounds stored from now on that matches the filters is
    POSTed to the URL, signed (Standard Webhooks), at least once and in order."""
    body = model_body(raw, SubscriptionRequest)
    new = alert_cases.NewSubscription(
        body.url, body.secret, body.rules, body.categories, body.tables, body.min_amount
    )
    allow = settings.webhooks_allow_private
    created = await uow.run(alert_cases.create_subscription, who, body.source, new, allow)
    if alert_cases.DELIVERER is not None:
        alert_cases.DELIVERER.wake()
    return _json(created, 201, {"Location": f"/v1/subscriptions/{created['id']}"})


@router.get("/subscriptions", response_model=SubscriptionList, responses=_problems(403, 422, 500, 503))
async def list_subscriptions(
    who: Admin,
    uow: UnitOfWorkDep,
    source: Annotated[str | None, Query(pattern=SOURCE_PATTERN, description="Only this source's.")] = None,
) -> Response:
    """The webhooks this key manages (its source's; every source's for a key of every source)."""
    return _json({"items": await uow.read(alert_cases.list_subscriptions, who, source)})


@router.get("/subscriptions/{sub_id}", response_model=Subscription, responses=_problems(404, 422, 500, 503))
async def get_subscription(who: Admin, sub_id: SUBSCRIPTION_ID, uow: UnitOfWorkDep) -> Response:
    """A webhook: its filters, how far delivery has got, and why it is paused if it is."""
    return _json(await uow.read(alert_cases.get_subscription, who, sub_id))


@router.delete("/subscriptions/{sub_id}", status_code=204, responses=_problems(404, 422, 500, 503))
async def delete_subscription(who: Admin, sub_id: SUBSCRIPTION_ID, uow: UnitOfWorkDep) -> Response:
    """Stop a webhook, at once. Its deliveries stay listed."""
    await uow.run(alert_cases.delete_subscription, who, sub_id)
    return Response(status_code=204)


@router.post(
    "/subscriptions/{sub_id}/resume", response_model=Subscription, responses=_problems(404, 422, 500, 503)
)
async def resume_subscription(who: Admin, sub_id: SUBSCRIPTION_ID, uow: UnitOfWorkDep) -> Response:
    """Deliver again to a paused webhook, from the alert it stopped at."""
    resumed = await uow.run(alert_cases.resume_subscription, who, sub_id)
    if alert_cases.DELIVERER is not None:
        alert_cases.DELIVERER.wake()
    return _json(resumed)


@router.get(
    "/subscriptions/{sub_id}/deliveries", response_model=DeliveryList, responses=_problems(404, 422, 500, 503)
)
async def list_deliveries(
    who: Admin,
    sub_id: SUBSCRIPTION_ID,
    uow: UnitOfWorkDep,
    before: Annotated[
        int | None, Query(ge=1, le=2**63 - 1, description="Deliveries older than this id.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> Response:
    """A webhook's delivery attempts, newest first: each alert sent, the receiver's answer, how long it took."""
    return _json(await uow.read(alert_cases.list_deliveries, who, sub_id, before, limit))


@router.get("/alerts/{alert_id}", responses=_problems(404, 422, 500, 503))
async def get_alert(who: Reader, alert_id: ALERT_ID, uow: UnitOfWorkDep, settings: SettingsDep) -> Response:
    """An alert (a finding of a stored round's first audit) as webhooks and the stream send it, with its
    acknowledgement."""
    return _json(await uow.read(alert_cases.alert_answer, who, alert_id, settings.public_url))


@router.post(
    "/alerts/{alert_id}/acknowledgement",
    status_code=201,
    response_model=Acknowledgement,
    responses={
        200: {"model": Acknowledgement, "description": "Acknowledged before: that acknowledgement."},
        **_problems(404, 413, 415, 422, 500, 503),
    },
    openapi_extra=_body_of(AcknowledgementRequest),
)
async def acknowledge(who: Reader, alert_id: ALERT_ID, raw: JsonBody, uow: UnitOfWorkDep) -> Response:
    """Acknowledge an alert, attributed to this key: 201 now, 200 with the earlier acknowledgement if there is one
    (an alert is acknowledged once)."""
    body = model_body(raw, AcknowledgementRequest)
    new, ack = await uow.run(alert_cases.acknowledge, who, alert_id, body.note)
    return _json(ack, 201 if new else 200)


NameQuery = Annotated[
    list[Annotated[str, Query(min_length=1, max_length=128, pattern=r"^[^\x00]+$")]] | None, Query()
]
STREAM_DESCRIPTION = """Server-Sent Events (`text/event-stream`): each alert (a finding of a round of the source stored
from now on, or after `Last-Event-ID`) that matches the filters, as `id:` the alert's id, `event: finding` and
`data:` the alert as JSON (what webhooks send as `data`), in the order of the source's chain. A comment
(`: keep-alive`) every 15 s of silence. Reconnect with the last id received as `Last-Event-ID` (or `?after=`):
nothing is missed and nothing repeated. An answer ends after BJAUDIT_STREAM_MAX_SECONDS (then reconnect). One source
per stream: a key of every source names it (`?source=`). docs/alerts.md."""


@router.get(
    "/findings/stream",
    response_class=StreamingResponse,
    responses={
        200: {"content": {MEDIA_TYPE: {"schema": {"type": "string"}}}, "description": STREAM_DESCRIPTION},
        **_problems(403, 422, 500, 503),
    },
)
async def stream(
    who: Reader,
    uow: UnitOfWorkDep,
    settings: SettingsDep,
    source: Annotated[
        str | None,
        Query(
            pattern=SOURCE_PATTERN,
            description="The source streamed: the key's own (a key of every source names one).",
        ),
    ] = None,
    rules: Annotated[
        NameQuery, Query(description="Only these rules (repeat the parameter for more).")
    ] = None,
    categories: Annotated[NameQuery, Query(description="Only these categories.")] = None,
    tables: Annotated[NameQuery, Query(description="Only the findings of these tables.")] = None,
    min_amount: Annotated[
        int | None,
        Query(ge=1, le=10**12, description="Only findings owing at least this much either way, minor units."),
    ] = None,
    after: Annotated[
        str | None,
        Query(
            max_length=200,
            description="Start after this alert id (for clients that cannot send Last-Event-ID).",
        ),
    ] = None,
    last_event_id: Annotated[
        str | None, Header(max_length=200, description="Start after this alert id (EventSource sends it).")
    ] = None,
) -> StreamingResponse:
    """Follow the findings of a source as they are stored (Server-Sent Events), filtered as webhooks are."""
    streamed = alert_cases.stream_source(who, source)
    filters = alert_cases.Filters(
        None if rules is None else frozenset(rules),
        None if categories is None else frozenset(categories),
        None if tables is None else frozenset(tables),
        min_amount,
    )
    start = await uow.read(alert_cases.stream_start, streamed, last_event_id or after)
    public_url = settings.public_url

    async def events() -> AsyncIterator[bytes]:
        async for item in follow(
            uow, streamed, start, filters, settings.webhook_poll_seconds, settings.stream_max_seconds
        ):
            if isinstance(item, bytes):
                yield item
            else:
                yield b"".join(event(a.id, "finding", a.body(public_url)) for a in item)

    return StreamingResponse(events(), media_type=MEDIA_TYPE, headers=HEADERS)
