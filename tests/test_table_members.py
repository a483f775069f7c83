"""Members who come and go: a member retires (kept in the games, the standings and
head to head, not offered for new games) and comes back; one who never played is removed.
The Table methods, the table page's buttons, rami-table/1's "retired" and the backups."""

import copy
import json
from collections import Counter

import pytest

from scoring import rules
from scoring.board import standings as tables
from scoring.files import exchange
from scoring.files.backup import restore_table
from scoring.files.exchange import ExchangeError
from scoring.models import Game, Member, NewMember, Table, TableEvent, rematch
from scoring.rules import Hand, RoundEntry
from scoring.rules.messages import english
from tests.conftest import thursday
from tests.links import url
from tests.pages import read
from tests.test_backup import run
from tests.test_concurrency_live import all_at_once, phones

pytestmark = pytest.mark.django_db


def member(table: Table, name: str) -> Member:
    return table.members.get(name=name)


def version(table: Table) -> int:
    return Table.objects.get(pk=table.pk).version


def retire(table: Table, name: str) -> bool:
    """Retire the member `name` as an up-to-date page would."""
    return table.retire(member(table, name), version(table))


def events(table: Table) -> list[tuple[str, str]]:
    return list(table.events.order_by("pk").values_list("kind", "name"))


def numbers(table: Table) -> dict[str, tuple]:
    return {
        standing.name: (standing.games, standing.wins, standing.average_total)
        for standing in tables.standings(table)
    }


# The model: retire, come back, remove


def test_a_retired_member_keeps_their_games_standings_and_head_to_head(thursday_table):
    before = numbers(thursday_table)
    pairs_before = tables.head_to_head(thursday_table)
    assert retire(thursday_table, "Dana") is True
    dana = member(thursday_table, "Dana")
    assert dana.retired
    assert numbers(thursday_table) == before
    assert numbers(thursday_table)["Dana"] == (2, 1, 121.0)
    assert [
        (pair.first.name, pair.second.name, pair.games, pair.first_lower, pair.second_lower)
        for pair in tables.head_to_head(thursday_table)
    ] == [
        (pair.first.name, pair.second.name, pair.games, pair.first_lower, pair.second_lower)
        for pair in pairs_before
    ]
    assert dana.players.count() == 2
    assert events(thursday_table) == [("retired", "Dana")]


def test_retiring_moves_the_tables_version_on_and_logs_the_change(thursday_table):
    seen = version(thursday_table)
    retire(thursday_table, "Dana")
    event = thursday_table.events.get()
    assert event.kind == TableEvent.Kind.RETIRED and event.name == "Dana"
    assert event.version == version(thursday_table) > seen


def test_a_member_comes_back(thursday_table):
    retire(thursday_table, "Dana")
    dana = member(thursday_table, "Dana")
    assert thursday_table.come_back(dana, version(thursday_table)) is True
    assert not member(thursday_table, "Dana").retired
    assert events(thursday_table) == [("retired", "Dana"), ("returned", "Dana")]


def test_a_form_sent_twice_changes_once_even_from_its_old_page(thursday_table):
    seen = version(thursday_table)
    dana = member(thursday_table, "Dana")
    assert thursday_table.retire(dana, seen) is True
    # The same form again: the table's version has moved on, but nothing is left to change.
    assert thursday_table.retire(dana, seen) is False
    assert events(thursday_table) == [("retired", "Dana")]
    seen = version(thursday_table)
    assert thursday_table.come_back(dana, seen) is True
    assert thursday_table.come_back(dana, seen) is False
    assert thursday_table.come_back(member(thursday_table, "Ana"), 0) is False
    eva = thursday_table.add_member("Eva")
    seen = version(thursday_table)
    assert thursday_table.remove_member(eva, seen) is True
    assert thursday_table.remove_member(eva, seen) is False
    assert events(thursday_table) == [
        ("retired", "Dana"),
        ("returned", "Dana"),
        ("joined", "Eva"),
        ("removed", "Eva"),
    ]


