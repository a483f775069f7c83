"""Every page told of a change gets it, on the production server with two workers (scripts/serve,
as `make run` starts it on two cores): a page holding its stream pulls after each event, and
two pages without one check their version every few hundred milliseconds, pulling when the
check does not vouch for it. Each request on a connection of its own, so that they land on
either worker, whose live readers read the versions at their own moments.

Before the version check had an address of its own, a pull after an event that landed on the
worker whose reader had not read the save yet was answered 204 in front of Django, and the page
kept the old board until the next change (5 and 12 of 40 pulls in two runs)."""

from __future__ import annotations

import http.client
import re
import threading
import time
from collections.abc import Iterator

import pytest
from django.conf import settings

from scoring.live.stream import key_for
from scoring.models import Game
from scripts.throwaway_site import free_port
from tests.conftest import Phone, round_post
from tests.links import url
from tests.test_live_servers import Events
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, start_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SAVES = 40
CHECK_EVERY = 0.15  # seconds: faster than a phone's 2 s, to meet every moment of the readers
CONVERGED_WITHIN = 3.0  # seconds for a page without a stream to show the last save
VERSION = re.compile(r'data-version="(\d+)"')


@pytest.fixture
def served(tmp_path) -> Iterator[int]:
    # The server signs the streams' keys with the secret key of this process, which makes them.
    environment = production_environment(
        DJANGO_SECRET_KEY=settings.SECRET_KEY, RAMI_NEW_GAMES_PER_MINUTE="1000"
    )
    port = free_port()
    log = tmp_path / "serve.log"
    process = start_serve(port, environment, log)
    try:
        wait_until_healthy(process, port, log)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)


def get(port: int, path: str) -> tuple[int, str]:
    """A GET on a connection of its own, as htmx sends a poll."""
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        connection.request("GET", path, headers={"HX-Request": "true"})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


class Poller:
    """A watch-only page without a stream, in a thread: it checks its version at the
    stream's address and pulls when the check does not say 204, as rami.js does."""

    def __init__(self, port: int, game: Game) -> None:
        self.port, self.version = port, game.version
        self.check = f"/live/{key_for('g', game.view_token)}/version"
        self.poll = f"/v/{game.view_token}/poll"
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(CHECK_EVERY):
            status, _ = get(self.port, f"{self.check}?v={self.version}")
            if status == 204:
                continue
            if status != 200:
                self.errors.append(f"check {status}")
                continue
            status, body = get(self.port, f"{self.poll}?v={self.version}&shown=playing")
            if status == 200 and (shown := VERSION.search(body)):
                self.version = int(shown[1])
            elif status != 204:
                self.errors.append(f"poll {status}")

    def shows(self, version: int) -> bool:
        deadline = time.monotonic() + CONVERGED_WITHIN
        while self.version != version:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True


def test_every_pull_after_an_event_gets_the_change_and_every_page_converges(served):
    port = served
    game = Game.start(["Ana", "Boris", "Cyril", "Dana"])
    stream = Events(port, key_for("g", game.view_token), f"?v={game.version}")
    stream.wait_for(game.version)
    pollers = [Poller(port, game), Poller(port, game)]
    saving = Phone(HOST, port)
    saving.open(url("game", game.edit_token))
    shown, behind, late = game.version, [], []
    try:
        for number in range(1, SAVES + 1):
            # Hands of 5: 40 rounds stay far from the target of four players (300).
            saved = saving.post(
                url("save", game.edit_token),
                round_post(number % 4, {seat: 5 for seat in range(4) if seat != number % 4}),
            )
            assert saved.status == 303, saved.text[-2000:]
            game.refresh_from_db()
            stream.wait_for(game.version)
            # The page's pull after the event: whichever worker answers, the change.
            status, body = get(port, f"/v/{game.view_token}/poll?v={shown}&shown=playing")
            found = VERSION.search(body) if status == 200 else None
            if found is None or int(found[1]) != game.version:
                behind.append((number, status, found and int(found[1])))
            shown = game.version
            late += [number for poller in pollers if not poller.shows(game.version)]
    finally:
        for poller in pollers:
            poller.stop.set()
            poller.thread.join(timeout=10)
        stream.close()
    assert behind == []
    assert late == []
    assert [poller.errors for poller in pollers] == [[], []]
