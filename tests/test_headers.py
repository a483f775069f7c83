"""Every page and export reached by a game's token is `Cache-Control: private, no-store`: the
token is the key to the game, and no shared or browser cache may keep what it opens."""

import pytest
from django.test import Client
from django.urls import get_resolver

from tests.links import url

pytestmark = pytest.mark.django_db

NO_STORE = "private, no-store"
NEVER_CACHE = "max-age=0, no-cache, no-store, must-revalidate, private"


def token_url_names() -> set[str]:
    return {
        pattern.name
        for pattern in get_resolver().url_patterns[0].url_patterns
        if "token" in pattern.pattern.regex.groupindex
    }


def test_the_token_urls_are_the_ones_checked_here():
    assert token_url_names() == {
        "game",
        "round",
        "poll",
        "view",
        "view_poll",
        "all_rounds",
        "view_all_rounds",
        "extras",
        "view_extras",
        "fix",
        # The changes of a game, each its own address.
        "save",
        "preview",
        "correct",
        "replace",
        "delete",
        "undo",
        "rematch",
        "restore",
        "go_back",
        "names",
        "seats",
        "leave",
        "join",
        "player_comes_back",
        "export_json",
        "export_csv",
        "view_export_csv",
        "view_export_json",
        "history",
        "players",
        "game_rules",
        "view_rules",
        # A table's (tests/test_table_views.py checks that they are not stored either).
        "table",
        "table_export_json",
        "table_view",
        "table_view_export_json",
        "keep_together",
        "play",
        "add_member",
        "rename_member",
        "retire",
        "come_back",
        "remove_member",
        # tests/test_table_rules.py checks it.
        "table_rules",
        # Each link's QR code, kept by the browser alone (tests/test_sharing.py).
        "game_qr",
        "view_qr",
        "table_qr",
        "table_view_qr",
    }


@pytest.mark.parametrize(
    "path",
    [
        "/g/{edit}/",
        "/g/{edit}/rounds/1/",
        "/g/{edit}/history/",
        "/g/{edit}/players/",
        "/g/{edit}/rules/",
        "/v/{view}/rules/",
        "/g/{edit}/export.json",
        "/g/{edit}/export.csv",
        "/v/{view}/",
        "/v/{view}/export.csv",
        "/v/{view}/export.json",
    ],
)
def test_pages_and_exports_reached_by_a_token_are_not_stored(client, every_kind_game, path):
    address = path.format(edit=every_kind_game.edit_token, view=every_kind_game.view_token)
    response = client.get(address)
    assert response.status_code == 200
    assert response["Cache-Control"] == NO_STORE


@pytest.mark.parametrize("path", ["/g/{edit}/poll?v=0", "/v/{view}/poll?v=0"])
def test_polls_keep_their_own_never_cache(client, every_kind_game, path):
    address = path.format(edit=every_kind_game.edit_token, view=every_kind_game.view_token)
    response = client.get(address)
    assert response.status_code == 200
    assert response["Cache-Control"] == NEVER_CACHE


def test_a_saved_round_and_an_unknown_token_are_not_stored_either(client, four_players):
    saved = client.post(
        url("game", four_players.edit_token), {"action": "save", "winner": "0", **HANDS}
    )
    assert saved.status_code == 303
    assert saved["Cache-Control"] == NO_STORE
    unknown = client.get(url("view", four_players.edit_token))
    assert unknown.status_code == 404
    assert unknown["Cache-Control"] == NO_STORE


HANDS = {"value_1": "3", "value_2": "4", "value_3": "5"}


@pytest.mark.parametrize(
    "path",
    [
        "/t/{edit}/",
        "/w/{view}/",
        "/t/{edit}/export.json",
        "/w/{view}/export.json",
        "/t/{edit}/?games=all",
    ],
)
def test_a_tables_pages_and_exports_are_not_stored(client, thursday_table, path):
    address = path.format(edit=thursday_table.edit_token, view=thursday_table.view_token)
    response = client.get(address)
    assert response.status_code == 200
    assert response["Cache-Control"] == NO_STORE


def test_the_start_page_lists_this_browsers_edit_links_and_is_not_stored(
    client, four_players, thursday_table
):
    client.get(url("game", four_players.edit_token))
    client.get(url("table", thursday_table.edit_token))
    response = client.get("/")
    page = response.content.decode()
    assert f"/g/{four_players.edit_token}/" in page
    assert f"/t/{thursday_table.edit_token}/" in page
    assert response["Cache-Control"] == NO_STORE
    # Before any game too: the same address, whatever it lists.
    assert Client().get("/")["Cache-Control"] == NO_STORE


def test_the_start_page_sent_back_with_a_mistake_is_not_stored_either(client):
    response = client.post("/", {"name_1": "Ana"})
    assert response.status_code == 200
    assert response["Cache-Control"] == NO_STORE


@pytest.mark.parametrize("path", ["/rules/", "/t/new/"])
def test_pages_that_show_no_token_are_left_alone(client, path):
    assert "no-store" not in client.get(path).get("Cache-Control", "")


def test_the_manifest_keeps_its_hour(client):
    assert client.get("/manifest.webmanifest")["Cache-Control"] == "max-age=3600"
