"""Renaming a player during a game: the page /g/<edit-token>/players/, Game.rename_players, the
history that keeps every old round as it was, and the exchange document after a rename."""

import pytest

from scoring.board import history
from scoring.files import exchange
from scoring.models import Game, GameEvent, Table
from scoring.rules import Hand, RoundEntry, RulesError
from tests.conftest import delete_post, edit_post, history_change, round_post
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def shown(game: Game) -> dict:
    """The players page's form as a phone sends it back untouched: each name as shown."""
    names = Game.objects.get(pk=game.pk).names
    return {
        **{f"name_{seat}": name for seat, name in enumerate(names)},
        **{f"seen_{seat}": name for seat, name in enumerate(names)},
    }


def names_now(game: Game) -> list[str]:
    return Game.objects.get(pk=game.pk).names


def points_in(answer, heading: str) -> list[tuple[str, str]]:
    """(name, points) of each row of the round under a history heading."""
    rows = history_change(answer, heading).select("tbody tr")
    return [(row.one('th[scope="row"]').text, row.one("td.points").text) for row in rows]


@pytest.fixture
def two_rounds(client) -> Game:
    """Ana, Boris, Cyril: two rounds played through the game page."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    client.post(url("game", game.edit_token), round_post(0, {1: "AH JK 5C", 2: 12}))
    client.post(url("game", game.edit_token), round_post(1, {0: 9, 2: (20, "not opened")}))
    return game


# The page


def test_the_page_shows_each_name_in_a_field_prefilled(client, two_rounds):
    response = client.get(url("players", two_rounds.edit_token))
    html = response.content.decode()
    assert response.status_code == 200
    for seat, name in enumerate(["Ana", "Boris", "Cyril"]):
        assert f'name="name_{seat}" value="{name}"' in html
        assert f'type="hidden" name="seen_{seat}" value="{name}"' in html
    assert f'action="/g/{two_rounds.edit_token}/players/names/"' in html
    assert f'href="/g/{two_rounds.edit_token}/"' in html
    assert read(html).one("h1#players-title").text == "Names, seats and dealer"


def test_the_game_page_links_to_the_page_and_the_view_page_does_not(client, two_rounds):
    assert (
        f'href="/g/{two_rounds.edit_token}/players/"'
        in client.get(url("game", two_rounds.edit_token)).content.decode()
    )
    watched = client.get(url("view", two_rounds.view_token)).content.decode()
    assert "/players/" not in watched and two_rounds.edit_token not in watched


def test_renaming_without_javascript_goes_back_to_the_game_with_the_new_name(client, two_rounds):
    response = client.post(
        url("players", two_rounds.edit_token), {**shown(two_rounds), "name_0": "  Anna "}
    )
    assert response.status_code == 303
    assert response["Location"] == f"/g/{two_rounds.edit_token}/"
    html = client.get(response["Location"]).content.decode()
    assert "<bdi>Anna</bdi>" in html and "<bdi>Ana</bdi>" not in html
    assert names_now(two_rounds) == ["Anna", "Boris", "Cyril"]


def test_renaming_with_htmx_sends_the_browser_to_the_game(client, two_rounds):
    response = client.post(
        url("players", two_rounds.edit_token),
        {**shown(two_rounds), "name_2": "Cyrille"},
        headers=HTMX,
    )
    assert response["HX-Redirect"] == f"/g/{two_rounds.edit_token}/"
    assert names_now(two_rounds) == ["Ana", "Boris", "Cyrille"]


def test_a_post_of_one_name_renames_that_player_only(client, two_rounds):
    assert client.post(url("players", two_rounds.edit_token), {"name_1": "Bob"}).status_code == 303
    assert names_now(two_rounds) == ["Ana", "Bob", "Cyril"]


def test_the_view_link_cannot_rename(client, two_rounds):
    assert client.get(f"/v/{two_rounds.view_token}/players/").status_code == 404
    assert client.post(f"/v/{two_rounds.view_token}/players/", {"name_0": "X"}).status_code == 404
    assert client.post(url("players", two_rounds.view_token), {"name_0": "X"}).status_code == 404
    assert client.put(url("players", two_rounds.edit_token)).status_code == 405
    assert names_now(two_rounds) == ["Ana", "Boris", "Cyril"]


def test_every_phone_redraws_with_the_new_name(client, two_rounds):
    before = Game.current_version("edit_token", two_rounds.edit_token)
    poll = url("view_poll", two_rounds.view_token) + f"?v={before}"
    assert client.get(poll).status_code == 204
    client.post(url("players", two_rounds.edit_token), {**shown(two_rounds), "name_1": "Bob"})
    after = Game.current_version("edit_token", two_rounds.edit_token)
    assert after > before
    for path in (poll, url("poll", two_rounds.edit_token) + f"?v={before}"):
        response = client.get(path)
        assert response.status_code == 200
        assert "<bdi>Bob</bdi>" in response.content.decode()


def test_a_form_sent_twice_renames_once_and_a_form_left_as_it_was_changes_nothing(
    client, two_rounds
):
    post = {**shown(two_rounds), "name_0": "Anna"}
    client.post(url("players", two_rounds.edit_token), post)
    version = Game.current_version("edit_token", two_rounds.edit_token)
    assert client.post(url("players", two_rounds.edit_token), post).status_code == 303
    assert client.post(url("players", two_rounds.edit_token), shown(two_rounds)).status_code == 303
    assert Game.current_version("edit_token", two_rounds.edit_token) == version
    assert two_rounds.events.filter(kind=GameEvent.Kind.RENAMED).count() == 1


# Names refused, everything typed kept


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("Boris", "Two players have this name: make them different."),
        ("BORIS ", "Two players have this name: make them different."),
        ("Bo\u200bris", "Two players have this name: make them different."),
        ("", "Enter a name."),
        ("   ", "Enter a name."),
        ("\u00ad\u200b", "A name needs at least one letter, digit or sign."),
        ("A" * 31, "A name has at most 30 characters."),
    ],
)
def test_a_name_refused_says_why_and_keeps_what_was_typed(client, two_rounds, typed, message):
    version = Game.current_version("edit_token", two_rounds.edit_token)
    response = client.post(
        url("players", two_rounds.edit_token),
        {**shown(two_rounds), "name_0": typed, "name_2": "Cyrille"},
    )
    html = response.content.decode()
    form = read(html)
    assert response.status_code == 200
    assert message in form.text
    # Next to the first field, which is the one refused.
    assert html.index('name="name_0"') < html.index("field-error") < html.index('name="name_1"')
    if typed.strip():
        assert form.one("input[name=name_0]").get("value") == typed
    assert form.one("input[name=name_2]").get("value") == "Cyrille"
    assert names_now(two_rounds) == ["Ana", "Boris", "Cyril"]
    assert Game.current_version("edit_token", two_rounds.edit_token) == version


def test_a_name_written_another_way_in_unicode_is_the_same_name(client):
    game = Game.start(["Jos\u00e9", "Ana"])
    response = client.post(url("players", game.edit_token), {**shown(game), "name_1": "Jose\u0301"})
    assert "Two players have this name" in response.content.decode()
    assert names_now(game) == ["Jos\u00e9", "Ana"]


def test_a_player_may_change_only_the_case_of_a_name_and_two_may_swap(client, two_rounds):
    client.post(url("players", two_rounds.edit_token), {**shown(two_rounds), "name_0": "ANA"})
    assert names_now(two_rounds) == ["ANA", "Boris", "Cyril"]
    client.post(
        url("players", two_rounds.edit_token),
        {**shown(two_rounds), "name_0": "Boris", "name_1": "ANA"},
    )
    assert names_now(two_rounds) == ["Boris", "ANA", "Cyril"]


def test_a_name_renamed_on_another_phone_meanwhile_is_not_renamed_back(client, two_rounds):
    """This phone opened the page when the names were Ana, Boris, Cyril."""
    opened = shown(two_rounds)
    two_rounds.rename_player(0, "Annie")  # another phone
    response = client.post(url("players", two_rounds.edit_token), {**opened, "name_0": "Anna"})
    form = read(response)
    assert response.status_code == 409
    assert (
        "This player was renamed Annie on another phone meanwhile, so nothing was changed. "
        "Save again to use the name typed here." in form.text
    )
    assert form.one("input[name=name_0]").get("value") == "Anna"
    assert names_now(two_rounds) == ["Annie", "Boris", "Cyril"]
    # The form now knows the other phone's name: saving again renames knowingly.
    assert form.one("input[name=seen_0]").get("value") == "Annie"
    client.post(
        url("players", two_rounds.edit_token), {**opened, "seen_0": "Annie", "name_0": "Anna"}
    )
    assert names_now(two_rounds) == ["Anna", "Boris", "Cyril"]


def test_a_name_left_as_shown_keeps_another_phones_rename(client, two_rounds):
    opened = shown(two_rounds)
    two_rounds.rename_player(1, "Bob")  # another phone
    assert (
        client.post(url("players", two_rounds.edit_token), {**opened, "name_0": "Anna"}).status_code
        == 303
    )
    assert names_now(two_rounds) == ["Anna", "Bob", "Cyril"]


# The model


def test_rename_player_logs_the_change_and_moves_the_version(two_rounds):
    version = Game.objects.get(pk=two_rounds.pk).version
    assert two_rounds.rename_player(2, "Cyrille") is True
    event = two_rounds.events.first()
    assert event.kind == GameEvent.Kind.RENAMED
    assert (event.before, event.after) == (
        {"seat": 2, "name": "Cyril"},
        {"seat": 2, "name": "Cyrille"},
    )
    assert event.version == two_rounds.version > version
    assert two_rounds.names == ["Ana", "Boris", "Cyrille"]
    assert two_rounds.rename_player(2, "Cyrille") is False
    with pytest.raises(RulesError) as refused:
        two_rounds.rename_player(0, "cyrille")
    assert (refused.value.code, refused.value.player) == ("name_duplicate", 0)


def test_a_change_made_by_a_phone_that_read_the_old_names_names_the_players_anew(two_rounds):
    """A round saved from a page read before a rename still writes today's names."""
    phone = Game.with_players(edit_token=two_rounds.edit_token)
    Game.with_players(edit_token=two_rounds.edit_token).rename_player(0, "Anna")
    entry = RoundEntry(hands=(Hand(value=3), Hand(), Hand(value=4)), winner=1)
    phone.record_round(entry)
    assert phone.names == ["Anna", "Boris", "Cyril"]
    assert set(two_rounds.events.first().after["hands"]) == {"Anna", "Cyril"}


