"""backup_games and restore_games: every game comes back as it was, at the same links."""

import json
import random
import time
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from scoring import models, rules
from scoring.files.backup import FIELD, backup_document, restore
from scoring.files.exchange import ExchangeError, export_game, import_game, loads
from scoring.management.commands import restore_games
from scoring.models import Game, new_token
from scoring.rules import Hand, RoundEntry
from tests.links import url

pytestmark = pytest.mark.django_db


def run(command: str, *arguments) -> str:
    out = StringIO()
    call_command(command, *map(str, arguments), stdout=out, stderr=out)
    return out.getvalue()


@pytest.fixture
def games(every_kind_game) -> list[Game]:
    """A finished game, its rematch (the deal moved on) with one round, and a game not begun."""
    rematch = every_kind_game.rematch()
    hands = (Hand(), Hand(value=12), Hand(cards=("AH", "JK")), Hand(value=3, opened=False))
    rematch.record_round(RoundEntry(hands=hands, winner=0))
    return [every_kind_game, rematch, Game.start(["Ana", "Boris"])]


def saved(game: Game) -> tuple:
    """What a player sees of a game, and what its links and dealer depend on."""
    game.refresh_from_db()
    return (export_game(game), game.view_token, game.first_dealer, game.created_at)


def test_backup_delete_restore_gives_the_same_games_at_the_same_links(games, tmp_path, client):
    before = {game.edit_token: saved(game) for game in games}
    assert run("backup_games", tmp_path) == f"3 games backed up to {tmp_path}\n"
    # Named by number, never by a token: a listing of the folder gives no key away.
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        ["deleted.json", *(f"game-{game.pk}.json" for game in games)]
    )

    Game.objects.all().delete()
    assert run("restore_games", tmp_path) == "3 games restored, 0 already there\n"

    after = {game.edit_token: saved(game) for game in Game.objects.all()}
    assert after == before
    for token, (document, *_) in before.items():
        response = client.get(url("export_json", token))
        assert response.status_code == 200
        assert json.loads(response.content) == document


def test_a_backup_file_is_the_export_plus_the_links(games, tmp_path):
    run("backup_games", tmp_path)
    game = games[1]
    document = json.loads((tmp_path / f"game-{game.pk}.json").read_text())
    assert document.pop("backup") == {
        "edit_token": game.edit_token,
        "view_token": game.view_token,
        "first_dealer": game.first_dealer,
        "created_at": game.created_at.isoformat(),
        # Each round's dealer (docs/rules.md, "The deal"): the rematch's one round, dealt by its
        # first dealer.
        "dealers": [game.first_dealer],
    }
    assert document == export_game(game)
    # It holds the edit token, so only its owner may read it.
    assert (tmp_path / f"game-{game.pk}.json").stat().st_mode & 0o777 == 0o600


def test_restoring_twice_changes_nothing(games, tmp_path):
    run("backup_games", tmp_path)
    assert run("restore_games", tmp_path) == "0 games restored, 3 already there\n"
    assert Game.objects.count() == 3


def test_a_backup_file_also_imports_as_a_new_game(games, tmp_path):
    run("backup_games", tmp_path)
    game = games[0]
    link = run("import_game", tmp_path / f"game-{game.pk}.json").strip()
    copy = Game.objects.get(edit_token=link.removeprefix("/g/").strip("/"))
    assert copy.edit_token != game.edit_token
    assert export_game(copy) == export_game(game)


def test_a_bad_file_is_named_and_the_others_are_restored(games, tmp_path):
    run("backup_games", tmp_path)
    Game.objects.all().delete()
    (tmp_path / "broken.json").write_text('{"format": "rami-game/1",')
    (tmp_path / "export.json").write_text(json.dumps({"format": "rami-game/1", "players": []}))
    out = StringIO()
    with pytest.raises(CommandError, match=r"not restored: broken.json, export.json"):
        call_command("restore_games", str(tmp_path), stdout=out, stderr=out)
    assert "broken.json: not a JSON file" in out.getvalue()
    assert 'export.json: not a backup: no "backup" field' in out.getvalue()
    assert "3 games restored, 0 already there" in out.getvalue()
    assert Game.objects.count() == 3


def test_a_backup_with_a_broken_round_creates_nothing(games, tmp_path):
    run("backup_games", tmp_path)
    path = tmp_path / f"game-{games[0].pk}.json"
    document = json.loads(path.read_text())
    document["rounds"][0]["hands"]["Boris"] = {"cards": ["1X"]}
    path.write_text(json.dumps(document))
    Game.objects.all().delete()
    out = StringIO()
    with pytest.raises(CommandError, match=f"not restored: game-{games[0].pk}.json"):
        call_command("restore_games", str(tmp_path), stdout=out, stderr=out)
    assert 'round 1, player "Boris": Unknown card “1X”' in out.getvalue()
    assert not Game.objects.filter(edit_token=games[0].edit_token).exists()
    assert Game.objects.count() == 2


