"""A page's stream, /live/<key>: its key, what it sends, and the two ways it is served, on
granian's event loop (asgi_stream, rami_site/asgi.py) and, for a WSGI server, through the same
coroutine (stream). The protocol: docs/architecture.md, "Live updates"."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import parse_qs

from django.core import signing
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from scoring.live import reader as reading
from scoring.web.http import whole_number

SALT = "rami.live"
HEARTBEAT = 15.0  # seconds between two comments on a quiet stream
LIFETIME = 600.0  # seconds a stream stays open (a little less or more: LIFETIME_SPREAD)
LIFETIME_SPREAD = 30.0
RETRY_MS = (2000, 6000)  # the reconnection delay a stream asks of its browser
PREFIX = "/live/"
HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    # nginx and its kind pass each event on at once instead of buffering them.
    "X-Accel-Buffering": "no",
}
# What a key watches: a game ("g") or a table ("t") by its watch-only token, which a game
# restored from a backup keeps (a new row, a new id); or, on a page drawn before the keys named
# a token (one release), by its id.
_WATCHED = re.compile(r"[gt](?:[1-9][0-9]{0,18}|[A-Za-z0-9_-]{22,64})")


def key_for(kind: str, token: str) -> str:
    """The key of the stream of a game (`kind` "g") or a table ("t") that its pages are handed,
    by its watch-only token (`token`)."""
    return signing.Signer(salt=SALT).sign(f"{kind}{token}")


def watched_by(key: str) -> str | None:
    """What a stream's key watches ("g<token>", "t<token>"; "g12" on an older page), or None
    for a key we did not hand out."""
    try:
        value = signing.Signer(salt=SALT).unsign(key)
    except signing.BadSignature:
        return None
    return value if _WATCHED.fullmatch(value) else None


class Stream:
    """What one stream sends: its opening, then one line per wake-up or heartbeat; the same
    for the ASGI route and the WSGI view. On the ASGI route, also what it waits for: a wake-up
    from the reader, the phone going away, its next heartbeat.

    Thousands are open at once in a worker, each for minutes: a stream holds as little as it
    can (bench/RESULTS.md, "Memory a stream"), slots instead of a dict, and, while it waits,
    one future, its timer and the read of the phone's going away; no task or event of its
    own."""

    __slots__ = (
        "closed",
        "ends_at",
        "gone",
        "listening",
        "loop",
        "moved",
        "reader",
        "receive",
        "seen",
        "told",
        "waiter",
        "watched",
    )

    def __init__(self, watched: str, seen: int, reader: reading.Reader) -> None:
        self.watched = watched
        self.seen = seen
        self.reader = reader
        self.told = False
        self.gone = False  # told that its game or table is not there
        spread = random.uniform(-LIFETIME_SPREAD, LIFETIME_SPREAD)  # noqa: S311
        self.ends_at = time.monotonic() + LIFETIME + spread
        self.loop: asyncio.AbstractEventLoop | None = None
        self.receive: Callable | None = None
        self.listening: asyncio.Future | None = None  # the phone's next message, awaited
        self.closed = False  # the phone went away
        self.moved = False  # woken since its last line
        self.waiter: asyncio.Future | None = None

    def opening(self) -> bytes:
        # Spread the phones' reconnections after a restart over a few seconds.
        return f"retry: {random.randint(*RETRY_MS)}\n\n".encode()  # noqa: S311

    def news(self) -> bytes:
        """The event of a version newer than the page's, or nothing. The first version the
        stream knows is sent whatever it is, so that the page knows its stream works (a proxy
        may pass the headers of a stream and hold back what follows). A game or table that is
        not there (deleted, or not yet back from a backup) is told once ("gone"); when it is
        back, its version."""
        version = self.reader.known.get(self.watched)
        if version is None:
            return b""
        if version == reading.GONE:
            if self.gone:
                return b""
            self.gone = True
            return b"event: gone\ndata: gone\n\n"
        if version <= self.seen and self.told and not self.gone:
            return b""
        self.seen = max(version, self.seen)
        self.told, self.gone = True, False
        return f"id: {version}\nevent: version\ndata: {version}\n\n".encode()

    def left(self) -> float:
        """Seconds until the stream ends: none once the reader stops."""
        return 0.0 if self.reader.stopping else self.ends_at - time.monotonic()

    def wake(self) -> None:
        """The reader's call (on its thread) when the version moved or the reader stops: the
        stream's loop is told. The stream may have ended, and a loop of its own (a WSGI
        server's: stream() below) closed, between the reader's look and this call."""
        if self.loop is not None:
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self.woken)

    def woken(self) -> None:
        self.moved = True
        self.release()

    def release(self) -> None:
        """The wait ends: woken, the phone gone, or the heartbeat due."""
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def listen(self) -> None:
        """Read what the phone sends, until it goes away (`closed`), without a task: granian's
        `receive` hands a future, called back when a message comes; another server's (a
        coroutine) is run as a task. A `receive` that fails is taken as the phone gone."""
        try:
            message = self.receive()
            if not asyncio.isfuture(message):
                message = asyncio.ensure_future(message)
        except Exception:
            self.closed = True
            self.release()
            return
        self.listening = message
        message.add_done_callback(self.received)

    def received(self, message: asyncio.Future) -> None:
        self.listening = None
        if self.closed:
            return
        self.closed = (
            message.cancelled()
            or message.exception() is not None
            or message.result()["type"] == "http.disconnect"
        )
        if self.closed:
            self.release()
        else:
            self.listen()

    def close(self) -> None:
        """The stream has ended: what it still reads is dropped."""
        self.closed = True
        if self.listening is not None:
            self.listening.cancel()

    async def until_moved(self, seconds: float) -> None:
        """Until it is woken, the phone goes away, or `seconds` have passed."""
        if self.moved or self.closed:
            return
        self.waiter = self.loop.create_future()
        timer = self.loop.call_later(seconds, self.release)
        try:
            await self.waiter
        finally:
            timer.cancel()
            self.waiter = None


def seen_version(last_event_id: str | None, v: str | None) -> int:
    """The version the page has: what the stream last sent it, or what it was drawn with."""
    for text in (last_event_id, v):
        if (version := whole_number(text)) is not None:
            return version
    return 0


def scope_version(scope: dict) -> int:
    """seen_version of an ASGI request: its Last-Event-ID header, or its query's `v`."""
    last = next((v for k, v in scope.get("headers", []) if k.lower() == b"last-event-id"), b"")
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return seen_version(last.decode("latin-1"), (query.get("v") or [""])[0])


