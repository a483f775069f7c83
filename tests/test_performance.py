"""What the benchmark (bench/run.py, `make bench`) measures, guarded without timings: the
queries each page makes, whatever the number of rounds; the weight of a first visit of the game
page; static files cached for a year; pages sent gzipped. And what the game page does to be
fast without a page cache: card faces and form inputs drawn as Django would draw them."""

import gzip
import re
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from scoring.board.scoreboard import Scoreboard
from scoring.files.exchange import import_game
from scoring.forms import RoundForm
from scoring.models import Game
from scoring.rules import card_names
from scoring.templatetags.rami import card, hand_cards
from scripts.long_games import six_player_document
from tests.conftest import round_post
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
KB = 1024
YEAR = 365 * 24 * 3600


def six_player_game(rounds: int) -> Game:
    """A 6-player game of `rounds` rounds, recorded through the model, as the benchmark's."""
    return import_game(six_player_document(rounds))


def save_data(**extra) -> dict:
    hands = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2}
    return round_post(0, hands, key=uuid.uuid4().hex, **extra)


# Queries: each page's count is fixed, whatever the number of rounds.


def test_the_start_page_and_the_rules_page_make_no_query(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert client.get("/").status_code == 200
    with django_assert_num_queries(0):
        assert client.get("/rules/").status_code == 200


def queries_and_rows(client, path: str) -> tuple[int, int]:
    """How many queries a page took, and how many round rows it shows."""
    headers = HTMX if "poll" in path else {}
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, headers=headers)
    assert response.status_code == 200
    return len(queries), response.content.count(b'class="round-number"')


@pytest.mark.parametrize(
    "page, most",
    [
        # The game, the players, the rounds, their hands, the last change (for Undo).
        ("/g/{edit}/", 5),
        ("/g/{edit}/?rounds=all", 5),
        # The same but the last change: the view page offers no Undo.
        ("/v/{view}/", 4),
        # The version first (what an unchanged poll reads, and all it reads), then the rest.
        ("/g/{edit}/poll?v=0", 6),
    ],
)
def test_each_game_page_makes_as_many_queries_for_10_rounds_as_for_60(client, page, most):
    """Drawn fresh on every visit, from the rows as they are: the second visit makes as many
    queries as the first, and a game of 60 rounds as many as one of 10. The page shows the
    latest rounds (all of them after "Show all")."""
    counts = []
    for rounds in (10, 60):
        game = six_player_game(rounds)
        path = page.format(edit=game.edit_token, view=game.view_token)
        shown = rounds if "rounds=all" in path else min(rounds, Scoreboard.SHOWN_ROUNDS)
        for _visit in range(2):
            queries, rows = queries_and_rows(client, path)
            assert rows == shown
            counts.append(queries)
    assert len(set(counts)) == 1, counts
    assert counts[0] <= most, counts


@pytest.mark.parametrize("rounds", [5, 80])
def test_saving_and_previewing_a_round_never_read_every_round(
    client, rounds, django_assert_max_num_queries
):
    game = six_player_game(rounds)
    page = url("game", game.edit_token)
    with django_assert_max_num_queries(3):
        preview = client.post(page, {**save_data(), "action": "preview"}, headers=HTMX)
    assert preview.status_code == 200
    points = read(preview).one("#points-1")
    assert (points.text, points.get("hx-swap-oob")) == ("2", "true")
    # The budgets of a save: 10 queries, 12 with the htmx answer (the new board: its rounds,
    # and the latest change, which also says whether this phone may undo the save), whatever
    # the number of rounds, counted as the test transaction runs them.
    with django_assert_max_num_queries(10):
        assert client.post(page, save_data()).status_code == 303
    with django_assert_max_num_queries(12):
        assert client.post(page, save_data(), headers=HTMX).status_code == 200
    assert game.rounds.count() == rounds + 2


# Weight: the first visit of a 60-round game page, everything it loads, at most 60 KB gzipped.


def linked_static_files(html: str) -> list[str]:
    """The stylesheets and scripts the page links, as names in the static files storage."""
    linked = read(html).select('link[rel="stylesheet"], script[src]')
    urls = [element.get("href") or element.get("src") for element in linked]
    assert urls, "the page links no stylesheet or script"
    prefix = "/" + settings.STATIC_URL.lstrip("/")
    return [address.removeprefix(prefix) for address in urls]


def test_the_first_visit_of_the_game_page_weighs_at_most_60_kb_gzipped(client):
    game = six_player_game(60)
    html = client.get(url("game", game.edit_token)).content
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
    response = client.get(url("game", game.edit_token), headers={"Accept-Encoding": "gzip"})
    assert response["Content-Encoding"] == "gzip"
    assert b'class="round-table"' in gzip.decompress(response.content)
    assert "Accept-Encoding" in response["Vary"]


