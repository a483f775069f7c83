"""The help page /rules/ "Counting points": what a visitor reads, computed by the engine."""

import re

import pytest

from scoring import counting, rules

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


def section(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    end = html.find("</section>", start)
    return html[start:end]


def round_points(html: str, key: str) -> list[int]:
    cells = re.findall(r'<td class="number points">(\d+)</td>', section(html, f"example-{key}"))
    return [int(cell) for cell in cells]


@pytest.mark.parametrize("language", ["en", "cs", "sv", "bg", "id"])
def test_the_worked_examples_show_the_engines_points(client, language):
    html = page(client, language)
    for key, points in EXPECTED_POINTS.items():
        assert round_points(html, key) == points


def test_the_examples_are_what_score_round_gives_for_their_hands():
    computed = counting.computed_examples()
    for example in counting.EXAMPLES:
        hands = [rules.Hand(cards=seat.cards, opened=seat.opened) for seat in example.seats]
        target = rules.target_for(len(hands))
        points = rules.score_round(hands, example.winner, target, hand_rummy=example.hand_rummy)
        assert list(computed[example.key].points) == points == EXPECTED_POINTS[example.key]


def test_the_target_table_comes_from_the_rules(client):
    html = page(client)
    targets = section(html, "end-of-game")
    for players in range(2, 7):
        assert f'<th scope="row">{players}</th><td>{rules.target_for(players)} points</td>' in (
            targets
        )


def test_the_card_value_table_and_special_cases(client):
    html = page(client)
    values = section(html, "card-values")
    assert re.search(r"Joker\s*</th>\s*<td>20</td>", values)
    assert re.search(r"Ace\s*</th>\s*<td>11</td>", values)
    assert re.search(r"King, queen, jack\s*</th>\s*<td>10</td>", values)
    assert "the number on the card" in values
    special = section(html, "special-cases")
    assert "scores 200 points" in special
    assert "plus 25 points, but never more than 100 points" in special
    assert "the second limit, 50 points" in special


def test_the_app_decisions_are_stated(client):
    decisions = section(page(client), "decisions")
    assert "each of them scores 0" in decisions
    assert "at most 2 of any one card" in decisions
    assert "8 of any rank" in decisions
    assert "4 jokers" in decisions
    assert "needs no cards for the opponents of a hand rummy" in decisions
    assert "Both give the same score" in decisions


def test_cards_are_drawn_as_faces_with_their_names(client):
    html = page(client, "cs")
    example = section(html, "example-ace_joker_five")
    assert '<span class="card card-red" role="img" aria-label="srdcové eso">A♥</span>' in example
    assert 'class="card card-joker" role="img" aria-label="žolík"' in example
    assert 'aria-label="trefová pětka"' in example
    assert '<span class="card" role="img" aria-label="trefová pětka"' in example


def test_never_opened_players_are_marked(client):
    html = page(client, "sv")
    example = section(html, "example-two_players_never_opened")
    assert "Motståndare 1" in example
    assert "har aldrig öppnat" in example
    assert "tom hand" in example


def test_the_page_has_its_own_stylesheet_and_no_inline_style(client):
    html = page(client)
    assert "scoring/rules" in html and ".css" in html
    assert " style=" not in html
    assert "<style" not in html
