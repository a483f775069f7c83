"""Every phone at the table: rounds played one after another by taps, on a 360 x 740
phone, a 390 x 844 one, a 320 x 640 one and a 1366 x 800 laptop. After each save the answer
stands where the last one stood, and shows, without a scroll, the confirmation with its Undo,
every player's new total and the next round's entry down to Save; the next round is tapped
from there. The round form of four players fits one
360 x 740 screen, six players 1.3 screens; on the laptop every player's row is on the screen
above Save, and nothing scrolls inside the entry."""

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Game
from tests.browser.conftest import assert_accessible
from tests.browser.game_steps import OnScreenTaps, keys_for, one_keyboard
from tests.browser.test_at_the_table import long_game
from tests.links import url

# A typical round: the winner's "went out", then each loser's cards, one rank tap a card (the
# suits are not needed for the points), then Save.
TYPICAL = {1: "2 5 9 K", 2: "3 3 7 Q A", 3: "4 6 8 10 J JK"}

SCREEN = """() => {
  const inView = (element) => {
    if (!element) return false;
    const box = element.getBoundingClientRect();
    return box.height > 0 && box.top >= -1 && box.bottom <= innerHeight + 1;
  };
  const save = document.querySelector("#round-form button[value=save]");
  return {
    scrollY: Math.round(scrollY),
    confirmation: inView(document.querySelector(".banner.saved")),
    undo: inView(document.querySelector(".banner.saved :is(a, button)")),
    totals: [...document.querySelectorAll("#round-form .total .sum")].map(inView),
    save: inView(save),
  };
}"""


def form_height(page: Page) -> float:
    """From the round's title to the bottom of Save."""
    return page.evaluate(
        """() => {
          const top = document.querySelector("#entry-title").getBoundingClientRect().top;
          const save = document.querySelector("#round-form button[value=save]");
          return save.getBoundingClientRect().bottom - top;
        }"""
    )


def play_a_round(page: Page, winner: int = 0) -> int:
    """Tap a typical round where the page stands, each control checked on the screen first;
    returns the taps it took."""
    tap = OnScreenTaps(page)
    tap(page.locator(f"label[for=id_winner_{winner}]"))
    losers = [seat for seat in range(4) if seat != winner]
    for seat, ranks in zip(losers, TYPICAL.values(), strict=True):
        keys = keys_for(page.locator(f"#round-form .seat-{seat}"), tap)
        for rank in ranks.split():
            tap(keys.locator(f'.rank[data-rank="{rank}"]'))
    expect(page.locator(f"#points-{losers[-1]}")).not_to_have_text("")
    with page.expect_response(lambda response: "action=save" in (response.request.post_data or "")):
        tap(page.locator("#round-form button[value=save]"))
    expect(page.locator(".banner.saved")).to_be_visible()
    page.wait_for_timeout(300)  # the answer settles and is put in view (rami.js)
    return tap.count


@pytest.mark.parametrize(
    "width, height",
    [(360, 740), (390, 844), (320, 640), (1366, 800)],
    ids=["360", "390", "320", "laptop"],
)
def test_rounds_in_a_row_without_a_scroll(page: Page, live_server, width, height):
    page.set_viewport_size({"width": width, "height": height})
    game = long_game(20, players=4)
    page.goto(url("game", game.edit_token))
    assert form_height(page) <= height
    answers = []
    for number, winner in zip((21, 22, 23), (0, 2, 1), strict=True):
        if answers:
            # The next round is tapped from where the answer stands: no scroll in between.
            assert page.evaluate("Math.round(scrollY)") == answers[-1]["scrollY"]
        else:
            page.locator(".hand").first.evaluate("element => element.scrollIntoView()")
        # On a phone's one keyboard, one tap more a hand (choosing its row).
        assert play_a_round(page, winner) <= 17 + (2 if one_keyboard(page) else 0)
        expect(page.locator(".banner.saved")).to_contain_text(f"Round {number} saved.")
        screen = page.evaluate(SCREEN)
        assert screen["confirmation"] and screen["undo"] and screen["save"], screen
        assert screen["totals"] == [True] * 4, screen
        answers.append(screen)
    assert len({answer["scrollY"] for answer in answers}) == 1, answers
    assert game.rounds.count() == 23
    if width > 1000:
        # Every player side by side above Save, and nothing scrolls inside the entry.
        save = page.locator("#round-form button[value=save]").bounding_box()
        for row in page.locator("#round-form .hand").all():
            found = row.bounding_box()
            assert found["y"] + found["height"] <= save["y"], found
        entry = page.locator("#round-entry")
        assert entry.evaluate("element => element.scrollHeight <= element.clientHeight + 1")
    assert_accessible(page)


@pytest.mark.parametrize("players, budget", [(4, 740), (6, 962)])
def test_the_round_form_fits_a_360_phone(page: Page, live_server, players, budget):
    page.set_viewport_size({"width": 360, "height": 740})
    for game in (
        Game.start(["Ana", "Boris", "Cyril", "Dana", "Eva", "Fay"][:players]),
        long_game(20, players=players),
    ):
        page.goto(url("game", game.edit_token))
        assert form_height(page) <= budget
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
