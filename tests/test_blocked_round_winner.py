"""The lowest hand of a blocked round wins it, as each of the players' documents says ("is
declared the winner"): the round table, the history, the game's statistics, the table's
standings and the export call them its winners, in every language; a shared lowest hand makes
each of them one."""

import pytest

from scoring.files.exchange import export_game
from scoring.models import Table
from scoring.rules import Hand, RoundEntry
from tests.links import url
from tests.pages import Element, read
from tests.test_documents_terms import get as page_in

pytestmark = pytest.mark.django_db

# The round table's and the history's note on a blocked round's winner, and "Rounds won".
WON = {
    "en": ("won: lowest hand", "Rounds won"),
    "cs": ("vyhrává nejnižší hodnotou", "Vyhraná kola"),
    "sv": ("vann: lägst värde", "Vunna omgångar"),
    "bg": ("спечели: най-ниска стойност", "Спечелени раздавания"),
    "id": ("menang: nilai terendah", "Ronde yang dimenangkan"),
}


@pytest.fixture
def played():
    """A table's game of three: round 1 blocked, Ana and Cyril sharing the lowest hand (5);
    round 2 blocked, Boris alone the lowest (2); round 3, Boris goes out."""
    table = Table.start("Thursday", ["Ana", "Boris", "Cyril"])
    game = table.new_game(list(table.members.all()))
    blocked = [(5, 9, 5), (8, 2, 30)]
    for values in blocked:
        hands = tuple(Hand(value=value) for value in values)
        game.record_round(RoundEntry(hands=hands, winner=None))
    game.record_round(RoundEntry(hands=(Hand(value=4), Hand(), Hand(value=6)), winner=1))
    return table, game


def get(client, path: str, language: str) -> Element:
    return read(page_in(client, path, language))


@pytest.mark.parametrize("language", sorted(WON))
def test_the_lowest_hands_of_a_blocked_round_are_its_winners_everywhere(client, played, language):
    table, game = played
    won, rounds_won = WON[language]

    page = get(client, url("game", game.edit_token), language)
    # The round table: each lowest hand is marked as the round's winner, nobody as out.
    first, second = page.one("tr#round-1"), page.one("tr#round-2")
    assert [cell.texts(".note")[:1] for cell in first.select("td.lowest")] == [[won], [won]]
    assert second.texts(".note").count(won) == 1
    assert not first.select(".went-out") and not second.select(".went-out")
    # The statistics: Ana and Cyril won round 1, Boris rounds 2 and 3.
    statistics = page.one("table.player-statistics").rows()
    assert statistics[1] == [rounds_won, "1", "2", "1"]

    history = get(client, url("history", game.edit_token), language)
    # Rounds 2 and 1 as they were saved (newest first): their lowest hands, marked so.
    blocked = [change for change in history.select("li.change") if change.select("tr.lowest")]
    assert [len(change.select("tr.lowest")) for change in blocked] == [1, 2]
    assert [change.texts(".note").count(won) for change in blocked] == [1, 2]

    standings = get(client, url("table", table.edit_token), language).one("table.standings-table")
    head, *body = standings.rows()
    column = head.index(rounds_won)
    by_name = {row[0]: row[column] for row in body if len(row) > column}
    assert by_name == {"Ana": "1", "Boris": "2", "Cyril": "1"}


def test_the_export_names_a_blocked_rounds_winners(played):
    _table, game = played
    shared, alone, went_out = export_game(game)["rounds"]
    assert (shared["winner"], shared["winners"]) == (None, ["Ana", "Cyril"])
    assert (alone["winner"], alone["winners"]) == ("Boris", ["Boris"])
    assert went_out["winner"] == "Boris" and "winners" not in went_out
