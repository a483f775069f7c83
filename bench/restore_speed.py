"""A backup folder of many games for timing `manage.py restore_games` (bench/RESTORE.md).

    DATABASE_URL=sqlite:////tmp/seed.sqlite3 python -m bench.restore_speed FOLDER [COUNT] [--slow]

makes COUNT (10,000 by default) games of 2 to 6 players and about 10 rounds each in the database
DATABASE_URL names (migrated first; meant to be an empty, throwaway one), then writes them all to
FOLDER with backup_games. The games are random but seeded, so that every run makes the same
ones: cards left in most hands, some values typed, players who had not opened, hand rummies,
blocked rounds, games that ended (and a few rounds after the end, as an edited game keeps).

They are stored through restore_games' batch path (scoring.files.backup.restore_batch), or with
--slow through exchange.import_game, round by round as the web form records them. Then time
restore_games into another empty database:

    DATABASE_URL=sqlite:////tmp/restore-test.sqlite3 python manage.py migrate -v0
    time DATABASE_URL=sqlite:////tmp/restore-test.sqlite3 python manage.py restore_games FOLDER
"""

from __future__ import annotations

import os
import random
import sys
from datetime import UTC, datetime, timedelta

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402

from scoring import rules  # noqa: E402
from scoring.files.backup import FIELD, restore_batch  # noqa: E402
from scoring.files.exchange import import_game  # noqa: E402
from scoring.models import Game, new_token  # noqa: E402

NAMES = ["Ana", "Boris", "Cyril", "Dana", "Émile", "Fran", "Gül", "Hugo", "Иван", "Zoë"]
PACK = [f"{rank}{suit}" for rank in rules.RANKS for suit in rules.SUITS]
DECK = PACK * rules.COPIES_PER_CARD + [rules.JOKER] * rules.JOKERS_IN_DECK


def random_round(chance: random.Random, names: list[str]) -> dict:
    """One round as a phone would send it: mostly a winner and the cards left in the other
    hands, sometimes typed values, a player who had not opened, a hand rummy or a blocked
    round."""
    deck = DECK[:]
    chance.shuffle(deck)
    kind = chance.random()
    if kind < 0.05:
        return {"winner": chance.choice(names), "hand_rummy": True}
    blocked = kind < 0.12
    winner = None if blocked else chance.choice(names)
    hands = {}
    for name in names:
        if name == winner:
            continue
        if chance.random() < 0.2:
            hand: dict = {"value": chance.randint(2, 90)}
        else:
            hand = {"cards": [deck.pop() for _ in range(chance.randint(1, 9))]}
        if chance.random() < 0.1:
            hand["opened"] = False
        hands[name] = hand
    document: dict = {"blocked": True} if blocked else {"winner": winner}
    document["hands"] = hands
    return document


def random_game(chance: random.Random) -> dict:
    names = chance.sample(NAMES, chance.randint(2, 6))
    rounds = [random_round(chance, names) for _ in range(chance.randint(6, 14))]
    return {"format": "rami-game/1", "players": names, "rounds": rounds}


def random_backup(chance: random.Random, when: datetime) -> dict:
    document = random_game(chance)
    document[FIELD] = {
        "edit_token": new_token(),
        "view_token": new_token(),
        "first_dealer": chance.randrange(len(document["players"])),
        "created_at": when.isoformat(),
    }
    return document


def make(count: int, slow: bool, seed: int = 7) -> None:
    chance = random.Random(seed)
    start = datetime(2025, 1, 1, 19, tzinfo=UTC)
    batch = []
    for index in range(count):
        document = random_backup(chance, start + timedelta(minutes=37 * index))
        if slow:
            game = import_game(document)
            fields = document[FIELD]
            Game.objects.filter(pk=game.pk).update(
                first_dealer=fields["first_dealer"],
                created_at=datetime.fromisoformat(fields["created_at"]),
            )
            continue
        batch.append(document)
        if len(batch) == 500 or index == count - 1:
            for outcome in restore_batch(batch):
                if not isinstance(outcome, Game):
                    raise SystemExit(f"not made: {outcome}")
            batch = []


if __name__ == "__main__":
    arguments = [argument for argument in sys.argv[1:] if argument != "--slow"]
    if not 1 <= len(arguments) <= 2:
        sys.exit(__doc__)
    call_command("migrate", verbosity=0)
    if Game.objects.exists():
        sys.exit("the database already holds games: point DATABASE_URL at an empty one")
    make(int(arguments[1]) if len(arguments) > 1 else 10_000, slow="--slow" in sys.argv)
    call_command("backup_games", arguments[0])
