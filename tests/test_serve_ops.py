"""What an operator meets of the production server (scripts/serve, granian, DEBUG off) on a
free port of 127.0.0.1, with the commands docs/deploy.md gives: `curl -fsS
http://127.0.0.1:PORT/healthz` answered while DJANGO_ALLOWED_HOSTS names only the site, and
/readyz and /metrics with it, while any other host is still refused; a stop that ends the open
streams at once instead of waiting to kill its workers; and a missing secret key said in one
line. Every wait is bounded; the server's process group is always stopped."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest
from django.conf import settings

from scoring.live import stream as streaming
from scoring.models import Game
from scripts.throwaway_site import free_port
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, SERVE, alive_in_group, start_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def curl(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 (curl, on 127.0.0.1)
        [shutil.which("curl") or "curl", "-sS", "--max-time", "10", *arguments],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )


def status_of(port: int, path: str, *headers: str) -> str:
    sent = [item for header in headers for item in ("-H", header)]
    return curl(
        "-o", "/dev/null", "-w", "%{http_code}", *sent, f"http://{HOST}:{port}{path}"
    ).stdout


@pytest.fixture
def server(tmp_path):
    if not (settings.STATIC_ROOT / "staticfiles.json").exists():
        pytest.fail("The server runs with DEBUG off and needs the static files: run `make static`.")
    port = free_port()
    log = tmp_path / "serve.log"
    environment = production_environment(
        DJANGO_SECRET_KEY=settings.SECRET_KEY,  # the streams' keys are signed here
        DJANGO_ALLOWED_HOSTS="rami.example.org",
        DJANGO_HTTPS="true",
    )
    serve = start_serve(port, environment, log)
    try:
        wait_until_healthy(serve, port, log)
        yield serve, port, log
    finally:
        if serve.poll() is None or alive_in_group(serve.pid):
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=10)


def test_the_local_checks_are_answered_whatever_allowed_hosts_says(server):
    _serve, port, _log = server
    base = f"http://{HOST}:{port}"
    # docs/deploy.md's commands, as written.
    healthz = curl("-f", f"{base}/healthz")
    assert (healthz.returncode, healthz.stdout) == (0, "ok"), healthz.stderr
    assert curl("-f", f"http://localhost:{port}/healthz").stdout == "ok"
    assert curl("-f", f"{base}/readyz").stdout == "ready"
    # HAProxy's plain `option httpchk GET /healthz`: HTTP/1.0, no Host.
    assert curl("-f", "-0", "-H", "Host:", f"{base}/healthz").stdout == "ok"
    metrics = curl("-f", f"{base}/metrics")
    assert metrics.returncode == 0
    assert 'rami_games{status="playing"}' in metrics.stdout
    # Anything else meets the host check as before: a page by this address, a check relayed
    # by a proxy (X-Forwarded-For), a check naming another host.
    assert status_of(port, "/") == "400"
    assert status_of(port, "/healthz", "X-Forwarded-For: 203.0.113.7") == "400"
    assert status_of(port, "/healthz", "Host: evil.example") == "400"
    assert status_of(port, "/metrics", "Host: rami.example.org") == "404"
    # The site's own name passes (HAProxy's check with its Host header), over plain HTTP.
    assert status_of(port, "/healthz", "Host: rami.example.org") == "200"


def open_streams(port: int, key: str, count: int = 4) -> list[socket.socket]:
    phones = []
    for _ in range(count):  # on both workers, most likely
        phone = socket.create_connection((HOST, port), timeout=10)
        phone.sendall(f"GET /live/{key} HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode())
        assert phone.recv(4096).startswith(b"HTTP/1.1 200")
        phones.append(phone)
    time.sleep(0.5)
    return phones


def ended(phones: list[socket.socket]) -> None:
    """Each stream ends with its last chunk, not cut. A restart reaches the second worker's
    streams after two workers' starts (7 s here, more on a machine busy with the suite's other
    half): they are given 30 s in all (a stream not ended goes on sending its keep-alives, so
    the bound is on the whole wait, not on each read)."""
    deadline = time.monotonic() + 30
    for phone in phones:
        received = b""
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"a stream still open after 30 s: {received[-200:]!r}"
            phone.settimeout(left)
            try:
                chunk = phone.recv(4096)
            except TimeoutError:
                chunk = None
            assert chunk is not None, f"a stream still open after 30 s: {received[-200:]!r}"
            if not chunk:
                break
            received += chunk
        assert received.endswith(b"0\r\n\r\n"), received
        phone.close()


def test_a_stop_ends_the_open_streams_at_once(server):
    serve, port, log = server
    game = Game.start(["Ana", "Boris"])
    key = streaming.key_for("g", game.view_token)

    # SIGHUP: granian restarts its workers one after another (a new one started, then the old
    # one asked to stop, granian's pace: about 3.5 s a worker); each old one ends its streams
    # and goes, not killed.
    phones = open_streams(port, key)
    serve.send_signal(signal.SIGHUP)
    ended(phones)
    wait_until_healthy(serve, port, log)
    assert "refused to gracefully stop" not in log.read_text()

    # SIGTERM: the server stops.
    phones = open_streams(port, key)
    began = time.monotonic()
    serve.send_signal(signal.SIGTERM)
    assert serve.wait(timeout=15) == 0
    took = time.monotonic() - began
    ended(phones)
    written = log.read_text()
    assert "refused to gracefully stop" not in written
    # granian's workers were given 5 s (--workers-kill-timeout): not waited for.
    assert took < 4, (took, written[-2000:])


def test_a_missing_secret_key_is_one_line_and_no_start(tmp_path):
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "RAMI_"))},
        "DJANGO_DEBUG": "false",
    }
    began = time.monotonic()
    done = subprocess.run(  # noqa: S603 (our own script)
        [str(SERVE), HOST, str(free_port())],
        env=environment,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 78
    assert time.monotonic() - began < 10
    lines = (done.stdout + done.stderr).splitlines()
    assert len(lines) == 1, lines
    line = json.loads(lines[0])
    assert line["level"] == "CRITICAL"
    assert "DJANGO_SECRET_KEY is not set" in line["message"]
