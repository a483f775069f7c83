"""The round entry on the phones at the table, measured in Debian's Chromium.

    .venv/bin/python -m bench.round_entry [--out FILE]

For four and six players at 360x740, 390x844, 320x640 and 1366x800: the height of the round
form from its title to the bottom of Save; then a typical round played by taps (one winner,
three losers with 4, 5 and 6 cards) and saved: the taps it took, where the page stands after
the answer (scrollY), and whether the confirmation, every player's total and the next Save are
all on the screen. Last, the size of an 80-round, 6-player game page (DOM elements, bytes of
HTML).

    .venv/bin/python -m bench.round_entry --real-hands-only [--players 2,3,4,5,6]
        [--languages en,cs,sv,bg,id] [--screenshots DIR]

"Real hands": two to six players at 360x640 in each language, every loser's
hand four to six cards, three rounds in a row from where each save left the page: the form's
height empty and with the hands typed in, the taps, whether the answer, every total and the
next Save are on the screen after the save, and the smallest key a finger taps
(`--screenshots DIR` keeps each table size's round before and after its save, in the last
language). It serves the app with Django's development server on 127.0.0.1 from a throwaway
database, like scripts/screenshots.py, and prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

from scripts.long_games import five_rounds_played, long_game_document
from scripts.throwaway_site import ThrowawaySite

ROOT = Path(__file__).resolve().parent.parent

SIZES = [(360, 740), (390, 844), (320, 640), (1366, 800)]
# A typical round: the first player goes out, the others keep 4, 5 and 6 cards (one rank tap a
# card). With six players, the fifth and sixth keep two cards each.
LOSERS = {1: "2345", 2: "23456", 3: "234567", 4: "23", 5: "45"}


def measure_form(page) -> dict:
    return page.evaluate(
        """() => {
          const title = document.querySelector('#entry-title');
          const save = document.querySelector('#round-form button[type=submit][value=save]');
          const top = title.getBoundingClientRect().top;
          const bottom = save.getBoundingClientRect().bottom;
          const box = document.querySelector('#round-entry');
          return {height: Math.round(bottom - top),
                  innerScroll: box.scrollHeight > box.clientHeight + 1};
        }"""
    )


def after_save(page) -> dict:
    return page.evaluate(
        """() => {
          const inView = (element) => {
            if (!element) return false;
            const box = element.getBoundingClientRect();
            return box.top >= 0 && box.bottom <= innerHeight && box.height > 0;
          };
          const totals = [...document.querySelectorAll('.totals .total, #round-form .total')];
          const save = document.querySelector('#round-form button[type=submit][value=save]');
          return {
            scrollY: Math.round(scrollY),
            banner: inView(document.querySelector('.banner.saved')),
            undo: inView(document.querySelector('.banner.saved :is(a, button)')),
            totals: totals.length > 0 && totals.filter(t => t.offsetParent).every(inView),
            save: inView(save),
            saveBottom: save ? Math.round(save.getBoundingClientRect().bottom) : null,
          };
        }"""
    )


def play_round(page, players: int) -> int:
    taps = 0
    page.locator('label[for="id_winner_0"]').tap()
    taps += 1
    one_keyboard = page.locator("#round-form .table-keys").is_visible()
    for seat, ranks in LOSERS.items():
        if seat >= players:
            continue
        keys = page.locator(f"#round-form .seat-{seat}")
        if one_keyboard:  # five or six players on a phone: a tap on the row, then the keys
            pick = keys.locator(".hand-pick")
            if pick.get_attribute("aria-pressed") != "true":
                pick.tap()
                taps += 1
            keys = page.locator("#round-form .table-keys")
        for rank in ranks:
            keys.locator(f'.rank[data-rank="{rank}"]').tap()
            taps += 1
    page.wait_for_timeout(600)
    page.locator("#round-form button[type=submit][value=save]").tap()
    taps += 1
    page.wait_for_timeout(1200)
    return taps


# Real hands, as an evening of six saw them: the losers keep four to six cards each, one rank
# tap a card.
REAL_HANDS = ["2 5 9 K", "3 3 7 Q A", "4 6 8 10 J JK", "2 4 6 8", "5 7 9 J Q"]
# Names as a table in each language writes them.
NAMES = {
    "en": ["Margaret", "Tom", "Elizabeth", "Jack", "Catherine", "Oliver"],
    "cs": ["Jana", "Petr", "Zdeňka", "Miroslav", "Kateřina", "Ondřej"],
    "sv": ["Kristina", "Lars", "Margareta", "Erik", "Ingegerd", "Johan"],
    "bg": ["Иван", "Мария", "Георги", "Елена", "Димитър", "Радостина"],
    "id": ["Siti Rahayu", "Agus", "Dewi Lestari", "Wayan Putra", "Putu", "Rina"],
}
# What a finger taps to type a round: the rank and suit keys, the take-back key,
# "went out" and "not opened yet", wherever they stand.
KEYS = ".rank, .suit, .take-back, .out-choice, .switch.not-opened"


def smallest_key(page) -> dict:
    """The narrowest and the lowest of the keys a finger taps that are on the page, in px."""
    return page.evaluate(
        """keys => {
          const shown = [...document.querySelectorAll(`#round-form :is(${keys})`)]
            .filter(key => key.getClientRects().length
              && getComputedStyle(key).visibility !== "hidden")
            .map(key => key.getBoundingClientRect());
          return {width: Math.round(Math.min(...shown.map(box => box.width)) * 10) / 10,
                  height: Math.round(Math.min(...shown.map(box => box.height)) * 10) / 10};
        }""",
        KEYS,
    )


def play_real_round(page, players: int, number: int) -> tuple[int, int]:
    """Round `number` tapped in with real hands, from where the page stands: the taps it took
    and the form's height from its title to Save, hands typed in, before Save is tapped. With
    one keyboard for the table, a loser's row is tapped first unless the keys type it already."""
    taps = 0
    winner = number % players
    page.locator(f'label[for="id_winner_{winner}"]').tap()
    taps += 1
    one_keyboard = page.locator("#round-form .table-keys").is_visible()
    losers = [seat for seat in range(players) if seat != winner]
    for seat, ranks in zip(losers, REAL_HANDS, strict=False):
        keys = page.locator(f"#round-form .seat-{seat}")
        if one_keyboard:
            pick = page.locator(f"#round-form .seat-{seat} .hand-pick")
            if pick.get_attribute("aria-pressed") != "true":
                pick.tap()
                taps += 1
            keys = page.locator("#round-form .table-keys")
        for rank in ranks.split():
            keys.locator(f'.rank[data-rank="{rank}"]').tap()
            taps += 1
    page.wait_for_timeout(600)
    return taps, measure_form(page)["height"]


