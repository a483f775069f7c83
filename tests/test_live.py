"""The live updates' stream and its reader (scoring/live/), without a server: the versions
read in one query whatever the number of streams, a change between two reads delivered, the
keys the pages hand out, and the stream as ASGI answers it (rami_site/asgi.py) and as the
Django view does under a WSGI server."""

from __future__ import annotations

import asyncio
import re
import threading
import time
import types

import pytest
from django.core.cache import caches
from django.db import connection, connections
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.files import backup
from scoring.live import answers
from scoring.live import reader as reading
from scoring.live import stream as streaming
from scoring.models import Game, Table
from scoring.views import poll as pull
from tests.conftest import round_post, run_async
from tests.links import url

# The signed key of a game or a table, as a page hands it out.
KEY = re.compile(r'data-live="/live/([^"?]+)\?v=(\d+)"')


def saved_round(client, game: Game) -> None:
    client.get(url("game", game.edit_token))
    answer = client.post(url("game", game.edit_token), round_post(0, {1: 5, 2: 7}))
    assert answer.status_code in (200, 303)


class Woken:
    """Counts the wake-ups of one watcher."""

    def __init__(self) -> None:
        self.times = 0

    def __call__(self) -> None:
        self.times += 1


@pytest.fixture
def reader() -> reading.Reader:
    """A reader that is read by the test (read_once), its thread never started."""
    reader = reading.Reader()
    reader.watch = lambda watched, wake: reader._wakes.setdefault(watched, set()).add(wake)
    return reader


def read_until_full(reader: reading.Reader) -> None:
    """Reads as the reader's thread does, every READ_EVERY, until a full read has been."""
    started = time.monotonic()
    while reader.full_at < started:
        reader.read_once()
        time.sleep(reader.every)


def test_the_reader_reads_every_watched_version_in_one_query(db, reader):
    games = [Game.start(["Ana", "Boris", "Cyril"]) for _ in range(40)]
    table = Table.objects.create(name="Thursday")
    for game in games:
        for _ in range(3):  # three phones on each game
            reader.watch(f"g{game.view_token}", Woken())
    reader.watch(f"t{table.view_token}", Woken())
    with CaptureQueriesContext(connection) as queries:
        reader.read_once()
    assert len(queries) == 1
    assert reader.known == {
        **{f"g{game.view_token}": game.version for game in games},
        f"t{table.view_token}": table.version,
    }


def test_the_games_and_tables_checked_lately_are_read_with_the_watched_ones(
    db, client, reader, monkeypatch
):
    """A game or table whose version a page checks (scoring/live/check.py) is read with the
    streams' games in the same query, and known as fresh, until no page has checked it for
    FOLLOW_FOR seconds."""
    watched, checked = Game.start(["Ana", "Boris"]), Game.start(["Cyril", "Dana"])
    table = Table.start("Tuesdays", ["Eva", "Filip"])
    reader.watch(f"g{watched.view_token}", Woken())
    reader._start = lambda: None  # read by the test
    reader.follow(f"g{checked.view_token}")
    reader.follow(f"t{table.view_token}")
    with CaptureQueriesContext(connection) as queries:
        reader.read_once()
    assert len(queries) == 1
    assert reader.fresh(f"g{checked.view_token}") == checked.version
    assert reader.fresh(f"g{watched.view_token}") == watched.version
    # A table that has had no change yet is at version 0, and is there.
    assert reader.fresh(f"t{table.view_token}") == table.version == 0
    saved_round(client, checked)
    checked.refresh_from_db()
    reader.read_once()
    assert reader.fresh(f"g{checked.view_token}") == checked.version
    # Not checked again: no longer read, and not known.
    monkeypatch.setattr(reading, "FOLLOW_FOR", 0.0)
    reader.follow(f"g{checked.view_token}")
    time.sleep(0.01)
    reader.read_once()
    assert reader.fresh(f"g{checked.view_token}") is None
    assert reader.fresh(f"g{watched.view_token}") == watched.version
    # A reader that has not read for a while knows nothing fresh (the database away).
    reader.read_at -= reading.FRESH_FOR
    assert reader.fresh(f"g{watched.view_token}") is None


