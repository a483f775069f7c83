"""The score chart: each player's running total after every round, as an inline SVG.

`score_chart()` turns plain numbers into the geometry that templates/scoring/_chart.svg.html
draws, on the server and without JavaScript; `Scoreboard.chart` gives it a game's numbers.
Colours are CSS classes (series-0 .. series-5, static/scoring/chart.css), not inline styles,
because the site's Content Security Policy allows style sheets from 'self' only.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from scoring import rules

# The drawing in viewBox units. 400 wide keeps 13-unit text at about 11 px on a 360 px phone.
WIDTH = 400
HEIGHT = 240
PLOT_LEFT = 40  # room for the values of the y axis
PLOT_RIGHT = WIDTH - 96  # room for the names at the ends of the lines, when they are short
PLOT_TOP = 14
PLOT_BOTTOM = HEIGHT - 26  # room for the round numbers
LABEL_HEIGHT = 14  # names closer than this are nudged apart
# The lowest a name goes: clear of the x axis's label, which stands under the names.
LABEL_LOWEST = PLOT_BOTTOM - 4
LABEL_CHARACTERS = 11  # longer names are shortened at the line end (whole in the table)
FONT_SIZE = 12  # the chart's text (_chart.svg.html's font-size)
LABEL_GAP = 12  # from the plot's right edge to the names
EDGE = 2  # between a name's end and the drawing's right edge (room for its halo)
# The widest a name may be: the plot gives up at most this much more than at PLOT_RIGHT (a
# name of 11 wide letters is shortened further).
LABEL_ROOM = WIDTH - PLOT_RIGHT - LABEL_GAP - EDGE
LABEL_ROOM_MOST = LABEL_ROOM + 30
# The target's label stands 4 units over its line where its letters fit there (its baseline
# at least a letter's height down: a sans-serif face's ascent is under 0.95 em), else under it,
# clear of the line: never over the drawing's top.
TARGET_LABEL_MIN_Y = FONT_SIZE
TARGET_LABEL_UNDER = FONT_SIZE + 2
# Letter widths in em, a little over those of DejaVu Sans (the widest common sans-serif, and
# the default of Linux and of the tests' Chromium): the room a name needs at a line end.
THIN_LETTERS = frozenset("'IJijlìíîïĩīĭįĵĺļłÌÍÎÏĨĪĬĮİĴ")
NARROW_LETTERS = frozenset(' ".,:;!|/()[]-ftrľŀţťŧŕřŗ')
WIDE_LETTERS = frozenset("mwMWÆæŒœŴŵ@%&#…—ЖШЩЮФМДЦЫжшщюфы")
MAX_ROUND_TICKS = 10


@dataclass(frozen=True)
class Tick:
    value: int
    position: float


@dataclass(frozen=True)
class Series:
    """One player's line: `points` for <polyline>, the end of the line and its name label."""

    css_class: str
    name: str
    label: str
    totals: tuple[int, ...]
    points: str
    end_x: float
    end_y: float
    label_x: float
    label_y: float


@dataclass(frozen=True)
class Band:
    """The stretch of the x axis during which a tie-break round was played."""

    round_number: int
    x: float
    width: float


@dataclass(frozen=True)
class RoundTotals:
    number: int
    totals: tuple[int, ...]
    tie_break: bool


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    y_max: int
    target: int
    target_y: float
    target_label_y: float
    names: tuple[str, ...]
    series: tuple[Series, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    tie_break_bands: tuple[Band, ...]
    rounds: tuple[RoundTotals, ...]

    @property
    def plot_height(self) -> float:
        return self.bottom - self.top


def _coordinate(value: float) -> float:
    return round(value, 1)


def x_position(round_number: int, rounds: int, right: int = PLOT_RIGHT) -> float:
    return _coordinate(PLOT_LEFT + (right - PLOT_LEFT) * round_number / max(rounds, 1))


def y_position(total: int, y_max: int) -> float:
    return _coordinate(PLOT_BOTTOM - (PLOT_BOTTOM - PLOT_TOP) * total / y_max)


def _format(value: float) -> str:
    return f"{value:g}"


def nice_step(highest: int, ticks: int = 4) -> int:
    """A round step (1, 2 or 5 times a power of ten) giving about `ticks` steps to `highest`."""
    raw = max(highest, 1) / ticks
    magnitude = 10 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5, 10):
        step = multiple * magnitude
        if step >= raw:
            return max(int(step), 1)
    raise AssertionError("unreachable: 10 * magnitude >= raw")


