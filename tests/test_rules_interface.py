"""The rules module's interface as it is published (docs/architecture.md, word for word),
and the promise that keeps the app from leaning on its defaults: every call in scoring/ of a
function that scores passes the rules it scores by."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from scoring import rules
from scoring.rules import Hand, Rules, card_points, hand_value, score_round, standing, target_for

# The app: rules is a package of it.
SCORING = Path(rules.__file__).parent.parent


def test_the_published_lines_hold_as_written():
    assert card_points("JK") == 20
    assert card_points("10h") == 10
    assert hand_value(["AH", "JK", "5C"]) == 36
    assert target_for(4) == 300
    assert Hand(value=17).worth() == 17
    assert score_round([Hand(), Hand(cards=("AH", "JK", "5C"))], winner=0, target=100) == [0, 36]
    hands = [Hand(cards=("KH",)), Hand(cards=("2C",)), Hand(value=5)]
    assert score_round(hands, winner=None, target=200) == [10, 0, 5]
    opponents = [Hand(), Hand(cards=("KH", "KS"), opened=False)]
    assert score_round(opponents, winner=0, target=200, hand_rummy=True) == [0, 200]
    s = standing([120, 40], target=100)
    assert (s.finished, s.winner, s.tie_break) == (True, 1, False)


def test_the_default_is_the_documents_rules_and_a_games_own_rules_replace_it():
    assert card_points("JK") == card_points("JK", rules=rules.SEEDS) == 20
    assert card_points("JK", rules=Rules(joker=50)) == 50
    house = Rules(joker=50)
    hands = [Hand(), Hand(cards=("AH", "JK", "5C"))]
    assert score_round(hands, winner=0, target=100, rules=house) == [0, 66]


# The functions and methods that score, with the position of their `rules` parameter. A call
# names them as a function of the module (`score_round(...)`, `rules.score_round(...)`) or as a
# method (`hand.worth(...)`, `entry.points(...)`, `entry.winners(...)`).
SCORING_FUNCTIONS = {
    name: list(inspect.signature(getattr(rules, name)).parameters).index("rules")
    for name in (
        "card_points",
        "hand_value",
        "target_for",
        "deck_excess",
        "deck_errors",
        "check_deck",
        "round_winners",
        "hand_errors",
        "round_errors",
        "points_so_far",
        "score_round",
    )
}
SCORING_METHODS = {
    "worth": list(inspect.signature(rules.Hand.worth).parameters).index("rules") - 1,
    "points": list(inspect.signature(rules.RoundEntry.points).parameters).index("rules") - 1,
    "winners": list(inspect.signature(rules.RoundEntry.winners).parameters).index("rules") - 1,
}


def _takes_its_rules(call: ast.Call, position: int) -> bool:
    given = len([arg for arg in call.args if not isinstance(arg, ast.Starred)])
    starred = any(isinstance(arg, ast.Starred) for arg in call.args)
    keywords = {keyword.arg for keyword in call.keywords}
    return given > position or starred or "rules" in keywords or None in keywords


def calls_leaning_on_the_default(path: Path) -> list[str]:
    """The calls in `path` of a function that scores without the rules it scores by. In the
    modules of scoring/rules/ a bare name is the package's function and `rules.x(...)` a method
    of a Rules value; elsewhere `rules.x(...)` is the package's function."""
    tree = ast.parse(path.read_text(), str(path))
    in_rules = path.parent == SCORING / "rules"
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        position = None
        if isinstance(function, ast.Name) and function.id in SCORING_FUNCTIONS:
            position = SCORING_FUNCTIONS[function.id]
        elif isinstance(function, ast.Attribute):
            of_module = isinstance(function.value, ast.Name) and function.value.id == "rules"
            if of_module and not in_rules and function.attr in SCORING_FUNCTIONS:
                position = SCORING_FUNCTIONS[function.attr]
            elif function.attr in SCORING_METHODS and not of_module:
                position = SCORING_METHODS[function.attr]
        if position is not None and not _takes_its_rules(node, position):
            found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_every_call_in_the_app_passes_the_rules_it_scores_by():
    sources = sorted(SCORING.rglob("*.py"))
    assert len(sources) > 20
    assert [call for path in sources for call in calls_leaning_on_the_default(path)] == []


@pytest.mark.parametrize(
    ("source", "leans"),
    [
        ("score_round(hands, 0, 100)", True),
        ("score_round(hands, 0, 100, rules=house)", False),
        ("rules.hand_value(cards)", True),
        ("rules.hand_value(cards, house)", False),
        ("hand.worth()", True),
        ("hand.worth(game.rules)", False),
        ("entry.points(target)", True),
        ("entry.points(target, rules=house)", False),
        ("entry.winners()", True),
    ],
)
def test_the_scan_finds_a_call_that_leaves_the_rules_out(tmp_path, source, leans):
    path = tmp_path / "view.py"
    path.write_text(f"def view(hands, cards, hand, entry, game, house, target):\n    {source}\n")
    assert bool(calls_leaning_on_the_default(path)) is leans