def real_hands(
    browser, site, screenshots: Path | None, languages: list[str], sizes: list[int]
) -> list[str]:
    """Each table size of `sizes` (two to six players) at 360x640, in every language of
    `languages`: three rounds in a row of real hands, one row of figures a table size and
    language (the highest form, the most taps, and whether every answer was on the screen with
    its totals and the next Save).
    With `screenshots`, the round of each table size with its hands typed in, in the last
    language (keys-N.png), and the answer to its save (keys-N-saved.png)."""
    lines = [
        "| players | language | form height: empty, hands typed in | fits the screen "
        "| taps a round | after save: answer, every total, next Save on the screen "
        "| smallest key (width × height) |",
        "|---|---|---|---|---|---|---|",
    ]
    yes = {True: "yes", False: "no"}
    for players in sizes:
        for language in languages:
            names = NAMES[language][:players]
            game = site.manage("import_game", "-", stdin=json.dumps(five_rounds_played(names)))
            context = browser.new_context(
                viewport={"width": 360, "height": 640},
                is_mobile=True,
                has_touch=True,
                extra_http_headers={"Accept-Language": language},
            )
            page = context.new_page()
            page.goto(site.base + game)
            page.wait_for_timeout(500)  # the page's script has started
            page.locator("#entry-title").evaluate("title => title.scrollIntoView()")
            empty = measure_form(page)["height"]
            heights, taps_made, in_view, keys = [], [], True, []
            for number in (6, 7, 8):
                keys.append(smallest_key(page))
                taps, height = play_real_round(page, players, number)
                heights.append(height)
                shoot = screenshots and language == languages[-1] and number == 6
                if shoot:
                    page.screenshot(path=screenshots / f"keys-{players}.png")
                page.locator("#round-form button[type=submit][value=save]").tap()
                taps_made.append(taps + 1)
                page.wait_for_timeout(1200)
                answer = after_save(page)
                if shoot:
                    page.screenshot(path=screenshots / f"keys-{players}-saved.png")
                in_view = in_view and all(answer[part] for part in ("banner", "totals", "save"))
            context.close()
            taps = "–".join(str(n) for n in sorted({min(taps_made), max(taps_made)}))
            key = {side: min(box[side] for box in keys) for side in ("width", "height")}
            lines.append(
                f"| {players} | {language} | {empty} px, {max(heights)} px "
                f"| {yes[max(heights) <= 640]} | {taps} | {yes[in_view]} "
                f"| {key['width']:g} × {key['height']:g} px |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--screenshots", type=Path)
    parser.add_argument("--real-hands-only", action="store_true")
    parser.add_argument("--languages", default=",".join(NAMES), help="e.g. cs,bg")
    parser.add_argument("--players", default="2,3,4,5,6", help="the table sizes, e.g. 4,6")
    arguments = parser.parse_args()
    rows = []
    if arguments.real_hands_only:
        with ThrowawaySite(prefix="rami-entry-") as site:
            site.base = site.serve()
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"]
                )
                languages = arguments.languages.split(",")
                sizes = [int(size) for size in arguments.players.split(",")]
                lines = real_hands(browser, site, arguments.screenshots, languages, sizes)
                text = "\n".join(lines) + "\n"
                browser.close()
        print(text)
        if arguments.out:
            arguments.out.write_text(text)
        return
    with ThrowawaySite(prefix="rami-entry-") as site:
        games = {}
        for players in (4, 6):
            document = long_game_document(20, players=players, seed=3)
            games[players] = [
                site.manage("import_game", "-", stdin=json.dumps(document)) for _ in SIZES
            ]
        document = long_game_document(80, players=6, seed=5)
        long_game = site.manage("import_game", "-", stdin=json.dumps(document))
        base = site.serve()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"]
            )
            for players in (4, 6):
                for (width, height), game in zip(SIZES, games[players], strict=True):
                    phone = width < 800
                    context = browser.new_context(
                        viewport={"width": width, "height": height},
                        is_mobile=phone,
                        has_touch=True,
                    )
                    page = context.new_page()
                    page.goto(base + game)
                    form = measure_form(page)
                    taps = play_round(page, players)
                    answer = after_save(page)
                    second = play_round(page, players)
                    rows.append(
                        (players, width, height, form, taps, answer, second, after_save(page))
                    )
                    context.close()
            context = browser.new_context(viewport={"width": 390, "height": 844})
            page = context.new_page()
            response = page.goto(base + long_game)
            size = len(response.body())
            elements = page.evaluate("document.getElementsByTagName('*').length")
            browser.close()

    yes = {True: "yes", False: "no"}
    lines = [
        "| players | screen | form height | scrolls inside | taps | after save: scrollY "
        "| confirmation | Undo | totals | next Save (bottom) | next round: scrollY, all in view |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for players, width, height, form, taps, answer, _taps, again in rows:
        in_view = all(again[key] for key in ("banner", "undo", "totals", "save"))
        cells = [
            players,
            f"{width}×{height}",
            f"{form['height']} px",
            yes[form["innerScroll"]],
            taps,
            answer["scrollY"],
            yes[answer["banner"]],
            yes[answer["undo"]],
            yes[answer["totals"]],
            f"{yes[answer['save']]} ({answer['saveBottom']} px)",
            f"{again['scrollY']}, {yes[in_view]}",
        ]
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    lines.append("")
    lines.append(
        f"80-round, 6-player game page: {elements:,} DOM elements, {size / 1024:.1f} KB of HTML."
    )
    text = "\n".join(lines) + "\n"
    print(text)
    if arguments.out:
        arguments.out.write_text(text)


if __name__ == "__main__":
    main()