# The history


def test_the_history_shows_the_rename_and_every_old_round_as_it_was(client, two_rounds):
    client.post(
        url("players", two_rounds.edit_token),
        {**shown(two_rounds), "name_0": "Anna", "name_2": "Cyrille"},
    )
    client.post(url("game", two_rounds.edit_token), round_post(2, {0: 5, 1: 6}))
    html = read(client.get(url("history", two_rounds.edit_token)))
    assert html.texts("li.change h2") == [
        "Round 3 saved",
        "Cyril is now called Cyrille",
        "Ana is now called Anna",
        "Round 2 saved",
        "Round 1 saved",
    ]
    # A rename says when, as a round does.
    assert history_change(html, "Cyril is now called Cyrille").one(".change-head time.local-time")
    assert points_in(html, "Round 1 saved") == [
        ("Ana", "0"),
        ("Boris", "36"),
        ("Cyril", "12"),
    ]
    assert points_in(html, "Round 2 saved") == [
        ("Ana", "9"),
        ("Boris", "0"),
        ("Cyril", "45"),
    ]
    assert points_in(html, "Round 3 saved") == [
        ("Anna", "5"),
        ("Boris", "6"),
        ("Cyrille", "0"),
    ]


def test_the_history_reads_each_round_with_the_names_of_its_time_across_a_swap(two_rounds):
    two_rounds.rename_players({0: "Boris", 1: "Ana"})
    two_rounds.edit_round(
        two_rounds.rounds.get(number=1),
        RoundEntry(hands=(Hand(value=2), Hand(), Hand(value=3)), winner=1),
    )
    changes = {change.event.kind: change for change in history.changes(two_rounds)}
    edited = changes[GameEvent.Kind.EDITED]
    # Edited after the swap: before, seat 0 (now "Boris") went out; after, seat 1 did.
    assert [(hand.name, hand.points) for hand in edited.before.hands] == [
        ("Boris", 0),
        ("Ana", 36),
        ("Cyril", 12),
    ]
    assert [(hand.name, hand.points) for hand in edited.after.hands] == [
        ("Boris", 2),
        ("Ana", 0),
        ("Cyril", 3),
    ]
    added = [change for change in history.changes(two_rounds) if change.event.number == 1][-1]
    assert [(hand.name, hand.points) for hand in added.after.hands] == [
        ("Ana", 0),
        ("Boris", 36),
        ("Cyril", 12),
    ]


