"""Django's WSGI application served from granian's event loop by a fixed pool of threads, one
hop to a thread and one back a request (docs/architecture.md, "Serving").

a2wsgi's WSGIMiddleware, which this replaces on the way of every request, crosses from the
thread back to the loop and waits there for each part of an answer: its head, each chunk of
its body, its end. Each crossing wakes the loop through a pipe and hands Python's lock back and
forth; /healthz took 1.6-2.2 ms through it and 0.8 ms this way (in-process, load 7). Here the
request's body is read on the loop first (at most MAX_BODY), the view runs in a thread, and an
answer that is not streamed comes back whole, to be sent from the loop. A streamed answer (a
file of WhiteNoise's, a StreamingHttpResponse) is sent chunk by chunk from its thread, as
a2wsgi sends everything. The environ is a2wsgi's (build_environ): what Django sees is the same,
tests/test_asgi.py compares the two answers for the same requests."""

from __future__ import annotations

import asyncio
import contextvars
import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from a2wsgi.wsgi import build_environ

# Bytes of a request's body read before the view runs: nginx lets 2 MB through (deploy/nginx/
# rami.conf), Django reads at most 256 KB of a form; more is refused with 413 unread.
MAX_BODY = 4 * 1024 * 1024

TOO_LARGE = [
    {
        "type": "http.response.start",
        "status": 413,
        "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"24")],
    },
    {"type": "http.response.body", "body": b"Request body too large.\n"},
]


class DjangoInThreads:
    """The ASGI application of `app` (a WSGI application) on `workers` threads."""

    def __init__(self, app: Callable, workers: int) -> None:
        self.app = app
        self.executor = ThreadPoolExecutor(thread_name_prefix="WSGI", max_workers=workers)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        try:
            body = await _body(receive)
        except _TooLarge:
            for message in TOO_LARGE:
                await send(message)
            return
        if body is None:  # the phone went away before it had sent its request
            return
        loop = asyncio.get_running_loop()
        environ = build_environ(scope, io.BytesIO(body))  # type: ignore[arg-type]
        run = contextvars.copy_context().run
        answer = await loop.run_in_executor(self.executor, run, self._answer, environ, loop, send)
        for message in answer or ():
            await send(message)

    def _answer(self, environ: dict, loop: asyncio.AbstractEventLoop, send: Callable):
        """Django's answer to `environ`, on a thread of the pool: its messages, to be sent
        from the loop; or None when it was streamed from here."""
        head: dict = {}

        def start_response(status: str, headers: list, exc_info=None) -> Callable:
            head["status"] = int(status.split(" ", 1)[0])
            head["headers"] = [
                (name.strip().encode("latin1").lower(), value.strip().encode("latin1"))
                for name, value in headers
            ]
            return lambda chunk: sent(
                {"type": "http.response.body", "body": chunk, "more_body": True}
            )

        def sent(message: dict) -> None:
            asyncio.run_coroutine_threadsafe(_sending(send, message), loop).result()

        response = self.app(environ, start_response)
        try:
            start = {"type": "http.response.start", **head}
            if not getattr(response, "streaming", True):
                return [start, {"type": "http.response.body", "body": b"".join(response)}]
            sent(start)
            for chunk in response:
                sent({"type": "http.response.body", "body": chunk, "more_body": True})
            sent({"type": "http.response.body", "body": b""})
            return None
        finally:
            getattr(response, "close", lambda: None)()


async def _sending(send: Callable, message: dict) -> None:
    await send(message)


class _TooLarge(Exception):
    pass


async def _body(receive: Callable) -> bytes | None:
    """The request's body, read whole; None when the phone left first."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        part = message.get("body", b"")
        size += len(part)
        if size > MAX_BODY:
            raise _TooLarge
        parts.append(part)
        if not message.get("more_body", False):
            return b"".join(parts)
