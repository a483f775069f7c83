"""The evening's load model (bench/evening.py, `make bench-evening`) plays tables as phones do:
checked against a live server, without timings. Its figures are only worth something if its
saves are real rounds, recorded by the server, and its `seen` is the moment another phone of the
table really got the round."""

import math

import pytest

from bench import evening, profile
from scoring.models import Game, Round
from scripts.long_games import PLAYERS
from tests.conftest import run_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_the_load_model_saves_real_rounds_and_times_their_arrival_on_the_other_phones(
    live_server,
):
    games = [Game.start(PLAYERS[:4]) for _ in range(3)]
    tokens = [{"edit": game.edit_token, "view": game.view_token} for game in games]
    samples = evening.Samples()

    # Three tables, a round saved at each every 5-6 s (more than a poll's 2 s, so that each
    # other phone has a round before the next), measured for 16 s. In a thread of its
    # own: Playwright's browser tests leave an event loop running in this one.
    model = evening.curve(
        [live_server.url],
        tokens,
        [3],
        window=16,
        groups=[],
        save_every=(5, 6),
        samples=samples,
        saves=0,
    )
    steps = run_async(model, timeout=120)

    (step,) = steps
    assert step.tables == 3
    assert step.errors == {}
    kinds = {kind for _at, kind, _ms in samples.answers}
    assert kinds == {"page", "poll", "save", "stream"}
    # Every phone but one in STREAMLESS opened its stream, and was told at once.
    streams = [ms for _at, kind, ms in samples.answers if kind == "stream"]
    assert len(streams) == 13 - 1
    # Every phone and the watch-only screen of the first table loaded its page.
    assert sum(1 for _at, kind, _ms in samples.answers if kind == "page") == 3 * 4 + 1
    saves = sum(1 for _at, kind, _ms in samples.answers if kind == "save")
    assert saves >= 6
    # Each save is a round the server recorded (one that was on its way when the model stopped
    # may be recorded unseen by it), in rounds numbered 1, 2, 3 ... in each game.
    recorded = Round.objects.filter(game__in=games).count()
    assert saves <= recorded <= saves + 3
    for game in games:
        numbers = list(game.rounds.order_by("number").values_list("number", flat=True))
        assert numbers == list(range(1, len(numbers) + 1))
    # Each round of the window reached the three other phones, each on a poll of its own (after
    # its stream's event, or on the clock for the phone without one).
    assert step.seen["unseen"] == step.polled["unseen"] == 0
    assert all(0 < ms < 2 * evening.POLL_EVERY * 1000 + 1000 for _tapped, ms, _s in samples.seen)
    # The only phone without a stream is the first table's saver, so every round reached the
    # others through their streams (`seen`, the budget's), none through a poll on the clock
    # (`polled`), and on each phone the stream's event came first, then the round itself.
    assert step.seen["count"] == 3 * step.kinds["save"]["count"] > 0
    assert step.polled["count"] == 0
    assert all(streams for _tapped, _ms, streams in samples.seen)
    assert len(samples.heard) == len(samples.seen)
    assert all(0 < event <= ms for _tapped, event, ms in samples.heard)
    assert step.heard["event"]["p50"] <= step.seen["p50"]


def test_the_rounds_on_the_polling_phones_are_kept_apart_from_those_that_came_through_a_stream():
    """`seen`'s budget is the phones that hold a stream: a round on the one phone in 20 that
    polls every 2 s is counted with the polling phones, also when it never came."""
    samples = evening.Samples()
    samples.seen += [(10.0, 100.0, True), (10.0, 1900.0, False), (11.0, 250.0, True)]
    seen = evening.summary(samples, 9.0, 12.0, 9.0)[1]
    assert seen == {True: [100.0, 250.0], False: [1900.0]}
    assert evening.seen_times(seen[True], 0) == {
        "count": 2,
        "unseen": 0,
        "p50": 100.0,
        "p95": 250.0,
        "p99": 250.0,
        "late": 0,
    }
    polled = evening.seen_times(seen[False], 1)
    assert (polled["count"], polled["late"], polled["p95"]) == (2, 2, math.inf)
    step = evening.Step(
        tables=1,
        seconds=3,
        requests=3,
        rps=1,
        kinds={kind: {"count": 0} for kind in evening.BUDGETS},
        seen=evening.seen_times(seen[True], 0),
        polled=polled,
        errors={},
        load="",
        cpu={},
    )
    assert step.missed() == ["seen p95 of the polling phones never"]
    # The evening before the streams: every phone polls, and theirs is the only seen.
    step.seen, step.polled = evening.seen_times([], 0), evening.seen_times([900.0, 1900.0], 0)
    assert step.missed() == ["seen p95 1900 ms, every phone polling"]
    assert step.missed(seen=False) == []


def test_a_profile_counts_each_frame_once_a_stack_and_leaves_out_the_waiting(tmp_path):
    """bench/profile.py sums py-spy's raw stacks: a function on a stack twice (a recursion) is
    one sample of it, and a thread waiting for its next request is no work."""
    raw = tmp_path / "profile.txt"
    raw.write_text(
        "run (t.py:1);poll (pull.py:24);render (base.py:9);render (base.py:9) 7\n"
        "run (t.py:1);poll (pull.py:24) 3\n"
        "run (t.py:1);Condition.wait (threading.py:327) 90\n"
    )
    total, inclusive, own, waiting = profile.frames_of([raw])
    assert (total, waiting) == (10, 90)
    assert inclusive["poll (pull.py:24)"] == 10 and inclusive["render (base.py:9)"] == 7
    assert own == {"render (base.py:9)": 7, "poll (pull.py:24)": 3}
