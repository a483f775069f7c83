"""A round at a small phone, with real hands: the whole round on one screen, its keys a finger
can hit.

At 360 x 640 (five and six players at 360 x 740 too), in Czech, Bulgarian and Indonesian (the
longest of the five languages in the round form), two to six players play three rounds in a
row, each loser's hand four to six cards tapped in on the table's one keyboard. From the round's
title to Save the form stays within the screen as the cards go in, every tap is made on the
screen as it stands, and after each Save the answer, every player's new total and the next Save
are on the same screen, where the next round is tapped without a scroll. A round takes no more
taps than on a keyboard a row plus one a hand (choosing the row). On a phone every key a finger
taps is at least 44 px wide and high at every table size; a tablet and a laptop keep the keys
in each row."""

import pytest
from playwright.sync_api import Page, expect

from scoring.files.exchange import import_game
from scripts.long_games import five_rounds_played
from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import OnScreenTaps
from tests.links import url

NAMES = {
    "cs": ["Jana", "Petr", "Zdeňka", "Miroslav", "Kateřina", "Ondřej"],
    "bg": ["Иван", "Мария", "Георги", "Елена", "Димитър", "Радостина"],
    "id": ["Siti Rahayu", "Agus", "Dewi Lestari", "Wayan Putra", "Putu", "Rina"],
}
# The hands left after a round, one rank tap a card: four to six cards each, within the deck.
HANDS = ["2 5 9 K", "3 3 7 Q A", "4 6 8 10 J JK", "2 4 6 8", "5 7 9 J Q"]

IN_VIEW = """selector => [...document.querySelectorAll(selector)].map(element => {
  const box = element.getBoundingClientRect();
  return box.height > 0 && box.top >= -1 && box.bottom <= innerHeight + 1;
})"""


def form_on_screen(page: Page) -> dict:
    """Where the round's title and Save stand on the screen."""
    return page.evaluate(
        """() => ({
          title: document.querySelector("#entry-title").getBoundingClientRect().top,
          save: document.querySelector("#round-form button[value=save]")
            .getBoundingClientRect().bottom,
          height: innerHeight,
        })"""
    )


@pytest.mark.parametrize(
    "language, players, height",
    [
        (language, players, height)
        for language in ("cs", "bg", "id")
        for players in (2, 3, 4, 5, 6)
        for height in (640, 740)
        if height == 640 or players > 4
    ],
)
def test_a_round_of_real_hands_and_its_answer_each_fit_one_screen(
    page: Page, live_server, language, players, height
):
    page.set_viewport_size({"width": 360, "height": height})
    page.set_extra_http_headers({"Accept-Language": language})
    names = NAMES[language][:players]
    game = import_game(five_rounds_played(names))
    page.goto(url("game", game.edit_token))
    expect(page.locator("#round-form .table-keys")).to_be_visible()
    page.locator("#entry-title").evaluate("title => title.scrollIntoView()")
    where = None
    for number in (6, 7, 8):
        if where is not None:
            # The next round is tapped from where the answer left the page.
            assert page.evaluate("Math.round(scrollY)") == where
        tap = OnScreenTaps(page)
        winner = number % players
        tap(page.locator(f"label[for=id_winner_{winner}]"))
        losers = [seat for seat in range(players) if seat != winner]
        cards = 0
        for seat, ranks in zip(losers, HANDS, strict=False):
            pick = page.locator(f"#round-form .seat-{seat} .hand-pick")
            if pick.get_attribute("aria-pressed") != "true":
                tap(pick)
            for rank in ranks.split():
                tap(page.locator(f'#round-form .table-keys .rank[data-rank="{rank}"]'))
                cards += 1
            expect(page.locator(f"#round-form .seat-{seat} .chosen .chip")).to_have_count(
                len(ranks.split())
            )
        expect(page.locator(f"#points-{losers[-1]}")).not_to_have_text("")
        # From its title to Save, the round with every hand typed in is on the screen.
        screen = form_on_screen(page)
        assert screen["title"] >= -1 and screen["save"] <= screen["height"], (number, screen)
        with page.expect_response(
            lambda response: "action=save" in (response.request.post_data or "")
        ):
            tap(page.locator("#round-form button[value=save]"))
        # Today's taps (who went out, each card, Save) and one a hand at most.
        assert tap.count <= 1 + cards + 1 + len(losers), tap.count
        saved = page.locator("#answer .banner.saved")
        expect(saved).to_contain_text(str(number))
        page.wait_for_timeout(300)  # the answer settles and is put in view (rami.js)
        assert page.evaluate(IN_VIEW, "#answer .banner.saved") == [True], number
        assert page.evaluate(IN_VIEW, "#round-form .hand .sum") == [True] * players, number
        assert page.evaluate(IN_VIEW, "#round-form button[value=save]") == [True], number
        expect(page.locator("#entry-title")).to_contain_text(str(number + 1))
        where = page.evaluate("Math.round(scrollY)")
    assert game.rounds.count() == 8
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert_accessible(page)


