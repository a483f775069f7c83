"""/healthz tells a proxy whether this server can answer pages: 503 while the database lacks a
migration the code needs (naming which), and how the Redis of the limits is."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from scoring.views import pages
from scripts.throwaway_site import free_port

PREVIOUS_RELEASE = "0012_table_event_fields"


def migrate(to: str | None) -> None:
    executor = MigrationExecutor(connection)
    target = [("scoring", to)] if to else executor.loader.graph.leaf_nodes("scoring")
    executor.migrate(target)


@pytest.mark.django_db(transaction=True)
def test_healthz_is_503_while_migrations_are_missing_and_says_which(client, monkeypatch):
    monkeypatch.setattr(pages, "_migrated", False)
    migrate(PREVIOUS_RELEASE)
    try:
        response = client.get("/healthz")
        assert response.status_code == 503
        assert response["Content-Type"] == "text/plain"
        said = response.content.decode()
        assert said.startswith("migrations missing: scoring.0013_players_come_and_go")
    finally:
        migrate(None)
    response = client.get("/healthz")
    assert (response.status_code, response.content) == (200, b"ok")


@pytest.mark.django_db
def test_healthz_says_how_redis_is(client, settings):
    settings.RAMI_REDIS_URL = "redis://127.0.0.1:6379/0"
    response = client.get("/healthz")  # the test's limits cache answers
    assert (response.status_code, response.content) == (200, b"ok\nredis: ok")

    away = f"redis://127.0.0.1:{free_port()}/0"
    settings.CACHES = {
        **settings.CACHES,
        "limits": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": away,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
    }
    response = client.get("/healthz")
    # The pages work without it: no 503, but the proxy's operator is told.
    assert response.status_code == 200
    assert response.content == (
        b"ok\nredis: unavailable: new games and tables are let through uncounted"
    )