def test_a_round_deleted_before_a_rename_comes_back_to_the_same_player(client, two_rounds):
    client.post(url("game", two_rounds.edit_token), delete_post(two_rounds, 1))
    client.post(url("players", two_rounds.edit_token), {**shown(two_rounds), "name_1": "Bob"})
    deletion = two_rounds.events.get(kind=GameEvent.Kind.DELETED)
    response = client.post(
        url("history", two_rounds.edit_token), {"action": "restore", "event": str(deletion.pk)}
    )
    assert response.status_code == 303
    assert two_rounds.totals() == [0 + 9, 36 + 0, 12 + 45]
    restored = two_rounds.events.get(kind=GameEvent.Kind.RESTORED)
    assert set(restored.after["hands"]) == {"Bob", "Cyril"}
    html = read(client.get(url("history", two_rounds.edit_token)))
    assert points_in(html, "Round 1 restored") == [
        ("Ana", "0"),
        ("Bob", "36"),
        ("Cyril", "12"),
    ]
    assert points_in(html, "Round 1 deleted") == [
        ("Ana", "0"),
        ("Boris", "36"),
        ("Cyril", "12"),
    ]


def test_an_old_round_edited_after_a_rename_shows_both_sides(client, two_rounds):
    client.post(url("players", two_rounds.edit_token), {**shown(two_rounds), "name_1": "Bob"})
    client.post(
        url("round", two_rounds.edit_token, number=1), edit_post(two_rounds, 1, 0, {1: 10, 2: 12})
    )
    html = read(client.get(url("history", two_rounds.edit_token)))
    assert points_in(html, "Round 1 edited") == [
        ("Ana", "0"),
        ("Bob", "36"),
        ("Cyril", "12"),
        ("Ana", "0"),
        ("Bob", "10"),
        ("Cyril", "12"),
    ]