def test_a_change_from_a_page_older_than_the_tables_last_change_is_refused(thursday_table):
    seen = version(thursday_table)
    retire(thursday_table, "Dana")
    for change, name in (
        (Table.retire, "Cyril"),
        (Table.come_back, "Dana"),
    ):
        with pytest.raises(rules.RulesError) as refused:
            change(thursday_table, member(thursday_table, name), seen)
        assert refused.value.code == "table_changed"
    eva = thursday_table.add_member("Eva")
    with pytest.raises(rules.RulesError) as refused:
        thursday_table.remove_member(eva, seen)
    assert refused.value.code == "table_changed"
    assert not member(thursday_table, "Cyril").retired
    assert member(thursday_table, "Dana").retired
    assert thursday_table.members.filter(name="Eva").exists()
    assert english(refused.value).startswith("Another phone changed this table")


def test_the_last_two_members_who_play_cannot_leave():
    table = Table.start("Three", ["Ana", "Boris", "Cyril"])
    assert retire(table, "Ana")
    with pytest.raises(rules.RulesError) as refused:
        retire(table, "Boris")
    assert refused.value.code == "member_last"
    assert english(refused.value.for_player(0), ["Boris"]) == (
        "A table keeps at least 2 members who play its games, so Boris cannot leave now: add "
        "a member, or bring one back, first."
    )
    with pytest.raises(rules.RulesError) as refused:
        table.remove_member(member(table, "Cyril"), version(table))
    assert refused.value.code == "member_last"
    assert table.members.filter(retired=False).count() == 2
    # A retired member who never played may still be removed: no one who plays leaves.
    assert table.remove_member(member(table, "Ana"), version(table))
    assert [m.name for m in table.members.all()] == ["Boris", "Cyril"]
    # Once a member joins, one may retire again.
    table.add_member("Dana")
    assert retire(table, "Boris")


def test_a_table_of_two_keeps_both():
    table = Table.start("Two", ["Ana", "Boris"])
    with pytest.raises(rules.RulesError, match="member_last"):
        retire(table, "Ana")
    assert not table.events.exists()


def test_only_a_member_who_never_played_is_removed(thursday_table):
    with pytest.raises(rules.RulesError) as refused:
        thursday_table.remove_member(member(thursday_table, "Dana"), version(thursday_table))
    assert refused.value.code == "member_played"
    assert english(refused.value.for_player(0), ["Dana"]) == (
        "Only a member who never played can be removed, and Dana has played here: retire "
        "them instead, which keeps their games in the standings."
    )
    assert member(thursday_table, "Dana").players.count() == 2
    # A game in play counts too, even before its first round.
    eva = thursday_table.add_member("Eva")
    thursday_table.new_game([eva, member(thursday_table, "Ana")])
    with pytest.raises(rules.RulesError, match="member_played"):
        thursday_table.remove_member(eva, version(thursday_table))
    filip = thursday_table.add_member("Filip")
    assert thursday_table.remove_member(filip, version(thursday_table))
    assert not Member.objects.filter(pk=filip.pk).exists()
    assert events(thursday_table) == [("joined", "Eva"), ("joined", "Filip"), ("removed", "Filip")]


def test_a_member_of_another_table_is_a_callers_mistake(thursday_table):
    other = Table.start("Other", ["Ana", "Boris", "Cyril"])
    for change in (Table.retire, Table.come_back, Table.remove_member):
        with pytest.raises(ValueError, match="is not a member"):
            change(thursday_table, member(other, "Ana"), version(thursday_table))


# New games: a retired member is not offered, and one who plays is back


def test_a_retired_member_who_plays_again_comes_back(thursday_table):
    retire(thursday_table, "Dana")
    # Typed as a guest's name, in another case: the member, back.
    game = thursday_table.new_game([member(thursday_table, "Ana"), "DANA"])
    assert [player.name for player in game.seated_players] == ["Ana", "Dana"]
    assert game.seated_players[1].member == member(thursday_table, "Dana")
    assert not member(thursday_table, "Dana").retired
    assert events(thursday_table) == [("retired", "Dana"), ("returned", "Dana")]


