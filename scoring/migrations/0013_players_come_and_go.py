"""Players come and go (docs/rules.md, "Players who come and go"): a player's starting total,
whether they joined or left; each round's dealer, kept whatever is deleted before it; how many
played the first round (the target).

Every column is added with a default in the database or allows null, and nothing is removed:
the previous release, which reads none of them, keeps serving while this runs
(docs/deploy.md, "Upgrading"). The dealers of the rounds kept so far are filled in as the page
showed them until now: the deal moving one seat a round from the first dealer, along the
latest change of seats from its round on (the rule written out here, as a migration must not
change when the app's code does). A round the previous release saves after that has no dealer;
the app gives it the one the deal went to (Game._dealt).

On PostgreSQL it first takes every table it changes at once (lock_tables): one by one, as its
ALTERs would, it holds the game table while it waits for the player table, and a read of the
previous release that joins the two the other way round deadlocks with it (PostgreSQL cancels
the read: a 503 that tests/test_upgrade.py saw)."""

import time

from django.db import OperationalError, migrations, models, transaction


def lock_tables(apps, schema_editor):
    """Every table this migration changes, locked together, or none: a try waits at most
    0.1 s, then lets go and tries again, so that a read holding one of them finishes first."""
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return  # SQLite: one writer at a time, and readers see the database as it was
    tables = ", ".join(
        schema_editor.quote_name(apps.get_model("scoring", name)._meta.db_table)
        for name in ("Game", "Player", "Round", "GameEvent")
    )
    with connection.cursor() as cursor:
        for _attempt in range(600):
            try:
                with transaction.atomic(using=connection.alias):
                    cursor.execute("SET LOCAL lock_timeout = '100ms'")
                    cursor.execute(f"LOCK TABLE {tables} IN ACCESS EXCLUSIVE MODE")
                    cursor.execute("SET LOCAL lock_timeout = DEFAULT")
                return
            except OperationalError:
                time.sleep(0.05)
        raise OperationalError("the tables stayed in use for a minute: run migrate again")


def dealer_for(game, number, players):
    change = next((c for c in reversed(game.seating or []) if c["from"] <= number), None)
    if change is None:
        return (game.first_dealer + number - 1) % players
    order = change["order"]
    return order[(order.index(change["dealer"]) + number - change["from"]) % len(order)]


def forward(apps, schema_editor):
    Game = apps.get_model("scoring", "Game")
    Round = apps.get_model("scoring", "Round")
    for game in Game.objects.all().iterator():
        players = game.players.count()
        if players == 0:
            continue
        rounds = list(Round.objects.filter(game=game).order_by("number"))
        for round_ in rounds:
            round_.dealer = dealer_for(game, round_.number, players)
        Round.objects.bulk_update(rounds, ["dealer"], batch_size=500)
        game.target_players = players
        game.save(update_fields=["target_players"])


def backward(apps, schema_editor):
    pass  # the columns go with the fields


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0012_table_event_fields'),
    ]

    operations = [
        migrations.RunPython(lock_tables, migrations.RunPython.noop),
        migrations.AddField(
            model_name='game',
            name='target_players',
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='player',
            name='joined',
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name='player',
            name='left',
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name='player',
            name='start',
            field=models.IntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name='round',
            name='dealer',
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(forward, backward),
        migrations.AlterField(
            model_name='gameevent',
            name='kind',
            field=models.CharField(choices=[('added', 'Round added'), ('edited', 'Round edited'), ('corrected', 'Round corrected'), ('deleted', 'Round deleted'), ('restored', 'Round restored'), ('renamed', 'Player renamed'), ('seated', 'Seats and dealer changed'), ('left', 'Player left'), ('joined', 'Player joined')], max_length=10),
        ),
    ]
