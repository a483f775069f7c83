"""Shared links: the view link is read-only everywhere, QR codes decode to the links, and the
links work from phones when the page was opened as localhost."""

import re
from html import unescape

import numpy
import pytest
import zxingcpp

from scoring import sharing
from scoring.exchange import export_game
from scoring.models import Game
from tests.conftest import round_post, without_bdi

pytestmark = pytest.mark.django_db


def qr_codes(html: str) -> list[str]:
    """Decode every QR code drawn on a page: read segno's SVG path back into modules, paint
    them as pixels, and let a real decoder (zxing-cpp) read the picture."""
    decoded = []
    for size, path in re.findall(
        r'<svg[^>]*viewBox="0 0 (\d+) \d+"[^>]*class="qr".*?<path stroke="#000" d="([^"]+)"',
        html,
        re.S,
    ):
        size = int(size)
        modules = numpy.full((size, size), 255, dtype=numpy.uint8)
        x = y = 0.0
        for command, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path):
            if command == "M":
                x, y = float(a), float(b)
            elif command == "m":
                x, y = x + float(a), y + float(b)
            else:
                length = int(float(a))
                modules[int(y), int(x) : int(x) + length] = 0
                x += length
        picture = numpy.kron(modules, numpy.ones((8, 8), dtype=numpy.uint8))
        decoded += [result.text for result in zxingcpp.read_barcodes(picture)]
    return decoded


def test_both_links_and_their_qr_codes_are_on_the_game_page(client, four_players):
    html = client.get(f"/g/{four_players.edit_token}/", HTTP_HOST="rami.example").content.decode()
    edit = f"http://rami.example/g/{four_players.edit_token}/"
    view = f"http://rami.example/v/{four_players.view_token}/"
    assert f'value="{edit}"' in html and f'value="{view}"' in html
    assert qr_codes(html) == [edit, view]


def test_links_opened_as_localhost_use_the_machines_network_address(
    client, four_players, monkeypatch
):
    monkeypatch.setattr(sharing, "_lan_address", lambda: "192.0.2.7")
    html = client.get(f"/g/{four_players.edit_token}/", HTTP_HOST="localhost:8000").content.decode()
    assert f"http://192.0.2.7:8000/v/{four_players.view_token}/" in qr_codes(html)
    assert "http://localhost" not in html


def test_rami_public_url_wins(client, four_players, settings):
    settings.RAMI_PUBLIC_URL = "https://rami.example.org/"
    html = client.get(f"/g/{four_players.edit_token}/", HTTP_HOST="127.0.0.1:8000").content.decode()
    assert qr_codes(html) == [
        f"https://rami.example.org/g/{four_players.edit_token}/",
        f"https://rami.example.org/v/{four_players.view_token}/",
    ]


def test_the_view_page_shows_the_scoreboard_and_only_the_view_link(client, every_kind_game):
    response = client.get(f"/v/{every_kind_game.view_token}/")
    html = without_bdi(response.content.decode())
    assert response.status_code == 200
    assert "Ana wins the game!" in html and '<span class="sum">307</span>' in html
    assert every_kind_game.edit_token not in html
    assert (
        'name="winner"' not in html and 'value="rematch"' not in html and "Edit round" not in html
    )
    assert qr_codes(html) == [f"http://testserver/v/{every_kind_game.view_token}/"]
    assert f'href="/v/{every_kind_game.view_token}/export.csv"' in html


def test_the_view_link_cannot_change_anything(client, every_kind_game):
    view = every_kind_game.view_token
    before = export_game(every_kind_game)
    # The view link's own URLs take no change.
    for path in (
        f"/v/{view}/",
        f"/v/{view}/poll",
        f"/v/{view}/export.csv",
        f"/v/{view}/export.json",
    ):
        for method in ("post", "put", "patch", "delete"):
            response = getattr(client, method)(path, round_post(0, {1: 1, 2: 1, 3: 1}))
            assert response.status_code == 405, (method, path)
    # The view token opens none of the edit link's URLs.
    for action in ({"action": "save"}, {"action": "delete", "number": "1"}, {"action": "rematch"}):
        assert client.post(f"/g/{view}/", action).status_code == 404
    assert client.post(f"/g/{view}/rounds/1/", round_post(0, {1: 1, 2: 1, 3: 1})).status_code == 404
    assert client.get(f"/g/{view}/poll").status_code == 404
    assert client.get(f"/g/{view}/export.json").status_code == 404
    assert export_game(every_kind_game) == before
    assert Game.objects.count() == 1


def test_unknown_tokens_are_a_plain_404(client, every_kind_game):
    for path in ("/v/nope/", "/v/nope/poll", "/g/nope/", "/g/nope/poll"):
        response = client.get(path)
        assert response.status_code == 404
        assert every_kind_game.edit_token not in response.content.decode()


def test_names_stay_inert_in_links_and_qr_codes(client):
    game = Game.start(["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'])
    html = client.get(f"/g/{game.edit_token}/").content.decode()
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert unescape("&lt;script&gt;") in unescape(html)
