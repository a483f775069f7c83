"""The history page /g/<edit-token>/history/: every change, newest first; deleted rounds can
be restored from it."""

from datetime import UTC, datetime

import pytest

from scoring.models import Game
from scoring.rules import Hand, RoundEntry
from tests.conftest import delete_post, edit_post, history_change, round_post
from tests.links import url
from tests.pages import Element, read

pytestmark = pytest.mark.django_db

# A change's time as the server writes it (rami.js puts it in the phone's time zone).
TIME = "time.local-time"


def changes(shown: Element) -> list[str]:
    """The heading of each change, in page order."""
    return shown.texts("li.change h2")


@pytest.fixture
def changed_game(client) -> Game:
    """Three rounds through the game page; round 2 edited, round 1 deleted and restored, then
    round 3 (round 2 by then) deleted."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    page = url("game", game.edit_token)
    client.post(page, round_post(0, {1: "AH JK 5C", 2: (20, "not opened")}))
    client.post(page, round_post(1, {0: 12, 2: 3}))
    client.post(page, round_post(2, {0: "KH", 1: "2C 3C"}))
    client.post(url("round", game.edit_token, number=2), edit_post(game, 2, 1, {0: 15, 2: 4}))
    client.post(page, delete_post(game, 1))
    client.post(
        url("history", game.edit_token), {"action": "restore", "event": str(game.events.first().pk)}
    )
    client.post(page, delete_post(game, 3))
    return game


def test_the_history_lists_every_change_newest_first(client, changed_game):
    response = client.get(url("history", changed_game.edit_token))
    assert response.status_code == 200
    shown = read(response)
    assert changes(shown) == [
        "Round 3 deleted",
        "Round 1 restored",
        "Round 1 deleted",
        "Round 2 edited",
        "Round 3 saved",
        "Round 2 saved",
        "Round 1 saved",
    ]
    assert "Ana, Boris, Cyril" in shown.text
    back = shown.one("section.history > p.meta a")
    assert (back.text, back.get("href")) == ("Back to the game", f"/g/{changed_game.edit_token}/")


def test_each_change_shows_the_round_with_cards_hands_and_points(client, changed_game):
    shown = read(client.get(url("history", changed_game.edit_token)))
    added = history_change(shown, "Round 1 saved")
    cards = [card.get("aria-label") for card in added.select(".card")]
    assert cards == ["ace of hearts", "joker", "five of clubs"]
    assert "hand 20" in added.text and "not opened" in added.text
    # Boris 36 points, Cyril 20 + 25 = 45.
    assert added.texts("td.points") == ["0", "36", "45"]

    edited = history_change(shown, "Round 2 edited")
    before, after = edited.select("figure")
    assert (before.one("figcaption").text, after.one("figcaption").text) == ("Before", "After")
    assert before.texts("td.points") == ["12", "0", "3"]
    assert after.texts("td.points") == ["15", "0", "4"]


def test_each_change_says_when(client, changed_game):
    shown = read(client.get(url("history", changed_game.edit_token)))
    event = changed_game.events.first()
    assert shown.select(TIME)[0].get("datetime") == event.created_at.isoformat()


def test_only_a_deleted_round_not_yet_back_can_be_restored(client, changed_game):
    shown = read(client.get(url("history", changed_game.edit_token)))
    assert len(shown.select("button[value=restore]")) == 1
    deleted = history_change(shown, "Round 3 deleted")
    assert deleted.one("button[value=restore]").text == "Restore round 3"
    assert "Restored since." in history_change(shown, "Round 1 deleted").text


def test_restoring_from_the_history_puts_the_round_back_at_its_place(client, changed_game):
    form = history_change(
        client.get(url("history", changed_game.edit_token)), "Round 3 deleted"
    ).one("form.restore")
    event = form.one("input[name=event]").get("value")
    # The form posts to the restore's own address.
    assert (form.get("method"), form.get("action")) == (
        "post",
        url("restore", changed_game.edit_token),
    )
    response = client.post(form.get("action"), {"event": event})
    assert response.status_code == 303
    assert list(changed_game.rounds.values_list("number", "winner_seat")) == [
        (1, 0),
        (2, 1),
        (3, 2),
    ]
    assert changed_game.totals() == [25, 41, 49]
    # The game page says what happened: the round is back (not "changed").
    landed = read(client.get(response["Location"]))
    assert landed.one(".banner.saved p").text.startswith("Round 3 is back as it was")
    shown = read(client.get(url("history", changed_game.edit_token)))
    assert changes(shown)[0] == "Round 3 restored"
    assert not shown.select("button[value=restore]")


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
    shown = read(client.get(url("history", game.edit_token)))
    assert history_change(shown, "Round 1 saved").one("figcaption").text == "The round hand rummy"
    blocked = history_change(shown, "Round 2 saved")
    assert blocked.one("figcaption").text == "The round blocked"
    # A tie for the lowest hand: both score 0.
    assert blocked.texts("td.points") == ["0", "0", "9", "4"]


def test_a_blocked_round_shows_its_lowest_hands_and_nobody_out(client, four_players):
    """Nobody went out of a blocked round: its lowest hands are marked as its winners with
    the lowest hand, not "out", and not as the player who went out."""
    game = four_players
    game.record_round(
        RoundEntry(hands=(Hand(), Hand(value=5), Hand(value=9), Hand(value=4)), winner=0)
    )
    game.record_round(
        RoundEntry(
            hands=(Hand(value=3), Hand(value=3), Hand(cards=("9C",)), Hand(value=4)), winner=None
        )
    )
    shown = read(client.get(url("history", game.edit_token)))
    normal = history_change(shown, "Round 1 saved")
    assert len(normal.select("tr.winner")) == 1
    assert normal.texts(".note").count("out") == 1
    blocked = history_change(shown, "Round 2 saved")
    assert not blocked.select(".winner")
    assert len(blocked.select("tr.lowest")) == 2
    notes = blocked.texts(".note")
    assert notes.count("won: lowest hand") == 2
    assert "out" not in " ".join(notes).split()


def test_dates_in_bulgarian_are_written_the_bulgarian_way(client, changed_game):
    """Django has no Bulgarian DATETIME_FORMAT: without rami_site/formats/bg the history read
    "Ноем. 30, 2026, 4:14 преди обяд". A date in figures and a 24-hour time instead, as the
    phone writes them (rami.js, Intl): the day and the hour without a leading zero."""
    afternoon = datetime(2026, 11, 30, 16, 14, tzinfo=UTC)
    morning = datetime(2026, 5, 3, 4, 7, tzinfo=UTC)
    changed_game.events.update(created_at=afternoon)
    changed_game.events.filter(pk=changed_game.events.order_by("pk").first().pk).update(
        created_at=morning
    )
    shown = read(
        client.get(url("history", changed_game.edit_token), headers={"accept-language": "bg"})
    )
    times = shown.texts(TIME)
    assert set(times) == {"30.11.2026 г., 16:14", "3.05.2026 г., 4:07"}
    assert "преди обяд" not in shown.text and "след обяд" not in shown.text
    assert "Ноем." not in shown.text


def test_dates_in_every_language_use_its_own_formats(client, changed_game):
    changed_game.events.update(created_at=datetime(2026, 11, 30, 4, 7, tzinfo=UTC))
    expected = {
        "en": "Nov. 30, 2026, 4:07 a.m.",
        "cs": "30. listopadu 2026 4:07",
        "sv": "30 november 2026 04:07",
        "bg": "30.11.2026 г., 4:07",
        "id": "30 November 2026, 04.07",
    }
    for language, when in expected.items():
        shown = read(
            client.get(
                url("history", changed_game.edit_token), headers={"accept-language": language}
            )
        )
        assert set(shown.texts(TIME)) == {when}, language


def test_a_game_without_changes_says_so(client, four_players):
    assert (
        "No round has been saved yet."
        in read(client.get(url("history", four_players.edit_token))).text
    )


def test_the_game_page_links_to_its_history(client, changed_game):
    shown = read(client.get(url("game", changed_game.edit_token)))
    assert shown.select(f'a[href="/g/{changed_game.edit_token}/history/"]')


def test_an_unknown_token_is_404(client, changed_game):
    assert client.get("/g/not-a-game/history/").status_code == 404


def test_the_view_token_does_not_open_the_history(client, changed_game):
    response = client.get(url("history", changed_game.view_token))
    assert response.status_code == 404
    assert changed_game.edit_token not in response.content.decode()


def test_the_history_takes_only_its_own_actions(client, changed_game):
    assert client.put(url("history", changed_game.edit_token)).status_code == 405
    assert (
        client.post(
            url("history", changed_game.edit_token), {"action": "delete", "event": "1"}
        ).status_code
        == 400
    )
    assert (
        client.post(url("history", changed_game.edit_token), {"action": "restore"}).status_code
        == 400
    )


def notes(cell: Element) -> list[str]:
    """What a hand's cell notes after its points, in order (its `.note`s and card faces)."""
    return [" ".join(note.text.split()) for note in cell.select(".note, .hand-cards")]


