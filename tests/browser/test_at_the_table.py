"""The game page at a real table, on a 390 x 844 phone, a 320 x 640 one and a
1366 x 800 laptop: a long game with long names, the entry one tap from the top and one screen
tall, the saved round in view with its Undo, errors in view, a round entered on two phones,
live updates that bring only what changed, and no page wider than its screen in any language."""

import itertools
import re

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from scoring.files.exchange import import_game
from scoring.models import Game
from scripts.long_games import LONG_NAMES, long_game_document
from tests.browser.conftest import PHONE, assert_accessible
from tests.browser.game_steps import (
    OnScreenTaps,
    choose_winner,
    hand,
    keys_for,
    save,
    tap_cards,
    type_value,
)
from tests.links import url

LANGUAGES = ["en", "cs", "sv", "bg", "id"]


def long_game(rounds: int, players: int, seed: int = 3) -> Game:
    """A game of long names and real-looking hands (scripts/long_games.py)."""
    return import_game(long_game_document(rounds, players, seed))


def box(page: Page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


def in_view(page: Page, selector: str, timeout: float = 5_000) -> bool:
    """The element's top and bottom are both on the screen, once the page has put it there:
    rami.js brings an answer into view after htmx settles it, a moment after its words are
    swapped in (what a test waits on first). False if it is not there within `timeout` ms."""
    try:
        page.wait_for_function(
            """selector => {
              const element = document.querySelector(selector);
              if (!element) return false;
              const rect = element.getBoundingClientRect();
              return rect.top >= -1 && rect.bottom <= window.innerHeight + 1;
            }""",
            arg=selector,
            timeout=timeout,
        )
    except PlaywrightTimeoutError:
        return False
    return True


def test_a_typical_round_on_a_44_round_game_is_19_taps_in_one_screen(page: Page, live_server):
    game = long_game(44, players=4)
    page.goto(url("game", game.edit_token))
    height = page.viewport_size["height"]
    entry_top = page.evaluate(
        "document.querySelector('#round-form .out-choice').getBoundingClientRect().top"
    )
    assert entry_top < 1.5 * height, entry_top
    form = box(page, "#round-form")
    assert form["height"] <= height, form["height"]

    # One flick brings the entry up; from there no scrolling, inside the form or out.
    page.locator("#round-form").evaluate("element => element.scrollIntoView()")
    scrolled = page.evaluate("window.scrollY")
    tap = OnScreenTaps(page)

    save_button = page.get_by_role("button", name="Save round")

    tap(hand(page, LONG_NAMES[0]).locator(".out-choice"))
    for name, ranks in zip(LONG_NAMES[1:4], ["2 5 9 K", "3 3 7 Q A", "4 6 8 10 J JK"], strict=True):
        keys = keys_for(hand(page, name), tap)
        for rank in ranks.split():
            tap(keys.locator(f'.rank[data-rank="{rank}"]'))
    assert page.evaluate("window.scrollY") == scrolled

    def is_save(response) -> bool:
        return "action=save" in (response.request.post_data or "")

    with page.expect_response(is_save):
        tap(save_button)
    # Who went out, 15 cards and Save; on the phone's one keyboard, a tap on each loser's row
    # but the first, whose hand the keys type from the start.
    assert tap.count == 17 + 2
    expect(page.locator(".banner.saved")).to_contain_text("Round 45 saved.")
    # The confirmation and the new totals are what the phone now shows.
    assert in_view(page, ".banner.saved")
    assert in_view(page, ".total")
    expect(page.locator(".banner.saved")).to_be_focused()
    assert_accessible(page)

    # Undo takes the round back into the form, to be put right: nothing changes until then.
    page.locator(".banner.saved").get_by_role("link", name="Undo").click()
    expect(page.locator("#entry-title")).to_contain_text("Round 45, back in the form")
    assert in_view(page, "#entry-title")
    assert game.rounds.count() == 45


def test_six_players_fit_in_1_3_screens_and_the_tie_break_is_in_view_after_the_save(
    page: Page, live_server
):
    game = Game.start(LONG_NAMES)
    page.goto(url("game", game.edit_token))
    assert box(page, "#round-form")["height"] <= 1.3 * 844
    # A blocked round: the two lowest hands score 0, everyone else passes the target, and the
    # two players level on 0 play a tie-break round.
    choose_winner(page, "Nobody: blocked round")
    for name, value in zip(LONG_NAMES, (5, 5, 520, 520, 520, 520), strict=True):
        type_value(page, name, value)
    save(page)
    expect(page.locator(".banner.tie-break")).to_be_visible()
    assert in_view(page, ".banner.tie-break")
    assert in_view(page, ".banner.saved")
    assert_accessible(page)


def test_errors_are_shown_all_at_once_in_view_and_the_first_is_focused(page: Page, live_server):
    game = long_game(30, players=4)
    page.goto(url("game", game.edit_token))
    choose_winner(page, LONG_NAMES[0])
    type_value(page, LONG_NAMES[1], 1)  # less than the cheapest card
    tap_cards(page, LONG_NAMES[3], "KH 5C")
    # Cyril's hand is missing.
    page.get_by_role("button", name="Save round").click()
    errors = page.locator("#round-form .seat-errors .field-error")
    expect(errors).to_have_count(2)
    first = hand(page, LONG_NAMES[1])
    expect(first.locator(".value-input")).to_be_focused()
    assert in_view(page, "#round-form .seat-1 .field-error")
    # Dana's points are there beside the others' errors, and what was tapped is kept.
    expect(hand(page, LONG_NAMES[3]).locator(".points-preview")).to_have_text("15")
    expect(hand(page, LONG_NAMES[3]).locator(".chosen .chip")).to_have_count(2)
    assert_accessible(page)


def test_a_card_the_deck_cannot_hold_is_said_next_to_its_player_as_it_is_tapped(
    page: Page, live_server
):
    page.set_viewport_size({"width": 360, "height": 740})
    game = Game.start(["Ana", "Boris", "Cyril", "Dana", "Eva", "Fay"])
    saves: list[str] = []
    page.on(
        "request",
        lambda request: (
            saves.append(request.url)
            if request.method == "POST" and "action=save" in (request.post_data or "")
            else None
        ),
    )
    page.goto(url("game", game.edit_token))
    page.locator("label[for=id_winner_0]").tap()
    tap_cards(page, "Fay", "KH 5C")
    expect(page.locator("#points-5")).to_have_text("15")

    tap_cards(page, "Boris", "AH AH")
    expect(page.locator("#points-1")).to_have_text("22")
    tap_cards(page, "Cyril", "AH")  # a third A♥: the deck has two packs
    third_ace = (
        "With the hand of Cyril, this round holds 3 copies of the card “ace of hearts”, but the "
        "deck has only 2. Tap a chosen card to take it back."
    )
    expect(page.locator("#errors-2")).to_have_text(third_ace)
    expect(page.locator("#errors-2")).to_be_visible()
    # Nobody else is blamed, and the others keep their points.
    for seat in (0, 1, 3, 4, 5):
        expect(page.locator(f"#errors-{seat}")).to_have_text("")
    expect(page.locator("#points-0")).to_have_text("0")
    expect(page.locator("#points-1")).to_have_text("22")
    expect(page.locator("#points-5")).to_have_text("15")
    expect(page.locator("#points-2")).to_have_text("")
    assert saves == []

    # Dana's value is less than any card, and Eva's hand is missing: one Save says all three.
    type_value(page, "Dana", 1)
    save(page)
    assert len(saves) == 1
    expect(page.locator("#errors-2")).to_have_text(third_ace)
    expect(page.locator("#errors-3")).to_contain_text("The hand value of Dana, 1, is less")
    expect(page.locator("#errors-4")).to_have_text(
        "The cards left in the hand of Eva (or their value) are missing. Tap the cards left "
        "in it, or type their value."
    )
    expect(page.locator("#round-form .seat-errors .field-error")).to_have_count(3)
    expect(page.locator("#form-errors .field-error")).to_have_count(0)
    # The cards field (hidden under the card keys while the script runs) is marked.
    expect(page.locator("#id_cards_2")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#id_cards_1")).not_to_have_attribute("aria-invalid", "true")
    for seat, points in ((0, "0"), (1, "22"), (5, "15")):
        expect(page.locator(f"#points-{seat}")).to_have_text(points)
    # Everything tapped is kept.
    expect(hand(page, "Boris").locator(".chosen .chip")).to_have_count(2)
    assert game.rounds.count() == 0


def the_same_round_saved_on_two_phones(page: Page, browser, live_server):
    """A 20-round game of four long names; round 21 typed alike on `page` and on another
    phone (a browser of its own), saved on `page` first, then on the other. The game, the
    other phone's context and its page."""
    game = long_game(20, players=4)
    other_context = browser.new_context(base_url=live_server.url, **PHONE)
    other = other_context.new_page()
    for phone in (page, other):
        phone.goto(url("game", game.edit_token))
        choose_winner(phone, LONG_NAMES[0])
        for name, value in zip(LONG_NAMES[1:4], (12, 7, 9), strict=True):
            type_value(phone, name, value)
    save(page)
    save(other)
    return game, other_context, other


def test_the_same_round_on_two_phones_is_saved_once_and_another_is_explained_in_view(
    page: Page, browser, live_server, static_from_the_source
):
    game, other_context, other = the_same_round_saved_on_two_phones(page, browser, live_server)
    expect(other.locator(".banner.saved")).to_contain_text("Round 21 was saved on another phone")
    assert game.rounds.count() == 21

    # A different round typed for the same slot: the notice is in view, and says what to do.
    for phone, value in ((page, 5), (other, 6)):
        choose_winner(phone, LONG_NAMES[2])
        for name in (LONG_NAMES[0], LONG_NAMES[1], LONG_NAMES[3]):
            type_value(phone, name, value)
    save(page)
    save(other, "Save round")
    notice = other.locator("#round-form .banner.conflict")
    expect(notice).to_contain_text("save yours as round 23")
    expect(notice).to_be_focused()
    assert in_view(other, "#round-form .banner.conflict"), (
        box(other, "#round-form .banner.conflict"),
        other.evaluate("window.scrollY"),
    )
    assert_accessible(other)
    # The heading names the round in question; a round saved meanwhile on the first phone
    # brings the other one's notice that a round was saved, which says nothing more: one box.
    expect(other.locator("#entry-title")).to_have_text("Round 22, saved on another phone first")
    # Headings wrap, never cut: the whole of it is read at 360 px.
    other.set_viewport_size({"width": 360, "height": 740})
    assert other.locator("#entry-title").evaluate(
        "title => title.scrollWidth <= title.clientWidth && getComputedStyle(title).textOverflow"
        " !== 'ellipsis'"
    )
    choose_winner(page, LONG_NAMES[3])
    for name in LONG_NAMES[:3]:
        type_value(page, name, 8)
    save(page)
    expect(other.locator("#round-notice")).not_to_be_empty()
    expect(other.locator("#round-entry .banner:visible")).to_have_count(1)
    other_context.close()


def test_another_phone_gets_only_the_changed_rows_and_keeps_its_chart(
    page: Page, browser, live_server, static_from_the_source
):
    game = long_game(60, players=6)
    watcher_context = browser.new_context(base_url=live_server.url, **PHONE)
    watcher = watcher_context.new_page()
    sizes = []
    watcher.on(
        "response",
        lambda r: (
            sizes.append((r.headers.get("hx-reswap"), len(r.body())))
            if "/poll" in r.url and r.status == 200
            else None
        ),
    )
    watcher.goto(url("view", game.view_token))
    page.goto(url("game", game.edit_token))
    choose_winner(page, LONG_NAMES[0])
    for name in LONG_NAMES[1:]:
        type_value(page, name, 4)
    save(page)
    expect(watcher.locator("#round-rows tr").first).to_have_id("round-61", timeout=4_000)
    expect(watcher.locator(".totals-box .board-head")).to_contain_text("61 rounds")
    assert sizes and sizes[-1][0] == "none", sizes
    # The chart, scrolled to, is drawn again with the new round.
    watcher.locator("#extras").scroll_into_view_if_needed()
    expect(watcher.locator("#score-chart-desc")).to_contain_text("After round 61", timeout=4_000)
    watcher_context.close()


# Where the link under the chart is, from the top of the page, once it is brought into view.
LINK_FROM_THE_TOP = """link => {
  link.scrollIntoView({block: "end"});
  return link.getBoundingClientRect().top + window.scrollY;
}"""


def test_the_saving_phone_keeps_its_chart_until_it_is_drawn_again_and_nothing_under_it_moves(
    page: Page, live_server, static_from_the_source
):
    page.set_viewport_size({"width": 360, "height": 740})
    game = long_game(12, players=4)
    page.goto(url("game", game.edit_token))
    choose_winner(page, LONG_NAMES[0])
    for name in LONG_NAMES[1:4]:
        type_value(page, name, 5)
    with page.expect_response(lambda response: "/extras/" in response.url) as drawn:
        save(page)
        # The answer to the save brings no chart: the one the phone showed stays, a round old.
        expect(page.locator("#score-chart-desc")).to_contain_text("After round 12")
        link = page.get_by_role("link", name="Names, seats and dealer")
        before = link.evaluate(LINK_FROM_THE_TOP)
    assert drawn.value.ok
    # In view, it is drawn again with the new round, in the room the old one held.
    expect(page.locator("#score-chart-desc")).to_contain_text("After round 13")
    expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)
    assert link.evaluate(LINK_FROM_THE_TOP) == before
    assert_accessible(page)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", [(320, 640), (390, 844), (1366, 800)], ids=["320", "390", "1366"])
def test_six_long_names_fit_every_screen_in_every_language(
    browser, live_server, static_from_the_source, language, size
):
    game = long_game(12, players=6)
    width, height = size
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": width, "height": height},
        device_scale_factor=1,
        is_mobile=width < 900,
        has_touch=width < 900,
        extra_http_headers={"Accept-Language": language},
    )
    page = context.new_page()
    page.goto(url("game", game.edit_token))
    assert page.locator("html").get_attribute("lang") == language
    assert page.evaluate("document.documentElement.scrollWidth") == width
    language_box = box(page, "#language-select")
    assert language_box["x"] + language_box["width"] <= width
    if width >= 900:
        # The entry spans the page, the players side by side, every row above Save on the
        # first screen.
        rows = [row.bounding_box() for row in page.locator("#round-form .hand").all()]
        assert len({row["y"] for row in rows}) == 1
        assert all(
            left["x"] + left["width"] <= right["x"] for left, right in itertools.pairwise(rows)
        )
        assert box(page, "#round-form button[value=save]")["y"] + 44 <= height
    page.goto(url("game", game.edit_token) + "?rounds=all")
    assert page.evaluate("document.documentElement.scrollWidth") == width
    context.close()


