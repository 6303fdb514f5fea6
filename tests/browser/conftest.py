"""Browser tests (issue 10): pages of a live ``bjaudit serve`` in headless Chromium, Debian's ``/usr/bin/chromium``
(``make install`` puts it there) driven by Playwright for Python, which launches that executable; Playwright never
downloads a browser of its own here (docs/testing.md says why Playwright and not Selenium).

One browser per session; a new context (cookies, storage) per test, 1280 x 800. The service runs on a new SQLite
database and on a new PostgreSQL database (per test module), seeded with generated rounds, many with findings
(tests/browser/service.py).

Chromium or Playwright missing: the tests are skipped, unless BJAUDIT_REQUIRE_BROWSER=1 (.ci/run), where they fail.

Screenshots: ``test-results/browser/<test>/NN-<step>.png`` at the repository root (emptied when the test starts),
taken where a test calls ``ui.shot(step)``; a failed test (or an expected failure) also leaves ``failed.png`` (the
page as it was) and ``trace.zip`` (``.venv/bin/playwright show-trace trace.zip`` replays it).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.browser.service import Live, serving
from tests.integration.conftest import postgres_database  # noqa: F401
from tests.live_service import ROOT

CHROMIUM = Path(os.environ.get("BJAUDIT_TEST_CHROMIUM", "/usr/bin/chromium"))  # Debian's, from `make install`
RESULTS = ROOT / "test-results" / "browser"
VIEWPORT = {"width": 1280, "height": 800}


def browser_required() -> bool:
    return os.environ.get("BJAUDIT_REQUIRE_BROWSER", "") not in ("", "0", "false", "no")


def _unavailable(reason: str) -> None:
    if browser_required():
        pytest.fail(reason + " (BJAUDIT_REQUIRE_BROWSER=1; `make install` installs it)", pytrace=False)
    pytest.skip(
        reason + " (`make install` installs it; BJAUDIT_REQUIRE_BROWSER=1 makes this a failure)",
        allow_module_level=True,
    )


def playwright() -> ModuleType:
    """``playwright.sync_api``; without it, the test module that asks is skipped (or fails: BJAUDIT_REQUIRE_BROWSER)."""
    try:
        import playwright.sync_api as api
    except ImportError as exc:
        _unavailable(f"no browser driver: Playwright for Python cannot be imported ({exc})")
    return api


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Headless Chromium, launched once for the browser tests. Not for the session: while Playwright's sync API is
    open, the main thread has a running event loop, and the tests after these that call asyncio.run() would fail
    ("cannot be called from a running event loop")."""
    if not CHROMIUM.exists():
        _unavailable(f"no browser: {CHROMIUM} is missing (Debian's chromium package)")
    with playwright().sync_playwright() as pw:
        # Playwright's own launch flags already keep Chromium off the network (no background networking,
        # component updates, sync or first-run pages) and without its sandbox (these tests may run as root).
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A live service on a new, seeded database of each kind."""
    workdir = tmp_path_factory.mktemp(f"browser-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite:///{workdir / 'live.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_database")("ui")
    with serving(workdir, url) as service:
        yield service


@pytest.fixture(scope="module")
def live_anonymous(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A live service (SQLite) whose workbench needs no login from a loopback client (BJAUDIT_DEV_ANONYMOUS)."""
    workdir = tmp_path_factory.mktemp("browser-anonymous")
    with serving(
        workdir, f"sqlite:///{workdir / 'live.sqlite3'}", {"BJAUDIT_DEV_ANONYMOUS": "true"}
    ) as service:
        yield service


_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep each phase's report on the item, for the fixtures to see whether the test failed."""
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


def _folder(name: str) -> Path:
    """A test's screenshot folder: ``test_flow[sqlite]`` -> ``test-results/browser/test_flow-sqlite``."""
    return RESULTS / re.sub(r"[^\w.-]+", "-", name).strip("-")


@dataclass
class Workbench:
    """One test's browser page onto the live service, with its screenshots and what went wrong in the page."""

    page: Any
    live: Live
    folder: Path
    problems: list[str] = field(default_factory=list)
    """Answers of 400 and more, console errors (a resource the Content-Security-Policy refused among them),
    uncaught exceptions, failed requests."""
    shots: int = 0

    def shot(self, step: str, *, full_page: bool = True) -> Path:
        """Save the page (the whole page, or what the window shows) as ``NN-<step>.png`` in the test's folder."""
        self.shots += 1
        path = self.folder / f"{self.shots:02d}-{step}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def url(self, path: str) -> str:
        return self.live.base + path

    def log_in(self, key: str | None = None) -> None:
        """Log in through the login form, with the service's first key unless another is given."""
        self.page.goto(self.url("/ui/login"))
        self.page.fill("input[name=key]", key or self.live.key)
        self.shot("login")
        with self.page.expect_navigation():
            self.page.click("#login")


@contextmanager
def browsing(browser: Any, live: Live, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    """A new browser context and page for the test, onto ``live``."""
    folder = _folder(request.node.name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.tracing.start(screenshots=True, snapshots=True)
    page = context.new_page()
    bench = Workbench(page=page, live=live, folder=folder)

    def failed_request(r: Any) -> None:
        if not (r.failure == "net::ERR_ABORTED" and r.resource_type == "document"):  # (a link that downloads)
            bench.problems.append(f"request failed: {r.method} {r.url}: {r.failure}")

    def answered(r: Any) -> None:
        if r.status >= 400:  # (every page names its icon: no /favicon.ico asked for by the browser itself)
            bench.problems.append(f"{r.status} {r.request.method} {r.url}")

    def console(m: Any) -> None:
        if m.type == "error" and not m.text.startswith("Failed to load resource"):  # (answered() has its URL)
            bench.problems.append(f"console: {m.text}")

    page.on("console", console)
    page.on("pageerror", lambda exc: bench.problems.append(f"uncaught: {exc}"))
    page.on("requestfailed", failed_request)
    page.on("response", answered)
    try:
        yield bench
    finally:
        reports = request.node.stash.get(_REPORTS, {})
        if any(r.failed or hasattr(r, "wasxfail") for r in reports.values()):
            try:
                page.screenshot(path=str(folder / "failed.png"), full_page=True)
            finally:
                context.tracing.stop(path=str(folder / "trace.zip"))
        else:
            context.tracing.stop()
        context.close()


@pytest.fixture
def ui(browser: Any, live: Live, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    """The test's page onto :func:`live`."""
    with browsing(browser, live, request) as bench:
        yield bench


@pytest.fixture
def ui_anonymous(browser: Any, live_anonymous: Live, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    """The test's page onto :func:`live_anonymous`."""
    with browsing(browser, live_anonymous, request) as bench:
        yield bench
