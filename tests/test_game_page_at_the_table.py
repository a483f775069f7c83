"""The game page at the table (issue 13): the latest rounds first with the older folded, the
saved round confirmed with its Undo, every error at once with the other players' points kept,
a never-opened hand's points explained, a round entered on two phones saved once, and a live
update that sends only what changed. Entry mistakes (issue 22): a card the deck cannot hold is
said next to the player holding it, as it is tapped and on the first save, with the others."""

import gzip
import re
from html.parser import HTMLParser

import pytest

from scoring.exchange import import_game
from scoring.models import Game, GameEvent
from scoring.rules import Rules
from scoring.scoreboard import Scoreboard
from tests.conftest import delete_post, edit_post, round_post, without_bdi
from tests.long_games import long_game_document

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
KB = 1024


def long_game(rounds: int, players: int = 6, seed: int = 1) -> Game:
    """A game of up to six 30-character names with real-looking hands (tests/long_games.py)."""
    document = long_game_document(rounds, players, seed, hand_sizes=(1, 1, 2, 2, 3))
    return import_game(document)


def round_numbers(html: str) -> list[int]:
    return [int(number) for number in re.findall(r'<tr id="round-(\d+)"', html)]


def test_the_page_of_80_rounds_and_six_long_names_shows_the_latest_first_in_120_kb(client):
    game = long_game(80)
    response = client.get(f"/g/{game.edit_token}/")
    html = response.content.decode()
    assert len(response.content) <= 120 * KB, len(response.content)
    assert round_numbers(html) == list(range(80, 80 - Scoreboard.SHOWN_ROUNDS, -1))
    assert "Show all 80 rounds" in html
    # The board comes first, then the entry, then the rounds.
    assert html.index('id="totals"') < html.index('id="round-form"') < html.index('id="rounds"')

    everything = client.get(f"/g/{game.edit_token}/?rounds=all").content.decode()
    assert round_numbers(everything) == list(range(80, 0, -1))
    assert "Show all" not in everything
    # With htmx, "Show all" brings the round table alone.
    part = client.get(f"/g/{game.edit_token}/?rounds=all", headers=HTMX).content.decode()
    assert part.lstrip().startswith('<div class="rounds" id="rounds">')
    assert round_numbers(part) == list(range(80, 0, -1))


def test_the_watch_only_page_folds_the_same_way_and_links_to_itself(client):
    game = long_game(12, players=4)
    html = client.get(f"/v/{game.view_token}/").content.decode()
    assert round_numbers(html) == list(range(12, 4, -1))
    assert f'href="/v/{game.view_token}/?rounds=all#rounds"' in html
    assert game.edit_token not in html
    assert 'id="round-form"' not in html


def test_a_save_with_htmx_shows_the_round_its_points_and_an_undo_that_takes_it_back(
    client, four_players
):
    page = f"/g/{four_players.edit_token}/"
    response = client.post(page, round_post(0, {1: "AH JK 5C", 2: 10, 3: 4}), headers=HTMX)
    html = without_bdi(response.content.decode())
    banner = re.search(r'<div class="banner saved".*?</div>', html, re.S)[0]
    assert "Round 1 saved." in banner
    # The round's points stand in each player's row, under the new total; the banner comes
    # first, so that both are in view after the save.
    assert re.findall(r'<span class="last">.*?\+(\d+)</span>', html) == ["0", "36", "10", "4"]
    assert html.index("banner saved") < html.index('id="standing-0"')
    round_ = four_players.rounds.get()
    # The Undo of a save is a link that takes the round back into the form; a link, since it
    # changes nothing by itself.
    link = f'href="{page}?fix={round_.pk}&amp;number=1&amp;revision=1#round-entry"'
    assert link in banner and ">Undo<" in banner