def test_every_state_of_the_page_passes_axe(page: Page, live_server):
    game = long_game(20, players=6)
    page.goto(url("game", game.edit_token))
    assert_accessible(page)
    page.get_by_role("link", name=re.compile("Show all 20 rounds")).click()
    expect(page.locator("#round-rows tr")).to_have_count(20)
    assert_accessible(page)
    choose_winner(page, LONG_NAMES[0])
    hand(page, LONG_NAMES[1]).get_by_label("Not opened yet").check()
    type_value(page, LONG_NAMES[1], 81)
    expect(page.locator("#explain-1")).to_have_text("81 + 25 → 100, the cap")
    assert_accessible(page)
    page.goto(url("view", game.view_token))
    assert_accessible(page)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_help_page_fits_a_320_px_phone_in_every_language(
    browser, live_server, static_from_the_source, language
):
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 320, "height": 640},
        extra_http_headers={"Accept-Language": language},
    )
    page = context.new_page()
    page.goto("/rules/")
    assert page.evaluate("document.documentElement.scrollWidth") == 320
    context.close()


def test_a_live_update_that_crosses_a_save_never_shows_a_round_twice(
    page: Page, browser, live_server, static_from_the_source
):
    """Two phones save different rounds 5 at the same moment: the one refused gets the other's
    round 5 with its answer, and again from its poll (sent before): it shows it once."""
    game = long_game(4, players=4)
    other_context = browser.new_context(base_url=live_server.url, **PHONE)
    other = other_context.new_page()
    phones = [page, other]
    for value, phone in enumerate(phones):
        phone.goto(url("game", game.edit_token))
        choose_winner(phone, LONG_NAMES[0])
        for name in LONG_NAMES[1:4]:
            type_value(phone, name, 5 + value)
    page.wait_for_timeout(600)
    for phone in phones:
        phone.evaluate("document.querySelector('#round-form button[value=save]').click()")
    page.wait_for_timeout(4000)
    assert game.rounds.count() == 5
    for phone in phones:
        expect(phone.locator("#round-rows tr#round-5")).to_have_count(1)
    other_context.close()


