"""Shared links: the view link is read-only everywhere, QR codes decode to the links, and the
links work from phones when the page was opened as localhost."""

import re
import socket
from types import SimpleNamespace

import lxml.etree
import numpy
import pytest
import zxingcpp
from django.urls import get_resolver, reverse

from rami_site import addresses
from scoring.files.exchange import export_game
from scoring.models import Game
from scoring.web import sharing
from tests.conftest import round_post, totals
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db


def qr_codes(client, html: str, **asked) -> list[str]:
    """Decode every QR code a page shows: fetch each picture (an <img> at its link's address,
    asked as the page was: `asked`, its host or its scheme),
    read segno's SVG path back into modules, paint them as pixels, and let a real decoder
    (zxing-cpp) read the picture."""
    decoded = []
    for image in read(html).select("img.qr"):
        response = client.get(image.get("src"), **asked)
        assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
        svg = lxml.etree.fromstring(response.content)
        size = int(svg.get("viewBox").split()[2])
        path = svg.find('{http://www.w3.org/2000/svg}path[@stroke="#000"]').get("d")
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
    host = {"HTTP_HOST": "rami.example"}
    html = client.get(url("game", four_players.edit_token), **host).content.decode()
    edit = f"http://rami.example/g/{four_players.edit_token}/"
    view = f"http://rami.example/v/{four_players.view_token}/"
    assert f'value="{edit}"' in html and f'value="{view}"' in html
    assert qr_codes(client, html, **host) == [edit, view]


def test_links_opened_as_localhost_use_the_machines_network_address(
    client, four_players, monkeypatch
):
    monkeypatch.setattr(sharing, "_lan_address", lambda: "192.0.2.7")
    host = {"HTTP_HOST": "localhost:8000"}
    html = client.get(url("game", four_players.edit_token), **host).content.decode()
    assert f"http://192.0.2.7:8000/v/{four_players.view_token}/" in qr_codes(client, html, **host)
    assert "http://localhost" not in html


def test_rami_public_url_wins(client, four_players, settings):
    settings.RAMI_PUBLIC_URL = "https://rami.example.org/"
    host = {"HTTP_HOST": "127.0.0.1:8000"}
    html = client.get(url("game", four_players.edit_token), **host).content.decode()
    assert qr_codes(client, html, **host) == [
        f"https://rami.example.org/g/{four_players.edit_token}/",
        f"https://rami.example.org/v/{four_players.view_token}/",
    ]


def test_the_view_page_shows_the_scoreboard_and_only_the_view_link(client, every_kind_game):
    response = client.get(url("view", every_kind_game.view_token))
    html = response.content.decode()
    shown = read(html)
    assert response.status_code == 200
    assert "Ana wins the game!" in shown.text and 307 in totals(shown)
    assert every_kind_game.edit_token not in html
    assert not shown.select("[name=winner], [value=rematch]")
    assert "Edit round" not in " ".join(shown.strings())
    assert qr_codes(client, html) == [f"http://testserver/v/{every_kind_game.view_token}/"]
    assert shown.select(f'a[href="/v/{every_kind_game.view_token}/export.csv"]')


def test_the_view_link_cannot_change_anything(client, every_kind_game):
    view = every_kind_game.view_token
    before = export_game(every_kind_game)
    # The view link's own URLs take no change.
    for path in (
        url("view", view),
        url("view_poll", view),
        url("view_export_csv", view),
        url("view_export_json", view),
    ):
        for method in ("post", "put", "patch", "delete"):
            response = getattr(client, method)(path, round_post(0, {1: 1, 2: 1, 3: 1}))
            assert response.status_code == 405, (method, path)
    # The view token opens none of the edit link's URLs.
    for action in ({"action": "save"}, {"action": "delete", "number": "1"}, {"action": "rematch"}):
        assert client.post(url("game", view), action).status_code == 404
    assert (
        client.post(url("round", view, number=1), round_post(0, {1: 1, 2: 1, 3: 1})).status_code
        == 404
    )
    assert client.get(url("poll", view)).status_code == 404
    assert client.get(url("export_json", view)).status_code == 404
    assert export_game(every_kind_game) == before
    assert Game.objects.count() == 1


