"""The game page at the table: the latest rounds first with the older folded, the
saved round confirmed with its Undo, every error at once with the other players' points kept,
a never-opened hand's points explained, a round entered on two phones saved once, and a live
update that sends only what changed. Entry mistakes: a card the deck cannot hold is
said next to the player holding it, as it is tapped and on the first save, with the others."""

import gzip

import pytest

from scoring.board.scoreboard import Scoreboard
from scoring.files.exchange import import_game
from scoring.models import Game, GameEvent
from scoring.rules import Rules
from scripts.long_games import long_game_document
from tests.conftest import delete_post, edit_post, round_post, round_rows
from tests.links import url
from tests.pages import Element, read

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
KB = 1024


def long_game(rounds: int, players: int = 6, seed: int = 1) -> Game:
    """A game of up to six 30-character names with real-looking hands (scripts/long_games.py)."""
    document = long_game_document(rounds, players, seed, hand_sizes=(1, 1, 2, 2, 3))
    return import_game(document)


def round_numbers(html: str) -> list[int]:
    """The numbers of the round table's rows, top to bottom."""
    return [int(number) for number in read(html).texts("tr[id^=round-] .round-number")]


def test_the_page_of_80_rounds_and_six_long_names_shows_the_latest_first_in_120_kb(client):
    game = long_game(80)
    response = client.get(url("game", game.edit_token))
    html = response.content.decode()
    assert len(response.content) <= 120 * KB, len(response.content)
    assert round_numbers(html) == list(range(80, 80 - Scoreboard.SHOWN_ROUNDS, -1))
    assert read(html).one("#more-rounds a").text == "Show all 80 rounds"
    # The board comes first, then the entry, then the rounds.
    assert html.index('id="totals"') < html.index('id="round-form"') < html.index('id="rounds"')

    everything = client.get(url("game", game.edit_token) + "?rounds=all").content.decode()
    assert round_numbers(everything) == list(range(80, 0, -1))
    assert "Show all" not in read(everything).text
    # With htmx, "Show all" brings the round table alone.
    part = client.get(url("game", game.edit_token) + "?rounds=all", headers=HTMX).content.decode()
    assert part.lstrip().startswith('<div class="rounds" id="rounds">')
    assert round_numbers(part) == list(range(80, 0, -1))


def test_the_watch_only_page_folds_the_same_way_and_links_to_itself(client):
    game = long_game(12, players=4)
    html = client.get(url("view", game.view_token)).content.decode()
    assert round_numbers(html) == list(range(12, 4, -1))
    assert read(html).one("#more-rounds a").get("href") == f"/v/{game.view_token}/rounds/#rounds"
    assert game.edit_token not in html
    assert 'id="round-form"' not in html


def test_a_save_with_htmx_shows_the_round_its_points_and_an_undo_that_takes_it_back(
    client, four_players
):
    page = url("game", four_players.edit_token)
    response = client.post(page, round_post(0, {1: "AH JK 5C", 2: 10, 3: 4}), headers=HTMX)
    html = response.content.decode()
    banner = read(html).one(".banner.saved")
    assert "Round 1 saved." in banner.text
    # The round's points stand in each player's row, under the new total; the banner comes
    # first, so that both are in view after the save.
    assert read(html).texts(".last") == [f"Round 1: +{points}" for points in (0, 36, 10, 4)]
    assert html.index("banner saved") < html.index('id="standing-0"')
    round_ = four_players.rounds.get()
    # The Undo of a save is a link that takes the round back into the form; a link, since it
    # changes nothing by itself.
    undo = banner.one("a")
    assert undo.text == "Undo"
    assert undo.get("href") == f"{page}fix/{round_.pk}/?number=1&revision=1#round-entry"


