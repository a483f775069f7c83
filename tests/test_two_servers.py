"""Several app servers, one database and one Redis: a round saved through one is seen through
the other, a round sent to both (the same key) is recorded once, and the limit on new games
holds across both.

Two real gunicorn servers of two workers each (production settings: DEBUG off, one secret key)
run as separate processes on free ports of 127.0.0.1 against the test database,
migrated first as a deployment would: the SQLite file on SQLite (`make test`), the PostgreSQL
database on PostgreSQL (`make test-postgres`, as CI runs it). Their limits are counted in one
throwaway Redis (scripts/with-redis, RAMI_REDIS_URL). Every wait is bounded and the servers and
Redis are always stopped.
"""

from __future__ import annotations

import os
import secrets
import signal
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
from scripts.throwaway_site import free_port
from tests.conftest import Phone, round_post, totals

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

STARTUP = 30  # seconds for a server to answer /healthz
MIGRATE = 60  # seconds for `manage.py migrate`
NEW_GAMES_PER_MINUTE = 3


def database_url() -> str:
    """The test database, as DATABASE_URL says it to a server process."""
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"
    assert connection.vendor == "postgresql", connection.vendor
    credentials = f"{quote(database['USER'], safe='')}:{quote(database['PASSWORD'], safe='')}"
    return f"postgres://{credentials}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


def production_environment(**extra: str) -> dict[str, str]:
    """The environment of a server run as in production (DEBUG off, a secret key) on the test
    database, which is migrated first, and the `extra` variables."""
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "--verbosity=0"],
        cwd=settings.BASE_DIR,
        env=environment,
        check=True,
        timeout=MIGRATE,
    )
    return environment


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
            "--workers=2",
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
def redis_url(tmp_path) -> Iterator[str]:
    """A throwaway Redis (scripts/with-redis, which installs redis-server when it is missing and
    we are root), its address written to a file by the command it runs; stopped afterwards."""
    address = tmp_path / "redis-url"
    script = 'printf "%s" "$RAMI_REDIS_URL" > "$0.part" && mv "$0.part" "$0" && exec sleep 600'
    process = subprocess.Popen(  # noqa: S603 (our own script)
        [settings.BASE_DIR / "scripts" / "with-redis", "sh", "-c", script, address],
        cwd=settings.BASE_DIR,
        stderr=(tmp_path / "redis.log").open("wb"),
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + STARTUP
        while not address.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Redis did not start:\n{(tmp_path / 'redis.log').read_text()}")
            time.sleep(0.1)
        yield address.read_text()
    finally:
        # The whole group: the script's traps stop redis-server when `sleep` ends.
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


@pytest.fixture
def servers(tmp_path, redis_url) -> Iterator[tuple[Server, Server]]:
    if not (settings.STATIC_ROOT / "staticfiles.json").exists():
        pytest.fail("The servers run with DEBUG off and need the static files: run `make static`.")
    # The limits in Redis: 3 new games a minute.
    environment = production_environment(
        RAMI_REDIS_URL=redis_url, RAMI_NEW_GAMES_PER_MINUTE=str(NEW_GAMES_PER_MINUTE)
    )
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


def test_a_round_sent_to_both_servers_with_its_key_is_recorded_once(servers):
    """A save whose answer was lost is sent again with the same key (rami.js), and behind a
    proxy the second try may reach the other server: the key is the database's, not a process's."""
    a, b = servers
    phone_a = a.phone()
    phone_a.open("/")
    path = phone_a.post("/", {"player_0": "Ana", "player_1": "Boris"}).getheader("Location")
    phone_a.open(path)
    phone_b = b.phone()
    phone_b.open(path)
    data = round_post(0, {1: "KH QH"}, key="the-same-tap", for_round="1")

    assert phone_a.post(path, data).status == 303
    assert phone_b.post(path, data).status == 303

    game = Game.objects.get(edit_token=path.split("/")[2])
    assert game.rounds.count() == 1
    assert totals(b.phone().open(path)) == [0, 20]


def test_the_limit_on_new_games_holds_across_both_servers(servers):
    """Three new games a minute from one address: the fourth is refused whichever server it
    reaches, since both count in the same Redis. Each server alone has two workers, and before
    Redis each of the four processes counted its own three."""
    a, b = servers
    # The count is of the clock's minute: start early in one, so all four land in it.
    if time.time() % 60 > 40:
        time.sleep(61 - time.time() % 60)
    phones = [a.phone(), b.phone(), a.phone(), b.phone()]
    answers = []
    for phone in phones:
        phone.open("/")
        answers.append(phone.post("/", {"player_0": "Ana", "player_1": "Boris"}))

    assert [answer.status for answer in answers] == [303, 303, 303, 429]
    assert answers[3].getheader("Retry-After") == "60"
    assert "Too many new games" in answers[3].text
    assert Game.objects.count() == NEW_GAMES_PER_MINUTE
