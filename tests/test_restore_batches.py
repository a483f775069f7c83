"""Why restore_games is fast: a backup folder is restored in batches, a few queries per
table for a whole batch (10,000 games in 43.5 s on SQLite and 54.2 s on PostgreSQL, where
restoring them round by round took 7 min 44 s and 18 min 30 s). The speed itself is measured
by bench/restore_speed.py (bench/RESTORE.md), never by a timed test.
"""

import random
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.backup import restore_batch
from scoring.exchange import dumps
from scoring.models import Game, GameEvent, Hand, Round
from tests.test_backup import random_backup

pytestmark = pytest.mark.django_db

GAMES = 300  # more than one batch (scoring.backup.BATCH_SIZE)


def test_restore_games_brings_back_a_whole_folder_in_batches(tmp_path):
    chance = random.Random(7)
    for index in range(GAMES):
        document = random_backup(chance, minutes=index)
        (tmp_path / f"{document['backup']['edit_token']}.json").write_text(dumps(document))
    out = StringIO()
    call_command("restore_games", str(tmp_path), stdout=out)
    assert out.getvalue() == f"{GAMES} games restored, 0 already there\n"
    assert Game.objects.count() == GAMES
    assert GameEvent.objects.count() == Round.objects.count()
    assert Hand.objects.count() >= 2 * Round.objects.count()


def test_a_batch_takes_a_few_queries_however_many_games_it_holds():
    """The speed comes from here: restore() takes some 10 queries per round of every game,
    a batch a few per table for all its games."""
    chance = random.Random(11)
    queries = []
    for count in (5, 100):
        documents = [random_backup(chance) for _ in range(count)]
        with CaptureQueriesContext(connection) as captured:
            outcomes = restore_batch(documents)
        assert all(isinstance(outcome, Game) for outcome in outcomes)
        queries.append(len(captured))
    # The edit tokens already there; games, their start times, players, rounds, hands, events
    # (hands in two or three inserts for 100 games); and the savepoint around them.
    assert queries[0] <= 10
    assert queries[1] <= queries[0] + 4
