"""The game page /g/<edit-token>/: scoreboard, round entry, preview, delete and undo."""

import pytest

from scoring.files.exchange import export_game
from scoring.models import Game, Hand, Player, Round
from tests.conftest import delete_post, round_post, totals
from tests.links import url
from tests.pages import Element, read

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def test_an_empty_game_shows_the_players_the_target_and_the_dealer(client, four_players):
    shown = read(client.get(url("game", four_players.edit_token)))
    assert totals(shown) == [0, 0, 0, 0]
    assert "Target 300" in shown.text
    assert "Round 1" in shown.text and "Ana deals" in shown.text
    # A row's keys a player, and the table's one keyboard (a phone's, rami.css).
    assert len(shown.select(".hand .picker")) == 4
    assert len(shown.select(".table-keys")) == 1


def test_unknown_token_is_a_plain_404(client, four_players):
    response = client.get(url("game", four_players.view_token))
    assert response.status_code == 404
    assert four_players.edit_token not in response.content.decode()


def test_saving_a_round_without_javascript_redirects_to_the_updated_page(client, four_players):
    response = client.post(
        url("game", four_players.edit_token), round_post(0, {1: "AH JK 5C", 2: (20, "no"), 3: 4})
    )
    assert response.status_code == 303
    shown = read(client.get(response["Location"]))
    assert totals(shown) == [0, 36, 45, 4]
    assert "Boris deals" in shown.text


