"""Names that look alike count as one name: at the start, on a rename and on an import, for a
game's players and a table's members alike (rules.name_key: Unicode's confusable skeletons)."""

import importlib
import json

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from scoring import rules
from scoring.models import Game, Member, Player, Table
from scoring.rules import RulesError
from tests.conftest import thursday
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

SAME = "Two players have this name: make them different."
ALIKE = "Two players have names that look the same"
INVISIBLE = "A name needs at least one letter, digit or sign."
MARKS = "A letter of a name carries at most 4 accents or marks."

# Beside "Ana" (or the name given), each is refused: (typed, the code, its message).
LOOK_ALIKES = [
    ("Ana\u034f", "name_duplicate", SAME),  # combining grapheme joiner
    ("Ana\ufe00", "name_duplicate", SAME),  # variation selector
    ("Ana\u2800", "name_duplicate", SAME),  # blank braille pattern
    ("Ana\u3164", "name_duplicate", SAME),  # Hangul filler
    ("A\u200fna", "name_duplicate", SAME),  # right-to-left mark
    ("A\u200ena", "name_duplicate", SAME),  # left-to-right mark
    ("An\u200da", "name_duplicate", SAME),  # zero-width joiner
    ("An\u200ba", "name_duplicate", SAME),  # zero-width space
    ("\u0410na", "name_lookalike", ALIKE),  # Cyrillic capital A
    ("\u0410n\u0430", "name_lookalike", ALIKE),  # Cyrillic a twice, Latin n
    ("\uff21\uff4e\uff41", "name_lookalike", ALIKE),  # full-width letters
    ("AN\u0391", "name_lookalike", ALIKE),  # Greek capital alpha
]
BLANK_LOOKING = ["\u3164", "\u2800", "\u115f", " \u3164 ", "\u2800 \u2800", "\u115f\u1160"]
ZALGO = "A" + ("\u0301\u0300\u0302" * 10)[:29]  # 29 accents on one letter: 30 characters

# Real names that must pass, as typed, and stay apart.
REAL_NAMES = [
    ["Ana", "Anna", "Zo\u00eb", "Zoe", "Ano", "An\u03bf\u03c2"],
    ["Иван", "Мария", "Георги", "Ана", "Анна"],
    ["Dvo\u0159\u00e1k", "Dvorak", "Nguy\u1ec5n", "Nguyen", "\u0160t\u011bp\u00e1nka"],
    ["Siti Nurhaliza", "Sri Mulyani", "Putu Ayu", "Made Wirawan", "I Gusti Ngurah"],
    ["O'Brien", "Jean-Luc", "Anne-Marie", "D\u2019Angelo", "Jo\u00e3o"],
    ["\u738b\u82b3", "\u674e\u5a1c", "\u7530\u4e2d", "\uae40\ubbfc\uc900", "\u5f20\u4f1f"],
]


# The rules


@pytest.mark.parametrize(("typed", "code", "_message"), LOOK_ALIKES)
def test_a_look_alike_of_another_players_name_is_refused(typed, code, _message):
    with pytest.raises(RulesError) as refused:
        rules.check_names(["Ana", typed])
    assert (refused.value.code, refused.value.player) == (code, 1)


def test_a_greek_omicron_is_a_latin_o():
    with pytest.raises(RulesError) as refused:
        rules.check_names(["Ano", "An\u03bf"])
    assert refused.value.code == "name_lookalike"


@pytest.mark.parametrize("typed", BLANK_LOOKING)
def test_a_name_that_looks_blank_is_refused(typed):
    with pytest.raises(RulesError) as refused:
        rules.check_names(["Ana", typed])
    assert (refused.value.code, refused.value.player) == ("name_invisible", 1)


def test_marks_piled_on_one_letter_are_refused_and_a_vietnamese_name_passes():
    with pytest.raises(RulesError) as refused:
        rules.check_names(["Ana", ZALGO])
    assert (refused.value.code, refused.value.details) == ("name_marks", {"limit": 4})
    # Two marks on one vowel, and Hebrew's letter with three points.
    assert rules.check_names(["Nguy\u1ec5n", "\u05e9\u05bc\u05c1\u05b8"])


@pytest.mark.parametrize("names", REAL_NAMES)
def test_real_names_pass_as_typed_and_stay_apart(names):
    assert rules.check_names(names) == names
    assert len({rules.name_key(name) for name in names}) == len(names)


def test_a_name_is_kept_as_typed_and_only_its_key_compares():
    assert rules.check_names(["\u0410na", "Boris"]) == ["\u0410na", "Boris"]
    assert rules.name_key("\u0410na") == rules.name_key("ANA") == "ana"
    assert rules.clean_name("Ana\u3164\u2800Lu\u034fis") == "Ana Luis"


# The start page, the players page


@pytest.mark.parametrize(("typed", "_code", "message"), LOOK_ALIKES)
def test_the_start_form_refuses_a_look_alike(client, typed, _code, message):
    shown = read(client.post("/", {"player_0": "Ana", "player_1": typed}))
    assert message in shown.text
    assert not Game.objects.exists()


