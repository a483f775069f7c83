"""Seats and dealer during a game: Game.change_seating and each round's dealer, the players page's
"Seats and dealer" form, the game page's dealers, the history, the rematch, a table's next
game and the backup."""

import pytest
from django.utils import translation

from scoring.files import backup
from scoring.files.exchange import ExchangeError
from scoring.models import Game, GameEvent, Seating, Status, Table, rematch
from scoring.rules import Hand, RoundEntry, RulesError, messages
from tests.conftest import delete_post, history_change, round_post
from tests.links import url
from tests.pages import read

pytestmark = pytest.mark.django_db

NAMES = ["Ana", "Boris", "Cyril", "Dana"]


def play(game: Game, rounds: int = 1, winner: int = 0) -> None:
    """Rounds with small hands, so that the game goes on."""
    for _ in range(rounds):
        hands = tuple(Hand() if seat == winner else Hand(value=2) for seat in range(4))
        game.record_round(RoundEntry(hands=hands, winner=winner))


def dealers(game: Game, rounds: range) -> list[str]:
    """Who deals each of these rounds, by name: as each round saved keeps it (Round.dealer),
    and for the rounds to come, the next deal and then one player after another along it."""
    game = Game.objects.get(pk=game.pk)
    stored = dict(game.rounds.values_list("number", "dealer"))
    dealt = []
    for number in rounds:
        if number in stored:
            dealt.append(stored[number])
        else:
            last = dealt[-1] if dealt else stored.get(number - 1)
            dealt.append(game.next_deal(last, number - 1).dealer)
    return [game.names[seat] for seat in dealt]


def now(game: Game) -> Seating:
    return Game.objects.get(pk=game.pk).seating_now()


@pytest.fixture
def four_rounds(db) -> Game:
    """Ana, Boris, Cyril, Dana, four rounds played: dealt by Ana, Boris, Cyril, Dana."""
    game = Game.start(NAMES)
    play(game, 4)
    return game


# The model


def test_before_any_change_the_deal_moves_one_seat_a_round(four_rounds):
    assert dealers(four_rounds, range(1, 9)) == ["Ana", "Boris", "Cyril", "Dana"] * 2
    assert now(four_rounds) == Seating(0, (0, 1, 2, 3))


def test_a_new_dealer_deals_the_next_round_and_the_deal_follows_on(four_rounds):
    assert four_rounds.change_seating(2, [0, 1, 2, 3], seen=Seating(0, (0, 1, 2, 3)), phone="p")
    # Rounds 1-4 keep their dealers; Cyril deals round 5, then Dana, Ana, Boris, Cyril.
    assert dealers(four_rounds, range(1, 10)) == [
        *["Ana", "Boris", "Cyril", "Dana"],
        *["Cyril", "Dana", "Ana", "Boris", "Cyril"],
    ]
    assert four_rounds.seating == [{"from": 5, "dealer": 2, "order": [0, 1, 2, 3]}]
    play(four_rounds, 2)
    assert dealers(four_rounds, range(1, 8)) == [
        *["Ana", "Boris", "Cyril", "Dana"],
        *["Cyril", "Dana", "Ana"],
    ]


def test_a_new_order_moves_the_deal_along_it(four_rounds):
    # Cyril and Boris swapped places after the break: Ana, Cyril, Boris, Dana round the table.
    assert four_rounds.change_seating(0, [0, 2, 1, 3], seen=now(four_rounds))
    play(four_rounds, 3)
    assert dealers(four_rounds, range(1, 10)) == [
        *["Ana", "Boris", "Cyril", "Dana"],
        *["Ana", "Cyril", "Boris", "Dana", "Ana"],
    ]
    # The seats keep their players: hands and totals are by seat as before.
    assert Game.objects.get(pk=four_rounds.pk).names == NAMES


def test_a_second_change_later_keeps_the_first_for_its_rounds(four_rounds):
    four_rounds.change_seating(2, [0, 1, 2, 3], seen=now(four_rounds))
    play(four_rounds, 2)  # Cyril, Dana
    four_rounds.change_seating(1, [3, 2, 1, 0], seen=now(four_rounds))
    play(four_rounds, 2)
    assert dealers(four_rounds, range(1, 11)) == [
        *["Ana", "Boris", "Cyril", "Dana"],
        *["Cyril", "Dana"],
        *["Boris", "Ana", "Dana", "Cyril"],
    ]
    assert [change["from"] for change in Game.objects.get(pk=four_rounds.pk).seating] == [5, 7]


