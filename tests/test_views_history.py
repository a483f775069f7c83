"""The history page /g/<edit-token>/history/: every change, newest first; deleted rounds can
be restored from it."""

import re
from datetime import UTC, datetime
from html import unescape

import pytest

from scoring.models import Game
from scoring.rules import Hand, RoundEntry
from tests.conftest import delete_post, edit_post, round_post

pytestmark = pytest.mark.django_db

# A change's time as the server writes it (rami.js puts it in the phone's time zone).
TIME = r'<time class="meta local-time" datetime="[^"]+">([^<]+)</time>'


def url(game: Game) -> str:
    return f"/g/{game.edit_token}/history/"


def changes(html: str) -> list[str]:
    """The heading of each change, in page order."""
    return [" ".join(unescape(text).split()) for text in re.findall(r"<h2>(.*?)</h2>", html, re.S)]


def section(html: str, heading: str) -> str:
    """The part of the page from one change's heading to the next."""
    start = html.index(heading)
    end = html.find('<li class="change', start)
    return html[start : end if end != -1 else len(html)]


@pytest.fixture
def game(client) -> Game:
    """Three rounds through the game page; round 2 edited, round 1 deleted and restored, then
    round 3 (round 2 by then) deleted."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    page = f"/g/{game.edit_token}/"
    client.post(page, round_post(0, {1: "AH JK 5C", 2: (20, "not opened")}))
    client.post(page, round_post(1, {0: 12, 2: 3}))
    client.post(page, round_post(2, {0: "KH", 1: "2C 3C"}))
    client.post(f"/g/{game.edit_token}/rounds/2/", edit_post(game, 2, 1, {0: 15, 2: 4}))
    client.post(page, delete_post(game, 1))
    client.post(url(game), {"action": "restore", "event": str(game.events.first().pk)})
    client.post(page, delete_post(game, 3))
    return game


def test_the_history_lists_every_change_newest_first(client, game):
    response = client.get(url(game))
    assert response.status_code == 200
    html = unescape(response.content.decode())
    assert changes(html) == [
        "Round 3 deleted",
        "Round 1 restored",
        "Round 1 deleted",
        "Round 2 edited",
        "Round 3 saved",
        "Round 2 saved",
        "Round 1 saved",
    ]
    assert "Ana, Boris, Cyril" in html
    assert f'href="/g/{game.edit_token}/"' in html


def test_each_change_shows_the_round_with_cards_hands_and_points(client, game):
    html = unescape(client.get(url(game)).content.decode())
    added = section(html, "Round 1 saved")
    assert 'aria-label="ace of hearts"' in added and 'aria-label="joker"' in added
    assert "hand 20" in added and "not opened" in added
    # Boris 36 points, Cyril 20 + 25 = 45.
    assert re.findall(r'<td class="points">(\d+)</td>', added) == ["0", "36", "45"]

    edited = section(html, "Round 2 edited")
    assert "Before" in edited and "After" in edited
    before, after = edited.split("After", 1)
    assert re.findall(r'<td class="points">(\d+)</td>', before) == ["12", "0", "3"]
    assert re.findall(r'<td class="points">(\d+)</td>', after) == ["15", "0", "4"]


def test_each_change_says_when(client, game):
    html = client.get(url(game)).content.decode()
    event = game.events.first()
    assert f'<time class="meta local-time" datetime="{event.created_at.isoformat()}">' in html


def test_only_a_deleted_round_not_yet_back_can_be_restored(client, game):
    html = unescape(client.get(url(game)).content.decode())
    assert html.count('value="restore"') == 1
    deleted = section(html, "Round 3 deleted")
    assert "Restore round 3" in deleted
    assert "Restored since." in section(html, "Round 1 deleted")


def test_restoring_from_the_history_puts_the_round_back_at_its_place(client, game):
    html = client.get(url(game)).content.decode()
    form = re.search(r'<form method="post" class="restore">(.*?)</form>', html, re.S)
    event = re.search(r'name="event" value="(\d+)"', form[1])[1]
    # The form posts to the page itself.
    response = client.post(url(game), {"action": "restore", "event": event})
    assert response.status_code == 303
    assert list(game.rounds.values_list("number", "winner_seat")) == [(1, 0), (2, 1), (3, 2)]
    assert game.totals() == [25, 41, 49]
    html = unescape(client.get(url(game)).content.decode())
    assert changes(html)[0] == "Round 3 restored"
    assert 'value="restore"' not in html


def test_kinds_of_round_are_named(client, four_players):
    game = four_players
    opponent = Hand(opened=False)
    game.record_round(
        RoundEntry(hands=(Hand(), opponent, opponent, opponent), winner=0, hand_rummy=True)
    )
    game.record_round(
        RoundEntry(
            hands=(Hand(value=3), Hand(value=3), Hand(cards=("9C",)), Hand(value=4)), winner=None
        )
    )
    html = unescape(client.get(url(game)).content.decode())
    assert "hand rummy" in section(html, "Round 1 saved")
    blocked = section(html, "Round 2 saved")
    assert "blocked" in blocked
    # A tie for the lowest hand: both score 0.
    assert re.findall(r'<td class="points">(\d+)</td>', blocked) == ["0", "0", "9", "4"]


def test_a_blocked_round_shows_its_lowest_hands_and_nobody_out(client, four_players):
    """Nobody went out of a blocked round: its lowest hands are marked "lowest hand", not
    "out", and not as the player who went out."""
    game = four_players
    game.record_round(
        RoundEntry(hands=(Hand(), Hand(value=5), Hand(value=9), Hand(value=4)), winner=0)
    )
    game.record_round(
        RoundEntry(
            hands=(Hand(value=3), Hand(value=3), Hand(cards=("9C",)), Hand(value=4)), winner=None
        )
    )
    html = unescape(client.get(url(game)).content.decode())
    normal = section(html, "Round 1 saved")
    assert normal.count('class="winner"') == 1
    assert re.findall(r'<span class="note">(.*?)</span>', normal).count("out") == 1
    blocked = section(html, "Round 2 saved")
    assert 'class="winner"' not in blocked
    assert blocked.count('<tr class="lowest">') == 2
    notes = re.findall(r'<span class="note">(.*?)</span>', blocked)
    assert notes.count("lowest hand") == 2
    assert not re.search(r"\bout\b", " ".join(notes))


def test_dates_in_bulgarian_are_written_the_bulgarian_way(client, game):
    """Django has no Bulgarian DATETIME_FORMAT: without rami_site/formats/bg the history read
    "Ноем. 30, 2026, 4:14 преди обяд". A date in figures and a 24-hour time instead."""
    afternoon = datetime(2026, 11, 30, 16, 14, tzinfo=UTC)
    morning = datetime(2026, 5, 3, 4, 7, tzinfo=UTC)
    game.events.update(created_at=afternoon)
    game.events.filter(pk=game.events.order_by("pk").first().pk).update(created_at=morning)
    html = client.get(url(game), headers={"accept-language": "bg"}).content.decode()
    times = re.findall(TIME, html)
    assert set(times) == {"30.11.2026 г., 16:14", "03.05.2026 г., 04:07"}
    assert "преди обяд" not in html and "след обяд" not in html
    assert "Ноем." not in html


def test_dates_in_every_language_use_its_own_formats(client, game):
    game.events.update(created_at=datetime(2026, 11, 30, 4, 7, tzinfo=UTC))
    expected = {
        "en": "Nov. 30, 2026, 4:07 a.m.",
        "cs": "30. listopadu 2026 4:07",
        "sv": "30 november 2026 04:07",
        "bg": "30.11.2026 г., 04:07",
        "id": "30 November 2026, 04.07",
    }
    for language, when in expected.items():
        html = client.get(url(game), headers={"accept-language": language}).content.decode()
        times = set(re.findall(TIME, html))
        assert times == {when}, language


def test_a_game_without_changes_says_so(client, four_players):
    html = client.get(url(four_players)).content.decode()
    assert "No round has been saved yet." in html


def test_the_game_page_links_to_its_history(client, game):
    html = client.get(f"/g/{game.edit_token}/").content.decode()
    assert f'href="/g/{game.edit_token}/history/"' in html


def test_an_unknown_token_is_404(client, game):
    assert client.get("/g/not-a-game/history/").status_code == 404


def test_the_view_token_does_not_open_the_history(client, game):
    response = client.get(f"/g/{game.view_token}/history/")
    assert response.status_code == 404
    assert game.edit_token not in response.content.decode()


def test_the_history_takes_only_its_own_actions(client, game):
    assert client.put(url(game)).status_code == 405
    assert client.post(url(game), {"action": "delete", "event": "1"}).status_code == 400
    assert client.post(url(game), {"action": "restore"}).status_code == 400
