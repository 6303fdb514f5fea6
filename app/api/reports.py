"""Report routes: what the stored rounds add up to, for auditors. Read scope; a key of one source reports on its
own rounds only."""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.api import schemas
from app.api.auth import Reader
from app.api.deps import UnitOfWorkDep
from app.api.problems import DATABASE_503
from app.api.routes import _instant
from app.store.reports import GroupBy, Summary
from app.store.rollups import Page
from app.usecases import reports as report_cases
from app.usecases.keys import SOURCE_PATTERN

JSON = "application/json"
CSV = "text/csv"
DEFAULT_GROUPS = 1000
"""The groups of a page of a JSON report when ?limit= is not given."""

router = APIRouter(prefix="/v1", tags=["reports"])

_OWED = (
    "in minor units, over the findings counted in `findings` (round-v1 section 4: amount_delta is money owed to (+) "
    "or by (-) the player)"
)
_COUNTS = {
    "rounds_with_findings": "Of `rounds`, those with at least one finding of any category (an unreplayable round's "
    "`record` findings included).",
    "findings": "Findings of those rounds, every category.",
    "owed_to_players": f"Money owed to players, {_OWED}: the sum of the positive amount_delta. Findings without "
    "an amount_delta count nothing.",
    "owed_by_players": f"Money owed by players, as a POSITIVE amount, {_OWED}: the sum of the negative "
    "amount_delta, sign reversed. Not netted against `owed_to_players`.",
    "voided_rounds": "Of `rounds`, those declared void (a `void` event, round-v1 section 2.3), by their latest audit.",
    "corrected_findings": "Of `findings`, those the table corrected (a later `settle` with `corrects` replaced the "
    "settlement at fault: the finding's `corrected_by` is set): errors caught at the table.",
    "corrected_still_owed": "The sum of the amount_delta of `corrected_findings`, in minor units, signed (+ owed to "
    "players, - owed by them): what the table's corrections left owed; 0 when every correction was right. Already "
    "counted in `owed_to_players` / `owed_by_players`, which are what is still owed after every correction.",
    "void_rate": "`voided_rounds / rounds`, to 6 decimal places; null where `rounds` is 0.",
    "error_rate": "`rounds_with_findings / rounds`, to 6 decimal places; null where `rounds` is 0.",
}
_NOT_BY_RULE = " Null by rule (a rule's `rounds` are the rounds with its findings, not a round count)."


class SummaryGroup(BaseModel):
    """One group of the summary."""

    key: str | None = Field(
        description="The group's value: the rule (a finding's `rule`, as its instrument numbers it; a rule number "
        "spelt alike in two jurisdictions is one group unless ?jurisdiction= narrows), the table id, the dealer "
        "(`dealer_id`), the shoe (`shoe_id`), or the day: the UTC date (YYYY-MM-DD) of `played_at`. Null: the "
        "rounds recorded without a dealer_id (or shoe_id)."
    )
    rounds: int = Field(
        description="Rounds in the group. By rule: the rounds with at least one finding under the rule (a round with "
        "findings under two rules is in both groups). By table, dealer, shoe or day: every round of that table, "
        "dealer, shoe or day, compliant ones included (each round is in exactly one group)."
    )
    rounds_with_findings: int = Field(
        description=_COUNTS["rounds_with_findings"] + " By rule, equal to `rounds`."
    )
    findings: int = Field(
        description="Findings of the group's rounds, every category; by rule, only the findings under the rule."
    )
    owed_to_players: int = Field(description=_COUNTS["owed_to_players"])
    owed_by_players: int = Field(description=_COUNTS["owed_by_players"])
    voided_rounds: int = Field(
        description=_COUNTS["voided_rounds"] + " By rule: of the rounds with a finding under the rule."
    )
    corrected_findings: int = Field(description=_COUNTS["corrected_findings"])
    corrected_still_owed: int = Field(description=_COUNTS["corrected_still_owed"])
    void_rate: float | None = Field(description=_COUNTS["void_rate"] + _NOT_BY_RULE)
    error_rate: float | None = Field(description=_COUNTS["error_rate"] + _NOT_BY_RULE)


