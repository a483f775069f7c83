"""How much of the server's memory one open live stream holds: `python -m bench.stream_memory`.

Starts the production server (scripts/serve: granian, its workers, as `make run`) on
127.0.0.1 and a free port, against a throwaway SQLite file seeded with one game for every
PER_GAME streams (bench/seed.py, "evening"), then opens the streams of `--counts` (2,000 then
4,000 by default) from one asyncio client: an HTTP/1.1 GET of /live/<key>?v=0 a connection,
four phones to a game as at a table, held open and read. Once every stream has had its first
event and the server has settled, it sums the resident memory (RSS) and the proportional set
size (PSS, /proc/PID/smaps_rollup: the pages the processes share split between them) of the
server's Python processes (granian's main process and its workers). The figure asked of it:
KB a stream = (memory at the last count - memory at the first) / (the streams between), so
that what the server holds anyway (its code, Django, the first pages) is left out. Each run
starts a new server; the machine's load (`uptime`) is printed with every run.

`--pages` has each phone load its game's page first (GET /g/<edit>/, its own connection), as
a phone does before it opens the page's stream: the memory then also counts what the page
loads leave in the server (bench/evening.py's "server MB" counts them too).

`--app floor` serves, instead of the app, an ASGI application that holds each connection open
with one event and nothing else (`floor` below) under granian with scripts/serve's options:
the memory granian and asyncio cost a connection whatever the application does.

    python -m bench.stream_memory                  # 3 runs, 2,000 then 4,000 streams
    python -m bench.stream_memory --runs 1 --counts 1000 2000 --app floor

Not a test: a measurement, on this machine, whose load moves it by a few KB a stream.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

from bench.profile import python_processes
from bench.server import HOST, ROOT, TMP, django_env, log, manage, running_server, stop_server
from scripts.throwaway_site import free_port

PER_GAME = 4  # streams a game: the four phones of a table
OPENING = 200  # connections opened at once (granian's backlog is 1,024)
SETTLE = 5.0  # seconds between the last stream's first event and the measure
TIMEOUT = 300.0  # seconds for a count's streams (and pages) to open


async def floor(scope, receive, send):
    """The least an application can do to hold a stream open: its headers, one event, then
    nothing until the phone goes away (for `--app floor`)."""
    if scope["type"] == "lifespan":
        while True:
            kind = (await receive())["type"]
            await send({"type": kind + ".complete"})
            if kind == "lifespan.shutdown":
                return
    headers = [(b"content-type", b"text/event-stream; charset=utf-8")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    body = b"retry: 3000\n\nid: 1\nevent: version\ndata: 1\n\n"
    await send({"type": "http.response.body", "body": body, "more_body": True})
    while (await receive())["type"] != "http.disconnect":
        pass


def floor_command(port: int) -> list[str]:
    """granian as scripts/serve starts it, serving `floor` (its environment sets the buffer)."""
    workers = str(max(2, os.cpu_count() or 1))
    return [
        str(ROOT / ".venv/bin/granian"),
        *("--interface", "asgi", "--host", HOST, "--port", str(port), "--workers", workers),
        *("--backpressure", "8192", "--no-ws", "bench.stream_memory:floor"),
    ]


class Held(asyncio.Protocol):
    """One stream, held open: what comes is read and dropped; `first` is done at its first
    event (or when the connection ends)."""

    def __init__(self) -> None:
        self.first = asyncio.get_running_loop().create_future()
        self.status = b""

    def data_received(self, data: bytes) -> None:
        if not self.status:
            self.status = data[9:12]
        if not self.first.done() and b"data: " in data:
            self.first.set_result(self.status)

    def connection_lost(self, exc) -> None:
        if not self.first.done():
            self.first.set_result(self.status or b"closed")


async def load_page(port: int, path: str) -> None:
    """A phone's page load before its stream: GET `path`, read to its end."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode()
    )
    answer = await reader.read()
    writer.close()
    if answer[9:12] != b"200":
        raise SystemExit(f"{path} was answered {answer[:12]!r}")


