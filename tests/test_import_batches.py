"""A big table file is imported in short transactions, so that a live server keeps saving
rounds meanwhile (SQLite has one writer at a time; a 2,000-game file took some 200 s in one
transaction, every save on the server answering 503 meanwhile). Measured by what each
transaction writes, never by a timed test: the rounds of a transaction are what holds the
write lock (about 5 ms each on SQLite)."""

import copy
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from scoring.files import exchange, table_file
from scoring.models import Game, Member, Player, Table
from tests.conftest import thursday

pytestmark = pytest.mark.django_db(transaction=True)

# The example's games have 1 or 2 rounds: a small bound makes many transactions of a few games.
ROUNDS = 10


@pytest.fixture(autouse=True)
def few_rounds_a_transaction(monkeypatch):
    monkeypatch.setattr(table_file, "ROUNDS_PER_TRANSACTION", ROUNDS)


def many_games(count: int) -> dict:
    """The worked example's table with `count` games, its three again and again."""
    document = thursday()
    examples = document["games"]
    document["games"] = [copy.deepcopy(examples[number % 3]) for number in range(count)]
    for game in document["games"]:
        game.pop("started")
    return document


class Transactions:
    """The rounds and the tables each committed transaction wrote, in order."""

    def __init__(self) -> None:
        self.committed: list[dict[str, int]] = []
        self.open: dict[str, int] | None = None

    def __call__(self, execute, sql, params, many, context):
        written = {"round": 'INSERT INTO "scoring_round"', "table": 'INSERT INTO "scoring_table"'}
        for kind, start in written.items():
            if sql.startswith(start):
                if self.open is None:
                    self.open = {"round": 0, "table": 0}
                    transaction.on_commit(self.close)
                self.open[kind] += 1
        return execute(sql, params, many, context)

    def close(self) -> None:
        self.committed.append(self.open)
        self.open = None


def test_a_big_table_is_imported_in_short_transactions_and_linked_at_the_end():
    document = many_games(60)
    rounds = sum(len(game["rounds"]) for game in document["games"])
    seen = Transactions()
    with connection.execute_wrapper(seen):
        table = exchange.import_table(document)
    assert seen.open is None
    written = [committed["round"] for committed in seen.committed]
    assert sum(written) == rounds
    # Before: one transaction of every round (and 2,000 games of 20 rounds in it).
    assert len(written) >= rounds // (ROUNDS + 2)
    assert max(written) <= ROUNDS
    # The table is made last, in a transaction of its own, with no rounds.
    assert seen.committed[-1] == {"round": 0, "table": 1}
    assert table.games.count() == 60
    assert not Game.objects.filter(table=None).exists()
    assert Player.objects.filter(game__table=table, member=None).count() == 0


def test_a_transaction_ends_on_time_too_even_inside_a_game(monkeypatch):
    """On a slow or busy machine a round takes longer: a transaction then ends after
    TRANSACTION_SECONDS, here at once, after each round."""
    monkeypatch.setattr(table_file, "TRANSACTION_SECONDS", 0)
    document = many_games(6)
    seen = Transactions()
    with connection.execute_wrapper(seen):
        table = exchange.import_table(document)
    written = [committed["round"] for committed in seen.committed]
    assert written == [1] * sum(len(game["rounds"]) for game in document["games"]) + [0]
    assert table.games.count() == 6


def test_a_failure_inside_a_game_removes_it_with_the_others(monkeypatch):
    """A game whose first rounds were committed before the failure is removed too."""
    monkeypatch.setattr(table_file, "TRANSACTION_SECONDS", 0)
    document = many_games(3)
    document["games"][1]["rounds"] *= 2  # Boris's game: 4 rounds
    calls = []
    real = Game.record_round

    def failing(game, *arguments, **options):
        calls.append(game.pk)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(game, *arguments, **options)

    monkeypatch.setattr(Game, "record_round", failing)
    with pytest.raises(KeyboardInterrupt):
        exchange.import_table(document)
    assert not Game.objects.exists()
    assert not Table.objects.exists()


def test_a_failure_part_way_leaves_nothing_of_the_file(monkeypatch):
    made = []
    real = exchange.make_game

    def failing(parsed, **options):
        if len(made) == 40:
            raise KeyboardInterrupt
        made.append(parsed)
        return real(parsed, **options)

    monkeypatch.setattr(table_file, "make_game", failing)
    with pytest.raises(KeyboardInterrupt):
        exchange.import_table(many_games(60))
    assert not Game.objects.exists()
    assert not Table.objects.exists()
    assert not Member.objects.exists()


def test_a_bad_file_creates_nothing_and_says_so_in_one_line(tmp_path):
    document = many_games(30)
    document["games"][25]["rounds"][0]["hands"]["Boris"] = {"cards": ["1X"]}
    path = tmp_path / "table.json"
    path.write_text(exchange.dumps(document))
    with pytest.raises(Exception, match=r'^game 26, round 1, player "Boris": Unknown card'):
        call_command("import_table", str(path))
    assert not Game.objects.exists()
    assert not Table.objects.exists()


def test_a_long_import_says_how_far_it_got(tmp_path, monkeypatch):
    from scoring.management.commands import import_table

    monkeypatch.setattr(import_table, "PROGRESS_SECONDS", 0)
    path = tmp_path / "table.json"
    path.write_text(exchange.dumps(many_games(30)))
    out, err = StringIO(), StringIO()
    call_command("import_table", str(path), stdout=out, stderr=err)
    lines = err.getvalue().splitlines()
    assert len(lines) > 1
    assert lines[-1] == "30 of 30 games imported"
    assert out.getvalue() == f"/t/{Table.objects.get().edit_token}/\n"