class SummaryTotals(BaseModel):
    """Every round of the report (its range, source and jurisdiction), each counted once, with all its findings.
    By table, dealer, shoe or day, the sum of the groups. By rule, `findings` and the money are the sums of the
    groups, but `rounds` also counts the compliant rounds, and `rounds_with_findings` counts a round once whatever
    rules its findings cite."""

    rounds: int = Field(description="Rounds of the report, compliant ones included.")
    rounds_with_findings: int = Field(description=_COUNTS["rounds_with_findings"])
    findings: int = Field(description=_COUNTS["findings"])
    owed_to_players: int = Field(description=_COUNTS["owed_to_players"])
    owed_by_players: int = Field(description=_COUNTS["owed_by_players"])
    voided_rounds: int = Field(description=_COUNTS["voided_rounds"])
    corrected_findings: int = Field(description=_COUNTS["corrected_findings"])
    corrected_still_owed: int = Field(description=_COUNTS["corrected_still_owed"])
    void_rate: float | None = Field(description=_COUNTS["void_rate"])
    error_rate: float | None = Field(description=_COUNTS["error_rate"])


class AlertWaits(BaseModel):
    """Seconds from each round's receipt to its alert's acknowledgement; null when none was acknowledged."""

    median: float | None
    p90: float | None = Field(description="The 90th percentile, by nearest rank (a wait that occurred).")
    max: float | None


class AlertFigures(BaseModel):
    """The alerts of the report's rounds (issue 22): the findings of each round's first audit, what the pit was
    alerted to (a re-audit's findings alert no one), and how long they waited for a supervisor's acknowledgement.
    Not in the CSV."""

    alerts: int = Field(description="Findings of the first audits of the report's rounds.")
    acknowledged: int = Field(description="Of `alerts`, those a supervisor acknowledged (at any time).")
    not_acknowledged: int = Field(description="`alerts - acknowledged`.")
    wait_seconds: AlertWaits


class SummaryReport(BaseModel):
    """The stored rounds played in a range, their findings and the money at stake, grouped."""

    group_by: Literal["rule", "table", "dealer", "shoe", "day"] = Field(description="As asked (?group_by=).")
    from_: str | None = Field(
        alias="from", description="Rounds played at or after this time (RFC 3339, UTC); null: no bound."
    )
    to: str | None = Field(description="Rounds played before this time (RFC 3339, UTC); null: no bound.")
    source: str | None = Field(
        description="The source reported on; null: every source (a key of every source, without ?source=)."
    )
    jurisdiction: str | None = Field(description="The jurisdiction reported on; null: every one.")
    groups: list[SummaryGroup] = Field(
        description="A page of the groups with at least one round (?limit=, 1,000 by default), by key (in code point "
        "order: days in time order), the null key last. A page may hold fewer than `limit` groups and still have a "
        "next one (a group that re-audits emptied is left out)."
    )
    totals: SummaryTotals = Field(description="Of the whole report, on every page.")
    alerts: AlertFigures = Field(description="Of the whole report, on every page.")
    next_cursor: str | None = Field(
        description="The next page of the groups: send it back as ?cursor= with the same other parameters. Null on "
        "the last page."
    )


CSV_ANSWER = (
    "With `Accept: text/csv` or `?format=csv`: the same report as CSV (RFC 4180, UTF-8, CRLF), as an attachment "
    "(`Content-Disposition`). A header row `row,<group_by>,rounds,rounds_with_findings,findings,owed_to_players,"
    "owed_by_players,voided_rounds,corrected_findings,corrected_still_owed,void_rate,error_rate`; one row per group "
    "(`row` is `group`), then the totals (`row` is `total`, the key empty). Money in minor units, as integers; rates "
    "as decimals, an empty cell where the JSON has null; a key that a spreadsheet would read as a formula (starting "
    "with = + - @) is written with a leading `'`. An empty key in a group row is the null key. The CSV is the "
    'export: every group, unless ?limit= asks for a page (then a `Link` header with `rel="next"` gives the next '
    "page's URL, and the totals row is still the whole report's)."
)


def _problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    descriptions = {
        422: "A parameter cannot be used (group_by or format not one of those listed, a bad date, a limit out of "
        "range, a cursor not issued for this grouping); `errors` names it.",
        500: "Unexpected error (no internals disclosed).",
        503: DATABASE_503,
    }
    return {s: {"model": schemas.Problem, "description": descriptions[s]} for s in statuses}


