"""A table's pages (scoring/views/tables.py, table_changes.py): starting a table, its page from the
edit link and the watch-only link, new games from it, members added and renamed, keeping a
finished game's group together, the export, and the queries of a big table's page."""

import json
import re
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.board import standings as tables
from scoring.files import exchange
from scoring.forms import HouseRulesForm
from scoring.models import Game, Table
from tests.conftest import big_table, members_of, round_post, thursday
from tests.links import url
from tests.pages import read
from tests.test_sharing import qr_codes

pytestmark = pytest.mark.django_db


def rows(html: str, css_class: str) -> list[list[str]]:
    """The text of each row of the <table> with this class, cell by cell."""
    return read(html).one(f"table.{css_class}").rows()


def play(table: Table, *names: str, **extra) -> dict:
    """The new-game form's post: these members toggled on, `guest_0=...` etc. as typed."""
    members = members_of(table)
    data = {"action": "play", "play-members": [str(members[name].pk) for name in names]}
    data.update({f"play-{field}": value for field, value in extra.items()})
    return data


# Starting a table


def test_the_start_page_offers_a_table_and_its_form_starts_one(client):
    start = client.get("/").content.decode()
    assert 'href="/t/new/"' in start and "Start a table for your group" in start
    assert client.get(reverse("table_start")).status_code == 200
    response = client.post(
        reverse("table_start"),
        {"name": " Thursday  cards ", "member_0": "Ana", "member_1": "Boris"},
    )
    table = Table.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"/t/{table.edit_token}/"
    assert table.name == "Thursday cards"
    assert [member.name for member in table.members.all()] == ["Ana", "Boris"]


def test_a_refused_table_keeps_what_was_typed_and_says_where(client):
    response = client.post(
        reverse("table_start"),
        {"name": "", "member_0": "Ana", "member_1": "ANA", "member_5": "Eva"},
    )
    html = response.content.decode()
    assert response.status_code == 200 and not Table.objects.exists()
    assert "Enter a name." in html
    assert "Two members have this name: make them different." in html
    assert 'value="ANA"' in html and 'value="Eva"' in html
    # The folded fields hold a name: they are shown.
    assert '<details class="more-players" open>' in html
    # The error stands under the second member's field, not the first's.
    assert html.index('value="ANA"') < html.index("Two members") < html.index('value="Eva"')


def test_a_table_started_with_house_rules_plays_its_games_by_them(client):
    """The start form of a table has the house rules of a game's start form; a post without
    them (a script's) plays by the players' documents."""
    form = client.get(reverse("table_start")).content.decode()
    assert 'name="joker"' in form and 'name="rules_shown"' in form
    # The house rules as the form shows them, prefilled (a ticked box is posted as "on").
    shown = {
        name: "on" if value is True else str(value)
        for name, value in HouseRulesForm().initial.items()
        if value not in (None, False)
    }
    data = {"name": "Fifty", "member_0": "Ana", "member_1": "Boris", "rules_shown": "on", **shown}
    client.post(reverse("table_start"), {**data, "joker": "50"})
    table = Table.objects.get(name="Fifty")
    assert table.house_rules.changes() == {"joker": 50}
    client.post(url("table", table.edit_token), play(table, "Ana", "Boris"))
    assert Game.objects.get(table=table).rules.joker == 50
    assert "House rules: joker 50" in client.get(url("table", table.edit_token)).content.decode()

    html = client.post(
        reverse("table_start"), {**data, "name": "Wrong", "joker": "500"}
    ).content.decode()
    assert not Table.objects.filter(name="Wrong").exists()
    assert '<details class="house-rules" open>' in html and 'value="500"' in html
    client.post(reverse("table_start"), {"name": "Plain", "member_0": "Ana", "member_1": "Boris"})
    assert Table.objects.get(name="Plain").house_rules.changes() == {}


def test_a_table_needs_a_member(client):
    html = client.post(reverse("table_start"), {"name": "Empty"}).content.decode()
    assert "A table has 1 to 30 members, not 0." in html
    assert not Table.objects.exists()


# The table page


def test_the_table_page_shows_the_worked_examples_standings(client, thursday_table):
    html = client.get(url("table", thursday_table.edit_token)).content.decode()
    standings = {row[0]: row[1:5] for row in rows(html, "standings-table")[1:]}
    assert standings["Ana"] == ["2", "1", "50%", "130.0"]
    assert standings["Boris"] == ["3", "0", "0%", "166.7"]
    assert standings["Cyril"] == ["2", "1", "50%", "125.0"]
    assert standings["Dana"] == ["2", "1", "50%", "121.0"]
    # Three games each: a small sample, labelled and not ranked.
    assert "Fewer than 5 finished games: not ranked yet" in standings
    assert '<span class="rank">' not in html


