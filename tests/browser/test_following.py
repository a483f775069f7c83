"""Three browsers at one table follow a rematch: two phones on the players' link and
a watch-only laptop. One phone taps Rematch; the other phone and the laptop move to the new
game by themselves within one poll (every 2 s), each by its own link, saying "New game: …"."""

import re

import pytest
from playwright.sync_api import expect

from scoring.files.exchange import import_game
from tests.browser.conftest import PHONE, until_held
from tests.browser.game_steps import type_value
from tests.conftest import game_document
from tests.links import url

LAPTOP = {"viewport": {"width": 1366, "height": 768}}


@pytest.fixture
def opened(browser, live_server, static_from_the_source):
    """Open pages in browsers of their own (no shared cookies), closed at the end; no page
    may meet a script error."""
    contexts, errors = [], []

    def open_(path: str, **options):
        context = browser.new_context(base_url=live_server.url, **options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path)
        return page

    yield open_
    for context in contexts:
        context.close()
    assert errors == []


def test_two_phones_and_a_watching_laptop_follow_a_rematch(db, opened):
    game = import_game(game_document("every_kind"))
    tapping = opened(url("game", game.edit_token), **PHONE)
    other_phone = opened(url("game", game.edit_token), **PHONE)
    laptop = opened(url("view", game.view_token), **LAPTOP)
    for page in (tapping, other_phone, laptop):
        expect(page.locator(".banner.winner")).to_contain_text("Ana wins the game!")

    tapping.get_by_role("button", name="Rematch").click()
    expect(tapping.locator(".banner.notice")).to_have_text("New game: Ana, Boris, Cyril, Dana")
    rematch = game.__class__.objects.get(pk=game.pk).next_game

    # Within one poll (2 s) and its answer.
    expect(other_phone).to_have_url(re.compile(f"/g/{rematch.edit_token}/$"), timeout=3_000)
    expect(laptop).to_have_url(re.compile(f"/v/{rematch.view_token}/$"), timeout=3_000)
    for page in (other_phone, laptop):
        expect(page.locator(".banner.notice")).to_have_text("New game: Ana, Boris, Cyril, Dana")
        expect(page.locator(".total .sum")).to_have_text(["0", "0", "0", "0"])
    # The phones can enter round 1 at once; the laptop only watches.
    expect(other_phone.locator("#round-form")).to_be_visible()
    expect(laptop.locator("#round-form")).to_have_count(0)
    assert rematch.edit_token not in laptop.content()

    # And they stay there: the next polls of the new game change nothing.
    laptop.wait_for_timeout(2_500)
    assert laptop.url.endswith(f"/v/{rematch.view_token}/")
    expect(laptop.locator(".banner.notice")).to_have_count(1)


# The race of the tap and the live update: the phone that taps Rematch may have a
# poll of the old game on its way, which the server answers after the rematch: with the new
# game's notice and a redirect to it. Made to happen every time: the poll's answer comes back
# before the tap's, and (the second case) another poll is sent after the tap's answer and
# before the new page. Either way the phone says "New game: …" once, and a reload nothing.

TRIES = 30


def _held(page, pattern: str, method: str) -> list:
    """The first request to `pattern` by `method`, stopped on its way to be let go by the test
    (in a list, empty until it comes); the others go on."""
    held: list = []

    def hold(route):
        if route.request.method == method and not held:
            held.append(route)
        else:
            route.continue_()

    page.route(pattern, hold)
    return held


def _scripts_run(page) -> None:
    """Wait for the page's scripts (deferred: its banners may be drawn before them) to have set
    the page up: htmx processes the poller only on DOMContentLoaded, after window.htmx exists
    (a "rami:poll" triggered in between asks nothing; CI on 2eea4d0), and rami.js says its
    stream's first news on <html data-stream>, which comes only after that event."""
    expect(page.locator("html")).to_have_attribute("data-stream", re.compile("^(open|closed)$"))


# The poller's hx-sync drops a poll asked for while another is on its way (one the page sent
# by itself: on its clock, or on its stream's news), and that one may have been answered
# already: so ask once no poll is on its way.
ASK_FOR_A_POLL = """() => new Promise((asked) => {
    const poller = document.querySelector('.poller');
    const ask = () => { htmx.trigger(poller, 'rami:poll'); asked(); };
    if (!poller.classList.contains('htmx-request')) return ask();
    poller.addEventListener('htmx:afterRequest', () => setTimeout(ask, 0), { once: true });
})"""