def watch_only_urls(game: Game, table) -> list[str]:
    """Every URL of a watch-only link (those the URL configuration gives `editable` false)."""
    urls = []
    for pattern in get_resolver().url_patterns[0].url_patterns:
        if pattern.default_args.get("editable") is False:
            token = table.view_token if pattern.name.startswith("table") else game.view_token
            urls.append(reverse(pattern.name, args=[token]))
    return urls


def test_every_watch_only_url_answers_only_get(client, every_kind_game, thursday_table):
    urls = watch_only_urls(every_kind_game, thursday_table)
    assert {address.split("/")[1] for address in urls} == {"v", "w"} and len(urls) == 9
    for address in urls:
        assert client.get(address).status_code == 200, address
        for method in ("post", "put", "patch", "delete", "head", "options"):
            response = getattr(client, method)(address)
            assert response.status_code == 405, (method, address)
            assert response["Allow"] == "GET"
            assert every_kind_game.edit_token not in response.content.decode()
    # Their edit links' pages take posts.
    edit = every_kind_game.edit_token
    assert client.post(url("game", edit), {"action": "nope"}).status_code == 400
    assert (
        client.post(url("table", thursday_table.edit_token), {"action": "nope"}).status_code == 400
    )


def test_unknown_tokens_are_a_plain_404(client, every_kind_game):
    for path in ("/v/nope/", "/v/nope/poll", "/g/nope/", "/g/nope/poll"):
        response = client.get(path)
        assert response.status_code == 404
        assert every_kind_game.edit_token not in response.content.decode()