def test_a_page_is_compressed_at_level_4_with_django_s_padding_against_breach():
    """rami_site.middleware.GZipMiddleware.compress beside Django's compress_string: the same
    page back, at a cost that buys a few bytes less; a name of random length in the header."""
    from django.utils.text import compress_string

    from rami_site.middleware import GZipMiddleware

    page = Path(__file__).with_name("games").joinpath("every_kind.json").read_bytes() * 40
    ours = GZipMiddleware(lambda request: None)
    sent = [ours.compress(page) for _ in range(20)]
    django_s = compress_string(page, max_random_bytes=ours.max_random_bytes)
    assert all(gzip.decompress(one) == page for one in [*sent, django_s])
    assert all(one[3] & gzip.FNAME for one in [*sent, django_s])
    assert len({len(one) for one in sent}) > 5  # the padding differs from answer to answer
    level_4 = len(gzip.compress(page, compresslevel=4, mtime=0))
    assert {len(one) - level_4 for one in sent} <= set(range(1, ours.max_random_bytes + 1))


def test_static_files_are_served_by_hashed_name_and_cached_for_a_year(client):
    html = client.get("/").content.decode()
    for name in linked_static_files(html):
        assert re.search(r"\.[0-9a-f]{12}\.(css|js)$", name), name
        response = client.get(settings.STATIC_URL + name)
        assert response.status_code == 200, name
        max_age = re.search(r"max-age=(\d+)", response["Cache-Control"])
        assert max_age and int(max_age.group(1)) >= YEAR, response["Cache-Control"]
        assert "immutable" in response["Cache-Control"]


# Drawn cheaply, drawn the same: card faces in Python, the round form's inputs in its template.


def test_a_card_face_is_drawn_once_per_language_with_its_full_name():
    assert card("AH") == (
        '<span class="card card-red" role="img" aria-label="ace of hearts">A♥</span>'
    )
    assert card("JK") == '<span class="card card-joker" role="img" aria-label="joker">★</span>'
    assert card("10C") == '<span class="card" role="img" aria-label="ten of clubs">10♣</span>'
    assert card("ah") == card("AH")  # a code written otherwise is drawn as its card
    with translation.override("cs"):
        assert card("AH") == (
            '<span class="card card-red" role="img" aria-label="srdcové eso">A♥</span>'
        )
        assert hand_cards(["AH", "JK"]) == card("AH") + card("JK")
    assert hand_cards([]) == ""
    for code in card_names.ALL_CODES:
        face = card_names.card_face(code)
        assert f'aria-label="{face.name}">{face.label}{face.symbol}</span>' in card(code)


def inputs(html: str) -> list[dict]:
    """Each <input> of a piece of HTML, as its attributes."""
    return [field.attrs for field in read(html).select("input")]


def drawn_by_django(form: RoundForm) -> list[dict]:
    """The form's inputs as Django's widgets draw them, in the template's order."""
    html = [str(field) for field in form.hidden_fields()]
    for seat in form.seats():
        html.append(seat["winner_choice"].tag())
        html += [str(seat["value"]), str(seat["not_opened"]), str(seat["cards"])]
    html.append(list(form["winner"])[-1].tag())
    html.append(str(form["hand_rummy"]))
    return inputs("".join(html))


ROUND_FORMS = {
    "new": None,
    "typed": {
        "winner": "1",
        "for_round": "3",
        "key": 'k"<&>',
        "cards_0": 'AH "JK" <5C> & 10h',
        "value_2": "17",
        "not_opened_3": "on",
        "value_3": "0",
    },
    "invalid": {"winner": "nobody", "value_1": "-3", "cards_2": "AH AH AH", "round": "x"},
    "hand rummy, blocked": {"winner": "blocked", "hand_rummy": "on", "value_0": "4"},
    "edited": {
        "winner": "blocked",
        "for_round": 12,
        "round": 1234,
        "revision": 2,
        "cards_0": "AH JK",
        "value_1": 0,
        "value_2": 7,
        "value_3": 9,
        "not_opened_3": True,
    },
}


@pytest.mark.parametrize("kind", ROUND_FORMS)
def test_the_round_forms_inputs_are_the_ones_django_draws(kind):
    """templates/scoring/_round_form.html writes its inputs out instead of drawing them through
    the form renderer: every input, with every attribute (value, checked, required,
    maxlength, min, max, aria-invalid ...), must be what Django's widget would draw."""
    game = Game.start(["Ana", 'Bo"ris', "<Cyril>", "D&na"])
    data = ROUND_FORMS[kind]
    if kind == "edited":
        form = RoundForm(
            players=game.seated_players, target=300, house_rules=game.rules, initial=data
        )
    else:
        form = RoundForm(data, players=game.seated_players, target=300, house_rules=game.rules)
        form.initial["for_round"] = 1
        if data:
            form.is_valid()
    html = render_to_string("scoring/_round_form.html", {"form": form, "action": "/g/x/"})
    drawn = inputs(html)
    assert drawn == drawn_by_django(form)
    assert len(drawn) == 5 + 5 + 1 + 3 * 4  # hidden: round, revision, key, for_round, players
    if kind == "invalid":
        assert any(attrs.get("aria-invalid") == "true" for attrs in drawn)