def test_a_change_at_the_same_round_replaces_the_one_there(four_rounds):
    four_rounds.change_seating(2, [0, 1, 2, 3], seen=now(four_rounds))
    four_rounds.change_seating(3, [0, 2, 1, 3], seen=now(four_rounds))
    assert Game.objects.get(pk=four_rounds.pk).seating == [
        {"from": 5, "dealer": 3, "order": [0, 2, 1, 3]}
    ]
    assert dealers(four_rounds, range(5, 8)) == ["Dana", "Ana", "Cyril"]


def test_sent_twice_changes_once_not_even_the_version(four_rounds):
    seen = now(four_rounds)
    assert four_rounds.change_seating(2, [0, 2, 1, 3], seen=seen, phone="p")
    version = Game.objects.get(pk=four_rounds.pk).version
    # The same form again: what it asks for is so already, its page now old.
    assert not four_rounds.change_seating(2, [0, 2, 1, 3], seen=seen, phone="p")
    # The same order written from another seat is the same order round the table.
    assert not four_rounds.change_seating(2, [2, 1, 3, 0], seen=seen, phone="p")
    assert Game.objects.get(pk=four_rounds.pk).version == version
    assert four_rounds.events.filter(kind=GameEvent.Kind.SEATED).count() == 1


def test_the_same_dealer_and_order_as_now_changes_nothing(four_rounds):
    version = four_rounds.version
    assert not four_rounds.change_seating(0, [0, 1, 2, 3], seen=now(four_rounds))
    assert Game.objects.get(pk=four_rounds.pk).version == version
    assert not four_rounds.events.filter(kind=GameEvent.Kind.SEATED).exists()


@pytest.mark.parametrize(
    ("dealer", "order", "code", "player", "message"),
    [
        (
            0,
            [0, 1, 1, 3],
            "seating_twice",
            1,
            "Boris is chosen for two seats and Cyril for none: choose each player for one seat.",
        ),
        (0, [0, 1, 3], "seating_missing", 2, "Cyril has no seat: choose each player for one seat."),
        (
            0,
            [0, 1, 2, 7],
            "seating_order",
            None,
            "The seating order must name each player once: choose one for each seat.",
        ),
        (4, [0, 1, 2, 3], "seating_dealer", None, "Choose one of the players to deal next."),
    ],
)
def test_an_order_that_drops_or_repeats_a_player_is_refused(
    four_rounds, dealer, order, code, player, message
):
    version = four_rounds.version
    with pytest.raises(RulesError) as refused:
        four_rounds.change_seating(dealer, order, seen=now(four_rounds))
    assert (refused.value.code, refused.value.player) == (code, player)
    assert messages.english(refused.value, NAMES) == message
    assert Game.objects.get(pk=four_rounds.pk).version == version
    assert Game.objects.get(pk=four_rounds.pk).seating == []


def test_a_finished_game_is_refused(every_kind_game):
    with pytest.raises(RulesError) as refused:
        every_kind_game.change_seating(1, [0, 1, 2, 3])
    assert refused.value.code == "game_finished"


def test_a_page_older_than_another_phones_change_is_refused(four_rounds):
    seen = now(four_rounds)
    four_rounds.change_seating(2, [0, 1, 2, 3], seen=seen, phone="other")
    version = Game.objects.get(pk=four_rounds.pk).version
    with pytest.raises(RulesError) as refused:
        four_rounds.change_seating(1, [0, 2, 1, 3], seen=seen, phone="mine")
    assert refused.value.code == "seating_changed"
    assert Game.objects.get(pk=four_rounds.pk).version == version
    assert dealers(four_rounds, range(5, 6)) == ["Cyril"]


def test_a_page_older_than_a_round_saved_elsewhere_is_refused(four_rounds):
    seen = now(four_rounds)  # Ana deals round 5
    play(four_rounds)  # saved on another phone: Boris deals round 6
    with pytest.raises(RulesError) as refused:
        four_rounds.change_seating(3, [0, 1, 2, 3], seen=seen)
    assert refused.value.code == "seating_changed"


