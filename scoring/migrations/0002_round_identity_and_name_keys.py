"""Rounds get a revision (a form names the one it shows), games a rematch that is made once and
a version that only grows, players a stored name key that every database compares alike."""

import unicodedata

from django.db import migrations, models
from django.db.models.deletion import SET_NULL


def fill_name_keys(apps, schema_editor):
    # The key as name_key made it then (scoring/exchange.py at 9f37038), written out here: a
    # migration must not change when the app's code does. Stored names were cleaned already (trimmed, no control
    # characters); invisible format characters, if any, are dropped from the key only.
    Player = apps.get_model("scoring", "Player")
    players = list(Player.objects.order_by("game_id", "seat"))
    taken = set()
    for player in players:
        name = unicodedata.normalize("NFC", player.name)
        name = "".join(c for c in name if unicodedata.category(c) not in {"Cc", "Cf", "Cs"})
        name = " ".join(name.split())
        key = unicodedata.normalize("NFC", name.casefold())
        if (player.game_id, key) in taken:
            # Two names that only an invisible character told apart: both kept as they were,
            # the later one's key marked with its seat (a control character no name has).
            key = f"{key}\x01{player.seat}"
        taken.add((player.game_id, key))
        player.name_key = key
    Player.objects.bulk_update(players, ["name_key"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0001_initial")]

    operations = [
        migrations.AlterField(
            model_name="game", name="version", field=models.BigIntegerField(default=0)
        ),
        migrations.AddField(
            model_name="game",
            name="next_game",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=SET_NULL,
                related_name="previous_game",
                to="scoring.game",
            ),
        ),
        migrations.AddField(
            model_name="round", name="revision", field=models.PositiveIntegerField(default=1)
        ),
        migrations.AddField(
            model_name="player",
            name="name_key",
            field=models.CharField(default="", max_length=120),
            preserve_default=False,
        ),
        migrations.RunPython(fill_name_keys, migrations.RunPython.noop),
    ]
