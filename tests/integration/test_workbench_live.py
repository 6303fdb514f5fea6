"""Issue 22 in the workbench, on SQLite and PostgreSQL: the pit page (/ui/live) shows the findings of the tables a
supervisor picks, the newest first, each with its table, seat/hand, rule and title, the money owed, the time and a link
to its round, closed when the table corrected it or when acknowledged (by whom, when); it reloads itself without
script and names its script (the CSP allows script from the service only, never inline). An alert is acknowledged
from it or from the round page with the workbench's CSRF protection, once, attributed to the session's key. The
stream it follows is tested against a real server in tests/browser/test_pit.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.html_tree import Element
from tests.integration import test_workbench
from tests.integration.test_reports import overpaid
from tests.integration.test_workbench import Bench
from tests.spec23 import corrected

bench, logged_in = test_workbench.bench, test_workbench.logged_in  # (its fixtures)


def _played(minutes_ago: int) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).isoformat()


def _alerts(doc: Element) -> list[Element]:
    return doc.one("ol", id="alerts").all("li", attrs={"data-alert-id": None})


def _csrf(doc: Element) -> str:
    return doc.one("form", id="logout-form").one("input", attrs={"name": "csrf"}).get("value") or ""


def test_the_pit_page_shows_the_picked_tables_findings_newest_first(logged_in: Bench) -> None:
    logged_in.submit(overpaid("PIT-1", _played(30), table="BJ-7"))
    logged_in.submit(overpaid("PIT-2", _played(20), table="BJ-8"))
    logged_in.submit(corrected("PIT-3", _played(10), 800, table="BJ-7"))
    r = logged_in.client.get("/ui/live", params={"table": "BJ-7"})
    assert r.status_code == 200
    doc = logged_in.page("/ui/live", table="BJ-7")
    items = _alerts(doc)
    assert [i.get("data-round-id") for i in items] == ["PIT-3", "PIT-1"]  # newest first; BJ-8 not picked
    newest, older = items
    assert newest.get("data-table") == "BJ-7" and "corrected" in newest.classes and "closed" in newest.classes
    assert "closed: corrected by the table" in newest.text
    assert newest.one("span", cls="alert-owed").text == "$2.00 owed to the player"  # 1000 due, 800 paid
    assert older.one("span", cls="alert-owed").text == "$5.00 owed by the player"
    assert older.one("span", cls="alert-where").text == "seat 1"
    assert older.one("span", cls="alert-rule").text == "uncited:win-pays-1-to-1"
    assert older.one("strong", cls="alert-title").text
    assert older.one("span", cls="alert-time").text.endswith("(UTC)")
    assert (
        older.one("a", cls="alert-round").get("href") == "/ui/rounds/PIT-1?source=default&jurisdiction=US-NJ"
    )
    assert "open" in older.classes and older.one("form", cls="ack-form")
    # Two tables, repeated ?table=; none: every table of the source.
    both = logged_in.client.get("/ui/live?table=BJ-7&table=BJ-8")
    assert both.status_code == 200 and both.text.count('data-alert-id="') == 3
    every = logged_in.page("/ui/live")
    assert len(_alerts(every)) == 3


def test_without_script_it_reloads_and_with_script_it_follows_the_stream_of_its_own_origin(
    logged_in: Bench,
) -> None:
    r = logged_in.client.get("/ui/live", params={"table": "BJ-1"})
    assert '<noscript><meta http-equiv="refresh" content="5"></noscript>' in r.text
    assert '<script src="/ui/static/live.js" defer></script>' in r.text
    assert "<script>" not in r.text and " on" + "click=" not in r.text  # no inline script or handler
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp and "unsafe-inline" not in csp
    doc = logged_in.page("/ui/live", table="BJ-1")
    stream = doc.one("ol", id="alerts").get("data-stream") or ""
    assert stream.startswith(
        "/ui/live/stream?source=default&table=BJ-1&head="
    )  # from where the page was read
    js = logged_in.client.get("/ui/static/live.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "EventSource" in js.text
    assert logged_in.client.get("/ui/static/nothing.js").status_code == 404


def test_an_alert_is_acknowledged_from_the_pit_page_once_with_the_csrf_token(logged_in: Bench) -> None:
    logged_in.submit(overpaid("ACK-1", _played(5), table="BJ-9"))
    doc = logged_in.page("/ui/live", table="BJ-9")
    (item,) = _alerts(doc)
    form = item.one("form", cls="ack-form")
    action = form.get("action") or ""
    back = form.one("input", attrs={"name": "next"}).get("value")
    assert back == "/ui/live?source=default&table=BJ-9"
    assert logged_in.client.post(action, data={"next": back}).status_code == 403  # no token
    assert logged_in.client.post(action, data={"csrf": "x", "next": back}).status_code == 403
    r = logged_in.client.post(action, data={"csrf": _csrf(doc), "next": back, "note": "paid at the table"})
    assert r.status_code == 303 and r.headers["location"] == back
    (item,) = _alerts(logged_in.page("/ui/live", table="BJ-9"))
    assert "acknowledged" in item.classes and "closed" in item.classes
    assert item.one("span", cls="ack-by").text.endswith("(test)")  # the key, by id and label
    assert item.one("span", cls="ack-note").text == "paid at the table"
    assert not item.all("form", cls="ack-form")
    alert_id = item.get("data-alert-id")
    api = logged_in.client.get(
        f"/v1/alerts/{alert_id}", headers={"Authorization": f"Bearer {logged_in.key()}"}
    )
    assert api.json()["acknowledgement"]["note"] == "paid at the table"
    # Once: a second acknowledgement (a stale page) leaves the first.
    r = logged_in.client.post(action, data={"csrf": _csrf(doc), "next": back, "note": "again"})
    assert r.status_code == 303
    api = logged_in.client.get(
        f"/v1/alerts/{alert_id}", headers={"Authorization": f"Bearer {logged_in.key()}"}
    )
    assert api.json()["acknowledgement"]["note"] == "paid at the table"


def test_the_round_page_shows_each_alert_with_its_acknowledgement_and_acknowledges_too(
    logged_in: Bench,
) -> None:
    logged_in.submit(overpaid("ACK-2", _played(5), table="BJ-9"))
    doc = logged_in.page("/ui/rounds/ACK-2")
    (item,) = doc.one("section", id="round-alerts").all("li", attrs={"data-alert-id": None})
    form = item.one("form", cls="ack-form")
    assert form.one("input", attrs={"name": "next"}).get("value") == "/ui/rounds/ACK-2"
    r = logged_in.client.post(form.get("action") or "", data={"csrf": _csrf(doc), "next": "/ui/rounds/ACK-2"})
    assert r.status_code == 303 and r.headers["location"] == "/ui/rounds/ACK-2"
    (item,) = logged_in.page("/ui/rounds/ACK-2").one("section", id="round-alerts").all("li")
    assert "acknowledged" in item.classes and item.one("span", cls="ack-by").text.endswith("(test)")
    assert item.one("span", cls="ack-at").text
    # A compliant round has no alerts section.
    assert "round-alerts" not in logged_in.client.get("/ui/rounds/ACK-1-none").text


def test_the_pit_page_says_what_it_cannot_use(logged_in: Bench) -> None:
    r = logged_in.client.get("/ui/live", params={"tabel": "BJ-1"})
    assert r.status_code == 422 and "did you mean" in r.text
    r = logged_in.client.get("/ui/live", params={"source": "someone-else"})
    assert r.status_code == 403
    r = logged_in.client.get("/ui/live", params={"table": "x" * 200})
    assert r.status_code == 422
    r = logged_in.client.post(
        "/ui/alerts/default:999:0/acknowledge", data={"csrf": _csrf(logged_in.page("/ui"))}
    )
    assert r.status_code == 404


def test_the_reports_page_counts_the_alerts_acknowledged_and_their_waits(logged_in: Bench) -> None:
    from datetime import timedelta

    from sqlalchemy import create_engine, select, update

    from app.config import sqlalchemy_url
    from app.store.models import acknowledgements_table as ACK
    from app.store.models import rounds_table as R

    logged_in.submit(overpaid("REP-1", _played(50), table="BJ-4"))
    logged_in.submit(overpaid("REP-2", _played(40), table="BJ-4"))
    logged_in.submit(overpaid("REP-3", _played(30), table="BJ-4"))
    doc = logged_in.page("/ui/live", table="BJ-4")
    for item in _alerts(doc)[:2]:  # REP-3 and REP-2
        action = item.one("form", cls="ack-form").get("action") or ""
        assert logged_in.client.post(action, data={"csrf": _csrf(doc), "next": "/ui/live"}).status_code == 303
    engine = create_engine(sqlalchemy_url(logged_in.database_url))
    with engine.begin() as conn:  # waits of 65 and 20 s: median 42.5, p90 65 (nearest rank), longest 65
        for round_id, wait in (("REP-3", 65), ("REP-2", 20)):
            pk, received = conn.execute(select(R.c.id, R.c.received_at).where(R.c.round_id == round_id)).one()
            conn.execute(
                update(ACK)
                .where(ACK.c.round_pk == pk)
                .values(acknowledged_at=received + timedelta(seconds=wait))
            )
    engine.dispose()
    figures = logged_in.page("/ui/reports").one("dl", id="alert-figures")
    shown = {dd.get("data-figure"): dd for dd in figures.all("dd")}
    assert (shown["alerts"].text, shown["acknowledged"].text, shown["not_acknowledged"].text) == (
        "3",
        "2",
        "1",
    )
    assert shown["median"].get("data-seconds") == "42.5" and shown["median"].text == "42.5 s"
    assert shown["p90"].text == "1 min 5 s" and shown["max"].get("data-seconds") == "65.0"
