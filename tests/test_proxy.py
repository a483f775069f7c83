"""The nginx configuration in the repository (deploy/nginx/rami.conf), run by Debian's nginx
with a throwaway certificate in front of two scripts/serve on one database, on free ports of
127.0.0.1 (the TLS port is not 443): a round saved through it; a stream heard through it; a
form posted with the proxy's usual headers (`Host $host` drops the port; RAMI_PUBLIC_URL makes
the origin trusted); a server restarted behind it while phones keep asking, without a 502;
and no token in its access log.

nginx is installed the way `make test` installs Chromium (scripts/debian-tool), and the
certificate is made by openssl. Every wait is bounded; nginx and the servers are always
stopped."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import ssl
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.conf import settings

from scoring.live import stream as streaming
from scoring.models import Game
from scripts.throwaway_site import free_port
from tests.conftest import round_post
from tests.links import url
from tests.test_two_servers import production_environment
from tests.test_worker_kill import HOST, start_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ROOT = Path(settings.BASE_DIR)
CONFIG = ROOT / "deploy" / "nginx" / "rami.conf"
HEARD_WITHIN = 3.0  # seconds for a save to reach a stream through the proxy
METRICS_TOKEN = "a-token-for-the-proxy-test-only"


def debian_tool(command: str, package: str) -> None:
    subprocess.run(  # noqa: S603 (our own script)
        [str(ROOT / "scripts" / "debian-tool"), command, package, "the proxy tests"],
        check=True,
        timeout=600,
    )


def site_config(folder: Path, tls_port: int, plain_port: int, servers: tuple[int, int]) -> str:
    """deploy/nginx/rami.conf with this test's ports, certificate and logs."""
    text = CONFIG.read_text()
    replacements = {
        "server 127.0.0.1:8001 ": f"server {HOST}:{servers[0]} ",
        "server 127.0.0.1:8002 ": f"server {HOST}:{servers[1]} ",
        "listen 443 ssl http2;": f"listen {HOST}:{tls_port} ssl http2;",
        "listen 80;": f"listen {HOST}:{plain_port};",
        "/etc/letsencrypt/live/rami.example.org/fullchain.pem": str(folder / "cert.pem"),
        "/etc/letsencrypt/live/rami.example.org/privkey.pem": str(folder / "key.pem"),
        "/var/log/nginx/": f"{folder}/",
    }
    for old, new in replacements.items():
        assert old in text, old
        text = text.replace(old, new)
    # No IPv6 listeners here: the test's machine may have none.
    return "\n".join(line for line in text.splitlines() if "listen [::]" not in line)


def nginx_config(folder: Path, site: str) -> str:
    temp = folder / "temp"
    temp.mkdir()
    paths = " ".join(
        f"{kind}_temp_path {temp / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        # As root, nginx's workers would be `nobody`, who cannot enter pytest's folders.
        ("user root;\n" if os.geteuid() == 0 else "")
        + f"daemon off;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'main-error.log'};\n"
        "worker_processes 1;\nevents { worker_connections 1024; }\n"
        f"http {{\n{paths}\n{site}\n}}\n"
    )


class Proxy:
    """nginx over TLS on 127.0.0.1:port, the throwaway certificate trusted by its clients."""

    def __init__(self, port: int, certificate: Path):
        self.port = port
        self.context = ssl.create_default_context(cafile=str(certificate))
        self.origin = f"https://localhost:{port}"
        self.cookie = ""

    def connection(self, timeout: float = 30) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(
            HOST, self.port, timeout=timeout, context=self._context()
        )

    def _context(self) -> ssl.SSLContext:
        # The certificate names localhost; the connection goes to 127.0.0.1.
        self.context.check_hostname = False
        return self.context

    def request(self, method: str, path: str, body: str = "", **headers: str):
        connection = self.connection()
        sent = {"Host": f"localhost:{self.port}", **headers}
        if self.cookie:
            sent["Cookie"] = f"csrftoken={self.cookie}"
        if method == "POST":
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            # What a browser sends with a form of the page it shows.
            sent.setdefault("Origin", self.origin)
            sent.setdefault("Referer", self.origin + path)
        connection.request(method, path, body=body.encode(), headers=sent)
        response = connection.getresponse()
        response.text = response.read().decode(errors="replace")
        connection.close()
        cookie = re.search(r"csrftoken=([^;]+)", response.getheader("Set-Cookie") or "")
        if cookie:
            self.cookie = cookie.group(1)
        return response

    def form_token(self, path: str) -> str:
        page = self.request("GET", path)
        assert page.status == 200, (page.status, page.text[:500])
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)


