"""The games the layout of a phone is measured on (bench/layout.py) and tested with
(tests/browser/test_narrow_tables.py): a finished four-player game of long-ish names with every
kind of round, and a group's table whose page shows the standings, the not-yet-ranked members
and the head to head."""

from __future__ import annotations

import copy
import json
from pathlib import Path

GAMES = Path(__file__).resolve().parent.parent / "tests" / "games"
LANGUAGES = ["en", "cs", "sv", "bg", "id"]
# Real first names, as long as people's names at a table often are.
NAMES = {"Ana": "Anastázie", "Boris": "Borislav", "Cyril": "Cyrillus", "Dana": "Wijayakusuma"}


def _renamed(document: dict, names: dict[str, str]) -> dict:
    text = json.dumps(document)
    for old, new in names.items():
        text = text.replace(f'"{old}"', json.dumps(new))
    return json.loads(text)


def every_kind_document() -> dict:
    """tests/games/every_kind.json with long-ish names: a round with cards and a hand never
    opened, a hand rummy, a round that leads to a tie-break and a blocked tie-break round."""
    return _renamed(json.loads((GAMES / "every_kind.json").read_text()), NAMES)


def group_table_document(rounds: int = 4) -> dict:
    """The Thursday table (docs/formats.md) with long-ish names, its three games played four
    times (twelve finished games: every member ranked), and one more game with a fifth member,
    Emil, who is therefore listed apart as not ranked yet."""
    document = _renamed(json.loads((GAMES / "thursday_cards.json").read_text()), NAMES)
    games = []
    for _ in range(rounds):
        for game in document["games"]:
            game = copy.deepcopy(game)
            game.pop("started", None)
            games.append(game)
    games.append(
        {
            "format": "rami-game/1",
            "players": [NAMES["Ana"], "Emil Černý", NAMES["Dana"]],
            "rounds": [{"winner": "Emil Černý", "hand_rummy": True}],
        }
    )
    document["members"] = [*document["members"], "Emil Černý"]
    document["games"] = games
    return document


# Every <text> of every chart whose box pokes out of its SVG's box (by more than half a pixel),
# with how far: for bench/layout.py's report and tests/browser/test_narrow_tables.py.
LABELS_OUTSIDE = """() => {
  const outside = [];
  for (const svg of document.querySelectorAll(".score-chart svg")) {
    const frame = svg.getBoundingClientRect();
    for (const text of svg.querySelectorAll("text")) {
      const r = text.getBoundingClientRect();
      const over = Math.max(frame.left - r.left, r.right - frame.right,
                            frame.top - r.top, r.bottom - frame.bottom);
      if (over > 0.5) outside.push({text: text.textContent.trim(), over: Math.round(over)});
    }
  }
  return outside;
}"""
