"""The score chart's labels stay inside its drawing: a shortened name at a line end
ends before the right edge however wide its letters, and the target's label does not stand over
the top when the target line is the plot's top line. The browser's side of it (every label of
every chart inside its SVG at 320 and 390 px, in every language) is
tests/browser/test_layout_by_language.py."""

import re

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from scoring.board import chart
from scripts.long_games import LONG_NAMES

# Widths measured in Debian's Chromium (DejaVu Sans, the default sans-serif of Linux and the
# widest of the common faces) at the chart's font size of 12, in viewBox units.
MEASURED = {
    "Dana Kusum…": 87.8,
    "Anastázie …": 74.3,
    "Borislav G…": 73.0,
    "Emil Černý…": 77.0,
    "Wijayakusu…": 80.1,
    "Борислав Г…": 82.8,
    "Siti Rahayu": 67.9,
    "WWWWWWWWWW…": 130.7,
    "mmmmmmmmmm…": 128.9,
    "ЖЖЖЖЖЖЖЖЖЖ…": 141.3,
    "ШШШШШШШШШШ…": 140.3,
    "iiiiiiiiii…": 45.3,
}


def right_end(series: chart.Series) -> float:
    return series.label_x + chart.text_width(series.label)


@pytest.mark.parametrize("text, width", MEASURED.items())
def test_a_labels_width_is_reckoned_at_least_as_wide_as_it_is_drawn(text, width):
    assert width <= chart.text_width(text) <= width * 1.2


def test_the_long_names_end_inside_the_chart():
    """The long games' names: "Dana Kusum…" ended 3 px out of a 320 px phone's chart."""
    drawn = chart.score_chart(LONG_NAMES, [[10, 0, 20, 30, 40, 50]], 300)
    assert [series.label for series in drawn.series][3] == "Dana Kusum…"
    for series in drawn.series:
        assert right_end(series) <= chart.WIDTH - chart.EDGE
    # The plot gives up what the widest name needs, no more: its label ends at the edge.
    assert max(right_end(series) for series in drawn.series) > chart.WIDTH - chart.EDGE - 1
    assert drawn.right < chart.PLOT_RIGHT
    assert all(series.label_x == drawn.right + chart.LABEL_GAP for series in drawn.series)
    # The lines end at the plot's new right edge.
    assert {series.end_x for series in drawn.series} == {drawn.right}
    assert drawn.x_ticks[-1].position == drawn.right


def test_short_names_keep_the_plot_as_wide_as_before():
    drawn = chart.score_chart(["Ana", "Boris", "Siti Rahayu"], [[0, 20, 30]], 100)
    assert drawn.right == chart.PLOT_RIGHT == 304
    assert [series.label for series in drawn.series] == ["Ana", "Boris", "Siti Rahayu"]


@pytest.mark.parametrize(
    "name, label",
    [
        ("WWWWWWWWWWWWWW", "WWWWWWW…"),
        ("ЖЖЖЖЖЖЖЖЖЖЖЖЖЖ", "ЖЖЖЖЖЖЖ…"),
        ("李小龍李小龍李小龍李小龍", "李小龍李小龍李…"),
        ("Borislav Georgiev Todorov", "Borislav G…"),
        ("Ana", "Ana"),
    ],
)
def test_a_name_of_wide_letters_is_shortened_further_rather_than_squeeze_the_plot(name, label):
    drawn = chart.score_chart([name, "Ana"], [[0, 20]], 100)
    assert drawn.series[0].label == label
    assert right_end(drawn.series[0]) <= chart.WIDTH - chart.EDGE
    # The plot keeps at least this much of its width.
    assert drawn.right >= chart.PLOT_RIGHT - 30


def test_the_target_label_stays_inside_when_the_target_is_the_top_line():
    """Everyone under the target: the target line is the plot's top (y 14), where 4 units
    over it leave no room for the label's letters (1 px over the top at 320 px): the label
    stands under the line instead, its letters clear of it."""
    top = chart.score_chart(["Ana", "Boris"], [[0, 120], [100, 120]], 300)
    assert top.y_max == 300 and top.target_y == chart.PLOT_TOP
    assert top.target_label_y == chart.PLOT_TOP + chart.FONT_SIZE + 2 == 28
    with translation.override("en"):
        html = render_to_string("scoring/_chart.svg.html", {"chart": top})
    label = re.search(r'class="target">.*?<text x="44" y="([\d.]+)">Target 300<', html, re.S)
    assert label is not None and float(label.group(1)) == 28
    # As high as a label over the line may stand: its letters' top at the drawing's top.
    assert chart.target_label_y(16) == 12
    assert chart.target_label_y(15.9) == 29.9
    # Lower down, the label stands 4 units over its line, as before.
    lower = chart.score_chart(["Ana", "Boris"], [[0, 320]], 300)
    assert lower.target_y > 30
    assert lower.target_label_y == pytest.approx(lower.target_y - 4)
