"""What a monitor asks of the site (docs/deploy.md, "Monitoring"): /healthz and /readyz asked on
this machine are answered whatever ALLOWED_HOSTS says, and nothing else is let past the host
check; /readyz says whether the whole site is ready; /metrics, in Prometheus's text format, only
to a local request or the token's holder; `manage.py stats` the same for a person."""

from __future__ import annotations

import math
import os
import re
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import OperationalError
from prometheus_client.parser import text_string_to_metric_families

from scoring.models import Game, Table
from scoring.views import health
from scoring.web import metrics
from scripts.throwaway_site import free_port
from tests.conftest import finished_game

pytestmark = pytest.mark.django_db

SITE = "rami.example.org"


@pytest.fixture(autouse=True)
def only_the_site(settings):
    settings.ALLOWED_HOSTS = [SITE]
    settings.RAMI_METRICS_TOKEN = ""
    settings.RAMI_BACKUP_FOLDER = ""


def ask(client, path: str, peer: str = "127.0.0.1", host: str | None = "127.0.0.1:8001", **more):
    headers = {"REMOTE_ADDR": peer, **more}
    if host is not None:
        headers["HTTP_HOST"] = host
    return client.get(path, **headers)


@pytest.mark.parametrize(
    ("peer", "host"),
    [
        ("127.0.0.1", "127.0.0.1:8001"),  # curl -fsS http://127.0.0.1:8001/healthz
        ("127.0.0.1", "localhost:8001"),
        ("127.0.0.1", "LOCALHOST"),
        ("::1", "[::1]:8001"),
        ("127.0.0.1", None),  # HTTP/1.0, no Host
    ],
)
@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_a_check_on_this_machine_is_answered_whatever_allowed_hosts_says(client, peer, host, path):
    response = ask(client, path, peer, host)
    assert response.status_code == 200
    assert response.content in {b"ok", b"ready"}


@pytest.mark.parametrize(
    ("path", "peer", "host", "more"),
    [
        # From elsewhere, naming this machine.
        ("/healthz", "203.0.113.7", "127.0.0.1:8001", {}),
        # Relayed by a proxy on this machine: a loopback peer, but X-Forwarded-For.
        ("/healthz", "127.0.0.1", "127.0.0.1:8001", {"HTTP_X_FORWARDED_FOR": "203.0.113.7"}),
        ("/readyz", "127.0.0.1", "localhost", {"HTTP_X_FORWARDED_FOR": "203.0.113.7"}),
        # Relayed with the Host the client wrote.
        ("/healthz", "127.0.0.1", "evil.example", {}),
        # Any other page from this machine.
        ("/", "127.0.0.1", "127.0.0.1:8001", {}),
        ("/rules/", "127.0.0.1", "localhost", {}),
    ],
)
def test_anything_else_meets_the_host_check(client, path, peer, host, more):
    assert ask(client, path, peer, host, **more).status_code == 400


def test_the_sites_own_name_passes_as_before(client):
    assert ask(client, "/healthz", "10.0.0.9", SITE).content == b"ok"
    assert ask(client, "/readyz", "10.0.0.9", SITE, HTTP_X_FORWARDED_FOR="1.2.3.4").content == (
        b"ready"
    )


def test_readyz_says_what_keeps_the_site_from_being_ready(client, settings, monkeypatch):
    monkeypatch.setattr(health, "migrations_missing", lambda: ["scoring.0016_next"])
    response = ask(client, "/readyz")
    assert (response.status_code, response.content) == (
        503,
        b"migrations missing: scoring.0016_next",
    )
    monkeypatch.undo()

    settings.RAMI_REDIS_URL = "redis://127.0.0.1:6379/0"
    settings.CACHES = {
        **settings.CACHES,
        "limits": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
    }
    response = ask(client, "/readyz")
    assert response.status_code == 503
    assert response.content == (
        b"redis: unavailable: new games and tables are let through uncounted"
    )
    # Each server's own check stays 200: its pages work.
    assert ask(client, "/healthz").status_code == 200


def test_readyz_is_503_while_the_database_is_away(client, monkeypatch):
    def away():
        raise OperationalError("connection refused")

    monkeypatch.setattr(health.connection, "cursor", away)
    response = ask(client, "/readyz")
    assert (response.status_code, response.content) == (503, b"database unavailable")


