"""The production server's output holds no token: scripts/serve (granian, its access log on,
DEBUG off) runs on a free port of 127.0.0.1 against the test database, as
tests/test_worker_kill.py starts it; a game's and a table's pages are opened by both their
links, then everything the server wrote is read. Bounded in time; the server's process group
is always stopped."""

from __future__ import annotations

import http.client
import json
import os
import signal
import time

import pytest
from django.conf import settings

from scoring.models import Game, Table
from scripts.throwaway_site import free_port
from tests.links import url
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, alive_in_group, start_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def get(port: int, path: str) -> int:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_the_access_log_and_the_app_log_hold_no_token(tmp_path):
    if not (settings.STATIC_ROOT / "staticfiles.json").exists():
        pytest.fail("The server runs with DEBUG off and needs the static files: run `make static`.")
    environment = production_environment()
    game = Game.start(["Ana", "Boris"])
    table = Table.start("Thursday cards", ["Ana", "Boris"])
    unknown = "Zm9yIHRlc3RzIG9ubHksIG5vdCBhIHJlYWwgdG9rZW4"
    paths = {
        f"/g/{game.edit_token}/": 200,
        url("view", game.view_token): 200,
        url("export_json", game.edit_token): 200,
        url("table", table.edit_token): 200,
        url("table_view", table.view_token): 200,
        url("table_export_json", table.edit_token): 200,
        # Django logs a 404 too (django.request), with the path.
        f"/t/{unknown}/": 404,
        # The poll of an unchanged game: 204, logged as any answer.
        f"/v/{game.view_token}/poll?v={game.version}": 204,
    }
    tokens = [game.edit_token, game.view_token, table.edit_token, table.view_token, unknown]
    port = free_port()
    log = tmp_path / "serve.log"
    serve = start_serve(port, environment, log)
    try:
        wait_until_healthy(serve, port, log)
        answers = {path: get(port, path) for path in paths}
        assert answers == paths
        polls = []
        for _ in range(10):  # both workers, after their readers have read the version
            time.sleep(0.2)
            polls.append(get(port, f"/v/{game.view_token}/poll?v={game.version}"))
        assert polls == [204] * 10
        # granian writes a request's access line once its answer is sent, from a queue of its
        # own: one not written yet when the server stops may never be (1 run of the whole
        # suite in CI logged 10 of the 11 polls). Wait for them all, bounded.
        deadline = time.monotonic() + 10
        while log.read_text().count('"path": "/v/<token>/poll"') < 11:
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=15) == 0, log.read_text()[-3000:]
    finally:
        if serve.poll() is None or alive_in_group(serve.pid):
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=10)

    written = log.read_text()
    for token in tokens:
        assert token not in written
    access = [
        json.loads(line)
        for line in written.splitlines()
        if line.startswith("{") and '"granian.access"' in line
    ]
    logged = {line["message"].split('"')[1] for line in access}
    assert {
        "GET /g/<token>/ HTTP/1.1",
        "GET /v/<token>/ HTTP/1.1",
        "GET /g/<token>/export.json HTTP/1.1",
        "GET /t/<token>/ HTTP/1.1",
        "GET /w/<token>/ HTTP/1.1",
        "GET /t/<token>/export.json HTTP/1.1",
        "GET /v/<token>/poll HTTP/1.1",
    } <= logged
    polls = [line for line in access if line["path"] == "/v/<token>/poll"]
    assert [line["status"] for line in polls] == [204] * 11
    assert '"path": "/t/<token>/"' in written  # Django's record of the 404
