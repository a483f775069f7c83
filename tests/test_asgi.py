"""What granian serves (rami_site/asgi.py): Django's views run in a fixed pool of threads, each
keeping its database connection, however many phones ask at once. Under Django's own ASGI
handler each request had a thread and a connection of its own, and 1,200 phones asking at once
were refused by PostgreSQL ("database unavailable"; tests/test_serve_connections.py shows it on
a real server)."""

from __future__ import annotations

import asyncio
import gzip
import re
import threading
import time

import pytest
from django.core.signals import request_started
from django.db import connections
from django.db.backends.signals import connection_created

from rami_site import asgi, threads
from scoring.live import reader as reading
from scoring.live.stream import key_for
from scoring.models import Game, Table
from scoring.rules import Hand, RoundEntry
from tests import pages
from tests.conftest import round_post, run_async
from tests.links import url

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


# Django in the pool's threads (rami_site/threads.py) beside a2wsgi's WSGIMiddleware, which
# it replaced: the same answers to the same requests.

VARYING = re.compile(pages.VARYING.encode())


async def served_by(application, method: str, path: str, body: bytes = b"", headers=()):
    """`application`'s answer to a request as granian hands it over, in parts of `body` of
    at most 100 bytes: its status, its headers and its body."""
    sent: list[dict] = []
    parts = [body[at : at + 100] for at in range(0, len(body), 100)] or [b""]
    messages = [
        {"type": "http.request", "body": part, "more_body": at < len(parts) - 1}
        for at, part in enumerate(parts)
    ]

    async def receive() -> dict:
        return messages.pop(0)

    async def send(message: dict) -> None:
        sent.append(message)

    request = scope(method, path)
    request["headers"] += [(b"content-length", str(len(body)).encode()), *headers]
    await application(request, receive, send)
    start = sent[0]
    received = b"".join(m.get("body", b"") for m in sent[1:])
    headers = dict(start["headers"])
    if headers.get(b"content-encoding") == b"gzip":  # its padding is random: what it holds
        received = gzip.decompress(received)
        headers.pop(b"content-length")
    kept = sorted((name, VARYING.sub(b"", value)) for name, value in headers.items())
    assert all(name.islower() for name in headers)
    return start["status"], kept, VARYING.sub(b"", received)


def test_django_in_the_pools_threads_answers_as_a2wsgi_did():
    from a2wsgi import WSGIMiddleware
    from django.contrib.staticfiles.storage import staticfiles_storage

    from rami_site import wsgi

    game = Game.start(["Ana", "Boris", "Cyril"])
    game.record_round(RoundEntry((Hand(), Hand(value=5), Hand(value=9)), winner=0))
    cookie = (b"cookie", b"csrftoken=" + b"a" * 32)
    form = b"csrfmiddlewaretoken=" + b"b" * 32 + b"&players=" + b"Ana%0ABoris" * 50
    gzip = (b"accept-encoding", b"gzip")
    asked = [
        ("GET", "/healthz", b"", ()),
        ("GET", url("game", game.edit_token), b"", ()),
        ("GET", url("game", game.edit_token), b"", (gzip,)),
        ("GET", url("view", game.view_token), b"", ((b"hx-request", b"true"),)),
        ("GET", url("export_csv", game.edit_token), b"", ()),
        ("GET", staticfiles_storage.url("scoring/rami.js"), b"", ()),
        ("GET", "/no/such/page/", b"", ()),
        ("POST", "/", form, (cookie,)),
        ("HEAD", "/", b"", ()),
    ]
    ours, theirs = asgi.django_application, WSGIMiddleware(wsgi.application, workers=2)
    statuses = []
    for method, path, body, headers in asked:
        mine = run_async(served_by(ours, method, path, body, headers), timeout=60)
        a2wsgi = run_async(served_by(theirs, method, path, body, headers), timeout=60)
        headers_differ = set(mine[1]) ^ set(a2wsgi[1])
        assert mine == a2wsgi, (method, path, headers_differ, mine[2] == a2wsgi[2])
        statuses.append(mine[0])
    # The form's token does not match its cookie's; the start page is no HEAD's.
    assert statuses == [200, 200, 200, 200, 200, 200, 404, 403, 405]
    # A body past MAX_BODY is refused unread.
    refused = run_async(served_by(ours, "POST", "/", b"x" * (threads.MAX_BODY + 1)), timeout=60)
    assert refused[0] == 413


# The version check at the stream's address, answered from the reader (scoring/live/check.py)


async def answer(
    path: str, query: str = "", headers: tuple = (), method: str = "GET"
) -> tuple[dict, bytes]:
    """A request as granian hands it over: the start of the answer (status, headers) and its
    body."""
    sent: list[dict] = []

    def receive():
        answer = asyncio.get_running_loop().create_future()
        answer.set_result({"type": "http.request", "body": b"", "more_body": False})
        return answer

    async def send(message: dict) -> None:
        sent.append(message)

    request = scope(method, path)
    request["query_string"] = query.encode()
    request["headers"] = [(b"host", b"localhost"), *headers]
    await asgi.application(request, receive, send)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0], body


def headers_of(start: dict) -> dict[bytes, bytes]:
    return {name.lower(): value for name, value in start["headers"]}


