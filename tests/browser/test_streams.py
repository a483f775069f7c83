"""The live update pushed (scoring/live/, rami_site/asgi.py), on a real server and real
Chromium: scripts/serve (granian's ASGI server, DEBUG off, as `make run` starts it) on a free
port of 127.0.0.1 against the test database, as tests/test_worker_kill.py runs it.

A phone keeps one stream per page; an event carries the game's (or the table's) new version,
and the page then asks with its poll what it lacks. While the stream is open no poll runs on
the clock (counted here); a phone whose stream is refused polls every 2 s; a phone whose
stream breaks (the server restarted) gets it back and misses nothing.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from scoring.files import backup
from scoring.models import Game, Table
from scripts.throwaway_site import free_port
from tests.browser.conftest import PHONE, is_check, refuse_streams, until_held
from tests.browser.game_steps import choose_winner, save, type_value
from tests.conftest import Phone, round_post
from tests.links import url
from tests.test_two_servers import production_environment
from tests.test_worker_kill import start_serve, wait_until_healthy

pytestmark = [pytest.mark.django_db(transaction=True)]

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
# A page's stream is open once its first event has come (rami.js): well within a second here.
OPEN = 10_000
# While the server restarts, a page's requests fail: the browser says so in its console.
DOWN = re.compile(
    r"ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE|ERR_INCOMPLETE_CHUNKED_ENCODING"
    r"|status of 50[23]|^htmx:(afterRequest|sendError)"
)
# While a game is deleted, its polls are answered 404.
GONE = re.compile(r"status of 404|Error Code 404|^htmx:(afterRequest|responseError)")


class Served:
    """scripts/serve on a port of its own, started again on the same port by `restart`."""

    def __init__(self, tmp_path: Path, environment: dict, name: str = "a") -> None:
        self.environment = environment
        self.log = tmp_path / f"serve-{name}.log"
        self.port = free_port()
        self.process = self._start()

    def _start(self) -> subprocess.Popen:
        process = start_serve(self.port, self.environment, self.log)
        wait_until_healthy(process, self.port, self.log)
        return process

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)

    def restart(self) -> None:
        self.stop()
        self.process = self._start()


@pytest.fixture
def environment() -> dict:
    return production_environment(RAMI_NEW_GAMES_PER_MINUTE="1000")


@pytest.fixture
def served(tmp_path, environment) -> Iterator[Served]:
    server = Served(tmp_path, environment)
    yield server
    server.stop()


class Phones:
    """Browsers of their own (no shared cookies) on a server; each counts the polls it sends
    and fails the test on a script error or a console error (but those of a server that is
    down, while `down` is set)."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.contexts: list = []
        self.errors: list[str] = []
        self.down = False
        self.gone = False

    def open(self, base: str, path: str, before=None, **options) -> Page:
        """A page of `path` in a browser of its own; `before(page)` is called before it loads."""
        context = self.browser.new_context(base_url=base, **(options or PHONE))
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.polls = []
        page.checks = []
        page.pulls_asked = []  # the checks answered "pull" (200): the reader could not vouch
        page.polled_at = []  # time.monotonic() of each poll
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda message: self._console(message))
        page.on("request", lambda request: self._request(page, request))
        page.on("response", lambda response: self._response(page, response))
        if before:
            before(page)
        page.goto(path)
        return page

    @staticmethod
    def _request(page: Page, request) -> None:
        # The check of its version that a page without a stream sends on the clock
        # (/live/<key>/version), and a page's poll.
        if is_check(request.url):
            page.checks.append(request.url)
        if "/poll" in request.url:
            page.polls.append(request.url)
            page.polled_at.append(time.monotonic())

    @staticmethod
    def _response(page: Page, response) -> None:
        if is_check(response.url) and response.status == 200:
            page.pulls_asked.append(response.url)

    def _console(self, message) -> None:
        if message.type != "error" or message.location.get("url", "").endswith("/favicon.ico"):
            return
        if self.down and DOWN.search(message.text):
            return
        if self.gone and GONE.search(message.text):
            return
        self.errors.append(message.text)

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def phones(browser) -> Iterator[Phones]:
    opened = Phones(browser)
    yield opened
    opened.close()
    assert opened.errors == []


