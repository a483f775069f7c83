"""A save that cannot reach the server (no connection, a lost answer, a busy server) keeps the
round in the form, says so, and sends it again by itself: the round is recorded once."""

import re
import time

import pytest
from playwright.sync_api import Page, Route, expect

from scoring import rules
from scoring.models import Game
from tests.browser.conftest import _page, assert_accessible
from tests.browser.game_steps import (
    choose_winner,
    expect_totals,
    hand,
    not_opened,
    start_game,
    tap_cards,
)
from tests.links import url

# The phone offline, and the phone online with no answer from the server: each said as it is.
OFFLINE = (
    "The phone is offline. Your round is kept here and will be sent as soon as the phone is "
    "back online."
)
UNREACHABLE = (
    "The save could not reach the server. Your round is kept here and is sent again every few "
    "seconds until the server answers."
)
KEPT = "Your round is kept here"
BUSY = "The server is busy and the round was not saved."
# What a failed request writes to the console by itself: the browser's line for the request,
# and htmx's name of the error event. Nothing else may appear.
EXPECTED_CONSOLE = re.compile(
    r"(Failed to load resource: (net::ERR_\w+|the server responded with a status of "
    r"(403|500|503) \([\w ]+\))|(htmx:(sendError|responseError|afterRequest)|Response Status "
    r"Error Code (403|500|503) from /g/[\w-]+/save/), \[object \w+\]) \(http"
)


@pytest.fixture
def phone(browser, live_server, static_from_the_source):
    """A phone (page and context) whose failed requests are expected; the test still fails on
    a script error or any other console error."""
    context, page, errors = _page(browser, live_server)
    yield page, context
    context.close()
    assert [error for error in errors if not EXPECTED_CONSOLE.match(error)] == []


# Where the round form posts a round (a view of its own, scoring/views/rounds.py).
SAVES = re.compile(r"/g/[\w-]+/save/$")


def rounds_recorded(page: Page) -> int:
    token = re.search(r"/g/([\w-]+)/", page.url).group(1)
    return Game.objects.get(edit_token=token).rounds.count()


def is_save(request) -> bool:
    return request.method == "POST" and "action=save" in (request.post_data or "")


# The round form is reached by its fields' names (seats 0, 1, 2: Ana, Boris, Cyril), which
# stay whatever the layout: Ana went out, Boris has 20 points in hand, Cyril 5.


def type_value(page: Page, seat: int, value: int) -> None:
    field = page.locator(f"#round-form input[name=value_{seat}]")
    # On a phone's one keyboard the value field is the chosen row's: the row is tapped first.
    pick = page.locator(f"#round-form .hand:has(input[name=value_{seat}]) .hand-pick")
    if pick.is_visible():
        pick.click()
    field.fill(str(value))


def fill_round(page: Page) -> None:
    winner = page.locator('#round-form input[name=winner][value="0"]')
    page.locator(f"label[for={winner.get_attribute('id')}]").click()
    type_value(page, 1, 20)
    type_value(page, 2, 5)


def expect_round_kept(page: Page) -> None:
    expect(page.locator("#round-form input[name=winner]:checked")).to_have_value("0")
    expect(page.locator("#round-form input[name=value_1]")).to_have_value("20")
    expect(page.locator("#round-form input[name=value_2]")).to_have_value("5")


def expect_recorded_once(page: Page) -> None:
    """The totals of the round, a fresh form with no notice, and one round in the database."""
    expect_totals(page, 0, 20, 5)
    expect(page.locator("#round-form input[name=value_1]")).to_have_value("")
    expect(page.locator("#round-notice")).to_be_empty()
    assert rounds_recorded(page) == 1


def save_requests(page: Page) -> list[str]:
    """The save requests the page sends from now on (their URLs), answered or not."""
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if is_save(request) else None)
    return sent


def test_a_round_saved_offline_is_kept_and_recorded_once_back_online(phone):
    page, context = phone
    start_game(page, "Ana", "Boris", "Cyril")
    context.set_offline(True)
    fill_round(page)
    page.get_by_role("button", name="Save round").click()

    expect(page.locator("#round-notice")).to_have_text(OFFLINE)
    expect(page.locator("#round-notice")).to_be_in_viewport()
    expect_round_kept(page)
    assert_accessible(page)
    # Offline, nothing is sent again by itself (the phone waits for its "online" event).
    sent = save_requests(page)
    page.wait_for_timeout(6_000)
    assert sent == []
    assert rounds_recorded(page) == 0

    context.set_offline(False)
    expect_recorded_once(page)
    # Recorded: nothing more is sent.
    sent.clear()
    page.wait_for_timeout(6_000)
    assert sent == []


def test_a_lost_answer_is_sent_again_and_the_round_recorded_once(phone):
    page, _ = phone
    start_game(page, "Ana", "Boris", "Cyril")
    lost = []

    def lose_the_answer(route: Route) -> None:
        # The first save reaches the server, which records the round; its answer never comes
        # back. The polls fail too meanwhile (they would bring the round in and so send the
        # form again at once): this phone has lost its connection just after sending.
        if is_save(route.request) and not lost:
            lost.append(route.fetch().status)
            route.abort()
        elif "/poll" in route.request.url:
            route.abort()
        else:
            route.continue_()

    page.route(re.compile(r"/g/[\w-]+/"), lose_the_answer)
    fill_round(page)
    page.get_by_role("button", name="Save round").click()

    # The phone is online: the server is what could not be reached.
    expect(page.locator("#round-notice")).to_have_text(UNREACHABLE)
    assert lost == [200]
    assert rounds_recorded(page) == 1
    expect_round_kept(page)

    page.unroute(re.compile(r"/g/[\w-]+/"))
    # Sent again with the same key: the server answers with the round it recorded first.
    expect_recorded_once(page)