def test_the_table_page_shows_every_number_of_a_member(client, thursday_table):
    html = client.get(url("table", thursday_table.edit_token)).content.decode()
    head, *body = rows(html, "standings-table")
    assert head == [
        "Member",
        "Games",
        "Wins",
        "Win rate",
        "Average total",
        "Average points a round",
        "Rounds won",
        "Hand rummies made",
        "Hand rummies suffered",
        "Never opened",
        "Best game",
        "Worst game",
    ]
    ana = next(row for row in body if row[0] == "Ana")
    # Three rounds: a hand rummy made (0), 60 and a hand rummy suffered (200); games of 0, 260.
    assert ana[5:] == ["86.7", "1", "1", "1", "0", "0", "260"]


def test_members_with_five_finished_games_are_ranked_first(client, thursday_table):
    document = thursday()
    document["games"] = document["games"] * 2
    table = exchange.import_table(document)
    html = client.get(url("table", table.edit_token)).content.decode()
    names = [row[0] for row in rows(html, "standings-table")[1:]]
    # Boris has finished 6 games, the others 4: Boris is ranked, then the small samples.
    assert names[:2] == ["1. Boris", "Fewer than 5 finished games: not ranked yet"]
    assert sorted(names[2:]) == ["Ana", "Cyril", "Dana"]


def test_head_to_head_says_who_finished_lower_how_often(client, thursday_table):
    html = client.get(url("table", thursday_table.edit_token)).content.decode()
    pairs = rows(html, "pairs-table")[1:]
    # Boris and Cyril: game 1 tied at 200; game 3, Cyril 50 below Boris 100.
    assert ["Boris 0 : 1 Cyril", "2", "1"] in [
        [cell.replace("\u2009", " ") for cell in row] for row in pairs
    ]
    assert len(pairs) == 6


def test_the_games_are_listed_newest_first_with_winner_and_a_link(client, thursday_table):
    shown = read(client.get(url("table", thursday_table.edit_token)))
    games = thursday_table.games.order_by("-created_at")
    links = [link.get("href") for link in shown.select("a.table-game-link")]
    assert links == [f"/g/{game.edit_token}/" for game in games]
    assert "Cyril won · 2 rounds" in shown.text and "Ana won · 1 round" in shown.text


def test_a_long_table_lists_its_latest_games_and_the_rest_on_demand(client):
    document = thursday()
    document["games"] = document["games"] * 4
    table = exchange.import_table(document)
    links = 'a.table-game-link[href^="/g/"]'
    shown = read(client.get(url("table", table.edit_token)))
    assert len(shown.select(links)) == 10
    show_all = shown.one("#games-played a.link-button")
    assert (show_all.text, show_all.get("href")) == ("Show all 12 games", "?games=all#played-title")
    shown = read(client.get(url("table", table.edit_token) + "?games=all"))
    assert len(shown.select(links)) == 12 and "Show all" not in shown.text


def test_the_chart_draws_each_members_wins_with_a_table_for_screen_readers(client, thursday_table):
    html = client.get(url("table", thursday_table.edit_token)).content.decode()
    shown = read(html)
    assert shown.one("svg title#wins-chart-title").text == "Wins so far after each finished game"
    assert "After 3 finished games: Ana 1, Boris 0, Cyril 1, Dana 1." in shown.text
    # Hidden in a box, so that the table cannot widen the page.
    assert shown.select("figure div.visually-hidden > table")
    assert rows(html, "pairs-table")  # the head to head is there too


def test_a_game_in_play_is_on_top_one_tap_away(client, friday_table):
    game = friday_table.new_game(list(friday_table.members.all())[:2])
    html = client.get(url("table", friday_table.edit_token)).content.decode()
    assert "Playing now" in html
    assert html.index(f'href="/g/{game.edit_token}/"') < html.index("New game")
    assert "No finished game yet." in html


# New games from the table


