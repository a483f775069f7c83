"""Seeds the benchmark's database: the games under test, built through the real model methods
(files.exchange.import_game, which records every round with Game.record_round), and filler
games made in bulk so that the tables hold as many rows as a busy site would.

Run with the benchmark's environment (DATABASE_URL pointing at its own file), after migrate:

    python -m bench.seed games          # the games under test; prints their tokens as JSON
    python -m bench.seed fillers 990    # 990 more games, in bulk
    python -m bench.seed rounds TOKEN...  # how many rounds these games have now, as JSON
    python -m bench.seed tables         # the tables under test (3 and 200 games), as JSON
    python -m bench.seed evening 1000   # 1,000 new games of four players (bench/evening.py)

Called by bench/run.py; not meant for a real database.
"""

from __future__ import annotations

import json
import os
import random
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")

import django

django.setup()

from django.db import transaction  # noqa: E402

from scoring.files.exchange import import_game, import_table  # noqa: E402
from scoring.models import Game, GameEvent, Hand, Player, Round  # noqa: E402
from scripts.long_games import PLAYERS, six_player_document, table_document  # noqa: E402


def seed_games() -> dict:
    """The games under test: 6 players and 10, 60, 80 or 300 rounds; eight more of 60 rounds that
    the round-save runs add to (one each, so that neither run sees the other's rounds)."""
    made = {}
    for name, rounds in [
        ("game10", 10),
        ("game60", 60),
        ("game80", 80),
        ("game300", 300),
        # Each kind of save spreads over 4 games (bench/wrk.lua, BENCH_PATHS): a fast run must
        # not reach the 500 rounds a game may hold.
        *((f"save_htmx_{number}", 60) for number in range(4)),
        *((f"save_plain_{number}", 60) for number in range(4)),
    ]:
        game = import_game(six_player_document(rounds))
        versions = game.events.order_by("-version").values_list("version", flat=True)
        made[name] = {
            "edit": game.edit_token,
            "view": game.view_token,
            "version": game.version,
            # The version before the last round: a phone at it is sent only what changed.
            "previous": versions[1],
            "rounds": rounds,
        }
    return made


def seed_tables() -> dict:
    """The tables under test, through the importer (each game as import_game makes it): 3 and
    200 games, whose pages must make the same number of queries."""
    made = {}
    for games in (3, 200):
        table = import_table(table_document(games))
        made[f"table{games}"] = {"edit": table.edit_token, "view": table.view_token}
    return made


def seed_evening(count: int) -> list[dict]:
    """`count` new games of four players, started as the start page starts them."""
    games = [Game.start(PLAYERS[:4]) for _ in range(count)]
    return [{"edit": game.edit_token, "view": game.view_token} for game in games]


def seed_fillers(count: int, seed: int = 7) -> None:
    """`count` finished-looking games of 2 to 6 players and 5 to 30 rounds, in bulk (their
    points are plausible, not computed: no page of theirs is measured)."""
    chance = random.Random(seed)
    with transaction.atomic():
        games = Game.objects.bulk_create(Game(version=1) for _ in range(count))
        players, rounds, layout = [], [], []
        for game in games:
            seats = chance.randint(2, 6)
            # bulk_create skips Player.save, which fills name_key (unique per game): for these
            # plain ASCII names, the key is the name case folded.
            game_players = [
                Player(game=game, seat=seat, name=name, name_key=name.casefold())
                for seat, name in enumerate(PLAYERS[:seats])
            ]
            players.extend(game_players)
            for number in range(1, chance.randint(5, 30) + 1):
                round_ = Round(game=game, number=number, winner_seat=number % seats)
                rounds.append(round_)
                layout.append((round_, game_players))
        Player.objects.bulk_create(players, batch_size=2000)
        Round.objects.bulk_create(rounds, batch_size=2000)
        hands, events = [], []
        for round_, game_players in layout:
            for player in game_players:
                went_out = player.seat == round_.winner_seat
                value = 0 if went_out else chance.randint(0, 60)
                hands.append(
                    Hand(round=round_, player=player, value=value, points=value, opened=True)
                )
            events.append(
                GameEvent(
                    game=round_.game,
                    kind=GameEvent.Kind.ADDED,
                    round=round_,
                    number=round_.number,
                    after={"winner": game_players[round_.winner_seat].name},
                )
            )
        Hand.objects.bulk_create(hands, batch_size=2000)
        GameEvent.objects.bulk_create(events, batch_size=2000)


if __name__ == "__main__":
    if sys.argv[1:2] == ["games"]:
        print(json.dumps(seed_games()))
    elif sys.argv[1:2] == ["tables"]:
        print(json.dumps(seed_tables()))
    elif sys.argv[1:2] == ["evening"]:
        print(json.dumps(seed_evening(int(sys.argv[2]))))
    elif sys.argv[1:2] == ["fillers"]:
        seed_fillers(int(sys.argv[2]))
    elif sys.argv[1:2] == ["rounds"]:
        games = Game.objects.filter(edit_token__in=sys.argv[2:])
        print(json.dumps({game.edit_token: game.rounds.count() for game in games}))
    else:
        sys.exit(__doc__)