def test_a_busy_server_gets_the_round_again_after_its_retry_after(phone):
    page, _ = phone
    start_game(page, "Ana", "Boris", "Cyril")
    busy = [True]
    answered = []

    def database_away(route: Route) -> None:
        if is_save(route.request) and busy[0]:
            answered.append(time.monotonic())
            route.fulfill(status=503, headers={"Retry-After": "1"}, body="busy")
        else:
            route.continue_()

    page.route(SAVES, database_away)
    fill_round(page)
    page.get_by_role("button", name="Save round").click()

    expect(page.locator("#round-notice")).to_contain_text(BUSY)
    expect_round_kept(page)
    assert rounds_recorded(page) == 0
    # Sent again after the server's Retry-After (1 s), not only the usual 5 s.
    page.wait_for_timeout(2_500)
    assert len(answered) >= 2
    assert answered[1] - answered[0] < 3

    busy[0] = False
    expect_recorded_once(page)


def test_a_server_failing_again_and_again_is_said_so_and_the_round_still_sent(phone):
    """A save answered with a server error again and again (a bug of the server, say): after
    a few tries the notice says that the server could not save the round, which stays in the
    form and is still sent again; once the server takes it, it is recorded once."""
    page, _ = phone
    start_game(page, "Ana", "Boris", "Cyril")
    failing = [True]
    answered = []

    def broken(route: Route) -> None:
        if is_save(route.request) and failing[0]:
            answered.append(time.monotonic())
            route.fulfill(status=500, headers={"Retry-After": "1"}, body="error")
        else:
            route.continue_()

    page.route(SAVES, broken)
    fill_round(page)
    page.get_by_role("button", name="Save round").click()
    expect(page.locator("#round-notice")).to_contain_text(BUSY)
    expect(page.locator("#round-notice")).to_have_text(
        "The server could not save this round. It stays here, and the phone keeps sending it; "
        "if this goes on, write the round down and try again later.",
        timeout=8_000,
    )
    assert len(answered) >= 3
    expect_round_kept(page)
    assert rounds_recorded(page) == 0
    failing[0] = False
    expect_recorded_once(page)


def test_a_round_changed_meanwhile_waits_for_the_next_tap_on_save(phone):
    page, context = phone
    start_game(page, "Ana", "Boris", "Cyril")
    context.set_offline(True)
    fill_round(page)
    page.get_by_role("button", name="Save round").click()
    expect(page.locator("#round-notice")).to_contain_text(KEPT)

    type_value(page, 2, 7)
    expect(page.locator("#round-notice")).to_have_text(
        "The round is not saved yet: tap Save round to send it as it is now."
    )
    sent = save_requests(page)
    context.set_offline(False)
    page.wait_for_timeout(6_000)
    assert sent == []
    assert rounds_recorded(page) == 0

    page.get_by_role("button", name="Save round").click()
    expect_totals(page, 0, 20, 7)
    assert rounds_recorded(page) == 1


def test_a_refused_save_is_not_sent_again(phone):
    page, _ = phone
    start_game(page, "Ana", "Boris", "Cyril")
    sent = save_requests(page)
    page.route(
        SAVES,
        lambda route: (
            route.fulfill(status=403, body="forbidden")
            if is_save(route.request)
            else route.continue_()
        ),
    )
    fill_round(page)
    page.get_by_role("button", name="Save round").click()

    expect(page.locator("#round-notice")).to_have_text(
        "The server refused this save and the round was not recorded. "
        "Reload the page, then enter the round again."
    )
    expect_round_kept(page)
    page.wait_for_timeout(6_000)
    assert len(sent) == 1
    assert rounds_recorded(page) == 0


def test_offline_each_hand_shows_its_value_from_the_games_card_values(phone):
    """The preview's points are the server's; offline, each row shows its hand's value worked
    out on the phone (here a joker is 50 and an ace 1, the game's own values), and the next
    answer of the server puts its points back."""
    page, context = phone
    game = Game.start(["Ana", "Boris", "Cyril"], house_rules=rules.Rules(joker=50, ace=1))
    page.goto(url("game", game.edit_token))
    expect(page.locator("#round-form")).to_be_visible()
    context.set_offline(True)
    choose_winner(page, "Ana")
    tap_cards(page, "Boris", "AH JK 5C")
    type_value(page, 2, 17)
    points = page.locator("#round-form .points-preview")
    expect(hand(page, "Boris").locator(".points-preview")).to_have_text("56")
    expect(hand(page, "Cyril").locator(".points-preview")).to_have_text("17")
    expect(hand(page, "Ana").locator(".points-preview")).to_have_text("0")
    context.set_offline(False)
    not_opened(page, "Cyril")  # a change the server previews: 17 + 25
    expect(hand(page, "Cyril").locator(".points-preview")).to_have_text("42")
    assert points.count() == 3
