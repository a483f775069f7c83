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

from scoring.files.backup import restore_batch
from scoring.files.exchange import dumps
from scoring.management.commands import restore_games
from scoring.models import Game, GameEvent, Hand, Round
from tests.test_backup import random_backup

pytestmark = pytest.mark.django_db

GAMES = 300  # more than one batch (scoring.files.backup.BATCH_SIZE)


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
    # The edit tokens already there, and the tokens that a game or a table has (one query each);
    # games, their start times, players, rounds, hands, events (hands in two or three inserts
    # for 100 games); and the savepoint around them; which of them were deleted on request.
    assert queries[0] <= 12
    assert queries[1] <= queries[0] + 4


def test_a_batch_holds_about_a_seconds_worth_of_rounds_however_long_the_games(
    tmp_path, monkeypatch
):
    """A batch is one transaction: long games make smaller batches, so that a live server's
    saves never wait for a whole batch of 250 long games."""
    monkeypatch.setattr(restore_games, "ROUNDS_PER_BATCH", 40)
    chance = random.Random(5)
    paths = []
    for index in range(30):
        document = random_backup(chance, minutes=index)
        path = tmp_path / f"{document['backup']['edit_token']}.json"
        path.write_text(dumps(document))
        paths.append(path)
    (tmp_path / "broken.json").write_text("{")
    paths = sorted(tmp_path.glob("*.json"))
    batches = list(restore_games.read_in_batches(paths))
    assert [path for batch in batches for path in batch] == paths
    # 6 to 14 rounds a game: a batch is cut once it reaches 40 rounds.
    for batch in batches[:-1]:
        rounds = sum(
            len(document["rounds"]) for document in batch.values() if isinstance(document, dict)
        )
        assert 40 <= rounds < 40 + 14
    assert len(batches) >= 30 * 6 // (40 + 14)


def test_a_long_restore_says_how_far_it_got(tmp_path, monkeypatch):
    monkeypatch.setattr(restore_games, "PROGRESS_SECONDS", 0)
    monkeypatch.setattr(restore_games, "ROUNDS_PER_BATCH", 40)
    chance = random.Random(3)
    for index in range(12):
        document = random_backup(chance, minutes=index)
        (tmp_path / f"{document['backup']['edit_token']}.json").write_text(dumps(document))
    out, err = StringIO(), StringIO()
    call_command("restore_games", str(tmp_path), stdout=out, stderr=err)
    lines = err.getvalue().splitlines()
    assert len(lines) > 1
    assert lines[-1] == "12 of 12 games read"
    assert out.getvalue() == "12 games restored, 0 already there\n"
