"""Restoring the whole database on PostgreSQL as docs/deploy.md says, on a throwaway cluster of
its own set up as "Installing" sets one up: a superuser (postgres), the app's role `rami`, no
superuser, owning its database. scripts/restore brings a night's database.dump back as `rami`,
so the app's role owns every table and the pages answer; the restore drill does the same with
--into. And the advice that keeps links out of PostgreSQL's log: what `rami` may not set itself,
and what the superuser's settings for it keep out of the log."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

from scripts.throwaway_site import free_port

pytestmark = pytest.mark.slow

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
HERE = settings.BASE_DIR
PSQL = shutil.which("psql") or "psql"


def as_owner(*command: str) -> list[str]:
    """PostgreSQL refuses to run as root: its cluster is then the user postgres's."""
    if os.getuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return list(command)


@dataclass
class Cluster:
    folder: Path
    port: int
    password: str

    def url(self, database: str, role: str = "rami") -> str:
        return f"postgres://{role}:{self.password}@127.0.0.1:{self.port}/{database}"

    def sql(self, query: str, database: str = "postgres", role: str = "postgres") -> str:
        """psql's answer (unaligned, tuples only) as `role`; CalledProcessError on an error."""
        return subprocess.run(  # noqa: S603 (the test's own queries)
            [PSQL, self.url(database, role), "-XAtqv", "ON_ERROR_STOP=1", "-c", query],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()

    def log(self) -> str:
        return (self.folder / "server.log").read_text(errors="replace")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if not (PG_BIN / "pg_ctl").exists():
        pytest.fail(f"no PostgreSQL 15 in {PG_BIN}: apt-get install postgresql-15 (or set PG_BIN)")
    folder = Path(tempfile.mkdtemp(prefix="rami-restore-pg-"))
    password = secrets.token_hex(16)
    (folder / "password").write_text(password + "\n")
    if os.getuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(folder / "password", "postgres", "postgres")
    started = False
    try:
        subprocess.run(  # noqa: S603 (PostgreSQL's own programs)
            as_owner(
                str(PG_BIN / "initdb"),
                f"--pgdata={folder / 'data'}",
                "--username=postgres",
                f"--pwfile={folder / 'password'}",
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            ),
            capture_output=True,
            check=True,
            timeout=120,
        )
        port = free_port()
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off"
        subprocess.run(  # noqa: S603 (PostgreSQL's own programs)
            as_owner(
                str(PG_BIN / "pg_ctl"),
                "start",
                "--wait",
                f"--pgdata={folder / 'data'}",
                f"--log={folder / 'server.log'}",
                f"--options={options}",
            ),
            capture_output=True,
            check=True,
            timeout=120,
        )
        started = True
        made = Cluster(folder, port, password)
        # As docs/deploy.md's "Installing": the app's role, no superuser, owning its database.
        made.sql(f"CREATE ROLE rami LOGIN PASSWORD '{password}'")
        made.sql("CREATE DATABASE rami OWNER rami ENCODING 'UTF8'")
        yield made
    finally:
        if started:
            subprocess.run(  # noqa: S603 (PostgreSQL's own programs)
                as_owner(
                    str(PG_BIN / "pg_ctl"), "stop", f"--pgdata={folder / 'data'}", "-m", "fast"
                ),
                capture_output=True,
                check=False,
                timeout=60,
            )
        shutil.rmtree(folder, ignore_errors=True)


def run(command: list[str], database_url: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 (our own scripts and commands)
        command,
        cwd=HERE,
        env={**os.environ, "DATABASE_URL": database_url, **extra},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def manage(database_url: str, *arguments: str) -> str:
    done = run([sys.executable, "manage.py", *arguments], database_url)
    assert done.returncode == 0, done.stderr
    return done.stdout


# What a server answers, through Django's own handler in a process of the database's settings.
PAGES = textwrap.dedent(
    """
    import os, sys
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")
    import django
    django.setup()
    from django.test import Client
    client = Client(raise_request_exception=False)
    for path in sys.argv[1:]:
        print(path, client.get(path).status_code)
    """
)


def answers(database_url: str, *paths: str) -> dict[str, int]:
    done = run(
        [sys.executable, "-c", PAGES, *paths],
        database_url,
        DJANGO_ALLOWED_HOSTS="testserver",
    )
    assert done.returncode == 0, done.stderr
    return {
        path: int(status)
        for path, status in (line.split() for line in done.stdout.split("\n") if line)
    }


def owners(cluster: Cluster, database: str) -> set[str]:
    """The owners of the tables and sequences of the database's public schema."""
    found = cluster.sql(
        "select distinct pg_get_userbyid(relowner) from pg_class c join pg_namespace n"
        " on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'S')",
        database,
    )
    return set(found.split())


@pytest.fixture(scope="module")
def night(cluster, tmp_path_factory) -> tuple[Path, str, str]:
    """A night's backup made by scripts/backup from the app's database (a table of three
    games, a game of its own, a game deleted on request); with the edit links of the game and
    the table."""
    url = cluster.url("rami")
    manage(url, "migrate", "--no-input", "--verbosity=0")
    game = manage(url, "import_game", "tests/games/every_kind.json").strip()
    table = manage(url, "import_table", "tests/games/thursday_cards.json").strip()
    gone = manage(url, "import_game", "tests/games/every_kind.json").strip()
    manage(url, "delete_game", gone)
    folder = tmp_path_factory.mktemp("backups")
    done = run([str(HERE / "scripts" / "backup"), str(folder)], url)
    assert done.returncode == 0, done.stderr
    [backup] = folder.iterdir()
    assert (backup / "database.dump").stat().st_size > 0
    return backup, game, table


def test_the_docs_pg_restore_as_postgres_leaves_tables_the_app_cannot_read(cluster, night):
    """What happened by the docs before: pg_restore run as postgres makes postgres's tables,
    which the app's role cannot read: /healthz 503, every game page 500."""
    backup, game, _ = night
    cluster.sql("CREATE DATABASE by_hand OWNER rami")
    done = subprocess.run(  # noqa: S603 (PostgreSQL's own program)
        [
            shutil.which("pg_restore") or "pg_restore",
            "--no-owner",
            f"--dbname={cluster.url('by_hand', 'postgres')}",
            str(backup / "database.dump"),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert owners(cluster, "by_hand") == {"postgres"}
    assert answers(cluster.url("by_hand"), "/healthz", game) == {"/healthz": 503, game: 500}


def test_scripts_restore_brings_the_database_back_as_the_apps_own_role(cluster, night):
    backup, game, table = night
    cluster.sql("CREATE DATABASE restored OWNER rami")
    url = cluster.url("restored")
    done = run([str(HERE / "scripts" / "restore"), str(backup)], url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == (
        f"restored {backup / 'database.dump'} as the role rami: 4 games, every table the role's"
    )
    assert owners(cluster, "restored") == {"rami"}
    said = answers(url, "/healthz", game, table, game.replace("/g/", "/v/"))
    assert said == {"/healthz": 200, game: 200, table: 200, game.replace("/g/", "/v/"): 404}
    # The game deleted on request stays deleted: the dump holds its digests as well.
    assert cluster.sql("select count(*) from scoring_deletedlink", "restored") == "1"

    if os.getuid() == 0:
        # Run as another user than the backups' (postgres, as by the docs before): said so.
        other = subprocess.run(  # noqa: S603 (our own script)
            as_owner(str(HERE / "scripts" / "restore"), str(backup)),  # as postgres
            env={**os.environ, "DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert other.returncode == 1
        assert other.stderr.startswith(
            f"restore: cannot read {backup} as postgres: run it as the user the backups belong to"
        )

    # A database that holds tables already is left alone.
    again = run([str(HERE / "scripts" / "restore"), str(backup)], url)
    assert again.returncode == 1
    assert "restore: the database holds" in again.stderr
    assert "tables already: restore into an empty one" in again.stderr


def test_the_restore_drill_restores_the_dump_with_scripts_restore(cluster, night):
    backup, _, _ = night
    cluster.sql("CREATE DATABASE rami_drill OWNER rami")
    done = run(
        [
            sys.executable,
            "-m",
            "scripts.restore_drill",
            str(backup),
            "--into",
            cluster.url("rami_drill"),
        ],
        cluster.url("rami"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "drill: 4 of 4 games back as backed up, at their links, and 1 tables checked, "
        "from database.dump, in the database given"
    ) in done.stdout
    assert "drill: every game came back" in done.stderr
    assert owners(cluster, "rami_drill") == {"rami"}


def test_the_apps_role_settings_keep_links_out_of_postgresqls_log(cluster):
    """A failed query's STATEMENT: line (and a unique key's DETAIL:) quote the query whole, a
    token with it. The app's role may not change what is logged itself; the superuser sets it
    for the role, and the next session logs the error's first line alone."""
    with pytest.raises(subprocess.CalledProcessError) as refused:
        cluster.sql("ALTER ROLE rami SET log_min_error_statement = 'panic'", "rami", "rami")
    assert 'permission denied to set parameter "log_min_error_statement"' in refused.value.stderr

    def fail_with(token: str) -> None:
        with pytest.raises(subprocess.CalledProcessError):
            query = "create temporary table links (token text unique); insert into links values "
            cluster.sql(f"{query} ('{token}'), ('{token}')", "rami", "rami")

    before = secrets.token_urlsafe(24)
    fail_with(before)
    assert "STATEMENT:  create temporary table links" in cluster.log()
    assert before in cluster.log()

    cluster.sql("ALTER ROLE rami SET log_min_error_statement = 'panic'")
    cluster.sql("ALTER ROLE rami SET log_error_verbosity = 'terse'")
    after = secrets.token_urlsafe(24)
    logged = len(cluster.log())
    fail_with(after)
    since = cluster.log()[logged:]
    assert 'duplicate key value violates unique constraint "links_token_key"' in since
    assert after not in since
    assert "STATEMENT:" not in since and "DETAIL:" not in since
    cluster.sql("ALTER ROLE rami RESET ALL")
