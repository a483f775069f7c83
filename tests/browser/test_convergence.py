"""Every watching phone ends up showing what a fresh load of its link shows, whatever crossed.

Three writer threads change one game through the model methods (rounds saved as a phone's form
posts them, edited, deleted, restored, undone; players renamed, leaving, joining) in bursts,
while three watching phones follow it live, one on a slow network so that its pulls cross the
changes. After each burst, with the writers stopped, each watcher is compared with a fresh page
of its link: no row lost or twice, no old count, name or total. A save recorded twice, a 5xx or
a script error on a watcher (htmx:oobErrorNoTarget: a row the page lost) fails the test too.
RAMI_CONVERGENCE_SECONDS (default 60) is how long it runs; `-s` shows the figures."""

import contextlib
import itertools
import math
import os
import random
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple
from urllib.parse import urlsplit

import pytest
from django.db import OperationalError, connection
from django.test import Client
from playwright.sync_api import BrowserContext, CDPSession, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from scoring import rules
from scoring.models import Game, GameEvent, Hand, Round
from tests.browser.conftest import PHONE
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ["Ana", "Boris", "Cyril", "Dana"]
# Far beyond what the run adds up to (a few thousand points at most), so the game never ends:
# a finished game takes no new round, and its page is another page.
TARGET = 10_000
# More than the 8 rounds the page shows (Scoreboard.SHOWN_ROUNDS): the table folds from the
# start, with "Show all N rounds" under it.
SEED_ROUNDS = 10
WRITERS = 3
# A phone polls every 2 s; a slow one takes a round trip longer. Three ticks is plenty.
POLL_WAIT_MS = 6_000
# The slow phone's network: every request and every answer waits this long.
SLOW_LATENCY_MS = 300
SEED = int(os.environ.get("RAMI_CONVERGENCE_SEED", "20240601"))


def run_seconds() -> float:
    return float(os.environ.get("RAMI_CONVERGENCE_SECONDS", "60"))


# The writers: each change is made as a phone makes it, through the model methods, on the game
# as it is in the database just then. An outcome is "done", "refused: <code>" (overtaken by
# another writer's change, as a phone's form can be: the model refuses it, which is fine) or
# "nothing to do".

CARDS = ["AS", "KH", "QD", "JC", "10S", "9H", "8D", "7C", "5S", "3H", "JK", "2D"]


def random_entry(
    rng: random.Random, playing: tuple[int, ...] = tuple(range(len(NAMES))), seats: int = 0
) -> rules.RoundEntry:
    """A valid round of the players at `playing` (a game of `seats` seats; None for the
    others) with small hands: mostly someone went out, sometimes nobody (blocked); a hand is a
    typed value or a few cards (never more copies than the deck has), and now and then a loser
    never opened."""
    cards = rng.sample(CARDS, len(CARDS))
    seats = max(seats, max(playing) + 1)

    def loser_hand() -> rules.Hand:
        opened = rng.random() > 0.1
        if rng.random() < 0.3:
            return rules.Hand(cards=(cards.pop(), cards.pop()), opened=opened)
        return rules.Hand(value=rng.randint(2, 15), opened=opened)

    winner = None if rng.random() < 0.1 else rng.choice(playing)
    hands = tuple(
        None if seat not in playing else rules.Hand() if seat == winner else loser_hand()
        for seat in range(seats)
    )
    return rules.RoundEntry(hands, winner=winner)


def entry_now(game: Game, rng: random.Random) -> rules.RoundEntry:
    """A round of the players playing the game now."""
    playing = tuple(player.seat for player in game.playing)
    return random_entry(rng, playing, len(game.seated_players))


def random_round_as_seen(game: Game, rng: random.Random, latest: int | None = None) -> Round | None:
    """A round of the game (or of its `latest` rounds) as a phone's form carries it (id,
    number, revision), read just before the change; None when there is none."""
    seen = list(game.rounds.order_by("-number").values_list("pk", "number", "revision"))
    seen = seen[:latest]
    if not seen:
        return None
    pk, number, revision = rng.choice(seen)
    return Round(pk=pk, number=number, revision=revision)


def save_round(game_pk: int, rng: random.Random, phone: str) -> str:
    game = Game.objects.get(pk=game_pk)
    game.record_round(entry_now(game, rng), for_round=None, phone=phone)
    return "done"