async def asgi_stream(scope: dict, receive: Callable, send: Callable) -> None:
    """The stream as an ASGI application (rami_site/asgi.py): no thread and no database
    connection of its own; woken by the reader's thread through the event loop."""
    watched = watched_by(scope["path"][len(PREFIX) :])
    if scope["method"] != "GET" or watched is None:
        status, body = (405, b"GET only") if watched else (404, b"not found")
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"text/plain")],
            }
        )
        await send({"type": "http.response.body", "body": body})
        return
    stream = Stream(watched, scope_version(scope), reading.reader)
    stream.loop, stream.receive = asyncio.get_running_loop(), receive
    stream.listen()
    stream.reader.watch(stream.watched, stream.wake)
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()],
            }
        )
        await send(
            {
                "type": "http.response.body",
                "body": stream.opening() + stream.news(),
                "more_body": True,
            }
        )
        while stream.left() > 0 and not stream.closed:
            await stream.until_moved(min(HEARTBEAT, stream.left()))
            if stream.closed:
                break
            stream.moved = False
            await send(
                {
                    "type": "http.response.body",
                    "body": stream.news() or b": \n\n",
                    "more_body": True,
                }
            )
        if not stream.closed:
            await send({"type": "http.response.body", "body": b""})
    except OSError:
        pass  # the phone went away while a line was on its way
    finally:
        stream.reader.unwatch(stream.watched, stream.wake)
        stream.close()


def stream(request: HttpRequest, key: str) -> HttpResponse:
    """The same stream for a WSGI server (runserver, the tests' live server): asgi_stream run
    on an event loop in a thread of its own, each piece handed to the server as it comes. A
    thread a stream: not for production, where granian serves asgi_stream itself."""
    if watched_by(key) is None:
        return HttpResponse("not found", status=404, content_type="text/plain")
    headers = []
    if (last := request.headers.get("Last-Event-ID")) is not None:
        headers.append((b"last-event-id", last.encode("latin-1", "replace")))
    scope = {
        "type": "http",
        "method": request.method,
        "path": PREFIX + key,
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1", "replace"),
        "headers": headers,
    }
    sent: queue.SimpleQueue[dict | None] = queue.SimpleQueue()
    closed = threading.Event()  # the server closed the response: the phone went away

    async def receive() -> dict:
        while not closed.is_set():
            await asyncio.sleep(0.1)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.put(message)

    def serve() -> None:
        try:
            asyncio.run(asgi_stream(scope, receive, send))
        finally:
            sent.put(None)

    threading.Thread(target=serve, name="rami-live-wsgi", daemon=True).start()
    start = sent.get()  # http.response.start: its status and headers

    def pieces() -> Iterator[bytes]:
        try:
            while (message := sent.get()) is not None:
                yield message.get("body", b"")
        finally:
            closed.set()

    response = StreamingHttpResponse(pieces(), status=start["status"])
    for name, value in start["headers"]:
        response[name.decode("latin-1")] = value.decode("latin-1")
    return response
