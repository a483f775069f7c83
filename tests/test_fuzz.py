"""Bad input gets a clear answer, never a 500, and stores nothing.

Hypothesis sends malformed forms to every POST endpoint (the start page, each action of the game
page, the round page) and malformed documents to the importer. Every answer must be a page with
the form's errors (2xx), a redirect (3xx) or a client error (4xx); an answer that refuses the
input leaves the games, rounds and history as they were. Django's test client raises any error
a view lets out, so a 500 fails here with its traceback.

The example counts (EXAMPLES) add up to 2,000 cases and keep the file well under a
minute on two cores; the limits (body size, field count, name length, cards in a hand) are
checked once each at the end.
"""

from __future__ import annotations

import io
import json

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import rules
from scoring.files import exchange
from scoring.files.exchange import ExchangeError, export_game, import_game
from scoring.models import Game, GameEvent, Hand, Round, Status
from tests.conftest import as_seen, game_document, round_post
from tests.links import url
from tests.pages import read

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# Examples per test; the total is said in the module docstring and the report.
EXAMPLES = {
    "start": 250,
    "save": 150,
    "preview": 250,
    "delete": 200,
    "restore": 200,
    "rematch": 50,
    "round": 150,
    "races": 150,
    "from_document": 500,
    "import_game": 100,
}


def fuzz(name: str):
    return settings(
        max_examples=EXAMPLES[name],
        deadline=None,
        # The database fixture is per test, not per example: each example counts what it
        # changed itself, so sharing it is what we want.
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


# Values: what a phone, a script or an attacker might send in one field.

CARDS = [f"{rank}{suit}" for rank in rules.RANKS for suit in ("", *rules.SUITS)] + ["JK"]
big_numbers = st.integers(min_value=-(10**40), max_value=10**40).map(str)
card_text = st.lists(st.sampled_from([*CARDS, "1X", "A♥", "10h", "jk", "ZZ"]), max_size=12).map(
    " ".join
)
huge = st.sampled_from(["9", "A", "é", "♥", " ", "\x00", "AH ", "😀", "-"]).flatmap(
    lambda piece: st.integers(min_value=100, max_value=20_000).map(lambda count: piece * count)
)
values = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
    big_numbers,
    st.floats(allow_nan=True).map(str),
    card_text,
    huge,
    st.sampled_from(["", " ", "on", "off", "true", "blocked", "0", "-1", "1e9", "NaN", "١٢"]),
)

field_values = st.one_of(values, st.lists(values, min_size=2, max_size=3))

ROUND_FIELDS = [
    "action",
    "winner",
    "hand_rummy",
    "for_round",
    "key",
    "number",
    "event",
    "round",
    "revision",
] + [f"{kind}_{seat}" for seat in range(7) for kind in ("cards", "value", "not_opened")]
START_FIELDS = [f"player_{index}" for index in range(8)]
field_names = st.one_of(st.sampled_from(ROUND_FIELDS + START_FIELDS), st.text(max_size=20))


def forms(extra: dict | None = None, names=field_names):
    """Random form data, with `extra` (a dict of strategies) on top."""
    base = st.dictionaries(names, field_values, max_size=12)
    if not extra:
        return base
    return st.tuples(base, st.fixed_dictionaries(extra)).map(lambda pair: {**pair[0], **pair[1]})


def round_forms(action):
    """A round form that is close to right (a winner, some hands) or anything at all."""
    near = st.builds(
        lambda winner, hands, rest: {**round_post(winner, hands), **rest},
        st.one_of(st.sampled_from(["0", "1", "2", "3", "blocked"]), values),
        st.dictionaries(
            st.integers(min_value=0, max_value=4),
            st.one_of(card_text, st.integers(min_value=-5, max_value=10**6), values),
            max_size=4,
        ),
        st.dictionaries(st.sampled_from(ROUND_FIELDS), field_values, max_size=4),
    )
    return st.one_of(near, forms()).map(lambda data: {**data, "action": action})


