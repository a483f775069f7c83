"""A server killed outright leaves nothing behind: after a SIGKILL of scripts/serve, or of
granian's main process (as the out-of-memory killer sends it), no worker of it goes on serving
the port. scripts/serve runs on a free port of 127.0.0.1 against the test database, as
tests/test_worker_kill.py starts it. Every wait is bounded; the process group is always
stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from scripts.throwaway_site import free_port
from tests.test_two_servers import production_environment
from tests.test_worker_kill import (
    alive_in_group,
    granian,
    healthy,
    start_serve,
    wait_until_healthy,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

GONE_WITHIN = 5  # seconds for the kernel to end the processes tied to a killed one


def gone(pids: list[int], seconds: float) -> list[int]:
    """Those of `pids` still running (zombies aside) after at most `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        running = [pid for pid in pids if running_process(pid)]
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.05)


def running_process(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop(serve: subprocess.Popen) -> None:
    if serve.poll() is None or alive_in_group(serve.pid):
        os.killpg(serve.pid, signal.SIGKILL)
        serve.wait(timeout=10)


def test_a_killed_serve_takes_granian_and_its_workers_with_it(tmp_path):
    port = free_port()
    log = tmp_path / "serve.log"
    serve = start_serve(port, production_environment(), log)
    try:
        wait_until_healthy(serve, port, log)
        main, workers = granian(serve)
        assert main is not None and len(workers) >= 2, (main, workers)
        serve.send_signal(signal.SIGKILL)
        serve.wait(timeout=5)
        assert gone([main, *workers], GONE_WITHIN) == []
        assert not healthy(port)
    finally:
        stop(serve)


def test_a_killed_granian_takes_its_workers_with_it_and_serve_starts_another(tmp_path):
    port = free_port()
    log = tmp_path / "serve.log"
    serve = start_serve(port, production_environment(), log)
    try:
        wait_until_healthy(serve, port, log)
        main, workers = granian(serve)
        assert main is not None and len(workers) >= 2, (main, workers)
        os.kill(main, signal.SIGKILL)
        assert gone(workers, GONE_WITHIN) == []
        # scripts/serve starts granian again after a second: new workers, none of the old.
        deadline = time.monotonic() + 20
        while True:
            new_main, new_workers = granian(serve)
            back = new_main not in (None, main) and len(new_workers) == len(workers)
            if back and healthy(port):
                break
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
        assert not set(new_workers) & set(workers)
        assert "granian exited with status" in log.read_text()
    finally:
        stop(serve)