def test_a_change_between_two_reads_wakes_its_streams_once(db, client, reader):
    game = Game.start(["Ana", "Boris", "Cyril"])
    other = Game.start(["Dana", "Eva", "Filip"])
    phones, elsewhere = Woken(), Woken()
    reader.watch(f"g{game.view_token}", phones)
    reader.watch(f"g{other.view_token}", elsewhere)
    reader.read_once()
    assert (phones.times, elsewhere.times) == (1, 1)  # the first read: each stream's version
    saved_round(client, game)
    reader.read_once()
    game.refresh_from_db()
    assert reader.known[f"g{game.view_token}"] == game.version
    assert (phones.times, elsewhere.times) == (2, 1)
    reader.read_once()
    assert (phones.times, elsewhere.times) == (2, 1)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="make test-postgres runs it")
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_saved_round_wakes_the_reader_before_its_tick(client):
    """PostgreSQL notifies the reader at the commit of a version that moved: the reader reads
    at once, not at its next tick (30 s here)."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    reader = reading.Reader(every=30.0)
    woken = threading.Event()
    reader.watch(f"g{game.view_token}", woken.set)
    try:
        assert woken.wait(10)  # the first read: the version the stream starts with
        woken.clear()
        listening_by = time.monotonic() + 10
        while reader._listening is None and time.monotonic() < listening_by:
            time.sleep(0.01)
        saved = time.monotonic()
        saved_round(client, game)
        assert woken.wait(10)
        assert time.monotonic() - saved < 5
        game.refresh_from_db()
        assert reader.known[f"g{game.view_token}"] == game.version
    finally:
        reader.unwatch(f"g{game.view_token}", woken.set)
        reader.stop()


def test_a_tables_version_moves_with_a_new_game_and_its_rounds(db, client):
    table = Table.objects.create(name="Thursday")
    members = [table.add_member(name) for name in ("Ana", "Boris", "Cyril")]
    before = reading.table_version(table)
    game = table.new_game(members)
    with_game = reading.table_version(table)
    assert with_game > before
    saved_round(client, game)
    game.refresh_from_db()
    assert reading.table_version(table) == game.version > with_game
    assert reading.versions([f"t{table.view_token}", f"g{game.view_token}", "g" + "x" * 32]) == {
        f"t{table.view_token}": game.version,
        f"g{game.view_token}": game.version,
    }
    # A page drawn before the keys named a token watches by id (one release).
    assert reading.versions([f"t{table.pk}", f"g{game.pk}", "g999999"]) == {
        f"t{table.pk}": game.version,
        f"g{game.pk}": game.version,
    }
    # Both in one read (PostgreSQL unites a token's rows with an id's only when typed alike).
    assert reading.versions([f"t{table.view_token}", f"g{game.pk}"]) == {
        f"t{table.view_token}": game.version,
        f"g{game.pk}": game.version,
    }


def test_stopping_the_reader_while_a_request_starts_its_thread_never_fails(monkeypatch):
    # The end of a test stops the reader while a live server's thread may still be serving a
    # version check, whose follow() starts the reader's thread: here it does so while the stop
    # wakes the streams. The stop joins only a thread that has started (it once took the one
    # being made, and failed: "cannot join thread before it is started").
    naming = threading.Event()

    class SlowToStart(threading.Thread):
        def start(self) -> None:
            naming.set()
            time.sleep(0.2)
            super().start()

    # Only the reader's module makes the slow thread.
    monkeypatch.setattr(
        reading,
        "threading",
        types.SimpleNamespace(Thread=SlowToStart, Lock=threading.Lock, Event=threading.Event),
    )
    reader = reading.Reader(read=lambda watched: {}, every=0.01, idle_after=0.05)
    request = threading.Thread(target=reader.follow, args=("gsome-token",))

    def woken_stream() -> None:  # a stream ends; meanwhile a page checks its version
        if request.ident is None:
            request.start()
            assert naming.wait(5)

    reader._wakes["gother-token"] = {woken_stream}  # a stream that will not end: 0.5 s
    reader.stop(timeout=0.5)
    request.join(5)
    reader._wakes.clear()
    reader.stop(timeout=5)
    assert not reader._thread or not reader._thread.is_alive()


def test_a_stream_opens_only_with_a_key_the_site_handed_out():
    token = "A" * 31 + "b"
    key = streaming.key_for("g", token)
    assert streaming.watched_by(key) == f"g{token}"
    assert streaming.watched_by(streaming.key_for("t", token)) == f"t{token}"
    assert streaming.watched_by(key.replace(token, "A" * 32)) is None
    assert streaming.watched_by(key[:-1] + ("A" if key[-1] != "A" else "B")) is None
    assert streaming.watched_by(f"g{token}") is None
    # The keys of pages drawn before (one release): by id.
    assert streaming.watched_by(streaming.key_for("g", "12")) == "g12"


def test_pages_hand_out_their_streams_key_and_version(db, client):
    game = Game.start(["Ana", "Boris", "Cyril"])
    for link in (url("game", game.edit_token), url("view", game.view_token)):
        key, version = KEY.search(client.get(link).content.decode()).groups()
        assert (streaming.watched_by(key), int(version)) == (f"g{game.view_token}", game.version)
    table = Table.objects.create(name="Thursday")
    for link in (url("table", table.edit_token), url("table_view", table.view_token)):
        key, version = KEY.search(client.get(link).content.decode()).groups()
        assert (streaming.watched_by(key), int(version)) == (
            f"t{table.view_token}",
            reading.table_version(table),
        )


def test_a_tables_live_update_is_204_while_nothing_moved(db, client):
    table = Table.objects.create(name="Thursday")
    members = [table.add_member(name) for name in ("Ana", "Boris", "Cyril")]
    version = reading.table_version(table)
    htmx = {"HTTP_HX_REQUEST": "true"}
    assert (
        client.get(url("table_view", table.view_token) + f"?v={version}", **htmx).status_code == 204
    )
    table.new_game(members)
    answer = client.get(url("table_view", table.view_token) + f"?v={version}", **htmx)
    assert answer.status_code == 200
    assert 'id="table-now"' in answer.content.decode()


def test_the_pages_may_connect_to_this_site_only(db, client):
    policy = client.get("/").headers["Content-Security-Policy"]
    assert "connect-src 'self'" in policy


# The stream itself, as the ASGI route answers it (no server: its messages collected here).


class Asgi:
    """One request to streaming.asgi_stream: what it sent, and the phone going away (`leave`)."""

    def __init__(self, path: str, query: str = "", headers: list | None = None, method="GET"):
        self.scope = {
            "type": "http",
            "method": method,
            "path": path,
            "query_string": query.encode(),
            "headers": headers or [],
        }
        self.sent: list[dict] = []
        self.gone = asyncio.Event()

    async def receive(self) -> dict:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict) -> None:
        self.sent.append(message)

    def leave(self) -> None:
        self.gone.set()

    @property
    def body(self) -> str:
        return b"".join(m.get("body", b"") for m in self.sent[1:]).decode()

    async def until(self, text: str, seconds: float = 5.0) -> None:
        async with asyncio.timeout(seconds):
            while text not in self.body:
                await asyncio.sleep(0.005)


@pytest.fixture
def fake_reader(monkeypatch):
    """The module's reader, reading versions from a dict every 10 ms instead of the database."""
    versions: dict[str, int] = {}
    reader = reading.Reader(
        read=lambda watched: {k: versions[k] for k in watched if k in versions},
        every=0.01,
        idle_after=0.05,
    )
    monkeypatch.setattr(reading, "reader", reader)
    yield versions, reader
    reader.stop()