@pytest.mark.parametrize(
    "given", [lambda table: member(table, "Dana"), lambda table: NewMember("dana")]
)
def test_a_retired_member_given_any_way_to_a_new_game_comes_back(thursday_table, given):
    retire(thursday_table, "Dana")
    game = thursday_table.new_game([member(thursday_table, "Boris"), given(thursday_table)])
    assert not member(thursday_table, "Dana").retired
    assert game.seated_players[1].member_id == member(thursday_table, "Dana").pk


def test_adding_a_retired_members_name_brings_them_back(thursday_table):
    retire(thursday_table, "Dana")
    assert thursday_table.add_member(" dana ") == member(thursday_table, "Dana")
    assert not member(thursday_table, "Dana").retired
    assert thursday_table.members.count() == 4
    assert events(thursday_table)[-1] == ("returned", "Dana")


def test_a_game_kept_at_the_table_brings_back_a_retired_player(thursday_table):
    retire(thursday_table, "Dana")
    game = Game.start(["dana", "Eva"])
    game.record_round(RoundEntry(hands=(Hand(), Hand(opened=False)), winner=0, hand_rummy=True))
    thursday_table.keep_game(game)
    assert not member(thursday_table, "Dana").retired
    assert member(thursday_table, "Dana").players.count() == 3
    # Eva, who played the game, joins the table.
    assert events(thursday_table) == [("retired", "Dana"), ("returned", "Dana"), ("joined", "Eva")]


def test_a_rematch_brings_back_a_player_who_retired_since(thursday_table):
    # Dana finished the last game, then retired; the group taps Rematch: she plays, so she is
    # back (the table's lock taken first, as in every table's change).
    last = thursday_table.games.order_by("-created_at", "-pk").first()
    retire(thursday_table, "Dana")
    again = rematch(Game.objects.get(pk=last.pk))
    assert again.table_id == thursday_table.pk
    assert not member(thursday_table, "Dana").retired
    assert events(thursday_table) == [("retired", "Dana"), ("returned", "Dana")]
    # A second tap is the same game, and changes nothing more.
    assert rematch(Game.objects.get(pk=last.pk)) == again
    assert len(events(thursday_table)) == 2


def test_the_deal_still_follows_on_with_a_retired_member(thursday_table):
    retire(thursday_table, "Cyril")
    keys = [rules.name_key(name) for name in ("Ana", "Boris", "Dana")]
    # The last game (Boris, Cyril, Dana; 2 rounds, Boris dealt first) would have Dana deal
    # its third round; she plays, so she deals first.
    assert thursday_table.deal_follows_on(keys) == 2
    game = thursday_table.new_game([member(thursday_table, name) for name in ("Ana", "Boris")])
    assert game.first_dealer == thursday_table.deal_follows_on(keys[:2])


# The table page


def here(table: Table) -> str:
    return url("table", table.edit_token)


def change(table: Table, action: str, name: str, seen: int | None = None) -> dict:
    return {
        "action": action,
        "member": member(table, name).pk,
        "seen": version(table) if seen is None else seen,
    }


def test_retire_and_bring_back_from_the_table_page(client, thursday_table):
    response = client.post(here(thursday_table), change(thursday_table, "retire", "Dana"))
    assert response.status_code == 303
    assert response["Location"] == f"{here(thursday_table)}#members"
    shown = read(client.get(here(thursday_table)))
    # Listed apart, with a button to bring her back; not offered for a new game.
    assert shown.texts(".retired-list .member-name") == ["Dana"]
    assert "Retired" in shown.one("#members").text
    assert shown.one(".retired-list button").text == "Bring back Dana"
    assert shown.texts(".member-toggle") == ["Ana", "Boris", "Cyril"]
    # Still in the standings, marked.
    standings = {row[0]: row[1:3] for row in shown.one("table.standings-table").rows()[1:]}
    assert standings["Dana (retired)"] == ["2", "1"]

    response = client.post(here(thursday_table), change(thursday_table, "come_back", "Dana"))
    assert response.status_code == 303
    shown = read(client.get(here(thursday_table)))
    assert shown.select(".retired-list") == []
    assert shown.texts(".member-toggle") == ["Ana", "Boris", "Cyril", "Dana"]


