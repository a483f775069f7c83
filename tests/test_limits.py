"""One client starts at most RAMI_NEW_GAMES_PER_MINUTE games a minute, and six times that an
hour (scoring/web/limits.py); past that, the start page answers 429 with Retry-After, the names
kept and a clear error, and starts nothing. A hall's forty tables behind one address start
their games at once."""

from types import SimpleNamespace

import pytest
from django.core.cache import cache, caches
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse

from scoring.models import Game, Table
from scoring.web import limits
from tests.conftest import finished_game
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

MESSAGE = "Too many new games from this device: wait a minute, then try again."
NAMES = {"player_0": "Ana", "player_1": "Boris", "player_2": "Cyril"}


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    """Empty caches (no count left by another test) and a clock that moves only when told,
    so that no test straddles the turn of a minute."""
    cache.clear()
    caches["limits"].clear()
    now = SimpleNamespace(value=600_020.0)  # 20 s into a minute
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: now.value))
    yield now
    cache.clear()
    caches["limits"].clear()


def start(client, **extra):
    return client.post("/", NAMES, **extra)


def test_the_101st_new_game_in_a_minute_is_refused_and_starts_nothing(client, settings):
    assert settings.RAMI_NEW_GAMES_PER_MINUTE == 100
    for _ in range(100):
        assert start(client).status_code == 303
    response = start(client)
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    shown = read(response)
    # A non-field error of the start form, with the names as they were typed.
    assert shown.one('.errors[role="alert"]').text == MESSAGE
    for field, name in NAMES.items():
        assert shown.one(f"input[name={field}]").get("value") == name
    assert Game.objects.count() == 100


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
    assert MESSAGE in read(response).text


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


# Every way to make a game is counted, and the counts live apart from the page fragments.


def rematch(client, game: Game, **extra):
    return client.post(url("game", game.edit_token), {"action": "rematch"}, **extra)


