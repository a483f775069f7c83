"""How wide the tables are on a phone, whether the charts' labels are whole, and how many
elements the game page has: measured in Debian's Chromium, in each of the five languages, on
the games of scripts/layout_games.py and scripts/long_games.py served from a throwaway database.
Each box's scrollWidth against its clientWidth and the viewport at 360 x 740, each chart label
against its SVG at 320 to 1366 px; a Markdown report (--shots: a screenshot of each page).

    .venv/bin/python -m bench.layout [--out bench/LAYOUT.md] [--shots DIR]
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

from scripts.layout_games import (
    LABELS_OUTSIDE,
    LANGUAGES,
    every_kind_document,
    group_table_document,
)
from scripts.long_games import long_game_document
from scripts.throwaway_site import ThrowawaySite

ROOT = Path(__file__).resolve().parent.parent

PHONE = {"width": 360, "height": 740}
CHART_WIDTHS = [320, 360, 390, 1366]
# The boxes that hold a table, by page: what a reader swipes inside (or should not have to).
GAME_BOXES = {
    "round table": "#rounds .table-scroll",
    "statistics": ".statistics",
    "chart": ".score-chart svg",
}
# A table's parts after its standings are folded (templates/scoring/table.html): opened, as a
# reader would, to measure them.
UNFOLD = "() => document.querySelectorAll('details.fold').forEach(fold => { fold.open = true; })"

TABLE_BOXES = {
    "standings": ".standings .table-scroll",
    "head to head": ".head-to-head .table-scroll",
    "wins chart": ".wins-chart svg",
}
# The parts of the game page whose elements are counted.
GAME_PARTS = {
    "round table": "#rounds",
    "statistics": ".statistics",
    "chart": ".score-chart",
    "round entry": "#round-entry",
}

MEASURE_BOXES = """boxes => {
  const viewport = document.documentElement.clientWidth;
  const found = {page: {scroll: document.documentElement.scrollWidth, client: viewport}};
  for (const [name, selector] of Object.entries(boxes)) {
    const box = document.querySelector(selector);
    if (!box) continue;
    const rect = box.getBoundingClientRect();
    const table = box.querySelector("table");
    found[name] = {
      scroll: Math.max(box.scrollWidth, table ? Math.ceil(table.getBoundingClientRect().width) : 0),
      client: box.clientWidth,
      left: Math.floor(rect.left),
      right: Math.ceil(rect.right),
    };
  }
  return found;
}"""

COUNT_ELEMENTS = """parts => {
  const counted = {page: document.getElementsByTagName("*").length};
  for (const [name, selector] of Object.entries(parts)) {
    const part = document.querySelector(selector);
    counted[name] = part ? part.getElementsByTagName("*").length + 1 : 0;
  }
  counted["chart svg"] = [...document.querySelectorAll(".score-chart svg")]
    .reduce((sum, svg) => sum + svg.getElementsByTagName("*").length + 1, 0);
  return counted;
}"""


def long_game_of_80_rounds() -> dict:
    """Six 30-character names, 80 rounds, still being played (as
    tests/test_game_page_at_the_table.py's): the round form is on the page too."""
    return long_game_document(80, 6, seed=1, hand_sizes=(1, 1, 2, 2, 3))


def fits(box: dict, viewport: int) -> bool:
    return box["scroll"] <= box["client"] and box["left"] >= 0 and box["right"] <= viewport


def measure(base: str, paths: dict[str, str], shots: Path | None) -> dict:
    figures: dict = {"widths": {}, "labels": {}, "elements": {}}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        for language in LANGUAGES:
            context = browser.new_context(
                viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
            )
            context.add_cookies([{"name": "django_language", "value": language, "url": base}])
            page = context.new_page()
            widths = figures["widths"][language] = {}
            for page_name, boxes in (("game", GAME_BOXES), ("table", TABLE_BOXES)):
                page.goto(base + paths[page_name])
                assert page.locator("html").get_attribute("lang") == language
                page.evaluate(UNFOLD)
                measured = page.evaluate(MEASURE_BOXES, boxes)
                widths[f"{page_name} page"] = measured.pop("page")
                widths.update(measured)
                if shots:
                    page.screenshot(path=shots / f"{page_name}-{language}-360.png", full_page=True)
            labels = figures["labels"][language] = {}
            for width in CHART_WIDTHS:
                page.set_viewport_size({"width": width, "height": 800})
                for page_name in ("game", "table"):
                    page.goto(base + paths[page_name])
                    page.evaluate(UNFOLD)
                    labels[f"{page_name} {width}"] = page.evaluate(LABELS_OUTSIDE)
            page.set_viewport_size(PHONE)
            page.goto(base + paths["long game"])
            figures["elements"][language] = page.evaluate(COUNT_ELEMENTS, GAME_PARTS)
            context.close()
        browser.close()
    return figures


def report(figures: dict) -> str:
    viewport = PHONE["width"]
    lines = [
        f"# Layout at a {viewport} x {PHONE['height']} phone ({datetime.date.today()})",
        "",
        "Made by `bench/layout.py`. Each box: the width of what it holds (scrollWidth) /"
        " the width it shows (clientWidth), in CSS px; ✗ where the content is wider than its"
        " box or the box pokes out of the viewport. The pages: a finished four-player game of"
        " long-ish names with every kind of round, and a group's table of 13 games, 5 members.",
        "",
    ]
    names = list(figures["widths"][LANGUAGES[0]])
    lines.append("| box | " + " | ".join(LANGUAGES) + " |")
    lines.append("|---|" + "---|" * len(LANGUAGES))
    for name in names:
        cells = []
        for language in LANGUAGES:
            box = figures["widths"][language].get(name)
            if box is None:
                cells.append("–")
                continue
            mark = "" if fits({"left": 0, "right": 0, **box}, viewport) else " ✗"
            cells.append(f"{box['scroll']} / {box['client']}{mark}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "## Chart labels outside their SVG (at 320, 360, 390, 1366 px)", ""]
    cut = False
    for language in LANGUAGES:
        for where, outside in figures["labels"][language].items():
            if outside:
                cut = True
                found = ", ".join(
                    f"\u201c{label['text']}\u201d by {label['over']} px" for label in outside
                )
                lines.append(f"- {language}, {where}: {found}")
    if not cut:
        lines.append("None: every label lies inside its SVG in every language and width.")
    lines += [
        "",
        "## Elements of an 80-round, 6-player game page (360 px)",
        "",
        "| part | " + " | ".join(LANGUAGES) + " |",
        "|---|" + "---|" * len(LANGUAGES),
    ]
    for part in figures["elements"][LANGUAGES[0]]:
        lines.append(
            f"| {part} | "
            + " | ".join(str(figures["elements"][language][part]) for language in LANGUAGES)
            + " |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the report here (default: stdout)")
    parser.add_argument("--shots", type=Path, help="save a screenshot of each page here")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    arguments = parser.parse_args()
    with ThrowawaySite(prefix="rami-layout-") as site:
        paths = {
            "game": site.manage("import_game", "-", stdin=json.dumps(every_kind_document())),
            "table": site.manage("import_table", "-", stdin=json.dumps(group_table_document())),
            "long game": site.manage(
                "import_game", "-", stdin=json.dumps(long_game_of_80_rounds())
            ),
        }
        base = site.serve()
        if arguments.shots:
            arguments.shots.mkdir(parents=True, exist_ok=True)
        figures = measure(base, paths, arguments.shots)
    if arguments.json:
        arguments.json.write_text(json.dumps(figures, indent=1))
    text = report(figures)
    if arguments.out:
        arguments.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