def test_each_member_who_plays_can_retire_and_only_those_who_never_played_be_removed(
    client, thursday_table
):
    thursday_table.add_member("Eva")
    shown = read(client.get(here(thursday_table)))
    buttons = {
        item.one(".member-name").text: [button.text for button in item.select("button")]
        for item in shown.select(".member-list .member-item")
    }
    assert buttons["Ana"] == ["Rename", "Retire Ana"]
    assert buttons["Eva"] == ["Rename", "Retire Eva", "Remove Eva"]

    response = client.post(here(thursday_table), change(thursday_table, "remove", "Eva"))
    assert response.status_code == 303
    assert not thursday_table.members.filter(name="Eva").exists()
    assert "Eva" not in read(client.get(here(thursday_table))).one("#members").text


def test_a_refused_change_says_why_next_to_the_member(client):
    table = Table.start("Three", ["Ana", "Boris", "Cyril"])
    client.post(here(table), change(table, "retire", "Ana"))
    response = client.post(here(table), change(table, "retire", "Boris"))
    assert response.status_code == 200
    shown = read(response)
    item = next(
        item for item in shown.select(".member-item") if item.one(".member-name").text == "Boris"
    )
    assert item.one(".field-error").text == (
        "A table keeps at least 2 members who play its games, so Boris cannot leave now: add "
        "a member, or bring one back, first."
    )
    assert not member(table, "Boris").retired


def test_removing_a_member_who_played_is_refused_with_the_way_out(client, thursday_table):
    response = client.post(here(thursday_table), change(thursday_table, "remove", "Cyril"))
    assert response.status_code == 200
    assert "Cyril has played here: retire them instead" in read(response).one("#members").text
    assert thursday_table.members.filter(name="Cyril").exists()


def test_a_change_from_an_old_page_is_refused_with_409(client, thursday_table):
    seen = version(thursday_table)
    client.post(here(thursday_table), change(thursday_table, "retire", "Dana"))
    response = client.post(here(thursday_table), change(thursday_table, "retire", "Cyril", seen))
    assert response.status_code == 409
    shown = read(response)
    assert "Another phone changed this table since this page was loaded" in shown.text
    # The page as it is now: Dana retired, Cyril not, and the new version in the forms.
    assert shown.texts(".retired-list .member-name") == ["Dana"]
    assert not member(thursday_table, "Cyril").retired
    assert {field.get("value") for field in shown.select("input[name=seen]")} == {
        str(version(thursday_table))
    }


def test_a_form_sent_twice_is_done_once(client, thursday_table):
    data = change(thursday_table, "retire", "Dana")
    assert client.post(here(thursday_table), data).status_code == 303
    assert client.post(here(thursday_table), data).status_code == 303
    eva = thursday_table.add_member("Eva")
    data = change(thursday_table, "remove", "Eva")
    assert client.post(here(thursday_table), data).status_code == 303
    # Eva is gone: the second tap finds nothing left to do.
    assert client.post(here(thursday_table), data).status_code == 303
    assert events(thursday_table) == [("retired", "Dana"), ("joined", "Eva"), ("removed", "Eva")]
    # A member removed meanwhile cannot retire: the page was out of date.
    data = {"action": "retire", "member": eva.pk, "seen": version(thursday_table)}
    response = client.post(here(thursday_table), data)
    assert response.status_code == 409
    assert "Another phone changed this table" in read(response).one("#members").text


def test_another_tables_member_or_no_member_is_a_404(client, thursday_table):
    other = Table.start("Other", ["Ana", "Boris", "Cyril"])
    for action in ("retire", "come_back", "remove"):
        for posted in (member(other, "Ana").pk, "", "x", "²"):
            data = {"action": action, "member": posted, "seen": version(thursday_table)}
            assert client.post(here(thursday_table), data).status_code == 404
    assert not other.members.filter(retired=True).exists()