def test_a_new_game_seats_the_members_chosen_and_a_guest(client, friday_table):
    response = client.post(
        url("table", friday_table.edit_token), play(friday_table, "Ana", "Cyril", guest_0="Eva")
    )
    game = Game.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"/g/{game.edit_token}/"
    assert game.table == friday_table
    players = [(player.name, player.member and player.member.name) for player in game.players.all()]
    assert players == [("Ana", "Ana"), ("Cyril", "Cyril"), ("Eva", None)]
    assert friday_table.members.count() == 3


def test_a_new_member_joins_the_table_as_the_game_starts(client, friday_table):
    client.post(
        url("table", friday_table.edit_token),
        play(friday_table, "Boris", guest_0="Dana", join_0="on"),
    )
    assert list(members_of(friday_table)) == ["Ana", "Boris", "Cyril", "Dana"]
    dana = Game.objects.get().players.get(name="Dana")
    assert dana.member == members_of(friday_table)["Dana"]


def test_a_new_game_plays_by_the_tables_house_rules(client):
    table = exchange.import_table({**thursday(), "rules": {"joker": 50}})
    client.post(url("table", table.edit_token), play(table, "Ana", "Boris"))
    game = Game.objects.filter(table=table).order_by("-created_at").first()
    assert game.rules.joker == 50


def test_a_refused_new_game_keeps_the_toggles_and_names_and_says_why(client, friday_table):
    members = members_of(friday_table)
    response = client.post(url("table", friday_table.edit_token), play(friday_table, "Ana"))
    html = response.content.decode()
    assert response.status_code == 200 and not Game.objects.exists()
    shown = read(html)
    assert "A game has 2 to 6 players, not 1." in shown.text
    toggled = shown.select("input[name=play-members]:checked")
    assert [toggle.get("value") for toggle in toggled] == [str(members["Ana"].pk)]

    # A guest with a member's name is that member: toggled on too, they would sit twice.
    data = play(friday_table, "Ana", "Boris", guest_0="Eva", guest_3="boris")
    html = client.post(url("table", friday_table.edit_token), data).content.decode()
    shown = read(html)
    assert "Two players have this name: make them different." in shown.text
    assert shown.one("input[name=play-guest_0]").get("value") == "Eva"
    assert shown.one("input[name=play-guest_3]").get("value") == "boris"
    assert shown.one("details.more-players").get("open") is not None
    assert html.index('value="boris"') < html.index("Two players have this name")
    assert not Game.objects.exists()


# Members


def test_a_member_is_added_and_renamed_in_every_game(client, thursday_table):
    here = url("table", thursday_table.edit_token)
    response = client.post(here, {"action": "add_member", "add-name": "Eva"})
    assert response.status_code == 303 and response["Location"] == f"{here}#members"
    assert "Eva" in members_of(thursday_table)

    ana = members_of(thursday_table)["Ana"]
    response = client.post(
        here, {"action": "rename", "member": ana.pk, f"rename-{ana.pk}-name": "Anna"}
    )
    assert response.status_code == 303
    names = {player.name for game in thursday_table.games.all() for player in game.players.all()}
    assert "Anna" in names and "Ana" not in names
    html = client.get(here).content.decode()
    assert next(row[:4] for row in rows(html, "standings-table") if row[0] == "Anna") == [
        "Anna",
        "2",
        "1",
        "50%",
    ]


def test_a_refused_rename_keeps_the_name_typed_and_says_why(client, thursday_table):
    here = url("table", thursday_table.edit_token)
    ana = members_of(thursday_table)["Ana"]
    data = {"action": "rename", "member": ana.pk, f"rename-{ana.pk}-name": "BORIS"}
    html = client.post(here, data).content.decode()
    assert "Another member of this table, or a guest in one of its games, already has" in html
    assert 'value="BORIS"' in html and '<details class="rename" open>' in html
    assert "Ana" in members_of(thursday_table)

    html = client.post(here, {"action": "add_member", "add-name": "\u200b"}).content.decode()
    assert "A name needs at least one letter, digit or sign." in html


def test_a_member_of_another_table_or_an_unknown_action_is_refused(
    client, friday_table, thursday_table
):
    other = members_of(thursday_table)["Ana"]
    data = {"action": "rename", "member": other.pk, f"rename-{other.pk}-name": "X"}
    assert client.post(url("table", friday_table.edit_token), data).status_code == 404
    assert client.post(url("table", friday_table.edit_token), {"action": "drop"}).status_code == 400
    assert members_of(thursday_table)["Ana"].name == "Ana"


# The watch-only link


def every_edit_token(table: Table) -> list[str]:
    return [table.edit_token, *table.games.values_list("edit_token", flat=True)]


