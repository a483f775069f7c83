"""What granian serves (rami_site/asgi.py): Django's views run in a fixed pool of threads, each
keeping its database connection, however many phones ask at once. Under Django's own ASGI
handler each request had a thread and a connection of its own, and 1,200 phones asking at once
were refused by PostgreSQL ("database unavailable"; tests/test_serve_connections.py shows it on
a real server)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.core.signals import request_started
from django.db import connections
from django.db.backends.signals import connection_created

from rami_site import asgi
from tests.conftest import run_async

pytestmark = pytest.mark.django_db(transaction=True)

AT_ONCE = 40


@pytest.fixture(autouse=True)
def pool_connections_closed():
    """Afterwards, each thread of the pool closes the connection it keeps: the test database
    cannot be dropped while they are open. A barrier gives every thread one of the tasks."""
    yield
    barrier = threading.Barrier(asgi.THREADS)

    def close() -> None:
        barrier.wait(timeout=10)
        connections.close_all()

    pool = asgi.django_application.executor
    for closed in [pool.submit(close) for _ in range(asgi.THREADS)]:
        closed.result(timeout=20)


def scope(method: str, path: str) -> dict:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"localhost"),
            (b"content-type", b"application/x-www-form-urlencoded"),
        ],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }


async def ask(method: str, path: str, body: bytes = b"", headers: tuple = ()) -> tuple[int, bytes]:
    """One request to the application, as granian makes it: its `receive` gives an awaitable
    that is not a coroutine (a future)."""
    sent: list[dict] = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    def receive():
        answer = asyncio.get_running_loop().create_future()
        if messages:
            answer.set_result(messages.pop())
        # else the phone stays until the answer is sent: a future never done
        return answer

    async def send(message: dict) -> None:
        sent.append(message)

    request = scope(method, path)
    request["headers"] += [(b"content-length", str(len(body)).encode()), *headers]
    await asgi.application(request, receive, send)
    received = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], received


def test_many_requests_at_once_share_a_few_threads_and_their_connections():
    threads: set[str] = set()
    opened_connections: list[object] = []

    def seen(**kwargs) -> None:
        threads.add(threading.current_thread().name)

    def opened(connection, **kwargs) -> None:
        opened_connections.append(connection)

    async def many() -> list:
        return await asyncio.gather(*(ask("GET", "/healthz") for _ in range(AT_ONCE)))

    request_started.connect(seen)
    connection_created.connect(opened)
    try:
        results = run_async(many(), timeout=60)
    finally:
        request_started.disconnect(seen)
        connection_created.disconnect(opened)
    assert results == [(200, b"ok")] * AT_ONCE
    assert 1 <= len(threads) <= asgi.THREADS
    # Each thread opened one connection and kept it from one request to the next.
    assert len(opened_connections) <= asgi.THREADS


def test_a_form_is_read_from_the_servers_receive():
    cookie = (b"cookie", b"csrftoken=" + b"a" * 32)
    form = b"csrfmiddlewaretoken=" + b"b" * 32 + b"&players=Ana&players=Boris"
    status, page = run_async(ask("POST", "/", form, headers=(cookie,)), timeout=60)
    # The form was read, and its token found wrong (a 500 when the body could not be read).
    assert (status, b"CSRF verification failed" in page) == (403, True)
