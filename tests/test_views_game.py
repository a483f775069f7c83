"""The game page /g/<edit-token>/: scoreboard, round entry, preview, delete and undo."""

import re
from html import unescape

import pytest

from scoring.exchange import export_game
from scoring.models import Game, Hand, Player, Round
from tests.conftest import delete_post, round_post, without_bdi

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def totals(html: str) -> list[int]:
    return [int(total) for total in re.findall(r'<span class="sum">(\d+)</span>', html)]


def url(game: Game) -> str:
    return f"/g/{game.edit_token}/"


def test_an_empty_game_shows_the_players_the_target_and_the_dealer(client, four_players):
    html = without_bdi(client.get(url(four_players)).content.decode())
    assert totals(html) == [0, 0, 0, 0]
    assert "Target 300" in html
    assert "Round 1" in html and "Ana deals" in html
    assert html.count('class="picker"') == 4


def test_unknown_token_is_a_plain_404(client, four_players):
    response = client.get(f"/g/{four_players.view_token}/")
    assert response.status_code == 404
    assert four_players.edit_token not in response.content.decode()


def test_saving_a_round_without_javascript_redirects_to_the_updated_page(client, four_players):
    response = client.post(url(four_players), round_post(0, {1: "AH JK 5C", 2: (20, "no"), 3: 4}))
    assert response.status_code == 303
    html = without_bdi(client.get(response["Location"]).content.decode())
    assert totals(html) == [0, 36, 45, 4]
    assert "Boris deals" in html