# Where a finger taps to type a round: the keyboard's keys (ranks, suits, the take-back key),
# each row's "went out" and "not opened yet"; and what else it taps, at least as high: a row
# (to type its hand), the value field of the row chosen, a blocked round, a hand rummy, Save.
KEYS = "#round-form :is(.table-keys button, .out-choice, .switch.not-opened)"
TALL = (
    "#round-form :is(.hand-pick, .value-input, .blocked-choice, .round-kind .hand-rummy,"
    " button[value=save])"
)
SIZES = """selector => [...document.querySelectorAll(selector)]
  .filter(element => element.getClientRects().length)
  .map(element => {
    const box = element.getBoundingClientRect();
    return [element.className, Math.round(box.width * 10) / 10, Math.round(box.height * 10) / 10];
  })"""


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("width", [320, 360, 390])
def test_every_key_a_finger_taps_is_at_least_44_px_each_way_at_every_table_size(
    page: Page, live_server, players, width
):
    page.set_viewport_size({"width": width, "height": 640})
    page.set_extra_http_headers({"Accept-Language": "bg"})
    game = import_game(five_rounds_played(NAMES["bg"][:players]))
    page.goto(url("game", game.edit_token))
    expect(page.locator("#round-form .table-keys")).to_be_visible()
    keys = page.evaluate(SIZES, KEYS)
    # The 14 ranks, 4 suits and the take-back key; "went out" and "not opened yet" a row.
    assert len(keys) == 19 + 2 * players, keys
    assert all(key_width >= 44 and height >= 44 for _, key_width, height in keys), keys
    tall = page.evaluate(SIZES, TALL)
    assert len(tall) == players + 4, tall
    assert all(height >= 44 for _, _, height in tall), tall
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize(
    "width, height, one_keyboard",
    [(740, 360, True), (768, 1024, False), (1366, 800, False)],
    ids=["phone-across", "tablet", "laptop"],
)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_tablet_and_a_laptop_keep_the_keys_in_each_row(
    page: Page, live_server, players, width, height, one_keyboard
):
    page.set_viewport_size({"width": width, "height": height})
    game = import_game(five_rounds_played(NAMES["cs"][:players]))
    page.goto(url("game", game.edit_token))
    keyboard = page.locator("#round-form .table-keys")
    row_keys = page.locator("#round-form .hand .keys")
    expect(row_keys).to_have_count(players)
    if one_keyboard:  # a phone held across: the one keyboard, its keys 44 px each way
        expect(keyboard).to_be_visible()
        for row in row_keys.all():
            expect(row).to_be_hidden()
        keys = page.evaluate(SIZES, KEYS)
        assert all(key_width >= 44 and height >= 44 for _, key_width, height in keys), keys
    else:
        expect(keyboard).to_be_hidden()
        for row in row_keys.all():
            expect(row).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_keyboard_types_the_row_chosen_and_passes_over_who_went_out(page: Page, live_server):
    page.set_viewport_size({"width": 360, "height": 640})
    names = ["Ana", "Boris", "Cyril", "Dana", "Eva", "Fay"]
    game = import_game(five_rounds_played(names))
    page.goto(url("game", game.edit_token))
    keys = page.locator("#round-form .table-keys")
    pressed = page.locator('#round-form .hand-pick[aria-pressed="true"]')
    expect(pressed).to_have_id("pick-0")
    # Ana went out: the keys go on to Boris's hand.
    page.locator("label[for=id_winner_0]").tap()
    expect(pressed).to_have_id("pick-1")
    expect(page.locator("#round-form .seat-0 .hand-pick")).to_be_hidden()
    for key in ('.rank[data-rank="K"]', '.suit[data-suit="H"]', '.rank[data-rank="5"]'):
        keys.locator(key).tap()
    expect(page.locator("#round-form .seat-1 .chosen .chip")).to_have_text(["K♥", "5"])
    expect(page.locator("#points-1")).to_have_text("15")
    # The take-back key takes the last card back; a tap on a row types that one.
    keys.locator(".take-back").tap()
    expect(page.locator("#round-form .seat-1 .chosen .chip")).to_have_text(["K♥"])
    page.locator("#round-form .seat-4 .hand-pick").tap()
    expect(pressed).to_have_id("pick-4")
    keys.locator('.rank[data-rank="JK"]').tap()
    expect(page.locator("#round-form .seat-4 .chosen .chip")).to_have_count(1)
    expect(page.locator("#points-4")).to_have_text("20")
    # The hand value of the row chosen stands at the end of the keys, in that row's field.
    page.locator("#round-form .seat-2 .hand-pick").tap()
    value = page.locator("#id_value_2")
    expect(value).to_be_visible()
    expect(page.locator("#id_value_1")).to_be_hidden()
    value.fill("17")
    expect(page.locator("#points-2")).to_have_text("17")
    assert_accessible(page)