def _ask_for_a_poll(page) -> None:
    """The page's live update, asked for now, once its scripts have run."""
    _scripts_run(page)
    page.evaluate(ASK_FOR_A_POLL)


def _poll_now(page) -> None:
    """The page's live update, asked for now; returns with its answer."""
    with page.expect_response("**/poll?*"):
        _ask_for_a_poll(page)


@pytest.mark.parametrize("order", ["a poll answered first", "and one sent after the tap's answer"])
def test_the_tapping_phone_is_told_of_the_rematch_once_whatever_the_poll_does(db, opened, order):
    phone = None
    for _ in range(TRIES // 2):
        game = import_game(game_document("every_kind"))
        if phone is None:
            phone = opened(url("game", game.edit_token), **PHONE)
        else:
            phone.goto(url("game", game.edit_token))
        expect(phone.locator(".banner.winner")).to_contain_text("Ana wins the game!")
        polls = _held(phone, "**/poll?*", "GET")
        # A poll on its way when Rematch is tapped.
        _ask_for_a_poll(phone)
        until_held(phone, polls)
        taps = _held(phone, f"**/g/{game.edit_token}/rematch/", "POST")
        phone.get_by_role("button", name="Rematch").click(no_wait_after=True)
        until_held(phone, taps)
        # The server makes the rematch; its answer (and the new page) wait meanwhile.
        tapped = taps[0].fetch(max_redirects=0)
        assert tapped.status == 303
        with phone.expect_response("**/poll?*") as answer:
            polls[0].continue_()
        assert answer.value.headers.get("hx-redirect")
        if order == "and one sent after the tap's answer":
            # A live update sent with the cookies the tap's answer left, its own going to the
            # phone's (the page itself asks no more once Rematch is tapped: rami.js).
            late = phone.context.request.get(
                url("poll", game.edit_token) + f"?v={game.version}&shown=finished",
                headers={"HX-Request": "true"},
                max_redirects=0,
            )
            assert late.headers.get("hx-redirect")
        taps[0].fulfill(response=tapped)
        phone.unroute_all()
        rematch = game.__class__.objects.get(pk=game.pk).next_game
        expect(phone).to_have_url(re.compile(f"/g/{rematch.edit_token}/$"))
        notice = phone.locator(".banner.notice")
        expect(notice).to_have_text(["New game: Ana, Boris, Cyril, Dana"])
        # Once: the page's next live update and a reload say nothing more.
        _poll_now(phone)
        expect(notice).to_have_count(1)
        phone.reload()
        expect(phone.locator(".total .sum")).to_have_text(["0", "0", "0", "0"])
        expect(notice).to_have_count(0)


def test_the_new_games_note_goes_with_its_first_round_or_on_a_tap(db, opened):
    game = import_game(game_document("every_kind"))
    tapping = opened(url("game", game.edit_token), **PHONE)
    other_phone = opened(url("game", game.edit_token), **PHONE)
    laptop = opened(url("view", game.view_token), **LAPTOP)
    tapping.get_by_role("button", name="Rematch").click()
    rematch = game.__class__.objects.get(pk=game.pk).next_game
    expect(other_phone).to_have_url(re.compile(f"/g/{rematch.edit_token}/$"), timeout=3_000)
    expect(laptop).to_have_url(re.compile(f"/v/{rematch.view_token}/$"), timeout=3_000)
    for page in (tapping, other_phone, laptop):
        expect(page.locator(".banner.notice")).to_have_text("New game: Ana, Boris, Cyril, Dana")

    # A tap on the note takes it away.
    other_phone.locator(".banner.notice").tap()
    expect(other_phone.locator(".banners.notices")).to_have_count(0)
    # Typing a round does not (its previews change nothing); its save does, and every page
    # that shows the round loses the note with it.
    tapping.locator("label[for=id_winner_0]").tap()
    for seat, name in ((1, "Boris"), (2, "Cyril"), (3, "Dana")):
        type_value(tapping, name, seat * 5)  # on a phone, the row chosen first
    expect(tapping.locator("#points-3")).to_have_text("15")
    expect(tapping.locator(".banner.notice")).to_be_visible()
    tapping.get_by_role("button", name="Save round").click()
    expect(tapping.locator(".banner.saved")).to_contain_text("Round 1")
    expect(laptop.locator(".total .sum")).to_have_text(["0", "5", "10", "15"], timeout=3_000)
    for page in (tapping, laptop):
        expect(page.locator(".banners.notices")).to_have_count(0)