async def open_streams(
    port: int, keys: list[tuple[str, str]], transports: list, pages: bool = False
) -> None:
    """Open a stream for each of `keys` (a stream's key, its game's page), OPENING at a time,
    each until its first event; with `pages`, each after its game's page is loaded."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(OPENING)

    async def one(key: str, page: str) -> None:
        async with gate:
            if pages:
                await load_page(port, page)
            transport, held = await loop.create_connection(Held, HOST, port)
            transport.write(
                f"GET /live/{key}?v=0 HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n".encode()
            )
            transports.append(transport)
            status = await held.first
            if status != b"200":
                raise SystemExit(f"a stream was answered {status!r}")

    await asyncio.wait_for(asyncio.gather(*(one(key, page) for key, page in keys)), TIMEOUT)


def memory(groups: list[int]) -> dict[int, tuple[int, int]]:
    """Each Python process of the server: its RSS and PSS, in KB."""
    found = {}
    for pid in python_processes(groups):
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
        except OSError:
            continue
        fields = {line.split(":")[0]: line.split()[1] for line in rollup[1:]}
        found[pid] = (int(fields["Rss"]), int(fields["Pss"]))
    return found


def keys_for(env: dict[str, str], tokens: list[str]) -> list[str]:
    """The streams' keys of the games (scoring.live.stream.key_for), signed with the server's
    secret key in a process configured as the server is."""
    script = (
        "import json, os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
        "'rami_site.settings'); import django; django.setup(); "
        "from scoring.live.stream import key_for; "
        "print(json.dumps([key_for('g', t) for t in json.loads(sys.stdin.read())]))"
    )
    done = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-c", script],
        cwd=ROOT,
        env=env,
        input=json.dumps(tokens),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


async def measure_run(
    port: int, group: int, keys: list[tuple[str, str]], counts: list[int], pages: bool
) -> list[dict]:
    """The server's memory with no stream, then with each of `counts` open."""
    transports: list = []
    rows = [{"streams": 0, "processes": memory([group])}]
    try:
        for count in counts:
            await open_streams(port, keys[len(transports) : count], transports, pages)
            await asyncio.sleep(SETTLE)
            rows.append({"streams": count, "processes": memory([group])})
    finally:
        for transport in transports:
            transport.close()
    return rows


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[2000, 4000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--app", choices=["rami", "floor"], default="rami")
    parser.add_argument(
        "--pages", action="store_true", help="each phone loads its game's page before its stream"
    )
    args = parser.parse_args()
    TMP.mkdir(exist_ok=True)
    database = TMP / "stream-memory.sqlite3"
    for stale in TMP.glob("stream-memory.sqlite3*"):
        stale.unlink()
    env = django_env(database)
    env.setdefault("GRANIAN_HTTP1_BUFFER_SIZE", "8192")  # as scripts/serve sets it
    games = -(-max(args.counts) // PER_GAME)
    log(f"seeding {games} games")
    manage(env, "manage.py", "migrate", "--no-input", "--verbosity", "0")
    seeded = json.loads(manage(env, "-m", "bench.seed", "evening", str(games)))
    signed = keys_for(env, [game["view"] for game in seeded])
    pages = [f"/g/{game['edit']}/" for game in seeded]
    keys = [pair for pair in zip(signed, pages, strict=True) for _ in range(PER_GAME)]
    per_stream = []
    for run in range(1, args.runs + 1):
        port = free_port()
        if args.app == "floor":
            server = floor_server(env, port)
        else:
            server = running_server("granian", env, port, "stream-memory.log")
        with server as process:
            time.sleep(1.0)  # the workers' first requests (healthz) settled
            rows = asyncio.run(measure_run(port, process.pid, keys, args.counts, args.pages))
        for row in rows:
            rss = sum(r for r, _ in row["processes"].values())
            pss = sum(p for _, p in row["processes"].values())
            row["rss"], row["pss"] = rss, pss
            each = " ".join(f"{r / 1024:.0f}" for r, _ in sorted(row["processes"].values()))
            log(
                f"run {run}: {row['streams']:>5} streams: RSS {rss / 1024:.1f} MB, "
                f"PSS {pss / 1024:.1f} MB (RSS a process, MB: {each})"
            )
        first, last = rows[1], rows[-1]
        streams = last["streams"] - first["streams"]
        kb = ((last["rss"] - first["rss"]) / streams, (last["pss"] - first["pss"]) / streams)
        per_stream.append(kb)
        log(
            f"run {run}: {kb[0]:.1f} KB RSS, {kb[1]:.1f} KB PSS a stream "
            f"({first['streams']} to {last['streams']}); {uptime()}"
        )
    rss = [round(kb[0], 1) for kb in per_stream]
    pss = [round(kb[1], 1) for kb in per_stream]
    log(
        f"{args.app}: KB a stream, RSS {rss} (median {statistics.median(rss)}), "
        f"PSS {pss} (median {statistics.median(pss)})"
    )


def floor_server(env: dict[str, str], port: int):
    """`floor` under granian, as a context manager like running_server's."""

    @contextmanager
    def served():
        logfile = (TMP / "stream-memory-floor.log").open("w")
        process = subprocess.Popen(
            floor_command(port),
            cwd=ROOT,
            env=env,
            stdout=logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        logfile.close()
        try:
            deadline = time.monotonic() + 30
            while len(python_processes([process.pid])) < 3:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit("granian did not start: bench/tmp/stream-memory-floor.log")
                time.sleep(0.2)
            time.sleep(2.0)
            yield process
        finally:
            stop_server(process)

    return served()


if __name__ == "__main__":
    main()