def test_the_stream_sends_the_current_version_at_once_then_each_move(fake_reader):
    versions, reader = fake_reader
    versions["g7"] = 100

    async def phone() -> Asgi:
        request = Asgi(f"/live/{streaming.key_for('g', 7)}", "v=90")
        stream = asyncio.ensure_future(
            streaming.asgi_stream(request.scope, request.receive, request.send)
        )
        await request.until("data: 100\n\n")
        versions["g7"] = 105
        await request.until("id: 105\nevent: version\ndata: 105\n\n")
        request.leave()
        await asyncio.wait_for(stream, 5)
        return request

    request = run_async(phone())
    start = request.sent[0]
    assert start["status"] == 200
    assert dict(start["headers"]) == {
        b"content-type": b"text/event-stream; charset=utf-8",
        b"cache-control": b"no-cache",
        b"x-accel-buffering": b"no",
    }
    retry = int(re.match(r"retry: (\d+)\n\n", request.body).group(1))
    assert 2000 <= retry <= 6000
    assert request.body.count("event: version") == 2
    # The phone gone, the reader watches nothing more.
    assert reader._wakes == {}


def test_a_reconnecting_stream_is_told_only_what_is_newer_than_its_last_event(fake_reader):
    versions, _reader = fake_reader
    versions["t3"] = 200

    async def phone(last: str) -> str:
        request = Asgi(
            f"/live/{streaming.key_for('t', 3)}",
            "v=150",
            headers=[(b"last-event-id", last.encode())],
        )
        stream = asyncio.ensure_future(
            streaming.asgi_stream(request.scope, request.receive, request.send)
        )
        await request.until("data: 200\n\n")  # the first event, to say the stream works
        versions["t3"] = 200  # no move
        await asyncio.sleep(0.1)
        versions["t3"] = 230
        await request.until("data: 230\n\n")
        request.leave()
        await asyncio.wait_for(stream, 5)
        return request.body

    body = run_async(phone("200"))
    assert body.count("event: version") == 2