def round_form_data(entry: rules.RoundEntry, for_round: int, key: str) -> dict:
    """What the round form posts for `entry`, drawn for round `for_round` with `key`, for the
    players who play it."""
    data = {
        "action": "save",
        "winner": "blocked" if entry.winner is None else str(entry.winner),
        "for_round": str(for_round),
        "key": key,
        "players": " ".join(str(seat) for seat in entry.playing),
    }
    for seat, hand in enumerate(entry.hands):
        if seat == entry.winner or hand is None:
            continue
        if hand.cards:
            data[f"cards_{seat}"] = " ".join(hand.cards)
        else:
            data[f"value_{seat}"] = str(hand.value)
        if not hand.opened:
            data[f"not_opened_{seat}"] = "on"
    return data


def save_round_as_a_phone(game_pk: int, rng: random.Random, phone: str) -> str:
    """A round typed on a phone whose form was drawn a moment ago, posted as the round form
    posts it (the round it was drawn for, its key) after the other writers may have saved,
    deleted, restored or undone rounds meanwhile: recorded once, even when sent again (its
    answer lost), or refused with a 409 that keeps the round typed; never a 5xx (the view's
    error would be raised here)."""
    game = Game.objects.get(pk=game_pk)
    for_round = game.rounds.count() + 1
    key = secrets.token_urlsafe(16)
    data = round_form_data(entry_now(game, rng), for_round, key)
    time.sleep(rng.uniform(0, 0.3))  # typing, while the others change the game
    phone_client = Client()
    address = url("game", game.edit_token)
    answer = phone_client.post(address, data)
    if answer.status_code == 503:  # the database's lock held past its timeout: nothing saved
        return "database busy"
    recorded = GameEvent.objects.filter(game_id=game_pk, key=key)
    if answer.status_code == 303:
        assert recorded.count() == 1, "a save answered as recorded is in the history once"
        again = phone_client.post(address, data)
        # Recorded once; a 409 when another writer deleted that round in between (its save is
        # in the history, and nothing is recorded again).
        assert again.status_code in (303, 409, 503), again.status_code
        assert recorded.count() == 1, "the same form sent twice is recorded once"
        return "done"
    assert answer.status_code in (200, 409), answer.status_code
    assert not recorded.exists(), "a save not answered as recorded records nothing"
    if answer.status_code == 200:
        assert "just as you typed it" in answer.content.decode()
        return "saved elsewhere"
    page = read(answer)
    # Everything typed is kept for the players the form now shows (one may have left, or
    # joined, on another phone meanwhile: the form is then for those playing now).
    shown = page.one("#round-form [name=players]").get("value").split()
    kept = {
        name: page.one(f"#round-form [name={name}]").get("value")
        for name in data
        if name.startswith(("value_", "cards_")) and name.rsplit("_", 1)[1] in shown
    }
    assert kept == {name: value for name, value in data.items() if name in kept}, "the round kept"
    return "refused: 409"


def edit_round(game_pk: int, rng: random.Random, phone: str, latest: int | None = None) -> str:
    """Edit a round, or one of the `latest` rounds."""
    game = Game.objects.get(pk=game_pk)
    seen = random_round_as_seen(game, rng, latest)
    if seen is None:
        return "nothing to do"
    # The round's own players (an edit keeps who played it).
    hands = Hand.objects.filter(round_id=seen.pk)
    played = tuple(sorted(hands.values_list("player__seat", flat=True)))
    if not played:  # deleted by another writer meanwhile: refused as the model refuses it
        return "refused: round_gone"
    game.edit_round(seen, random_entry(rng, played, len(game.seated_players)), phone)
    return "done"


def edit_latest_round(game_pk: int, rng: random.Random, phone: str) -> str:
    # What a table edits most: the round just saved, or the one before, put right.
    return edit_round(game_pk, rng, phone, latest=2)


def delete_round(game_pk: int, rng: random.Random, phone: str) -> str:
    game = Game.objects.get(pk=game_pk)
    seen = random_round_as_seen(game, rng)
    if seen is None:
        return "nothing to do"
    game.delete_round(seen, phone)
    return "done"


def restore_round(game_pk: int, rng: random.Random, phone: str) -> str:
    """The latest deletion not yet undone, brought back from the history: as an extra round
    when its place has been filled (the history's confirmation), half of the time."""
    game = Game.objects.get(pk=game_pk)
    deletions = game.events.filter(kind=GameEvent.Kind.DELETED, restored=False)
    deletion = deletions.order_by("-pk").first()
    if deletion is None:
        return "nothing to do"
    extra = game.rounds.count() + 1 if rng.random() < 0.5 else None
    game.restore_round(deletion, phone, as_round=extra)
    return "done"


