"""On PostgreSQL, a game's or a table's version that moves (a game added to a table too) sends
a notice on the channel "rami_live" when its transaction commits: a trigger, so that a save
makes no query more. Every server's live reader (scoring/live/reader.py) listens, and reads the
versions at once instead of at its next tick. The notice only wakes the reader: the reader
compares the versions it reads, so a notice lost, or none at all (SQLite), delays a move by at
most one tick and loses nothing."""

from django.db import migrations

CREATE = [
    """
    CREATE OR REPLACE FUNCTION rami_live_notify() RETURNS trigger AS $$
    BEGIN
      PERFORM pg_notify('rami_live', '');
      RETURN NULL;
    END;
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE TRIGGER rami_live_game AFTER INSERT OR UPDATE OF version ON scoring_game
      FOR EACH STATEMENT EXECUTE FUNCTION rami_live_notify()
    """,
    """
    CREATE TRIGGER rami_live_table AFTER UPDATE OF version ON scoring_table
      FOR EACH STATEMENT EXECUTE FUNCTION rami_live_notify()
    """,
]
DROP = [
    "DROP TRIGGER IF EXISTS rami_live_table ON scoring_table",
    "DROP TRIGGER IF EXISTS rami_live_game ON scoring_game",
    "DROP FUNCTION IF EXISTS rami_live_notify()",
]


def run(statements):
    def operation(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)

    return operation


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0010_table_history_of_members"),
    ]

    operations = [
        migrations.RunPython(run(CREATE), run(DROP), elidable=False),
    ]
