"""Logs are JSON lines; an unhandled error in a request is logged with its traceback, and a
game's token never appears in a log line."""

import io
import json
import logging

import pytest
from django.test import Client
from django.urls import path

from rami_site.logs import JsonLinesFormatter, path_without_token

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


@pytest.mark.parametrize("prefix", ["g", "v", "t", "w"])
@pytest.mark.django_db
def test_no_token_of_a_game_or_a_table_is_logged(client, console, prefix):
    client.get(f"/{prefix}/{TOKEN}/export.json")
    line = json.loads(console.getvalue())
    assert line["path"] == f"/{prefix}/<token>/export.json"
    assert line["message"] == f"Not Found: /{prefix}/<token>/export.json"
    assert TOKEN not in console.getvalue()


def test_the_start_of_a_table_is_no_token():
    assert path_without_token("POST /t/new/ 302") == "POST /t/new/ 302"
    assert path_without_token("GET /t/newcomer-token-0123456789/") == "GET /t/<token>/"


def test_an_access_log_record_of_granian_is_a_json_line_without_the_token():
    """What granian's access logger hands the formatter (rami_site/granian_logging.json)."""
    record = logging.LogRecord(
        "granian.access",
        logging.INFO,
        __file__,
        1,
        '[%(time)s] %(addr)s - "%(method)s %(path)s %(protocol)s" %(status)d',
        None,
        None,
    )
    record.args = {
        "time": "2026-01-31 20:15:00 +0000",
        "addr": "127.0.0.1",
        "method": "POST",
        "path": f"/t/{TOKEN}/",
        "protocol": "HTTP/1.1",
        "status": 303,
    }
    line = json.loads(JsonLinesFormatter().format(record))
    assert line["logger"] == "granian.access"
    assert line["message"].endswith('"POST /t/<token>/ HTTP/1.1" 303')
