"""One address, one change: each change a page makes is a POST view of its own, answered as a
page without JavaScript (a 303, or the page again) and as the part htmx swaps; a refusal's
status is set in one place (web.http.RefusalMiddleware), whichever view raises it; and the
posts of pages drawn before each change had its own address (an `action` field posted to the
page's address) are still answered, for one release (scoring/views/legacy.py)."""

from __future__ import annotations

from unittest import mock

import pytest
from django.urls import reverse

from scoring import rules
from scoring.models import Game, Table
from scoring.rules import Hand, RoundEntry
from scoring.web import limits
from scoring.web.http import REFUSAL_STATUS
from tests.conftest import as_seen, finished_game, members_of, round_post
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
# The phone that made the changes of the game below, as its cookie names it.
PHONE = "ThisPhone0ThisPhone0Th"


@pytest.fixture
def game() -> Game:
    """Two rounds of four players; round 2 deleted since, and round 1 edited."""
    game = Game.start(["Ana", "Boris", "Cyril", "Dana"])
    for boris in (11, 12, 13):
        hands = (Hand(), Hand(value=boris), Hand(value=2), Hand(value=3))
        game.record_round(RoundEntry(hands=hands, winner=0), phone=PHONE)
    game.delete_round(game.rounds.get(number=3), phone=PHONE)
    seen = game.rounds.get(number=1)
    hands = (Hand(), Hand(value=20), Hand(value=2), Hand(value=3))
    game.edit_round(seen, RoundEntry(hands=hands, winner=0), phone=PHONE)
    return game


@pytest.fixture
def table(friday_table) -> Table:
    return friday_table


def event(game: Game, kind: str) -> str:
    return str(game.events.filter(kind=kind).latest("pk").pk)


# Each change of a game: its address, its POST data, and what calling it changes (the model
# method a refusal is raised from).
def game_changes(game: Game) -> dict[str, tuple[str, dict, str]]:
    rounds = game.rounds.count()
    return {
        "save": (
            "save",
            round_post(0, {1: 5, 2: 6, 3: 7}, for_round=str(rounds + 1)),
            "record_round",
        ),
        "preview": ("preview", round_post(0, {1: 5}), ""),
        "correct": (
            "correct",
            round_post(0, {1: 8, 2: 2, 3: 3}, **{**as_seen(game, 2), "for_round": "2"}),
            "edit_round",
        ),
        "replace": ("replace", round_post(0, {1: 8, 2: 2, 3: 3}, **as_seen(game, 2)), "edit_round"),
        "delete": ("delete", as_seen(game, 2), "delete_round"),
        "undo": ("undo", {"event": event(game, "edited")}, "undo"),
        "restore": ("restore", {"event": event(game, "deleted")}, "restore_round"),
        "go_back": (
            "go_back",
            {"event": event(game, "edited"), "revision": str(game.rounds.get(number=1).revision)},
            "go_back",
        ),
        "seats": (
            "seats",
            {"seat_0": "0", "seat_1": "2", "seat_2": "1", "seat_3": "3", "dealer": "2"},
            "change_seating",
        ),
        "names": (
            "names",
            {"name_0": "Anna", "name_1": "Boris", "name_2": "Cyril", "name_3": "Dana"},
            "",
        ),
        "leave": ("leave", {"seat": "3"}, "leave"),
        "join": ("join", {"name": "Emil", "after": "3", "start": ""}, "join"),
    }


