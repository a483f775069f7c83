"""What granian serves (rami_site/asgi.py): Django's views run in a fixed pool of threads, each
keeping its database connection, however many phones ask at once. Under Django's own ASGI
handler each request had a thread and a connection of its own, and 1,200 phones asking at once
were refused by PostgreSQL ("database unavailable"; tests/test_serve_connections.py shows it on
a real server)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.signals import request_started
from django.db.backends.signals import connection_created

from rami_site import asgi

pytestmark = pytest.mark.django_db(transaction=True)

AT_ONCE = 40


def healthz_scope() -> dict:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/healthz",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"localhost")],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }


async def ask(results: list) -> None:
    sent: list[dict] = []
    asked = False

    async def receive() -> dict:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the phone stays until the answer is sent
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await asgi.application(healthz_scope(), receive, send)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    results.append((sent[0]["status"], body))


def test_many_requests_at_once_share_a_few_threads_and_their_connections():
    threads: set[str] = set()
    connections: set[int] = set()

    def seen(**kwargs) -> None:
        threads.add(threading.current_thread().name)

    def opened(connection, **kwargs) -> None:
        connections.add(id(connection))

    async def many() -> list:
        results: list = []
        await asyncio.gather(*(ask(results) for _ in range(AT_ONCE)))
        return results

    request_started.connect(seen)
    connection_created.connect(opened)
    try:
        # In a thread of its own: the browser tests leave an event loop running in this one.
        with ThreadPoolExecutor(1) as thread:
            results = thread.submit(asyncio.run, many()).result(timeout=60)
    finally:
        request_started.disconnect(seen)
        connection_created.disconnect(opened)
    assert results == [(200, b"ok")] * AT_ONCE
    assert 1 <= len(threads) <= asgi.THREADS
    # Each thread opened one connection and kept it from one request to the next.
    assert len(connections) <= asgi.THREADS
