"""Logs are JSON lines; an unhandled error in a request is logged with its traceback, and a
game's token never appears in a log line."""

import io
import json
import logging

import pytest
from django.test import Client
from django.urls import path

from rami_site.logs import JsonLinesFormatter

TOKEN = "Zm9yIHRlc3RzIG9ubHksIG5vdCBhIHJlYWwgdG9rZW4"


def broken_page(request, token):
    raise RuntimeError(f"the scoreboard of /g/{token}/ broke")


urlpatterns = [path("g/<str:token>/", broken_page)]


@pytest.fixture
def console():
    """What the console handler writes, one line per record."""
    handler = next(
        h for h in logging.getLogger().handlers if isinstance(h.formatter, JsonLinesFormatter)
    )
    written = io.StringIO()
    previous = handler.setStream(written)
    yield written
    handler.setStream(previous)


@pytest.mark.urls(__name__)
def test_an_unhandled_error_in_a_request_is_one_json_line_with_its_traceback(console):
    response = Client(raise_request_exception=False).get(f"/g/{TOKEN}/")
    assert response.status_code == 500
    lines = console.getvalue().splitlines()
    assert len(lines) == 1
    line = json.loads(lines[0])
    assert line["level"] == "ERROR"
    assert line["logger"] == "django.request"
    assert line["message"] == "Internal Server Error: /g/<token>/"
    assert (line["method"], line["path"], line["status"]) == ("GET", "/g/<token>/", 500)
    assert "RuntimeError: the scoreboard of /g/<token>/ broke" in line["exception"]
    assert TOKEN not in console.getvalue()


@pytest.mark.django_db
def test_an_unknown_page_is_a_warning_without_the_token(client, console):
    client.get(f"/v/{TOKEN}/export.json")
    line = json.loads(console.getvalue())
    assert (line["level"], line["status"]) == ("WARNING", 404)
    assert line["path"] == "/v/<token>/export.json"


def test_a_plain_record_has_time_level_logger_and_message():
    record = logging.LogRecord("scoring", logging.WARNING, __file__, 1, "%s games", (3,), None)
    line = json.loads(JsonLinesFormatter().format(record))
    assert set(line) == {"time", "level", "logger", "message"}
    assert (line["level"], line["logger"], line["message"]) == ("WARNING", "scoring", "3 games")
    assert line["time"].endswith("+00:00")