def phone(client) -> None:
    """The client is the phone that made the fixture's changes (its Undo is this phone's)."""
    client.cookies["rami_phone"] = PHONE


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
@pytest.mark.parametrize(
    "change",
    [
        "save",
        "preview",
        "correct",
        "replace",
        "delete",
        "undo",
        "restore",
        "go_back",
        "seats",
        "names",
        "leave",
        "join",
    ],
)
def test_each_change_of_a_game_has_its_own_address(client, game, change, headers):
    phone(client)
    name, data, _method = game_changes(game)[change]
    address = url(name, game.edit_token)
    assert client.get(address).status_code == 405  # a change is a POST
    answer = client.post(address, data, headers=headers)
    if change == "preview":
        assert answer.status_code == 200
        assert 'id="points-1"' in answer.content.decode()
    elif headers and change in ("save", "correct", "replace", "delete", "undo"):
        # The part htmx swaps: the game's body, not the whole page.
        assert answer.status_code == 200
        html = answer.content.decode()
        assert html.lstrip().startswith('<div id="game-body"') and "<html" not in html
    else:
        assert answer.status_code == 303 or "HX-Redirect" in answer.headers, answer.status_code
    if change not in ("preview",):
        assert Game.objects.get(pk=game.pk).version > game.version


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_a_rematch_has_its_own_address(client, headers):
    over = finished_game()
    answer = client.post(url("rematch", over.edit_token), headers=headers)
    over.refresh_from_db()
    target = reverse("game", args=[over.next_game.edit_token])
    assert answer.get("Location", answer.get("HX-Redirect")) == target


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_each_change_of_a_table_has_its_own_address(client, table, headers):
    members = members_of(table)
    ana = members["Ana"]
    changes = [
        ("add_member", {"add-name": "Eva"}),
        ("rename_member", {"member": str(ana.pk), f"rename-{ana.pk}-name": "Anna"}),
        ("retire", {"member": str(ana.pk), "seen": str(Table.objects.get(pk=table.pk).version)}),
        ("come_back", {"member": str(ana.pk), "seen": str(Table.objects.get(pk=table.pk).version)}),
        ("play", {"play-members": [str(member.pk) for member in members.values()]}),
    ]
    for name, data in changes:
        if "seen" in data:
            data["seen"] = str(Table.objects.get(pk=table.pk).version)
        address = url(name, table.edit_token)
        assert client.get(address).status_code == 405
        answer = client.post(address, data, headers=headers)
        assert answer.status_code == 303 or "HX-Redirect" in answer.headers, (name, answer)
    assert "Eva" in members_of(table) and table.games.count() == 1


# A refusal's status is set in one place, whatever view raises it: each change's model method
# raising each kind of refusal, and the status of the answer.

KINDS = {
    "conflict": rules.Conflict(rules.Code.ROUND_CHANGED, number=1),
    "confirm": rules.ConfirmFirst(rules.Code.RESTORE_AS_EXTRA, number=3, extra=3),
    "limit": limits.TooMany(limits.LimitCode.TOO_MANY_GAMES, retry_after=60),
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
@pytest.mark.parametrize(
    "change",
    [
        "save",
        "correct",
        "replace",
        "delete",
        "undo",
        "restore",
        "go_back",
        "seats",
        "leave",
        "join",
    ],
)
def test_every_change_of_a_game_answers_each_refusal_with_its_status(
    client, game, change, kind, headers
):
    phone(client)
    name, data, method = game_changes(game)[change]
    error = KINDS[kind]
    with mock.patch.object(Game, method, side_effect=error):
        answer = client.post(url(name, game.edit_token), data, headers=headers)
    assert answer.status_code == REFUSAL_STATUS[type(error)], answer.content[:300]
    if kind == "limit":
        assert answer["Retry-After"] == "60"
    assert answer["Content-Type"].startswith("text/html")  # a page that says why


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_change_of_a_table_and_every_new_thing_answers_each_refusal_with_its_status(
    client, table, kind
):
    error = KINDS[kind]
    members = members_of(table)
    ana = members["Ana"]
    seen = str(table.version)
    changes = [
        (url("add_member", table.edit_token), {"add-name": "Eva"}, Table, "add_member"),
        (
            url("rename_member", table.edit_token),
            {"member": str(ana.pk), f"rename-{ana.pk}-name": "Anna"},
            Table,
            "rename_member",
        ),
        (url("retire", table.edit_token), {"member": str(ana.pk), "seen": seen}, Table, "retire"),
        (
            url("play", table.edit_token),
            {"play-members": [str(member.pk) for member in members.values()]},
            Table,
            "new_game",
        ),
        (reverse("start"), {"player_0": "Ana", "player_1": "Boris"}, Game, "start"),
        (reverse("table_start"), {"name": "Thursday", "member_0": "Ana"}, Table, "start"),
    ]
    for address, data, model, method in changes:
        with mock.patch.object(model, method, side_effect=error):
            answer = client.post(address, data)
        assert answer.status_code == REFUSAL_STATUS[type(error)], (address, answer.content[:300])


# A mistake in what was sent (a RulesError itself): said beside its field where the change has
# a form, or beside the changes the history lists (200, as Django answers a form with an
# error), else a 400, the page saying why.
MISTAKE = rules.RulesError(rules.Code.NAME_TAKEN)


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ("delete", 400),
        ("undo", 400),
        ("restore", 200),
        ("go_back", 200),
        ("leave", 400),
        ("seats", 200),
        ("join", 200),
    ],
)
def test_a_mistake_is_said_beside_its_field_or_refused_with_a_400(client, game, change, status):
    phone(client)
    name, data, method = game_changes(game)[change]
    with mock.patch.object(Game, method, side_effect=MISTAKE):
        answer = client.post(url(name, game.edit_token), data)
    assert answer.status_code == status, answer.content[:300]
    assert "already has this name" in read(answer).text


