"""A long game as people at a real table make one: six names of up to 30 characters and many
rounds of real-looking hands (a few low cards with their suits in every loser's hand, drawn
from the two packs without repeating a card more than the deck holds), so that nobody nears
the target however long the game runs. Shared by the tests of the game page at the table and
by scripts/screenshots.py."""

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
    rng = random.Random(seed)
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
