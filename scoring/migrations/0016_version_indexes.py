"""An index on the version of games and of tables: the live reader reads what moved since a
version (scoring/live/reader.py), a range of it, instead of every watched game.

Each index is made on its own, outside a transaction (atomic = False), so that the migration
never holds one table while it waits for the other: a request of the previous release that
writes a table and then its game waits for the index being made, a few milliseconds on a
club's database, and cannot deadlock with it (docs/deploy.md, "Upgrading"). IF NOT EXISTS: run
again after a failure between the two, it makes the one that is missing."""

from django.db import migrations, models

INDEXES = [
    ("game", "scoring_game", "scoring_game_version"),
    ("table", "scoring_table", "scoring_table_version"),
]


def index(model: str, table: str, name: str) -> migrations.SeparateDatabaseAndState:
    return migrations.SeparateDatabaseAndState(
        database_operations=[
            migrations.RunSQL(
                f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("version")',
                f'DROP INDEX IF EXISTS "{name}"',
            )
        ],
        state_operations=[
            migrations.AddIndex(model_name=model, index=models.Index(fields=["version"], name=name))
        ],
    )


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("scoring", "0015_player_returns")]

    operations = [index(*names) for names in INDEXES]
