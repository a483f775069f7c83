"""Editing a round at /g/<edit-token>/rounds/<number>/."""

import re
from html import unescape

import pytest
from django.test import Client

from tests.conftest import edit_post, without_bdi

pytestmark = pytest.mark.django_db


def url(game, number):
    return f"/g/{game.edit_token}/rounds/{number}/"


def test_the_edit_form_is_prefilled(client, every_kind_game):
    html = client.get(url(every_kind_game, 1)).content.decode()
    assert "Edit round 1" in html
    assert 'value="AH JK 5C"' in html
    assert 'value="20"' in html
    assert (
        'id="id_winner_0" checked' in html or 'value="0" id="id_winner_0" required checked' in html
    )


def test_editing_a_round_recomputes_every_total_and_the_state(client, every_kind_game):
    data = edit_post(every_kind_game, 3, 0, {1: 10, 2: 10, 3: 10})
    response = client.post(url(every_kind_game, 3), data)
    assert response.status_code == 303
    round_ = every_kind_game.rounds.get(number=3)
    assert response["Location"] == f"/g/{every_kind_game.edit_token}/?changed={round_.pk}"
    # The page says what the round is now, above the new totals, with the Undo of the edit
    # on this phone only.
    html = without_bdi(client.get(response["Location"]).content.decode())
    banner = re.search(r'<div class="banner saved".*?</div>', html, re.S)[0]
    assert "Round 3 changed." in banner and 'value="undo"' in banner
    # Its points stand in each player's row, under the new total.
    assert re.findall(r'<span class="last">.*?\+(\d+)</span>', html) == ["0", "10", "10", "10"]
    other = without_bdi(Client().get(response["Location"]).content.decode())
    assert "Round 3 changed." in other and 'value="undo"' not in other
    assert html.index("Round 3 changed.") < html.index('id="totals"')
    assert every_kind_game.totals() == [200, 253, 266, 51]
    every_kind_game.refresh_from_db()
    assert every_kind_game.status == "playing"


def test_an_invalid_edit_keeps_what_was_typed(client, every_kind_game):
    html = unescape(
        client.post(
            url(every_kind_game, 1), edit_post(every_kind_game, 1, 0, {1: "ZZ", 2: 3, 3: 4})
        ).content.decode()
    )
    assert "Unknown card “ZZ”" in html and 'value="ZZ"' in html
    assert every_kind_game.totals() == [200, 307, 266, 210]


def test_an_unknown_round_is_404(client, every_kind_game):
    assert client.get(url(every_kind_game, 9)).status_code == 404