def stream_open(page: Page) -> None:
    expect(page.locator("html")).to_have_attribute("data-stream", "open", timeout=OPEN)


def type_round(page: Page, *points: int) -> None:
    """The first player went out; the others' hands are `points`: typed, not saved."""
    names = page.locator("#round-form .hand-name").all_text_contents()
    choose_winner(page, names[0])
    for name, value in zip(names[1:], points, strict=True):
        type_value(page, name, value)


def save_round(page: Page, *points: int) -> None:
    type_round(page, *points)
    save(page)


def totals(page: Page, *expected: int) -> None:
    expect(page.locator(".total .sum")).to_have_text([str(total) for total in expected])


def equals_a_fresh_page(page: Page) -> None:
    """The board of `page` is the board a fresh load of its link shows."""
    shown = page.locator("#scoreboard").inner_text()
    fresh = page.context.new_page()
    fresh.goto(page.url)
    assert fresh.locator("#scoreboard").inner_text() == shown
    fresh.close()


def test_a_round_saved_on_one_phone_reaches_the_others_through_their_streams(served, phones):
    game = Game.start(["Ana", "Boris", "Cyril"])
    saving = phones.open(served.url, url("game", game.edit_token))
    other = phones.open(served.url, url("game", game.edit_token))
    watching = phones.open(served.url, url("view", game.view_token), **LAPTOP)
    for page in (saving, other, watching):
        stream_open(page)
    # No poll on the clock while the stream is open: two of its ticks go by without one.
    for page in (saving, other, watching):
        page.polls.clear()
    watching.wait_for_timeout(4_500)
    assert [page.polls for page in (saving, other, watching)] == [[], [], []]

    save_round(saving, 20, 5)
    for page in (other, watching):
        totals(page, 0, 20, 5)
        # One pull for the one event, and nothing else.
        assert len(page.polls) == 1, page.polls
        equals_a_fresh_page(page)
    assert saving.polls == []


def test_a_phone_whose_stream_is_refused_polls_every_2_seconds_and_converges(served, phones):
    game = Game.start(["Ana", "Boris", "Cyril"])
    saving = phones.open(served.url, url("game", game.edit_token))
    behind_a_proxy = phones.open(served.url, url("view", game.view_token), before=refuse_streams)
    stream_open(saving)
    expect(behind_a_proxy.locator("html")).to_have_attribute("data-stream", "closed")
    behind_a_proxy.polls.clear()
    behind_a_proxy.checks.clear()
    behind_a_proxy.pulls_asked.clear()
    behind_a_proxy.wait_for_timeout(4_500)
    # Each tick checks the version at the stream's address; an unchanged game is no poll, but
    # where the check could not vouch for it (its reader had not read it lately, as on a busy
    # machine: "pull", and Django answers the poll).
    assert 2 <= len(behind_a_proxy.checks) <= 3, behind_a_proxy.checks
    assert len(behind_a_proxy.polls) <= len(behind_a_proxy.pulls_asked), behind_a_proxy.polls

    save_round(saving, 7, 11)
    totals(behind_a_proxy, 0, 7, 11)
    equals_a_fresh_page(behind_a_proxy)


def test_phones_get_their_streams_back_after_a_restart_and_miss_nothing(served, phones):
    game = Game.start(["Ana", "Boris", "Cyril"])
    saving = phones.open(served.url, url("game", game.edit_token))
    watching = phones.open(served.url, url("view", game.view_token))
    for page in (saving, watching):
        stream_open(page)
    save_round(saving, 3, 4)
    totals(watching, 0, 3, 4)

    phones.down = True
    stopped = time.monotonic()
    served.stop()
    for page in (saving, watching):
        expect(page.locator("html")).to_have_attribute("data-stream", "closed")
    closed = time.monotonic()
    served.restart()
    # Back within the stream's retry (2-6 s), each page told the current version at once.
    for page in (saving, watching):
        stream_open(page)
    # Meanwhile no poll on the clock: a broken stream is waited for (rami.js: 20 s), so that a
    # restart does not bring every phone's poll to the new server at once.
    for page in (saving, watching):
        assert [at for at in page.polled_at if stopped < at < closed + 15] == [], page.polls
    phones.down = False
    save_round(saving, 10, 2)
    totals(watching, 0, 13, 6)
    equals_a_fresh_page(watching)