def test_restore_needs_a_folder(tmp_path):
    with pytest.raises(CommandError, match="is not a folder"):
        run("restore_games", tmp_path / "missing")


# restore_games stores games in bulk (scoring.files.backup.restore_batch): the same rows as
# restore(), which re-creates a game round by round through exchange.import_game.

NAMES = ["Ana", "Boris", "Cyril", "Dana", "Émile", "Fran", "Gül", "Hugo", "Иван", "Zoë"]
PACK = [f"{rank}{suit}" for rank in rules.RANKS for suit in rules.SUITS]
DECK = PACK * rules.COPIES_PER_CARD + [rules.JOKER] * rules.JOKERS_IN_DECK


def random_round(chance: random.Random, names: list[str]) -> dict:
    """A round as a phone would send it: mostly a winner and the cards left in the other hands,
    sometimes typed values, a player who had not opened, a hand rummy or a blocked round."""
    deck = DECK[:]
    chance.shuffle(deck)
    kind = chance.random()
    if kind < 0.08:
        return {"winner": chance.choice(names), "hand_rummy": True}
    blocked = kind < 0.18
    winner = None if blocked else chance.choice(names)
    hands = {}
    for name in names:
        if name != winner:
            if chance.random() < 0.2:
                hands[name] = {"value": chance.randint(2, 90)}
            else:
                hands[name] = {"cards": [deck.pop() for _ in range(chance.randint(1, 9))]}
            if chance.random() < 0.1:
                hands[name]["opened"] = False
    return {"blocked": True, "hands": hands} if blocked else {"winner": winner, "hands": hands}


def random_backup(chance: random.Random, minutes: int = 0) -> dict:
    """A backup file's document of a random game of 2 to 6 players and 6 to 14 rounds (some
    end early and go on past the end, as a game keeps them when an earlier round is edited)."""
    names = chance.sample(NAMES, chance.randint(2, 6))
    document = {
        "format": "rami-game/1",
        "players": names,
        "rounds": [random_round(chance, names) for _ in range(chance.randint(6, 14))],
    }
    document[FIELD] = {
        "edit_token": new_token(),
        "view_token": new_token(),
        "first_dealer": chance.randrange(len(names)),
        "created_at": (
            datetime(2025, 1, 31, 20, tzinfo=UTC) + timedelta(minutes=minutes)
        ).isoformat(),
    }
    return document


def stored(game: Game) -> dict:
    """Every row a restore makes for a game, but ids and the times of the insert."""
    game.refresh_from_db()
    hands = models.Hand.objects.filter(round__game=game).order_by("round__number", "player__seat")
    return {
        "document": export_game(game),
        "backup": backup_document(game),
        "game": (game.status, game.winner_seat, game.next_game_id),
        "players": list(game.players.values_list("seat", "name", "name_key")),
        "rounds": list(
            game.rounds.order_by("number").values_list(
                "number", "winner_seat", "hand_rummy", "revision"
            )
        ),
        "hands": list(
            hands.values_list("round__number", "player__seat", "cards", "value", "opened", "points")
        ),
        # In the order the history shows them, and in the order they were made.
        "history": [event.number for event in game.events.all()],
        "events": list(
            game.events.order_by("pk").values_list(
                "kind", "number", "round__number", "before", "after", "restored", "key"
            )
        ),
    }


def entered(round_: dict) -> dict:
    """A round of an export without the fields that export computes."""
    computed = {"points", "winner", "winners"} if round_.get("blocked") else {"points"}
    return {key: value for key, value in round_.items() if key not in computed}


def restored_by(restore_all, folder) -> dict:
    """Restore the folder into an empty database; every game as stored(), by edit token, and
    each game's version less the clock in milliseconds before the restore and after it."""
    Game.objects.all().delete()
    before = time.time_ns() // 1_000_000
    restore_all(folder)
    after = time.time_ns() // 1_000_000
    games = Game.objects.all()
    versions = {game.edit_token: (game.version - before, game.version - after) for game in games}
    return {game.edit_token: stored(game) for game in games}, versions


def restore_one_by_one(folder) -> None:
    for path in sorted(folder.glob("game-*.json")):
        assert isinstance(restore(loads(path.read_bytes())), Game)


