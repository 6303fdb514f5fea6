"""The README's pictures of the workbench (``make screenshots``).

Starts ``bjaudit serve`` on a new SQLite database in a scratch folder, seeds it with generated rounds, many with
findings (tests/browser/service.py), logs in with the service's first key, and saves from Debian's headless
Chromium (``make install``; Playwright drives it, as in the browser tests):

* ``docs/images/workbench-round.png``: a round's page, from its table to a finding at its event (1280 wide, about
  1000 high);
* ``docs/images/workbench-search.png``: the search for rounds with findings (1280 x 800).

The rounds are generated from a fixed seed but played over the days before now, so the pictures differ from one run
to the next only in dates and times.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, sync_playwright

from tests.browser.service import Live, serving
from tests.live_service import ROOT

CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1280, 800
CANDIDATES = 30
SEEDED = 150


def session_cookie(live: Live) -> dict[str, Any]:
    """Log in with the service's first key through the login form (its CSRF token and cookie, then the key); the
    session cookie, for the browser."""
    with httpx.Client(base_url=live.base, timeout=30) as client:
        form = client.get("/ui/login").text
        token = re.search(r'name="csrf" value="([^"]+)"', form)
        assert token is not None, form
        answer = client.post("/ui/login", data={"csrf": token.group(1), "key": live.key, "next": "/ui"})
        assert answer.status_code == 303, answer.text
        value = client.cookies.get("bjaudit_session")
        assert value, answer.headers
    return {"name": "bjaudit_session", "value": value, "domain": "127.0.0.1", "path": "/ui", "httpOnly": True}


def search(page: Page, live: Live, out: Path) -> None:
    page.goto(f"{live.base}/ui?verdict=violations")
    page.locator("table#results").wait_for()
    page.screenshot(path=str(out), clip={"x": 0, "y": 0, "width": WIDTH, "height": HEIGHT})


def round_page(page: Page, live: Live, out: Path) -> str:
    """Of the newest :data:`CANDIDATES` rounds with a finding at an event, the one whose table and first such event
    take the least height: the picture goes from that table to that event."""
    spans: list[tuple[float, str]] = []
    for round_id in [r for r in reversed(live.with_findings) if _at_an_event(live, r)][:CANDIDATES]:
        page.goto(f"{live.base}/ui/rounds/{round_id}")
        top, bottom = _table_to_finding(page)
        spans.append((bottom - top, round_id))
    _, round_id = min(spans)
    page.goto(f"{live.base}/ui/rounds/{round_id}")
    top, bottom = _table_to_finding(page)
    page.screenshot(
        path=str(out), full_page=True, clip={"x": 0, "y": top, "width": WIDTH, "height": bottom - top}
    )
    return round_id


def _at_an_event(live: Live, round_id: str) -> bool:
    return any(f["event"] is not None for f in live.audits[round_id]["findings"])


def _table_to_finding(page: Page) -> tuple[float, float]:
    table = page.locator("section#table-view").bounding_box()
    event = page.locator("ol#timeline li.event:has(.finding)").first.bounding_box()
    assert table is not None and event is not None
    return table["y"] - 12, event["y"] + event["height"] + 12


def shoot(browser: Browser, live: Live, images: Path) -> None:
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    context.add_cookies([session_cookie(live)])  # type: ignore[list-item]
    page = context.new_page()
    search(page, live, images / "workbench-search.png")
    print(f"{_shown(images / 'workbench-search.png')}: the search for rounds with findings")
    round_id = round_page(page, live, images / "workbench-round.png")
    print(f"{_shown(images / 'workbench-round.png')}: round {round_id}")
    context.close()


def _shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="folder (docs/images)")
    parser.add_argument("--chromium", default=CHROMIUM, help=f"the browser ({CHROMIUM}, from make install)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bjaudit-screenshots-") as tmp:
        workdir = Path(tmp)
        with (
            serving(workdir, f"sqlite:///{workdir / 'demo.sqlite3'}", n=SEEDED) as live,
            sync_playwright() as pw,
        ):
            browser = pw.chromium.launch(executable_path=args.chromium, headless=True)
            try:
                shoot(browser, live, args.out)
            finally:
                browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
