"""The score chart: scoring/board/chart.py drawn by templates/scoring/_chart.svg.html."""

import itertools
import re
import xml.etree.ElementTree as ET

import pytest
from django.template.loader import render_to_string

from scoring.board import chart
from scoring.board.scoreboard import Scoreboard

SVG = "{http://www.w3.org/2000/svg}"
NAMES = ["Ana", "Boris", "Cyril", "Dana"]
# The every_kind game: a normal round, a hand rummy, the round that leads to a tie-break and
# the blocked tie-break round that Ana wins.
TOTALS = [[0, 36, 45, 31], [200, 236, 245, 31], [200, 300, 255, 200], [200, 307, 266, 210]]


def render(score_chart: chart.Chart) -> str:
    """The chart as the page draws it, with its text alternative."""
    return render_to_string("scoring/_chart.svg.html", {"chart": score_chart})


def drawn(html: str) -> ET.Element:
    """The <svg> element of the rendered template, parsed as XML (which it must be)."""
    match = re.search(r"<svg .*?</svg>", html, re.DOTALL)
    assert match is not None
    # Our own rendering, not outside input: the standard parser is fine here.
    return ET.fromstring(match.group(0))  # noqa: S314


def polyline_points(line: ET.Element) -> list[tuple[float, float]]:
    return [tuple(map(float, pair.split(","))) for pair in line.get("points").split()]


def series_groups(svg: ET.Element) -> list[ET.Element]:
    return [group for group in svg.iter(f"{SVG}g") if "series" in group.get("class").split()]


@pytest.fixture
def every_kind_chart() -> chart.Chart:
    return chart.score_chart(NAMES, TOTALS, 300, {4})


def test_each_player_has_a_line_through_every_running_total(every_kind_chart):
    svg = drawn(render(every_kind_chart))
    groups = series_groups(svg)
    assert [group.get("class") for group in groups] == [
        f"series series-{seat}" for seat in range(4)
    ]
    # The plot is 40..304 wide for 4 rounds (66 per round) and 14..214 high for 0..400.
    assert every_kind_chart.y_max == 400
    xs = [40, 106, 172, 238, 304]
    for seat, group in enumerate(groups):
        points = polyline_points(group.find(f"{SVG}polyline"))
        totals = [0] + [after[seat] for after in TOTALS]
        assert points == [
            pytest.approx((x, 214 - 200 * total / 400), abs=0.05)
            for x, total in zip(xs, totals, strict=True)
        ]
    boris = polyline_points(groups[1].find(f"{SVG}polyline"))
    assert boris[0] == (40, 214)  # every line starts at 0 before round 1
    assert boris[-1] == (304, 60.5)  # 307 points


def test_names_label_the_line_ends_without_overlapping(every_kind_chart):
    svg = drawn(render(every_kind_chart))
    labels = []
    for group in series_groups(svg):
        end = polyline_points(group.find(f"{SVG}polyline"))[-1]
        marker = group.find(f"{SVG}circle")
        assert (float(marker.get("cx")), float(marker.get("cy"))) == end
        text = group.find(f"{SVG}text")
        assert float(text.get("x")) > end[0]
        labels.append((text.text, float(text.get("y")), end[1]))
    assert [name for name, *_ in labels] == NAMES
    # Ana (200) and Dana (210) end 5 units apart: their names are pushed a line apart.
    heights = sorted(y for _, y, _ in labels)
    assert all(lower - upper >= 14 for upper, lower in itertools.pairwise(heights))
    for _name, label_y, end_y in labels:
        assert abs(label_y - end_y) <= 14


def test_the_target_is_a_labelled_horizontal_line(every_kind_chart):
    svg = drawn(render(every_kind_chart))
    target = next(g for g in svg.iter(f"{SVG}g") if g.get("class") == "target")
    line = target.find(f"{SVG}line")
    assert line.get("y1") == line.get("y2") == "64.0"  # 300 of 400 on a 200-high plot
    assert (line.get("x1"), line.get("x2")) == ("40", "304")
    assert target.find(f"{SVG}text").text == "Target 300"


def test_tie_break_rounds_are_shaded_and_explained(every_kind_chart):
    html = render(every_kind_chart)
    svg = drawn(html)
    bands = [rect for rect in svg.iter(f"{SVG}rect") if rect.get("class") == "tie-break"]
    assert len(bands) == 1
    # Round 4 was played between the totals after round 3 and those after round 4.
    assert (bands[0].get("x"), bands[0].get("width")) == ("238.0", "66.0")
    assert bands[0].find(f"{SVG}title").text == "Round 4: tie-break"
    assert "Shaded: a tie-break round" in html
    assert "Tie-break rounds: 4." in svg.find(f"{SVG}desc").text


def test_no_tie_break_no_shading():
    html = render(chart.score_chart(["Ana", "Boris"], [[0, 20], [30, 20]], 100))
    assert 'class="tie-break"' not in html
    assert "Shaded" not in html