@pytest.fixture
def behind_nginx(tmp_path) -> Iterator[tuple[Proxy, list, Path, dict]]:
    debian_tool("nginx", "nginx")
    debian_tool("openssl", "openssl")
    subprocess.run(  # noqa: S603
        [
            shutil.which("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    tls_port = free_port()
    plain_port = free_port({tls_port})
    environment = production_environment(
        DJANGO_SECRET_KEY=settings.SECRET_KEY,  # the streams' keys are signed here
        DJANGO_ALLOWED_HOSTS="localhost,127.0.0.1",
        DJANGO_HTTPS="true",
        RAMI_TRUST_X_FORWARDED_FOR="true",
        RAMI_PUBLIC_URL=f"https://localhost:{tls_port}",
        RAMI_NEW_GAMES_PER_MINUTE="1000",
        RAMI_METRICS_TOKEN=METRICS_TOKEN,
    )
    servers: list = []
    nginx = None
    try:
        for name in ("a", "b"):
            port = free_port({tls_port, plain_port, *(s[0] for s in servers)})
            log = tmp_path / f"serve-{name}.log"
            process = start_serve(port, environment, log)
            servers.append([port, process, log])
            wait_until_healthy(process, port, log)
        config = tmp_path / "nginx.conf"
        site = site_config(tmp_path, tls_port, plain_port, (servers[0][0], servers[1][0]))
        config.write_text(nginx_config(tmp_path, site))
        nginx = subprocess.Popen(  # noqa: S603
            [shutil.which("nginx"), "-c", str(config), "-p", str(tmp_path)],
            stdout=subprocess.DEVNULL,
            stderr=open(tmp_path / "nginx.out", "wb"),  # noqa: SIM115
            start_new_session=True,
        )
        proxy = Proxy(tls_port, tmp_path / "cert.pem")
        deadline = time.monotonic() + 15
        while True:
            try:
                if proxy.request("GET", "/healthz").status == 200:
                    break
            except OSError:
                pass
            assert nginx.poll() is None, (tmp_path / "nginx.out").read_text()
            assert time.monotonic() < deadline, "nginx did not answer"
            time.sleep(0.1)
        yield proxy, servers, tmp_path, environment
    finally:
        if nginx is not None and nginx.poll() is None:
            nginx.send_signal(signal.SIGQUIT)
            try:
                nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(nginx.pid, signal.SIGKILL)
        for _port, process, _log in servers:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=20)


class Stream:
    """A live stream read through the proxy in a thread of its own."""

    def __init__(self, proxy: Proxy, key: str, version: int):
        self.connection = proxy.connection()
        self.connection.request(
            "GET", f"/live/{key}?v={version}", headers={"Host": f"localhost:{proxy.port}"}
        )
        self.response = self.connection.getresponse()
        self.versions: list[int] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while line := self.response.readline():
                if line.startswith(b"data: "):
                    self.versions.append(int(line[6:]))
        except (OSError, ValueError, AttributeError):
            pass

    def heard(self, version: int) -> float:
        start = time.monotonic()
        while version not in self.versions:
            assert time.monotonic() - start < HEARD_WITHIN, (version, self.versions)
            time.sleep(0.02)
        return time.monotonic() - start


def test_nginx_in_front_of_two_servers(behind_nginx):
    proxy, servers, folder, environment = behind_nginx
    game = Game.start(["Ana", "Boris", "Cyril"])
    page = url("game", game.edit_token)

    # A stream heard through the proxy, and a round saved through it: a form posted from
    # https://localhost:<port> while nginx passes Host without the port.
    stream = Stream(proxy, streaming.key_for("g", game.view_token), game.version)
    assert stream.response.status == 200
    stream.heard(game.version)
    token = proxy.form_token(page)
    saved = proxy.request(
        "POST", url("save", game.edit_token),
        urlencode({**round_post(0, {1: 5, 2: 7}), "csrfmiddlewaretoken": token}),
    )  # fmt: skip
    assert saved.status == 303, saved.text[:2000]
    game.refresh_from_db()
    assert game.rounds.count() == 1
    took = stream.heard(game.version)
    print(f"\nthe save was heard through nginx {took * 1000:.0f} ms after its answer")

    # A server restarted behind the proxy while phones keep loading, polling and saving.
    statuses: Counter = Counter()
    failures: list = []
    stop = threading.Event()

    def phone() -> None:
        key = 0
        while not stop.is_set():
            for path in (page, url("poll", game.edit_token) + f"?v={game.version}", "/"):
                try:
                    status = proxy.request("GET", path).status
                    statuses[status] += 1
                    if status >= 500:
                        failures.append(("GET", path, status))
                except OSError as error:
                    statuses[type(error).__name__] += 1
            key += 1
            body = urlencode(
                {**round_post("blocked", dict.fromkeys(range(3), 2)), "csrfmiddlewaretoken": token}
            )
            try:
                status = proxy.request("POST", url("save", game.edit_token), body).status
                statuses[status] += 1
                if status >= 500:
                    failures.append(("POST", "save", status))
            except OSError as error:
                statuses[type(error).__name__] += 1

    phones = [threading.Thread(target=phone, daemon=True) for _ in range(4)]
    for thread in phones:
        thread.start()
    time.sleep(1)
    for server in servers:
        port, process, log = server
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        server[1] = start_serve(port, environment, log)
        wait_until_healthy(server[1], port, log)
        time.sleep(1)
    stop.set()
    for thread in phones:
        thread.join(timeout=60)
    print(f"while each server restarted in turn: {dict(statuses)}")
    assert set(statuses) <= {200, 204, 303}, (statuses, failures)
    assert sum(statuses.values()) > 50

    # Through the proxy: the site's readiness; /metrics only with the token, for a request
    # nginx relays comes from 127.0.0.1 but is no local check (X-Forwarded-For, the Host).
    ready = proxy.request("GET", "/readyz")
    assert (ready.status, ready.text) == (200, "ready")
    assert proxy.request("GET", "/metrics").status == 404
    assert proxy.request("GET", "/metrics", Host="localhost").status == 404
    scraped = proxy.request("GET", "/metrics", Authorization=f"Bearer {METRICS_TOKEN}")
    assert scraped.status == 200
    assert "rami_rounds " in scraped.text

    # Near misses of a link (a phone's capital letter, punctuation glued on) hold the token
    # all the same: masked too.
    for near_miss in (f"/G/{game.edit_token}/", f"/g/{game.edit_token}%29./"):
        assert proxy.request("GET", near_miss).status == 404

    # No token in the proxy's access log, but the masked paths. nginx writes a request's line
    # once its answer is sent: the last one may come a moment after the client has read it.
    log = folder / "rami.access.log"
    deadline = time.monotonic() + 5
    while '"GET /g/<token>/ HTTP/1.1" 404' not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    access = log.read_text()
    for secret in (game.edit_token, game.view_token):
        assert secret not in access
    assert '"POST /g/<token>/save/ HTTP/1.1" 303' in access
    assert '"GET /live/<key> HTTP/1.1" 200' in access
    assert '"GET /G/<token>/ HTTP/1.1" 404' in access
    assert '"GET /g/<token>/ HTTP/1.1" 404' in access
    # nginx's error lines quote requests whole: the configuration keeps only critical ones.
    errors = folder / "rami.error.log"
    assert not errors.exists() or game.edit_token not in errors.read_text()