def test_a_quiet_stream_beats_and_ends_after_its_lifetime(fake_reader, monkeypatch):
    versions, reader = fake_reader
    versions["g7"] = 100
    monkeypatch.setattr(streaming, "HEARTBEAT", 0.05)
    monkeypatch.setattr(streaming, "LIFETIME", 0.5)
    monkeypatch.setattr(streaming, "LIFETIME_SPREAD", 0.0)

    async def phone() -> Asgi:
        request = Asgi(f"/live/{streaming.key_for('g', 7)}", "v=100")
        await asyncio.wait_for(
            streaming.asgi_stream(request.scope, request.receive, request.send), 5
        )
        return request

    request = run_async(phone())
    assert request.body.count(": \n\n") >= 3
    assert request.sent[-1] == {"type": "http.response.body", "body": b""}
    assert reader._wakes == {}


def test_streams_under_granian_wait_without_a_task_of_their_own(fake_reader):
    """granian's `receive` hands a future (not a coroutine): the streams read the phone's going
    away from it, and wait for their wake-ups, with no task besides the one that runs them."""
    versions, reader = fake_reader
    versions["g7"] = 100

    async def phones() -> list[Asgi]:
        loop = asyncio.get_running_loop()
        requests, leaving = [], []
        for _ in range(20):
            request = Asgi(f"/live/{streaming.key_for('g', 7)}", "v=90")
            gone = loop.create_future()
            messages = iter([{"type": "http.request", "body": b"", "more_body": False}])

            def receive(messages=messages, gone=gone):
                answer = loop.create_future()
                message = next(messages, None)
                if message is None:
                    return gone
                answer.set_result(message)
                return answer

            requests.append(request)
            leaving.append(gone)
            request.task = asyncio.ensure_future(
                streaming.asgi_stream(request.scope, receive, request.send)
            )
        before = len(asyncio.all_tasks())
        for request in requests:
            await request.until("data: 100\n\n")
        versions["g7"] = 105
        for request in requests:
            await request.until("data: 105\n\n")
        assert len(asyncio.all_tasks()) == before  # no task was started meanwhile
        for gone in leaving:
            gone.set_result({"type": "http.disconnect"})
        await asyncio.wait_for(asyncio.gather(*(r.task for r in requests)), 5)
        return requests

    for request in run_async(phones()):
        assert request.body.count("event: version") == 2
        assert request.sent[-1]["more_body"] is True  # gone: no last chunk sent to nobody
    assert reader._wakes == {}


