"""Standings over a period: this month, this year or all time, counting the games
started in it in the server's time zone; on the table page (?period=) and in the export."""

import json
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring.board import standings as tables
from scoring.files import exchange
from scoring.models import Table
from tests.conftest import thursday
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

# "Today" in these tests: the worked example's three games are moved to last November (game 1), this
# January (game 2) and this March (game 3).
NOW = datetime(2027, 3, 15, 12, 0, tzinfo=UTC)
STARTED = ["2026-11-05T19:30:00Z", "2027-01-14T19:30:00Z", "2027-03-04T19:30:00Z"]


@pytest.fixture(autouse=True)
def today(monkeypatch):
    monkeypatch.setattr(timezone, "now", lambda: NOW)


@pytest.fixture
def dated_thursday() -> Table:
    document = thursday()
    for game, started in zip(document["games"], STARTED, strict=True):
        game["started"] = started
    return exchange.import_table(document)


def numbers(table: Table, period: str) -> dict[str, tuple]:
    return {
        standing.name: (standing.games, standing.wins, standing.average_total, standing.rounds)
        for standing in tables.standings(table, period=period)
    }


def pairs(table: Table, period: str) -> list[tuple]:
    return [
        (pair.first.name, pair.second.name, pair.games, pair.first_lower, pair.second_lower)
        for pair in tables.head_to_head(table, period=period)
    ]


# Reading


def test_the_standings_count_the_games_started_in_the_period(dated_thursday):
    assert numbers(dated_thursday, "all") == {
        "Ana": (2, 1, 130.0, 3),
        "Boris": (3, 0, 166.7, 5),
        "Cyril": (2, 1, 125.0, 3),
        "Dana": (2, 1, 121.0, 4),
    }
    # This year: games 2 (Boris went out, then Dana's hand rummy) and 3.
    assert numbers(dated_thursday, "year") == {
        "Ana": (1, 0, 260.0, 2),
        "Boris": (2, 0, 150.0, 4),
        "Cyril": (1, 1, 50.0, 2),
        "Dana": (2, 1, 121.0, 4),
    }
    # This month: game 3 only; Ana played none of it.
    assert numbers(dated_thursday, "month") == {
        "Ana": (0, 0, None, 0),
        "Boris": (1, 0, 100.0, 2),
        "Cyril": (1, 1, 50.0, 2),
        "Dana": (1, 0, 212.0, 2),
    }


def test_head_to_head_follows_the_period(dated_thursday):
    assert pairs(dated_thursday, "month") == [
        ("Boris", "Cyril", 1, 0, 1),
        ("Boris", "Dana", 1, 1, 0),
        ("Cyril", "Dana", 1, 1, 0),
    ]
    assert len(pairs(dated_thursday, "year")) == 5
    assert len(pairs(dated_thursday, "all")) == 6


def test_an_unknown_period_is_all_time():
    for value in (None, "", "week", "MONTH", ["month"]):
        assert tables.chosen_period(value) == "all"
    assert [tables.chosen_period(value) for value in tables.PERIODS] == ["month", "year", "all"]


def test_the_period_is_the_servers_calendar_month_and_year(settings):
    settings.TIME_ZONE = "Europe/Prague"
    month = tables.period_bounds("month")
    assert [moment.isoformat() for moment in month] == [
        "2027-03-01T00:00:00+01:00",
        # Summer time began on 28 March.
        "2027-04-01T00:00:00+02:00",
    ]
    assert [moment.isoformat() for moment in tables.period_bounds("year")] == [
        "2027-01-01T00:00:00+01:00",
        "2028-01-01T00:00:00+01:00",
    ]
    assert tables.period_bounds("all") is None


def test_december_ends_the_year(monkeypatch):
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 12, 31, 23, 0, tzinfo=UTC))
    start, end = tables.period_bounds("month")
    assert (start.date().isoformat(), end.date().isoformat()) == ("2026-12-01", "2027-01-01")


def test_a_game_started_just_after_local_midnight_counts_in_that_month(dated_thursday, settings):
    """At 23:30 UTC on 28 February it is already 1 March in Prague: the game counts in March
    there, and not in UTC."""
    game = dated_thursday.games.order_by("created_at").first()
    dated_thursday.games.filter(pk=game.pk).update(
        created_at=datetime(2027, 2, 28, 23, 30, tzinfo=UTC)
    )
    assert numbers(dated_thursday, "month")["Ana"][0] == 0
    settings.TIME_ZONE = "Europe/Prague"
    assert numbers(dated_thursday, "month")["Ana"] == (1, 1, 0.0, 1)


# The table page


def test_the_page_offers_three_periods_all_time_first_chosen(client, dated_thursday):
    shown = read(client.get(url("table", dated_thursday.edit_token)))
    links = shown.select(".period-tabs a")
    assert [link.text for link in links] == ["This month", "This year", "All time"]
    assert [link.get("href") for link in links] == [
        "?period=month#standings-title",
        "?period=year#standings-title",
        "?period=all#standings-title",
    ]
    assert [link.get("aria-current") for link in links] == [None, None, "page"]


def test_the_months_standings_and_pairs_and_every_game_listed(client, dated_thursday):
    response = client.get(url("table", dated_thursday.edit_token) + "?period=month")
    shown = read(response)
    assert [link.get("aria-current") for link in shown.select(".period-tabs a")] == [
        "page",
        None,
        None,
    ]
    assert "Only the games started this month count here (March 2027)." in shown.text
    standings = {row[0]: row[1:5] for row in shown.one("table.standings-table").rows()[1:]}
    assert standings["Ana"] == ["0", "0", "–", "–"]
    assert standings["Cyril"] == ["1", "1", "100%", "50.0"]
    assert standings["Dana"] == ["1", "0", "0%", "212.0"]
    assert [row[0] for row in shown.one("table.pairs-table").rows()[1:]] == [
        "Boris 0 : 1 Cyril",
        "Boris 1 : 0 Dana",
        "Cyril 1 : 0 Dana",
    ]
    # The games list is not a question of period: all three, newest first.
    assert len(shown.select("#games-played .table-games .table-game")) == 3