class Counts:
    """What the database holds, to compare before and after a request."""

    def __init__(self) -> None:
        self.games = Game.objects.count()
        self.rounds = Round.objects.count()
        self.hands = Hand.objects.count()
        self.events = GameEvent.objects.count()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Counts) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"Counts({vars(self)})"


def answered(response) -> int:
    """The status, after checking that it is an answer for the user and not a server error."""
    assert response.status_code < 500, response.content[:500]
    assert response.status_code in {200, 303, 400, 404, 405, 409}, response.status_code
    return response.status_code


@pytest.fixture
def under_way(db) -> Game:
    """A game under way: two rounds, a third deleted (so that it can be restored)."""
    game = Game.start(["Ana", "Boris", "Cyril", "Dana"])
    for boris in (5, 7, 9):
        game.record_round(
            rules.RoundEntry(
                hands=(
                    rules.Hand(),
                    rules.Hand(value=boris),
                    rules.Hand(value=3),
                    rules.Hand(value=3),
                ),
                winner=0,
            )
        )
    game.delete_round(game.rounds.get(number=3))
    return game


# The start page.


@fuzz("start")
@given(data=forms(names=st.one_of(st.sampled_from(START_FIELDS), field_names)))
def test_start_answers_any_form_and_starts_a_game_only_when_it_says_so(client, db, data):
    before = Counts()
    status = answered(client.post("/", data))
    after = Counts()
    if status == 303:
        assert after.games == before.games + 1
    else:
        assert status == 200
        assert after == before


# The game page, action by action.


@fuzz("save")
@given(data=round_forms("save"))
def test_save_answers_any_form_and_stores_only_a_round_it_accepts(client, under_way, data):
    before = Counts()
    # As htmx sends it: the same view and form as without, and half the page to render
    # (tests/test_views_game.py sends forms both ways).
    response = client.post(url("game", under_way.edit_token), data, headers={"HX-Request": "true"})
    status = answered(response)
    after = Counts()
    if status == 409:
        # The examples share the game: hand rummies saved by earlier ones may have ended it,
        # and a finished game takes no round (409, as every refusal of its kind).
        assert Game.objects.get(pk=under_way.pk).status == Status.FINISHED
        assert after == before
        return
    assert status == 200
    if 'class="field-error"' in response.content.decode():
        assert after == before
    else:
        # Accepted: one round with a hand per player and its history, or nothing new when
        # the same key came again.
        assert after.rounds - before.rounds in {0, 1}
        assert after.hands - before.hands == 4 * (after.rounds - before.rounds)
        assert after.events - before.events == after.rounds - before.rounds


@fuzz("preview")
@given(data=round_forms("preview"), htmx=st.booleans())
def test_preview_answers_any_form_and_stores_nothing(client, under_way, data, htmx):
    before = Counts()
    headers = {"HX-Request": "true"} if htmx else {}
    assert answered(client.post(url("game", under_way.edit_token), data, headers=headers)) == 200
    assert Counts() == before


@fuzz("delete")
@given(
    data=forms(
        {
            "action": st.just("delete"),
            "round": st.one_of(big_numbers, field_values),
            "number": st.one_of(big_numbers, field_values),
            "revision": st.one_of(big_numbers, field_values),
        }
    ),
    right=st.sets(st.sampled_from(["round", "number", "revision"])),
)
def test_delete_deletes_only_the_round_it_names_as_it_is(client, under_way, data, right):
    """Only a form naming a round by its id, number and revision deletes it; any field that
    does not match is a 400 (not a number) or a 409 (another round, or not as it is now)."""
    data.update({field: as_seen(under_way, 2)[field] for field in right})
    rounds = {r.pk: (r.number, r.revision) for r in under_way.rounds.all()}
    before = Counts()
    status = answered(client.post(url("game", under_way.edit_token), data))
    if status == 303:
        # The form named a round as it is (the last value of a field sent twice counts).
        posted = {
            field: value[-1] if isinstance(value, list) else value for field, value in data.items()
        }
        named = [int(posted[field]) for field in ("round", "number", "revision")]
        assert rounds[named[0]] == tuple(named[1:])
        assert not under_way.rounds.filter(pk=posted["round"]).exists()
        assert Round.objects.count() == before.rounds - 1
        # Put it back, so that the next example finds the same game.
        under_way.restore_round(under_way.events.filter(kind="deleted", restored=False).first())
    else:
        assert right != {"round", "number", "revision"}
        assert status in {400, 404, 409}
        assert Counts() == before


