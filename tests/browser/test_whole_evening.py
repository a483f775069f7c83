"""A whole evening of a table's six on three screens: Ana's phone (360 x 640), Boris's (360 x
740) and a laptop that watches. Dana goes home after round 2, Gita arrives before round 4, a
round is deleted and its deletion undone, Emil goes home and Dana comes back, the next dealer
is chosen on the players page, the game ends, and the rematch takes every screen along. Every
number the screens show, the history, the table's standings and the rounds' CSV are checked
against the numbers worked out here by hand (a hand typed as a value, opened, scores that
value; the one who went out scores 0)."""

from __future__ import annotations

import csv
import io
import re

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Game, Table
from tests.browser.conftest import _page
from tests.browser.game_steps import choose_winner, hand, save, type_value
from tests.browser.test_tables import standing
from tests.links import url

NAMES = ["Ana", "Boris", "Cyril", "Dana", "Emil", "Filip"]
TARGET = 500  # 100 a opponent, six at the first round

# Each round: who went out, and each other player's hand value; worked-out totals after it.
ROUND_1 = ("Ana", {"Boris": 3, "Cyril": 4, "Dana": 5, "Emil": 6, "Filip": 7})
AFTER_1 = {"Ana": 0, "Boris": 3, "Cyril": 4, "Dana": 5, "Emil": 6, "Filip": 7}
ROUND_2 = ("Boris", {"Ana": 10, "Cyril": 10, "Dana": 10, "Emil": 10, "Filip": 10})
AFTER_2 = {"Ana": 10, "Boris": 3, "Cyril": 14, "Dana": 15, "Emil": 16, "Filip": 17}
# Dana leaves after round 2: she keeps 15 and plays no more.
ROUND_3 = ("Cyril", {"Ana": 2, "Boris": 2, "Emil": 2, "Filip": 2})
AFTER_3 = {"Ana": 12, "Boris": 5, "Cyril": 14, "Dana": 15, "Emil": 18, "Filip": 19}
# Gita joins before round 4 with the highest total of those playing: Filip's 19.
ROUND_4 = ("Ana", {"Boris": 2, "Cyril": 2, "Emil": 2, "Filip": 2, "Gita": 2})
AFTER_4 = {**AFTER_3, "Boris": 7, "Cyril": 16, "Emil": 20, "Filip": 21, "Gita": 21}
# Emil goes home after round 4 with 20; Dana comes back before round 5, the table typing 20
# for her. Filip's 490 takes him past the target: the game is over, and the lowest total of
# those still playing wins: Boris's 9 (Emil's 20, who left, cannot win).
ROUND_5 = ("Ana", {"Boris": 2, "Cyril": 2, "Dana": 2, "Filip": 490, "Gita": 2})
AFTER_5 = {**AFTER_4, "Boris": 9, "Cyril": 18, "Dana": 22, "Filip": 511, "Gita": 23}


@pytest.fixture
def screens(browser, live_server, static_from_the_source):
    """Ana's phone, Boris's and the laptop: each a browser of its own, failing the test on any
    script or console error."""
    sizes = [(360, 640), (360, 740), (1280, 800)]
    opened = [_page(browser, live_server) for _ in sizes]
    for (_context, page, _errors), (width, height) in zip(opened, sizes, strict=True):
        page.set_viewport_size({"width": width, "height": height})
    yield [page for _context, page, _errors in opened]
    for context, _page_unused, errors in opened:
        context.close()
        assert errors == []


def play(page: Page, round_: tuple[str, dict[str, int]]) -> None:
    winner, values = round_
    choose_winner(page, winner)
    for name, value in values.items():
        type_value(page, name, value)
    save(page)


def board(page: Page) -> dict[str, int]:
    """Each player's total as the board shows it (those who left too)."""
    names = page.locator(".total .name").all_inner_texts()
    sums = page.locator(".total .sum").all_inner_texts()
    return {name.strip(): int(total) for name, total in zip(names, sums, strict=True)}


def expect_board(page: Page, totals: dict[str, int]) -> None:
    expect(page.locator(".total .sum")).to_have_count(len(totals))
    page.wait_for_function(
        "n => document.querySelectorAll('.total .sum').length === n", arg=len(totals)
    )
    for _ in range(50):
        if board(page) == totals:
            return
        page.wait_for_timeout(100)
    assert board(page) == totals


def csv_rows(page: Page, game: Game) -> list[dict[str, str]]:
    answer = page.request.get(url("export_csv", game.edit_token))
    assert answer.ok
    text = answer.text().lstrip("\ufeff")
    return list(csv.DictReader(io.StringIO(text), delimiter=","))


