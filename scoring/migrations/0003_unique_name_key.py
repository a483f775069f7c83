"""Names unique by their stored key (0002 filled it), in a migration of its own: PostgreSQL
alters a table only after the rows changed in the same transaction are checked."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("scoring", "0002_round_identity_and_name_keys")]

    operations = [
        migrations.RemoveConstraint(model_name="player", name="unique_name_per_game"),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                fields=("game", "name_key"), name="unique_name_key_per_game"
            ),
        ),
    ]
