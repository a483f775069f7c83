"""The live updates' streams on real servers: two scripts/serve (granian's ASGI server, as
`make run` starts it) on free ports of 127.0.0.1, one database (tests/test_two_servers.py,
tests/test_worker_kill.py). A round saved through one server reaches a stream held by the
other; a stream opened with an old version, or with the Last-Event-ID of a reconnection, is
told the current one at once. Every wait is bounded; the servers are always stopped."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from django.conf import settings

from scoring.live import stream as streaming
from scoring.models import Game
from scripts.throwaway_site import free_port
from tests.conftest import Phone, round_post
from tests.links import url
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, start_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SEEN_WITHIN = 3.0  # seconds for a save to reach a stream (the reader reads every 0.1 s)


class Events:
    """A stream read in a thread of its own: the versions it was told, as they come."""

    def __init__(self, port: int, key: str, query: str = "", headers: dict | None = None):
        self.connection = http.client.HTTPConnection(HOST, port, timeout=30)
        self.connection.request("GET", f"/live/{key}{query}", headers=headers or {})
        self.response = self.connection.getresponse()
        self.versions: list[int] = []
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while line := self.response.readline():
                text = line.decode().rstrip("\n")
                self.lines.append(text)
                if text.startswith("data: "):
                    self.versions.append(int(text[6:]))
        except (OSError, ValueError, AttributeError):
            pass  # closed by the test (http.client drops its file on close)

    def wait_for(self, version: int) -> None:
        deadline = time.monotonic() + SEEN_WITHIN
        while version not in self.versions:
            assert time.monotonic() < deadline, (version, self.versions, self.lines)
            time.sleep(0.02)

    def close(self) -> None:
        # Shut the socket first: close() alone waits for the reading thread's readline, which
        # returns only with the next heartbeat (15 s), and left the streams open at teardown.
        if self.connection.sock is not None:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


@pytest.fixture
def two_servers(tmp_path) -> Iterator[tuple[int, int]]:
    # The servers sign the streams' keys with the secret key of this process, which makes them.
    environment = production_environment(
        DJANGO_SECRET_KEY=settings.SECRET_KEY, RAMI_NEW_GAMES_PER_MINUTE="1000"
    )
    started = []
    try:
        for name in ("a", "b"):
            port = free_port({port for port, _ in started})
            log = tmp_path / f"serve-{name}.log"
            process = start_serve(port, environment, log)
            started.append((port, process))
            wait_until_healthy(process, port, log)
        yield started[0][0], started[1][0]
    finally:
        for _port, process in started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=20)


def test_a_round_saved_through_one_server_reaches_the_streams_of_the_other(two_servers):
    a, b = two_servers
    game = Game.start(["Ana", "Boris", "Cyril"])
    key = streaming.key_for("g", game.view_token)
    watchers = [Events(b, key, f"?v={game.version}") for _ in range(3)]
    for watcher in watchers:
        assert watcher.response.status == 200
        assert watcher.response.getheader("Content-Type") == "text/event-stream; charset=utf-8"
        assert watcher.response.getheader("Cache-Control") == "no-cache"
        assert watcher.response.getheader("X-Accel-Buffering") == "no"
        watcher.wait_for(game.version)  # the first event: the stream works
    phone = Phone(HOST, a)
    phone.open(url("game", game.edit_token))
    saved = phone.post(url("game", game.edit_token), round_post(0, {1: 5, 2: 7}))
    assert saved.status == 303
    game.refresh_from_db()
    for watcher in watchers:
        watcher.wait_for(game.version)
        assert watcher.versions == sorted(set(watcher.versions))
        watcher.close()


def test_a_stream_opened_behind_is_told_the_current_version_at_once(two_servers):
    a, b = two_servers
    game = Game.start(["Ana", "Boris", "Cyril"])
    first = game.version
    phone = Phone(HOST, a)
    phone.open(url("game", game.edit_token))
    assert phone.post(url("game", game.edit_token), round_post(0, {1: 5, 2: 7})).status == 303
    game.refresh_from_db()
    key = streaming.key_for("g", game.view_token)
    # A page drawn before the save, and a browser coming back after its last event.
    behind = Events(b, key, f"?v={first}")
    reconnecting = Events(a, key, "?v=1", headers={"Last-Event-ID": str(first)})
    for stream in (behind, reconnecting):
        stream.wait_for(game.version)
        assert stream.versions == [game.version]
        assert stream.lines[0].startswith("retry: ")
        stream.close()
    # A key this site did not hand out opens nothing.
    refused = http.client.HTTPConnection(HOST, b, timeout=10)
    refused.request("GET", f"/live/g{game.pk}:forged")
    assert refused.getresponse().status == 404