def test_undo_after_a_save_puts_the_round_back_into_the_form_to_be_put_right(client, four_players):
    page = url("game", four_players.edit_token)
    client.post(page, round_post(0, {1: 12, 2: 10, 3: 4}))
    client.post(page, round_post(1, {0: "AH JK", 2: (20, "no"), 3: 4}), headers=HTMX)
    round_ = four_players.rounds.get(number=2)
    fix = f"{page}?fix={round_.pk}&number=2&revision=1"
    html = client.get(fix, headers=HTMX).content.decode()
    shown = read(html)
    # Nothing has changed yet: the round still counts.
    assert four_players.rounds.count() == 2
    assert "Round 2, back in the form" in shown.text
    # The round as it was typed is in the form again, its points shown ...
    assert shown.one("#id_winner_1").checked
    assert shown.one("#id_cards_0").get("value") == "AH JK"
    assert shown.one("#id_value_2").get("value") == "20"
    assert shown.one("#id_not_opened_2").checked
    assert f'<input type="hidden" name="round" value="{round_.pk}"' in html
    assert shown.one("#points-2").text == "45"
    # ... a live update leaves it alone (the page says it is being typed) ...
    assert '<input type="hidden" id="typing" name="typing" value="1">' in html
    # ... and it is saved as a correction of round 2, or deleted, or kept.
    assert 'value="correct"' in html and "Delete round 2" in html and "Keep it as saved" in html

    data = round_post(1, {0: "AH JK", 2: 20, 3: 4}, action="correct")
    data.update(round=str(round_.pk), revision="1", for_round="2")
    answer = read(client.post(page, data, headers=HTMX))
    assert "Round 2 saved with your changes." in answer.text
    round_.refresh_from_db()
    assert (round_.number, round_.revision) == (2, 2)
    assert four_players.rounds.count() == 2
    assert four_players.events.first().kind == GameEvent.Kind.CORRECTED

    # Without JavaScript too: the same link, a full page.
    response = client.get(f"{page}?fix={round_.pk}&number=2&revision=2")
    assert response.status_code == 200
    assert "Round 2, back in the form" in read(response).text


def test_the_second_phone_of_the_same_round_is_told_it_was_saved_there(client, four_players):
    page = url("game", four_players.edit_token)
    client.post(page, round_post(0, {1: 5, 2: 6, 3: 7}, for_round="1", key="a"))
    again = client.post(
        page, round_post(0, {1: 5, 2: 6, 3: 7}, for_round="1", key="b"), headers=HTMX
    )
    banner = read(again).one(".banner.saved").text
    assert "Round 1 was saved on another phone, just as you typed it." in banner
    assert "Undo" not in banner  # one Undo, on the phone that saved it


def test_a_save_without_javascript_lands_on_the_page_that_confirms_it(client, four_players):
    page = url("game", four_players.edit_token)
    response = client.post(page, round_post(1, {0: 12, 2: 7, 3: 9}))
    assert response.status_code == 303
    round_ = four_players.rounds.get()
    assert response["Location"] == f"{page}?saved={round_.pk}"
    assert "Round 1 saved." in read(client.get(response["Location"])).text
    # Once another round follows, the old link no longer claims the latest save.
    client.post(page, round_post(2, {0: 3, 1: 4, 3: 5}))
    assert "Round 1 saved." not in read(client.get(response["Location"])).text


def test_the_same_round_entered_on_two_phones_is_saved_once(client, four_players):
    page = url("game", four_players.edit_token)
    mine = round_post(0, {1: "AH JK 5C", 2: 10, 3: 4}, for_round="1", key="phone-a")
    theirs = round_post(0, {1: "5C JK AH", 2: 10, 3: 4}, for_round="1", key="phone-b")
    assert client.post(page, mine, headers=HTMX).status_code == 200
    response = client.post(page, theirs, headers=HTMX)
    shown = read(response).text
    assert four_players.rounds.count() == 1
    assert "Round 1 was saved on another phone, just as you typed it." in shown
    assert "Save mine as round 2" not in shown

    # A different round for the same slot is another matter: it is offered as round 2.
    other = round_post(1, {0: 12, 2: 10, 3: 4}, for_round="1", key="phone-c")
    shown = read(client.post(page, other, headers=HTMX))
    assert four_players.rounds.count() == 1
    assert shown.one(".form-actions button.primary").text == "Save mine as round 2"
    conflict = shown.one(".banner.conflict")
    assert (conflict.get("role"), conflict.get("tabindex")) == ("alert", "-1")


