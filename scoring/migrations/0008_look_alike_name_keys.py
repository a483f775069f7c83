"""Name keys that count look-alike names as one (Unicode's confusable skeletons, TR39), and room
for them: a skeleton is longer than the name it comes from."""

import unicodedata

import icu
from django.db import migrations, models
from django.db.models import Value
from django.db.models.functions import Cast, Concat


def name_key(name, spoof_checker):
    # The key as scoring.rules.name_key makes it, written out here: a migration must not
    # change when the app's code does. Stored names were cleaned already; the characters that
    # clean_name now takes out too (Hangul fillers, variation selectors, the combining grapheme
    # joiner, the blank braille pattern) are dropped from the key only: names stay as shown.
    name = unicodedata.normalize("NFC", name)
    name = "".join(
        " " if c == "\u2800" else c
        for c in name
        if unicodedata.category(c) not in {"Cc", "Cf", "Cs"}
        and not icu.Char.hasBinaryProperty(c, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT)
    )
    name = unicodedata.normalize("NFC", " ".join(name.split()))
    folded = unicodedata.normalize("NFKC", name.casefold())
    return unicodedata.normalize("NFC", spoof_checker.getSkeleton(0, folded).casefold())


def rekey(apps, schema_editor):
    # Two names of one game (or one table) that now share a key, "Ana" and "Ana" with a Cyrillic "A",
    # are both kept as they were: a game in play keeps its players, and a person's name is
    # not changed behind their back. The later one's key is marked with its seat (a member's
    # with its id), a control character that no name has, as 0002 did; renaming either one
    # is checked against the other (Game.rename_players), so the pair can be told apart.
    spoof_checker = icu.SpoofChecker()
    for model, group, order in (
        ("Player", "game_id", "seat"),
        ("Member", "table_id", "pk"),
    ):
        rows = list(apps.get_model("scoring", model).objects.order_by(group, order))
        taken = set()
        for row in rows:
            key = name_key(row.name, spoof_checker)
            if (getattr(row, group), key) in taken:
                key = f"{key}\x01{getattr(row, order)}"
            taken.add((getattr(row, group), key))
            row.name_key = key
        # Out of each other's way first: a new key may be another row's old one.
        apps.get_model("scoring", model).objects.update(
            name_key=Concat(Value("\x02"), Cast("pk", models.CharField()))
        )
        apps.get_model("scoring", model).objects.bulk_update(rows, ["name_key"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0007_change_by_phone_and_undo")]

    operations = [
        migrations.AlterField(
            model_name="member", name="name_key", field=models.CharField(max_length=540)
        ),
        migrations.AlterField(
            model_name="player", name="name_key", field=models.CharField(max_length=540)
        ),
        migrations.RunPython(rekey, migrations.RunPython.noop),
    ]
