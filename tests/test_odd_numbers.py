"""Every number a view or the stream reads from a request (its address, its query, a form, a
header), given what no page of ours sends: digits that are not ASCII ("²", which
str.isdigit() takes for a digit and int() refuses; Arabic-Indic "١٢", which int() reads),
signs, zero, 25 and 5,000 digits (past any column of the database, past int()'s limit), nothing
and blanks. None is a 5xx: the page with the value ignored, a 400 or a 404."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django.test import Client

from scoring.live import stream as streaming
from scoring.models import Game, GameEvent, Table
from scoring.rules import RoundEntry
from tests.conftest import round_post, run_async
from tests.links import url
from tests.test_live import Asgi

pytestmark = pytest.mark.django_db

ODD = ["²", "١٢", "-1", "0", "9" * 25, "9" * 5000, "", " ", " 7 ", "1.5", "0x10", "1e3"]
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def client() -> Client:
    """A view's error is its answer, a 500, as a phone gets it (not raised in the test)."""
    return Client(raise_request_exception=False)


@pytest.fixture
def game() -> Game:
    game = Game.start(["Ana", "Boris", "Cyril"])
    for _ in range(3):
        document = {"winner": "Ana", "hands": {"Boris": {"value": 5}, "Cyril": {"value": 7}}}
        game.record_round(RoundEntry.from_document(document, game.names))
    return game


def statuses(client, method: str, path: str, fields: dict, odd_names: list[str]) -> dict:
    """Each odd value in each of `odd_names` (the other fields as given), plain and by htmx:
    the answers that were 5xx, by (field, value, htmx)."""
    failed = {}
    for name in odd_names:
        for value in ODD:
            for headers in ({}, HTMX):
                data = {**fields, name: value}
                if method == "GET":
                    answer = client.get(path, data, **headers)
                else:
                    answer = client.post(path, data, **headers)
                if answer.status_code >= 500:
                    failed[name, value[:30], bool(headers)] = answer.status_code
    return failed


def test_the_game_page_query(client, game):
    rounds = list(game.rounds.order_by("number"))
    fields = {"number": "1", "revision": "1"}
    assert statuses(client, "GET", url("game", game.edit_token), fields, ["fix"]) == {}
    fields = {"fix": str(rounds[0].pk), "number": "1", "revision": "1"}
    path = url("game", game.edit_token)
    assert statuses(client, "GET", path, fields, ["number", "revision"]) == {}
    for mode in ("saved", "changed", "back"):
        assert statuses(client, "GET", path, {}, [mode]) == {}
    assert statuses(client, "GET", url("view", game.view_token), {}, ["saved", "rounds"]) == {}


def test_the_poll(client, game):
    for name in ("poll", "view_poll"):
        token = game.edit_token if name == "poll" else game.view_token
        path = url(name, token)
        assert statuses(client, "GET", path, {"typing": "1"}, ["v", "fixing", "typing"]) == {}
        assert statuses(client, "GET", path, {"v": "1", "typing": "1"}, ["fixing", "shown"]) == {}


def test_the_round_forms(client, game):
    path = url("game", game.edit_token)
    save = round_post(0, {1: 5, 2: 7})
    names = ["for_round", "round", "revision", "value_1"]
    assert statuses(client, "POST", path, {**save, "key": ""}, names) == {}
    first = game.rounds.get(number=1)
    seen = {"round": str(first.pk), "number": "1", "revision": str(first.revision)}
    for action in ("delete", "correct", "replace"):
        fields = {**save, **seen, "for_round": "1", "action": action}
        assert statuses(client, "POST", path, fields, ["round", "number", "revision"]) == {}
    assert statuses(client, "POST", path, {"action": "undo"}, ["event"]) == {}
    assert statuses(client, "POST", path, {"action": "preview", "winner": "0"}, ["value_1"]) == {}


def test_a_round_by_its_number_in_the_address(client, game):
    for number in ("9" * 25, "0", "00001"):
        answer = client.get(f"/g/{game.edit_token}/rounds/{number}/")
        assert answer.status_code < 500, number


def test_the_history_and_the_players(client, game):
    game.delete_round(game.rounds.get(number=2))
    history = url("history", game.edit_token)
    deletion = game.events.filter(kind=GameEvent.Kind.DELETED).get()
    restore = {"action": "restore", "event": str(deletion.pk)}
    assert statuses(client, "POST", history, restore, ["event", "as_round"]) == {}
    go_back = {"action": "go_back", "event": "1", "revision": "1"}
    assert statuses(client, "POST", history, go_back, ["event", "revision"]) == {}
    players = url("players", game.edit_token)
    seating = {
        "action": "seating",
        "seat_0": "0",
        "seat_1": "1",
        "seat_2": "2",
        "dealer": "1",
        "seen_dealer": "0",
        "seen_order": "0,1,2",
    }
    names = ["seen_order", "seen_dealer", "seat_0", "dealer"]
    assert statuses(client, "POST", players, seating, names) == {}
    assert statuses(client, "POST", players, {**seating, "seen_order": "0,1"}, ["seat_1"]) == {}


def test_a_table(client, thursday_table: Table):
    path = url("table", thursday_table.edit_token)
    member = thursday_table.members.first()
    assert statuses(client, "GET", path, {}, ["v", "period"]) == {}
    for action in ("retire", "come_back", "remove"):
        fields = {"action": action, "member": str(member.pk), "seen": "1"}
        assert statuses(client, "POST", path, fields, ["member", "seen"]) == {}
    rename = {"action": "rename", "member": str(member.pk)}
    assert statuses(client, "POST", path, rename, ["member"]) == {}


def test_the_stream_as_a_view(client, game):
    key = streaming.key_for("g", game.view_token)
    for value in ODD:
        answer = client.get(f"/live/{key}", {"v": value})
        assert answer.status_code == 200, value
        answer.close()
        answer = client.get(f"/live/{key}", HTTP_LAST_EVENT_ID=value)
        assert answer.status_code == 200, value
        answer.close()


def test_the_stream_on_the_event_loop(db):
    key = streaming.key_for("g", 7)

    async def opened(query: str, headers: list) -> int:
        request = Asgi(f"/live/{key}", query, headers=headers)
        request.leave()
        await streaming.asgi_stream(request.scope, request.receive, request.send)
        return request.sent[0]["status"]

    for value in ODD:
        assert run_async(opened(f"v={quote(value)}", [])) == 200, value
        header = [(b"last-event-id", value.encode())]
        assert run_async(opened("", header)) == 200, value
