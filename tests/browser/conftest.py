"""Browser tests: Playwright for Python drives Debian's Chromium at a phone's size.

They run for real: `make test` installs chromium when it is missing (as root; otherwise it
names the command), and a machine without it fails here with a message saying so instead of
skipping. They are slow, so `make test-quick` leaves them out.
"""

import os
import re
import shutil

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, sync_playwright

# pytest-django's live server and Playwright's sync API share the test thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def assert_accessible(page: Page) -> None:
    """axe-core finds no violation on the page as it stands."""
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def browser():
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail(
            "The browser tests need Debian's Chromium: sudo apt-get install -y chromium "
            "(make test installs it when run as root)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def static_from_the_source(settings):
    """The live server serves static files from their source folders, so plain names."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def is_check(address: str) -> bool:
    """Whether a request is the check of a page's version (/live/<key>/version), which a page
    without a stream sends on the clock, rather than a stream (/live/<key>)."""
    return "/live/" in address and address.split("?")[0].endswith("/version")


def refuse_streams(page) -> None:
    """A proxy that lets no stream through (a 204 closes an EventSource for good), and lets
    the checks of a page's version through: they are short answers."""
    page.route(
        lambda address: "/live/" in address and not is_check(address),
        lambda route: route.fulfill(status=204),
    )


def until_held(page, held: list) -> None:
    """Wait for the request a test's route holds (appended to `held`) to be there."""
    for _ in range(500):
        if held:
            return
        page.wait_for_timeout(10)
    raise AssertionError("the request never came")


CONFLICT_LOGGED = re.compile(r"Failed to load resource: the server responded with a status of 409")


def _page(browser, live_server, **options):
    context = browser.new_context(base_url=live_server.url, **PHONE, **options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def console(message):
        # The browser asks for /favicon.ico by itself; the page's own icons are linked. A 409
        # is the app's answer to a change another phone's came before (swapped in, as every
        # 409 is), which Chromium logs as it logs any status of 400 and above.
        if message.type != "error" or message.location.get("url", "").endswith("/favicon.ico"):
            return
        if CONFLICT_LOGGED.match(message.text):
            return
        errors.append(f"{message.text} ({message.location.get('url')})")

    page.on("console", console)
    return context, page, errors


@pytest.fixture
def page(browser, live_server, static_from_the_source) -> Page:
    """A phone with JavaScript; the test fails on any script error or CSP report."""
    context, page, errors = _page(browser, live_server)
    yield page
    context.close()
    assert errors == []


@pytest.fixture
def page_without_js(browser, live_server, static_from_the_source) -> Page:
    context, page, errors = _page(browser, live_server, java_script_enabled=False)
    yield page
    context.close()
    assert errors == []
