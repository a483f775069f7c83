"""`make run`'s server keeps every phone of an evening connected: each phone at a table holds a
connection open for its polls, and a phone that comes later must still be answered. granian's
--backpressure counts open connections, and its default let 1,024 in, after which a new phone
waited until its page timed out (bench/evening.py found it at about 250 tables of four)."""

from __future__ import annotations

import http.client
import os
import resource
import signal
import socket
import time

import pytest
from django.conf import settings

from scripts.throwaway_site import free_port
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, start_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

KEPT_OPEN = 1200  # phones already connected, more than granian's default let in


def test_a_new_phone_is_answered_while_1200_others_keep_their_connections_open(tmp_path):
    if not (settings.STATIC_ROOT / "staticfiles.json").exists():
        pytest.fail("The server runs with DEBUG off and needs the static files: run `make static`.")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < KEPT_OPEN + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, KEPT_OPEN + 1000), hard))
    port = free_port()
    log = tmp_path / "serve.log"
    serve = start_serve(port, production_environment(), log)
    phones: list[socket.socket] = []
    try:
        wait_until_healthy(serve, port, log)
        request = f"GET /healthz HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode()
        for _ in range(KEPT_OPEN):
            phone = socket.create_connection((HOST, port), timeout=10)
            phone.sendall(request)
            phones.append(phone)
        # Every one answered, and each connection stays open (kept alive) afterwards.
        for phone in phones:
            assert phone.recv(4096).startswith(b"HTTP/1.1 200")

        began = time.monotonic()
        late = http.client.HTTPConnection(HOST, port, timeout=10)
        late.request("GET", "/healthz")
        assert late.getresponse().status == 200
        late.close()
        assert time.monotonic() - began < 5
    finally:
        for phone in phones:
            phone.close()
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=30)