def test_the_watch_only_link_shows_the_same_and_no_edit_token(client, thursday_table):
    thursday_table.new_game(list(thursday_table.members.all())[:2])
    response = client.get(url("table_view", thursday_table.view_token))
    html = response.content.decode()
    assert response.status_code == 200
    for token in every_edit_token(thursday_table):
        assert token not in html
    for game in thursday_table.games.all():
        assert f'href="/v/{game.view_token}/"' in html
    assert rows(html, "standings-table") == rows(
        client.get(url("table", thursday_table.edit_token)).content.decode(), "standings-table"
    )
    assert "<form" not in html.split("</header>", 1)[1]
    assert "watch only" in html and f"/w/{thursday_table.view_token}/export.json" in html


def test_the_watch_only_link_changes_nothing(client, thursday_table):
    ana = members_of(thursday_table)["Ana"]
    here = url("table_view", thursday_table.view_token)
    for data in (
        play(thursday_table, "Ana", "Boris"),
        {"action": "rename", "member": ana.pk, f"rename-{ana.pk}-name": "Anna"},
        {"action": "add_member", "add-name": "Eva"},
    ):
        assert client.post(here, data).status_code == 405
    assert thursday_table.games.count() == 3
    assert list(members_of(thursday_table)) == ["Ana", "Boris", "Cyril", "Dana"]


def test_an_unknown_token_is_a_404(client, thursday_table):
    assert client.get(url("table", thursday_table.view_token)).status_code == 404
    assert client.get(url("table_view", thursday_table.edit_token)).status_code == 404
    assert client.get("/t/" + "x" * 32 + "/export.json").status_code == 404


def test_every_page_of_a_table_is_private_and_never_stored(client, thursday_table):
    game = thursday_table.games.first()
    for path in (
        url("keep_together", game.edit_token),
        url("table", thursday_table.edit_token),
        url("table_view", thursday_table.view_token),
        url("table_export_json", thursday_table.edit_token),
        url("table_view_export_json", thursday_table.view_token),
    ):
        cache_control = client.get(path)["Cache-Control"]
        assert "private" in cache_control and "no-store" in cache_control, path


def test_each_link_has_its_qr_code(client, thursday_table):
    host = {"HTTP_HOST": "rami.example"}
    edit = f"http://rami.example/t/{thursday_table.edit_token}/"
    view = f"http://rami.example/w/{thursday_table.view_token}/"
    html = client.get(url("table", thursday_table.edit_token), **host).content.decode()
    assert qr_codes(client, html, **host) == [edit, view]
    html = client.get(url("table_view", thursday_table.view_token), **host).content.decode()
    assert qr_codes(client, html, **host) == [view]


# The export


def streamed(response) -> str:
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def test_the_table_file_is_offered_as_rami_table_1(client, thursday_table):
    response = client.get(url("table_export_json", thursday_table.edit_token))
    assert response["Content-Type"] == "application/json"
    assert re.match(
        r'attachment; filename="rami-table-\d{4}-\d\d-\d\d\.json"', response["Content-Disposition"]
    )
    text = streamed(response)
    document = json.loads(text)
    assert document["format"] == "rami-table/1" and document["name"] == "Thursday cards"
    assert document["standings"]["Boris"]["average_total"] == 166.7
    watched = client.get(url("table_view_export_json", thursday_table.view_token))
    assert json.loads(streamed(watched)) == document
    for token in every_edit_token(thursday_table):
        assert token not in text


@pytest.mark.parametrize("games", [0, 1, 3, 40])
def test_the_streamed_file_is_the_export_as_dumps_writes_it_to_the_character(client, games):
    """Streamed game by game, the file still reads as one JSON document, export_table's."""
    table = big_table(games) if games != 3 else exchange.import_table(thursday())
    text = streamed(client.get(url("table_export_json", table.edit_token)))
    assert text == exchange.dumps(exchange.export_table(table))
    assert json.loads(text) == exchange.export_table(table)


def test_the_file_is_streamed_one_game_at_a_time(client):
    table = big_table(12)
    chunks = list(client.get(url("table_view_export_json", table.view_token)).streaming_content)
    # The head, each game, the standings and the closing brace.
    assert len(chunks) == 1 + 12 + 2
    assert all(len(chunk) < 8000 for chunk in chunks)


# Keeping a finished game's group together


