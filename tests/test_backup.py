"""backup_games and restore_games: every game comes back as it was, at the same links."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from scoring.exchange import RoundEntry
from scoring.models import Game
from scoring.rules import Hand

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
    return (game.to_document(), game.view_token, game.first_dealer, game.created_at)


def test_backup_delete_restore_gives_the_same_games_at_the_same_links(games, tmp_path, client):
    before = {game.edit_token: saved(game) for game in games}
    assert run("backup_games", tmp_path) == f"3 games backed up to {tmp_path}\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        f"{token}.json" for token in before
    )

    Game.objects.all().delete()
    assert run("restore_games", tmp_path) == "3 games restored, 0 already there\n"

    after = {game.edit_token: saved(game) for game in Game.objects.all()}
    assert after == before
    for token, (document, *_) in before.items():
        response = client.get(f"/g/{token}/export.json")
        assert response.status_code == 200
        assert json.loads(response.content) == document


def test_a_backup_file_is_the_export_plus_the_links(games, tmp_path):
    run("backup_games", tmp_path)
    game = games[1]
    document = json.loads((tmp_path / f"{game.edit_token}.json").read_text())
    assert document.pop("backup") == {
        "edit_token": game.edit_token,
        "view_token": game.view_token,
        "first_dealer": game.first_dealer,
        "created_at": game.created_at.isoformat(),
    }
    assert document == game.to_document()
    # It holds the edit token, so only its owner may read it.
    assert (tmp_path / f"{game.edit_token}.json").stat().st_mode & 0o777 == 0o600


def test_restoring_twice_changes_nothing(games, tmp_path):
    run("backup_games", tmp_path)
    assert run("restore_games", tmp_path) == "0 games restored, 3 already there\n"
    assert Game.objects.count() == 3


def test_a_backup_file_also_imports_as_a_new_game(games, tmp_path):
    run("backup_games", tmp_path)
    game = games[0]
    link = run("import_game", tmp_path / f"{game.edit_token}.json").strip()
    copy = Game.objects.get(edit_token=link.removeprefix("/g/").strip("/"))
    assert copy.edit_token != game.edit_token
    assert copy.to_document() == game.to_document()


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
    path = tmp_path / f"{games[0].edit_token}.json"
    document = json.loads(path.read_text())
    document["rounds"][0]["hands"]["Boris"] = {"cards": ["1X"]}
    path.write_text(json.dumps(document))
    Game.objects.all().delete()
    out = StringIO()
    with pytest.raises(CommandError, match=f"not restored: {games[0].edit_token}.json"):
        call_command("restore_games", str(tmp_path), stdout=out, stderr=out)
    assert 'round 1, player "Boris": unknown card "1X"' in out.getvalue()
    assert not Game.objects.filter(edit_token=games[0].edit_token).exists()
    assert Game.objects.count() == 2


def test_restore_needs_a_folder(tmp_path):
    with pytest.raises(CommandError, match="is not a folder"):
        run("restore_games", tmp_path / "missing")
