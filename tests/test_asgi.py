"""What granian serves (rami_site/asgi.py): Django's views run in a fixed pool of threads, each
keeping its database connection, however many phones ask at once. Under Django's own ASGI
handler each request had a thread and a connection of its own, and 1,200 phones asking at once
were refused by PostgreSQL ("database unavailable"; tests/test_serve_connections.py shows it on
a real server)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from django.core.signals import request_started
from django.db import connections
from django.db.backends.signals import connection_created
from django.test import override_settings

from rami_site import asgi
from rami_site.logs import JsonLinesFormatter
from scoring.live import reader as reading
from scoring.live import unchanged
from scoring.models import Game
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


# The unchanged poll, answered in front of Django (scoring/live/unchanged.py)


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
    """An answer's headers, but those of the moment (Date) and of the request's language."""
    own = {b"date", b"content-length", b"content-language"}
    return {name.lower(): value for name, value in start["headers"] if name.lower() not in own}


@pytest.fixture
def django_requests():
    """The paths of the requests that entered Django's request cycle meanwhile; nothing
    learned from another test's answers."""
    unchanged.forget()
    paths: list[str] = []

    def started(environ=None, **kwargs) -> None:
        paths.append(environ["PATH_INFO"] if environ else "?")

    request_started.connect(started)
    yield paths
    request_started.disconnect(started)
    unchanged.forget()


def known_by_the_reader(key: str, version: int) -> None:
    deadline = time.monotonic() + 10
    while reading.reader.fresh(key) != version:
        assert time.monotonic() < deadline, "the reader never read the version"
        time.sleep(0.02)


@pytest.mark.parametrize("link", ["edit", "view"])
def test_an_unchanged_poll_the_reader_knows_is_answered_in_front_of_django(link, django_requests):
    game = Game.start(["Ana", "Boris"])
    token = game.edit_token if link == "edit" else game.view_token
    poll = f"/{'g' if link == 'edit' else 'v'}/{token}/poll"
    asked = f"v={game.version}&shown=playing"
    by_django, _ = run_async(answer(poll, asked))  # the first: Django's, and the reader follows
    assert by_django["status"] == 204 and django_requests == [poll]
    known_by_the_reader(("e" if link == "edit" else "g") + token, game.version)
    for _ in range(3):
        in_front, body = run_async(answer(poll, asked))
        assert (in_front["status"], body) == (204, b"")
    assert django_requests == [poll]  # not again
    # The same answer as Django's: never stored, the CSP and the security headers, no cookie.
    assert headers_of(in_front) == headers_of(by_django)
    assert headers_of(in_front)[b"cache-control"] == (
        b"max-age=0, no-cache, no-store, must-revalidate, private"
    )
    assert headers_of(in_front)[b"content-security-policy"].startswith(b"default-src 'self'")
    assert headers_of(in_front)[b"x-frame-options"] == b"DENY"
    assert headers_of(in_front)[b"x-content-type-options"] == b"nosniff"
    assert b"set-cookie" not in headers_of(in_front)


def test_a_poll_of_another_version_method_or_host_is_djangos(django_requests):
    game = Game.start(["Ana", "Boris"])
    poll = f"/v/{game.view_token}/poll"
    run_async(answer(poll, f"v={game.version}"))
    known_by_the_reader("g" + game.view_token, game.version)
    # A phone behind: the changes, from Django.
    behind, body = run_async(answer(poll, f"v={game.version - 1}&shown=playing"))
    assert behind["status"] == 200 and b"Ana" in body
    # No version, or an odd one: Django's answer (the whole of what the page lacks).
    for odd in ("", "v=", f"v={game.version}x", f"v=0{game.version}0"):
        odd_answer, _ = run_async(answer(poll, odd + "&shown=playing"))
        assert odd_answer["status"] == 200, odd
    # A POST is Django's: refused by its CSRF check (no cookie, no token). A HEAD too.
    posted, _ = run_async(answer(poll, f"v={game.version}", method="POST"))
    assert posted["status"] == 403
    head, _ = run_async(answer(poll, f"v={game.version}", method="HEAD"))
    assert head["status"] == 405  # require_GET
    # A host Django refuses is refused, not answered here.
    with override_settings(ALLOWED_HOSTS=["rami.example"]):
        refused, _ = run_async(answer(poll, f"v={game.version}"))
    assert refused["status"] == 400
    assert len(django_requests) == 1 + 1 + 4 + 2 + 1
    # Plain HTTP where HTTPS is required: Django's to answer (its SecurityMiddleware, built
    # before this setting changed, would redirect it), never a 204 here.
    with override_settings(SECURE_SSL_REDIRECT=True):
        run_async(answer(poll, f"v={game.version}"))
        forwarded = ((b"x-forwarded-proto", b"http"),)
        run_async(answer(poll, f"v={game.version}", headers=forwarded))
    assert len(django_requests) == 1 + 1 + 4 + 2 + 1 + 2


def test_a_poll_of_an_unknown_game_is_djangos_404_logged_without_its_token(django_requests, caplog):
    token = "x" * 32
    poll = f"/v/{token}/poll"
    with caplog.at_level("WARNING", logger="django.request"):
        for _ in range(2):
            gone, body = run_async(answer(poll, "v=1"))
            assert gone["status"] == 404 and token.encode() not in body
    # Each time Django's, never read by the reader, and logged with the token masked.
    assert django_requests == [poll, poll]
    assert "g" + token not in reading.reader._followed
    lines = [JsonLinesFormatter().format(record) for record in caplog.records]
    assert len(lines) == 2 and all("/v/<token>/poll" in line for line in lines)
    assert not any(token in line for line in lines)


def test_a_pull_after_an_event_leaves_the_reader_as_it_was(client, django_requests):
    """A phone with a stream pulls only after an event (a 200): the reader does not take up
    its game for polls that will not come."""
    game = Game.start(["Ana", "Boris"])
    before = game.version
    saved = client.post(url("save", game.edit_token), round_post(0, {1: 7}))
    assert saved.status_code in (200, 303)
    pulled, body = run_async(answer(f"/g/{game.edit_token}/poll", f"v={before}&shown=playing"))
    assert pulled["status"] == 200 and b"7" in body
    assert "e" + game.edit_token not in reading.reader._followed


def test_a_poll_after_a_change_the_reader_has_read_gets_the_change(client, django_requests):
    game = Game.start(["Ana", "Boris"])
    poll, before = f"/g/{game.edit_token}/poll", game.version
    run_async(answer(poll, f"v={before}"))
    known_by_the_reader("e" + game.edit_token, before)
    saved = client.post(url("save", game.edit_token), round_post(0, {1: 7}))
    assert saved.status_code in (200, 303)
    game.refresh_from_db()
    known_by_the_reader("e" + game.edit_token, game.version)
    changed, body = run_async(answer(poll, f"v={before}&shown=playing"))
    assert changed["status"] == 200 and b"7" in body
    assert django_requests[-1] == poll
    # The next poll names the new version: answered in front again.
    count = len(django_requests)
    same, _ = run_async(answer(poll, f"v={game.version}&shown=playing"))
    assert same["status"] == 204 and len(django_requests) == count