def finished_on_the_page(client) -> Game:
    game = Game.start(["Ana", "Boris"])
    client.post(url("game", game.edit_token), round_post(0, hands={1: 100}))
    game.refresh_from_db()
    assert game.status == "finished"
    return game


def test_a_finished_game_offers_to_keep_its_group_together(client):
    game = finished_on_the_page(client)
    html = client.get(url("game", game.edit_token)).content.decode()
    assert f'action="/g/{game.edit_token}/keep/"' in html
    response = client.post(url("keep_together", game.edit_token), {"name": "Sunday"})
    table = Table.objects.get()
    assert response.status_code == 303 and response["Location"] == f"/t/{table.edit_token}/"
    assert (table.name, list(members_of(table))) == ("Sunday", ["Ana", "Boris"])
    game.refresh_from_db()
    assert game.table == table
    # The game's page now leads back to its table, and a second tap changes nothing.
    html = client.get(url("game", game.edit_token)).content.decode()
    assert "/keep/" not in html and f'href="/t/{table.edit_token}/"' in html
    client.post(url("keep_together", game.edit_token), {"name": "Again"})
    assert Table.objects.count() == 1


def test_keeping_a_game_keeps_its_rematches_and_the_games_it_was_a_rematch_of(client):
    """The evening's games stay together whichever of them the group keeps, even after a
    rematch made on another phone."""
    first = finished_on_the_page(client)
    client.post(url("game", first.edit_token), {"action": "rematch"})
    second = Game.objects.exclude(pk=first.pk).get()
    # The first game's page still offers to keep the group together after the rematch.
    html = client.get(url("game", first.edit_token)).content.decode()
    assert "The game is over, and the next one has begun." in html
    assert f'action="/g/{first.edit_token}/keep/"' in html
    client.post(url("game", second.edit_token), round_post(0, hands={1: 200}))
    client.post(url("game", second.edit_token), {"action": "rematch"})
    third = Game.objects.exclude(pk__in=[first.pk, second.pk]).get()

    client.post(url("keep_together", second.edit_token), {"name": "Friday"})
    table = Table.objects.get()
    assert set(table.games.values_list("pk", flat=True)) == {first.pk, second.pk, third.pk}
    assert all(player.member for game in table.games.all() for player in game.players.all())


def test_a_kept_game_without_a_name_is_named_after_its_players(client):
    game = finished_on_the_page(client)
    client.post(url("keep_together", game.edit_token), {"name": "  "})
    assert Table.objects.get().name == "Ana, Boris"


def test_a_refused_table_name_keeps_what_was_typed(client):
    game = finished_on_the_page(client)
    response = client.post(url("keep_together", game.edit_token), {"name": "x" * 61})
    html = response.content.decode()
    assert response.status_code == 200 and not Table.objects.exists()
    assert "A name has at most 60 characters." in html and f'value="{"x" * 61}"' in html


def test_a_rematch_of_a_tables_game_stays_at_the_table(client, friday_table):
    members = members_of(friday_table)
    client.post(
        url("table", friday_table.edit_token), play(friday_table, "Ana", "Boris", guest_0="Eva")
    )
    game = Game.objects.get()
    client.post(url("game", game.edit_token), round_post(0, hands={1: 200, 2: 200}))
    response = client.post(url("game", game.edit_token), {"action": "rematch"})
    rematch = Game.objects.exclude(pk=game.pk).get()
    assert response["Location"] == f"/g/{rematch.edit_token}/"
    assert rematch.table == friday_table
    assert [player.member for player in rematch.seated_players] == [
        members["Ana"],
        members["Boris"],
        None,
    ]


def test_a_game_in_play_at_a_table_links_back_to_it_by_the_link_it_was_opened_by(
    client, friday_table
):
    client.post(url("table", friday_table.edit_token), play(friday_table, "Ana", "Boris"))
    game = Game.objects.get()
    played = read(client.get(url("game", game.edit_token)))
    assert played.one(".history-link a:last-child").get("href") == f"/t/{friday_table.edit_token}/"
    watched = client.get(url("view", game.view_token))
    assert read(watched).one(".history-link a").get("href") == f"/w/{friday_table.view_token}/"
    assert friday_table.edit_token not in watched.content.decode()


# Recent tables on the start page