def test_saving_a_round_with_htmx_returns_the_scoreboard_and_a_fresh_form(client, four_players):
    response = client.post(
        url(four_players), round_post(0, {1: "AH JK 5C", 2: 10, 3: 4}), headers=HTMX
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="game-body"')
    assert "<html" not in html
    assert totals(html) == [0, 36, 10, 4]
    assert 'value="AH JK 5C"' not in html  # the form is reset for the next round
    assert "Round 2" in html


def test_an_invalid_round_keeps_everything_typed_and_says_what_to_fix(client, four_players):
    data = round_post(0, {1: "AH AH AH", 2: 10, 3: ("KH QS", "no")})
    for headers in ({}, HTMX):
        html = unescape(client.post(url(four_players), data, headers=headers).content.decode())
        assert (
            "this round holds 3 copies of the card “ace of hearts”, but the deck has only 2" in html
        )
        assert 'value="AH AH AH"' in html and 'value="KH QS"' in html and 'value="10"' in html
        assert re.search(r'name="not_opened_3"[^>]*checked', html)
    assert four_players.rounds.count() == 0


def test_the_error_stands_next_to_the_player_concerned(client, four_players):
    html = unescape(
        client.post(url(four_players), round_post(0, {1: 3, 2: "1X", 3: 4})).content.decode()
    )
    errors = html[html.index('id="errors-2"') :]
    assert errors.index("Unknown card “1X”") < errors.index("</div>")


def test_a_missing_hand_is_an_error(client, four_players):
    html = client.post(url(four_players), round_post(0, {1: 3, 3: 4})).content.decode()
    assert "missing" in html
    assert four_players.rounds.count() == 0


def test_a_hand_rummy_needs_no_hands(client, four_players):
    client.post(url(four_players), round_post(2, hand_rummy="on"))
    assert four_players.totals() == [200, 200, 0, 200]


def test_a_blocked_round_needs_every_hand_and_the_lowest_wins(client, four_players):
    client.post(
        url(four_players), round_post("blocked", {0: 5, 1: "3H 4C", 2: 30, 3: ("JK", "no")})
    )
    assert four_players.totals() == [0, 7, 30, 45]


def test_preview_gives_each_players_points_as_typed_so_far(client, four_players):
    data = round_post(0, {1: "AH JK 5C", 2: ("KH KS QD JC 9H 8C 7D JK", "no")}, action="preview")
    response = client.post(url(four_players), data, headers=HTMX)
    html = response.content.decode()
    points = dict(re.findall(r'<output id="points-(\d)"[^>]*>(\d*)</output>', html))
    assert points == {"0": "0", "1": "36", "2": "100", "3": ""}
    assert four_players.rounds.count() == 0


def test_preview_shows_errors_next_to_the_player(client, four_players):
    data = round_post(0, {1: "AH AH AH"}, action="preview")
    html = unescape(client.post(url(four_players), data, headers=HTMX).content.decode())
    assert "3 copies of the card “ace of hearts”" in html[html.index('id="errors-1"') :]


def test_the_same_form_sent_twice_records_one_round(client, four_players):
    data = round_post(0, {1: 3, 2: 4, 3: 5}, key="abc123")
    client.post(url(four_players), data)
    client.post(url(four_players), data)
    assert four_players.rounds.count() == 1


def test_delete_and_undo_bring_the_round_back_exactly(client, every_kind_game):
    before = export_game(every_kind_game)
    response = client.post(url(every_kind_game), delete_post(every_kind_game, 2))
    assert response.status_code == 303
    html = client.get(url(every_kind_game)).content.decode()
    assert "Round 2 was deleted." in html
    assert totals(html) == [0, 107, 66, 210]
    event = every_kind_game.events.first()
    client.post(url(every_kind_game), {"action": "undo", "event": str(event.pk)}, headers=HTMX)
    assert export_game(every_kind_game) == before


def test_delete_with_htmx_returns_the_game_body_with_undo(client, every_kind_game):
    response = client.post(url(every_kind_game), delete_post(every_kind_game, 4), headers=HTMX)
    html = response.content.decode()
    assert "Round 4 was deleted." in html and 'value="undo"' in html
    assert "Tie-break round" in html


def test_a_finished_game_shows_the_winner_and_offers_a_rematch(client, every_kind_game):
    html = without_bdi(client.get(url(every_kind_game)).content.decode())
    assert "Ana wins the game!" in html
    assert 'value="rematch"' in html
    assert 'name="winner"' not in html
    response = client.post(url(every_kind_game), {"action": "rematch"})
    rematch = Game.objects.exclude(pk=every_kind_game.pk).get()
    assert response["Location"] == url(rematch)
    assert rematch.names == every_kind_game.names
    assert rematch.first_dealer == 0  # four rounds dealt by seats 0-3: seat 0 deals next


def test_a_finished_game_refuses_a_new_round(client, every_kind_game):
    html = client.post(url(every_kind_game), round_post(0, {1: 2, 2: 2, 3: 2})).content.decode()
    assert "The game is over: start a rematch" in html
    assert every_kind_game.rounds.count() == 4


def test_a_tie_break_shows_its_banner_and_keeps_the_form(client, every_kind_game):
    every_kind_game.delete_round(every_kind_game.rounds.get(number=4))
    html = without_bdi(client.get(url(every_kind_game)).content.decode())
    assert "Tie-break round: Ana and Dana share the lowest total" in html
    assert 'name="winner"' in html


def test_round_kinds_and_cards_are_shown_in_the_table(client, every_kind_game):
    html = client.get(url(every_kind_game)).content.decode()
    table = html[html.index('class="round-table"') :]
    assert "hand rummy" in table and "blocked" in table and "tie-break" in table
    assert 'aria-label="ace of hearts"' in table
    assert 'aria-label="joker"' in table


def test_names_are_escaped_everywhere_on_the_page(client):
    game = Game.start(["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'])
    client.post(url(game), round_post(0, {1: 5}))
    html = client.get(url(game)).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_501st_round_is_refused_with_a_clear_error(client, four_players):
    Round.objects.bulk_create(
        Round(game=four_players, number=n, winner_seat=0) for n in range(1, 501)
    )
    response = client.post(url(four_players), round_post(0, {1: 3, 2: 4, 3: 5}))
    assert response.status_code == 200
    assert "A game has at most 500 rounds: start a rematch to play on." in response.content.decode()
    assert four_players.rounds.count() == 500


def test_two_phones_get_their_own_csrf_token_and_form_key(four_players):
    """Every visit is drawn for its visitor: two phones on one game at one version get their
    own CSRF token and form key, so that the second round saved is not taken for a resend of
    the first."""
    from django.test import Client

    url = f"/g/{four_players.edit_token}/"
    keys, tokens = [], []
    phones = [Client(enforce_csrf_checks=True) for _ in range(2)]
    for seat, phone in enumerate(phones):
        html = phone.get(url).content.decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        key = re.search(r'name="key" value="([^"]+)"', html).group(1)
        tokens.append(token)
        keys.append(key)
        data = round_post(seat, {s: 2 for s in range(4) if s != seat})
        data.update(csrfmiddlewaretoken=token, key=key)
        assert phone.post(url, data).status_code == 303
    assert keys[0] != keys[1] and tokens[0] != tokens[1]
    assert four_players.rounds.count() == 2  # two keys: neither round taken for a resend


def round_row(html: str, number: int) -> str:
    row = html[html.index(f'<tr id="round-{number}"') :]
    return row[: row.index("</tr>")]


def test_a_change_made_behind_the_apps_back_shows_at_once(client, four_players):
    """Nothing on the game page is kept by the game's version: a row changed without it (a
    queryset .update(), a data migration, a fix in the shell) shows on the next visit, in the
    round table, the totals and the chart, on the edit page, the view page and a poll."""
    game = four_players
    for winner in range(3):
        client.post(url(game), round_post(winner, {s: 5 for s in range(4) if s != winner}))
    pages = [url(game), f"/v/{game.view_token}/", f"/g/{game.edit_token}/poll?v=0"]
    for page in pages:
        html = client.get(page, headers=HTMX if "poll" in page else {}).content.decode()
        assert '<span class="points">5</span>' in round_row(html, 2)
        assert totals(html) == [10, 10, 10, 15]
    version = Game.objects.get(pk=game.pk).version

    Hand.objects.filter(round__game=game, round__number=2, player__seat=0).update(points=47)
    Player.objects.filter(game=game, seat=3).update(name="Zora")

    assert Game.objects.get(pk=game.pk).version == version  # nothing told the app
    for page in pages:
        html = without_bdi(
            client.get(page, headers=HTMX if "poll" in page else {}).content.decode()
        )
        assert '<span class="points">47</span>' in round_row(html, 2)
        assert totals(html) == [52, 10, 10, 15]
        assert "After round 3: Ana 52, Boris 10, Cyril 10, Zora 15." in html  # the chart
        assert "Dana" not in html


def test_a_blocked_round_shows_its_lowest_hand_and_nobody_out(client, every_kind_game):
    """Round 4 of every_kind is blocked: Ana's 5 is the lowest hand and scores 0, but nobody
    went out of it."""
    html = unescape(client.get(url(every_kind_game)).content.decode())
    went_out = round_row(html, 1)
    assert went_out.count('<td class="went-out"') == 1
    assert re.findall(r'<span class="note">(.*?)</span>', went_out).count("out") == 1
    blocked = round_row(html, 4)
    assert "went-out" not in blocked
    assert blocked.count('<td class="lowest"') == 1
    notes = re.findall(r'<span class="note">(.*?)</span>', blocked)
    assert notes.count("lowest hand") == 1
    assert not re.search(r"\bout\b", " ".join(notes))
    lowest = blocked[blocked.index('<td class="lowest"') :]
    assert re.search(r'<span class="points">0</span>', lowest[: lowest.index("</td>")])


def test_a_shared_lowest_hand_is_marked_on_each_player(client, four_players):
    client.post(url(four_players), round_post("blocked", {0: 5, 1: 5, 2: 30, 3: ("JK", "no")}))
    html = unescape(client.get(url(four_players)).content.decode())
    blocked = round_row(html, 1)
    assert blocked.count('<td class="lowest"') == 2
    assert "went-out" not in blocked and ">out<" not in blocked