# Where Save is after each save of five or six players, the answer to the save in view at the
# top of the screen, in screens: five fit a 360 x 740 phone (and a 412 x 915 one) whole, and a
# 360 x 640 one with one short scroll; six take one flick at most.
SAVE_WITHIN_SCREENS = {5: {640: 1.1, 740: 1.0, 915: 1.0}, 6: {640: 1.3, 740: 1.2, 915: 1.0}}


@pytest.mark.parametrize("language", ["en", "bg"])
@pytest.mark.parametrize("players", [5, 6])
@pytest.mark.parametrize("size", [(360, 640), (360, 740), (412, 915)], ids=["640", "740", "915"])
def test_five_and_six_players_save_rounds_in_a_row_with_the_answer_and_save_in_view(
    page: Page, live_server, players, size, language
):
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    page.set_extra_http_headers({"Accept-Language": language})
    game = long_game(12, players)
    names = LONG_NAMES[:players]
    page.goto(url("game", game.edit_token))
    page.locator("#entry-title").evaluate("element => element.scrollIntoView()")
    for number in (13, 14, 15):
        winner = names[number % players]
        choose_winner(page, winner)
        for name in names:
            if name != winner:
                type_value(page, name, 5)
        page.locator("#round-form button.primary").click()
        expect(page.locator(".banner.saved")).to_contain_text(str(number))
        assert in_view(page, ".banner.saved"), number
        button = box(page, "#round-form button.primary")
        reach = button["y"] + button["height"]
        assert reach <= SAVE_WITHIN_SCREENS[players][height] * height, (number, reach)