@fuzz("restore")
@given(
    data=forms({"action": st.just("restore"), "event": st.one_of(big_numbers, field_values)}),
)
def test_restore_with_a_bad_event_is_refused_and_changes_nothing(client, under_way, data):
    before = Counts()
    # The history page restores a deleted round.
    status = answered(client.post(url("history", under_way.edit_token), data))
    if status == 303:
        # A deleted round's event: its round is back (once), or was back already.
        back = Round.objects.count() - before.rounds
        assert back in {0, 1}
        if back:
            # Delete it again, so that the next example finds the same game.
            under_way.delete_round(under_way.rounds.get(number=3))
    else:
        assert status in {400, 404}
        assert Counts() == before


@fuzz("rematch")
@given(data=forms({"action": st.just("rematch")}))
def test_rematch_ignores_any_other_field_and_happens_once(client, every_kind_game, data):
    response = client.post(url("game", every_kind_game.edit_token), data)
    assert answered(response) == 303
    rematch = Game.objects.get(edit_token=response["Location"].split("/")[2])
    assert rematch.names == every_kind_game.names
    assert Game.objects.count() == 2


def test_a_game_under_way_has_no_rematch(client, under_way):
    before = Counts()
    response = client.post(url("game", under_way.edit_token), {"action": "rematch"})
    assert response.status_code == 409
    assert "Only a finished game has a rematch" in read(response).text
    assert Counts() == before


@fuzz("round")
@given(
    data=round_forms("save"),
    number=st.one_of(st.integers(min_value=-3, max_value=5), st.integers(min_value=10**18)),
)
def test_the_round_page_answers_any_form_and_changes_only_what_it_accepts(
    client, under_way, data, number
):
    before = Counts()
    document = export_game(under_way)
    if 1 <= number <= 2 and data.get("round") is None:
        # Mostly the identity of the round the page is about, as its form carries it.
        data.update({k: v for k, v in as_seen(under_way, number).items() if k != "number"})
    # Any number, a negative one among them: an address no reverse() would give.
    status = answered(client.post(f"/g/{under_way.edit_token}/rounds/{number}/", data))
    if status == 303:
        assert number in {1, 2}
        # An edit adds an event and changes no count of games or rounds.
        assert Game.objects.count() == before.games and Round.objects.count() == before.rounds
    else:
        assert status in {200, 400, 404, 409}
        assert Counts() == before
        assert export_game(under_way) == document


# The importer: exchange.import_game and `manage.py import_game -`.

json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(CARDS),
)
any_json = st.recursive(
    json_leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=10,
)
names = st.one_of(
    st.sampled_from(["Ana", "Boris", "ana", " Ana ", "", "x" * 31, "\x00", "Dana\x00"]),
    st.text(max_size=34),
)


