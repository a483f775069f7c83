"""Each game's house rules: {} for every game stored before, which keeps the seeds'."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("scoring", "0003_unique_name_key")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="house_rules",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
