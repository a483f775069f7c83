"""A long game as people at a real table make one: six names of up to 30 characters and many
rounds of real-looking hands (a few low cards with their suits in every loser's hand, drawn
from the two packs without repeating a card more than the deck holds), so that nobody nears
the target however long the game runs. Shared by the tests of the game page at the table and
by scripts/screenshots.py. Also the benchmark's game and table (six_player_document,
table_document), which bench/seed.py, bench/in_process.py and tests/test_performance.py share."""

from __future__ import annotations

import random

LONG_NAMES = [
    "Anastázie Nováková-Procházková",
    "Borislav Georgiev Todorov",
    "Cyrillus Wennerström-Lindqvi",
    "Dana Kusumawati Wijayakusuma",
    "Emil Černý z Horních Počernic",
    "Františka Svobodová Dvořák",
]


def long_game_document(
    rounds: int, players: int = 6, seed: int = 1, hand_sizes: tuple[int, ...] = (1, 2, 3)
) -> dict:
    """A rami-game/1 document of `rounds` rounds for the first `players` long names: a random
    winner each round (seeded), and a loser's hand of one of `hand_sizes` cards."""
    rng = random.Random(seed)  # noqa: S311 (seeded on purpose: the same game every run)
    names = LONG_NAMES[:players]
    documents = []
    for _ in range(rounds):
        winner = rng.randrange(players)
        deck = [rank + suit for rank in "2345" for suit in "SHDC"] * 2
        rng.shuffle(deck)
        hands = {
            name: {"cards": [deck.pop() for _ in range(rng.choice(hand_sizes))]}
            for seat, name in enumerate(names)
            if seat != winner
        }
        documents.append({"winner": names[winner], "hands": hands})
    return {"format": "rami-game/1", "players": names, "rounds": documents}


PLAYERS = ["Ana", "Boris", "Cyril", "Dana", "Emil", "Fran"]
# Small hands, so that a 6-player game (target 500) can run to 300 rounds and more without
# anyone reaching the target: 8 points a round in all, about 1.3 per player.
SMALL_HANDS = [{"cards": ["2S"]}, {"cards": ["3H"]}, {"cards": ["2C"]}, {"value": 2}, {"value": 3}]


def six_player_document(rounds: int) -> dict:
    """A 6-player rami-game/1 document with `rounds` rounds, the deal and the winner moving."""
    documents = []
    for number in range(rounds):
        winner = number % len(PLAYERS)
        losers = [name for seat, name in enumerate(PLAYERS) if seat != winner]
        hands = {
            name: SMALL_HANDS[(number + index) % len(SMALL_HANDS)]
            for index, name in enumerate(losers)
        }
        documents.append({"winner": PLAYERS[winner], "hands": hands})
    return {"format": "rami-game/1", "players": PLAYERS, "rounds": documents}


def table_document(games: int) -> dict:
    """A rami-table/1 document of six members and `games` games of three players, the seats
    moving on from game to game: a round someone goes out of, then a hand rummy that ends the
    game; every tenth game is still being played (its first round only) and every seventh has
    a guest in its last seat."""
    documents = []
    for number in range(games):
        players = [PLAYERS[(number + seat) % len(PLAYERS)] for seat in range(3)]
        if number % 7 == 0:
            players[2] = "Guest"
        hands = {
            name: SMALL_HANDS[(number + i) % len(SMALL_HANDS)] for i, name in enumerate(players)
        }
        rounds = [{"winner": players[0], "hands": {name: hands[name] for name in players[1:]}}]
        if number % 10:
            rounds.append({"winner": players[number % 3], "hand_rummy": True})
        documents.append({"format": "rami-game/1", "players": players, "rounds": rounds})
    return {
        "format": "rami-table/1",
        "name": f"{games} games",
        "members": PLAYERS,
        "games": documents,
    }


def five_rounds_played(names: list[str]) -> dict:
    """A game of five rounds of typed values: everyone has a total, nobody is near the target."""
    rounds = [
        {
            "winner": names[number % len(names)],
            "hands": {
                name: {"value": 4 + seat}
                for seat, name in enumerate(names)
                if seat != number % len(names)
            },
        }
        for number in range(5)
    ]
    return {"format": "rami-game/1", "players": names, "rounds": rounds}
