"""What the benchmark (bench/run.py, `make bench`) measures, guarded without timings: the
queries each page makes, whatever the number of rounds; the weight of a first visit of the game
page; static files cached for a year; pages sent gzipped."""

import gzip
import re
import uuid

import pytest
from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage

from scoring.models import Game
from tests.conftest import round_post

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
KB = 1024
YEAR = 365 * 24 * 3600
PLAYERS = ["Ana", "Boris", "Cyril", "Dana", "Emil", "Fran"]
# Small hands, as in bench/seed.py: cards in most hands, and nobody near the target (500).
HANDS = [{"cards": ["2S"]}, {"cards": ["3H"]}, {"cards": ["2C"]}, {"value": 1}, {"value": 0}]


def six_player_game(rounds: int) -> Game:
    """A 6-player game of `rounds` rounds, recorded through the model, as the benchmark's."""
    documents = []
    for number in range(rounds):
        winner = number % 6
        losers = [name for seat, name in enumerate(PLAYERS) if seat != winner]
        hands = {name: HANDS[(number + i) % len(HANDS)] for i, name in enumerate(losers)}
        documents.append({"winner": PLAYERS[winner], "hands": hands})
    return Game.from_document({"format": "rami-game/1", "players": PLAYERS, "rounds": documents})


def save_data(**extra) -> dict:
    hands = {1: 1, 2: 0, 3: 0, 4: 0, 5: 0}
    return round_post(0, hands, key=uuid.uuid4().hex, **extra)


# Queries: each page's count is fixed, whatever the number of rounds.


def test_the_start_page_and_the_rules_page_make_no_query(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert client.get("/").status_code == 200
    with django_assert_num_queries(0):
        assert client.get("/rules/").status_code == 200


@pytest.mark.parametrize("rounds", [5, 80])
def test_the_view_page_makes_a_fixed_number_of_queries(
    client, rounds, django_assert_max_num_queries
):
    game = six_player_game(rounds)
    # The game, its version, the players, the rounds, their hands.
    with django_assert_max_num_queries(5):
        response = client.get(f"/v/{game.view_token}/")
    assert response.status_code == 200
    assert response.content.count(b'class="round-number"') == rounds


@pytest.mark.parametrize("rounds", [5, 80])
def test_a_changed_poll_makes_a_fixed_number_of_queries(
    client, rounds, django_assert_max_num_queries
):
    game = six_player_game(rounds)
    # The version, the game, the board's version, the players, the rounds, their hands, the
    # last change; for the next phone, the board read by the first serves.
    with django_assert_max_num_queries(7):
        response = client.get(f"/g/{game.edit_token}/poll?v=0", headers=HTMX)
    assert response.status_code == 200
    assert response.content.count(b'class="round-number"') == rounds
    with django_assert_max_num_queries(4):
        again = client.get(f"/g/{game.edit_token}/poll?v=0", headers=HTMX)
    assert again.content.count(b'class="round-number"') == rounds


@pytest.mark.parametrize("rounds", [5, 80])
def test_saving_and_previewing_a_round_never_read_every_round(
    client, rounds, django_assert_max_num_queries
):
    game = six_player_game(rounds)
    page = f"/g/{game.edit_token}/"
    with django_assert_max_num_queries(3):
        preview = client.post(page, {**save_data(), "action": "preview"}, headers=HTMX)
    assert preview.status_code == 200
    assert 'id="points-1" class="points-preview" hx-swap-oob="true">1<' in preview.content.decode()
    with django_assert_max_num_queries(20):
        assert client.post(page, save_data()).status_code == 303
    assert game.rounds.count() == rounds + 1


# Weight: the first visit of a 60-round game page, everything it loads, at most 60 KB gzipped.


def linked_static_files(html: str) -> list[str]:
    """The stylesheets and scripts the page links, as names in the static files storage."""
    urls = re.findall(r'<(?:link[^>]+rel="stylesheet"[^>]*href|script[^>]+src)="([^"]+)"', html)
    assert urls, "the page links no stylesheet or script"
    prefix = "/" + settings.STATIC_URL.lstrip("/")
    return [url.removeprefix(prefix) for url in urls]


def test_the_first_visit_of_the_game_page_weighs_at_most_60_kb_gzipped(client):
    game = six_player_game(60)
    html = client.get(f"/g/{game.edit_token}/").content
    names = linked_static_files(html.decode())
    assert any(name.endswith(".css") for name in names)
    assert any("htmx" in name for name in names)
    sizes = {"page": len(gzip.compress(html))}
    for name in names:
        with staticfiles_storage.open(name) as static_file:
            sizes[name] = len(gzip.compress(static_file.read()))
    assert sum(sizes.values()) <= 60 * KB, sizes


def test_pages_are_sent_gzipped(client):
    game = six_player_game(10)
    response = client.get(f"/g/{game.edit_token}/", headers={"Accept-Encoding": "gzip"})
    assert response["Content-Encoding"] == "gzip"
    assert b'class="round-table"' in gzip.decompress(response.content)


def test_static_files_are_served_by_hashed_name_and_cached_for_a_year(client):
    html = client.get("/").content.decode()
    for name in linked_static_files(html):
        assert re.search(r"\.[0-9a-f]{12}\.(css|js)$", name), name
        response = client.get(settings.STATIC_URL + name)
        assert response.status_code == 200, name
        max_age = re.search(r"max-age=(\d+)", response["Cache-Control"])
        assert max_age and int(max_age.group(1)) >= YEAR, response["Cache-Control"]
        assert "immutable" in response["Cache-Control"]
