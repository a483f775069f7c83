"""ASGI entry point, served by granian (`make run`: scripts/serve).

Every URL is Django's, through its ASGI handler (the views stay synchronous, each run in a
thread), but the live updates' streams, /live/<key>: a stream stays open for minutes, and
Django's handler would hold a thread (and, with any query, a database connection) for each.
They are answered here instead, by scoring.live.asgi_stream, which holds neither: one reader
thread per process reads the versions for all of them (scoring/live.py).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")

django_application = get_asgi_application()

from scoring import live  # noqa: E402 (needs the settings, set up just above)


async def application(scope, receive, send):
    if scope["type"] == "http" and scope["path"].startswith(live.PREFIX):
        await live.asgi_stream(scope, receive, send)
    elif scope["type"] == "lifespan":
        await lifespan(receive, send)
    else:
        await django_application(scope, receive, send)


async def lifespan(receive, send):
    """Nothing to set up (the reader starts with the first stream); at shutdown, the reader
    stops and closes its connection."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            live.reader.stop()
            await send({"type": "lifespan.shutdown.complete"})
            return