def test_the_year_and_a_watch_only_page(client, dated_thursday):
    shown = read(client.get(url("table_view", dated_thursday.view_token) + "?period=year"))
    assert "Only the games started this year count here (2027)." in shown.text
    standings = {row[0]: row[1:3] for row in shown.one("table.standings-table").rows()[1:]}
    assert standings["Boris"] == ["2", "0"]
    assert shown.one(".period-tabs [aria-current]").text == "This year"


def test_every_game_listed_stays_listed_when_the_period_changes(client, dated_thursday):
    shown = read(
        client.get(url("table", dated_thursday.edit_token) + "?games=all&history=all&period=year")
    )
    assert [link.get("href") for link in shown.select(".period-tabs a")] == [
        "?games=all&history=all&period=month#standings-title",
        "?games=all&history=all&period=year#standings-title",
        "?games=all&history=all&period=all#standings-title",
    ]


def test_the_period_chosen_is_in_the_address_and_kept_by_the_other_links(client):
    """A period is a link: its view can be bookmarked or sent, and "Show all games" or a live
    update (the poll asks for the page's own query) keeps it."""
    document = thursday()
    document["games"] = document["games"] * 4  # twelve games: the latest ten listed
    table = exchange.import_table(document)
    shown = read(client.get(url("table", table.edit_token) + "?period=month"))
    assert shown.one(".period-tabs [aria-current]").text == "This month"
    assert shown.one("#games-played a.link-button").get("href") == (
        "?period=month&games=all#played-title"
    )
    assert shown.one("#poller").get("hx-get").startswith(f"/t/{table.edit_token}/?period=month&v=")
    # A live update's answer draws the same links, without its own `v`.
    pull = url("table", table.edit_token) + "?period=month&v=0"  # a page older than every change
    again = read(client.get(pull, headers={"HX-Request": "true"}))
    assert again.one("#games-played a.link-button").get("href") == (
        "?period=month&games=all#played-title"
    )


@pytest.mark.parametrize("period", ["week", "", "%00", "month&period=year"])
def test_an_unknown_period_shows_all_time(client, dated_thursday, period):
    response = client.get(url("table", dated_thursday.edit_token) + f"?period={period}")
    assert response.status_code == 200
    shown = read(response)
    if period.startswith("month"):
        return
    assert shown.one(".period-tabs [aria-current]").text == "All time"
    standings = {row[0]: row[1:3] for row in shown.one("table.standings-table").rows()[1:]}
    assert standings["Boris"] == ["3", "0"]


def test_a_period_costs_no_query_more(client, dated_thursday):
    counts = []
    for query in ("", "?period=month", "?period=year"):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url("table", dated_thursday.edit_token) + query).status_code == 200
        counts.append(len(captured))
    assert counts[0] == counts[1] == counts[2]


# The export


def exported(client, path: str) -> dict:
    return json.loads(b"".join(client.get(path).streaming_content))


def test_the_export_says_its_period_and_keeps_every_game(client, dated_thursday):
    whole = exported(client, url("table_export_json", dated_thursday.edit_token))
    assert whole["period"] == "all"
    assert list(whole)[-2:] == ["period", "standings"]
    month = exported(client, url("table_export_json", dated_thursday.edit_token) + "?period=month")
    assert month["period"] == "month"
    assert len(month["games"]) == 3 and month["games"] == whole["games"]
    assert {name: standing["games"] for name, standing in month["standings"].items()} == {
        "Ana": 0,
        "Boris": 1,
        "Cyril": 1,
        "Dana": 1,
    }
    assert (
        exported(client, url("table_view_export_json", dated_thursday.view_token) + "?period=month")
        == month
    )
    year = exported(
        client, url("table_view_export_json", dated_thursday.view_token) + "?period=year"
    )
    assert year["period"] == "year" and year["standings"]["Boris"]["average_total"] == 150.0
    assert (
        exported(client, url("table_export_json", dated_thursday.edit_token) + "?period=decade")
        == whole
    )
    # Streamed, it is the export as dumps writes it.
    text = b"".join(
        client.get(url("table_export_json", dated_thursday.edit_token) + "?period=month")
    ).decode()
    assert text == exchange.dumps(exchange.export_table(dated_thursday, "month"))


def test_the_pages_table_file_is_of_the_period_it_shows(client, dated_thursday):
    def file_link(path: str) -> str:
        return read(client.get(path)).one(".exports a[download]").get("href")

    assert (
        file_link(url("table", dated_thursday.edit_token))
        == f"/t/{dated_thursday.edit_token}/export.json"
    )
    month = file_link(url("table", dated_thursday.edit_token) + "?period=month")
    assert month == f"/t/{dated_thursday.edit_token}/export.json?period=month"
    assert exported(client, month)["period"] == "month"
    assert file_link(url("table_view", dated_thursday.view_token) + "?period=year") == (
        url("table_view_export_json", dated_thursday.view_token) + "?period=year"
    )


def test_the_period_of_a_file_is_ignored_on_import(client, dated_thursday):
    month = exported(client, url("table_export_json", dated_thursday.edit_token) + "?period=month")
    again = exchange.import_table(month)
    assert exchange.export_table(again)["period"] == "all"
    assert exchange.export_table(again)["standings"]["Boris"]["games"] == 3