def test_every_players_errors_show_at_once_and_the_others_keep_their_points(client, four_players):
    page = url("game", four_players.edit_token)
    data = round_post(0, {1: 1, 2: "AH XX", 3: "KH 5C"}, action="preview")
    shown = read(client.post(page, data, headers=HTMX))
    below = {seat: errors(shown, seat) for seat in range(4)}
    assert "Boris" in below[1] and "2" in below[1]  # below the cheapest card
    assert "XX" in below[2]
    assert below[3] == ""
    # Dana's points are shown next to the others' errors; theirs are not.
    assert shown.one("#points-3").text == "15"
    assert shown.one("#points-1").text == ""

    # A save shows both errors together too, and keeps what was typed.
    shown = read(client.post(page, {**data, "action": "save"}, headers=HTMX))
    assert len(shown.select('.field-error[role="alert"]')) == 2
    assert shown.one("#id_cards_2").get("value") == "AH XX"
    assert shown.one("#id_cards_3").get("value") == "KH 5C"
    assert four_players.rounds.count() == 0


def errors(shown: Element, seat: int) -> str:
    """What the form says below a player's hand."""
    return shown.one(f"#errors-{seat}").text


def points(shown: Element) -> list[str]:
    """The points the form shows beside each hand, by seat."""
    return shown.texts("output[id^=points-]")


def invalid(shown: Element) -> set[str]:
    """The ids of the inputs marked invalid."""
    return {field.get("id") for field in shown.select('input[aria-invalid="true"]')}


THIRD_ACE = (
    "With the hand of Cyril, this round holds 3 copies of the card “ace of hearts”, but the "
    "deck has only 2. Tap a chosen card to take it back."
)


def test_a_card_too_many_is_said_next_to_its_player_at_once_with_every_other_error(client):
    game = Game.start(["Ana", "Boris", "Cyril", "Dana", "Eva", "Fay"])
    page = url("game", game.edit_token)
    # Ana went out. Boris holds the two A♥ of the two packs and Cyril a third; Dana's value
    # is less than any card; Eva's hand is missing; Fay's is right.
    data = round_post(0, {1: "AH AH 5C", 2: "KS AH", 3: 1, 5: "KH 5C"})
    for action, headers in (("preview", HTMX), ("save", HTMX), ("save", {})):
        response = client.post(page, {**data, "action": action}, headers=headers)
        assert response.status_code == 200
        shown = read(response)
        assert errors(shown, 2) == THIRD_ACE
        assert errors(shown, 3).startswith(
            "The hand value of Dana, 1, is less than the cheapest card (2)"
        )
        if action == "preview":
            assert errors(shown, 4) == ""  # not an error while typing: a hand still to come
        else:
            assert errors(shown, 4) == (
                "The cards left in the hand of Eva (or their value) are missing. Tap the cards "
                "left in it, or type their value."
            )
        # Nothing next to the others, nor above the form; they keep their points.
        assert [errors(shown, seat) for seat in (0, 1, 5)] == ["", "", ""]
        assert shown.one("#form-errors").text == ""
        assert points(shown) == ["0", "27", "", "", "", "15"]
    # The first save says all three, each field marked, and keeps what was typed.
    assert invalid(shown) == {"id_cards_2", "id_value_3", "id_cards_4"}
    assert shown.one("#id_cards_1").get("value") == "AH AH 5C"
    assert shown.one("#id_cards_2").get("value") == "KS AH"
    assert game.rounds.count() == 0

    # Put right, the same form is saved.
    data.update(cards_2="KS", cards_3="", value_3="2", value_4="9")
    assert client.post(page, data).status_code == 303
    assert game.totals() == [0, 27, 10, 2, 9, 15]