def test_the_change_is_in_the_history_and_the_other_phones_redraw(four_rounds):
    seen_version = Game.objects.get(pk=four_rounds.pk).version
    four_rounds.change_seating(2, [0, 2, 1, 3], seen=now(four_rounds), phone="p")
    event = four_rounds.events.get(kind=GameEvent.Kind.SEATED)
    assert (event.number, event.phone) == (5, "p")
    assert event.before == {"from": 5, "dealer": 0, "order": [0, 1, 2, 3]}
    assert event.after == {"from": 5, "dealer": 2, "order": [0, 2, 1, 3]}
    fresh = Game.objects.get(pk=four_rounds.pk)
    assert fresh.changes_since(seen_version).what == "everything"
    # Not a change to the rounds: nothing to undo, and the latest round change is still round 4.
    assert fresh.latest_round_change().number == 4
    with pytest.raises(GameEvent.DoesNotExist):
        fresh.undo(event, "p")


def test_an_undo_of_a_round_is_not_overtaken_by_a_seating_change(four_rounds):
    four_rounds.record_round(
        RoundEntry(hands=(Hand(), Hand(value=2), Hand(value=2), Hand(value=2)), winner=0), phone="p"
    )
    four_rounds.change_seating(2, [0, 1, 2, 3], seen=now(four_rounds), phone="p")
    added = four_rounds.events.filter(kind=GameEvent.Kind.ADDED).first()
    four_rounds.undo(added, "p")
    # Round 5 gone: the change, from round 6, is kept for when the game gets there.
    assert Game.objects.get(pk=four_rounds.pk).rounds.count() == 4
    assert dealers(four_rounds, range(5, 7)) == ["Ana", "Cyril"]


def test_after_the_last_round_is_deleted_and_entered_again(four_rounds):
    four_rounds.change_seating(2, [0, 2, 1, 3], seen=now(four_rounds))
    play(four_rounds, 2)  # rounds 5 and 6: Cyril, Boris
    last = four_rounds.rounds.get(number=6)
    four_rounds.delete_round(last)
    # Round 6 is dealt by Boris again when entered again; the finished rounds keep theirs.
    assert dealers(four_rounds, range(1, 7)) == ["Ana", "Boris", "Cyril", "Dana", "Cyril", "Boris"]
    play(four_rounds)
    assert dealers(four_rounds, range(1, 8)) == [
        *["Ana", "Boris", "Cyril", "Dana"],
        *["Cyril", "Boris", "Dana"],
    ]
    # Back to round 5, and a new change from there drops the one from round 5 on.
    for number in (6, 5):
        four_rounds.delete_round(four_rounds.rounds.get(number=number))
    assert now(four_rounds) == Seating(2, (0, 2, 1, 3))
    four_rounds.change_seating(1, [0, 1, 2, 3], seen=now(four_rounds))
    assert Game.objects.get(pk=four_rounds.pk).seating == [
        {"from": 5, "dealer": 1, "order": [0, 1, 2, 3]}
    ]


def test_a_change_from_a_round_since_deleted_is_dropped_by_the_next_change(four_rounds):
    play(four_rounds, 2)  # rounds 5, 6
    four_rounds.change_seating(3, [0, 1, 2, 3], seen=now(four_rounds))  # from round 7
    four_rounds.delete_round(four_rounds.rounds.get(number=6))
    four_rounds.delete_round(four_rounds.rounds.get(number=5))
    # Round 5 is next: before the change from round 7.
    assert now(four_rounds) == Seating(0, (0, 1, 2, 3))
    four_rounds.change_seating(1, [0, 1, 2, 3], seen=now(four_rounds))
    assert Game.objects.get(pk=four_rounds.pk).seating == [
        {"from": 5, "dealer": 1, "order": [0, 1, 2, 3]}
    ]


def finish(game: Game) -> None:
    """Ana goes out until the others pass the target."""
    while Game.objects.get(pk=game.pk).status != Status.FINISHED:
        hands = (Hand(), Hand(value=60), Hand(value=60), Hand(value=60))
        game.record_round(RoundEntry(hands=hands, winner=0))


def test_a_rematch_seats_the_players_in_the_order_the_deal_went_and_follows_on(four_rounds):
    four_rounds.change_seating(2, [0, 2, 1, 3], seen=now(four_rounds))
    finish(four_rounds)
    four_rounds = Game.objects.get(pk=four_rounds.pk)
    next_dealer = four_rounds.names[four_rounds.seating_now().dealer]
    rematch = four_rounds.rematch()
    assert rematch.names == ["Ana", "Cyril", "Boris", "Dana"]
    assert rematch.names[rematch.first_dealer] == next_dealer
    assert rematch.seating == []


