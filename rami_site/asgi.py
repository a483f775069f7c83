"""ASGI entry point, served by granian (`make run`: scripts/serve): /live/ on the event loop,
every other URL through Django's WSGI handler in a fixed pool of threads, so that a burst of
requests queues for the threads instead of opening a database connection each
(docs/architecture.md, "Serving")."""

import asyncio
import ctypes
import multiprocessing
import os
import re
import signal
import sys

from rami_site import wsgi
from rami_site.threads import DjangoInThreads

THREADS = int(os.environ.get("RAMI_THREADS") or 4)

# prctl(2)'s option: the signal this process gets when the thread that started it ends.
PR_SET_PDEATHSIG = 1


def die_with_granian() -> None:
    """A granian worker ends when granian's main process does, however it ends.

    granian stops its workers when it is stopped, but a main process killed outright (kill -9,
    the out-of-memory killer) leaves them serving the port with the old code, while
    scripts/serve starts a new granian beside them. Linux sends a process a signal of its
    choice when its parent dies (PR_SET_PDEATHSIG): SIGKILL here. granian starts and restarts
    its workers from its main thread (granian/server/common.py, 2.8), which lives as long as
    the process. scripts/serve ties granian to itself the same way (setpriv --pdeathsig).
    Only in a worker granian started: never in a test or the development server."""
    process = multiprocessing.current_process()
    parent = multiprocessing.parent_process()
    if not sys.platform.startswith("linux") or process.name != "granian-worker" or not parent:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return
    # The parent may have died before the call: then nothing would ever be sent.
    if os.getppid() != parent.pid:
        os.kill(os.getpid(), signal.SIGKILL)


die_with_granian()

django_application = DjangoInThreads(wsgi.application, workers=THREADS)

# Needs the settings, set up just above.
from scoring.live import check, stream  # noqa: E402
from scoring.live import reader as reading  # noqa: E402
from scoring.web import metrics  # noqa: E402


async def application(scope, receive, send):
    if scope["type"] == "http" and check.is_check(scope["path"]):
        await check.asgi_check(scope, receive, counted(send))
    elif scope["type"] == "http" and scope["path"].startswith(stream.PREFIX):
        await stream.asgi_stream(scope, receive, counted(send))
    elif scope["type"] == "lifespan":
        await lifespan(receive, send)
    else:
        await django_application(ascii_query(scope), receive, send)


def end_streams_when_stopped() -> None:
    """A worker asked to stop (SIGTERM, SIGINT: granian's stop, a SIGHUP's restart of the
    workers) ends its streams at once, each with its last chunk, so that the phones come back
    within their retry to a worker that serves on.

    granian runs the lifespan's shutdown only once every connection has closed, and a stream
    stays open for minutes: each stop waited for --workers-kill-timeout and logged "Killing
    worker-1 after it refused to gracefully stop". granian's worker handles these signals on
    its asyncio loop (granian/_signals.py, set_loop_signals, before the lifespan starts): its
    handler is kept and called after the reader is stopped, which wakes every stream to end."""
    loop = asyncio.get_running_loop()
    handlers = getattr(loop, "_signal_handlers", None)
    if not isinstance(handlers, dict):
        return
    for number in (signal.SIGTERM, signal.SIGINT):
        previous = handlers.get(number)
        if previous is None:
            continue

        def stop(previous=previous) -> None:
            reading.reader.stop(timeout=0)
            previous._run()

        loop.add_signal_handler(number, stop)


def counted(send):
    """`send`, counting the answer's status for /metrics: Django's answers are counted by
    rami_site.middleware.CountAnswersMiddleware, these (the live streams and version checks)
    here."""

    async def sending(message):
        if message["type"] == "http.response.start":
            metrics.count_answer(message["status"])
        await send(message)

    return sending


NOT_ASCII = re.compile(rb"[\x80-\xff]")


def ascii_query(scope):
    """The scope with its query's raw bytes past ASCII percent-encoded, as a browser sends them.

    Scripts, bots and some proxies send `?a=é` unescaped; a2wsgi decodes the query as ASCII,
    and every such request was a 500 with a traceback. Percent-encoded, it reaches Django as a
    browser's would, and Django decodes it as UTF-8 (replacing what is not)."""
    query = scope.get("query_string", b"")
    if query.isascii():
        return scope
    return {**scope, "query_string": NOT_ASCII.sub(lambda byte: b"%%%02X" % byte[0][0], query)}


async def lifespan(receive, send):
    """At startup, the streams are told to end as soon as the worker is asked to stop
    (end_streams_when_stopped); at shutdown, the reader stops and closes its connection."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            end_streams_when_stopped()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            reading.reader.stop()
            await send({"type": "lifespan.shutdown.complete"})
            return
