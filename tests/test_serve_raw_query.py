"""Raw bytes past ASCII in a query (`/healthz?v=²` sent unescaped, as scripts, bots and some
proxies send it) are answered as the same query percent-encoded would be, on every kind of URL
of the production server (scripts/serve), and log no traceback; a byte that is no UTF-8 is
refused by granian itself (400). a2wsgi decoded the query as ASCII: every such request was a
500. Sent over a raw socket, since an HTTP client escapes them."""

from __future__ import annotations

import socket

import pytest
from django.conf import settings

from scoring.live.stream import key_for
from scoring.models import Game, Table
from scripts.throwaway_site import free_port
from tests.links import url
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, start_serve, stop_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def status(port: int, target: bytes) -> int:
    """The status of a GET of `target`, bytes as they are on the wire."""
    with socket.create_connection((HOST, port), timeout=20) as connection:
        connection.sendall(
            b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        line = connection.makefile("rb").readline()
    return int(line.split()[1])


def test_raw_bytes_in_a_query_are_answered_as_their_escaped_form_on_every_url(tmp_path):
    game = Game.start(["Ana", "Boris", "Cyril"])
    table = Table.start("Friday", ["Ana", "Boris"])
    paths = [
        "/",
        "/healthz",
        "/rules/",
        url("game", game.edit_token),
        url("view", game.view_token),
        url("history", game.edit_token),
        url("export_csv", game.edit_token),
        url("table", table.edit_token),
        f"/live/{key_for('g', game.view_token)}/version",
    ]
    port = free_port()
    log = tmp_path / "serve.log"
    environment = production_environment(DJANGO_SECRET_KEY=settings.SECRET_KEY)
    serve = start_serve(port, environment, log)
    try:
        wait_until_healthy(serve, port, log)
        for path in paths:
            escaped = status(port, path.encode() + b"?v=%C2%B2&a=%C3%A9")
            raw = status(port, path.encode() + b"?v=\xc2\xb2&a=\xc3\xa9")
            assert (path, raw) == (path, escaped)
            assert raw < 500
            # A byte that is no UTF-8 at all (Latin-1's "é") is refused by granian itself.
            assert status(port, path.encode() + b"?a=\xe9") == 400
    finally:
        stop_serve(serve)
    assert "Traceback" not in log.read_text()