def undo(game_pk: int, rng: random.Random, phone: str) -> str:
    """The Undo of the latest change to the rounds, tapped on this phone: refused unless this
    phone made it."""
    game = Game.objects.get(pk=game_pk)
    latest = game.events.filter(kind__in=GameEvent.UNDOABLE).order_by("-pk").first()
    if latest is None:
        return "nothing to do"
    game.undo(latest, phone)
    return "done"


_fresh_names = itertools.count(1)


def rename_player(game_pk: int, rng: random.Random, phone: str) -> str:
    # A name no player has had: a rename is never refused as a duplicate, and always shows.
    name = f"P{next(_fresh_names)}"
    game = Game.objects.get(pk=game_pk)
    game.rename_players({rng.randrange(len(game.seated_players)): name}, phone=phone)
    return "done"


# At most this many seats: a long run's joins (each a new seat) stay a round table a phone
# shows.
MOST_SEATS = 9


def leave(game_pk: int, rng: random.Random, phone: str) -> str:
    """A player playing leaves (refused when two play, or one who has not played a round)."""
    game = Game.objects.get(pk=game_pk)
    game.leave(rng.choice(game.playing).seat, phone=phone)
    return "done"


def join(game_pk: int, rng: random.Random, phone: str) -> str:
    """A new player joins, after a player playing, with the default start or one typed."""
    game = Game.objects.get(pk=game_pk)
    if len(game.seated_players) >= MOST_SEATS:
        return "nothing to do"
    start = None if rng.random() < 0.7 else rng.randint(0, 200)
    game.join(f"J{next(_fresh_names)}", rng.choice(game.playing).seat, start, phone=phone)
    return "done"


class Action(NamedTuple):
    change: Callable[[int, random.Random, str], str]
    # How often a writer picks it, against the others' weights.
    weight: int


# Every change a writer may make. Saves (most of them as a phone's round form posts them, from
# a form drawn a moment before) and deletions are even here (the restores bring some rounds
# back): the game grows mostly while only rounds are saved (PHASES), some ten rounds a burst.
# A long run may reach rules.MAX_ROUNDS; a save is then refused, which is fine.
ACTIONS: dict[str, Action] = {
    "save": Action(save_round, 1),
    "save as a phone": Action(save_round_as_a_phone, 3),
    "edit": Action(edit_round, 2),
    "edit latest": Action(edit_latest_round, 1),
    "delete": Action(delete_round, 3),
    "restore": Action(restore_round, 1),
    "undo": Action(undo, 2),
    "rename": Action(rename_player, 1),
    "leave": Action(leave, 1),
    "join": Action(join, 1),
}


class Phase(NamedTuple):
    name: str
    seconds: float
    actions: tuple[str, ...]
    # The most a writer sleeps between two changes.
    max_pause: float


# A burst of changes, in two phases. First every kind of change, fast: three writers make more
# than ten changes a second, and a change often lands within a few ms of some phone's poll.
# Then, as a table plays, only rounds saved, the latest ones put right, deleted and undone, a
# few a second: a rename or a finished game makes the next poll send the whole board, which
# would hide what went wrong before; changes to the rounds alone are sent as the #changes part
# (Game.changes_since), and that path is what the phones have last followed when the writers
# stop.
PHASES = (
    Phase("every change", 5.0, tuple(ACTIONS), max_pause=0.3),
    Phase("rounds", 4.0, ("save as a phone", "edit latest", "delete", "undo"), max_pause=1.5),
)
BURST_SECONDS = sum(phase.seconds for phase in PHASES)


