"""Several app servers, one database: a round saved through one is seen through the other.

Two real gunicorn servers (production settings: DEBUG off, a secret key) run as separate
processes on free ports of 127.0.0.1 (8400-8499) against the test database, migrated first as
a deployment would: the SQLite file on SQLite (`make test`), the PostgreSQL database on
PostgreSQL (`make test-postgres`). Every wait is bounded and the servers are always stopped.
"""

from __future__ import annotations

import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse

from scoring.models import Game
from tests.conftest import Phone, round_post, totals

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PORTS = range(8400, 8500)
STARTUP = 30  # seconds for a server to answer /healthz
MIGRATE = 60  # seconds for `manage.py migrate`


def database_url() -> str:
    """The test database, as DATABASE_URL says it to a server process."""
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"
    assert connection.vendor == "postgresql", connection.vendor
    credentials = f"{quote(database['USER'], safe='')}:{quote(database['PASSWORD'], safe='')}"
    return f"postgres://{credentials}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


def production_environment() -> dict[str, str]:
    """The environment of a server run as in production (DEBUG off, a secret key) on the test
    database, which is migrated first."""
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "PYTHONUNBUFFERED": "1",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "--verbosity=0"],
        cwd=settings.BASE_DIR,
        env=environment,
        check=True,
        timeout=MIGRATE,
    )
    return environment


def free_port(taken: set[int]) -> int:
    for port in random.sample(PORTS, len(PORTS)):
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.fail("no free port between 8400 and 8499")


class Server:
    """One gunicorn process serving the app on 127.0.0.1:`port`."""

    def __init__(self, name: str, environment: dict, log: Path, taken: set[int]) -> None:
        self.name = name
        self.log = log
        # Another process may take the port between the probe and gunicorn's bind: try again.
        for _attempt in range(3):
            self.port = free_port(taken)
            self.process = self._start(environment)
            if self._ready():
                taken.add(self.port)
                return
            self.stop()
        pytest.fail(f"server {name} did not start; its log:\n{log.read_text()[-3000:]}")

    def _start(self, environment: dict) -> subprocess.Popen:
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "rami_site.wsgi",
            f"--bind=127.0.0.1:{self.port}",
            "--workers=1",
            "--worker-class=gthread",
            "--threads=2",
            "--graceful-timeout=5",
        ]
        with self.log.open("ab") as log:
            return subprocess.Popen(  # noqa: S603 (our own fixed command line)
                command, cwd=settings.BASE_DIR, env=environment, stdout=log, stderr=log
            )

    def _ready(self) -> bool:
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                if self.phone().request("GET", "/healthz").status == 200:
                    return True
            except OSError:
                pass
            time.sleep(0.2)
        return False

    def phone(self) -> Phone:
        return Phone("127.0.0.1", self.port)

    def stop(self) -> None:
        """Quick shutdown (SIGINT), then SIGKILL if it has not ended within 10 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture
def servers(tmp_path) -> Iterator[tuple[Server, Server]]:
    if not (settings.STATIC_ROOT / "staticfiles.json").exists():
        pytest.fail("The servers run with DEBUG off and need the static files: run `make static`.")
    environment = production_environment()
    taken: set[int] = set()
    started: list[Server] = []
    try:
        for name in ("a", "b"):
            started.append(Server(name, environment, tmp_path / f"server-{name}.log", taken))
        yield started[0], started[1]
    finally:
        for server in started:
            server.stop()


def test_a_round_saved_through_one_server_is_seen_through_the_other(servers):
    a, b = servers
    phone_a = a.phone()

    # Start a game on A.
    phone_a.open("/")
    started = phone_a.post("/", {"player_0": "Ana", "player_1": "Boris", "player_2": "Cyril"})
    assert started.status == 303
    path = started.getheader("Location")
    game = Game.objects.get(edit_token=path.split("/")[2])
    assert totals(b.phone().open(path)) == [0, 0, 0]
    version = game.version

    # Save a round on A ...
    phone_a.open(path)
    saved = phone_a.post(path, round_post(0, {1: "AH JK 5C", 2: 27}, key="through-a"))
    assert saved.status == 303

    # ... and B shows it at once: the page, and the live poll of a phone still on the old version.
    assert totals(b.phone().open(path)) == [0, 36, 27]
    poll = reverse("poll", args=[game.edit_token])
    changed = b.phone().request("GET", f"{poll}?v={version}")
    assert changed.status == 200
    assert totals(changed.text) == [0, 36, 27]
    game.refresh_from_db()
    assert b.phone().request("GET", f"{poll}?v={game.version}").status == 204
