"""Live updates: the poll answers 204 for an unchanged game, cheaply; otherwise the scoreboard,
and a fresh form only when nobody is typing."""

import pytest
from django.test import Client

from scoring.rules import Hand, RoundEntry
from tests.conftest import delete_post, round_post, totals
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def poll_url(html: str) -> str:
    return read(html).one(".poller").get("hx-get")


@pytest.mark.parametrize("link", ["g", "v"])
def test_an_unchanged_game_costs_one_query_and_no_rendering(
    client, four_players, link, django_assert_max_num_queries
):
    token = four_players.edit_token if link == "g" else four_players.view_token
    address = poll_url(client.get(f"/{link}/{token}/").content.decode())
    assert address == f"/{link}/{token}/poll?v={four_players.version}"
    with django_assert_max_num_queries(1):
        response = client.get(address, headers=HTMX)
    assert response.status_code == 204
    assert response.content == b""
    assert "no-cache" in response["Cache-Control"]


def test_a_changed_game_sends_the_new_scoreboard_and_a_fresh_form(client, four_players):
    address = poll_url(client.get(url("game", four_players.edit_token)).content.decode())
    client.post(url("game", four_players.edit_token), round_post(0, {1: 36, 2: 10, 3: 4}))
    response = client.get(address, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="scoreboard"')
    shown = read(html)
    assert totals(shown) == [0, 36, 10, 4]
    four_players.refresh_from_db()
    # The next poll asks from the new version.
    assert poll_url(html).endswith(f"poll?v={four_players.version}")
    assert shown.one("section#round-entry").get("hx-swap-oob") == "true"
    assert "Round 2" in shown.text


def test_someone_typing_keeps_their_form_and_is_told(client, four_players):
    address = poll_url(client.get(url("game", four_players.edit_token)).content.decode())
    client.post(url("game", four_players.edit_token), round_post(0, {1: 36, 2: 10, 3: 4}))
    html = client.get(address + "&typing=1", headers=HTMX).content.decode()
    assert 'id="round-entry"' not in html
    assert 'id="round-notice"' in html and "Another phone has just saved a round" in html


def test_someone_typing_is_told_when_the_seats_changed_not_a_round(client, four_players):
    address = poll_url(client.get(url("game", four_players.edit_token)).content.decode())
    four_players.change_seating(2, [0, 1, 2, 3])
    html = client.get(address + "&typing=1", headers=HTMX).content.decode()
    assert 'id="round-entry"' not in html
    notice = read(html).one("#round-notice").text
    assert notice.startswith("Another phone has just changed the players: a name, the seats,")


@pytest.mark.parametrize("then_a_round", [False, True], ids=["a join", "then a round"])
def test_someone_typing_gets_totals_for_the_rows_their_form_shows(
    client, four_players, then_a_round
):
    """A player joins while a phone types: its form keeps its four rows (the poll says them,
    `players`), and the new totals go to those four, none to the newcomer's row, which the
    form has not (htmx would report it missing), whether the board is sent whole (#live) or
    only the rounds changed since (#changes)."""
    page = client.get(url("game", four_players.edit_token)).content.decode()
    assert read(page).one("#round-form [name=players]").get("value") == "0 1 2 3"
    four_players.join("Gita")
    address = poll_url(page)
    if then_a_round:
        address = poll_url(client.get(url("game", four_players.edit_token)).content.decode())
        four_players.record_round(RoundEntry(winner=0, hands=(Hand(), *(Hand(value=5),) * 4)))
    typing = read(client.get(address + "&typing=1&players=0+1+2+3", headers=HTMX).content.decode())
    heads = {head.get("id") for head in typing.select(".total[hx-swap-oob]")}
    assert heads == {"standing-0", "standing-1", "standing-2", "standing-3"}
    fresh = read(client.get(address, headers=HTMX).content.decode())
    assert "Gita" in fresh.one("#round-form").text


def test_the_view_page_poll_sends_no_form_and_no_edit_token(client, four_players):
    address = url("view_poll", four_players.view_token) + "?v=0"
    client.post(url("game", four_players.edit_token), round_post(0, {1: 36, 2: 10, 3: 4}))
    html = client.get(address, headers=HTMX).content.decode()
    assert totals(html) == [0, 36, 10, 4]
    assert "round-entry" not in html and four_players.edit_token not in html


def test_two_phones_entering_the_same_round(client, four_players):
    """Both forms are for round 1; the first saves; the second is told, shown what was saved,
    keeps what it typed, and may save it as round 2. Nothing is duplicated or lost."""
    page = url("game", four_players.edit_token)
    first = round_post(0, {1: 36, 2: 10, 3: 4}, for_round="1", key="phone-a")
    second = round_post(1, {0: "KH QS", 2: 7, 3: 9}, for_round="1", key="phone-b")
    assert client.post(page, first).status_code == 303
    shown = read(client.post(page, second, headers=HTMX))
    assert "Round 1 was saved on another phone first" in shown.text
    assert "Ana 0 · Boris 36 · Cyril 10 · Dana 4" in shown.text
    assert shown.one("#id_cards_0").get("value") == "KH QS"
    assert shown.one("input[name=for_round]").get("value") == "2"
    assert shown.one(".form-actions button.primary").text == "Save mine as round 2"
    assert four_players.rounds.count() == 1
    second["for_round"] = "2"
    assert client.post(page, second).status_code == 303
    assert four_players.totals() == [20, 36, 17, 13]
    assert four_players.rounds.count() == 2


@pytest.mark.parametrize("rounds", [1, 12])
def test_a_page_drawn_after_a_live_update_has_no_part_meant_for_another_place(
    client, four_players, rounds
):
    """The rounds are kept under their content's digest (game.html's cache), and a live update
    (#live) draws them with its parts out of band. Whichever of the two comes first, the
    other phone's live update or the saving phone's answer, the answer must not carry the
    update's out-of-band "Show all" part: swapped in as the main content of a page that had
    no round table yet, htmx looks for #more-rounds out of band, finds none, and says
    htmx:oobErrorNoTarget (a fresh-clone run, on PostgreSQL: the poll of the other phone
    drawn before the saving phone's answer)."""
    page = url("game", four_players.edit_token)
    seen = four_players.version
    for _ in range(rounds):
        four_players.record_round(
            RoundEntry(hands=(Hand(), Hand(value=7), Hand(value=9), Hand(value=3)), winner=0)
        )
    # The other phone's live update first, from the page it had before the first round.
    update = client.get(f"{page}poll", {"v": seen, "shown": "playing"}, headers=HTMX)
    assert read(update.content.decode()).one("#board-rest").get("hx-swap-oob") == "true"
    # Then what the saving phone swaps in, and a fresh page, drawn from the same rounds.
    for answer in (client.get(page, headers=HTMX), client.get(page)):
        more = read(answer.content.decode()).one("#more-rounds")
        assert more.get("hx-swap-oob") is None


def test_a_live_update_of_the_rounds_brings_the_count_of_rounds_too(client, four_players):
    """The line over the rounds ("Target 300 · 2 rounds") is a number the page shows: a live
    update that brings only the changed rounds brings it as a fresh page has it."""
    page = url("game", four_players.edit_token)
    client.post(page, round_post(0, {1: 36, 2: 10, 3: 4}))
    address = poll_url(client.get(page).content.decode())
    client.post(page, round_post(1, {0: 5, 2: 10, 3: 4}))
    answer = client.get(address + "&shown=playing", headers=HTMX)
    assert answer["HX-Reswap"] == "none"  # only the rounds changed: the #changes part
    line = read(answer.content.decode()).one("#board-line")
    assert line.get("hx-swap-oob") == "true"
    assert line.text == read(client.get(page).content.decode()).one("#board-line").text
    assert line.text == "Target 300 · 2 rounds"


# A table's phones ask at once after a save: one answer drawn, handed to each


def test_the_phones_of_a_table_asking_the_same_get_one_answer_drawn_once(
    four_players, django_assert_max_num_queries
):
    phones = [Client() for _ in range(3)]
    page = url("game", four_players.edit_token)
    phones[0].post(page, round_post(0, {1: 36, 2: 10, 3: 4}))
    urls = [poll_url(phone.get(page).content.decode()) + "&shown=playing" for phone in phones]
    phones[0].post(page, round_post(1, {0: 5, 2: 6, 3: 7}))
    first = phones[1].get(urls[1], headers=HTMX)
    assert first["HX-Reswap"] == "none"  # only the rounds changed: the #changes part
    # The next phone that asks the same gets the same answer, after one query.
    with django_assert_max_num_queries(1):
        second = phones[2].get(urls[2], headers=HTMX)
    assert (second.status_code, second["HX-Reswap"]) == (200, "none")
    assert second.content == first.content
    assert read(second.content.decode()).one("#board-line").text == "Target 300 · 2 rounds"
    # Another language, or a phone that is typing, asks something else, drawn for it.
    czech = phones[0].get(urls[0], headers=HTMX | {"Accept-Language": "cs"})
    assert read(czech.content.decode()).one("#board-line").text == "Cílová hranice 300 · 2 kola"
    typing = phones[0].get(urls[0] + "&typing=1", headers=HTMX)
    assert typing.content != first.content
    assert "Another phone has just saved a round." in read(typing.content.decode()).text


def test_a_deletion_is_told_to_each_phone_as_its_own(four_players):
    """Only the phone that deleted a round is offered its Undo: its answer is never handed to
    another phone, nor another's to it."""
    ana, boris, cyril = Client(), Client(), Client()
    page = url("game", four_players.edit_token)
    ana.post(page, round_post(0, {1: 36, 2: 10, 3: 4}))
    ana.post(page, round_post(1, {0: 5, 2: 6, 3: 7}))
    urls = {phone: poll_url(phone.get(page).content.decode()) for phone in (ana, boris, cyril)}
    ana.post(page, delete_post(four_players, 2))
    answers = {
        phone: read(phone.get(urls[phone] + "&shown=playing", headers=HTMX).content.decode())
        for phone in (boris, ana, cyril)
    }
    assert answers[ana].texts("button[value=undo]") == ["Undo"]
    for other in (boris, cyril):
        assert "Round 2 was deleted on another phone." in answers[other].text
        assert answers[other].texts("button[value=undo]") == []
