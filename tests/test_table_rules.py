"""The rules of a table's next games (Table.change_rules, the page /t/<token>/rules/) and a
game's own rules at the table (Table.new_game's house_rules, the new-game form's "Rules for
this game"): a change applies to the games started after it, every earlier game keeps its own
rules; the table's history lists the change with the date and time."""

import re

import pytest

from scoring import rules
from scoring.files import exchange
from scoring.forms import HouseRulesForm
from scoring.models import Game, Table, TableEvent, rematch
from scoring.rules import Hand, RoundEntry
from tests.conftest import members_of
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

JOKER_50 = rules.Rules(joker=50)


def a_round(game: Game) -> None:
    """Ana goes out; Boris holds a joker and the 5 of clubs (25 by the players' rules, 55 with
    a joker at 50); Cyril's hand is worth 10."""
    hands = (Hand(), Hand(cards=("JK", "5C")), Hand(value=10))
    game.record_round(RoundEntry(hands=hands, winner=0))


def the_rules_form(table: Table, **typed: str) -> dict:
    """The post of the table's rules page as it shows the table's rules now, with `typed`
    changed (a ticked box is posted as "on", an empty field as "")."""
    shown = HouseRulesForm(house_rules=table.rules).initial
    data = {
        name: "on" if value is True else "" if value is None else str(value)
        for name, value in shown.items()
        if value is not False
    }
    return {**data, "rules_shown": "True", "seen": str(table.version), **typed}


# The model


def test_a_rules_change_between_two_games_applies_to_the_second_only(friday_table):
    first = friday_table.new_game(list(friday_table.members.all()))
    a_round(first)
    exported = exchange.export_game(first)
    assert first.totals() == [0, 25, 10]

    assert friday_table.change_rules(JOKER_50, seen=friday_table.version) is True
    first = Game.objects.get(pk=first.pk)
    assert first.totals() == [0, 25, 10]
    assert first.rules == rules.SEEDS
    assert exchange.export_game(first) == exported
    assert exported["rules"]["joker"] == 20

    friday_table = Table.objects.get(pk=friday_table.pk)
    assert friday_table.rules == JOKER_50
    second = friday_table.new_game(list(friday_table.members.all()))
    a_round(second)
    assert second.rules == JOKER_50
    assert second.totals() == [0, 55, 10]
    assert exchange.export_game(second)["rules"]["joker"] == 50


def finish(game: Game) -> None:
    """Ana makes hand rummy twice: Boris and Cyril past the target of 200."""
    rummy = RoundEntry(
        hands=(Hand(), Hand(opened=False), Hand(opened=False)), winner=0, hand_rummy=True
    )
    game.record_round(rummy)
    game.record_round(rummy)


def test_a_rematch_at_the_table_plays_by_the_tables_rules_as_they_are_now(friday_table):
    # A game with its own rules for one evening, and a change of the table's rules meanwhile:
    # its rematch is one of the table's next games, by the table's rules now.
    own = rules.Rules(joker=30, target=300)
    game = friday_table.new_game(list(friday_table.members.all()), house_rules=own)
    friday_table.change_rules(JOKER_50, seen=friday_table.version)
    finish(game)
    again = rematch(Game.objects.get(pk=game.pk))
    assert again.rules == JOKER_50
    assert Game.objects.get(pk=game.pk).rules == own
    # A game at no table keeps its own rules in its rematch.
    alone = Game.start(["Ana", "Boris", "Cyril"], house_rules=own)
    finish(alone)
    assert alone.rematch().rules == own


def test_a_rules_change_is_kept_in_the_tables_history_and_moves_its_version_on(friday_table):
    version = friday_table.version
    assert friday_table.change_rules(JOKER_50, seen=version) is True
    assert friday_table.version > version
    (event,) = friday_table.events.all()
    assert event.kind == TableEvent.Kind.RULES
    assert (event.rules_before, event.rules_after) == (rules.Rules(), JOKER_50)
    assert event.version == friday_table.version == Table.objects.get(pk=friday_table.pk).version


def test_the_same_rules_sent_twice_change_them_once(friday_table):
    seen = friday_table.version
    assert friday_table.change_rules(JOKER_50, seen=seen) is True
    # The second post carries the version its page showed, older now: nothing to change.
    assert Table.objects.get(pk=friday_table.pk).change_rules(JOKER_50, seen=seen) is False
    assert friday_table.events.count() == 1
    assert Table.objects.get(pk=friday_table.pk).rules == JOKER_50


