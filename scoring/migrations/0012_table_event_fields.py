"""A table's history keeps a change of its rules in two rules fields (the rules before and
after it, as a game keeps its own), and a rename's old name in a field of its own, instead of
both in two untyped JSON fields that each reader took apart by hand. The events kept so far
are moved over: nothing of the history is lost."""

from django.db import migrations, models


def forward(apps, schema_editor):
    TableEvent = apps.get_model("scoring", "TableEvent")
    for event in TableEvent.objects.filter(kind="rules"):
        event.rules_before = event.before or {}
        event.rules_after = event.after or {}
        event.save(update_fields=["rules_before", "rules_after"])
    for event in TableEvent.objects.filter(kind="renamed"):
        event.name_before = (event.before or {}).get("name", "")
        event.save(update_fields=["name_before"])


def backward(apps, schema_editor):
    TableEvent = apps.get_model("scoring", "TableEvent")
    for event in TableEvent.objects.filter(kind="rules"):
        event.before, event.after = event.rules_before, event.rules_after
        event.save(update_fields=["before", "after"])
    for event in TableEvent.objects.filter(kind="renamed"):
        event.before = {"name": event.name_before}
        event.save(update_fields=["before"])


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0011_live_notify"),
    ]

    operations = [
        migrations.AddField(
            model_name="tableevent",
            name="name_before",
            field=models.CharField(blank=True, max_length=30),
        ),
        migrations.AddField(
            model_name="tableevent",
            name="rules_after",
            field=models.JSONField(blank=True, default=None, null=True),
        ),
        migrations.AddField(
            model_name="tableevent",
            name="rules_before",
            field=models.JSONField(blank=True, default=None, null=True),
        ),
        migrations.RunPython(forward, backward),
        migrations.RemoveField(model_name="tableevent", name="after"),
        migrations.RemoveField(model_name="tableevent", name="before"),
    ]
