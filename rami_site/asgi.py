"""ASGI entry point, served by granian (`make run`: scripts/serve).

Two kinds of requests, each where it costs least:
- The live updates' streams, /live/<key>, stay open for minutes. They are answered on the event
  loop by scoring.stream.asgi_stream, which holds no thread and no database connection: one
  reader thread per process reads the versions for all of them (scoring/live/).
- Every other URL is Django's, through its WSGI handler run by a fixed pool of threads
  (a2wsgi's WSGIMiddleware; RAMI_THREADS, 4 by default), as under a WSGI server: the views are
  synchronous, each thread keeps its database connection between requests (CONN_MAX_AGE), and a
  burst of requests queues for the threads instead of opening a connection each.

Why not Django's own ASGI handler for them: it runs each request in a thread of its own
(asgiref's ThreadSensitiveContext), so a thousand phones asking at once meant a thousand threads,
each opening a database connection: PostgreSQL refused past its max_connections (100) and the
page answered "database unavailable", and persistent connections leak under it (Django's
documentation: "When using ASGI, persistent connections should be disabled").
"""

import os

from a2wsgi import WSGIMiddleware

from rami_site import wsgi

THREADS = int(os.environ.get("RAMI_THREADS") or 4)

django_application = WSGIMiddleware(wsgi.application, workers=THREADS)

# Needs the settings, set up just above.
from scoring.live import reader as reading  # noqa: E402
from scoring.live import stream  # noqa: E402


async def application(scope, receive, send):
    if scope["type"] == "http" and scope["path"].startswith(stream.PREFIX):
        await stream.asgi_stream(scope, receive, send)
    elif scope["type"] == "lifespan":
        await lifespan(receive, send)
    else:
        await django_application(scope, coroutine(receive), send)


def coroutine(receive):
    """granian's `receive` returns an awaitable that is not a coroutine, and a2wsgi hands the
    request body's reads from its threads to the event loop with run_coroutine_threadsafe,
    which takes coroutines only."""

    async def received():
        return await receive()

    return received


async def lifespan(receive, send):
    """Nothing to set up (the reader starts with the first stream); at shutdown, the reader
    stops and closes its connection."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            reading.reader.stop()
            await send({"type": "lifespan.shutdown.complete"})
            return