def said_on(page: Page) -> None:
    """Every text the page's #page-notice shows, kept in window.notices_said as it is shown."""
    page.add_init_script(
        """
        window.notices_said = [];
        document.addEventListener("DOMContentLoaded", function () {
          var notice = document.getElementById("page-notice");
          var watched = {attributes: true, childList: true, characterData: true, subtree: true};
          new MutationObserver(function () {
            if (!notice.hidden && notice.textContent) window.notices_said.push(notice.textContent);
          }).observe(notice, watched);
        });
        """
    )


def test_every_page_says_when_the_server_is_away_and_when_it_is_back(served, phones):
    game = Game.start(["Ana", "Boris", "Cyril"])
    saving = phones.open(served.url, url("game", game.edit_token), before=said_on)
    watching = phones.open(served.url, url("view", game.view_token), before=said_on, **LAPTOP)
    for page in (saving, watching):
        stream_open(page)
        expect(page.locator("#page-notice")).to_be_hidden()

    phones.down = True
    served.stop()
    # A few seconds without the stream, and no page looks live any longer.
    for page in (saving, watching):
        expect(page.locator("#page-notice")).to_have_text(
            "The server is not answering just now: reconnecting…", timeout=10_000
        )
    # A round saved meanwhile: the phone is online, the server is what cannot be reached.
    type_round(saving, 3, 4)
    saving.get_by_role("button", name="Save round").click()
    expect(saving.locator("#round-notice")).to_have_text(
        "The save could not reach the server. Your round is kept here and is sent again every "
        "few seconds until the server answers."
    )
    served.restart()
    # "Connected to the server again." shows for 4 s (rami.js, BACK_SHOWN_MS): one page's may
    # come and go while the test waits for the other's, so each page's notices are read from
    # what it said (said_on), not caught on the screen.
    for page in (saving, watching):
        page.wait_for_function(
            "said => window.notices_said.includes(said)",
            arg="Connected to the server again.",
            timeout=20_000,
        )
    # The round typed while it was down is sent again by itself, and recorded once.
    totals(watching, 0, 3, 4)
    for page in (saving, watching):
        expect(page.locator("#page-notice")).to_be_hidden(timeout=10_000)
    phones.down = False
    assert Game.objects.get(pk=game.pk).rounds.count() == 1
    save_round(saving, 5, 6)
    totals(watching, 0, 8, 10)


def test_a_page_opened_on_an_old_version_is_told_the_current_one_at_once(served, phones):
    game = Game.start(["Ana", "Boris", "Cyril"])
    saving = phones.open(served.url, url("game", game.edit_token))
    # The watcher's page is drawn, then the round is saved before its stream is answered;
    # meanwhile its polls hear of nothing.
    held: list = []

    def hold_the_stream(page: Page) -> None:
        page.route(
            lambda address: "/live/" in address and not is_check(address),
            lambda route: held.append(route),
        )
        page.route(is_check, lambda route: route.fulfill(status=204))
        page.route("**/poll?*", lambda route: route.fulfill(status=204))

    watching = phones.open(served.url, url("view", game.view_token), before=hold_the_stream)
    until_held(watching, held)  # the page opened its stream
    save_round(saving, 8, 9)
    watching.unroute("**/poll?*")
    watching.unroute(is_check)
    watching.polls.clear()
    # The stream, opened with the page's version, sends the newer one at once: the page pulls.
    held[0].continue_()
    totals(watching, 0, 8, 9)
    assert len(watching.polls) == 1, watching.polls
    equals_a_fresh_page(watching)
    watching.unroute_all()