def test_a_joker_in_a_game_without_jokers_is_refused_as_it_is_tapped(client):
    game = Game.start(["Ana", "Boris", "Cyril"], house_rules=Rules(jokers_in_deck=0))
    page = url("game", game.edit_token)
    refused = (
        "This game's deck has no jokers (a house rule), so the hand of Boris cannot hold one. "
        "Tap a chosen card to take it back."
    )
    # Ana went out, and a joker is tapped for Boris while Cyril's hand is still to come.
    shown = read(client.post(page, round_post(0, {1: "JK"}, action="preview"), headers=HTMX))
    assert errors(shown, 1) == refused
    assert points(shown) == ["0", "", ""]
    data = round_post(0, {1: "5D JK", 2: "KH 5C"})
    for action, headers in (("preview", HTMX), ("save", HTMX), ("save", {})):
        response = client.post(page, {**data, "action": action}, headers=headers)
        shown = read(response)
        assert errors(shown, 1) == refused
        assert errors(shown, 2) == ""
        assert points(shown) == ["0", "", "15"]
    assert invalid(shown) == {"id_cards_1"}
    assert game.rounds.count() == 0


def test_a_never_opened_hand_says_how_its_points_came_about(client, four_players):
    page = url("game", four_players.edit_token)
    data = round_post(0, {1: (81, "no"), 2: (20, "no"), 3: 4}, action="preview")
    shown = read(client.post(page, data, headers=HTMX))
    assert shown.one("#points-1").text == "100"
    assert "81 + 25 → 100, the cap" in shown.text
    assert "20 + 25 = 45" in shown.text
    client.post(page, {**data, "action": "save"})
    assert "not opened: 81 + 25 → 100, the cap" in read(client.get(page)).text

    two = Game.start(["Ana", "Boris"])
    data = round_post(0, {1: (40, "no")}, action="preview")
    shown = read(client.post(url("game", two.edit_token), data, headers=HTMX))
    assert "40 + 25 → 50, half the target" in shown.text


def test_the_edit_page_shows_each_players_points_from_the_first_paint(client, four_players):
    page = url("game", four_players.edit_token)
    client.post(page, round_post(0, {1: "AH JK 5C", 2: (10, "no"), 3: 4}))
    shown = read(client.get(url("round", four_players.edit_token, number=1)))
    assert shown.one("#points-1").text == "36"
    assert shown.one("#points-2").text == "35"
    assert "10 + 25 = 35" in shown.text


# Live updates: from the version just before, only what changed.


def poll(client, game: Game, version: int, shown: str = "playing", **extra):
    return client.get(
        url("poll", game.edit_token),
        {"v": str(version), "shown": shown, **extra},
        headers=HTMX,
    )


def test_a_poll_from_the_version_before_a_save_gets_only_what_changed_in_3_kb(client):
    game = long_game(60)
    before = game.version
    page = url("game", game.edit_token)
    client.post(page, round_post(0, {1: 2, 2: 3, 3: 4, 4: 5, 5: 2}, for_round="61"))
    response = poll(client, game, before)
    html = response.content.decode()
    assert response.status_code == 200
    assert response["HX-Reswap"] == "none"
    # The chart and the statistics are asked for again once they are in view.
    refresh = read(html).one("#extras-refresh")
    assert refresh.get("hx-swap-oob") == "true" and refresh.get("hx-trigger") == "intersect once"
    assert len(gzip.compress(response.content)) <= 3 * KB
    # The rows a fresh page shows, whole: the latest, newest first.
    assert round_numbers(html) == list(range(61, 61 - Scoreboard.SHOWN_ROUNDS, -1))
    assert '<tbody id="round-rows" hx-swap-oob="true"' in html
    assert read(html).one("#more-rounds a").text == "Show all 61 rounds"
    assert 'id="totals" class="totals-box" hx-swap-oob="true"' in html
    assert 'id="poller"' in html and f"v={Game.objects.get(pk=game.pk).version}" in html
    assert '<input type="hidden" name="for_round" value="62"' in html
    assert "score-chart" not in html and 'id="round-form"' not in html
    # The whole board, for comparison: what a phone further behind gets (its chart and
    # statistics too asked for once they are in view).
    whole = poll(client, game, 0)
    assert "HX-Reswap" not in whole
    assert len(gzip.compress(whole.content)) > 1.5 * len(gzip.compress(response.content))
    assert "score-chart" not in whole.content.decode()
    assert read(whole.content.decode()).one("#extras-refresh").get("hx-trigger") == "intersect once"