@pytest.fixture
def django_requests():
    """The paths of the requests that entered Django's request cycle meanwhile through the
    application granian serves: those run on its pool's threads ("WSGI..."). Another test's
    page still open on the session's live server (a stream reconnecting) enters Django on a
    thread of that server, and is not this test's."""
    paths: list[str] = []

    def started(environ=None, **kwargs) -> None:
        if threading.current_thread().name.startswith("WSGI"):
            paths.append(environ["PATH_INFO"] if environ else "?")

    request_started.connect(started)
    yield paths
    request_started.disconnect(started)


def known_by_the_reader(key: str, version: int) -> None:
    deadline = time.monotonic() + 10
    while reading.reader.fresh(key) != version:
        assert time.monotonic() < deadline, "the reader never read the version"
        time.sleep(0.02)


def check_of(kind: str, token: str) -> str:
    return f"/live/{key_for(kind, token)}/version"


@pytest.mark.parametrize("kind", ["g", "t"])
def test_a_check_of_the_current_version_is_answered_by_the_reader_without_django(
    kind, django_requests
):
    if kind == "g":
        game = Game.start(["Ana", "Boris"])
        token, version = game.view_token, game.version
    else:
        table = Table.start("Tuesdays", ["Ana", "Boris"])
        token, version = table.view_token, table.version
    check = check_of(kind, token)
    first, body = run_async(answer(check, f"v={version}"))
    # Not read yet: the page is told to pull, and the reader takes the game up.
    assert (first["status"], body) == (200, b"pull")
    known_by_the_reader(kind + token, version)
    for _ in range(3):
        start, body = run_async(answer(check, f"v={version}"))
        assert (start["status"], body) == (204, b"")
    assert django_requests == []
    # Headers of its own: never kept by a cache; no cookie.
    assert headers_of(start)[b"cache-control"] == b"no-store"
    assert headers_of(start)[b"x-content-type-options"] == b"nosniff"
    assert b"set-cookie" not in headers_of(start)


def test_a_check_of_another_version_an_odd_one_or_a_key_not_handed_out_says_pull(django_requests):
    game = Game.start(["Ana", "Boris"])
    check = check_of("g", game.view_token)
    run_async(answer(check, f"v={game.version}"))
    known_by_the_reader("g" + game.view_token, game.version)
    for odd in (
        f"v={game.version - 1}",
        "",
        "v=",
        f"v={game.version}x",
        f"v=0{game.version}0",
        "v=%C2%B2",
    ):
        start, body = run_async(answer(check, odd))
        assert (start["status"], body) == (200, b"pull"), odd
    # A key we did not hand out (an edit token, a forged signature): 404; a POST, 405.
    for forged in (
        f"/live/g{game.view_token}/version",
        f"/live/{key_for('g', game.edit_token)}x/version",
    ):
        start, _ = run_async(answer(forged, f"v={game.version}"))
        assert start["status"] == 404, forged
    posted, _ = run_async(answer(check, f"v={game.version}", method="POST"))
    assert posted["status"] == 405
    assert django_requests == []


def test_a_check_after_a_change_says_pull_and_the_poll_brings_it(client, django_requests):
    game = Game.start(["Ana", "Boris"])
    check, before = check_of("g", game.view_token), game.version
    run_async(answer(check, f"v={before}"))
    known_by_the_reader("g" + game.view_token, before)
    saved = client.post(url("save", game.edit_token), round_post(0, {1: 7}))
    assert saved.status_code in (200, 303)
    game.refresh_from_db()
    known_by_the_reader("g" + game.view_token, game.version)
    start, _ = run_async(answer(check, f"v={before}"))
    assert start["status"] == 200
    changed, body = run_async(answer(f"/v/{game.view_token}/poll", f"v={before}&shown=playing"))
    assert changed["status"] == 200 and b"7" in body
    start, _ = run_async(answer(check, f"v={game.version}"))
    assert start["status"] == 204


def test_every_poll_is_djangos_even_when_the_reader_is_a_read_behind(client, django_requests):
    """A phone told of a new version by its stream pulls; that pull may land on a worker whose
    reader has not read the change yet. Django reads the database, so the pull gets the change
    (it was answered 204 in front of Django, from the reader, and the page stayed behind)."""
    game = Game.start(["Ana", "Boris"])
    before = game.version
    reading.reader.follow("g" + game.view_token)
    known_by_the_reader("g" + game.view_token, before)
    with reading.reader._lock:  # a reader that will not read again for a while
        saved = client.post(url("save", game.edit_token), round_post(0, {1: 7}))
        assert saved.status_code in (200, 303)
        assert reading.reader.fresh("g" + game.view_token) == before
        for link, token in (("g", game.edit_token), ("v", game.view_token)):
            pulled, body = run_async(answer(f"/{link}/{token}/poll", f"v={before}&shown=playing"))
            assert pulled["status"] == 200 and b"7" in body, link


def test_the_live_answers_are_counted_for_metrics_too():
    """The version checks and streams, answered without Django (rami_site/asgi.py), count in
    /metrics' rami_worker_answers_total as Django's answers do."""
    from scoring.web import metrics

    before = metrics.answers().get(404, 0)
    status, _body = run_async(ask("GET", "/live/not-a-key/version"))
    assert status == 404
    status, _body = run_async(ask("GET", "/live/not-a-key"))
    assert status == 404
    assert metrics.answers()[404] - before == 2