def documents():
    """Documents close to a real rami-game/1 file, with mistakes anywhere; or any JSON."""
    players = st.one_of(
        st.lists(names, min_size=0, max_size=7),
        st.just(["Ana", "Boris", "Cyril"]),
        # Names that differ only where a database might see them alike, or not store them.
        st.lists(
            st.sampled_from(["Ana", "Boris", "ß", "SS", "İ", "i̇", "Dana\x00", "Eve\x07", "ﬀ"]),
            min_size=2,
            max_size=6,
            unique=True,
        ),
        any_json,
    )

    def rounds_for(players):
        listed = players if isinstance(players, list) else []
        player_names = [name for name in listed if isinstance(name, str)]
        some_name = st.one_of(st.sampled_from(player_names), names) if player_names else names
        hand = st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "cards": st.one_of(
                        st.lists(st.one_of(st.sampled_from(CARDS), st.text(max_size=4))),
                        st.integers(min_value=100, max_value=120).map(lambda count: ["2H"] * count),
                        card_text,
                        any_json,
                    ),
                    "value": json_leaves,
                    "opened": st.one_of(st.booleans(), json_leaves),
                },
            ),
            any_json,
        )
        round_ = st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "winner": st.one_of(some_name, json_leaves),
                    "blocked": st.one_of(st.booleans(), json_leaves),
                    "hand_rummy": st.one_of(st.booleans(), json_leaves),
                    "hands": st.one_of(st.dictionaries(some_name, hand, max_size=7), any_json),
                    "points": any_json,
                },
            ),
            any_json,
        )
        return st.one_of(st.lists(round_, max_size=6), any_json)

    near = players.flatmap(
        lambda players: st.fixed_dictionaries(
            {"players": st.just(players)},
            optional={
                "format": st.one_of(st.just(exchange.FORMAT), json_leaves),
                "rounds": rounds_for(players),
                "target": any_json,
                "totals": any_json,
                "status": any_json,
                "winner": any_json,
            },
        )
    )
    return st.one_of(near.map(lambda document: {"format": exchange.FORMAT, **document}), near)


@fuzz("from_document")
@given(document=st.one_of(documents(), any_json))
def test_the_importer_refuses_a_bad_document_in_one_line_and_creates_nothing(db, document):
    before = Counts()
    try:
        game = import_game(document)
    except ExchangeError as error:
        assert "\n" not in str(error) and str(error)
        assert Counts() == before
    else:
        assert Game.objects.count() == before.games + 1
        assert export_game(game)["players"] == game.names


def files():
    """Bytes that may be JSON, broken JSON or not text at all."""
    return st.one_of(
        st.binary(max_size=200),
        st.builds(lambda document: json.dumps(document).encode(), st.one_of(documents(), any_json)),
        st.builds(
            lambda document, cut: json.dumps(document).encode()[:cut],
            documents(),
            st.integers(min_value=0, max_value=200),
        ),
        st.sampled_from([b"", b"\xff\xfe{}", b"NaN", b'{"format": "rami-game/1"']),
        # Nested deeper than the JSON reader goes.
        st.integers(min_value=1_000, max_value=100_000).map(lambda depth: b"[" * depth),
    )


@fuzz("import_game")
@given(content=files())
def test_import_game_refuses_a_bad_file_with_one_line_and_creates_nothing(db, monkeypatch, content):
    before = Counts()
    stdin = io.TextIOWrapper(io.BytesIO(content))
    monkeypatch.setattr("sys.stdin", stdin)
    out = io.StringIO()
    try:
        call_command("import_game", "-", stdout=out)
    except CommandError as error:
        assert "\n" not in str(error) and str(error)
        assert Counts() == before
    else:
        assert out.getvalue().startswith("/g/")
        assert Game.objects.count() == before.games + 1


# The limits, each once.


def test_a_body_over_the_upload_limit_is_a_400(client, under_way):
    data = round_post(0, {1: 3, 2: 4, 3: 5}, key="big")
    data["padding"] = "x" * django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    before = Counts()
    response = client.post(url("game", under_way.edit_token), data)
    assert response.status_code == 400
    assert Counts() == before


def test_too_many_fields_is_a_400(client, under_way):
    data = {f"field_{index}": "1" for index in range(django_settings.DATA_UPLOAD_MAX_NUMBER_FIELDS)}
    before = Counts()
    response = client.post(
        url("game", under_way.edit_token), {**data, **round_post(0, {1: 3, 2: 4, 3: 5})}
    )
    assert response.status_code == 400
    assert Counts() == before


