"""The auditor's workbench in a browser (issue 10), as an auditor uses it: log in with a key, search for rounds with
findings, open one, see each finding at its event and the cards on the table, follow a finding to its rule in the
catalogue, then read the report, its chart and its CSV; a batch's page, logging out, the round page printed. The
pages are found by the hooks docs/workbench.md lists; what they show is checked against what the API answers for the
same data."""

from __future__ import annotations

import csv
import io
from collections import Counter
from urllib.parse import parse_qsl, urlsplit

import httpx
import orjson

from tests.browser.conftest import Workbench, playwright
from tests.browser.service import SEED, SEEDED, seeded_rounds

expect = playwright().expect

PAGE_SIZE = 50  # the search page's rounds per page (docs/workbench.md)


def _round_ids(ui: Workbench) -> list[str]:
    rows = ui.page.locator("table#results tr[data-round-id]")
    return [rows.nth(i).get_attribute("data-round-id") or "" for i in range(rows.count())]


def follow_a_finding(ui: Workbench) -> None:
    """From the search page (open, logged in) to a round with a finding, its rule, and the report."""
    page, live = ui.page, ui.live

    # The search for rounds with findings: 50 a page, newest played first, then the next page.
    page.select_option("form#search select[name=verdict]", "violations")
    with page.expect_navigation():
        page.click("form#search button[type=submit]")
    expect(page.locator("table#results tr[data-round-id]").first).to_be_visible()
    ui.shot("search-violations")
    found = _round_ids(ui)
    assert len(found) == min(PAGE_SIZE, len(live.with_findings))
    if len(live.with_findings) > PAGE_SIZE:
        with page.expect_navigation():
            page.click("a#next-page")
        ui.shot("search-next-page")
        found += _round_ids(ui)
    assert len(found) == min(2 * PAGE_SIZE, len(live.with_findings))
    assert found == live.with_findings[::-1][: len(found)]  # seeded one after the other

    # A round's page (one of this page's with a finding at an event): the finding there, the cards on the table.
    round_id = live.at_an_event(_round_ids(ui))
    with page.expect_navigation():
        page.locator(f'table#results tr[data-round-id="{round_id}"] a.round-link').click()
    expect(page.locator("section#table-view")).to_be_visible()
    ui.shot("round")
    stored = live.get(f"/v1/rounds/{round_id}").json()
    findings = stored["audit"]["findings"]
    for f in findings:
        if f["event"] is None:
            where = page.locator("section#absences")
        else:
            where = page.locator(f'ol#timeline li.event[data-event-index="{f["event"]}"]')
        expect(where.locator(f'.finding[data-rule="{f["rule"]}"]').first).to_be_visible()
    shown = page.locator("ol#timeline .finding").count() + page.locator("section#absences .finding").count()
    assert shown == len(findings)
    dealt = [e["card"] for e in stored["record"]["events"] if e["type"] == "deal"]
    cards = page.locator("section#table-view .hand .card")
    assert Counter(cards.nth(i).get_attribute("data-card") for i in range(cards.count())) == Counter(dealt)
    for hook in ("a#record-link", "section#audits", "form#compare"):
        expect(page.locator(hook)).to_be_attached()

    # A finding's rule link lands on that rule's row of the catalogue.
    finding = page.locator("ol#timeline li.event .finding").first
    rule = finding.get_attribute("data-rule") or ""
    href = finding.locator("a.rule-link").get_attribute("href") or ""
    assert href.startswith(f"/ui/rules?jurisdiction={stored['audit']['jurisdiction']}#"), href
    with page.expect_navigation():
        finding.locator("a.rule-link").click()
    expect(page).to_have_url(ui.url(href))
    row = page.locator(f'tr.rule[id="{href.partition("#")[2]}"]')
    expect(row).to_have_attribute("data-rule", rule)
    expect(row).to_be_in_viewport()
    ui.shot("rule", full_page=False)

    # The report of the last 30 days (the page's default): its chart, and its CSV, whose totals are the API's.
    with page.expect_navigation():
        page.click("#nav-reports")
    chart = page.locator("svg#findings-per-day")
    expect(chart).to_be_visible()
    bars = chart.locator("rect.bar")
    per_day = sum(int(bars.nth(i).get_attribute("data-count") or 0) for i in range(bars.count()))
    ui.shot("reports")
    with page.expect_download() as download:
        page.click("a#download-csv")
    saved = ui.folder / download.value.suggested_filename
    assert saved.suffix == ".csv"
    download.value.save_as(saved)
    total = next(r for r in csv.DictReader(io.StringIO(saved.read_text(), newline="")) if r["row"] == "total")
    query = dict(parse_qsl(urlsplit(page.locator("a#download-csv").get_attribute("href") or "").query))
    query.pop("format", None)
    summary = live.get("/v1/reports/summary", **query).json()["totals"]
    assert {
        c: None if total[c] == "" else float(total[c]) if "_rate" in c else int(total[c]) for c in summary
    } == summary
    # Every seeded round was played in the last days: the report counts them all, and the chart every finding.
    assert (summary["rounds"], summary["rounds_with_findings"]) == (SEEDED, len(live.with_findings))
    assert per_day == summary["findings"]
    for c in ("rounds", "rounds_with_findings", "findings"):
        expect(page.locator(f'#totals td[data-column="{c}"]')).to_have_text(str(summary[c]))