def test_a_retired_members_name_typed_for_a_new_game_brings_them_back(client, thursday_table):
    retire(thursday_table, "Dana")
    ana = member(thursday_table, "Ana")
    data = {"action": "play", "play-members": [str(ana.pk)], "play-guest_0": "dana"}
    response = client.post(here(thursday_table), data)
    assert response.status_code == 303
    game = Game.objects.get(edit_token=response["Location"].split("/")[2])
    assert [player.name for player in game.seated_players] == ["Ana", "Dana"]
    assert not member(thursday_table, "Dana").retired


def test_a_member_toggled_on_a_page_from_before_they_retired_plays(client, thursday_table):
    ana, dana = member(thursday_table, "Ana"), member(thursday_table, "Dana")
    retire(thursday_table, "Dana")
    data = {"action": "play", "play-members": [str(ana.pk), str(dana.pk)]}
    assert client.post(here(thursday_table), data).status_code == 303
    assert not member(thursday_table, "Dana").retired


def test_the_watch_only_page_shows_who_retired_and_no_button(client, thursday_table):
    retire(thursday_table, "Dana")
    watched = url("table_view", thursday_table.view_token)
    shown = read(client.get(watched))
    assert shown.texts("#members .member-list:not(.retired-list) .member-name") == [
        "Ana",
        "Boris",
        "Cyril",
    ]
    assert shown.texts(".retired-list .member-name") == ["Dana"]
    assert shown.one("#members").select("button, form, input") == []
    for action in ("retire", "come_back", "remove"):
        assert client.post(watched, change(thursday_table, action, "Ana")).status_code == 405
    assert events(thursday_table) == [("retired", "Dana")]


def test_a_new_tables_members_are_listed_without_a_retired_list(client, thursday_table):
    shown = read(client.get(here(thursday_table)))
    assert shown.select(".retired-list") == []
    assert "(retired)" not in shown.text


# rami-table/1 and backups


def test_the_export_lists_the_retired_members_always(thursday_table, client):
    assert exchange.export_table(thursday_table)["retired"] == []
    retire(thursday_table, "Boris")
    exported = exchange.export_table(thursday_table)
    assert exported["members"] == ["Ana", "Boris", "Cyril", "Dana"]
    assert exported["retired"] == ["Boris"]
    assert exported["standings"]["Boris"]["games"] == 3
    streamed = b"".join(client.get(url("table_view_export_json", thursday_table.view_token)))
    assert json.loads(streamed) == exported


def test_an_imported_file_retires_its_retired_members():
    document = thursday()
    document["retired"] = ["dana"]
    table = exchange.import_table(document)
    assert list(table.members.filter(retired=True).values_list("name", flat=True)) == ["Dana"]
    exported = exchange.export_table(table)
    assert exported["retired"] == ["Dana"]
    again = exchange.import_table(copy.deepcopy(exported))
    assert exchange.export_table(again) == exported
    # A file from before "retired": nobody retired.
    assert not exchange.import_table(thursday()).members.filter(retired=True).exists()


@pytest.mark.parametrize(
    ("retired", "message"),
    [
        (["Eva"], '"retired": "Eva" is not one of "members"'),
        ([3], '"retired": 3 is not one of "members"'),
        ("Dana", '"retired" must be a list of names from "members"'),
        (
            ["Ana", "Boris", "Cyril"],
            '"retired": A table keeps at least 2 members who play its games, so this member '
            "cannot leave now",
        ),
    ],
)
def test_a_bad_retired_list_is_refused_in_one_line_and_nothing_made(retired, message):
    document = thursday()
    document["retired"] = retired
    with pytest.raises(ExchangeError) as refused:
        exchange.import_table(document)
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)
    assert not Table.objects.exists() and not Game.objects.exists()