@pytest.fixture
def many_games(games) -> list[Game]:
    """The games of `games`, 12 random ones, a game that went on past its end, one in a
    tie-break and one of 6 players whose names differ from others' by case and accents only;
    first dealers and start times as a backup keeps them."""
    chance = random.Random(2025)
    made = list(games)
    for index in range(12):
        document = random_backup(chance, minutes=index)
        game = import_game(document)
        fields = document[FIELD]
        Game.objects.filter(pk=game.pk).update(
            first_dealer=fields["first_dealer"],
            created_at=datetime.fromisoformat(fields["created_at"]),
        )
        made.append(game)
    past_the_end = {
        "format": "rami-game/1",
        "players": ["Ana", "Boris"],
        "rounds": [
            {"winner": "Ana", "hands": {"Boris": {"value": 120}}},
            {"winner": "Boris", "hands": {"Ana": {"cards": ["KH", "JK"]}}},
        ],
    }
    tie_break = {
        "format": "rami-game/1",
        "players": ["Ana", "Boris", "Cyril"],
        "rounds": [
            {
                "blocked": True,
                "hands": {"Ana": {"value": 2}, "Boris": {"value": 2}, "Cyril": {"value": 200}},
            }
        ],
    }
    names = {
        "format": "rami-game/1",
        "players": ["straße", "STRASSE x", "Émile", "émile2", "İlker", "ilker"],
        "rounds": [{"winner": "ilker", "hand_rummy": True}],
    }
    for document in (past_the_end, tie_break, names):
        made.append(import_game(document))
    Game.objects.filter(pk=made[-1].pk).update(first_dealer=5)
    return made


def test_the_batch_restore_stores_what_the_one_game_restore_does(many_games, tmp_path, monkeypatch):
    original = {game.edit_token: stored(game) for game in many_games}
    assert {entry["game"][0] for entry in original.values()} == {
        "playing",
        "tie_break",
        "finished",
    }
    run("backup_games", tmp_path)

    one_by_one, slow_versions = restored_by(restore_one_by_one, tmp_path)
    # Several transactions of a few games each, as restore_games makes them of 10,000.
    monkeypatch.setattr(restore_games, "BATCH_SIZE", 4)
    in_batches, versions = restored_by(lambda folder: run("restore_games", folder), tmp_path)

    assert in_batches == one_by_one
    assert len(in_batches) == len(many_games)
    # A restore brings back every game as it was, but for its history: one "added" event per
    # round, as if its rounds had just been entered.
    for token, entry in in_batches.items():
        assert entry["document"] == original[token]["document"]
        assert entry["backup"] == original[token]["backup"]
        names = entry["document"]["players"]
        dealers = entry["backup"][FIELD].get("dealers", [])
        assert entry["events"] == [
            ("added", number, number, None, {**entered(round_), "dealer": names[dealer]}, False, "")
            for number, (round_, dealer) in enumerate(
                zip(entry["document"]["rounds"], dealers, strict=True), 1
            )
        ]
        assert entry["history"] == list(range(len(entry["rounds"]), 0, -1))
    # Versions as next_version() moves them, once per round from Game.start's clock: at least
    # the clock before the restore plus the number of rounds, at most the clock after it plus
    # that number.
    for token, entry in in_batches.items():
        rounds = len(entry["rounds"])
        for since_start, since_end in (versions[token], slow_versions[token]):
            assert since_start >= rounds
            assert since_end <= rounds


def restore_folder(folder) -> tuple[str, str]:
    """restore_games' output, and the message it fails with ("" when it does not)."""
    out = StringIO()
    try:
        call_command("restore_games", str(folder), stdout=out, stderr=out)
    except CommandError as error:
        return out.getvalue(), str(error)
    return out.getvalue(), ""


def test_a_view_token_taken_by_another_game_refuses_that_game_only(games, tmp_path):
    run("backup_games", tmp_path)
    Game.objects.all().delete()
    # A game begun since then got the view token of a backed-up one.
    other = Game.start(["Cyril", "Dana"])
    Game.objects.filter(pk=other.pk).update(view_token=games[1].view_token)
    out, failure = restore_folder(tmp_path)
    assert failure == f"not restored: game-{games[1].pk}.json"
    assert f'game-{games[1].pk}.json: "backup": a token belongs to another game' in out
    assert "2 games restored, 0 already there" in out
    assert sorted(Game.objects.values_list("edit_token", flat=True)) == sorted(
        [other.edit_token, games[0].edit_token, games[2].edit_token]
    )
    backed_up = json.loads((tmp_path / f"game-{games[0].pk}.json").read_text())
    restored = Game.objects.get(edit_token=games[0].edit_token)
    assert backup_document(restored) == backed_up


