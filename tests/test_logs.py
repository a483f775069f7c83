"""Logs are JSON lines; an unhandled error in a request is logged with its traceback, and a
game's token never appears in a log line."""

import io
import json
import logging
import sys

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
@pytest.mark.parametrize("what", ["export.json", "qr.svg"])
@pytest.mark.django_db
def test_no_token_of_a_game_or_a_table_is_logged(client, console, prefix, what):
    client.get(f"/{prefix}/{TOKEN}/{what}")
    line = json.loads(console.getvalue())
    assert line["path"] == f"/{prefix}/<token>/{what}"
    assert line["message"] == f"Not Found: /{prefix}/<token>/{what}"
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


def failure(message: str) -> logging.LogRecord:
    """A record of a request that failed at one place in the code, with its traceback."""
    try:
        raise ConnectionError(message)
    except ConnectionError:
        exc_info = sys.exc_info()
    return logging.LogRecord("django.request", logging.ERROR, __file__, 1, "failed", (), exc_info)


def test_the_same_failure_writes_its_traceback_once_a_minute(monkeypatch):
    """A database down: every request fails the same way. Each has its line, the traceback
    comes once a minute."""
    now = [1000.0]
    monkeypatch.setattr("rami_site.logs.time.monotonic", lambda: now[0])
    formatter = JsonLinesFormatter()
    first = json.loads(formatter.format(failure("the database is away")))
    assert "Traceback (most recent call last)" in first["exception"]
    now[0] += 30
    second = json.loads(formatter.format(failure("the database is still away")))
    assert "Traceback" not in second["exception"]
    assert second["exception"].startswith("ConnectionError: the database is still away")
    assert "less than 60 s ago" in second["exception"]
    now[0] += 31
    third = json.loads(formatter.format(failure("the database is away again")))
    assert "Traceback (most recent call last)" in third["exception"]


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_a_failed_request_names_its_client_behind_a_trusted_proxy(console, settings):
    settings.RAMI_TRUST_X_FORWARDED_FOR = True
    Client(raise_request_exception=False).get(
        f"/g/{TOKEN}/", headers={"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}
    )
    line = json.loads(console.getvalue())
    assert line["client"] == "203.0.113.7"
    settings.RAMI_TRUST_X_FORWARDED_FOR = False
    console.truncate(0)
    console.seek(0)
    Client(raise_request_exception=False).get(
        f"/g/{TOKEN}/", headers={"X-Forwarded-For": "203.0.113.7"}
    )
    assert json.loads(console.getvalue().splitlines()[-1])["client"] == "127.0.0.1"


@pytest.mark.parametrize(("trusted", "client"), [("true", "203.0.113.7"), ("", "10.0.0.2")])
def test_an_access_line_names_the_client(monkeypatch, trusted, client):
    monkeypatch.setenv("RAMI_TRUST_X_FORWARDED_FOR", trusted)
    record = logging.LogRecord(
        "granian.access", logging.INFO, __file__, 1, "%(_h0)s %(method)s %(path)s", None, None
    )
    record.args = {
        "addr": "10.0.0.2",
        "_h0": "203.0.113.7",
        "method": "GET",
        "path": f"/live/g{TOKEN}:signature",
        "protocol": "HTTP/1.1",
        "status": 200,
        "dt_ms": 1.234,
    }
    line = json.loads(JsonLinesFormatter().format(record))
    assert (line["client"], line["path"], line["status"], line["ms"]) == (
        client,
        "/live/<key>",
        200,
        1.2,
    )
    assert line["message"] == f'{client} "GET /live/<key> HTTP/1.1" 200'
    assert TOKEN not in json.dumps(line)


def test_granians_transport_errors_come_once_a_minute(monkeypatch):
    from rami_site.logs import Seldom

    now = [50.0]
    monkeypatch.setattr("rami_site.logs.time.monotonic", lambda: now[0])
    seldom = Seldom()

    def passes(message: str) -> bool:
        record = logging.LogRecord("_granian", logging.WARNING, __file__, 1, message, None, None)
        return seldom.filter(record) and record.getMessage()

    assert passes('ASGI transport error: "Closed(..)"') == 'ASGI transport error: "Closed(..)"'
    assert not any(passes('ASGI transport error: "Closed(..)"') for _ in range(300))
    assert passes("Spawning worker-1") == "Spawning worker-1"
    now[0] += 60
    told = passes('ASGI transport error: "Closed(..)"')
    assert told.endswith("(300 more like it in the last minute)")


@pytest.mark.parametrize(
    ("written", "masked"),
    [
        (f"/G/{TOKEN}/", "/G/<token>/"),  # a phone's capital letter
        (f"/V/{TOKEN}/export.json", "/V/<token>/export.json"),
        (f"/g/{TOKEN}).", "/g/<token>"),  # pasted from a sentence
        (f"/g/'{TOKEN}'/", "/g/<token>/"),
        (f"/w/{TOKEN}!/", "/w/<token>/"),
        (f"/t/{TOKEN}%E2%80%8B/", "/t/<token>/"),
        (f"/g//{TOKEN}/", "/g/<token>/"),
        (f"/g/ {TOKEN}/", "/g/<token>/"),  # %20 decoded
        (f"/LIVE/g{TOKEN}:signature", "/live/<key>"),
    ],
)
def test_a_near_miss_of_a_link_is_masked_too(written, masked):
    assert path_without_token(f"Not Found: {written}") == f"Not Found: {masked}"


@pytest.mark.django_db
def test_a_near_miss_of_a_link_is_masked_in_the_request_log(client, console):
    client.get(f"/G/{TOKEN}/")
    client.get(f"/g/{TOKEN}./")
    lines = [json.loads(line) for line in console.getvalue().splitlines()]
    assert [line["path"] for line in lines] == ["/G/<token>/", "/g/<token>/"]
    assert TOKEN not in console.getvalue()