@pytest.mark.parametrize(("typed", "message"), [("\u3164", INVISIBLE), (ZALGO, MARKS)])
def test_the_start_form_refuses_a_blank_or_piled_up_name(client, typed, message):
    shown = read(client.post("/", {"player_0": "Ana", "player_1": typed}))
    assert message in shown.text
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("typed", "message"), [("\u0410na", ALIKE), ("Ana\ufe00", SAME), ("\u2800", INVISIBLE)]
)
def test_a_rename_to_a_look_alike_is_refused(client, typed, message):
    game = Game.start(["Ana", "Boris"])
    post = {"name_0": "Ana", "seen_0": "Ana", "name_1": typed, "seen_1": "Boris"}
    response = client.post(url("players", game.edit_token), post)
    assert message in read(response).text
    assert Game.objects.get(pk=game.pk).names == ["Ana", "Boris"]


# A table's members


def test_a_table_refuses_look_alike_members_when_started_added_or_renamed(client):
    data = {"name": "Friday", "member_0": "Ana", "member_1": "\u0410na"}
    shown = read(client.post(reverse("table_start"), data))
    assert "Two members have names that look the same" in shown.text
    assert not Table.objects.exists()

    table = Table.start("Friday", ["Ana", "Boris"])
    here = url("table", table.edit_token)
    client.post(here, {"action": "add_member", "add-name": "\uff21\uff4e\uff41"})
    client.post(here, {"action": "add_member", "add-name": "Ana\u3164"})
    assert [member.name for member in table.members.all()] == ["Ana", "Boris"]
    shown = read(client.post(here, {"action": "add_member", "add-name": "\u115f"}))
    assert INVISIBLE in shown.text

    boris = table.members.get(name="Boris")
    data = {"action": "rename", "member": boris.pk, f"rename-{boris.pk}-name": "An\u0430"}
    shown = read(client.post(here, data))
    assert "already has this name" in shown.text
    assert [member.name for member in table.members.all()] == ["Ana", "Boris"]


def test_a_game_at_a_table_refuses_a_look_alike_guest(client):
    table = Table.start("Friday", ["Ana", "Boris"])
    with pytest.raises(RulesError) as refused:
        table.new_game([*table.members.all(), "B\u043eris"])
    assert (refused.value.code, refused.value.player) == ("name_lookalike", 2)


# Imports


@pytest.mark.parametrize("typed", ["\u0410na", "Ana\u2800", "\u3164", ZALGO])
def test_import_game_refuses_a_look_alike_or_blank_name_in_one_line(typed, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "rami-game/1", "players": ["Ana", typed], "rounds": []}))
    with pytest.raises(CommandError) as caught:
        call_command("import_game", str(path))
    assert "\n" not in str(caught.value)
    assert any(m in str(caught.value) for m in (SAME, ALIKE, INVISIBLE, MARKS))
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("where", "names", "message"),
    [
        (["members"], ["Ana", "Boris", "Cyril", "Dana", "D\u0430na"], "names that look the same"),
        (["games", 0, "players"], ["Ana", "Boris", "\u0410na"], ALIKE),
    ],
)
def test_import_table_refuses_look_alike_members_or_players(where, names, message, tmp_path):
    document = thursday()
    place = document
    for step in where[:-1]:
        place = place[step]
    place[where[-1]] = names
    path = tmp_path / "table.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CommandError) as caught:
        call_command("import_table", str(path))
    assert message in str(caught.value)
    assert not Table.objects.exists() and not Game.objects.exists()


# Names from before: migration 0008 keys them again


def test_the_migration_keeps_a_look_alike_pair_from_before_and_either_can_be_renamed():
    game = Game.start(["Ana", "Boris", "Cyril"])
    table = Table.start("Friday", ["Ana", "Boris"])
    # As an older version let them in: same keys as its casefold made them.
    Player.objects.filter(game=game, seat=1).update(name="\u0410na", name_key="\u0430na")
    Member.objects.filter(table=table, name="Boris").update(name="Ana\u3164", name_key="ana\u3164")
    migration = importlib.import_module("scoring.migrations.0008_look_alike_name_keys")
    migration.rekey(apps, None)

    assert list(game.players.values_list("name", "name_key")) == [
        ("Ana", "ana"),
        ("\u0410na", "ana\x011"),
        ("Cyril", "cyril"),
    ]
    later = table.members.get(name="Ana\u3164")
    assert later.name_key == f"ana\x01{later.pk}"
    # The pair stands in the way of no other rename; renaming one apart is a rename.
    game = Game.objects.get(pk=game.pk)
    assert game.rename_player(2, "Cyrille") is True
    assert game.rename_player(1, "Anya") is True
    assert Game.objects.get(pk=game.pk).names == ["Ana", "Anya", "Cyrille"]