def test_a_rematch_is_a_new_game_and_is_counted(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 2
    first, second, third = finished_game(), finished_game(), finished_game()
    assert start(client).status_code == 303
    assert rematch(client, first).status_code == 303
    response = rematch(client, second)
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    assert MESSAGE in read(response).text
    second.refresh_from_db()
    assert second.next_game is None
    # A second tap on a rematch made already goes to it: no new game, nothing counted.
    response = rematch(client, first)
    first.refresh_from_db()
    assert response.status_code == 303
    assert response["Location"] == f"/g/{first.next_game.edit_token}/"
    assert rematch(client, third, headers={"HX-Request": "true"}).status_code == 429
    assert Game.objects.count() == 3 + 1 + 1


def test_a_new_game_from_a_table_counts_with_the_others(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    table = Table.start("Friday", ["Ana", "Boris"])
    assert start(client).status_code == 303
    play = {"action": "play", "play-members": [str(m.pk) for m in table.members.all()]}
    response = client.post(url("table", table.edit_token), play)
    assert response.status_code == 429
    assert MESSAGE in read(response).text
    assert table.games.count() == 0


def test_page_fragments_filling_the_default_cache_do_not_reset_the_count(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 2
    for _ in range(2):
        assert start(client).status_code == 303
    # What about 1,200 page views leave in the default cache: its fragments.
    for number in range(1200):
        cache.set(f"template.cache.game_rounds.{number}", "<tr>…</tr>")
    assert start(client).status_code == 429


# A table's pages: a new table (its own form, or a game kept at a new table) and a new game
# from a table are counted as the start page's games are; adding a member is not.

TABLE_MESSAGE = "Too many new tables from this device: wait a minute, then try again."
NEW_TABLE = {"name": "Thursday", "member_0": "Ana", "member_1": "Boris"}


def test_the_new_table_form_past_the_limit_answers_429_with_everything_typed(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    assert client.post(reverse("table_start"), NEW_TABLE).status_code == 303
    response = client.post(reverse("table_start"), NEW_TABLE)
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    shown = read(response)
    assert shown.one('.errors[role="alert"]').text == TABLE_MESSAGE
    for field, name in NEW_TABLE.items():
        assert shown.one(f"input[name={field}]").get("value") == name
    assert Table.objects.count() == 1


def test_new_tables_and_new_games_are_counted_apart(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    assert start(client).status_code == 303
    assert client.post(reverse("table_start"), NEW_TABLE).status_code == 303
    assert start(client).status_code == 429
    assert client.post(reverse("table_start"), NEW_TABLE).status_code == 429


def test_a_new_game_from_a_table_past_the_limit_keeps_the_toggles_and_the_guest(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    table = Table.start("Friday", ["Ana", "Boris", "Cyril"])
    members = {member.name: member.pk for member in table.members.all()}
    play = {"action": "play", "play-members": [members["Ana"], members["Cyril"]]}
    assert client.post(url("table", table.edit_token), play).status_code == 303
    response = client.post(url("table", table.edit_token), {**play, "play-guest_0": "Eva"})
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    shown = read(response)
    assert shown.one('.errors[role="alert"]').text == MESSAGE
    assert shown.one("input[name=play-guest_0]").get("value") == "Eva"
    toggled = shown.select("input[name=play-members]:checked")
    assert [toggle.get("value") for toggle in toggled] == [
        str(members["Ana"]),
        str(members["Cyril"]),
    ]
    assert table.games.count() == 1


def test_adding_members_is_not_limited(client, settings):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    table = Table.start("Friday", ["Ana"])
    for name in ("Boris", "Cyril", "Dana"):
        add = {"action": "add_member", "add-name": name}
        assert client.post(url("table", table.edit_token), add).status_code == 303
    assert [member.name for member in table.members.all()] == ["Ana", "Boris", "Cyril", "Dana"]


def test_keeping_games_at_new_tables_past_the_limit_answers_429_with_the_name_typed(
    client, settings
):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    first, second = finished_game(), finished_game()
    assert (
        client.post(url("keep_together", first.edit_token), {"name": "Sunday"}).status_code == 303
    )
    response = client.post(url("keep_together", second.edit_token), {"name": "Monday"})
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    shown = read(response)
    assert TABLE_MESSAGE in shown.text and shown.one("input[name=name]").get("value") == "Monday"
    second.refresh_from_db()
    assert second.table is None
    # A game kept already only goes to its table: nothing new, nothing counted.
    response = client.post(url("keep_together", first.edit_token), {"name": "Again"})
    first.refresh_from_db()
    assert response.status_code == 303
    assert response["Location"] == f"/t/{first.table.edit_token}/"
    assert Table.objects.count() == 1


def test_a_limits_cache_that_cannot_be_reached_lets_new_games_through(client, settings, caplog):
    """Redis away (RAMI_REDIS_URL naming a port where nobody listens): the limit cannot count,
    and a game is still started, with a warning in the log, rather than no game for anyone."""
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    away = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:9/0",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    # Only for the two requests: the clock fixture empties the usual caches afterwards.
    with (
        override_settings(CACHES={**settings.CACHES, "limits": away}),
        caplog.at_level("WARNING", logger="scoring.web.limits"),
    ):
        assert start(client).status_code == 303
        assert start(client).status_code == 303
    assert Game.objects.count() == 2
    assert "the limits cache cannot be reached: new-game let through" in caplog.text


# A hall: forty tables on one Wi-Fi, one address, and a loop from one address.

HALL = "203.0.113.40"


def test_a_halls_forty_tables_behind_one_address_start_their_games_at_once(settings):
    """Forty phones, each its own browser, behind the hall's one address and a trusted proxy,
    all start a game within the same minute."""
    settings.RAMI_TRUST_X_FORWARDED_FOR = True
    started = 0
    for table in range(40):
        phone = Client(enforce_csrf_checks=True)
        page = phone.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=HALL)
        token = read(page).select("input[name=csrfmiddlewaretoken]")[0].get("value")
        names = {"player_0": f"Ana {table}", "player_1": f"Boris {table}"}
        answer = phone.post(
            "/",
            {**names, "csrfmiddlewaretoken": token},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=HALL,
        )
        started += answer.status_code == 303
    print(f"\n{started} of 40 tables behind one address started their game in one minute")
    assert started == 40
    assert Game.objects.count() == 40


def test_a_loop_from_one_address_makes_at_most_100_games_a_minute_and_600_an_hour(
    client, clock, caplog, settings
):
    settings.RAMI_TRUST_X_FORWARDED_FOR = True
    made = []
    with caplog.at_level("WARNING", logger="scoring.web.limits"):
        for _minute in range(10):
            answers = [
                start(client, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=HALL).status_code
                for _ in range(150)
            ]
            made.append(answers.count(303))
            assert set(answers) <= {303, 429}
            clock.value += 60
    print(f"\na loop of 150 tries a minute from one address made {made} games, minute by minute")
    assert made[0] == 100
    assert sum(made) == 600 and made[6:] == [0, 0, 0, 0]
    assert Game.objects.count() == 600
    # One line for each window overrun (a line a minute), naming the client behind the proxy,
    # not the proxy.
    refusals = [r.getMessage() for r in caplog.records if "limit reached" in r.getMessage()]
    minute = f"new-game limit reached by {HALL}: more than 100 in a minute; refused until "
    hour = f"new-game limit reached by {HALL}: more than 600 in an hour; refused until 23:00:00 UTC"
    assert sum(line.startswith(minute) for line in refusals) == 10
    assert sum(line.startswith(hour) for line in refusals) == 1
    assert len(refusals) == 11
    assert "10.0.0.2" not in " ".join(refusals)


def test_past_the_hour_the_refusal_says_when_to_come_back(client, settings, clock):
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    for _minute in range(6):
        assert start(client).status_code == 303
        clock.value += 60
    refused = start(client)  # the seventh minute, 20 s in: the hour started at 597_600
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == 601_200 - int(clock.value)


def test_a_script_refused_60_times_a_minute_writes_one_line(client, settings, caplog):
    """Django's request logger warns of every 4xx: not of a refusal past a limit, which the
    limits log themselves once a window (rami_site/middleware.py, CountAnswersMiddleware).
    Each refusal is counted for /metrics."""
    from scoring.web import metrics

    before = metrics.refusals().get("too_many_games", 0)
    settings.RAMI_NEW_GAMES_PER_MINUTE = 1
    with caplog.at_level("INFO"):
        answers = [start(client).status_code for _ in range(61)]
    assert answers == [303] + [429] * 60
    warned = [(r.name, r.getMessage()) for r in caplog.records if r.levelname != "INFO"]
    assert len(warned) == 1, warned
    assert warned[0][0] == "scoring.web.limits"
    assert warned[0][1].startswith("new-game limit reached by 127.0.0.1: more than 1 in a minute")
    assert metrics.refusals()["too_many_games"] - before == 60
