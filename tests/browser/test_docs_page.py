"""The browser tests' own check, on a page that needs no workbench: the API's documentation page (Swagger UI, served
by the service itself without a CDN, under a Content-Security-Policy that allows its inline script by hash) loads
its files and runs its script in headless Chromium, with nothing refused or failing in the page. (On SQLite only: the
page reads no database.)"""

from __future__ import annotations

from tests.browser.conftest import Workbench, playwright

expect = playwright().expect


def test_the_documentation_page_runs_its_script_with_nothing_refused(ui_anonymous: Workbench) -> None:
    ui = ui_anonymous
    page = ui.page
    assets: list[tuple[str, int]] = []
    page.on("response", lambda r: assets.append((r.url, r.status)) if "/docs/assets/" in r.url else None)
    answer = page.goto(ui.url("/docs"))
    assert answer is not None and answer.ok
    assert "script-src 'self' 'sha256-" in (answer.headers.get("content-security-policy") or "")
    # Swagger UI's own script ran (its bundle loaded, the inline start-up script allowed) and drew into the page.
    expect(page.locator("#swagger-ui .swagger-ui")).to_be_attached(timeout=15_000)
    assert page.evaluate("typeof SwaggerUIBundle") == "function"
    page.wait_for_load_state("networkidle")
    ui.shot("docs")
    loaded = {url.rsplit("/", 1)[1]: status for url, status in assets}
    assert loaded.get("swagger-ui-bundle.js") == 200 and loaded.get("swagger-ui.css") == 200, assets
    assert ui.problems == []


def test_the_documentation_page_shows_the_api(ui_anonymous: Workbench) -> None:
    ui = ui_anonymous
    page = ui.page
    page.goto(ui.url("/docs"))
    title = page.locator(".information-container .title")  # h1 in Swagger UI 5 (h2 in 4)
    expect(title.or_(page.get_by_text("Unable to render this definition"))).to_be_visible(timeout=15_000)
    ui.shot("docs")
    expect(title).to_contain_text("bjaudit", timeout=1)
    expect(page.locator(".opblock-summary-path", has_text="/v1/rounds").first).to_be_visible()
    assert ui.problems == []