def test_a_tables_next_game_follows_the_seating_of_its_last(thursday_table):
    table = Table.objects.get(pk=thursday_table.pk)
    game = table.new_game(["Ana", "Boris", "Cyril", "Dana"], first_dealer=0)
    play(game, 2)  # Ana, Boris dealt
    game.change_seating(0, [0, 3, 2, 1], seen=now(game))  # Ana deals round 3, then Dana
    play(game)
    # Dana would deal round 4: she deals first; without her, Cyril after her round the table.
    assert table.deal_follows_on(["ana", "boris", "cyril", "dana"]) == 3
    assert table.deal_follows_on(["ana", "boris", "cyril"]) == 2


def test_a_rematch_at_a_table_keeps_each_member_in_their_new_seat(thursday_table):
    table = Table.objects.get(pk=thursday_table.pk)
    game = table.new_game(["Ana", "Boris", "Cyril", "Dana"], first_dealer=0)
    game.change_seating(1, [1, 0, 3, 2], seen=now(game))
    finish(game)
    again = rematch(Game.objects.get(pk=game.pk))
    members = {member.pk: member.name for member in table.members.all()}
    seated = again.players.order_by("seat")
    assert [members[player.member_id] for player in seated] == ["Boris", "Ana", "Dana", "Cyril"]
    assert again.table_id == table.pk


def test_a_backup_keeps_the_seating_and_so_the_dealers(four_rounds):
    four_rounds.change_seating(2, [0, 2, 1, 3], seen=now(four_rounds))
    play(four_rounds, 3)
    four_rounds = Game.objects.get(pk=four_rounds.pk)
    document = backup.backup_document(four_rounds)
    assert document["backup"]["seating"] == [{"from": 5, "dealer": 2, "order": [0, 2, 1, 3]}]
    before = dealers(four_rounds, range(1, 10))
    Game.objects.all().delete()
    restored = backup.restore(document)
    assert restored.seating == four_rounds.seating
    assert dealers(restored, range(1, 10)) == before
    # The batch restore stores the same.
    Game.objects.all().delete()
    (batched,) = backup.restore_batch([document])
    assert dealers(batched, range(1, 10)) == before


def test_a_backup_without_seating_changes_writes_none(four_rounds):
    assert "seating" not in backup.backup_document(four_rounds)["backup"]


@pytest.mark.parametrize(
    "seating",
    [
        "no",
        [{"from": 5, "dealer": 2}],
        [{"from": 0, "dealer": 2, "order": [0, 1, 2, 3]}],
        [{"from": 5, "dealer": 2, "order": [0, 1, 2, 2]}],
        [{"from": 5, "dealer": 7, "order": [0, 1, 2, 3]}],
        [{"from": 5, "dealer": 2, "order": [0, 1, 2]}],
        [
            {"from": 5, "dealer": 2, "order": [0, 1, 2, 3]},
            {"from": 5, "dealer": 1, "order": [0, 1, 2, 3]},
        ],
    ],
)
def test_a_backup_with_bad_seating_is_refused_in_one_line(four_rounds, seating):
    document = backup.backup_document(four_rounds)
    document["backup"]["seating"] = seating
    Game.objects.all().delete()
    with pytest.raises(ExchangeError) as refused:
        backup.restore(document)
    assert str(refused.value) == backup.SEATING_WRONG
    assert "\n" not in str(refused.value)
    (outcome,) = backup.restore_batch([document])
    assert isinstance(outcome, ExchangeError) and str(outcome) == backup.SEATING_WRONG
    assert not Game.objects.exists()


# The pages


def seating_post(order, dealer, seen: Seating | None = None) -> dict:
    data = {"action": "seating", "dealer": str(dealer)}
    data.update({f"seat_{position}": str(seat) for position, seat in enumerate(order)})
    if seen is not None:
        data["seen_dealer"] = str(seen.dealer)
        data["seen_order"] = ",".join(map(str, seen.order))
    return data


def chosen(answer) -> tuple[list[str], str]:
    """The players shown chosen for each seat, and the one shown dealing next."""
    form = read(answer).one("form.seating-form")
    seats = [
        form.one(f"select[name=seat_{position}] option[selected]").text for position in range(4)
    ]
    return seats, form.one("select[name=dealer] option[selected]").text


