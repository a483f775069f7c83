"""The help page /rules/ "Counting points": what a visitor reads, computed by the engine."""

import pytest

from scoring import rules
from scoring.models import Game, Hand
from scoring.rules import worked_examples
from tests.conftest import round_post
from tests.links import url
from tests.pages import Element, read

pytestmark = pytest.mark.django_db

EXPECTED_POINTS = {
    "ace_joker_five": [0, 36],
    "two_players_never_opened": [0, 50],
    "four_players_one_never_opened": [0, 7, 100, 31],
    "hand_rummy": [0, 200, 200],
    "blocked": [0, 0, 43],
}


def page(client, language="en") -> str:
    response = client.get("/rules/", headers={"accept-language": language})
    assert response.status_code == 200
    return response.content.decode()


def section(html: str, element_id: str) -> Element:
    return read(html).one(f"section#{element_id}")


def round_points(html: str, key: str) -> list[int]:
    return [int(cell) for cell in section(html, f"example-{key}").texts("td.number.points")]


@pytest.mark.parametrize("language", ["en", "cs", "sv", "bg", "id"])
def test_the_worked_examples_show_the_engines_points(client, language):
    html = page(client, language)
    for key, points in EXPECTED_POINTS.items():
        assert round_points(html, key) == points


def test_the_examples_are_what_score_round_gives_for_their_hands():
    computed = worked_examples.computed_examples(rules.SEEDS)
    for example in worked_examples.EXAMPLES:
        hands = [rules.Hand(cards=seat.cards, opened=seat.opened) for seat in example.seats]
        target = rules.target_for(len(hands), rules.SEEDS)
        points = rules.score_round(
            hands, example.winner, target, hand_rummy=example.hand_rummy, rules=rules.SEEDS
        )
        assert list(computed[example.key].points) == points == EXPECTED_POINTS[example.key]


def test_the_target_table_comes_from_the_rules(client):
    html = page(client)
    targets = section(html, "end-of-game").rows()
    for players in range(2, 7):
        target = rules.target_for(players, rules.SEEDS)
        assert [str(players), f"{target} points"] in targets


def test_the_card_value_table_and_special_cases(client):
    html = page(client)
    values = section(html, "card-values")
    # Each row: the cards drawn, their name, their value.
    assert ["★ Joker", "20"] in values.rows()
    assert ["A♠ Ace", "11"] in values.rows()
    assert ["K♥ Q♣ J♦ King, queen, jack", "10"] in values.rows()
    assert "the number on the card" in values.text
    special = section(html, "special-cases").text
    assert "scores 200 points" in special
    assert "plus 25 points, but never more than 100 points" in special
    assert "the second limit, 50 points" in special


def test_the_app_decisions_are_stated(client):
    decisions = section(page(client), "decisions").text
    assert "each of them scores 0" in decisions
    # The never-opened penalty in a blocked round.
    assert "Never opened in a blocked round:" in decisions
    assert "scores the hand value plus 25 points" in decisions
    # The tie-break round, repeated.
    assert "as often as needed" in decisions
    # The deck the check assumes.
    assert "two packs and 4 jokers" in decisions
    assert "at most 2 of any one card" in decisions
    assert "8 of any rank" in decisions
    # Hand rummy: only when ticked.
    assert "only when “Hand rummy” is ticked" in decisions
    # What the round form does (test_what_the_help_page_says_of_a_hand_rummy_is_what_the_form_does).
    assert "the round form counts every opponent as never opened" in decisions
    assert "The opponents need no cards, unless the house rules count twice their hand" in decisions
    assert "Both give the same score" in decisions
    # The largest hand value: what the whole deck is worth.
    assert f"at most {rules.MAX_HAND_VALUE}, what the whole deck is worth" in decisions
    assert "a finished game can be back in play" in decisions


def test_the_rest_of_the_page_says_only_what_the_players_rules_say(client):
    """What the app decides is listed under its own heading and stated nowhere else as a rule."""
    shown = read(page(client))
    before_decisions = []
    for part in shown.select("article.rules > *"):
        if part.get("id") == "decisions":
            break
        before_decisions.append(part.text)
    rules_text = " ".join(before_decisions)
    for decided in [
        "as often as needed",
        "tie-break",
        "packs",
        f"{rules.MAX_HAND_VALUE}",
        "ticked",
        "never opened included",
        "finished game",
    ]:
        assert decided not in rules_text, decided
    # From its heading to the end of its section.
    blocked = " ".join(shown.texts("#blocked-round, #blocked-round ~ *"))
    assert "the player with the lowest hand value is declared its winner" in blocked
    assert "the others count their cards as usual." in blocked
    assert "penalty" not in blocked and "never opened" not in blocked


def test_the_note_on_aces_and_jokers_says_what_the_players_rules_say(client):
    note = section(page(client), "card-values").text
    assert "an ace and a joker cost more than when they are laid down" in note
    assert "An ace that counted only one point at the bottom of a run costs 11" in note
    assert "gamble" not in note and "stands for any card" not in note


def test_the_never_opened_cap_is_not_said_to_be_the_most_anyone_scores(client):
    """A player who opened can score more than 100 (JK JK A A K K Q Q J J is 122), and a hand
    rummy costs 200: the cap is the most the never-opened rule allows."""
    assert (
        rules.hand_value(["JK", "JK", "AS", "AH", "KS", "KH", "QS", "QH", "JS", "JH"], rules.SEEDS)
        == 122
    )
    html = page(client)
    assert "without a hand rummy" not in html
    example = section(html, "example-four_players_one_never_opened").text
    assert (
        "The one who never opened scores the maximum the rule allows: 84 + 25 = 109, capped at "
        "100 points." in example
    )


def test_the_blocked_example_points_to_the_apps_decisions(client):
    html = page(client)
    links = section(html, "example-blocked").select("a")
    assert ("#decisions", "what the app decides") in [(a.get("href"), a.text) for a in links]
    for key in EXPECTED_POINTS:
        if key != "blocked":
            assert not section(html, f"example-{key}").select('a[href="#decisions"]')


def test_cards_are_drawn_as_faces_with_their_names(client):
    html = page(client, "cs")
    cards = {
        card.get("aria-label"): (card.get("class"), card.get("role"), card.text)
        for card in section(html, "example-ace_joker_five").select(".card")
    }
    assert cards["srdcové eso"] == ("card card-red", "img", "A♥")
    assert cards["žolík"] == ("card card-joker", "img", "★")
    assert cards["trefová pětka"] == ("card", "img", "5♣")


def test_never_opened_players_are_marked(client):
    html = page(client, "sv")
    example = section(html, "example-two_players_never_opened").text
    assert "Motståndare 1" in example
    assert "har aldrig öppnat" in example
    assert "tom hand" in example


def test_the_page_has_its_own_stylesheet_and_no_inline_style(client):
    html = page(client)
    assert "scoring/rules" in html and ".css" in html
    assert " style=" not in html
    assert "<style" not in html


def test_what_the_help_page_says_of_a_hand_rummy_is_what_the_form_does(client, db):
    """No "Not opened yet" box ticked, no cards: a hand rummy is saved, every opponent counted
    as never opened (200 each by the seeds)."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    response = client.post(url("game", game.edit_token), round_post(0, hand_rummy="on"))
    assert response.status_code == 303
    assert game.totals() == [0, 200, 200]
    assert not Hand.objects.filter(round__game=game, opened=True).exclude(player__seat=0).exists()
