import json
from pathlib import Path

import pytest

from scoring.models import Game

GAMES = Path(__file__).parent / "games"


def game_document(name: str) -> dict:
    return json.loads((GAMES / f"{name}.json").read_text())


@pytest.fixture
def every_kind_game(db) -> Game:
    """A finished 4-player game: a normal round, a hand rummy, a round that leads to a
    tie-break, and a blocked tie-break round that Ana wins."""
    return Game.from_document(game_document("every_kind"))


@pytest.fixture
def four_players(db) -> Game:
    return Game.start(["Ana", "Boris", "Cyril", "Dana"])


def round_post(winner, hands=None, **extra) -> dict:
    """The POST data of the round form: `hands` maps seats to "cards", a number or
    (cards-or-number, "not opened")."""
    data = {"action": "save", "winner": str(winner)}
    for seat, hand in (hands or {}).items():
        not_opened = isinstance(hand, tuple)
        if not_opened:
            hand = hand[0]
        if isinstance(hand, int):
            data[f"value_{seat}"] = str(hand)
        else:
            data[f"cards_{seat}"] = hand
        if not_opened:
            data[f"not_opened_{seat}"] = "on"
    data.update(extra)
    return data