def test_a_whole_evening_on_three_screens(screens, db):
    ana, boris, laptop = screens
    table = Table.start("Friday", NAMES)
    game = table.new_game(NAMES)
    ana.goto(url("game", game.edit_token))
    boris.goto(url("game", game.edit_token))
    laptop.goto(url("view", game.view_token))

    play(ana, ROUND_1)
    expect_board(laptop, AFTER_1)
    play(boris, ROUND_2)
    for screen in (ana, laptop):
        expect_board(screen, AFTER_2)

    # Dana goes home after round 2, tapped on Ana's phone.
    ana.goto(url("players", game.edit_token))
    ana.get_by_role("button", name="Dana leaves").click()
    expect(ana.locator("#answer .banner")).to_contain_text("Dana left after round 2.")
    expect(laptop.locator(".left-players .total")).to_contain_text("left after round 2")
    play(ana, ROUND_3)
    expect_board(laptop, AFTER_3)

    # Gita arrives before round 4, added on Boris's phone with the highest total, Filip's 19.
    boris.goto(url("players", game.edit_token))
    join = boris.locator(".join-form")
    assert join.get_by_label("Starts with").get_attribute("placeholder") == "19"
    join.get_by_label("Name").fill("Gita")
    join.get_by_role("button", name="Add the player").click()
    expect(boris.locator("#answer .banner")).to_contain_text("Gita joins from round 4 with 19")
    # Ana types round 4 once her phone shows Gita's row.
    expect(ana.locator("#round-form .hand-name", has_text="Gita")).to_have_count(1)
    play(ana, ROUND_4)
    for screen in (boris, laptop):
        expect_board(screen, AFTER_4)

    # Round 3 deleted on Boris's phone, then his Undo brings it back: every total as it was.
    boris.get_by_role("link", name="Edit round 3", exact=True).click()
    boris.get_by_role("button", name="Delete round 3").click()
    expect(boris.locator(".banner.undo")).to_contain_text("Round 3 was deleted.")
    without_3 = {
        **AFTER_4,
        **{name: AFTER_4[name] - ROUND_3[1][name] for name in ROUND_3[1]},
    }
    expect_board(laptop, without_3)
    boris.locator(".banner.undo").get_by_role("button", name="Undo").click()
    expect_board(laptop, AFTER_4)
    expect_board(boris, AFTER_4)

    # Emil goes home after round 4 (Ana's phone); Dana comes back (Boris's), with 20.
    ana.goto(url("players", game.edit_token))
    ana.get_by_role("button", name="Emil leaves").click()
    expect(ana.locator("#answer .banner")).to_contain_text("Emil left after round 4.")
    boris.goto(url("players", game.edit_token))
    back = boris.locator("#back-form")
    back.get_by_label("Who comes back").select_option(label="Dana")
    back.get_by_label("Starts with").fill("20")
    back.get_by_role("button", name="Bring them back").click()
    expect(boris.locator("#answer .banner")).to_contain_text(
        "Dana comes back from round 5 with 20 points."
    )
    expect_board(laptop, {**AFTER_4, "Dana": 20})
    expect(ana.locator("#round-form .hand-name", has_text="Dana")).to_have_count(1)

    # Cyril is chosen to deal next, on Ana's phone.
    ana.goto(url("players", game.edit_token))
    ana.locator("#seating-form").get_by_label("Deals next").select_option(label="Cyril")
    ana.get_by_role("button", name="Save seats and dealer").click()
    expect(ana.locator("#entry-title")).to_have_text("Round 5 · Cyril deals")

    play(ana, ROUND_5)
    for screen in (ana, boris, laptop):
        expect_board(screen, AFTER_5)
        expect(screen.get_by_text(re.compile(r"Boris\s+wins the game"))).to_be_visible()

    # The round table: Dana missed rounds 3 and 4, Gita 1 to 3, Emil 5.
    not_played = ana.locator("tr[id^=round-] td.not-played")
    expect(not_played).to_have_count(3 + 3)

    # The history, newest first, tells each leave and join by name.
    boris.goto(url("history", game.edit_token))
    told = boris.locator("main h2").all_inner_texts()
    for said in (
        "Round 5 saved",
        "Dana comes back from round 5 with 20 points.",
        "Emil left after round 4.",
        "Round 3 restored",
        "Round 3 deleted",
        "Round 4 saved",
        "Gita joins from round 4 with 19 points.",
        "Dana left after round 2.",
        "Round 1 saved",
    ):
        assert any(said in line for line in told), (said, told)

    # The rounds' CSV: each player's rows add up to their total (Dana's coming back a row
    # of 5, from the 15 she left with to the 20 typed).
    rows = csv_rows(ana, game)
    for name, total in AFTER_5.items():
        theirs = [row for row in rows if row["Player"] == name and row["Points"] != ""]
        assert sum(int(row["Points"]) for row in theirs) == total, (name, theirs)

    # The table's standings: Boris won; Dana's and Gita's are part-games.
    laptop.goto(url("table", table.edit_token))
    expect(laptop.locator(".standings-table")).to_be_visible()
    assert standing(laptop, "Boris")[:3] == ["Boris", "1", "1"]
    assert standing(laptop, "Ana")[:3] == ["Ana", "1", "0"]
    assert standing(laptop, "Dana")[:3] == ["Dana", "1 incl. 1 part-game", "0"]
    assert standing(laptop, "Emil")[:3] == ["Emil", "1 incl. 1 part-game", "0"]

    # A rematch on Ana's phone: Boris's phone, on the old game, follows it.
    boris.goto(url("game", game.edit_token))
    ana.get_by_role("button", name=re.compile("^Rematch|^Play again|^New game")).first.click()
    expect(ana.locator("#entry-title")).to_contain_text("Round 1")
    expect(boris.locator(".banner.notice")).to_contain_text("New game", timeout=10_000)
    assert hand(boris, "Gita").count() == 1
