"""The workbench in a browser on records as real tables write them (round-v1 section 2.3): a voided round marked with
its reason and the wager returned, burned cards drawn apart from the hands, a corrected settlement with its correction
and what is still owed, the search for them and the report's columns; no page breaks the Content-Security-Policy."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Workbench, browsing, playwright
from tests.browser.service import Live
from tests.live_service import live_key, live_service
from tests.spec23 import burned_in_play, corrected, voided

expect = playwright().expect


@pytest.fixture(scope="module")
def live_records(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A live service (SQLite, no login from this machine) with a voided round, a corrected one and a burn in play,
    played yesterday at dealer D-9's table."""
    workdir = tmp_path_factory.mktemp("browser-records")
    env = {"DATABASE_URL": f"sqlite:///{workdir / 'live.sqlite3'}", "BJAUDIT_DEV_ANONYMOUS": "true"}
    with live_service(workdir, env) as (base, _):
        live = Live(base=base, key=live_key(workdir))
        day = (datetime.now(UTC) - timedelta(days=1)).replace(hour=12, minute=0, second=0, microsecond=0)
        records = [
            voided("V-1", (day).isoformat(), table="BJ40", dealer_id="D-9"),
            corrected("C-1", (day + timedelta(minutes=5)).isoformat(), 800, table="BJ40", dealer_id="D-9"),
            burned_in_play("B-1", (day + timedelta(minutes=10)).isoformat(), table="BJ40", dealer_id="D-9"),
        ]
        headers = {"Authorization": f"Bearer {live.key}", "Content-Type": "application/json"}
        for body in records:
            answer = httpx.post(f"{base}/v1/rounds", content=body, headers=headers, timeout=30)
            assert answer.status_code == 201, answer.text
            live.audits[answer.json()["round_id"]] = answer.json()
        yield live


@pytest.fixture
def ui_records(browser: Any, live_records: Live, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    with browsing(browser, live_records, request) as bench:
        yield bench


def test_a_voided_round_a_burn_and_a_correction_on_their_pages(ui_records: Workbench) -> None:
    ui = ui_records
    page = ui.page

    page.goto(ui.url("/ui/rounds/V-1"))
    expect(page.locator("#void-mark")).to_have_text("void: misdeal")
    notice = page.locator("section#void")
    expect(notice).to_have_attribute("data-void-reason", "misdeal")
    expect(notice).to_have_attribute("data-event", "4")
    expect(notice.locator("ul.returned li")).to_have_text(["the main wager of seat 1 ($10.00)"])
    expect(page.locator("#burned-cards .burn[data-event='0'] .card[data-card='5S']")).to_be_visible()
    assert page.locator("section#table-view .hand .card[data-card='5S']").count() == 0
    ui.shot("voided")

    page.goto(ui.url("/ui/rounds/B-1"))
    expect(page.locator("#burned-cards .card[data-card='4D']")).to_be_visible()
    assert page.locator("section#table-view .hand .card").count() == 4
    expect(
        page.locator(
            'ol#timeline li.event[data-event-index="2"] .finding[data-rule="uncited:card-burned-during-play"]'
        )
    ).to_be_visible()
    ui.shot("burned-in-play")

    page.goto(ui.url("/ui/rounds/C-1"))
    finding = page.locator('ol#timeline li.event[data-event-index="7"] .finding')
    fixed = finding.locator("dd.corrected")
    expect(fixed).to_have_attribute("data-corrected-by", "8")
    expect(fixed).to_have_text("by the table at #8: $8.00 paid to the player")
    expect(finding.locator("dd.amount")).to_have_text("$2.00 owed to the player")
    expect(page.locator('.hand[data-hand="1.1"] .outcome')).to_contain_text(
        "corrected at #8 to win: $8.00 paid"
    )
    with page.expect_navigation():
        fixed.locator("a").click()  # the correction's event, on the same page
    expect(page).to_have_url(ui.url("/ui/rounds/C-1#event-8"))
    ui.shot("corrected")
    assert ui.problems == []


def test_the_search_finds_them_and_the_report_counts_them(ui_records: Workbench) -> None:
    ui = ui_records
    page = ui.page
    page.goto(ui.url("/ui"))
    page.select_option("form#search select[name=voided]", "true")
    with page.expect_navigation():
        page.click("form#search button[type=submit]")
    rows = page.locator("table#results tr[data-round-id]")
    expect(rows).to_have_count(1)
    expect(rows.first.locator(".voided")).to_have_text("void (misdeal)")
    page.goto(ui.url("/ui?corrected=true"))
    expect(page.locator("table#results tr[data-round-id]")).to_have_count(1)
    expect(page.locator("table#results tr[data-round-id='C-1']")).to_be_visible()

    page.goto(ui.url("/ui/reports?group_by=dealer"))
    row = page.locator('table#summary tr.group[data-key="D-9"]')
    for column, value in {
        "voided_rounds": "1",
        "corrected_findings": "1",
        "corrected_still_owed": "2.00",  # every jurisdiction added up: no currency symbol
        "void_rate": "33.3%",
        "error_rate": "66.7%",
    }.items():
        expect(row.locator(f'td[data-column="{column}"]')).to_have_text(value)
    ui.shot("report")
    assert ui.problems == []