def test_the_answer_to_a_save_goes_when_the_next_change_lands(
    page: Page, browser, live_server, static_from_the_source
):
    """Two phones save the same round at the same moment: the second is told that it was saved
    on another phone, just as it typed it, with the offer to save it as the next deal. The
    answer, offer and all, stays until the next change lands, then goes on every phone: "Round
    21 saved." read after round 22 would be read as the round just saved. A rename is a change
    too; the phone's own next tap brings its own answer."""
    game, other_context, other = the_same_round_saved_on_two_phones(page, browser, live_server)
    told = "Round 21 was saved on another phone, just as you typed it."
    expect(other.locator("#answer .banner.saved p")).to_have_text(told)
    next_deal = other.get_by_role("button", name="It was the next deal: save it as round 22")
    expect(next_deal).to_be_visible()

    names = list(LONG_NAMES[:4])

    def round_on_the_first_phone(number: int) -> None:
        choose_winner(page, names[1])
        for name in (names[0], names[2], names[3]):
            type_value(page, name, 5)
        save(page)
        expect(page.locator(".banner.saved")).to_contain_text(f"Round {number} saved.")

    round_on_the_first_phone(22)
    expect(other.locator("#entry-title")).to_contain_text("Round 23")
    # Another change has landed: the answer and its offer to save it as round 22 are gone.
    expect(other.locator("#answer .banner")).to_have_count(0)
    expect(next_deal).to_have_count(0)
    Game.objects.get(pk=game.pk).rename_player(3, "Dana Kusumawati")
    names[3] = "Dana Kusumawati"
    for phone in (page, other):
        expect(phone.locator("#round-form .hand-name").nth(3)).to_have_text(names[3])
    # The rename landed on the first phone too: its "Round 22 saved." has gone with it.
    expect(page.locator("#answer .banner")).to_have_count(0)
    round_on_the_first_phone(23)
    expect(other.locator("#entry-title")).to_contain_text("Round 24")
    expect(other.locator("#answer .banner")).to_have_count(0)
    # Its own next tap brings its own answer.
    choose_winner(other, names[2])
    for name in (names[0], names[1], names[3]):
        type_value(other, name, 4)
    save(other)
    expect(other.locator("#answer .banner.saved")).to_contain_text("Round 24 saved.")
    other_context.close()