def test_an_auditor_logs_in_finds_a_round_with_a_finding_and_follows_it_to_its_rule_and_the_report(
    ui: Workbench,
) -> None:
    page = ui.page
    # Without a session the workbench sends the browser to its login form, and back after logging in.
    page.goto(ui.url("/ui"))
    expect(page).to_have_url(ui.url("/ui/login?next=%2Fui"))
    ui.log_in()
    expect(page).to_have_url(ui.url("/ui"))
    follow_a_finding(ui)
    assert ui.problems == []


def test_the_same_on_a_workbench_that_needs_no_login_from_this_machine(ui_anonymous: Workbench) -> None:
    """BJAUDIT_DEV_ANONYMOUS: a loopback client uses the workbench without logging in."""
    ui_anonymous.page.goto(ui_anonymous.url("/ui"))
    follow_a_finding(ui_anonymous)
    assert ui_anonymous.problems == []


def test_logging_out_ends_the_session(ui: Workbench) -> None:
    page = ui.page
    ui.log_in()
    expect(page.locator("#who")).to_be_visible()
    with page.expect_navigation():
        page.click("button#logout")
    ui.shot("logged-out")
    expect(page).to_have_url(ui.url("/ui/login"))
    assert not [c for c in page.context.cookies() if c["name"] == "bjaudit_session"]
    page.goto(ui.url("/ui/reports"))
    expect(page).to_have_url(ui.url("/ui/login?next=%2Fui%2Freports"))
    assert ui.problems == []


def test_a_wrong_key_is_the_login_form_again_saying_why(ui: Workbench) -> None:
    page = ui.page
    ui.log_in("bja_0000000000000000_not-a-key")
    expect(page.locator("#login-error")).to_be_visible()
    expect(page.locator("input[name=key]")).to_be_visible()
    ui.shot("refused")
    assert not [c for c in page.context.cookies() if c["name"] == "bjaudit_session"]
    assert ui.problems == [f"401 POST {ui.url('/ui/login')}"]


def test_the_round_page_prints_without_the_navigation_and_the_forms(ui_anonymous: Workbench) -> None:
    ui = ui_anonymous  # (the print stylesheet is the same logged in)
    page = ui.page
    page.goto(ui.url(f"/ui/rounds/{ui.live.at_an_event(ui.live.with_findings)}"))
    expect(page.locator("#nav")).to_be_visible()
    page.emulate_media(media="print")
    ui.shot("print")
    expect(page.locator("#nav")).to_be_hidden()
    expect(page.locator("form#compare")).to_be_hidden()
    expect(page.locator("section#table-view .card").first).to_be_visible()
    expect(page.locator("ol#timeline .finding").first).to_be_visible()
    pdf = page.pdf(path=str(ui.folder / "round.pdf"), format="A4")  # what an auditor attaches to a case file
    assert pdf.startswith(b"%PDF")
    assert ui.problems == []


def test_a_batch_page_follows_the_audit_to_its_end_and_links_each_line_to_its_round(
    ui_anonymous: Workbench,
) -> None:
    ui, live = ui_anonymous, ui_anonymous.live
    rounds = seeded_rounds(12, seed=SEED + 1)
    for i, rnd in enumerate(rounds):
        rnd["round_id"] = f"BATCH-{i:03d}"
    lines = [orjson.dumps(r) for r in rounds] + [b"not json"]
    answer = httpx.post(
        f"{live.base}/v1/batches",
        content=b"\n".join(lines) + b"\n",
        headers={"Authorization": f"Bearer {live.key}", "Content-Type": "application/x-ndjson"},
        timeout=30,
    )
    assert answer.status_code == 202, answer.text
    page = ui.page
    page.goto(ui.url(f"/ui/batches/{answer.json()['batch_id']}"))
    expect(page.locator("#progress")).to_have_attribute(
        "data-state", "done", timeout=30_000
    )  # (it reloads itself)
    ui.shot("batch")
    rows = page.locator("table#outcomes tr[data-line]")
    expect(rows).to_have_count(len(lines))
    expect(rows.last).to_have_attribute("data-outcome", "rejected")
    assert page.locator("table#outcomes a.round-link").count() == len(rounds)
    with page.expect_navigation():
        page.locator("table#outcomes a.round-link").first.click()
    expect(page.locator("section#table-view .card").first).to_be_visible()
    ui.shot("round")
    assert ui.problems == []
