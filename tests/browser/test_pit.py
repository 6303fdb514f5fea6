"""The pit page (issue 22) in a browser: a supervisor opens /ui/live for a table, a round with a finding at that table
is submitted through the API, and the alert appears at the top of the page without a reload (the page follows its
stream with /ui/static/live.js, under the workbench's strict Content-Security-Policy); the supervisor acknowledges
it and sees it marked. Without JavaScript the page reloads itself and shows the alert all the same."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.browser.conftest import VIEWPORT, Workbench, browsing, playwright
from tests.browser.service import Live
from tests.live_service import live_key, live_service

expect = playwright().expect


def overpaid(round_id: str, table: str) -> bytes:
    """A win paid 1500 on a 1000 wager, played a minute ago: one finding, $5.00 owed by the player."""
    return json.dumps(
        {
            "round_id": round_id,
            "jurisdiction": "US-NJ",
            "played_at": (datetime.now(UTC) - timedelta(minutes=1)).isoformat(),
            "table": {"id": table, "rules": {"decks": 6}},
            "seats": [{"seat": 1, "wager": 1000}],
            "events": [
                {"type": "deal", "to": "1", "card": "TH"},
                {"type": "deal", "to": "dealer", "card": "9C"},
                {"type": "deal", "to": "1", "card": "8D"},
                {"type": "deal", "to": "dealer", "card": "8S", "face": "down"},
                {"type": "stand", "hand": "1"},
                {"type": "reveal", "to": "dealer", "card": "8S"},
                {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 1500},
            ],
        }
    ).encode()


def submit(live: Live, body: bytes) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {live.key}", "Content-Type": "application/json"}
    answer = httpx.post(f"{live.base}/v1/rounds", content=body, headers=headers, timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def pit(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A live service on a new database of each kind (not seeded: the test submits its rounds)."""
    workdir = tmp_path_factory.mktemp(f"browser-pit-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite:///{workdir / 'live.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_database")("pit")
    with live_service(workdir, {"DATABASE_URL": url}) as (base, _):
        yield Live(base=base, key=live_key(workdir))


@pytest.fixture
def ui_pit(browser: Any, pit: Live, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    with browsing(browser, pit, request) as bench:
        yield bench


def _real_problems(ui: Workbench) -> list[str]:
    """The page's problems but the stream's request cut when the page navigates away (to acknowledge)."""
    return [p for p in ui.problems if not ("/ui/live/stream" in p and "ERR_ABORTED" in p)]


def test_an_alert_appears_without_a_reload_and_is_acknowledged(ui_pit: Workbench) -> None:
    page, live = ui_pit.page, ui_pit.live
    ui_pit.log_in()
    table = f"PIT-{time.time_ns() % 10**8}"
    page.goto(ui_pit.url(f"/ui/live?table={table}"))
    expect(page.locator("#pit-mode")).to_have_attribute(
        "data-mode", "stream"
    )  # live.js is following the stream
    expect(page.locator("#alerts-none")).to_be_visible()
    ui_pit.shot("pit-empty")
    page.evaluate("window.notReloaded = true")  # gone if the page reloads

    answer = submit(live, overpaid(f"{table}-R1", table))
    item = page.locator(f'li.alert[data-round-id="{table}-R1"]')
    expect(item).to_be_visible(timeout=10_000)
    assert page.evaluate("window.notReloaded === true")
    ui_pit.shot("pit-alert")
    expect(page.locator("#alerts-none")).to_be_hidden()
    expect(item.locator(".alert-table")).to_have_text(table)
    expect(item.locator(".alert-owed")).to_have_text("$5.00 owed by the player")
    expect(item.locator(".alert-rule")).to_have_text(answer["findings"][0]["rule"])
    expect(item).to_have_class("alert open")

    # A second one goes on top: the newest first.
    submit(live, overpaid(f"{table}-R2", table))
    expect(page.locator("ol#alerts > li").first).to_have_attribute(
        "data-round-id", f"{table}-R2", timeout=10_000
    )
    assert page.evaluate("window.notReloaded === true")

    # Acknowledge the first: back on the pit page, marked with who and when.
    item.locator("input[name=note]").fill("paid back at the table")
    with page.expect_navigation():
        item.locator("button.ack-button").click()
    item = page.locator(f'li.alert[data-round-id="{table}-R1"]')
    expect(item).to_have_class("alert closed acknowledged")
    expect(item.locator(".ack-note")).to_have_text("paid back at the table")
    expect(item.locator(".ack-by")).to_contain_text("key ")
    expect(item.locator("button.ack-button")).to_have_count(0)
    ui_pit.shot("pit-acknowledged")
    assert _real_problems(ui_pit) == []


def test_without_javascript_the_page_reloads_and_shows_the_alert(
    browser: Any, pit: Live, request: Any
) -> None:
    context = browser.new_context(viewport=VIEWPORT, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(pit.base + "/ui/login")
        page.fill("input[name=key]", pit.key)
        with page.expect_navigation():
            page.click("#login")
        table = f"NOJS-{time.time_ns() % 10**8}"
        page.goto(pit.base + f"/ui/live?table={table}")
        expect(page.locator("#pit-mode")).to_have_attribute("data-mode", "reload")
        expect(page.locator("#alerts-none")).to_be_visible()
        submit(pit, overpaid(f"{table}-R1", table))
        # The page's own refresh (every 5 s) brings it.
        expect(page.locator(f'li.alert[data-round-id="{table}-R1"]')).to_be_visible(timeout=15_000)
        with page.expect_navigation():
            page.locator("button.ack-button").click()
        expect(page.locator(f'li.alert[data-round-id="{table}-R1"]')).to_have_class(
            "alert closed acknowledged"
        )
    finally:
        context.close()