def spread_labels(wanted: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Label positions as close to `wanted` as possible, at least `gap` apart, within
    [low, high] when they fit: pushed down past each other, then back up from the bottom."""
    order = sorted(range(len(wanted)), key=lambda index: wanted[index])
    placed = [min(max(wanted[index], low), high) for index in order]
    for step in range(1, len(placed)):
        placed[step] = max(placed[step], placed[step - 1] + gap)
    if placed and placed[-1] > high:
        placed[-1] = high
        for step in range(len(placed) - 2, -1, -1):
            placed[step] = min(placed[step], placed[step + 1] - gap)
    positions = [0.0] * len(wanted)
    for index, position in zip(order, placed, strict=True):
        positions[index] = _coordinate(position)
    return positions


def text_width(text: str) -> float:
    """About how wide `text` is drawn at the chart's font size, in viewBox units: a little more
    than in DejaVu Sans, so that what fits by this measure fits in the common faces."""
    ems = 0.0
    for letter in text:
        if letter in THIN_LETTERS:
            ems += 0.3
        elif letter in NARROW_LETTERS:
            ems += 0.42
        elif letter in WIDE_LETTERS or unicodedata.east_asian_width(letter) in "WF":
            ems += 1.1
        elif letter.isupper() or letter in "мдцъ":
            ems += 0.8
        else:
            ems += 0.66
    return _coordinate(ems * FONT_SIZE)


def shorten(name: str, room: float = LABEL_ROOM_MOST) -> str:
    """The name as its line end shows it: at most LABEL_CHARACTERS letters and `room` wide,
    shortened with an ellipsis."""
    if len(name) <= LABEL_CHARACTERS and text_width(name) <= room:
        return name
    for length in range(min(len(name), LABEL_CHARACTERS) - 1, 0, -1):
        short = name[:length].rstrip() + "…"
        if text_width(short) <= room:
            return short
    return "…"


def plot_right(labels: Sequence[str]) -> int:
    """The plot's right edge: PLOT_RIGHT, or further left when a name at a line end needs more
    room than that leaves (up to LABEL_ROOM_MOST), so that every name ends inside the drawing."""
    needed = max([LABEL_ROOM, *(text_width(label) for label in labels)])
    return math.floor(WIDTH - EDGE - LABEL_GAP - min(needed, LABEL_ROOM_MOST))


def target_label_y(target_y: float) -> float:
    """The baseline of the target's label, for a target line at `target_y`."""
    if target_y - 4 >= TARGET_LABEL_MIN_Y:
        return _coordinate(target_y - 4)
    return _coordinate(target_y + TARGET_LABEL_UNDER)


def score_chart(
    names: Sequence[str],
    totals: Sequence[Sequence[int]],
    target: int,
    tie_break_rounds: Collection[int] = (),
    spans: Sequence[tuple[int, int]] | None = None,
    starts: Sequence[int] | None = None,
) -> Chart:
    """The chart of a game. `totals` holds each player's running total after every round
    (one list per round, in seat order); `tie_break_rounds` the numbers (1-based) of the rounds
    played as a tie-break. A line starts at `starts` (0 for each by default) before the first
    round. For a player who joined or left, it runs along their `spans` only:
    from before the first round they played to after the last (round numbers, 0 before the
    first round)."""
    highest = max([target, *(total for after in totals for total in after)])
    step = nice_step(highest)
    y_max = math.ceil(highest / step) * step
    rounds = tuple(
        RoundTotals(number, tuple(after), number in tie_break_rounds)
        for number, after in enumerate(totals, 1)
    )

    labels = [shorten(name) for name in names]
    right = plot_right(labels)

    def x(round_number: int) -> float:
        return x_position(round_number, len(rounds), right)

    def y(total: int) -> float:
        return y_position(total, y_max)

    # Every line has a point a round at the same x, and totals repeat (a winner's stays put):
    # each x and each total's y is worked out and written once, not once a player and round
    # (a 6-player, 60-round chart has 366 points).
    xs = [_format(x(number)) for number in range(len(rounds) + 1)]
    ys: dict[int, tuple[float, str]] = {}
    lines = []
    for seat, name in enumerate(names):
        begin, end = spans[seat] if spans else (0, len(rounds))
        running = ((starts or [0] * len(names))[seat], *(after[seat] for after in totals))
        running = running[begin : end + 1]
        for total in running:
            if total not in ys:
                position = y(total)
                ys[total] = (position, _format(position))
        drawn = zip(xs[begin : end + 1], running, strict=True)
        points = " ".join([f"{px},{ys[total][1]}" for px, total in drawn])
        lines.append((seat, name, running, points, ys[running[-1]][0], x(end)))
    label_ys = spread_labels(
        [end_y for *_, end_y, _x in lines], LABEL_HEIGHT, PLOT_TOP, LABEL_LOWEST
    )
    series = tuple(
        Series(
            css_class=f"series-{seat % rules.MAX_PLAYERS}",
            name=name,
            label=labels[seat],
            totals=running[1:],
            points=points,
            end_x=end_x,
            end_y=end_y,
            label_x=right + LABEL_GAP,
            label_y=label_y,
        )
        for (seat, name, running, points, end_y, end_x), label_y in zip(
            lines, label_ys, strict=True
        )
    )
    every = math.ceil(len(rounds) / MAX_ROUND_TICKS) or 1
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=PLOT_LEFT,
        right=right,
        top=PLOT_TOP,
        bottom=PLOT_BOTTOM,
        y_max=y_max,
        target=target,
        target_y=y(target),
        target_label_y=target_label_y(y(target)),
        names=tuple(names),
        series=series,
        # Counted back from the last round, so that the latest round is always numbered.
        x_ticks=tuple(
            Tick(number, x(number)) for number in reversed(range(len(rounds), 0, -every))
        ),
        y_ticks=tuple(Tick(value, y(value)) for value in range(0, y_max + 1, step)),
        tie_break_bands=tuple(
            Band(number, x(number - 1), _coordinate(x(number) - x(number - 1)))
            for number in sorted(tie_break_rounds)
            if 1 <= number <= len(rounds)
        ),
        rounds=rounds,
    )
