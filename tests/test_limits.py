"""One client starts at most RAMI_NEW_GAMES_PER_MINUTE games a minute (scoring/limits.py);
past that, the start page answers 429 with Retry-After, the names kept and a clear error, and
starts nothing."""

from html import unescape
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.test import RequestFactory

from scoring import limits
from scoring.models import Game

pytestmark = pytest.mark.django_db

MESSAGE = "Too many new games from this device: wait a minute, then try again."
NAMES = {"player_0": "Ana", "player_1": "Boris", "player_2": "Cyril"}


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    """An empty cache (no count left by another test) and a clock that moves only when told,
    so that no test straddles the turn of a minute."""
    cache.clear()
    now = SimpleNamespace(value=600_020.0)  # 20 s into a minute
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: now.value))
    yield now
    cache.clear()


def start(client, **extra):
    return client.post("/", NAMES, **extra)


def test_the_31st_new_game_in_a_minute_is_refused_and_starts_nothing(client, settings):
    assert settings.RAMI_NEW_GAMES_PER_MINUTE == 30
    for _ in range(30):
        assert start(client).status_code == 303
    response = start(client)
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    html = unescape(response.content.decode())
    # A non-field error of the start form, with the names as they were typed.
    assert f'<div class="errors" role="alert"><p>{MESSAGE}</p></div>' in html
    for name in NAMES.values():
        assert f'value="{name}"' in html
    assert Game.objects.count() == 30


def test_another_client_is_not_limited(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 2
    for _ in range(2):
        assert start(client).status_code == 303
    assert start(client).status_code == 429
    assert start(client, REMOTE_ADDR="192.0.2.7").status_code == 303
    assert start(client, REMOTE_ADDR="2001:db8::7").status_code == 303
    assert Game.objects.count() == 4


def test_the_next_minute_may_start_games_again(client, settings, clock):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    assert start(client).status_code == 303
    clock.value += 39  # 600_059: the last second of the same minute
    assert start(client).status_code == 429
    clock.value += 1  # 600_060: the next minute
    assert start(client).status_code == 303


def test_forms_that_start_nothing_are_not_counted(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    for _ in range(5):
        assert client.post("/", {"player_0": "Ana"}).status_code == 200
    client.get("/")
    assert start(client).status_code == 303


def test_with_htmx_the_refusal_is_the_same(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    assert start(client, headers={"HX-Request": "true"}).status_code == 200  # HX-Redirect
    response = start(client, headers={"HX-Request": "true"})
    assert response.status_code == 429
    assert MESSAGE in unescape(response.content.decode())


def test_x_forwarded_for_is_ignored_unless_a_setting_trusts_it(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    assert start(client, HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 303
    assert start(client, HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 429

    settings.RAMI_TRUST_X_FORWARDED_FOR = True
    # The proxy appends the address it saw; what comes before is the client's own say.
    assert start(client, HTTP_X_FORWARDED_FOR="10.9.9.9, 198.51.100.3").status_code == 303
    assert start(client, HTTP_X_FORWARDED_FOR="10.9.9.8, 198.51.100.3").status_code == 429
    assert start(client, HTTP_X_FORWARDED_FOR="198.51.100.4").status_code == 303


def test_zero_means_no_limit(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 0
    for _ in range(35):
        assert start(client).status_code == 303


def test_allow_counts_each_action_and_client_apart():
    request = RequestFactory().post("/", REMOTE_ADDR="203.0.113.5")
    assert [limits.allow(request, "a", 2) for _ in range(3)] == [True, True, False]
    assert limits.allow(request, "b", 2)
    other = RequestFactory().post("/", REMOTE_ADDR="203.0.113.6")
    assert limits.allow(other, "a", 2)