# The exchange document


def test_export_and_import_after_a_rename_give_the_same_totals(client, every_kind_game):
    before = exchange.export_game(every_kind_game)
    client.post(
        url("players", every_kind_game.edit_token), {**shown(every_kind_game), "name_3": "Daniela"}
    )
    document = client.get(url("export_json", every_kind_game.edit_token)).json()
    assert document["players"] == ["Ana", "Boris", "Cyril", "Daniela"]
    assert list(document["totals"].values()) == list(before["totals"].values())
    assert document["totals"]["Daniela"] == before["totals"]["Dana"]
    assert document["status"] == "finished" and document["winner"] == "Ana"
    assert "Dana" not in str(document["rounds"])

    again = exchange.import_game(document)
    assert again.names == ["Ana", "Boris", "Cyril", "Daniela"]
    assert again.totals() == every_kind_game.totals()
    assert exchange.export_game(again) == document


def test_at_a_table_a_members_new_name_is_the_members_in_every_game(client):
    """Renamed on one game's players page, a member keeps one name: the table's, and the
    player's in every other game of the table; a guest is renamed in this game only."""
    table = Table.start("Thursday", ["Ana", "Boris", "Cyril"])
    ana, boris, cyril = table.members.order_by("position")
    first = table.new_game([ana, boris, cyril])
    second = table.new_game([ana, boris, "Gus"])
    data = {**shown(second), "name_0": "Anna", "name_2": "Gustav"}
    assert client.post(url("players", second.edit_token), data).status_code == 303
    ana.refresh_from_db()
    assert ana.name == "Anna"
    assert Game.objects.get(pk=first.pk).names == ["Anna", "Boris", "Cyril"]
    assert Game.objects.get(pk=second.pk).names == ["Anna", "Boris", "Gustav"]
    assert table.members.filter(name="Gustav").count() == 0

    # A name another member has is refused, and nothing is renamed.
    data = {**shown(second), "name_0": "Cyril"}
    response = client.post(url("players", second.edit_token), data)
    assert response.status_code == 200
    assert Game.objects.get(pk=second.pk).names == ["Anna", "Boris", "Gustav"]
    ana.refresh_from_db()
    assert ana.name == "Anna"
