"""scripts/serve keeps each connection's HTTP/1 buffer at 8 KB, so that an open stream holds
less of the server's memory: a request whose headers fit is served, one past it is refused
431, and a body larger than the buffer is read whole. The server runs as in
tests/test_access_log.py; bounded in time, its process group always stopped."""

from __future__ import annotations

import http.client

import pytest

from scripts.throwaway_site import free_port
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, start_serve, stop_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def status(port: int, method: str, path: str, body: bytes | None = None, **headers) -> int:
    connection = http.client.HTTPConnection(HOST, port, timeout=20)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_headers_up_to_8_kb_are_served_and_a_body_is_read_whole(tmp_path):
    port = free_port()
    log = tmp_path / "serve.log"
    serve = start_serve(port, production_environment(), log)
    try:
        wait_until_healthy(serve, port, log)
        assert status(port, "GET", "/rules/", Cookie="x=" + "a" * 7000) == 200
        assert status(port, "GET", "/rules/", Cookie="x=" + "a" * 9000) == 431
        # A form of 1 MB reaches Django, which reads it and refuses it for its CSRF token
        # (a body the server could not read would be a 400 or no answer).
        form = b"name=" + b"a" * 1_000_000
        kind = "application/x-www-form-urlencoded"
        assert status(port, "POST", "/", form, **{"Content-Type": kind}) == 403
    finally:
        stop_serve(serve)