@pytest.mark.parametrize("change", ["edit", "delete", "further behind", "undo"])
def test_a_change_to_the_rounds_sends_the_rows_a_fresh_page_shows(client, change):
    game = long_game(20, players=4)
    page = url("game", game.edit_token)
    before = game.version
    if change == "edit":
        client.post(f"{page}rounds/3/", edit_post(game, 3, 0, {1: 2, 2: 3, 3: 4}))
    elif change == "delete":
        client.post(page, delete_post(game, 18))
    elif change == "further behind":
        before = game.events.order_by("version").values_list("version", flat=True)[0]
        client.post(page, round_post(0, {1: 2, 2: 3, 3: 4}))
    else:
        client.post(page, delete_post(game, 20))
        client.post(page, {"action": "undo", "event": str(game.events.first().pk)})
    response = poll(client, game, before)
    assert response["HX-Reswap"] == "none"
    html = response.content.decode()
    fresh = client.get(page).content.decode()
    assert round_rows(html) == round_rows(fresh)
    assert read(html).one("#more-rounds").text == read(fresh).one("#more-rounds").text
    # The totals are the heads of the entry's rows: sent out of band, as a fresh page has them.
    assert standings(html) == standings(fresh) != []


def standings(html: str) -> list[tuple[str, str, str]]:
    """Each player's standing (the standing tag, the head of their row of the entry), by seat:
    what it says, and its bar's length."""
    return [
        (standing.get("id"), standing.text, standing.one(".bar-fill").get("width"))
        for standing in read(html).select("[id^=standing-]")
    ]


def test_a_phone_typing_keeps_its_form_and_is_told(client):
    game = long_game(10, players=4)
    before = game.version
    client.post(url("game", game.edit_token), round_post(0, {1: 2, 2: 3, 3: 4}, for_round="11"))
    html = poll(client, game, before, typing="1").content.decode()
    assert "Another phone has just saved a round" in html
    assert "for_round" not in html
    # The new totals reach the rows of the form being typed, and only they.
    fresh = client.get(url("game", game.edit_token)).content.decode()
    assert standings(html) == standings(fresh) != []
    assert read(html).one("#standing-0").get("hx-swap-oob") == "true"


@pytest.mark.parametrize(
    "change",
    ["finished", "shown finished", "no status", "rename", "last round deleted", "all rounds"],
)
def test_the_whole_board_when_more_than_rows_changed(client, change):
    game = long_game(10, players=4)
    page = url("game", game.edit_token)
    before = game.version
    shown = "playing"
    extra = {}
    if change == "last round deleted":
        game = Game.start(["Ana", "Boris"])
        page = url("game", game.edit_token)
        client.post(page, round_post(0, {1: 2}))
        before = Game.objects.get(pk=game.pk).version
        client.post(page, delete_post(game, 1))
    elif change == "all rounds":
        client.post(page, round_post(0, {1: 2, 2: 3, 3: 4}))
        extra = {"rounds": "all"}
    elif change == "finished":
        client.post(page, round_post(0, {1: 500, 2: 3, 3: 4}))
    elif change == "shown finished":
        client.post(page, round_post(0, {1: 2, 2: 3, 3: 4}))
        shown = "finished"
    elif change == "no status":
        client.post(page, round_post(0, {1: 2, 2: 3, 3: 4}))
        shown = ""
    else:
        GameEvent.objects.create(game=game, kind=GameEvent.Kind.RENAMED, version=before + 1)
        game.version = before + 1
        game.save(update_fields=["version"])
    response = poll(client, game, before, shown=shown, **extra)
    assert response.status_code == 200
    assert "HX-Reswap" not in response
    assert response.content.decode().lstrip().startswith('<section id="scoreboard"')