def test_screen_readers_get_a_title_and_a_summary_that_points_to_the_round_table(
    every_kind_chart,
):
    """The numbers behind the lines are the round table's running totals, on the same page: the
    chart says so rather than repeat them in a hidden table (650 elements at 80 rounds)."""
    html = render(every_kind_chart)
    svg = drawn(html)
    assert svg.get("role") == "img"
    assert svg.get("aria-labelledby") == "score-chart-title score-chart-desc"
    assert svg.find(f"{SVG}title").text == "Running totals after each round"
    assert svg.find(f"{SVG}desc").text == (
        "The target is 300 points. After round 4: Ana 200, Boris 307, Cyril 266, Dana 210. "
        "Tie-break rounds: 4. The totals after each round are in the round-by-round table above."
    )
    assert "<table" not in html


def test_the_x_axis_is_named_at_its_right_end_under_the_names(every_kind_chart):
    """Not left of the round numbers, where 34 units hold "Round" but not "Omgång" or
    "Раздаване" (cut off there at every screen width): at the right edge, under the names'
    column (84 units wide), clear of the last round's number and of the lowest name."""
    svg = drawn(render(every_kind_chart))
    axis = next(g for g in svg.iter(f"{SVG}g") if g.get("class") == "axis")
    label = next(text for text in axis.iter(f"{SVG}text") if text.text == "Round")
    assert (label.get("x"), label.get("text-anchor")) == ("398", "end")
    assert label.get("y") == "230"
    # A line that ends at 0 puts its name no lower than 4 units above the axis.
    low = chart.score_chart(["Ana", "Boris"], [[0, 40]], 100)
    assert [series.label_y for series in low.series] == [chart.PLOT_BOTTOM - 4, 134.0]


def test_the_grid_is_one_path_of_a_line_a_value(every_kind_chart):
    svg = drawn(render(every_kind_chart))
    grids = [element for element in svg.iter() if element.get("class") == "grid"]
    assert len(grids) == 1 and grids[0].tag == f"{SVG}path"
    assert grids[0].get("d") == "M40 214.0H304M40 164.0H304M40 114.0H304M40 64.0H304M40 14.0H304"
    # No empty group where no round was a tie-break.
    plain = drawn(render(chart.score_chart(["Ana", "Boris"], [[0, 20]], 100)))
    assert [g.get("class") for g in plain.iter(f"{SVG}g")] == [
        "axis",
        "target",
        "series series-0",
        "series series-1",
    ]


def test_fits_a_phone_and_needs_no_inline_style_or_script(every_kind_chart):
    html = render(every_kind_chart)
    svg = drawn(html)
    assert svg.get("viewBox") == "0 0 400 240"
    assert svg.get("width") == "100%"
    assert "style=" not in html
    assert "<script" not in html


def test_a_name_is_escaped_and_stays_inert():
    names = ["<script>alert(1)</script>", "Boris & Co"]
    html = render(chart.score_chart(names, [[0, 12]], 100))
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # in the summary
    svg = drawn(html)  # escaped, so still well-formed XML
    labels = [group.find(f"{SVG}text") for group in series_groups(svg)]
    # A long name is shortened at the line end, with the whole name as its tooltip.
    tooltip = labels[0].find(f"{SVG}title")
    assert tooltip.text == "<script>alert(1)</script>"
    assert tooltip.tail == "<script>al…"
    assert labels[1].text == "Boris & Co"


def test_coordinates_keep_a_decimal_point_in_every_language(every_kind_chart, settings):
    settings.USE_THOUSAND_SEPARATOR = True
    from django.utils import translation

    with translation.override("cs"):
        html = render(every_kind_chart)
    assert 'y1="64.0"' in html
    assert 'points="40,214 ' in html


def test_many_rounds_number_every_few_rounds_and_always_the_last():
    totals = [[number * 3, number * 5] for number in range(1, 26)]
    drawn_chart = chart.score_chart(["Ana", "Boris"], totals, 100)
    assert [tick.value for tick in drawn_chart.x_ticks] == [1, 4, 7, 10, 13, 16, 19, 22, 25]


def test_a_game_without_rounds_draws_nothing():
    assert render(chart.score_chart(["Ana", "Boris"], [], 100)).strip() == ""


def test_spread_labels_keeps_order_gap_and_bounds():
    assert chart.spread_labels([100, 100, 100], 14, 0, 200) == [100, 114, 128]
    assert chart.spread_labels([200, 199, 198], 14, 0, 200) == [200, 186, 172]
    assert chart.spread_labels([50, 150], 14, 0, 200) == [50, 150]


@pytest.mark.django_db
def test_the_scoreboard_draws_a_games_chart_without_more_queries(
    every_kind_game, django_assert_num_queries
):
    board = Scoreboard.for_game(every_kind_game)
    board.rounds  # noqa: B018 (what the game page reads anyway)
    with django_assert_num_queries(0):
        game_chart = board.chart
    assert [series.totals for series in game_chart.series] == [
        tuple(after[seat] for after in TOTALS) for seat in range(4)
    ]
    assert [band.round_number for band in game_chart.tie_break_bands] == [4]
    assert game_chart.target == 300