def test_names_stay_inert_in_links_and_qr_codes(client):
    game = Game.start(["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'])
    html = client.get(url("game", game.edit_token)).content.decode()
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    # Shown as the name it is.
    assert "<script>alert(1)</script>" in read(html).text


# The network addresses the links use: `make run` prints them (rami_site/addresses.py), and a
# page opened on this machine (localhost, 127.0.0.1, [::1]) shares its links at the first.


class Probe:
    """A UDP socket whose connect() finds `address` as the route out (or raises OSError)."""

    def __init__(self, address: str | None) -> None:
        self.address = address

    def __call__(self, *args):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def connect(self, target):
        if self.address is None:
            raise OSError("Network is unreachable")

    def getsockname(self):
        return (self.address, 40000)


@pytest.fixture
def network(monkeypatch):
    """This machine's network as the test sets it: `names` the addresses its host name has
    (None: the name does not resolve), `route` the address of the way out (None: no route)."""
    setting = SimpleNamespace(names=[], route=None)

    def getaddrinfo(host, port, family):
        if setting.names is None:
            raise socket.gaierror("Name or service not known")
        return [(family, 2, 17, "", (address, 0)) for address in setting.names]

    monkeypatch.setattr(sharing.socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(sharing.socket, "socket", lambda *args: Probe(setting.route))
    sharing._lan_address.cache_clear()
    yield setting
    sharing._lan_address.cache_clear()


def test_make_run_names_each_network_address_once_and_no_loopback(network, capsys):
    network.names = ["127.0.1.1", "192.0.2.7", "192.0.2.7", "198.51.100.3"]
    addresses.main("8000")
    assert capsys.readouterr().out.splitlines() == [
        "Rami score keeper: open http://127.0.0.1:8000/ on this machine",
        "  and http://192.0.2.7:8000/ on a phone on the same network",
        "  and http://198.51.100.3:8000/ on a phone on the same network",
    ]


@pytest.mark.parametrize("names", [None, ["127.0.1.1"]])
def test_without_a_named_address_the_route_out_gives_it(client, four_players, network, names):
    network.names, network.route = names, "192.0.2.9"
    host = {"HTTP_HOST": "localhost:8000"}
    html = client.get(url("game", four_players.edit_token), **host).content.decode()
    assert qr_codes(client, html, **host) == [
        f"http://192.0.2.9:8000/g/{four_players.edit_token}/",
        f"http://192.0.2.9:8000/v/{four_players.view_token}/",
    ]


@pytest.mark.parametrize("route", [None, "127.0.0.1"])
def test_a_machine_off_the_network_shares_the_links_it_was_opened_by(
    client, four_players, network, capsys, route
):
    network.names, network.route = ["127.0.1.1"], route
    host = {"HTTP_HOST": "localhost:8000"}
    html = client.get(url("view", four_players.view_token), **host).content.decode()
    assert qr_codes(client, html, **host) == [f"http://localhost:8000/v/{four_players.view_token}/"]
    addresses.main("8000")
    assert "on a phone" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("host", "base"),
    [
        ("[::1]:8000", "http://192.0.2.7:8000"),
        ("[::1]", "http://192.0.2.7"),
        ("localhost", "http://192.0.2.7"),
        ("127.0.0.1:8000", "http://192.0.2.7:8000"),
        ("LOCALHOST:8000", "http://192.0.2.7:8000"),
        ("192.0.2.50:8000", "http://192.0.2.50:8000"),
        ("[2001:db8::5]:8000", "http://[2001:db8::5]:8000"),
    ],
)
def test_each_way_of_opening_the_page_shares_links_phones_can_open(
    client, four_players, network, host, base
):
    network.names = ["192.0.2.7"]
    html = client.get(url("view", four_players.view_token), HTTP_HOST=host).content.decode()
    assert qr_codes(client, html, HTTP_HOST=host) == [f"{base}/v/{four_players.view_token}/"]


def test_a_page_opened_over_https_shares_https_links(client, four_players):
    asked = {"HTTP_HOST": "rami.example", "secure": True}
    html = client.get(url("game", four_players.edit_token), **asked).content.decode()
    assert qr_codes(client, html, **asked) == [
        f"https://rami.example/g/{four_players.edit_token}/",
        f"https://rami.example/v/{four_players.view_token}/",
    ]


def test_rami_public_url_wins_on_the_table_pages_too(client, thursday_table, settings):
    settings.RAMI_PUBLIC_URL = "https://rami.example.org"
    host = {"HTTP_HOST": "localhost"}
    html = client.get(url("table", thursday_table.edit_token), **host).content.decode()
    assert qr_codes(client, html, **host) == [
        f"https://rami.example.org/t/{thursday_table.edit_token}/",
        f"https://rami.example.org/w/{thursday_table.view_token}/",
    ]


def test_a_qr_code_is_a_picture_that_screen_readers_skip_and_the_csp_allows(client, four_players):
    codes = read(client.get(url("game", four_players.edit_token))).select(".qr-box img")
    assert len(codes) == 2
    for code in codes:
        # Beside its link: nothing more to read out. From this site (the CSP's img-src 'self'),
        # loaded once the share panel is open.
        assert code.get("alt") == "" and code.get("loading") == "lazy"
        assert code.get("src").startswith("/")
        picture = client.get(code.get("src")).content.decode()
        assert picture.startswith("<svg") and "style" not in picture and "<script" not in picture
        assert four_players.edit_token not in picture


def test_a_qr_code_is_kept_by_the_browser_alone(client, four_players):
    """A link's QR code never changes: the browser keeps it, and only the browser, since the
    players' link's code holds their edit token."""
    html = client.get(url("game", four_players.edit_token)).content.decode()
    edit, view = [code.get("src") for code in read(html).select(".qr-box img")]
    assert edit.startswith(f"/g/{four_players.edit_token}/qr.svg?for=")
    assert view.startswith(f"/v/{four_players.view_token}/qr.svg?for=")
    for address in (edit, view):
        kept = client.get(address)["Cache-Control"].split(", ")
        assert sorted(kept) == ["immutable", "max-age=31536000", "private"]
    # Asked by a page drawn for another address of the server: the code of the link as it is
    # now, not kept.
    stale = client.get(f"/g/{four_players.edit_token}/qr.svg?for=0123456789abcdef")
    assert stale.status_code == 200 and stale["Cache-Control"] == "private, no-store"


def test_a_qr_code_of_an_unknown_link_is_a_404(client, four_players, thursday_table):
    for address in (
        f"/g/{four_players.view_token}/qr.svg",
        f"/v/{four_players.edit_token}/qr.svg",
        f"/t/{thursday_table.view_token}/qr.svg",
        f"/w/{'x' * 32}/qr.svg",
    ):
        assert client.get(address).status_code == 404, address
    assert client.post(f"/v/{four_players.view_token}/qr.svg").status_code == 405
