"""The server under test, shared by the benchmarks that start one (bench/run.py,
bench/lighthouse.py, bench/evening.py): the production server (scripts/serve, or gunicorn to
compare) on 127.0.0.1 and a free port (scripts/throwaway_site.free_port), its own SQLite file
and secret key, seeded by bench/seed.py; and the machine a report was made on. Imports none of
the benchmarks, so that each can import it.
"""

from __future__ import annotations

import datetime
import json
import os
import secrets
import shutil
import signal
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
TMP = BENCH / "tmp"
PYTHON = ROOT / ".venv" / "bin" / "python"
HOST = "127.0.0.1"
GAMES_SMALL = 10

# bench/evening.py's section of RESULTS.md, from this line on, which `make bench` keeps.
EVENING = "<!-- evening: written by bench/evening.py -->"


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def django_env(database: Path) -> dict[str, str]:
    """The environment of `make run`, with the benchmark's own database and secret."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL", "RAMI_"))
    }
    env.update(
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DATABASE_URL=f"sqlite:///{database}",
        DJANGO_ALLOWED_HOSTS=HOST,
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def server_command(kind: str, port: int) -> list[str]:
    """`make run`'s server (scripts/serve: granian), or, to compare, gunicorn with as many
    workers (gthread: 4 threads each), its access log on as granian's is."""
    if kind == "granian":  # exactly `make run`
        return [str(ROOT / "scripts" / "serve"), HOST, str(port)]
    workers = str(max(2, os.cpu_count() or 1))
    gunicorn = [str(ROOT / ".venv/bin/gunicorn"), "rami_site.wsgi", "--bind", f"{HOST}:{port}"]
    gunicorn += ["--workers", workers, "--access-logfile", "-"]
    if kind == "gthread":
        return [*gunicorn, "--worker-class", "gthread", "--threads", "4"]
    if kind == "sync":
        return [*gunicorn, "--worker-class", "sync"]
    raise SystemExit(f"unknown server {kind!r}")


def start_server(kind: str, env: dict[str, str], port: int, log_name: str = "server.log"):
    """The server, in its own process group, once it answers /healthz (at most 30 s)."""
    logfile = (TMP / log_name).open("a")
    process = subprocess.Popen(
        server_command(kind, port),
        cwd=ROOT,
        env=env,
        stdout=logfile,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    logfile.close()  # the server holds its own copy
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise SystemExit(f"the server stopped: see {TMP / log_name}")
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return process
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_server(process)
            raise SystemExit("the server did not answer /healthz within 30 s")
        time.sleep(0.2)


def stop_server(process: subprocess.Popen) -> None:
    """Stop the server and its workers (SIGTERM to its process group, SIGKILL after 15 s)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


@contextmanager
def running_server(kind: str, env: dict[str, str], port: int, log_name: str = "server.log"):
    """The server (start_server), stopped (and its workers with it) on the way out."""
    (TMP / log_name).write_text("")
    process = start_server(kind, env, port, log_name)
    try:
        yield process
    finally:
        stop_server(process)


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [str(PYTHON), *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout


def machine() -> dict[str, str]:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        # The reports themselves do not count: they are rewritten by these runs.
        ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/*.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip(),
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "cpu": next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            "?",
        ),
    }


def seed(env: dict[str, str]) -> dict:
    manage(env, "manage.py", "migrate", "--no-input", "--verbosity", "0")
    return json.loads(manage(env, "-m", "bench.seed", "games"))


def prepare(args) -> tuple[dict[str, str], Path]:
    if not shutil.which("wrk"):
        if os.geteuid() == 0 and shutil.which("apt-get"):
            log("installing wrk (apt-get install -y wrk)")
            subprocess.run(["apt-get", "install", "-y", "wrk"], check=True)
        else:
            raise SystemExit("wrk is missing: apt-get install wrk")
    TMP.mkdir(exist_ok=True)
    database = TMP / "bench.sqlite3"
    for stale in TMP.glob("bench.sqlite3*"):
        stale.unlink()
    return django_env(database), database