def test_a_hand_reads_the_same_in_the_history_as_on_the_round_table(client):
    """One markup for a hand's notes (_hand_notes.html): went out, the cards' faces or the
    value, not opened, as the round table showed the round before it was deleted (which also
    says how a never-opened hand's points came about)."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    page = url("game", game.edit_token)
    client.post(page, round_post(0, {1: "AH JK 5C", 2: 12}))
    client.post(page, round_post(1, {0: (30, "not opened"), 2: "KH 2C"}))
    row = read(client.get(page)).one("#round-2")
    shown = [notes(cell) for cell in row.select("td")]
    assert shown[0] == ["hand 30", "not opened: 30 + 25 = 55"]
    client.post(page, delete_post(game, 2))
    deleted = history_change(read(client.get(url("history", game.edit_token))), "Round 2 deleted")
    kept = [notes(cell) for cell in deleted.select("figure td:not(.points)")]
    assert kept == [["hand 30", "not opened"], *shown[1:]]


def test_the_history_tells_each_leave_join_and_undo_by_name_and_seats_without_those_gone(client):
    """Karel leaves, Zuzana joins with the highest total, Karel's leave is undone (he plays
    again), then he leaves for good; Ota's join is taken back; the seats change. Each is told
    by name, with its round, never as "Round N restored"; a change of seats made after Karel
    left does not list him."""
    game = Game.start(["Ana", "Boris", "Karel"])
    for _ in range(2):
        game.record_round(RoundEntry((Hand(), Hand(value=5), Hand(value=9)), winner=0))
    phone = "the table's phone"
    leaving = game.leave(2, phone=phone)
    game.undo(leaving, phone)
    game.record_round(RoundEntry((Hand(), Hand(value=5), Hand(value=9)), winner=0))
    game.leave(2, phone=phone)
    game.join("Zuzana", after=1, phone=phone)
    game.join("Ota", after=0, phone=phone)
    joined = game.events.filter(kind="joined").first()
    game.undo(joined, phone)
    game = Game.with_players(pk=game.pk)
    game.change_seating(1, [1, 0, 3], phone=phone)
    shown = read(client.get(url("history", game.edit_token)))
    headings = changes(shown)
    assert headings[:5] == [
        "Seats and dealer changed · from round 4",
        "Ota does not join after all. Undo",
        "Ota joins from round 4 with 15 points.",
        "Zuzana joins from round 4 with 15 points.",
        "Karel left after round 3.",
    ]
    assert "Karel plays again from round 3. Undo" in headings
    assert "Karel left after round 2." in headings
    assert not any("restored" in heading for heading in headings)
    # Where a joiner sits is told with the join; no change of seats lists Karel once he left.
    zuzana = next(li for li in shown.select("li.change-joined") if "Zuzana joins" in li.text)
    assert "Zuzana" in zuzana.one(".seating").text
    for seating in shown.select("li.change-seated .seating, li.change-joined .seating"):
        assert "Karel" not in seating.text
