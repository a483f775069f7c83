"""Two phones at one table: live updates, someone typing, the same round entered twice."""

import re

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import PHONE, is_check, refuse_streams
from tests.browser.game_steps import (
    choose_winner,
    expect_totals,
    hand,
    save,
    start_game,
    tap_cards,
    type_value,
)


@pytest.fixture
def second_phone(browser, live_server, static_from_the_source):
    context = browser.new_context(base_url=live_server.url, **PHONE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == []


def test_a_round_saved_on_one_phone_appears_on_the_others_within_3_seconds(
    page: Page, second_phone: Page
):
    start_game(page, "Ana", "Boris", "Cyril")
    view_link = page.locator("#link-view").input_value()
    edit_path = re.sub(r"^https?://[^/]+", "", page.url)
    second_phone.goto(re.sub(r"^https?://[^/]+", "", view_link))
    second_phone.evaluate("window.stillTheSamePage = true")
    watcher = second_phone

    choose_winner(page, "Ana")
    type_value(page, "Boris", 20)
    type_value(page, "Cyril", 5)
    save(page)
    expect(watcher.locator(".total .sum")).to_have_text(["0", "20", "5"], timeout=3_000)
    assert watcher.evaluate("window.stillTheSamePage") is True
    assert edit_path.split("/")[2] not in watcher.content()


def test_someone_tapping_cards_keeps_them_and_the_same_round_is_never_doubled(
    page: Page, second_phone: Page
):
    start_game(page, "Ana", "Boris")
    other = second_phone
    other.goto(page.url)
    # The other phone starts tapping round 1...
    choose_winner(other, "Boris")
    tap_cards(other, "Ana", "KH Q")
    # ...while this phone saves round 1.
    choose_winner(page, "Ana")
    type_value(page, "Boris", 30)
    save(page)
    expect(other.locator(".total .sum")).to_have_text(["0", "30"], timeout=3_000)
    expect(other.locator("#round-notice")).to_contain_text("Another phone has just saved a round")
    expect(hand(other, "Ana").locator(".cards-text")).to_have_value("KH Q")
    save(other)
    expect(other.locator(".banner.conflict")).to_contain_text(
        "Round 1 was saved on another phone first"
    )
    expect(hand(other, "Ana").locator(".cards-text")).to_have_value("KH Q")
    save(other, "Save mine as round 2")
    expect_totals(other, 20, 30)
    expect(page.locator(".total .sum")).to_have_text(["20", "30"], timeout=3_000)


def test_a_phone_that_is_not_typing_gets_a_fresh_form(page: Page, second_phone: Page):
    start_game(page, "Ana", "Boris")
    second_phone.goto(page.url)
    choose_winner(page, "Ana")
    type_value(page, "Boris", 30)
    save(page)
    expect(second_phone.locator("#entry-title")).to_contain_text("Round 2", timeout=3_000)


def test_without_a_stream_polling_pauses_while_the_page_is_hidden(page: Page):
    # A proxy that lets no stream through (a 204 closes an EventSource for good): the page
    # checks its version every 2 s instead (rami.js), and polls when the check says so. The
    # page's clock is the test's: its ticks come when the test moves it, never two within a
    # moment by chance (a busy machine's timing once made the check of the page shown again
    # and the next tick one pair).
    refuse_streams(page)
    page.clock.install()
    start_game(page, "Ana", "Boris")
    # The game page's address comes before its (deferred) scripts have run: rami.js's clock of
    # 2 s must be running before the test moves the clock, or its first tick lies past the
    # test's 2 s (CI on 1612deb and 995333f, each 1 failure in 1,829). The refused stream, said
    # on <html data-stream>, shows that it runs.
    expect(page.locator("html")).to_have_attribute("data-stream", "closed")
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 0.1)  # seconds
    # A tick may have come before the clock stood still (a busy machine's page load): while its
    # poll is on its way, the poller drops the next tick's (hx-sync), which no later tick of a
    # standing clock would make up for.
    expect(page.locator(".poller.htmx-request")).to_have_count(0)
    polls = []
    # Each tick is one check of the page's version (a poll follows when it does not vouch).
    page.on("request", lambda request: polls.append(request.url) if is_check(request.url) else None)
    try:
        # Its answer too: a check on its way when the page is shown again is the one the page
        # waits for (rami.js sends no second beside it).
        with page.expect_response(lambda response: is_check(response.url)):
            page.clock.run_for(2_000)
    except PlaywrightTimeout as error:
        state = page.evaluate(
            """() => ({visibility: document.visibilityState, stream: document.documentElement
            .dataset.stream, htmx: !!window.htmx, now: Date.now(), url: location.href,
            poller: document.querySelector('.poller') && document.querySelector('.poller')
            .className})"""
        )
        raise AssertionError(f"no poll at the tick; the page: {state}; polls: {polls}") from error
    assert len(polls) == 1, "a visible page checks its version at each tick"
    page.evaluate(
        """() => {
        Object.defineProperty(document, "visibilityState", {value: "hidden", configurable: true});
        document.dispatchEvent(new Event("visibilitychange"));
    }"""
    )
    polls.clear()
    page.clock.run_for(6_000)
    # A request the ticks sent would be on its way by now: none is.
    expect(page.locator(".poller.htmx-request")).to_have_count(0)
    assert polls == []
    shown = """() => {
        Object.defineProperty(document, "visibilityState", {value: "visible", configurable: true});
        document.dispatchEvent(new Event("visibilitychange"));
    }"""
    with page.expect_request(lambda request: is_check(request.url)):
        page.evaluate(shown)
    assert len(polls) == 1  # at once, the clock standing still


def test_the_share_panel_offers_links_and_qr_codes(page: Page):
    start_game(page, "Ana", "Boris")
    share = page.locator("details.share")
    expect(share).to_have_attribute("open", "")
    codes = share.locator(".qr-box img")
    expect(codes).to_have_count(2)
    for index in range(2):  # each picture loaded and drawn
        expect(codes.nth(index)).to_have_js_property("complete", True)
        assert codes.nth(index).evaluate("image => image.naturalWidth") > 0
    expect(page.locator("#link-edit")).to_have_value(re.compile(r"/g/[\w-]{22,}/$"))
    expect(page.locator("#link-view")).to_have_value(re.compile(r"/v/[\w-]{22,}/$"))
