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