def test_a_key_not_handed_out_or_a_post_is_refused(fake_reader):
    async def ask(path: str, method: str = "GET") -> int:
        request = Asgi(path, method=method)
        await streaming.asgi_stream(request.scope, request.receive, request.send)
        return request.sent[0]["status"]

    assert run_async(ask("/live/g7:forged")) == 404
    assert run_async(ask(f"/live/{streaming.key_for('g', 7)}", "POST")) == 405


def test_the_view_for_wsgi_servers_streams_the_same_uncompressed(db, client):
    game = Game.start(["Ana", "Boris", "Cyril"])
    answer = client.get(
        f"/live/{streaming.key_for('g', game.view_token)}?v=1", HTTP_ACCEPT_ENCODING="gzip, br"
    )
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/event-stream; charset=utf-8"
    assert answer["Cache-Control"] == "no-cache"
    assert not answer.has_header("Content-Encoding")
    assert next(iter(answer.streaming_content)).startswith(b"retry: ")
    answer.close()
    assert client.get("/live/g1:forged").status_code == 404


# The answers the phones of a table share after a save (answers.SharedAnswers, pull.poll).


def test_the_shared_answers_keep_the_latest_and_none_too_big(settings):
    settings.CACHES = {
        **settings.CACHES,
        "few-answers": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "few-answers",
            "OPTIONS": {"MAX_ENTRIES": 10, "CULL_FREQUENCY": 10},
        },
    }
    kept = answers.SharedAnswers(alias="few-answers", max_bytes=5_000)
    for number in range(50):
        kept.keep(("g", number), HttpResponse(b"x" * 1_000))
    assert kept.get(("g", 49)) == b"x" * 1_000  # the latest are kept
    assert kept.get(("g", 0)) is None  # the oldest gone first
    assert sum(kept.get(("g", number)) is not None for number in range(50)) <= 10
    kept.keep(("g", "big"), HttpResponse(b"x" * 20_000))  # larger than the bound: not kept
    assert kept.get(("g", "big")) is None
    kept.keep(("g", "form"), HttpResponse(b"<input name=csrfmiddlewaretoken>"))
    assert kept.get(("g", "form")) is None


def test_a_poll_with_a_huge_query_keeps_a_small_key_and_shares_one_answer(client, db):
    """Values no page sends (a 50 KB `rounds=`, odd numbers) are read as the poll reads them:
    none of them makes the key bigger, and two polls read alike share one answer."""
    answers.shared_answers.clear()
    game = Game.start(["Ana", "Boris", "Cyril"])
    saved_round(client, game)
    seen = Game.objects.get(pk=game.pk).version
    saved_round(client, game)
    poll = url("view_poll", game.view_token)
    first = client.get(poll, {"v": seen, "shown": "playing", "rounds": "x" * 50_000})
    second = client.get(poll, {"v": f" {seen} ", "shown": "playing", "rounds": "y"})
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    kept = caches["answers"]
    assert len(kept._cache) == 1  # one answer kept, which both polls were sent


