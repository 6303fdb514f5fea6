"""Shoe reconciliation over HTTP: ``GET /v1/shoes/{shoe_id}`` (read scope)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.api import schemas
from app.api.auth import Reader
from app.api.deps import UnitOfWorkDep
from app.api.routes import JSON, _problems
from app.usecases import shoes as shoe_cases
from app.usecases.keys import SOURCE_PATTERN

router = APIRouter(prefix="/v1", tags=["shoes"])


class ShoeRoundSummary(BaseModel):
    round_id: str
    played_at: str = Field(description="RFC 3339, UTC.")
    table_id: str
    decks: int | None = Field(description="The decks of the round's table; null when nothing states them.")
    decks_source: Literal["record", "registered", "defaults"] | None = Field(
        description="Where decks come from: the record's table.rules, the registration its audit applied, or the "
        "jurisdiction's defaults."
    )
    cards: int | None = Field(
        description="Cards the round took from the shoe: its deals and its burns; null when its record cannot be "
        "read."
    )
    burned: int | None = Field(
        description="Of `cards`, those burned (`burn` events: discarded, on no hand); null when its record cannot "
        "be read."
    )


class ShoeFindingRound(BaseModel):
    round_id: str
    event: int | None = Field(
        description="0-based index of the deal (or burn) that showed the card; null for a decks finding."
    )
    decks: int | None = Field(default=None, description="For a decks finding: the decks this round states.")
    burned: bool | None = Field(
        default=None,
        description="For an over-count: whether this sighting was a burn (true) or a deal (false).",
    )


class ShoeFinding(BaseModel):
    """A departure found across the shoe's rounds. Its rule is a check of the game's fundamentals whose provision
    we do not hold (citation_status uncited)."""

    rule: str = Field(
        description="uncited:shoe-card-over-count, uncited:shoe-decks-disagree, uncited:shoe-round-unreadable."
    )
    citation: str
    citation_status: Literal["verified", "unverified", "uncited"]
    title: str
    category: str
    message: str
    expected: Any = Field(
        default=None, description="Over-count: the copies the shoe holds; decks: the usual number."
    )
    actual: Any = Field(default=None, description="Over-count: the times seen; decks: every number stated.")
    card: str | None = Field(description="The card seen too often (over-count only).")
    rounds: list[ShoeFindingRound] = Field(description="The rounds involved (an over-count: every sighting).")


class ShoeReconciliation(BaseModel):
    """A shoe's rounds counted card by card against the decks it holds."""

    shoe_id: str
    source: str
    jurisdiction: str
    decks: int | None = Field(
        description="The decks the shoe's rounds state; null when none states them or they disagree."
    )
    copies_allowed: int = Field(
        description="Copies of each card the count allowed: the decks; where rounds disagree, the most any states; "
        "where none states them, 8 (the most a table may use)."
    )
    card_count: int = Field(description="Cards used in all: dealt or burned.")
    burn_count: int = Field(description="Of `card_count`, the cards burned.")
    rounds: list[ShoeRoundSummary] = Field(description="The shoe's rounds, in the order played.")
    cards_seen: dict[str, int] = Field(
        description="How often each card left the shoe, dealt (a hole card once, not again when revealed) or burned "
        "(round-v1 section 2.3: a burned card counts toward the copies of its card), in deck order.",
        examples=[{"AC": 2, "7D": 1, "KS": 3}],
    )
    cards_burned: dict[str, int] = Field(
        description="Of `cards_seen`, how often each card was burned (the cards never burned left out), in deck "
        "order.",
        examples=[{"7D": 1}],
    )
    findings: list[ShoeFinding]


ShoeId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=128,
        pattern=r"^[^\x00]+$",
        description="The shoe, as rounds name it in shoe_id (URL-encoded).",
    ),
]


@router.get(
    "/shoes/{shoe_id:any}",
    response_model=ShoeReconciliation,
    responses={
        **_problems(500, 503),
        404: {
            "model": schemas.Problem,
            "description": "No stored round (of the key's source) has that shoe_id.",
        },
        409: {
            "model": schemas.Problem,
            "description": "Rounds of several sources or jurisdictions have that shoe_id: narrow with ?source= "
            "and/or ?jurisdiction= (`candidates` lists them).",
        },
        422: {
            "model": schemas.Problem,
            "description": f"A parameter cannot be used, or the shoe has more than {shoe_cases.MAX_SHOE_ROUNDS} "
            "rounds (`shoe-too-large`).",
        },
    },
)
async def reconcile_shoe(
    who: Reader,
    shoe_id: ShoeId,
    uow: UnitOfWorkDep,
    source: Annotated[
        str | None,
        Query(pattern=SOURCE_PATTERN, description="The submitter, if several stored rounds of this shoe_id."),
    ] = None,
    jurisdiction: Annotated[
        str | None, Query(description="The jurisdiction, if rounds of several have this shoe_id.")
    ] = None,
) -> Response:
    """Shoe reconciliation: the rounds of one shoe share one card supply, so no card may be seen across them more
    often than its decks hold it. The shoe's rounds, the cards seen (burned cards counted, and shown apart), and
    each over-count as a finding naming the rounds involved (at most 2000 rounds)."""
    body = await uow.look(shoe_cases.reconcile_shoe, shoe_id, who.reads(source), jurisdiction)
    return Response(body, media_type=JSON)