def test_two_files_with_one_view_token_restore_the_first_only(games, tmp_path):
    run("backup_games", tmp_path)
    Game.objects.all().delete()
    copy = json.loads((tmp_path / f"game-{games[0].pk}.json").read_text())
    copy[FIELD]["edit_token"] = new_token()
    (tmp_path / "zz-copy.json").write_text(json.dumps(copy))
    out, failure = restore_folder(tmp_path)
    assert failure == "not restored: zz-copy.json"
    assert 'zz-copy.json: "backup": a token belongs to another game' in out
    assert "3 games restored, 0 already there" in out
    assert Game.objects.count() == 3


def test_a_second_file_of_one_game_is_already_there_unless_the_first_is_refused(games, tmp_path):
    run("backup_games", tmp_path)
    Game.objects.all().delete()
    first, second = (tmp_path / f"game-{game.pk}.json" for game in games[:2])
    (tmp_path / "zz-again.json").write_text(first.read_text())
    broken = json.loads(second.read_text())
    broken["rounds"][0]["winner"] = "Nobody"
    (tmp_path / "0-broken.json").write_text(json.dumps(broken))
    out, failure = restore_folder(tmp_path)
    assert failure == "not restored: 0-broken.json"
    assert '0-broken.json: round 1: "winner": unknown player "Nobody"' in out
    # 0-broken.json comes first and is refused: the good file of the same game is restored.
    assert "3 games restored, 1 already there" in out
    assert Game.objects.count() == 3


def test_an_unsound_file_already_there_is_left_alone_as_restore_leaves_it(games, tmp_path):
    run("backup_games", tmp_path)
    path = tmp_path / f"game-{games[0].pk}.json"
    document = json.loads(path.read_text())
    document["rounds"] = "not rounds"
    path.write_text(json.dumps(document))
    assert restore(document) is None
    assert run("restore_games", tmp_path) == "0 games restored, 3 already there\n"


def test_a_backup_written_before_the_cheapest_card_check_still_restores(db):
    """Hand values of 0 or 1 for a player who did not go out are refused at the table now, but
    games stored before may hold them: their backups and exports must still come back."""
    document = {
        "format": "rami-game/1",
        "players": ["Ana", "Boris", "Cyril"],
        "rounds": [{"winner": "Ana", "hands": {"Boris": {"value": 0}, "Cyril": {"value": 1}}}],
        "backup": {
            "edit_token": "old-game-edit-token-xxxxxxxxxxxx",
            "view_token": "old-game-view-token-xxxxxxxxxxxx",
            "first_dealer": 0,
            "created_at": "2026-01-31T20:15:00+00:00",
        },
    }
    game = restore(document)
    assert game.totals() == [0, 0, 1]


def test_a_backup_whose_watch_only_link_would_edit_is_refused(games, tmp_path):
    """A file whose edit token is its view token too would make its watch-only link edit."""
    run("backup_games", tmp_path)
    Game.objects.all().delete()
    path = tmp_path / f"game-{games[0].pk}.json"
    document = json.loads(path.read_text())
    document[FIELD]["view_token"] = document[FIELD]["edit_token"]
    path.write_text(json.dumps(document))
    out, failure = restore_folder(tmp_path)
    assert failure == f"not restored: {path.name}"
    assert f'{path.name}: "backup": "edit_token" and "view_token" are the same token' in out
    assert not Game.objects.filter(edit_token=games[0].edit_token).exists()
    with pytest.raises(ExchangeError, match="are the same token"):
        restore(document)


@pytest.mark.parametrize("crossed", ["edit_token", "view_token"])
def test_a_token_that_is_another_games_other_token_is_refused(games, tmp_path, crossed):
    """A file's edit token that is another game's watch-only token (or the other way round):
    one of the two links would open the other game."""
    run("backup_games", tmp_path)
    Game.objects.all().delete()
    other = Game.start(["Cyril", "Dana"])
    path = tmp_path / f"game-{games[0].pk}.json"
    document = json.loads(path.read_text())
    document[FIELD][crossed] = other.view_token if crossed == "edit_token" else other.edit_token
    path.write_text(json.dumps(document))
    out, failure = restore_folder(tmp_path)
    assert failure == f"not restored: {path.name}"
    assert f'{path.name}: "backup": a token belongs to another game' in out
    assert "2 games restored" in out
    with pytest.raises(ExchangeError, match="a token belongs to another game"):
        restore(document)