def test_tables_opened_are_listed_on_the_start_page_and_can_be_removed(client, thursday_table):
    other = Table.start("Sunday", ["Eva", "Filip"])
    client.get(url("table", thursday_table.edit_token))
    client.get(url("table_view", other.view_token))
    html = client.get("/").content.decode()
    shown = read(html).text
    assert "Your tables" in shown
    assert html.index(f"/w/{other.view_token}/") < html.index(f"/t/{thursday_table.edit_token}/")
    assert "4 members · 3 games" in shown and "2 members · 0 games · watch only" in shown
    assert other.edit_token not in html

    response = client.post("/", {"action": "forget", "token": other.view_token})
    assert response.status_code == 303
    html = client.get("/").content.decode()
    assert other.view_token not in html and thursday_table.edit_token in html


def test_an_edit_link_is_kept_over_a_watch_only_link(client, thursday_table):
    client.get(url("table", thursday_table.edit_token))
    client.get(url("table_view", thursday_table.view_token))
    html = client.get("/").content.decode()
    assert f"/t/{thursday_table.edit_token}/" in html
    assert thursday_table.view_token not in html and "watch only" not in html


# Views stay cheap


def test_the_table_page_makes_the_same_queries_for_3_games_and_for_200(client):
    small, large = big_table(3), big_table(200)
    for page in ("/t/{0.edit_token}/", "/w/{0.view_token}/"):
        counts = []
        for table in (small, large):
            with CaptureQueriesContext(connection) as captured:
                assert client.get(page.format(table)).status_code == 200
            counts.append(len(captured))
        assert counts[0] == counts[1] <= 12, (page, counts)


def test_the_page_of_a_table_of_200_games_takes_5_queries_and_shows_every_number(
    client, django_assert_max_num_queries
):
    """The table with its members, its players' totals, its members' rounds, its games and its
    history: the members and the totals read once for the standings, the games and the head
    to head, the page's version read with them."""
    table = big_table(200)
    standings = tables.standings(table)
    pairs = tables.head_to_head(table)
    finished = [game for game in tables.results(table) if game.finished]
    newest = finished[-1]
    pages = (
        (url("table", table.edit_token), url("game", newest.edit_token)),
        (url("table_view", table.view_token), url("view", newest.view_token)),
    )
    for page, newest_link in pages:
        # Four for the numbers (the version with them) and one for the table's history.
        with django_assert_max_num_queries(5):
            html = client.get(page).content.decode()
        shown = [row[:4] for row in rows(html, "standings-table")[1:]]
        assert shown == [
            [
                f"{standing.rank}. {standing.name}",
                f"{standing.games} +{standing.playing} playing"
                if standing.playing
                else f"{standing.games}",
                str(standing.wins),
                f"{standing.win_rate:.0%}",
            ]
            for standing in standings
        ]
        assert [row[1] for row in rows(html, "pairs-table")[1:]] == [
            str(pair.games) for pair in pairs
        ]
        assert f"Show all {len(finished)} games" in html
        assert f'href="{newest_link}"' in html


def test_a_tables_dates_are_written_as_a_games_history_writes_them(client, thursday_table):
    # The date part of the history's times (test_views_history), in each language: the phone
    # then writes both in its own words and time zone (rami.js, time.local-date).
    expected = {
        "en": "Nov. 19, 2026",
        "cs": "19. listopadu 2026",
        "sv": "19 november 2026",
        "bg": "19.11.2026 г.",
        "id": "19 November 2026",
    }
    for language, date in expected.items():
        shown = read(
            client.get(
                url("table", thursday_table.edit_token), headers={"accept-language": language}
            )
        )
        assert shown.texts(".table-games time.local-date")[0] == date, language


def test_a_bulgarian_date_reads_alike_in_the_tables_list_and_the_games_history(
    client, thursday_table
):
    # The phone writes both again in its own time zone as Intl does (rami.js: the "medium" date
    # and the "short" time, the day and the hour without a leading zero), and the server writes
    # them so too: a page read before the script, or without it, says 2.12.2026 as well, never
    # 02.12.2026.
    when = datetime(2026, 12, 2, 9, 5, tzinfo=UTC)
    game = thursday_table.games.order_by("-created_at", "-pk").first()
    Game.objects.filter(pk=game.pk).update(created_at=when)
    game.events.update(created_at=when)
    headers = {"accept-language": "bg"}
    listed = read(client.get(url("table", thursday_table.edit_token), headers=headers))
    assert "2.12.2026 г." in listed.texts(".table-games time.local-date")
    history = read(client.get(url("history", game.edit_token), headers=headers))
    assert set(history.texts("time.local-time")) == {"2.12.2026 г., 9:05"}
