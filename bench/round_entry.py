"""The round entry on the phones at the table, measured in Debian's Chromium.

    .venv/bin/python -m bench.round_entry [--out FILE]

For four and six players at 360x740, 390x844, 320x640 and 1366x800: the height of the round
form from its title to the bottom of Save; then a typical round played by taps (one winner,
three losers with 4, 5 and 6 cards) and saved: the taps it took, where the page stands after
the answer (scrollY), and whether the confirmation, every player's total and the next Save are
all on the screen. Last, the size of an 80-round, 6-player game page (DOM elements, bytes of
HTML). It serves the app with Django's development server on 127.0.0.1 from a throwaway
database, like scripts/screenshots.py, and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

from scripts.long_games import long_game_document
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
    for seat, ranks in LOSERS.items():
        if seat >= players:
            continue
        for rank in ranks:
            page.locator(f'#round-form .seat-{seat} .rank[data-rank="{rank}"]').tap()
            taps += 1
    page.wait_for_timeout(600)
    page.locator("#round-form button[type=submit][value=save]").tap()
    taps += 1
    page.wait_for_timeout(1200)
    return taps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    rows = []
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