def test_undo_after_a_save_puts_the_round_back_into_the_form_to_be_put_right(client, four_players):
    page = f"/g/{four_players.edit_token}/"
    client.post(page, round_post(0, {1: 12, 2: 10, 3: 4}))
    client.post(page, round_post(1, {0: "AH JK", 2: (20, "no"), 3: 4}), headers=HTMX)
    round_ = four_players.rounds.get(number=2)
    fix = f"{page}?fix={round_.pk}&number=2&revision=1"
    html = without_bdi(client.get(fix, headers=HTMX).content.decode())
    # Nothing has changed yet: the round still counts.
    assert four_players.rounds.count() == 2
    assert "Round 2, back in the form" in html
    # The round as it was typed is in the form again, its points shown ...
    assert 'value="1" id="id_winner_1" required checked' in html
    assert 'value="AH JK"' in html and 'value="20"' in html
    assert re.search(r'id="id_not_opened_2" checked', html)
    assert f'<input type="hidden" name="round" value="{round_.pk}"' in html
    assert re.search(r'id="points-2"[^>]*>45<', html)
    # ... a live update leaves it alone (the page says it is being typed) ...
    assert '<input type="hidden" id="typing" name="typing" value="1">' in html
    # ... and it is saved as a correction of round 2, or deleted, or kept.
    assert 'value="correct"' in html and "Delete round 2" in html and "Keep it as saved" in html

    data = round_post(1, {0: "AH JK", 2: 20, 3: 4}, action="correct")
    data.update(round=str(round_.pk), revision="1", for_round="2")
    answer = without_bdi(client.post(page, data, headers=HTMX).content.decode())
    assert "Round 2 changed." in answer
    round_.refresh_from_db()
    assert (round_.number, round_.revision) == (2, 2)
    assert four_players.rounds.count() == 2
    assert four_players.events.first().kind == GameEvent.Kind.CORRECTED

    # Without JavaScript too: the same link, a full page.
    response = client.get(f"{page}?fix={round_.pk}&number=2&revision=2")
    assert response.status_code == 200
    assert "Round 2, back in the form" in without_bdi(response.content.decode())


def test_the_second_phone_of_the_same_round_is_told_it_was_saved_there(client, four_players):
    page = f"/g/{four_players.edit_token}/"
    client.post(page, round_post(0, {1: 5, 2: 6, 3: 7}, for_round="1", key="a"))
    html = without_bdi(
        client.post(
            page, round_post(0, {1: 5, 2: 6, 3: 7}, for_round="1", key="b"), headers=HTMX
        ).content.decode()
    )
    banner = re.search(r'<div class="banner saved".*?</div>', html, re.S)[0]
    assert "Round 1 was saved on another phone, just as you typed it." in banner
    assert "Undo" not in banner  # one Undo, on the phone that saved it


def test_a_save_without_javascript_lands_on_the_page_that_confirms_it(client, four_players):
    page = f"/g/{four_players.edit_token}/"
    response = client.post(page, round_post(1, {0: 12, 2: 7, 3: 9}))
    assert response.status_code == 303
    round_ = four_players.rounds.get()
    assert response["Location"] == f"{page}?saved={round_.pk}"
    html = without_bdi(client.get(response["Location"]).content.decode())
    assert "Round 1 saved." in html
    # Once another round follows, the old link no longer claims the latest save.
    client.post(page, round_post(2, {0: 3, 1: 4, 3: 5}))
    assert "Round 1 saved." not in client.get(response["Location"]).content.decode()


def test_the_same_round_entered_on_two_phones_is_saved_once(client, four_players):
    page = f"/g/{four_players.edit_token}/"
    mine = round_post(0, {1: "AH JK 5C", 2: 10, 3: 4}, for_round="1", key="phone-a")
    theirs = round_post(0, {1: "5C JK AH", 2: 10, 3: 4}, for_round="1", key="phone-b")
    assert client.post(page, mine, headers=HTMX).status_code == 200
    response = client.post(page, theirs, headers=HTMX)
    html = without_bdi(response.content.decode())
    assert four_players.rounds.count() == 1
    assert "Round 1 was saved on another phone, just as you typed it." in html
    assert "Save mine as round 2" not in html

    # A different round for the same slot is another matter: it is offered as round 2.
    other = round_post(1, {0: 12, 2: 10, 3: 4}, for_round="1", key="phone-c")
    html = client.post(page, other, headers=HTMX).content.decode()
    assert four_players.rounds.count() == 1
    assert "Save mine as round 2" in html
    assert 'class="banner conflict" role="alert" tabindex="-1"' in html


