"""Editing a round at /g/<edit-token>/rounds/<number>/."""

import pytest
from django.test import Client

from tests.conftest import edit_post
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db


def test_the_edit_form_is_prefilled(client, every_kind_game):
    shown = read(client.get(url("round", every_kind_game.edit_token, number=1)))
    assert "Edit round 1" in shown.text
    assert shown.one("#id_cards_1").get("value") == "AH JK 5C"
    assert shown.one("#id_value_2").get("value") == "20"
    assert [button.get("id") for button in shown.select("input[name=winner]:checked")] == [
        "id_winner_0"
    ]


def test_editing_a_round_recomputes_every_total_and_the_state(client, every_kind_game):
    data = edit_post(every_kind_game, 3, 0, {1: 10, 2: 10, 3: 10})
    response = client.post(url("round", every_kind_game.edit_token, number=3), data)
    assert response.status_code == 303
    round_ = every_kind_game.rounds.get(number=3)
    assert response["Location"] == f"/g/{every_kind_game.edit_token}/?changed={round_.pk}"
    # The page says what the round is now, above the new totals, with the Undo of the edit
    # on this phone only.
    html = client.get(response["Location"]).content.decode()
    banner = read(html).one(".banner.saved")
    assert "Round 3 saved with your changes." in banner.text
    assert banner.texts("button[value=undo]") == ["Undo"]
    # Its points stand in each player's row, under the new total.
    assert read(html).texts(".last") == [f"Round 3: +{points}" for points in (0, 10, 10, 10)]
    other = read(Client().get(response["Location"]))
    assert "Round 3 saved with your changes." in other.text
    assert not other.select("button[value=undo]")
    assert html.index("Round 3 saved with your changes.") < html.index('id="totals"')
    assert every_kind_game.totals() == [200, 253, 266, 51]
    every_kind_game.refresh_from_db()
    assert every_kind_game.status == "playing"


def test_the_page_after_an_edit_says_nothing_of_it_once_another_change_landed(
    client, every_kind_game
):
    """Without JavaScript the page after an edit is `?changed=<id>`: drawn again after
    another change to the rounds, it no longer says the round was just changed."""
    data = edit_post(every_kind_game, 3, 0, {1: 10, 2: 10, 3: 10})
    after = client.post(url("round", every_kind_game.edit_token, number=3), data)["Location"]
    assert "Round 3 saved with your changes." in read(client.get(after)).text
    data = edit_post(every_kind_game, 2, 0, {1: 10, 2: 10, 3: 10})
    assert client.post(url("round", every_kind_game.edit_token, number=2), data).status_code == 303
    again = read(client.get(after))
    assert "Round 3 saved with your changes." not in again.text
    assert not again.select(".banner.saved")


def test_an_invalid_edit_keeps_what_was_typed(client, every_kind_game):
    shown = read(
        client.post(
            url("round", every_kind_game.edit_token, number=1),
            edit_post(every_kind_game, 1, 0, {1: "ZZ", 2: 3, 3: 4}),
        )
    )
    assert "Unknown card “ZZ”" in shown.one("#errors-1").text
    assert shown.one("#id_cards_1").get("value") == "ZZ"
    assert every_kind_game.totals() == [200, 307, 266, 210]


def test_an_unknown_round_is_404(client, every_kind_game):
    assert client.get(url("round", every_kind_game.edit_token, number=9)).status_code == 404