def test_rules_from_a_page_older_than_another_change_are_refused(friday_table):
    seen = friday_table.version
    Table.objects.get(pk=friday_table.pk).change_rules(JOKER_50, seen=seen)
    with pytest.raises(rules.RulesError) as refused:
        friday_table.change_rules(rules.Rules(ace=1), seen=seen)
    assert refused.value.code == "table_changed"
    assert Table.objects.get(pk=friday_table.pk).rules == JOKER_50
    assert friday_table.events.count() == 1


def test_a_game_with_its_own_rules_leaves_the_tables_alone(friday_table):
    own = rules.Rules(ace=1, target=500)
    game = friday_table.new_game(list(friday_table.members.all()), house_rules=own)
    assert game.rules == own and game.target == 500
    friday_table = Table.objects.get(pk=friday_table.pk)
    assert friday_table.rules == rules.SEEDS
    assert not friday_table.events.exists()
    assert friday_table.new_game(list(friday_table.members.all())).rules == rules.SEEDS


# The rules page


def test_the_rules_page_shows_the_tables_rules_and_its_version(client):
    table = Table.start("Fifties", ["Ana", "Boris"], house_rules=JOKER_50)
    response = client.get(url("table_rules", table.edit_token))
    # Reached by the table's edit token: no cache keeps it.
    assert response["Cache-Control"] == "private, no-store"
    page = read(response)
    assert "Rules for the next games" in page.text
    assert page.one("input[name=joker]").get("value") == "50"
    assert page.one("input[name=ace]").get("value") == "11"
    assert page.one("input[name=seen]").get("value") == str(table.version)
    assert page.one("input[name=not_opened_cap_half_target]").checked
    assert page.one("input[name=hand_rummy][value=fixed]").checked
    assert page.one(f'a[href="/t/{table.edit_token}/"]').text == "Back to the table"


def test_new_rules_go_back_to_the_table_whose_page_says_them_and_when(client, friday_table):
    response = client.post(
        url("table_rules", friday_table.edit_token), the_rules_form(friday_table, joker="50")
    )
    assert response.status_code == 303
    assert response["Location"] == f"/t/{friday_table.edit_token}/"
    assert Table.objects.get(pk=friday_table.pk).rules == JOKER_50

    page = read(client.get(url("table", friday_table.edit_token)))
    assert "House rules: joker 50" in page.one(".table-head").text
    (change,) = page.select(".table-change")
    assert "Rules for the next games changed" in change.text
    assert "House rules: joker 50" in change.text
    when = change.one("time")
    event = friday_table.events.get()
    assert when.get("datetime") == event.created_at.isoformat()
    # The date and the time, in the page's language (the phone shows its own time zone). On
    # the hour, English writes "6 a.m.", and "noon" and "midnight".
    assert re.search(r"\d{4}", when.text)
    assert re.search(r"\d{1,2}(:\d{2})? [ap]\.m\.|noon|midnight", when.text), when.text

    # In Czech, the same change in Czech words.
    czech = read(client.get(url("table", friday_table.edit_token), HTTP_ACCEPT_LANGUAGE="cs"))
    assert "Historie" in czech.text
    assert "žolík 50" in czech.one(".table-change").text


def test_the_rules_page_sent_twice_changes_the_rules_once(client, friday_table):
    post = the_rules_form(friday_table, joker="50")
    assert client.post(url("table_rules", friday_table.edit_token), post).status_code == 303
    assert client.post(url("table_rules", friday_table.edit_token), post).status_code == 303
    assert friday_table.events.count() == 1


def test_a_value_out_of_range_is_refused_next_to_it_and_nothing_changes(client, friday_table):
    response = client.post(
        url("table_rules", friday_table.edit_token),
        the_rules_form(friday_table, joker="500", ace="1"),
    )
    assert response.status_code == 200
    page = read(response)
    row = page.one("li.rule-joker")
    assert row.one(".field-error").text
    assert "0" in row.one(".field-error").text and "100" in row.one(".field-error").text
    assert row.one("input[name=joker]").get("value") == "500"
    assert page.one("input[name=ace]").get("value") == "1"
    assert not page.select("li.rule-ace .field-error")
    friday_table = Table.objects.get(pk=friday_table.pk)
    assert friday_table.rules == rules.SEEDS and not friday_table.events.exists()