def test_every_players_errors_show_at_once_and_the_others_keep_their_points(client, four_players):
    page = f"/g/{four_players.edit_token}/"
    data = round_post(0, {1: 1, 2: "AH XX", 3: "KH 5C"}, action="preview")
    html = client.post(page, data, headers=HTMX).content.decode()
    errors = dict(re.findall(r'id="errors-(\d)" class="seat-errors"[^>]*>(.*?)</div>\s', html))
    assert "Boris" in errors["1"] and "2" in errors["1"]  # below the cheapest card
    assert "XX" in errors["2"]
    assert errors["3"] == ""
    # Dana's points are shown next to the others' errors; theirs are not.
    assert re.search(r'id="points-3"[^>]*>15<', html)
    assert re.search(r'id="points-1"[^>]*><', html)

    # A save shows both errors together too, and keeps what was typed.
    response = client.post(page, {**data, "action": "save"}, headers=HTMX)
    html = response.content.decode()
    assert html.count('class="field-error" role="alert"') == 2
    assert 'value="AH XX"' in html and 'value="KH 5C"' in html
    assert four_players.rounds.count() == 0


class Shown(HTMLParser):
    """What the round form, or its preview, shows: the text of each player's errors block
    (`errors-<seat>`), of their points (`points-<seat>`) and of the form-wide errors, and each
    input's attributes, by id."""

    READ = re.compile(r"(errors-\d|points-\d|form-errors)$")

    def __init__(self, html: str) -> None:
        super().__init__()
        self.text: dict[str, str] = {}
        self.inputs: dict[str, dict] = {}
        self._reading: list = []  # the id read, its tag, how deep in tags of that name
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input":
            self.inputs[attrs.get("id")] = attrs
        if self._reading and tag == self._reading[1]:
            self._reading[2] += 1
        elif not self._reading and self.READ.match(attrs.get("id") or ""):
            self._reading = [attrs["id"], tag, 1]
            self.text[attrs["id"]] = ""

    def handle_endtag(self, tag):
        if self._reading and tag == self._reading[1]:
            self._reading[2] -= 1
            if not self._reading[2]:
                self._reading = []

    def handle_data(self, data):
        if self._reading:
            self.text[self._reading[0]] += data

    def errors(self, seat: int) -> str:
        return " ".join(self.text[f"errors-{seat}"].split())

    def points(self) -> list[str]:
        return [text.strip() for id_, text in self.text.items() if id_.startswith("points-")]

    def invalid(self) -> set[str]:
        """The ids of the inputs marked invalid."""
        return {id_ for id_, attrs in self.inputs.items() if attrs.get("aria-invalid") == "true"}


THIRD_ACE = (
    "With the hand of Cyril, this round holds 3 copies of the card “ace of hearts”, but the "
    "deck has only 2."
)


