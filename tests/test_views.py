"""The start page, /healthz and the JSON export over HTTP."""

import json

import pytest
from django.db import OperationalError, connection

from scoring.files.exchange import export_game
from tests.links import url

pytestmark = pytest.mark.django_db


def test_start_page_says_what_the_app_is(client):
    response = client.get("/")
    assert response.status_code == 200
    assert "Rami score keeper" in response.content.decode()


def test_healthz_answers_ok_after_checking_the_database(client, django_assert_num_queries):
    client.get("/healthz")  # once it has found every migration applied, it no longer looks
    with django_assert_num_queries(1):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"


def test_export_json_serves_the_exchange_document(client, every_kind_game):
    response = client.get(url("export_json", every_kind_game.edit_token))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "attachment" in response["Content-Disposition"]
    assert json.loads(response.content) == export_game(every_kind_game)


def test_export_json_of_an_unknown_token_is_404(client, every_kind_game):
    response = client.get(url("export_json", every_kind_game.view_token))
    assert response.status_code == 404


def test_healthz_answers_503_in_plain_words_when_the_database_fails(client, monkeypatch, caplog):
    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response["Content-Type"] == "text/plain"
    assert response.content == b"database unavailable"
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"
    assert "healthz: the database does not answer" in caplog.text