def test_backup_and_restore_keep_who_retired(thursday_table, tmp_path):
    retire(thursday_table, "Cyril")
    game = thursday_table.new_game([member(thursday_table, "Ana"), member(thursday_table, "Boris")])
    game.record_round(RoundEntry(hands=(Hand(), Hand(value=12)), winner=0))
    before = exchange.export_table(thursday_table)
    run("backup_games", tmp_path)
    (path,) = (tmp_path / "tables").glob("*.json")  # the one table's file
    assert json.loads(path.read_text())["retired"] == ["Cyril"]
    Table.objects.all().delete()
    Game.objects.all().delete()
    run("restore_games", tmp_path)
    restored = Table.objects.get(edit_token=thursday_table.edit_token)
    assert exchange.export_table(restored) == before
    assert member(restored, "Cyril").retired
    # Restoring again leaves it alone.
    assert restore_table(json.loads(path.read_text())) is None


@pytest.mark.parametrize("language", ["cs", "sv", "bg", "id"])
def test_the_members_words_are_translated(client, language):
    table = Table.start("Three", ["Ana", "Boris", "Cyril"])
    table.add_member("Eva")
    retire(table, "Ana")
    client.cookies["django_language"] = language
    page = client.post(here(table), change(table, "retire", "Boris")).content.decode()
    page += client.get(f"{here(table)}?period=month").content.decode()
    page += client.post(here(table), change(table, "retire", "Cyril", seen=0)).content.decode()
    for words in (
        "Retire",
        "Bring back",
        "Retired",
        "(retired)",
        "This month",
        "All time",
        "Only the games started this month",
        "A member who retires",
        "Period of the standings",
        "cannot leave now",
    ):
        assert words not in page, words


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_six_phones_retiring_at_once_from_one_page_retire_one_each_time(live_server):
    """Six phones show the same page and each retires another member at the same moment:
    one change is made, the five others were made on a page it has overtaken (409). Round
    after round, until two members who play are left: then every tap is refused."""
    table = Table.start("Friday", ["Ana", "Boris", "Cyril", "Dana", "Eva", "Filip"])
    path = here(table)
    table_phones = phones(live_server, 6)
    members = list(table.members.all())
    rounds = []
    for _ in range(5):
        for phone in table_phones:
            phone.open(path)
        seen = version(table)
        posts = [
            (phone, path, {"action": "retire", "member": one.pk, "seen": seen})
            for phone, one in zip(table_phones, members, strict=True)
        ]
        rounds.append(Counter(all_at_once(posts)))
    # Retiring a retired member is no change: its phone is answered as if it had just done it.
    assert [answers[303] for answers in rounds][:4] == [1, 2, 3, 4]
    assert rounds[4] == Counter({303: 4, 200: 2})
    assert table.members.filter(retired=False).count() == 2
    assert table.events.filter(kind="retired").count() == 4


# The table's history says who joined and who was renamed, as who left


def test_members_added_and_renamed_are_in_the_tables_history(client, thursday_table):
    thursday_table.add_member("Eva")
    # A name typed for a new game that joins the table, too.
    thursday_table.new_game([member(thursday_table, "Ana"), NewMember("Filip")])
    thursday_table.rename_member(member(thursday_table, "Eva"), "Evička")
    # The same name again renames nobody, and says nothing.
    thursday_table.rename_member(member(thursday_table, "Evička"), "Evička")
    assert events(thursday_table) == [("joined", "Eva"), ("joined", "Filip"), ("renamed", "Evička")]
    shown = read(client.get(here(thursday_table)))
    assert shown.texts(".table-change-what")[:3] == [
        "Member renamed: Evička",
        "Member added: Filip",
        "Member added: Eva",
    ]
    assert shown.texts(".change-renamed .table-change-rules") == ["Before: Eva"]


def test_a_rules_change_in_the_history_says_the_rules_before_it(client, thursday_table):
    thursday_table.change_rules(rules.Rules(joker=50), version(thursday_table))
    thursday_table.change_rules(rules.Rules(joker=25, ace=15), version(thursday_table))
    shown = read(client.get(here(thursday_table)))
    newest, first = shown.select(".change-rules")
    assert newest.texts(".table-change-rules") == [
        "House rules: joker 25, ace 15",
        "Before: joker 50",
    ]
    assert first.texts(".table-change-rules") == [
        "House rules: joker 50",
        "Before: the players' rules, with no house rules",
    ]
