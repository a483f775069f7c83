"""`make lighthouse`: Lighthouse's mobile scores for the start page, the game pages of 60 and
80 rounds (6 players), the watch-only page of 80 rounds and /rules/, against the production
server of `make bench` (bench/server.py), written to bench/LIGHTHOUSE.md.

Lighthouse comes from bench/node_modules (bench/package.json; `make lighthouse` installs it
there) and drives Debian's Chromium (CHROME_PATH, headless, no sandbox).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

from bench.server import (
    BENCH,
    GAMES_SMALL,
    HOST,
    ROOT,
    TMP,
    log,
    machine,
    manage,
    prepare,
    running_server,
    seed,
)
from scripts.throwaway_site import free_port

LIGHTHOUSE = BENCH / "node_modules" / ".bin" / "lighthouse"
BUDGET = {"performance": 95, "accessibility": 100}


def audit(url: str, name: str) -> dict[str, int]:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chrome:
        raise SystemExit("Chromium is missing: apt-get install chromium")
    report = TMP / f"lighthouse-{name}.json"
    command = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--only-categories=performance,accessibility",
        "--output=json",
        f"--output-path={report}",
        "--chrome-flags=--headless=new --no-sandbox",
    ]
    # Lighthouse now and then fails to record its trace on a busy machine ("NO_NAVSTART:
    # please run Lighthouse again"): once more, then the failure stands.
    for attempt in range(2):
        done = subprocess.run(
            command, env={**os.environ, "CHROME_PATH": chrome}, timeout=180, check=attempt == 1
        )
        if done.returncode == 0:
            break
    categories = json.loads(report.read_text())["categories"]
    return {key: round(100 * categories[key]["score"]) for key in BUDGET}


def lighthouse(args) -> None:
    if not LIGHTHOUSE.exists():
        raise SystemExit("Lighthouse is not installed: make lighthouse (npm install in bench/)")
    started = time.monotonic()
    env, _database = prepare(args)
    games = seed(env)
    manage(env, "-m", "bench.seed", "fillers", str(GAMES_SMALL - len(games)))
    port = free_port()
    pages = [
        ("start page", "/"),
        ("game page, 60 rounds", f"/g/{games['game60']['edit']}/"),
        ("game page, 80 rounds", f"/g/{games['game80']['edit']}/"),
        ("watch-only page, 80 rounds", f"/v/{games['game80']['view']}/"),
        ("/rules/", "/rules/"),
    ]
    scores = {}
    with running_server("granian", env, port):
        for number, (name, path) in enumerate(pages):
            log(f"Lighthouse: {name}")
            scores[name] = audit(f"http://{HOST}:{port}{path}", f"page{number}")
    info = machine()
    lines = [
        "# Lighthouse",
        "",
        f"`make lighthouse` on {info['date']}, commit {info['commit']}; {info['cores']} cores, "
        f"load average {info['load']}. Lighthouse {lighthouse_version()}, mobile (its default: "
        "a slow 4G network and a 4× slower CPU, simulated), Debian's Chromium headless, "
        "against the production server of `make bench` (granian, DEBUG off, whitenoise).",
        "",
        "| page | performance | accessibility | met (≥ 95, 100) |",
        "|---|---:|---:|---|",
    ]
    for name, score in scores.items():
        met = all(score[key] >= BUDGET[key] for key in BUDGET)
        lines.append(
            f"| {name} | {score['performance']} | {score['accessibility']} | "
            f"{'yes' if met else '**no**'} |"
        )
    lines += ["", f"The run took {time.monotonic() - started:.0f} s.", ""]
    out = BENCH / "LIGHTHOUSE.md"
    out.write_text("\n".join(lines))
    log(f"wrote {out.relative_to(ROOT)}")
    print("\n".join(lines))


def lighthouse_version() -> str:
    package = BENCH / "node_modules" / "lighthouse" / "package.json"
    return json.loads(package.read_text())["version"]