def test_a_name_over_30_characters_is_refused(client, db):
    response = client.post("/", {"player_0": "Ana", "player_1": "B" * 31})
    assert response.status_code == 200
    assert "at most 30 characters" in read(response).text
    assert not Game.objects.exists()
    assert client.post("/", {"player_0": "Ana", "player_1": "B" * 30}).status_code == 303


def test_more_than_108_cards_in_one_hand_are_refused_with_a_clear_error(client, under_way):
    hand = " ".join(["2"] * (rules.DECK_SIZE + 1))
    before = Counts()
    response = client.post(url("game", under_way.edit_token), round_post(0, {1: hand, 2: 3, 3: 4}))
    assert response.status_code == 200
    below = read(response).one("#errors-1").text
    assert "A hand holds at most 108 cards (the whole deck), and Boris has 109." in below
    assert Counts() == before


def test_an_imported_hand_of_more_than_108_cards_is_refused(db):
    document = game_document("every_kind")
    document["rounds"][0]["hands"]["Boris"] = {"cards": ["2"] * (rules.DECK_SIZE + 1)}
    with pytest.raises(ExchangeError, match="more than 108 cards in one hand"):
        import_game(document)
    assert not Game.objects.exists()


# Races, as stale pages: phones that opened the game at different moments act on what they saw.


@fuzz("races")
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["open", "delete", "edit", "restore", "undo", "save"]),
            st.integers(min_value=0, max_value=2),  # which phone
            st.integers(min_value=1, max_value=4),  # which round, on that phone's page
        ),
        min_size=1,
        max_size=12,
    )
)
def test_stale_pages_acting_in_any_order_never_fail_or_touch_another_round(client, db, steps):
    game = Game.start(["Ana", "Boris", "Cyril"])
    for boris in (2, 3, 4, 5):
        game.record_round(
            rules.RoundEntry(
                hands=(rules.Hand(), rules.Hand(value=boris), rules.Hand(value=2)), winner=0
            )
        )
    # What each phone's page shows: round number -> (id, revision, Boris's hand).
    pages: list[dict[int, tuple[int, int, int]]] = [{}, {}, {}]

    def look(phone: int) -> None:
        pages[phone] = {
            round_.number: (round_.pk, round_.revision, round_.hands.get(player__seat=1).value)
            for round_ in game.rounds.all()
        }

    for phone in range(3):
        look(phone)
    for action, phone, number in steps:
        shown = pages[phone].get(number)
        if action == "open":
            look(phone)
            continue
        if action == "save":
            data = round_post(0, {1: 50 + number, 2: 2}, key=f"{phone}-{number}-{len(steps)}")
            status = answered(client.post(url("game", game.edit_token), data))
        elif action == "restore":
            deletion = game.events.filter(kind="deleted").first()
            event = {"event": str(deletion.pk)} if deletion else {"event": "0"}
            data = {"action": "restore", **event}
            status = answered(client.post(url("history", game.edit_token), data))
        elif action == "undo":
            # The Undo of the latest change, from this phone: refused unless it made it.
            latest = game.events.first()
            event = {"event": str(latest.pk)} if latest else {"event": "0"}
            status = answered(
                client.post(url("game", game.edit_token), {"action": "undo", **event})
            )
        elif shown is None:
            continue
        else:
            round_id, revision, boris = shown
            identity = {"round": str(round_id), "number": str(number), "revision": str(revision)}
            if action == "delete":
                data = {"action": "delete", **identity}
                status = answered(client.post(url("game", game.edit_token), data))
            else:
                data = round_post(0, {1: 100 + boris, 2: 2}, **identity)
                status = answered(client.post(url("round", game.edit_token, number=number), data))
            now = game.rounds.filter(pk=round_id).first()
            if status == 303:
                # Done to the round the phone saw, where it saw it, as it saw it.
                assert action == "delete" or (now.number == number and now.revision == revision + 1)
                assert action == "edit" or now is None
        # Whatever happened, the rounds are numbered 1..n without a gap.
        numbers = sorted(game.rounds.values_list("number", flat=True))
        assert numbers == list(range(1, len(numbers) + 1))