def test_rules_from_a_page_older_than_another_phones_change_are_refused(client, friday_table):
    old_page = the_rules_form(friday_table, ace="1")
    client.post(
        url("table_rules", friday_table.edit_token), the_rules_form(friday_table, joker="50")
    )
    response = client.post(url("table_rules", friday_table.edit_token), old_page)
    assert response.status_code == 409
    page = read(response)
    assert "Another phone changed this table since this page was loaded" in page.text
    # The rules as they are now, to change again.
    assert page.one("input[name=joker]").get("value") == "50"
    assert page.one("input[name=ace]").get("value") == "11"
    friday_table = Table.objects.get(pk=friday_table.pk)
    assert page.one("input[name=seen]").get("value") == str(friday_table.version)
    assert friday_table.rules == JOKER_50 and friday_table.events.count() == 1


def test_only_the_players_link_changes_the_rules(client, friday_table):
    edit = read(client.get(url("table", friday_table.edit_token)))
    link = edit.one(".table-head a.link-button")
    assert link.text == "Change the rules for the next games"
    assert link.get("href") == f"/t/{friday_table.edit_token}/rules/"

    watch = client.get(url("table_view", friday_table.view_token)).content.decode()
    assert friday_table.edit_token not in watch
    assert "Change the rules" not in watch
    assert client.get(f"/w/{friday_table.view_token}/rules/").status_code == 404
    # A watch-only token on the players' path is an unknown table.
    assert client.get(url("table_rules", friday_table.view_token)).status_code == 404
    response = client.post(
        url("table_rules", friday_table.view_token), the_rules_form(friday_table, joker="50")
    )
    assert response.status_code == 404
    assert Table.objects.get(pk=friday_table.pk).rules == rules.SEEDS


def test_the_watch_only_link_shows_the_history_too(client, friday_table):
    friday_table.change_rules(rules.Rules(hand_rummy="double"), seen=friday_table.version)
    friday_table.change_rules(rules.SEEDS, seen=friday_table.version)
    page = read(client.get(url("table_view", friday_table.view_token)))
    changes = page.select(".table-change")
    # Newest first: back to the players' rules, then hand rummy doubles.
    assert "The players' rules, with no house rules" in changes[0].text
    assert "hand rummy doubles" in changes[1].text


def test_every_kind_of_change_is_listed_with_its_member_and_when(client, friday_table):
    """A member's change (another part of the table's history) is drawn as any change: its
    label, the member's name, when."""
    with friday_table._changing() as locked:
        locked._log(TableEvent.Kind.RETIRED, name="Cyril")
    change = read(client.get(url("table", friday_table.edit_token))).one(".table-change")
    assert change.one(".table-change-what").text == "Member retired: Cyril"
    assert change.one("time").text


def test_the_table_page_lists_the_latest_20_changes_and_the_rest_on_demand(client, friday_table):
    for number in range(22):
        friday_table.change_rules(rules.Rules(joker=number), seen=friday_table.version)
    page = read(client.get(url("table", friday_table.edit_token)))
    changes = page.select(".table-change")
    assert len(changes) == 20
    assert "joker 21" in changes[0].text
    more = page.one('a[href="?history=all#history-title"]')
    assert more.text == "Show the whole history"
    everything = read(client.get(url("table", friday_table.edit_token) + "?history=all"))
    assert len(everything.select(".table-change")) == 22
    assert not everything.select('a[href="?history=all#history-title"]')


# A game's own rules at the table


def play(table: Table, *names: str, **typed) -> dict:
    """The new-game form's post as the page shows it: these members toggled on, the rules
    of the game as shown (the table's) and hidden as shown, with `typed` changed."""
    members = members_of(table)
    shown = HouseRulesForm(house_rules=table.rules).initial
    values = {
        name: "on" if value is True else "" if value is None else str(value)
        for name, value in shown.items()
        if value is not False
    }
    data = {
        "action": "play",
        "play-members": [str(members[name].pk) for name in names],
        "play-rules_shown": "True",
    }
    for name, value in values.items():
        data[f"play-{name}"] = value
        data[f"initial-play-{name}"] = "True" if value == "on" else value
    data.update({f"play-{name}": value for name, value in typed.items()})
    return data


def test_the_new_game_form_offers_the_tables_rules_folded(client):
    table = Table.start("Fifties", ["Ana", "Boris"], house_rules=JOKER_50)
    page = read(client.get(url("table", table.edit_token)))
    folded = page.one(".play-form details.house-rules")
    assert folded.get("open") is None
    assert folded.one("summary").text == "Rules for this game"
    assert folded.one("input[name=play-joker]").get("value") == "50"
    assert page.one("input[name=initial-play-joker]").get("value") == "50"
    assert page.one("input[name=initial-play-hand_rummy]").get("value") == "fixed"


