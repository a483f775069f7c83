"""An evening of six on 360 x 740 phones (docs/rules.md, "Players who come and go"): Dana goes
home after round 3, tapped on one phone; Gita arrives before round 5, added on a second phone;
a watch-only page follows each change and then equals a fresh load of its link. An old round
is deleted, and every round keeps the dealer it had. RAMI_SCREENSHOTS=folder keeps the
screenshots of the board and of the round table."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Game
from tests.browser.conftest import _page, assert_accessible
from tests.browser.game_steps import (
    choose_winner,
    hand,
    save,
    start_game,
    type_value,
)
from tests.browser.test_convergence import SNAPSHOT
from tests.links import url

NAMES = ("Ana", "Boris", "Cyril", "Dana", "Emil", "Filip")
SMALL = {"viewport": {"width": 360, "height": 740}}


@pytest.fixture
def phones(browser, live_server, static_from_the_source):
    """Two more phones of the table (each its own cookies) and a watch-only screen."""
    opened = [_page(browser, live_server) for _ in range(3)]
    for _context, page, _errors in opened:
        page.set_viewport_size(SMALL["viewport"])
    yield [page for _context, page, _errors in opened]
    for context, _unused, errors in opened:
        context.close()
        assert errors == []


def play_round(page: Page, players: list[str], winner: str = "Ana") -> None:
    choose_winner(page, winner)
    for points, name in enumerate(players, 3):
        if name != winner:
            type_value(page, name, points)
    save(page)


def form_names(page: Page) -> list[str]:
    return page.locator("#round-form .hand-name").all_inner_texts()


def dealt(page: Page) -> dict[str, str]:
    """Who dealt each round the table shows, by round number."""
    rows = page.locator("tr[id^=round-]")
    return {
        rows.nth(index).locator(".round-number").inner_text().split()[0]: rows.nth(index)
        .locator(".dealt")
        .inner_text()
        for index in range(rows.count())
    }


def same_as_a_fresh_load(watcher: Page) -> None:
    """The watch-only page, as live updates left it, shows what its link shows now."""
    shown = watcher.evaluate(SNAPSHOT)
    fresh = watcher.context.new_page()
    fresh.goto(watcher.url)
    assert shown == fresh.evaluate(SNAPSHOT)
    fresh.close()


def shot(where, name: str) -> None:
    """A screenshot of the page, or of one part of it, when RAMI_SCREENSHOTS names a folder."""
    folder = os.environ.get("RAMI_SCREENSHOTS")
    if folder:
        where.screenshot(path=str(Path(folder) / name))


def test_one_leaves_one_joins_and_every_round_keeps_its_dealer(page: Page, phones):
    ana = page
    ana.set_viewport_size(SMALL["viewport"])
    boris, watcher, _spare = phones
    start_game(ana, *NAMES)
    for _ in range(3):
        play_round(ana, list(NAMES))
    edit_link = ana.url
    game = Game.objects.get(edit_token=edit_link.rstrip("/").rsplit("/", 1)[1])
    watcher.goto(url("view", game.view_token))
    boris.goto(edit_link)

    # Dana goes home after round 3: tapped on Ana's phone.
    ana.get_by_role("link", name="Names, seats and dealer").click()
    assert_accessible(ana)
    ana.locator("#leave-title").scroll_into_view_if_needed()
    shot(ana, "come-and-go-players-360.png")
    ana.get_by_role("button", name="Dana leaves").click()
    expect(ana.locator("#answer .banner")).to_contain_text("Dana left after round 3.")
    expect(ana.locator("#answer").get_by_role("button", name="Undo")).to_be_visible()
    assert sorted(form_names(ana)) == ["Ana", "Boris", "Cyril", "Emil", "Filip"]
    # Emil deals round 4: the deal passes over Dana, who would have.
    expect(ana.locator("#entry-title")).to_have_text("Round 4 · Emil deals")
    expect(watcher.locator(".left-players .total")).to_contain_text("left after round 3")
    expect(boris.locator(".left-players .total")).to_contain_text("Dana")
    same_as_a_fresh_load(watcher)

    playing = ["Ana", "Boris", "Cyril", "Emil", "Filip"]
    play_round(ana, playing, winner="Boris")
    expect(watcher.locator("tr[id^=round-]")).to_have_count(4)

    # Gita arrives before round 5: added on Boris's phone, starting with the highest total.
    boris.goto(url("players", game.edit_token))
    join = boris.locator(".join-form")
    highest = join.get_by_label("Starts with").get_attribute("placeholder")
    join.get_by_label("Name").fill("Gita")
    join.get_by_role("button", name="Add the player").click()
    expect(boris.locator("#answer .banner")).to_contain_text(
        f"Gita joins from round 5 with {highest} points."
    )
    expect(watcher.locator(".total", has_text="Gita")).to_contain_text(highest)
    expect(ana.locator("#round-form .hand-name", has_text="Gita")).to_have_count(1)
    same_as_a_fresh_load(watcher)
    shot(watcher, "come-and-go-board-360.png")

    play_round(ana, [*playing, "Gita"], winner="Cyril")
    expect(ana.locator("#entry-title")).to_contain_text("Round 6")
    before = dealt(ana)
    assert set(before) == {"1", "2", "3", "4", "5"}

    # Round 2 was typed wrong: deleted. The rounds after it move up, each with its dealer.
    ana.get_by_role("link", name="Edit round 2", exact=True).click()
    ana.get_by_role("button", name="Delete round 2").click()
    expect(ana.locator(".banner.undo")).to_contain_text("Round 2 was deleted.")
    after = dealt(ana)
    assert after == {
        "1": before["1"],
        "2": before["3"],
        "3": before["4"],
        "4": before["5"],
    }
    next_up = ana.locator("#entry-title").inner_text()
    assert re.match(r"Round 5 · \w+ deals", next_up)
    expect(watcher.locator("tr[id^=round-]")).to_have_count(4)
    same_as_a_fresh_load(watcher)
    shot(ana.locator("#rounds"), "come-and-go-rounds-360.png")
    # The columns of Dana, who left, and Gita, who joined: a cell empty where they did not play.
    ana.evaluate("document.querySelector('.round-table').parentElement.scrollLeft = 10000")
    shot(ana.locator("#rounds"), "come-and-go-rounds-right-360.png")
    cells = ana.locator("tr[id^=round-] td.not-played")
    expect(cells).to_have_count(2 + 3)  # Dana: rounds 3 and 4; Gita: rounds 1 to 3
    assert ana.evaluate("document.documentElement.scrollWidth") <= 360


def test_after_a_leave_went_out_folds_the_hand_of_its_own_row(page: Page):
    """Ondřej left after round 1. Tapping "went out" in Kateřina's row folds her hand away and
    no one else's (the style matched the choice's place among the players to the row's seat,
    and folded Dana's row, a seat further on)."""
    game = Game.start(["Ana", "Ondřej", "Kateřina", "Dana"])
    page.goto(url("game", game.edit_token))
    play_round(page, ["Ana", "Ondřej", "Kateřina", "Dana"])
    game.leave(1)
    page.goto(url("game", game.edit_token))
    choose_winner(page, "Kateřina")
    for name, folded in (("Ana", False), ("Kateřina", True), ("Dana", False)):
        inputs = hand(page, name).locator(".hand-inputs")
        if folded:
            expect(inputs, name).to_be_hidden()
        else:
            expect(inputs, name).to_be_visible()