@dataclass
class Writers:
    """The writer threads, phase after phase: what came of each change, and every error that
    is neither a change refused nor the database busy for too long."""

    game_pk: int
    outcomes: Counter = field(default_factory=Counter)
    errors: list[BaseException] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, burst: int, phase: Phase) -> None:
        """The changes of `phase`, for its time, in WRITERS threads."""
        deadline = time.monotonic() + phase.seconds
        threads = [
            threading.Thread(
                target=self._write,
                args=(
                    random.Random(f"{SEED}/{burst}/{phase.name}/{i}"),
                    deadline,
                    phase,
                    f"writer-{i}",
                ),
            )
            for i in range(WRITERS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            # A change waits for the game's lock at most the database's timeout (20 s).
            thread.join(timeout=phase.seconds + 60)
        assert not any(thread.is_alive() for thread in threads), "a writer did not stop"

    def _write(self, rng: random.Random, deadline: float, phase: Phase, phone: str) -> None:
        names = list(phase.actions)
        weights = [ACTIONS[name].weight for name in names]
        try:
            while time.monotonic() < deadline:
                name = rng.choices(names, weights)[0]
                try:
                    outcome = ACTIONS[name].change(self.game_pk, rng, phone)
                except rules.RulesError as error:
                    outcome = f"refused: {error.code}"
                except OperationalError as error:
                    # SQLite's "database is locked" after its timeout, PostgreSQL's deadlock:
                    # the change is dropped, as a phone would retry it later.
                    if "locked" not in str(error) and "deadlock" not in str(error):
                        raise
                    outcome = "database busy"
                with self.lock:
                    self.outcomes[name, outcome] += 1
                time.sleep(rng.uniform(0, phase.max_pause))
        except BaseException as error:  # reported by the test
            import traceback

            traceback.print_exc()  # DEBUG
            with self.lock:
                self.errors.append(error)
        finally:
            connection.close()


# The phones.

# What a phone shows, as plain text with the white space run together: the totals (names, sums,
# badges such as "deals next", the round count; on the edit page the heads of the entry's rows),
# the banners, every row of the round table by its id, the "Show all N rounds" link, on the edit
# page the title of the round entry, and the version the page will poll from; and every number
# the page shows (the line "Target 400 · 12 rounds" among them), in page order, but those of the
# chart and the statistics, which a page draws again only once they are in view (game.html).
SNAPSHOT = """() => {
  const text = (node) => node ? node.textContent.replace(/\\s+/g, " ").trim() : null;
  const poller = document.querySelector("#poller");
  const shown = document.querySelector("#game-body").cloneNode(true);
  shown.querySelectorAll("#extras, template, script").forEach((node) => node.remove());
  return {
    numbers: (shown.textContent.match(/\\d+/g) || []).join(" "),
    totals: [...document.querySelectorAll("#totals, .total")].map(text),
    banners: text(document.querySelector("#banners")),
    rows: [...document.querySelectorAll("#round-rows tr")].map((row) => [row.id, text(row)]),
    more_rounds: text(document.querySelector(".more-rounds")),
    entry_title: text(document.querySelector("#entry-title")),
    version: poller ? new URL(poller.getAttribute("hx-get"), location).searchParams.get("v") : null,
  };
}"""

# Polled until the page shows `version` and no request of its own is under way (a poll, or the
# chart's refresh after one).
POLLED = """(version) => {
  const poller = document.querySelector("#poller");
  return poller !== null && !document.querySelector(".htmx-request")
    && new URL(poller.getAttribute("hx-get"), location).searchParams.get("v") === version;
}"""


@dataclass
class Watcher:
    label: str
    path: str
    context: BrowserContext
    page: Page
    errors: list[str]
    cdp: CDPSession | None = None


def open_watcher(browser, origin: str, label: str, path: str, slow: bool = False) -> Watcher:
    context = browser.new_context(base_url=origin, **PHONE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{label}: {error}"))

    def console(message) -> None:
        # The browser asks for /favicon.ico by itself; the page's own icons are linked.
        address = message.location.get("url", "")
        if message.type == "error" and not address.endswith("/favicon.ico"):
            errors.append(f"{label}: {message.text} ({address})")

    page.on("console", console)
    watcher = Watcher(label, path, context, page, errors)
    if slow:
        # Each poll then takes more than 600 ms, so that changes land while it is under way.
        watcher.cdp = context.new_cdp_session(page)
        watcher.cdp.send("Network.enable")
        watcher.cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": SLOW_LATENCY_MS,
                "downloadThroughput": -1,
                "uploadThroughput": -1,
            },
        )
    page.goto(path)
    return watcher


def fresh_snapshot(watcher: Watcher) -> dict:
    """What the watcher's link shows when opened now, in the watcher's own browser context."""
    page = watcher.context.new_page()
    try:
        page.set_default_timeout(10_000)
        page.goto(watcher.path)
        return page.evaluate(SNAPSHOT)
    finally:
        page.close()


# The parts of a snapshot besides the rows, by the name a report gives them.
PARTS = {
    "version": "poll version",
    "totals": "totals",
    "banners": "banners",
    "more_rounds": "Show all link",
    "entry_title": "entry title",
    "numbers": "numbers shown",
}


def differences(shown: dict, fresh: dict) -> list[str]:
    """The kinds of difference between what a watcher shows and a fresh page, each followed
    by a short detail in brackets."""
    found = [
        f"{label} ({shown[part]!r} instead of {fresh[part]!r})"
        for part, label in PARTS.items()
        if shown[part] != fresh[part]
    ]
    shown_rows = [tuple(row) for row in shown["rows"]]
    fresh_rows = [tuple(row) for row in fresh["rows"]]
    if shown_rows == fresh_rows:
        return found
    shown_ids, fresh_ids = [row[0] for row in shown_rows], [row[0] for row in fresh_rows]
    if len(set(shown_ids)) < len(shown_ids):
        doubled = sorted(id_ for id_, count in Counter(shown_ids).items() if count > 1)
        found.append(f"rows doubled ({doubled})")
    missing = [id_ for id_ in fresh_ids if id_ not in shown_ids]
    if missing:
        found.append(f"rows missing ({missing})")
    extra = [id_ for id_ in shown_ids if id_ not in fresh_ids]
    if len(shown_rows) > len(fresh_rows):
        found.append(f"rows piled up ({len(shown_rows)} rows instead of {len(fresh_rows)})")
    elif extra:
        found.append(f"rows not on a fresh page ({extra})")
    fresh_text = dict(fresh_rows)
    changed = sorted({id_ for id_, text in shown_rows if fresh_text.get(id_, text) != text})
    if changed:
        found.append(f"rows changed ({changed})")
    common = [id_ for id_ in shown_ids if id_ in fresh_ids]
    if common != [id_ for id_ in fresh_ids if id_ in shown_ids]:
        found.append("rows out of order")
    return found


def current_version(game_pk: int) -> int:
    return Game.objects.values_list("version", flat=True).get(pk=game_pk)


def check(watcher: Watcher, version: int) -> list[str]:
    """How the watcher, once it has polled, differs from a fresh page of its link."""
    # A page that does not get to the game's version in time is compared as it is: its version
    # then differs too.
    with contextlib.suppress(PlaywrightTimeout):
        watcher.page.wait_for_function(POLLED, arg=str(version), timeout=POLL_WAIT_MS)
    return differences(watcher.page.evaluate(SNAPSHOT), fresh_snapshot(watcher))


def test_every_watching_phone_converges_to_a_fresh_load(
    browser, live_server, static_from_the_source
):
    seconds = run_seconds()
    # The live server by its loopback address: nothing else is ever asked.
    origin = live_server.url.replace("//localhost:", "//127.0.0.1:")
    assert urlsplit(origin).hostname == "127.0.0.1"

    seeding = random.Random(f"{SEED}/seed")
    game = Game.start(NAMES, house_rules=rules.Rules(target=TARGET))
    for _ in range(SEED_ROUNDS):
        game.record_round(entry_now(game, seeding), for_round=None)

    view, edit = url("view", game.view_token), url("game", game.edit_token)
    watchers = [
        open_watcher(browser, origin, "view 1", view),
        open_watcher(browser, origin, "view 2 (slow network)", view, slow=True),
        open_watcher(browser, origin, "edit", edit),
    ]
    elsewhere: list[str] = []
    for watcher in watchers:
        watcher.context.on(
            "request",
            lambda request: (
                None if request.url.startswith(origin + "/") else elsewhere.append(request.url)
            ),
        )

    writers = Writers(game.pk)
    checks: list[list[str]] = []
    started = time.monotonic()
    try:
        # Bounded by count as well as by time; the count alone would last `seconds` at least.
        for burst in range(1, math.ceil(seconds / BURST_SECONDS) + 1):
            if time.monotonic() - started >= seconds:
                break
            for phase in PHASES:
                writers.run(burst, phase)
            assert writers.errors == [], writers.errors

            # The writers have stopped: the game stays as it is until the next burst.
            version = current_version(game.pk)
            for watcher in watchers:
                found = check(watcher, version)
                checks.append(found)
                print(f"check {len(checks)} (burst {burst}, {watcher.label}):", end=" ")
                print("the same" if not found else "".join(f"\n    {kind}" for kind in found))
            assert current_version(game.pk) == version, "the game changed during the checks"
    finally:
        elapsed = time.monotonic() - started
        for watcher in watchers:
            watcher.context.close()

    differing = [found for found in checks if found]
    kinds = Counter(kind.split(" (")[0] for found in differing for kind in found)
    errors = [error for watcher in watchers for error in watcher.errors]
    changes = sum(count for (_, outcome), count in writers.outcomes.items() if outcome == "done")
    summary = f"{len(differing)} of {len(checks)} checks differed: {dict(kinds)}"
    print(f"\n{len(checks)} checks in {elapsed:.0f} s; {changes} changes made")
    print("writers:", dict(sorted(writers.outcomes.items())))
    print(summary)
    print(f"{len(errors)} console errors", *errors, sep="\n    ")

    assert elsewhere == [], f"requests beyond the live server: {elsewhere}"
    assert checks, "nothing was compared"
    assert changes > 0, "the writers changed nothing"
    assert not differing and not errors, f"{summary}; {len(errors)} console errors"