def scrape(client, **headers) -> dict[str, float]:
    response = client.get("/metrics", **headers)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name + str(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def test_metrics_are_read_from_the_database(client, thursday_table):
    finished_game()
    Game.start(["Ana", "Boris"])
    values = scrape(client, REMOTE_ADDR="127.0.0.1", HTTP_HOST="localhost:8001")
    games = Game.objects.count()
    assert sum(v for k, v in values.items() if k.startswith("rami_games[")) == games
    assert (
        values["rami_games[('status', 'finished')]"]
        == Game.objects.filter(status="finished").count()
    )
    assert values["rami_tables[]"] == Table.objects.count() == 1
    assert values["rami_rounds[]"] > 0
    assert values["rami_ready[]"] == 1
    assert values["rami_worker_open_streams[]"] == 0
    assert "rami_backup_age_seconds[]" not in values  # RAMI_BACKUP_FOLDER unset


def test_metrics_count_answers_by_status_and_refusals(client):
    before = scrape(client, REMOTE_ADDR="127.0.0.1")
    client.get("/rules/", HTTP_HOST=SITE)
    client.get("/no-such-page/", HTTP_HOST=SITE)
    after = scrape(client, REMOTE_ADDR="127.0.0.1")

    def grew(status: str) -> float:
        key = f"rami_worker_answers_total[('status', '{status}')]"
        return after.get(key, 0) - before.get(key, 0)

    assert grew("200") >= 2  # the page and the first scrape
    assert grew("404") == 1
    assert "rami_worker_refusals_total[('limit', 'too_many_games')]" in after


@pytest.mark.parametrize(
    ("token", "sent", "status"),
    [
        ("", "", 404),
        ("", "Bearer ", 404),
        ("s3cret-token", "", 404),
        ("s3cret-token", "Bearer wrong", 404),
        ("s3cret-token", "Basic s3cret-token", 404),
        ("s3cret-token", "Bearer s3cret-token", 200),
    ],
)
def test_metrics_elsewhere_need_the_token(client, settings, token, sent, status):
    settings.RAMI_METRICS_TOKEN = token
    headers = {"REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": SITE, "HTTP_X_FORWARDED_FOR": "1.2.3.4"}
    if sent:
        headers["HTTP_AUTHORIZATION"] = sent
    assert client.get("/metrics", **headers).status_code == status


def backup(folder, name: str, hours_ago: float, whole: bool = True) -> None:
    made = folder / name
    (made / "games").mkdir(parents=True)
    if whole:
        last = made / "database.sqlite3"
        last.write_bytes(b"")
        at = time.time() - hours_ago * 3600
        os.utime(last, (at, at))


def test_the_newest_whole_backups_age(client, settings, tmp_path):
    settings.RAMI_BACKUP_FOLDER = str(tmp_path)
    values = scrape(client, REMOTE_ADDR="127.0.0.1")
    assert math.isinf(values["rami_backup_age_seconds[]"])  # none yet

    backup(tmp_path, "2026-01-30T040000Z", hours_ago=51)
    backup(tmp_path, "2026-01-31T040000Z", hours_ago=27)
    backup(tmp_path, "2026-02-01T040000Z", hours_ago=3, whole=False)  # failed half-way
    (tmp_path / "by-hand").mkdir()
    values = scrape(client, REMOTE_ADDR="127.0.0.1")
    assert values["rami_backup_age_seconds[]"] == pytest.approx(27 * 3600, abs=60)

    out = StringIO()
    call_command("stats", stdout=out)
    said = out.getvalue()
    assert f"newest backup: {tmp_path / '2026-01-31T040000Z'} (27.0 h old)" in said


def test_stats_says_the_same_for_a_person(thursday_table):
    finished_game()
    out = StringIO()
    call_command("stats", stdout=out)
    lines = out.getvalue().splitlines()
    games = Game.objects.count()
    finished = Game.objects.filter(status="finished").count()
    assert lines[0].startswith(f"games: {games} (")
    assert f"{finished} finished)" in lines[0]
    assert lines[1] == f"tables: {Table.objects.count()}"
    assert lines[2] == f"rounds saved: {metrics.read_stats().rounds}"
    assert lines[3] == "backups: RAMI_BACKUP_FOLDER is not set"


def test_the_metrics_and_alerts_docs_deploy_names_are_scraped(client, settings, tmp_path):
    """Every metric docs/deploy.md's "Monitoring" names, in its table and its alert rules, is
    one /metrics writes."""
    from django.conf import settings as django_settings

    text = (django_settings.BASE_DIR / "docs" / "deploy.md").read_text()
    section = text.split("## Monitoring", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"\b(rami_[a-z_]+)", section))
    alerts = section.split("**Alerts**", 1)[1]
    in_rules = set(re.findall(r"expr: .*?\b(rami_[a-z_]+)", alerts))
    assert in_rules == {"rami_ready", "rami_backup_age_seconds"}
    settings.RAMI_BACKUP_FOLDER = str(tmp_path)
    body = client.get("/metrics", REMOTE_ADDR="127.0.0.1").content.decode()
    written = {
        sample.name for family in text_string_to_metric_families(body) for sample in family.samples
    }
    assert named <= written | {"rami_worker_"}, named - written
