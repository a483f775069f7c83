"""A player who left may come back (Game.come_back): the round they play again from and the
total they start it with. A column that allows null, so that the previous release, which knows
nothing of it, keeps adding players while this runs (docs/deploy.md, "Upgrading")."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("scoring", "0014_deleted_links")]

    operations = [
        migrations.AddField(
            model_name="player",
            name="returns",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