def test_a_tables_pages_follow_a_new_game_and_its_rounds(served, phones):
    table = Table.objects.create(name="Thursday")
    for name in ("Ana", "Boris", "Cyril"):
        table.add_member(name)
    table_page = phones.open(served.url, url("table", table.edit_token), **LAPTOP)
    watching = phones.open(served.url, url("table_view", table.view_token))
    for page in (table_page, watching):
        stream_open(page)
        expect(page.locator(".in-play")).to_have_count(0)
        # A part the reader unfolded stays open when a live update draws it again; one left
        # folded stays folded.
        page.locator("#table-history > summary").click()
        expect(page.locator("#table-history")).to_have_attribute("open", "")
    game = table.new_game(list(table.members.all()))
    for page in (table_page, watching):
        expect(page.locator(".in-play .table-game")).to_have_count(1)
        expect(page.locator("#table-history")).to_have_attribute("open", "")
        expect(page.locator("#games-played")).not_to_have_attribute("open", "")
    expect(watching.locator("#members")).not_to_have_attribute("open", "")
    playing = phones.open(served.url, url("game", game.edit_token))
    save_round(playing, 12, 30)
    for page in (table_page, watching):
        expect(page.locator(".in-play .player-total")).to_have_text(["0", "12", "30"])


def test_pages_left_open_on_a_deleted_game_say_so_and_follow_it_restored_from_a_backup(
    served, phones
):
    """A game deleted (by mistake, say) and restored from its backup: a new row with the same
    links. Every page left open on it, with a stream or polling, says that the game is not on
    the server while it is gone, and shows the restored game within 5 s of its return."""
    game = Game.start(["Ana", "Boris", "Cyril"])
    playing = phones.open(served.url, url("game", game.edit_token))
    save_round(playing, 20, 5)
    watching = phones.open(served.url, url("view", game.view_token), **LAPTOP)
    polling = phones.open(served.url, url("view", game.view_token), before=refuse_streams)
    for page in (playing, watching):
        stream_open(page)
    document = backup.backup_document(Game.objects.get(pk=game.pk))
    phones.gone = True
    Game.objects.filter(pk=game.pk).delete()
    for page in (playing, watching, polling):
        expect(page.locator("#page-notice")).to_be_visible(timeout=5_000)
        expect(page.locator("#page-notice")).to_have_text(
            re.compile("This game is not on the server")
        )
    restored = backup.restore(document)
    assert restored.pk != game.pk
    for page in (playing, watching, polling):
        expect(page.locator("#page-notice")).to_be_hidden(timeout=5_000)
        totals(page, 0, 20, 5)
    for page in (watching, polling):
        equals_a_fresh_page(page)
    # The phone that saved round 1 no longer says so, nor offers its Undo: the game was
    # restored since (a later version), and the round it would take back belonged to the
    # game as it was before.
    expect(playing.locator("#answer")).to_be_empty()
    phones.gone = False
    # The restored game goes on: a round saved on it reaches the pages left open.
    save_round(playing, 3, 4)
    for page in (watching, polling):
        totals(page, 0, 23, 9)


def test_watching_pages_show_every_round_saved_on_a_server_of_two_workers(served, phones):
    """A watch-only page holding its stream and one without a stream, on scripts/serve's two
    workers, while 30 rounds are saved: after each, both show it within a few seconds, whichever
    worker answers their pull (a pull answered in front of Django by a worker whose reader had
    not read the save yet once left a page a round behind for good, 4 times in 30 saves)."""
    game = Game.start(["Ana", "Boris", "Cyril", "Dana"])
    streaming = phones.open(served.url, url("view", game.view_token), **LAPTOP)
    polling = phones.open(served.url, url("view", game.view_token), before=refuse_streams)
    stream_open(streaming)
    expect(polling.locator("html")).to_have_attribute("data-stream", "closed")
    saving = Phone("127.0.0.1", served.port)
    saving.open(url("game", game.edit_token))
    for number in range(1, 31):
        winner = number % 4
        hands = {seat: 5 for seat in range(4) if seat != winner}
        assert saving.post(url("save", game.edit_token), round_post(winner, hands)).status == 303
        game.refresh_from_db()
        for page in (streaming, polling):
            expect(page.locator("#poller"), f"round {number}").to_have_attribute(
                "data-version", str(game.version), timeout=5_000
            )
    totals(streaming, *game.totals())
    equals_a_fresh_page(streaming)
    equals_a_fresh_page(polling)