def test_a_tap_made_while_a_live_update_is_on_its_way_stays(page: Page):
    """Gita is added on another phone as Ana taps who went out. The live update asked for
    before the tap, answered after it, is a fresh form without the tap: it is asked for again
    as typing. The tap stays, a notice says the players changed, the preview answers for the
    rows shown, and the save brings Gita's row to be typed, the rest kept."""
    ana = page
    ana.set_viewport_size(SMALL["viewport"])
    start_game(ana, "Ana", "Boris", "Cyril")
    game = Game.objects.get(edit_token=ana.url.rstrip("/").rsplit("/", 1)[1])
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append(route)

    ana.route(lambda address: "/poll?" in address, hold_the_first)
    game.join("Gita")
    for _ in range(100):
        if held:
            break
        ana.wait_for_timeout(50)
    assert held, "the page never asked what changed"
    choose_winner(ana, "Ana")
    held[0].continue_()
    notice = ana.locator("#round-notice")
    expect(notice).to_contain_text("Another phone has just changed the players")
    expect(hand(ana, "Ana").locator(".out-choice input")).to_be_checked()
    assert form_names(ana) == ["Ana", "Boris", "Cyril"]
    type_value(ana, "Boris", 7)
    type_value(ana, "Cyril", 9)
    # The preview says what the save would: the players changed (its rows only: no error for
    # the newcomer's row, which this form has not).
    expect(ana.locator("#form-errors")).to_contain_text("A player left or joined on another phone")
    save(ana)
    expect(hand(ana, "Gita")).to_have_count(1)
    expect(hand(ana, "Ana").locator(".out-choice input")).to_be_checked()
    expect(hand(ana, "Cyril").locator(".value-input")).to_have_value("9")
    type_value(ana, "Gita", 4)
    save(ana)
    expect(ana.locator("#entry-title")).to_contain_text("Round 2")
    totals = dict(
        zip(
            ana.locator(".total .name").all_inner_texts(),
            ana.locator(".total .sum").all_inner_texts(),
            strict=True,
        )
    )
    assert totals == {"Ana": "0", "Boris": "7", "Cyril": "9", "Gita": "4"}