def test_saving_a_round_with_htmx_returns_the_scoreboard_and_a_fresh_form(client, four_players):
    response = client.post(
        url("game", four_players.edit_token),
        round_post(0, {1: "AH JK 5C", 2: 10, 3: 4}),
        headers=HTMX,
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="game-body"')
    assert "<html" not in html
    shown = read(html)
    assert totals(shown) == [0, 36, 10, 4]
    # The form is reset for the next round.
    assert [field.get("value", "") for field in shown.select("input[name^=cards_]")] == [""] * 4
    assert "Round 2" in shown.text


TYPED = ("cards_1", "value_2", "cards_3")


def test_an_invalid_round_keeps_everything_typed_and_says_what_to_fix(client, four_players):
    data = round_post(0, {1: "AH AH AH", 2: 10, 3: ("KH QS", "no")})
    for headers in ({}, HTMX):
        shown = read(client.post(url("game", four_players.edit_token), data, headers=headers))
        assert (
            "this round holds 3 copies of the card “ace of hearts”, but the deck has only 2"
            in shown.text
        )
        typed = [shown.one(f"input[name={name}]").get("value") for name in TYPED]
        assert typed == ["AH AH AH", "10", "KH QS"]
        assert shown.one("input[name=not_opened_3]").checked
    assert four_players.rounds.count() == 0


def test_the_error_stands_next_to_the_player_concerned(client, four_players):
    shown = read(
        client.post(url("game", four_players.edit_token), round_post(0, {1: 3, 2: "1X", 3: 4}))
    )
    assert "Unknown card “1X”" in shown.one("#errors-2").text


def test_a_missing_hand_is_an_error(client, four_players):
    shown = read(client.post(url("game", four_players.edit_token), round_post(0, {1: 3, 3: 4})))
    assert "missing" in shown.one("#errors-2").text
    assert four_players.rounds.count() == 0


def test_a_hand_rummy_needs_no_hands(client, four_players):
    client.post(url("game", four_players.edit_token), round_post(2, hand_rummy="on"))
    assert four_players.totals() == [200, 200, 0, 200]


def test_a_blocked_round_needs_every_hand_and_the_lowest_wins(client, four_players):
    client.post(
        url("game", four_players.edit_token),
        round_post("blocked", {0: 5, 1: "3H 4C", 2: 30, 3: ("JK", "no")}),
    )
    assert four_players.totals() == [0, 7, 30, 45]


def test_preview_gives_each_players_points_as_typed_so_far(client, four_players):
    data = round_post(0, {1: "AH JK 5C", 2: ("KH KS QD JC 9H 8C 7D JK", "no")}, action="preview")
    response = client.post(url("game", four_players.edit_token), data, headers=HTMX)
    points = {seat: read(response).one(f"output#points-{seat}").text for seat in range(4)}
    assert points == {0: "0", 1: "36", 2: "100", 3: ""}
    assert four_players.rounds.count() == 0


def test_preview_shows_errors_next_to_the_player(client, four_players):
    data = round_post(0, {1: "AH AH AH"}, action="preview")
    shown = read(client.post(url("game", four_players.edit_token), data, headers=HTMX))
    assert "3 copies of the card “ace of hearts”" in shown.one("#errors-1").text


def test_the_preview_says_nothing_of_a_hand_not_typed_yet_which_a_save_asks_for(
    client, four_players
):
    data = round_post(0, {1: "AH AH AH"})
    preview = read(
        client.post(
            url("game", four_players.edit_token), {**data, "action": "preview"}, headers=HTMX
        )
    )
    saved = read(client.post(url("game", four_players.edit_token), data, headers=HTMX))
    assert "3 copies" in preview.one("#errors-1").text
    assert preview.one("#errors-2").text.strip() == ""
    assert "3 copies" in saved.one("#errors-1").text
    assert saved.one("#errors-2").text.strip()
    assert four_players.rounds.count() == 0


def test_a_players_errors_read_the_same_in_a_preview_as_in_the_form(client, four_players):
    """One markup (_round_form.html's partial seat_errors): the preview's errors are announced
    (role="alert") and named by the field's aria-describedby, as the round form's own row draws
    them."""
    data = round_post(0, {1: "AH AH AH", 2: "5X"})
    preview = read(
        client.post(
            url("game", four_players.edit_token), {**data, "action": "preview"}, headers=HTMX
        )
    )
    form = read(client.post(url("game", four_players.edit_token), data, headers=HTMX))
    for seat in (1, 2):
        inside = [
            [Element(child).markup for child in page.one(f"#errors-{seat}").node]
            for page in (preview, form)
        ]
        assert inside[0] == inside[1] and 'role="alert"' in inside[0][0], inside


def test_the_same_form_sent_twice_records_one_round(client, four_players):
    data = round_post(0, {1: 3, 2: 4, 3: 5}, key="abc123")
    client.post(url("game", four_players.edit_token), data)
    client.post(url("game", four_players.edit_token), data)
    assert four_players.rounds.count() == 1


def test_delete_and_undo_bring_the_round_back_exactly(client, every_kind_game):
    before = export_game(every_kind_game)
    response = client.post(url("game", every_kind_game.edit_token), delete_post(every_kind_game, 2))
    assert response.status_code == 303
    shown = read(client.get(url("game", every_kind_game.edit_token)))
    assert "Round 2 was deleted." in shown.one(".banner.undo").text
    assert totals(shown) == [0, 107, 66, 210]
    event = every_kind_game.events.first()
    client.post(
        url("game", every_kind_game.edit_token),
        {"action": "undo", "event": str(event.pk)},
        headers=HTMX,
    )
    assert export_game(every_kind_game) == before


def test_delete_with_htmx_returns_the_game_body_with_undo(client, every_kind_game):
    response = client.post(
        url("game", every_kind_game.edit_token), delete_post(every_kind_game, 4), headers=HTMX
    )
    shown = read(response)
    banner = shown.one(".banner.undo")
    assert "Round 4 was deleted." in banner.text
    assert banner.one("button[value=undo]").text == "Undo"
    assert "Tie-break round" in shown.text


def test_a_finished_game_shows_the_winner_and_offers_a_rematch(client, every_kind_game):
    shown = read(client.get(url("game", every_kind_game.edit_token)))
    assert "Ana wins the game!" in shown.text
    assert shown.one("button[value=rematch]")
    assert not shown.select("[name=winner]")
    response = client.post(url("game", every_kind_game.edit_token), {"action": "rematch"})
    rematch = Game.objects.exclude(pk=every_kind_game.pk).get()
    assert response["Location"] == url("game", rematch.edit_token)
    assert rematch.names == every_kind_game.names
    assert rematch.first_dealer == 0  # four rounds dealt by seats 0-3: seat 0 deals next


def test_a_finished_game_refuses_a_new_round(client, every_kind_game):
    response = client.post(
        url("game", every_kind_game.edit_token), round_post(0, {1: 2, 2: 2, 3: 2})
    )
    assert "The game is over: start a rematch" in read(response).text
    assert every_kind_game.rounds.count() == 4


def test_a_tie_break_shows_its_banner_and_keeps_the_form(client, every_kind_game):
    every_kind_game.delete_round(every_kind_game.rounds.get(number=4))
    shown = read(client.get(url("game", every_kind_game.edit_token)))
    assert "Tie-break round: Ana and Dana share the lowest total" in shown.text
    assert shown.select("input[name=winner]")


def test_round_kinds_and_cards_are_shown_in_the_table(client, every_kind_game):
    table = read(client.get(url("game", every_kind_game.edit_token))).one(".round-table")
    assert {"hand rummy", "blocked", "tie-break"} <= set(table.texts(".tag"))
    cards = {card.get("aria-label") for card in table.select(".card")}
    assert {"ace of hearts", "joker"} <= cards


def test_names_are_escaped_everywhere_on_the_page(client):
    game = Game.start(["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'])
    client.post(url("game", game.edit_token), round_post(0, {1: 5}))
    html = client.get(url("game", game.edit_token)).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_501st_round_is_refused_with_a_clear_error(client, four_players):
    Round.objects.bulk_create(
        Round(game=four_players, number=n, winner_seat=0) for n in range(1, 501)
    )
    response = client.post(url("game", four_players.edit_token), round_post(0, {1: 3, 2: 4, 3: 5}))
    assert response.status_code == 409
    assert (
        "A game has at most 500 rounds: start a new game from the start page to play on."
        in read(response).text
    )
    assert four_players.rounds.count() == 500


def test_two_phones_get_their_own_csrf_token_and_form_key(four_players):
    """Every visit is drawn for its visitor: two phones on one game at one version get their
    own CSRF token and form key, so that the second round saved is not taken for a resend of
    the first."""
    from django.test import Client

    address = url("game", four_players.edit_token)
    keys, tokens = [], []
    phones = [Client(enforce_csrf_checks=True) for _ in range(2)]
    for seat, phone in enumerate(phones):
        form = read(phone.get(address)).one("form#round-form")
        token = form.one("input[name=csrfmiddlewaretoken]").get("value")
        key = form.one("input[name=key]").get("value")
        tokens.append(token)
        keys.append(key)
        data = round_post(seat, {s: 2 for s in range(4) if s != seat})
        data.update(csrfmiddlewaretoken=token, key=key)
        assert phone.post(address, data).status_code == 303
    assert keys[0] != keys[1] and tokens[0] != tokens[1]
    assert four_players.rounds.count() == 2  # two keys: neither round taken for a resend


def round_row(answer, number: int) -> Element:
    """Round `number`'s row of the round table."""
    return read(answer).one(f"tr#round-{number}")


def test_a_change_made_behind_the_apps_back_shows_at_once(client, four_players):
    """Nothing on the game page is kept by the game's version: a row changed without it (a
    queryset .update(), a data migration, a fix in the shell) shows on the next visit, in the
    round table, the totals and the chart, on the edit page, the view page and a poll."""
    game = four_players
    for winner in range(3):
        client.post(
            url("game", game.edit_token),
            round_post(winner, {s: 5 for s in range(4) if s != winner}),
        )
    pages = [
        url("game", game.edit_token),
        url("view", game.view_token),
        url("poll", game.edit_token) + "?v=0",
    ]
    for page in pages:
        response = client.get(page, headers=HTMX if "poll" in page else {})
        assert round_row(response, 2).texts(".points") == ["5", "0", "5", "5"]
        assert totals(response) == [10, 10, 10, 15]
    version = Game.objects.get(pk=game.pk).version

    Hand.objects.filter(round__game=game, round__number=2, player__seat=0).update(points=47)
    Player.objects.filter(game=game, seat=3).update(name="Zora")

    assert Game.objects.get(pk=game.pk).version == version  # nothing told the app
    for page in pages:
        response = client.get(page, headers=HTMX if "poll" in page else {})
        assert round_row(response, 2).texts(".points") == ["47", "0", "5", "5"]
        assert totals(response) == [52, 10, 10, 15]
        shown = read(response)
        if "poll" in page:  # a live update asks for the chart once it is in view
            extras = shown.one("#extras-refresh").get("hx-get")
            shown = read(client.get(extras, headers=HTMX))
        assert "After round 3: Ana 52, Boris 10, Cyril 10, Zora 15." in shown.text  # the chart
        assert "Dana" not in response.content.decode()  # nowhere, not even hidden


def test_a_blocked_round_shows_its_lowest_hand_and_nobody_out(client, every_kind_game):
    """Round 4 of every_kind is blocked: Ana's 5 is the lowest hand, which wins it and scores
    0, but nobody went out of it."""
    page = client.get(url("game", every_kind_game.edit_token))
    went_out = round_row(page, 1)
    assert len(went_out.select("td.went-out")) == 1
    assert went_out.texts(".note").count("out") == 1
    blocked = round_row(page, 4)
    assert not blocked.select(".went-out")
    (lowest,) = blocked.select("td.lowest")
    notes = blocked.texts(".note")
    assert notes.count("won: lowest hand") == 1
    assert lowest.texts(".note")[0] == "won: lowest hand"
    assert "out" not in " ".join(notes).split()
    assert lowest.one(".points").text == "0"


def test_a_shared_lowest_hand_is_marked_on_each_player(client, four_players):
    client.post(
        url("game", four_players.edit_token),
        round_post("blocked", {0: 5, 1: 5, 2: 30, 3: ("JK", "no")}),
    )
    blocked = round_row(client.get(url("game", four_players.edit_token)), 1)
    assert len(blocked.select("td.lowest")) == 2
    assert not blocked.select(".went-out")
    # Each of them wins the round.
    assert blocked.texts(".note").count("won: lowest hand") == 2


@pytest.mark.parametrize(
    ("names", "left", "closer"),
    [
        (["Ana", "Boris", "Cyril", "Dana"], None, False),
        (["Ana", "Boris", "Cyril", "Dana", "Eva"], None, True),
        (["Ana", "Boris", "Cyril", "Dana", "Eva", "Filip"], 2, True),
        (["Ana", "Boris", "Cyril", "Dana", "Eva"], 2, False),
    ],
)
def test_a_round_form_of_five_players_or_more_draws_its_rows_closer(client, names, left, closer):
    # rami.css sets the rows of five or six playing closer together (`five-or-more`), so that a
    # small phone shows every row and Save; it counts those playing, not the seats.
    game = Game.start(names)
    if left is not None:
        saved(client, game)
        game.leave(left)
        game = Game.objects.get(pk=game.pk)
        assert game.rounds.count() == 1
    for answer in (client.get(url("game", game.edit_token)), saved(client, game)):
        form = read(answer).select("#round-form")[0]
        assert ("five-or-more" in form.get("class").split()) is closer


def saved(client, game: Game):
    """The answer to a round saved from the page (htmx): the game body with a fresh form."""
    playing = [player.seat for player in game.playing]
    hands = {seat: 4 for seat in playing[1:]}
    return client.post(
        url("save", game.edit_token), round_post(playing[0], hands), headers={"HX-Request": "true"}
    )
