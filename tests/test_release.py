"""Upgrading and going back as docs/deploy.md "Upgrading" tells it, with scripts/release: each
release a folder of its own (its .venv, its collected static files), a link `current` to the
running one, the servers restarted one at a time, and never a file changed under a server.

Two releases are prepared in a temporary folder standing for /srv/rami: the previous release
(the last commit with the version before this one, as tests/test_upgrade.py finds it) and this
checkout's working tree (made a commit of its own, referenced by no branch, so that what is
tested is what is here). The previous release serves behind deploy/nginx/rami.conf (its ports
and paths replaced) while phones load pages and every static file each page names, save rounds
and start games through the proxy; then `scripts/release` upgrades to this release (prepared
while the previous one serves, migrated, switched, each server restarted and checked in turn)
and goes back to the previous release again. No answer may be a 5xx or a 404, static or not.
A pause before each second restart lets the two releases serve side by side, so that nginx
must ask the other server for a static file one lacks (at least once, or the test proved
nothing); the static files of a page drawn before each switch must still be served after it.

What systemd does is done here by a small restart command (RAMI_RESTART): stop the server on the
port, start `current/scripts/serve` on it, as `systemctl restart rami@PORT` does with the units
of deploy/systemd/. Every wait is bounded; nginx and the servers are always stopped."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.conf import settings

from scoring.models import Game, Table
from scripts.throwaway_site import free_port
from tests.conftest import round_post
from tests.links import url
from tests.test_proxy import Proxy, debian_tool, nginx_config, site_config
from tests.test_two_servers import production_environment
from tests.test_upgrade import git, migrate_scoring, previous_release
from tests.test_worker_kill import alive_in_group

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ROOT = Path(settings.BASE_DIR)
RELEASE = ROOT / "scripts" / "release"
PREPARE = 300  # seconds for scripts/release: a release's .venv (pip), its static files, restarts
SIDE_BY_SIDE = 3  # seconds the two servers run two releases during each switch

# `systemctl restart rami@PORT`, for this test: the server started on the port (its process
# group's leader's id in serve-PORT.pid) is stopped, then current/scripts/serve started.
RESTART = """
import os, signal, subprocess, sys, time
from pathlib import Path

port, folder, root = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
pid_file = folder / f"serve-{port}.pid"

def alive(group):
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(stat)
    return found

if pid_file.exists():
    group = int(pid_file.read_text())
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + 30
    while alive(group) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive(group):
        os.killpg(group, signal.SIGKILL)
with open(folder / f"serve-{port}.log", "ab") as log:
    server = subprocess.Popen(
        [str(root / "current" / "scripts" / "serve"), "127.0.0.1", port],
        cwd=root / "current", stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )
pid_file.write_text(str(server.pid))
"""


def working_tree_commit(folder: Path) -> str:
    """A commit of this checkout's files as they are (untracked ones too, ignored ones not),
    on top of HEAD, made with an index of its own and named by no branch."""
    index = {**os.environ, "GIT_INDEX_FILE": str(folder / "index")}
    for command in (["read-tree", "HEAD"], ["add", "-A"]):
        subprocess.run(["git", *command], cwd=ROOT, env=index, check=True, timeout=120)  # noqa: S603, S607
    tree = subprocess.run(
        ["git", "write-tree"], cwd=ROOT, env=index, capture_output=True, text=True,  # noqa: S607
        check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    message = "the working tree, for tests/test_release.py"
    return git("commit-tree", tree, "-p", "HEAD", "-m", message).strip()


def release(commit: str, environment: dict) -> str:
    done = subprocess.run(  # noqa: S603 (our own script)
        [str(RELEASE), commit], cwd=ROOT, env=environment, capture_output=True, text=True,
        timeout=PREPARE, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stderr


def serving_folder(folder: Path, port: int) -> Path:
    """The folder the server on `port` runs in (scripts/serve's working directory)."""
    pid = int((folder / f"serve-{port}.pid").read_text())
    return Path(os.readlink(f"/proc/{pid}/cwd"))


def static_files(proxy: Proxy, path: str) -> list[str]:
    """The static files the page at `path` names, as the proxy serves it now."""
    page = proxy.request("GET", path, Host="localhost")
    assert page.status == 200, page.status
    return sorted(set(re.findall(r'"(/static/[^"?#]+)', page.text)))


def still_served(proxy: Proxy, files: list[str]) -> list[str]:
    """Those of `files` the site answers with a 404 or more: [] when each is still there."""
    return [path for path in files if proxy.request("GET", path, Host="localhost").status >= 400]


class Phone(threading.Thread):
    """A phone on a site whose address has no port (as at 443), through the proxy: a page, each
    static file it names, a round saved, a game started; every answer counted by kind."""

    def __init__(self, proxy_port: int, certificate: Path, game: Game, table: Table, counts):
        super().__init__(daemon=True)
        self.proxy = Proxy(proxy_port, certificate)
        self.proxy.origin = "https://localhost"
        self.game, self.table, self.counts = game, table, counts
        self.stop = threading.Event()
        self.failures: list = []

    def ask(self, kind: str, method: str, path: str, body: str = ""):
        try:
            response = self.proxy.request(method, path, body, Host="localhost")
        except OSError as error:
            self.counts[(kind, type(error).__name__)] += 1
            return None
        self.counts[(kind, response.status)] += 1
        if response.status >= 400:
            self.failures.append((kind, method, re.sub(r"/[gvtw]/[^/]+", "/…", path),
                                  response.status, response.text[:200]))  # fmt: skip
        return response

    def run(self) -> None:
        game, table = self.game, self.table
        pages = [url("game", game.edit_token), url("view", game.view_token),
                 url("table", table.edit_token), url("history", game.edit_token), "/"]  # fmt: skip
        turn = 0
        while not self.stop.is_set():
            for page in pages:
                answer = self.ask("page", "GET", page)
                if answer is not None and answer.status == 200:
                    for static in sorted(set(re.findall(r'"(/static/[^"?#]+)', answer.text))):
                        self.ask("static", "GET", static)
            answer = self.ask("page", "GET", pages[0])
            token = answer and re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', answer.text)
            if token:
                turn += 1
                form = {"csrfmiddlewaretoken": token.group(1)}
                saved = {**round_post("blocked", dict.fromkeys(range(3), 2)), **form}
                self.ask("save", "POST", url("save", game.edit_token), urlencode(saved))
                started = {"player_0": "Ana", "player_1": f"Boris {turn}", **form}
                self.ask("start", "POST", "/", urlencode(started))


def test_upgrade_and_going_back_under_load_through_the_proxy(tmp_path):
    debian_tool("nginx", "nginx")
    debian_tool("openssl", "openssl")
    previous, _version = previous_release()
    this = working_tree_commit(tmp_path)
    srv = tmp_path / "srv"
    srv.mkdir()
    tls_port = free_port()
    plain_port = free_port({tls_port})
    first = free_port({tls_port, plain_port})
    ports = (first, free_port({tls_port, plain_port, first}))
    restart = tmp_path / "restart.py"
    restart.write_text(textwrap.dedent(RESTART))
    environment = production_environment(
        DJANGO_ALLOWED_HOSTS="localhost,127.0.0.1",
        DJANGO_HTTPS="true",
        RAMI_TRUST_X_FORWARDED_FOR="true",
        RAMI_PUBLIC_URL="https://localhost",
        RAMI_NEW_GAMES_PER_MINUTE="0",
        RAMI_ROOT=str(srv),
        RAMI_ENV_FILE=str(tmp_path / "no-such-file"),
        RAMI_PORTS=f"{ports[0]} {ports[1]}",
    )
    # scripts/release gives the restart command the port. Before the second server's restart, a
    # pause: for those seconds the two servers run two releases side by side (a slower machine
    # or a longer health check makes such a window), and a page drawn by one names static files
    # the other lacks.
    wrapper = tmp_path / "restart"
    wrapper.write_text(
        f'#!/bin/sh\n[ "$1" != {ports[1]} ] || sleep {SIDE_BY_SIDE}\n'
        f'exec {sys.executable} {restart} "$1" {tmp_path} {srv}\n'
    )
    wrapper.chmod(0o755)
    environment["RAMI_RESTART"] = str(wrapper)

    # A game and a table, then the database taken back to the previous release's migrations.
    game = Game.start(["Ana", "Boris", "Cyril"])
    table = Table.start("Friday", ["Ana", "Boris"])
    theirs = sorted(
        Path(name).stem
        for name in git("ls-tree", "--name-only", previous, "scoring/migrations/").split()
        if re.fullmatch(r"0\d+_\w+\.py", Path(name).name)
    )
    migrate_scoring(theirs[-1])

    counts: Counter = Counter()
    phones: list[Phone] = []
    nginx = None
    try:
        said = release(previous, environment)
        assert f"preparing {srv}/releases/{previous}" in said
        assert os.readlink(srv / "current") == f"releases/{previous}"
        for port in ports:
            assert serving_folder(tmp_path, port) == srv / "releases" / previous

        subprocess.run(  # noqa: S603
            [shutil.which("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
             "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
             "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        config = tmp_path / "nginx.conf"
        site = site_config(tmp_path, tls_port, plain_port, ports)
        config.write_text(nginx_config(tmp_path, site))
        nginx = subprocess.Popen(  # noqa: S603
            [shutil.which("nginx"), "-c", str(config), "-p", str(tmp_path)],
            stdout=subprocess.DEVNULL, stderr=open(tmp_path / "nginx.out", "wb"),  # noqa: SIM115
            start_new_session=True,
        )  # fmt: skip
        # The phones come once nginx listens (a loaded machine takes it a moment to start).
        listening = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", tls_port), timeout=1).close()
                break
            except OSError:
                assert nginx.poll() is None and time.monotonic() < listening, "nginx not up"
                time.sleep(0.05)
        phones = [Phone(tls_port, tmp_path / "cert.pem", game, table, counts) for _ in range(3)]
        for phone in phones:
            phone.start()
        waited = time.monotonic() + 60
        while counts[("static", 200)] < 20 and time.monotonic() < waited:
            time.sleep(0.1)
        before = counts.copy()
        # A page left open across the upgrade, and one across going back.
        looker = Proxy(tls_port, tmp_path / "cert.pem")
        old_page = static_files(looker, url("game", game.edit_token))

        # The upgrade: this release prepared and migrated while the previous one serves, then
        # the link switched and the servers restarted one at a time.
        said = release(this, environment)
        assert f"preparing {srv}/releases/{this}" in said
        assert os.readlink(srv / "current") == f"releases/{this}"
        for port in ports:
            assert serving_folder(tmp_path, port) == srv / "releases" / this
        time.sleep(2)
        upgraded = counts.copy()
        assert still_served(looker, old_page) == []
        new_page = static_files(looker, url("game", game.edit_token))
        assert new_page != old_page  # the two releases' static files differ

        # Going back: the previous release's folder is there already; the migrations stay.
        said = release(previous, environment)
        assert "preparing" not in said
        assert os.readlink(srv / "current") == f"releases/{previous}"
        for port in ports:
            assert serving_folder(tmp_path, port) == srv / "releases" / previous
        assert still_served(looker, new_page) == []
        time.sleep(2)
    finally:
        for phone in phones:
            phone.stop.set()
        for phone in phones:
            phone.join(timeout=60)
        if nginx is not None and nginx.poll() is None:
            nginx.send_signal(signal.SIGQUIT)
            try:
                nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(nginx.pid, signal.SIGKILL)
        for pid_file in tmp_path.glob("serve-*.pid"):
            group = int(pid_file.read_text())
            if alive_in_group(group):
                os.killpg(group, signal.SIGTERM)
                deadline = time.monotonic() + 20
                while alive_in_group(group) and time.monotonic() < deadline:
                    time.sleep(0.1)
                if alive_in_group(group):
                    os.killpg(group, signal.SIGKILL)
        migrate_scoring(None)

    failures = [failure for phone in phones for failure in phone.failures]
    # The static files one server lacked (the other release's), which nginx then asked of the
    # other server: what the two releases serving at once would have made 404s.
    missed = sum(
        # The access log's JSON (this release), or granian's own line in it (0.1.0).
        len(re.findall(r'"status": 404, "path": "/static/|GET /static/[^ ]* HTTP/1.1\\" 404',
                       log.read_text()))
        for log in tmp_path.glob("serve-*.log")
    )  # fmt: skip
    print(
        f"\n{previous[:10]} -> {this[:10]} -> {previous[:10]} under "
        f"{sum(counts.values())} answers ({sum(before.values())} before the upgrade, "
        f"{sum(upgraded.values())} by its end): {dict(counts)}; {missed} static files asked "
        "of the server that lacked them, then of the other"
    )
    assert failures == [], failures[:10]
    assert {status for _kind, status in counts} <= {200, 204, 303}, counts
    assert sum(before.values()) < sum(upgraded.values()) < sum(counts.values())
    assert counts[("static", 200)] > 40 and counts[("save", 303)] > 3
    assert missed > 0, "the two releases never served side by side: the test proved nothing"