def wants_csv(fmt: str | None, accept: str | None) -> bool:
    """``?format=`` decides; else the most preferred of CSV and JSON in ``Accept`` (the first listed at equal
    quality; wildcards count as JSON), JSON when it names neither.

    >>> wants_csv("csv", None), wants_csv("json", "text/csv"), wants_csv(None, None), wants_csv(None, "*/*")
    (True, False, False, False)
    >>> wants_csv(None, "text/csv"), wants_csv(None, "application/json;q=0.5, text/csv")
    (True, True)
    >>> wants_csv(None, "application/json, text/csv"), wants_csv(None, "text/csv;q=0, */*")
    (False, False)
    """
    if fmt is not None:
        return fmt == "csv"
    ranked: list[tuple[float, int, str]] = []
    for i, item in enumerate((accept or "").split(",")):
        media, *params = (p.strip() for p in item.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0:
            ranked.append((-q, i, media.lower()))
    for _, _, media in sorted(ranked):
        if media in (CSV, "text/*"):
            return True
        if media in (JSON, "application/*", "*/*"):
            return False
    return False


@router.get(
    "/reports/summary",
    response_model=SummaryReport,
    responses={
        200: {
            "description": "The summary, as JSON (the default) or CSV.",
            "content": {CSV: {"schema": {"type": "string", "description": CSV_ANSWER}}},
            "headers": {
                "Content-Disposition": {
                    "description": 'CSV only: `attachment; filename="bjaudit-summary-by-<group_by>[-from-<from>]'
                    '[-to-<to>].csv"`.',
                    "schema": {"type": "string"},
                },
            },
        },
        **_problems(422, 500, 503),
    },
)
async def summary_report(
    who: Reader,
    request: Request,
    uow: UnitOfWorkDep,
    group_by: Annotated[
        GroupBy,
        Query(
            description="rule (a round is in the group of every rule it has a finding under), table, dealer, shoe, "
            "or day (the UTC date of played_at)."
        ),
    ],
    played_from: Annotated[
        str | None,
        Query(
            alias="from",
            description="Rounds played at or after: RFC 3339 timestamp with offset, or a date (midnight UTC).",
        ),
    ] = None,
    played_to: Annotated[
        str | None,
        Query(alias="to", description="Rounds played before: RFC 3339 timestamp with offset, or a date."),
    ] = None,
    source: Annotated[
        str | None,
        Query(
            pattern=SOURCE_PATTERN,
            description="Submitting table system (a key of one source reports on its own only; a key of every "
            "source on all, or the one named).",
        ),
    ] = None,
    jurisdiction: Annotated[str | None, Query()] = None,
    fmt: Annotated[
        Literal["json", "csv"] | None,
        Query(alias="format", description="json or csv; overrides the Accept header (default: JSON)."),
    ] = None,
    limit: Annotated[
        int | None,
        Query(
            ge=1,
            le=report_cases.MAX_GROUPS,
            description="Groups on a page (JSON: 1,000 by default; CSV: every group unless given). The totals are "
            "the whole report's on every page.",
        ),
    ] = None,
    cursor: Annotated[
        str | None,
        Query(description="The `next_cursor` of the page before (JSON) or from the `Link` header (CSV)."),
    ] = None,
) -> Response:
    """Rounds, rounds with findings, findings and money owed to and by players over a range of play, by rule, table,
    dealer, shoe or day, with totals; apart, the voided rounds, the findings corrected at the table and what their
    corrections left owed, and the void and error rates; JSON, or CSV (`Accept: text/csv` or `?format=csv`)."""
    q = Summary(
        group_by=group_by,
        played_from=_instant(played_from, "from"),
        played_to=_instant(played_to, "to"),
        source=who.reads(source),
        jurisdiction=jurisdiction,
    )
    in_csv = wants_csv(fmt, request.headers.get("accept"))
    if limit is None and not in_csv:
        limit = DEFAULT_GROUPS
    page = None
    if limit is not None or cursor:
        after = report_cases.decode_cursor(cursor, group_by) if cursor else None
        page = Page(limit or report_cases.MAX_GROUPS, after)
    report = await uow.look(functools.partial(report_cases.summary, page=page), q)
    vary = {"Vary": "Accept"}
    if in_csv:
        headers = {**vary, "Content-Disposition": f'attachment; filename="{report_cases.csv_filename(q)}"'}
        if report.next_cursor is not None:
            headers["Link"] = f'<{request.url.include_query_params(cursor=report.next_cursor)}>; rel="next"'
        return Response(report_cases.as_csv(report), media_type=f"{CSV}; charset=utf-8", headers=headers)
    return Response(report_cases.as_json(report), media_type=JSON, headers=vary)