def test_a_card_too_many_is_said_next_to_its_player_at_once_with_every_other_error(client):
    game = Game.start(["Ana", "Boris", "Cyril", "Dana", "Eva", "Fay"])
    page = f"/g/{game.edit_token}/"
    # Ana went out. Boris holds the two A♥ of the two packs and Cyril a third; Dana's value
    # is less than any card; Eva's hand is missing; Fay's is right.
    data = round_post(0, {1: "AH AH 5C", 2: "KS AH", 3: 1, 5: "KH 5C"})
    for action, headers in (("preview", HTMX), ("save", HTMX), ("save", {})):
        response = client.post(page, {**data, "action": action}, headers=headers)
        assert response.status_code == 200
        shown = Shown(response.content.decode())
        assert shown.errors(2) == THIRD_ACE
        assert shown.errors(3).startswith(
            "The hand value of Dana, 1, is less than the cheapest card (2)"
        )
        if action == "preview":
            assert shown.errors(4) == ""  # not an error while typing: a hand still to come
        else:
            assert shown.errors(4) == (
                "The cards left in the hand of Eva (or their value) are missing."
            )
        # Nothing next to the others, nor above the form; they keep their points.
        assert [shown.errors(seat) for seat in (0, 1, 5)] == ["", "", ""]
        assert shown.text["form-errors"].strip() == ""
        assert shown.points() == ["0", "27", "", "", "", "15"]
    # The first save says all three, each field marked, and keeps what was typed.
    assert shown.invalid() == {"id_cards_2", "id_value_3", "id_cards_4"}
    assert shown.inputs["id_cards_1"]["value"] == "AH AH 5C"
    assert shown.inputs["id_cards_2"]["value"] == "KS AH"
    assert game.rounds.count() == 0

    # Put right, the same form is saved.
    data.update(cards_2="KS", cards_3="", value_3="2", value_4="9")
    assert client.post(page, data).status_code == 303
    assert game.totals() == [0, 27, 10, 2, 9, 15]


def test_a_joker_in_a_game_without_jokers_is_refused_as_it_is_tapped(client):
    game = Game.start(["Ana", "Boris", "Cyril"], house_rules=Rules(jokers_in_deck=0))
    page = f"/g/{game.edit_token}/"
    refused = "This game's deck has no jokers (a house rule), so the hand of Boris cannot hold one."
    # Ana went out, and a joker is tapped for Boris while Cyril's hand is still to come.
    shown = Shown(
        client.post(page, round_post(0, {1: "JK"}, action="preview"), headers=HTMX).content.decode()
    )
    assert shown.errors(1) == refused
    assert shown.points() == ["0", "", ""]
    data = round_post(0, {1: "5D JK", 2: "KH 5C"})
    for action, headers in (("preview", HTMX), ("save", HTMX), ("save", {})):
        response = client.post(page, {**data, "action": action}, headers=headers)
        shown = Shown(response.content.decode())
        assert shown.errors(1) == refused
        assert shown.errors(2) == ""
        assert shown.points() == ["0", "", "15"]
    assert shown.invalid() == {"id_cards_1"}
    assert game.rounds.count() == 0


def test_a_never_opened_hand_says_how_its_points_came_about(client, four_players):
    page = f"/g/{four_players.edit_token}/"
    data = round_post(0, {1: (81, "no"), 2: (20, "no"), 3: 4}, action="preview")
    html = client.post(page, data, headers=HTMX).content.decode()
    assert re.search(r'id="points-1"[^>]*>100<', html)
    assert "81 + 25 → 100, the cap" in html
    assert "20 + 25 = 45" in html
    client.post(page, {**data, "action": "save"})
    board = without_bdi(client.get(page).content.decode())
    assert "not opened: 81 + 25 → 100, the cap" in board

    two = Game.start(["Ana", "Boris"])
    data = round_post(0, {1: (40, "no")}, action="preview")
    html = client.post(f"/g/{two.edit_token}/", data, headers=HTMX).content.decode()
    assert "40 + 25 → 50, half the target" in html


def test_the_edit_page_shows_each_players_points_from_the_first_paint(client, four_players):
    page = f"/g/{four_players.edit_token}/"
    client.post(page, round_post(0, {1: "AH JK 5C", 2: (10, "no"), 3: 4}))
    html = client.get(f"/g/{four_players.edit_token}/rounds/1/").content.decode()
    assert re.search(r'id="points-1"[^>]*>36<', html)
    assert re.search(r'id="points-2"[^>]*>35<', html)
    assert "10 + 25 = 35" in html


# Live updates: from the version just before, only what changed.