def test_a_game_with_its_own_rules_from_the_new_game_form(client, friday_table):
    response = client.post(
        url("table", friday_table.edit_token),
        play(friday_table, "Ana", "Boris", joker="50", target="300"),
    )
    assert response.status_code == 303
    game = Game.objects.get(table=friday_table)
    assert response["Location"] == f"/g/{game.edit_token}/"
    document = exchange.export_game(game)
    assert document["rules"]["joker"] == 50 and document["target"] == 300
    assert Table.objects.get(pk=friday_table.pk).rules == rules.SEEDS
    # The game's own rules page says them.
    own = read(client.get(url("game_rules", game.edit_token)))
    assert "joker 50" in own.text and "fixed target" in own.text


def test_the_rules_left_as_shown_are_the_tables_even_if_changed_meanwhile(client, friday_table):
    """A new-game form shown before another phone changed the table's rules, its rules left
    as they were shown: the game plays by the table's rules as they are now."""
    post = play(friday_table, "Ana", "Boris")
    friday_table.change_rules(JOKER_50, seen=friday_table.version)
    assert client.post(url("table", friday_table.edit_token), post).status_code == 303
    assert Game.objects.get(table=friday_table).rules == JOKER_50


def test_a_new_game_without_the_rules_fields_plays_by_the_tables(client):
    table = Table.start("Fifties", ["Ana", "Boris"], house_rules=JOKER_50)
    members = members_of(table)
    data = {"action": "play", "play-members": [str(members["Ana"].pk), str(members["Boris"].pk)]}
    assert client.post(url("table", table.edit_token), data).status_code == 303
    assert Game.objects.get(table=table).rules == JOKER_50


def test_a_wrong_rule_for_the_game_opens_the_rules_and_keeps_everything_typed(client, friday_table):
    response = client.post(
        url("table", friday_table.edit_token),
        play(friday_table, "Ana", "Boris", joker="500", ace="5"),
    )
    assert response.status_code == 200 and not Game.objects.exists()
    page = read(response)
    folded = page.one(".play-form details.house-rules")
    assert folded.get("open") is not None
    assert folded.one("li.rule-joker .field-error").text
    assert folded.one("input[name=play-joker]").get("value") == "500"
    assert folded.one("input[name=play-ace]").get("value") == "5"
    ana = members_of(friday_table)["Ana"].pk
    assert page.one(f"input[name=play-members][value='{ana}']").checked


def test_a_refused_game_shows_its_own_rules_unfolded(client, friday_table):
    """A change typed in the game's rules is shown again, unfolded, when the game is refused
    for another reason (one player only)."""
    page = read(
        client.post(url("table", friday_table.edit_token), play(friday_table, "Ana", ace="5"))
    )
    assert "A game has 2 to 6 players, not 1." in page.text
    folded = page.one(".play-form details.house-rules")
    assert folded.get("open") is not None
    assert folded.one("input[name=play-ace]").get("value") == "5"
    # What the page showed at first is still what a change is told from.
    assert page.one("input[name=initial-play-ace]").get("value") == "11"


# Each language's heading of the rules page, link on the table page, and summary of a game's
# own rules.
TRANSLATED = {
    "cs": ("Pravidla pro další hry", "Změnit pravidla pro další hry", "Pravidla pro tuto hru"),
    "sv": (
        "Regler för kommande partier",
        "Ändra reglerna för kommande partier",
        "Regler för det här partiet",
    ),
    "bg": (
        "Правила за следващите игри",
        "Промени правилата за следващите игри",
        "Правила за тази игра",
    ),
    "id": (
        "Aturan untuk permainan berikutnya",
        "Ubah aturan untuk permainan berikutnya",
        "Aturan untuk permainan ini",
    ),
}


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_rules_pages_in_every_language(client, friday_table, language):
    heading, link, summary = TRANSLATED[language]
    rules_page = read(
        client.get(url("table_rules", friday_table.edit_token), HTTP_ACCEPT_LANGUAGE=language)
    )
    assert rules_page.one("h1").text == heading
    assert "Save the rules" not in rules_page.text
    table_page = read(
        client.get(url("table", friday_table.edit_token), HTTP_ACCEPT_LANGUAGE=language)
    )
    assert table_page.one(".table-head a.link-button").text == link
    assert table_page.one(".play-form details.house-rules summary").text == summary
    assert "No change to the table's rules or members yet." not in table_page.text
