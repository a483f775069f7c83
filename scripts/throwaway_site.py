"""The app on a throwaway database, for the scripts that drive Chromium against it
(scripts/screenshots.py, bench/layout.py, bench/round_entry.py):

    with ThrowawaySite(prefix="rami-shots-") as site:
        path = site.manage("import_game", "-", stdin=document)
        base = site.serve()     # Django's development server on 127.0.0.1, once /healthz answers

The database is a migrated SQLite file in a temporary folder; the server is stopped and the
folder removed on the way out, even on failure. Only 127.0.0.1 is ever served.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port(taken: frozenset[int] | set[int] = frozenset()) -> int:
    """A port of 127.0.0.1 that nothing listens on, chosen by the system (so two runs at once
    never probe the same range), and none of `taken`: ports handed to servers that may not have
    bound them yet. Another process may still take it before the server binds it; a caller that
    cannot afford that tries again (tests/test_two_servers.py)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port not in taken:
            return port


class ThrowawaySite:
    def __init__(self, prefix: str = "rami-", **environ: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=prefix))
        self.env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{self.folder / 'db.sqlite3'}",
            "DJANGO_DEBUG": "true",
            **environ,
        }
        self.server: subprocess.Popen | None = None

    def __enter__(self) -> ThrowawaySite:
        self.manage("migrate", "--no-input", "-v0")
        return self

    def __exit__(self, *exc) -> None:
        if self.server is not None:
            self.server.terminate()
            self.server.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)

    def manage(self, *args: str, stdin: str | None = None) -> str:
        """`manage.py *args` on this database; what it printed (e.g. a game's path)."""
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            input=stdin,
            text=True,
            capture_output=True,
            check=True,
        )
        return result.stdout.strip()

    def serve(self) -> str:
        """Start the development server on a free port; its base URL once it answers."""
        port = free_port()
        self.server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        return base
