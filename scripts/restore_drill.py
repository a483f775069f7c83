"""The restore drill: does a backup bring every game back? (docs/deploy.md, "Backups")

    .venv/bin/python -m scripts.restore_drill /var/backups/rami/2026-01-31T040000Z
    .venv/bin/python -m scripts.restore_drill BACKUP --into postgres://rami:…@127.0.0.1/rami_drill

restores the backup's games/ (scripts/backup's folder, or a folder of backup_games) into a
throwaway SQLite database in a temporary folder, never the server's, then checks each file
against what came back: the game at its edit and watch-only links, every round as it was
backed up, each table with its members. With a database.dump beside it (PostgreSQL), it also
checks that pg_restore can read it. With --into an empty PostgreSQL database, it restores the
whole database.dump there with scripts/restore, as the role of that URL (the app's), and checks
the games' files against the database restored instead. It prints what it found and exits
non-zero when anything is missing. tests/test_backup_recipe.py runs it on a backup made by
scripts/backup, tests/test_restore_postgres.py with --into.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def drill(backup: Path, into: str | None = None) -> list[str]:
    """The problems found in restoring `backup` (into the empty PostgreSQL database `into`,
    or a throwaway SQLite one); [] when everything came back."""
    games = backup / "games" if (backup / "games").is_dir() else backup
    dump = backup / "database.dump"
    problems = []
    if into is not None:
        restored = subprocess.run(
            [str(HERE / "scripts" / "restore"), str(backup)],
            env={**os.environ, "DATABASE_URL": into},
            cwd=HERE,
            check=False,
        )
        if restored.returncode != 0:
            return ["scripts/restore failed (above)"]
    with tempfile.TemporaryDirectory(prefix="rami-drill-") as scratch:
        # Settings read once, at setup: the drill's own database, never DATABASE_URL's.
        os.environ["DATABASE_URL"] = into or f"sqlite:///{Path(scratch) / 'drill.sqlite3'}"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")
        import django

        django.setup()
        from django.core.management import call_command

        from scoring.files.backup import FIELD
        from scoring.files.backup_files import game_files, load_file
        from scoring.files.exchange import ExchangeError, export_game
        from scoring.models import Game, Table

        if into is None:
            call_command("migrate", "--no-input", verbosity=0)
            try:
                call_command("restore_games", str(games))
            except Exception as error:  # a CommandError names the files not restored
                problems.append(f"restore_games: {error}")
        files = game_files(games)
        back = 0
        for path in files:
            try:  # read as restore_games reads it: a regular file, within the size limit
                document = load_file(path)
            except ExchangeError as error:
                problems.append(f"{path.name}: {error}")
                continue
            tokens = _fields(document, FIELD)
            game = Game.objects.filter(
                edit_token=tokens.get("edit_token"), view_token=tokens.get("view_token")
            ).first()
            if game is None:
                problems.append(f"{path.name}: not back at its links")
                continue
            backed_up = {key: value for key, value in document.items() if key != FIELD}
            if export_game(game) != backed_up:
                problems.append(f"{path.name}: back, but not as it was backed up")
            else:
                back += 1
        tables = sorted((games / "tables").glob("*.json"))
        for path in tables:
            try:
                document = load_file(path)
            except ExchangeError as error:
                problems.append(f"tables/{path.name}: {error}")
                continue
            tokens = _fields(document, FIELD)
            if not Table.objects.filter(edit_token=tokens.get("edit_token")).exists():
                problems.append(f"tables/{path.name}: not back at its links")
        where = "from database.dump, in the database given" if into else "in a throwaway database"
        print(
            f"drill: {back} of {len(files)} games back as backed up, at their links, and "
            f"{len(tables)} tables checked, {where}"
        )
    if dump.exists() and into is None:
        listed = subprocess.run(
            [shutil.which("pg_restore") or "pg_restore", "--list", str(dump)],
            capture_output=True,
            text=True,
            check=False,
        )
        if listed.returncode != 0:
            problems.append(f"database.dump: pg_restore cannot read it: {listed.stderr.strip()}")
        else:
            print("drill: database.dump reads with pg_restore")
    return problems


def _fields(document: object, name: str) -> dict:
    """The field `name` ("backup") of a file's document, or {} when it has none worth the
    name."""
    fields = document.get(name) if isinstance(document, dict) else None
    return fields if isinstance(fields, dict) else {}


def main() -> int:
    arguments = sys.argv[1:]
    into = None
    if len(arguments) == 3 and arguments[1] == "--into":
        into = arguments.pop()
        arguments.pop()
    if len(arguments) != 1 or arguments[0] in {"-h", "--help"}:
        print(__doc__)
        return 0 if arguments in (["-h"], ["--help"]) else 2
    problems = drill(Path(arguments[0]), into)
    for problem in problems:
        print(f"drill: {problem}", file=sys.stderr)
    print("drill: every game came back" if not problems else "drill: FAILED", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