@pytest.mark.django_db(transaction=True)
def test_the_phones_of_a_table_asking_at_once_get_one_answer_drawn_once(client, monkeypatch):
    """Woken together by their streams, the other phones of a table ask for the same answer
    within a few milliseconds: one thread draws it, the others wait for it and are sent it."""
    answers.shared_answers.clear()
    game = Game.start(["Ana", "Boris", "Cyril"])
    saved_round(client, game)
    seen = Game.objects.get(pk=game.pk).version
    saved_round(client, game)
    drawn = []
    draw = pull._changes

    def slowly_drawn(*args, **kwargs):
        drawn.append(threading.current_thread().name)
        time.sleep(0.3)  # the others ask meanwhile
        return draw(*args, **kwargs)

    monkeypatch.setattr(pull, "_changes", slowly_drawn)
    poll = url("poll", game.edit_token)
    asked = {"v": seen, "shown": "playing", "typing": ""}
    sent: dict[int, tuple[int, bytes]] = {}

    def phone(number: int) -> None:
        answer = Client().get(poll, asked, headers={"HX-Request": "true"})
        sent[number] = (answer.status_code, answer.content)
        connections.close_all()

    phones = [threading.Thread(target=phone, args=(number,)) for number in range(3)]
    for each in phones:
        each.start()
    for each in phones:
        each.join(timeout=20)
    assert len(drawn) == 1
    assert [status for status, _body in sent.values()] == [200, 200, 200]
    assert len({body for _status, body in sent.values()}) == 1
    assert b"Ana" in sent[0][1]


def test_a_stream_says_once_that_its_game_is_gone_and_tells_its_version_when_it_is_back(
    fake_reader,
):
    """A game deleted, then restored from a backup (a new row, the same tokens, a version
    above every earlier one): its streams stay open, say it is gone, then tell the version."""
    versions, _reader = fake_reader
    versions["g7"] = 100

    async def phone() -> Asgi:
        request = Asgi(f"/live/{streaming.key_for('g', 7)}", "v=100")
        stream = asyncio.ensure_future(
            streaming.asgi_stream(request.scope, request.receive, request.send)
        )
        await request.until("data: 100\n\n")
        del versions["g7"]
        await request.until("event: gone\n")
        await asyncio.sleep(0.1)  # read again and again: said once
        versions["g7"] = 900
        await request.until("data: 900\n\n")
        request.leave()
        await asyncio.wait_for(stream, 5)
        return request

    body = run_async(phone()).body
    assert body.count("event: gone\ndata: gone\n\n") == 1
    assert body.index("event: gone") < body.index("id: 900\nevent: version\ndata: 900\n\n")


def test_the_reader_finds_a_restored_game_by_its_token(db, reader):
    game = Game.start(["Ana", "Boris", "Cyril"])
    document = backup.backup_document(game)
    woken = Woken()
    reader.watch(f"g{game.view_token}", woken)
    reader.read_once()
    game.delete()
    read_until_full(reader)  # only a full read finds what went
    assert reader.known[f"g{game.view_token}"] == reading.GONE
    restored = backup.restore(document)
    reader.read_once()
    assert reader.known[f"g{game.view_token}"] == restored.version > game.version
    assert woken.times == 3


def test_a_new_tables_stream_tells_its_version_not_that_it_is_gone(db, reader, monkeypatch):
    """A table with no game and no change yet is at version 0: its stream tells it, where it
    said "gone" and its page said the table was not on the server."""
    table = Table.start("Tuesdays", ["Ana", "Boris"])
    assert table.version == 0
    monkeypatch.setattr(reading, "reader", reader)
    reader._start = lambda: None  # read by the test, before the stream opens
    reader.follow(f"t{table.view_token}")
    reader.read_once()

    async def phone() -> Asgi:
        request = Asgi(f"/live/{streaming.key_for('t', table.view_token)}", "v=0")
        stream = asyncio.ensure_future(
            streaming.asgi_stream(request.scope, request.receive, request.send)
        )
        await request.until("data: 0\n\n")
        request.leave()
        await asyncio.wait_for(stream, 5)
        return request

    body = run_async(phone()).body
    assert "event: gone" not in body
    assert "id: 0\nevent: version\ndata: 0\n\n" in body