@pytest.fixture
def at_round_5(client) -> Game:
    game = Game.start(NAMES)
    for _ in range(4):
        client.post(url("game", game.edit_token), round_post(0, {1: 2, 2: 3, 3: 4}))
    return game


def test_the_players_page_offers_the_seats_and_the_dealer_prefilled(client, at_round_5):
    shown = read(client.get(url("players", at_round_5.edit_token)))
    section = shown.one("section.seating")
    assert section.one("h2").text == "Seats and dealer"
    assert section.texts("label")[:5] == ["Seat 1", "Seat 2", "Seat 3", "Seat 4", "Deals next"]
    assert chosen(shown) == (NAMES, "Ana")
    form = section.one("form")
    assert form.get("method") == "post" and form.get("action") == url(
        "seats", at_round_5.edit_token
    )
    assert form.one("input[name=seen_dealer]").get("value") == "0"
    assert form.one("input[name=seen_order]").get("value") == "0,1,2,3"
    assert [o.text for o in form.select("select[name=seat_0] option")] == NAMES
    # The names' own form is still there, apart.
    assert shown.one("form.players-form input[name=name_0]").get("value") == "Ana"


def test_saving_goes_to_the_game_whose_heading_names_the_new_dealer(client, at_round_5):
    seen = Seating(0, (0, 1, 2, 3))
    response = client.post(
        url("players", at_round_5.edit_token), seating_post([0, 2, 1, 3], 2, seen)
    )
    assert response.status_code == 303
    assert response["Location"] == f"/g/{at_round_5.edit_token}/"
    page = read(client.get(response["Location"]))
    assert page.one("#entry-title").text == "Round 5 · Cyril deals"
    # The round rows keep their dealers.
    assert page.texts("tr[id^=round-] .dealt") == [
        "Dana dealt",
        "Cyril dealt",
        "Boris dealt",
        "Ana dealt",
    ]
    # The page shows the change, ready for another.
    assert chosen(client.get(url("players", at_round_5.edit_token))) == (
        ["Ana", "Cyril", "Boris", "Dana"],
        "Cyril",
    )
    client.post(url("game", at_round_5.edit_token), round_post(0, {1: 2, 2: 3, 3: 4}))
    page = read(client.get(url("game", at_round_5.edit_token)))
    assert page.one("#entry-title").text == "Round 6 · Boris deals"
    assert page.texts("tr[id^=round-] .dealt")[0] == "Cyril dealt"


def test_the_history_page_says_the_change_in_words(client, at_round_5):
    client.post(
        url("players", at_round_5.edit_token),
        seating_post([0, 2, 1, 3], 2, Seating(0, (0, 1, 2, 3))),
    )
    # A later rename: the history names the players as they were called then.
    client.post(
        url("players", at_round_5.edit_token),
        {
            **{
                f"name_{seat}": name
                for seat, name in enumerate(["Ana", "Boris", "Cyrille", "Dana"])
            },
            **{f"seen_{seat}": name for seat, name in enumerate(NAMES)},
        },
    )
    answer = client.get(url("history", at_round_5.edit_token))
    assert answer.status_code == 200
    change = history_change(answer, "Seats and dealer changed · from round 5")
    assert change.one("p.seating").text == "Ana, Cyril, Boris, Dana; Cyril deals"
    assert change.one("p.meta").text == "Before: Ana, Boris, Cyril, Dana; Ana deals"
    assert not change.select("form")


@pytest.mark.parametrize(
    ("order", "dealer", "field", "message"),
    [
        (
            [0, 1, 1, 3],
            0,
            "seat_2",
            "Boris is chosen for two seats and Cyril for none: choose each player for one seat.",
        ),
        ([0, 1, 2, 3], 9, "dealer", "Choose one of the players to deal next."),
    ],
)
def test_a_bad_choice_is_refused_next_to_it_and_kept(
    client, at_round_5, order, dealer, field, message
):
    response = client.post(
        url("players", at_round_5.edit_token), seating_post(order, dealer, Seating(0, (0, 1, 2, 3)))
    )
    assert response.status_code == 200
    shown = read(response)
    select = shown.one(f"form.seating-form select[name={field}]")
    error = select.node.getparent().cssselect(".field-error")
    assert [e.text_content() for e in error] == [message]
    if field == "seat_2":
        assert chosen(response) == (["Ana", "Boris", "Boris", "Dana"], "Ana")
    assert Game.objects.get(pk=at_round_5.pk).seating == []