def test_a_mistake_of_a_table_or_a_new_thing_is_said_beside_its_field(client, table):
    ana = members_of(table)["Ana"]
    changes = [
        (url("add_member", table.edit_token), {"add-name": "Eva"}, Table, "add_member"),
        (
            url("rename_member", table.edit_token),
            {"member": str(ana.pk), f"rename-{ana.pk}-name": "Anna"},
            Table,
            "rename_member",
        ),
        (reverse("start"), {"player_0": "Ana", "player_1": "Boris"}, Game, "start"),
        (reverse("table_start"), {"name": "Thursday", "member_0": "Ana"}, Table, "start"),
    ]
    for address, data, model, method in changes:
        with mock.patch.object(model, method, side_effect=MISTAKE):
            answer = client.post(address, data)
        assert answer.status_code == 200, (address, answer.content[:300])
        assert "already has this name" in read(answer).text, address


def test_the_start_page_refused_is_kept_private_too(client):
    """The start page lists this browser's games by their edit links: its answer to a refused
    game, too, is for no cache to keep."""
    for error in (MISTAKE, KINDS["limit"]):
        with mock.patch.object(Game, "start", side_effect=error):
            answer = client.post(reverse("start"), {"player_0": "Ana", "player_1": "Boris"})
        assert "no-store" in answer["Cache-Control"] and "private" in answer["Cache-Control"]


def test_a_page_and_its_changes_at_one_address_take_no_other_method(client, game, table):
    """An address with a page and the changes of a page drawn before (web.http.by_method)
    answers any other method as Django's require_http_methods does: 405, saying which."""
    for address in (url("game", game.edit_token), url("table", table.edit_token), "/"):
        answer = client.put(address)
        assert answer.status_code == 405, address
        assert answer["Allow"] == "GET, POST", address


def test_a_refusal_no_view_answers_is_still_answered_with_its_status(client, game):
    """A refusal raised where no view catches it is answered by the middleware, with its
    reason in plain text and its status, not as a 500."""
    error = rules.Conflict(rules.Code.GAME_FINISHED)
    with mock.patch("scoring.views.games.Scoreboard.for_game", side_effect=error):
        answer = client.get(url("extras", game.edit_token))
    assert answer.status_code == 409
    assert answer["Content-Type"].startswith("text/plain")
    assert answer.content.decode() == "The game is over: start a rematch to play on."


# The posts of pages drawn before each change had its own address, for one release.


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_a_page_drawn_before_still_saves_and_changes(client, game, headers):
    phone(client)
    rounds = game.rounds.count()
    saved = client.post(
        url("game", game.edit_token),
        round_post(0, {1: 5, 2: 6, 3: 7}, for_round=str(rounds + 1)),
        headers=headers,
    )
    assert saved.status_code in (200, 303)
    assert game.rounds.count() == rounds + 1
    deleted = client.post(
        url("game", game.edit_token), {"action": "delete", **as_seen(game, 1)}, headers=headers
    )
    assert deleted.status_code in (200, 303)
    assert game.rounds.count() == rounds
    history = url("history", game.edit_token)
    restored = client.post(history, {"action": "restore", "event": event(game, "deleted")})
    assert restored.status_code == 303
    players = url("players", game.edit_token)
    renamed = client.post(players, {"name_0": "Anna", "seen_0": "Ana"})
    assert renamed.status_code == 303 and Game.objects.get(pk=game.pk).names[0] == "Anna"
    unknown = client.post(url("game", game.edit_token), {"action": "tidy"})
    assert unknown.status_code == 400


def test_a_table_page_drawn_before_still_changes_its_members(client, table):
    here = url("table", table.edit_token)
    answer = client.post(here, {"action": "add_member", "add-name": "Eva"})
    assert answer.status_code == 303 and "Eva" in members_of(table)
    assert client.post(here, {"action": "tidy"}).status_code == 400


def test_the_game_page_links_each_change_to_its_own_address(client, game):
    phone(client)
    page = read(client.get(url("game", game.edit_token)))
    form = page.one("form#round-form")
    assert form.get("action") == url("save", game.edit_token)
    assert form.get("hx-post") == url("save", game.edit_token)
    preview = page.one("#round-form [hx-post]:not(form)")
    assert preview.get("hx-post") == url("preview", game.edit_token)