def poll(client, game: Game, version: int, shown: str = "playing", **extra):
    return client.get(
        f"/g/{game.edit_token}/poll",
        {"v": str(version), "shown": shown, **extra},
        headers=HTMX,
    )


def test_a_poll_from_the_version_before_a_save_gets_only_what_changed_in_3_kb(client):
    game = long_game(60)
    before = game.version
    page = f"/g/{game.edit_token}/"
    client.post(page, round_post(0, {1: 2, 2: 3, 3: 4, 4: 5, 5: 2}, for_round="61"))
    response = poll(client, game, before)
    html = response.content.decode()
    assert response.status_code == 200
    assert response["HX-Reswap"] == "none"
    # The chart and the statistics are asked for again once they are in view.
    assert re.search(
        r'<div id="extras-refresh"[^>]* hx-swap-oob="true"[^>]*hx-trigger="intersect once"', html
    )
    assert len(gzip.compress(response.content)) <= 3 * KB
    # The rows a fresh page shows, whole: the latest, newest first.
    assert round_numbers(html) == list(range(61, 61 - Scoreboard.SHOWN_ROUNDS, -1))
    assert '<tbody id="round-rows" hx-swap-oob="true"' in html
    assert "Show all 61 rounds" in html
    assert 'id="totals" class="totals-box" hx-swap-oob="true"' in html
    assert 'id="poller"' in html and f"v={Game.objects.get(pk=game.pk).version}" in html
    assert '<input type="hidden" name="for_round" value="62"' in html
    assert "score-chart" not in html and 'id="round-form"' not in html
    # The whole board, for comparison: what a phone further behind gets.
    whole = poll(client, game, 0)
    assert "HX-Reswap" not in whole
    assert len(gzip.compress(whole.content)) > 3 * len(gzip.compress(response.content))


def rows(html: str) -> list[str]:
    """The round table's rows as a page shows them."""
    return re.findall(r'<tr id="round-\d+".*?</tr>', html, re.S)


@pytest.mark.parametrize("change", ["edit", "delete", "further behind", "undo"])
def test_a_change_to_the_rounds_sends_the_rows_a_fresh_page_shows(client, change):
    game = long_game(20, players=4)
    page = f"/g/{game.edit_token}/"
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
    assert rows(html) == rows(fresh)
    assert re.search(r"Show all \d+ rounds", html)[0] == re.search(r"Show all \d+ rounds", fresh)[0]
    # The totals are the heads of the entry's rows: sent out of band, as a fresh page has them.
    assert standings(html) == standings(fresh) != []


def standings(html: str) -> list[tuple[str, str]]:
    """Each player's standing (the standing tag, the head of their row of the entry), by seat."""
    return re.findall(r'id="standing-(\d+)"[^>]*>(.*?)\n</span>', html, re.S)


def test_a_phone_typing_keeps_its_form_and_is_told(client):
    game = long_game(10, players=4)
    before = game.version
    client.post(f"/g/{game.edit_token}/", round_post(0, {1: 2, 2: 3, 3: 4}, for_round="11"))
    html = poll(client, game, before, typing="1").content.decode()
    assert "Another phone has just saved a round" in html
    assert "for_round" not in html
    # The new totals reach the rows of the form being typed, and only they.
    fresh = client.get(f"/g/{game.edit_token}/").content.decode()
    assert standings(html) == standings(fresh) != []
    assert (
        'hx-swap-oob="true"'
        in re.search(r'<span class="total[^"]*" id="standing-0"[^>]*>', html)[0]
    )


@pytest.mark.parametrize(
    "change",
    ["finished", "shown finished", "no status", "rename", "last round deleted", "all rounds"],
)
def test_the_whole_board_when_more_than_rows_changed(client, change):
    game = long_game(10, players=4)
    page = f"/g/{game.edit_token}/"
    before = game.version
    shown = "playing"
    extra = {}
    if change == "last round deleted":
        game = Game.start(["Ana", "Boris"])
        page = f"/g/{game.edit_token}/"
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