def test_a_page_older_than_another_phones_change_is_refused_with_409(client, at_round_5):
    seen = Seating(0, (0, 1, 2, 3))
    client.post(url("players", at_round_5.edit_token), seating_post([0, 1, 2, 3], 3, seen))
    response = client.post(
        url("players", at_round_5.edit_token), seating_post([0, 2, 1, 3], 1, seen)
    )
    assert response.status_code == 409
    shown = read(response)
    assert shown.one(".banner.conflict").text == (
        "Seats or the dealer were changed on another phone since this page was loaded, so "
        "nothing was changed here. They are shown below as they are now: choose again if needed."
    )
    # As they are now, to choose again from.
    assert chosen(response) == (NAMES, "Dana")
    assert shown.one("input[name=seen_dealer]").get("value") == "3"
    assert Game.objects.get(pk=at_round_5.pk).seating == [
        {"from": 5, "dealer": 3, "order": [0, 1, 2, 3]}
    ]


def test_sent_twice_from_the_page_changes_once(client, at_round_5):
    data = seating_post([0, 2, 1, 3], 2, Seating(0, (0, 1, 2, 3)))
    assert client.post(url("players", at_round_5.edit_token), data).status_code == 303
    assert client.post(url("players", at_round_5.edit_token), data).status_code == 303
    assert at_round_5.events.filter(kind=GameEvent.Kind.SEATED).count() == 1


def test_a_finished_game_offers_no_seats(client, every_kind_game):
    shown = read(client.get(url("players", every_kind_game.edit_token)))
    assert not shown.select("section.seating")
    response = client.post(
        url("players", every_kind_game.edit_token), seating_post([0, 1, 2, 3], 1)
    )
    assert response.status_code == 409
    assert read(response).one(".banner.conflict").text == (
        "The game is over: start a rematch to play on."
    )


def test_a_game_at_a_table_changes_the_same_way(client, thursday_table):
    game = Table.objects.get(pk=thursday_table.pk).new_game(NAMES, first_dealer=1)
    response = client.post(
        url("players", game.edit_token), seating_post([3, 2, 1, 0], 0, Seating(1, (0, 1, 2, 3)))
    )
    assert response.status_code == 303
    assert read(client.get(url("game", game.edit_token))).one("#entry-title").text == (
        "Round 1 · Ana deals"
    )


def test_deleting_the_last_round_gives_it_back_its_dealer(client, at_round_5):
    client.post(
        url("players", at_round_5.edit_token),
        seating_post([0, 1, 2, 3], 3, Seating(0, (0, 1, 2, 3))),
    )
    client.post(url("game", at_round_5.edit_token), round_post(0, {1: 2, 2: 3, 3: 4}))
    client.post(url("game", at_round_5.edit_token), delete_post(at_round_5, 5))
    page = read(client.get(url("game", at_round_5.edit_token)))
    assert page.one("#entry-title").text == "Round 5 · Dana deals"


@pytest.mark.parametrize("language", ["cs", "sv", "bg", "id"])
def test_the_section_and_its_messages_are_translated(client, at_round_5, language):
    with translation.override(language):
        for code in ("seating_twice", "seating_missing", "seating_changed", "seating_dealer"):
            error = RulesError(code, 1, missing=2)
            assert messages.rules_error_message(error, NAMES) != messages.english(error, NAMES)
    client.cookies["django_language"] = language
    shown = read(
        client.get(url("players", at_round_5.edit_token), headers={"Accept-Language": language})
    )
    assert shown.one("section.seating h2").text != "Seats and dealer"


def test_a_deletion_that_takes_the_next_round_below_a_seating_change_redraws_the_page(four_rounds):
    # Round 5 played, then Cyril and Boris swap from round 6; round 5 deleted: the next round
    # is 5 again, before the change, and the round form's order is the old one: the phones
    # that show the page get it whole, not only the rounds.
    play(four_rounds)
    four_rounds.change_seating(2, [0, 2, 1, 3], seen=now(four_rounds))
    seen = Game.objects.get(pk=four_rounds.pk).version
    four_rounds.delete_round(four_rounds.rounds.get(number=5))
    assert Game.objects.get(pk=four_rounds.pk).changes_since(seen).what == "everything"
    seen = Game.objects.get(pk=four_rounds.pk).version
    play(four_rounds)  # round 5 again: the change holds from round 6, the next
    assert Game.objects.get(pk=four_rounds.pk).changes_since(seen).what == "everything"
