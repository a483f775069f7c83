"""What a monitor reads of the site (/metrics, in Prometheus's text format) and a person reads
with `manage.py stats`: the games, tables and rounds saved, read from the database when asked,
so that every worker of every server says the same; the age of the newest backup; and what
each worker process counts itself since it started (the answers it sent by status, the new
games and tables it refused by limit), which are that worker's only (docs/deploy.md,
"Monitoring"). The text is for operators, in English, never translated."""

from __future__ import annotations

import math
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db.models import Count

from scoring.models import Game, Round, Table

# The folders scripts/backup makes in its folder, named by their time (UTC), and the file of
# each that it writes last: a backup holds it once it is whole.
BACKUP_NAME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{6}Z")
BACKUP_LAST_FILES = ("database.dump", "database.sqlite3")

_lock = threading.Lock()
_answers: Counter[int] = Counter()  # this process's answers, by status
_refusals: Counter[str] = Counter()  # this process's refusals of a limit, by its code


def count_answer(status: int) -> None:
    """One more answer of this process with `status`."""
    with _lock:
        _answers[status] += 1


def count_refusal(code: str) -> None:
    """One more new game or table this process refused past a limit (`code`: its LimitCode)."""
    with _lock:
        _refusals[code] += 1


def answers() -> dict[int, int]:
    with _lock:
        return dict(_answers)


def refusals() -> dict[str, int]:
    with _lock:
        return dict(_refusals)


@dataclass
class Backup:
    """The newest whole backup of RAMI_BACKUP_FOLDER: its folder and age in seconds (None:
    none there)."""

    folder: Path
    newest: Path | None = None
    age: float | None = None


def newest_backup(folder: str | Path) -> Backup:
    """The newest backup scripts/backup made in `folder` that holds its database's copy (the
    file it writes last), and its age by that file's time."""
    found = Backup(Path(folder))
    try:
        candidates = sorted(
            (path for path in found.folder.iterdir() if BACKUP_NAME.fullmatch(path.name)),
            reverse=True,
        )
    except OSError:
        return found
    for path in candidates:
        for name in BACKUP_LAST_FILES:
            last = path / name
            if last.is_file() and not last.is_symlink():
                found.newest = path
                found.age = max(0.0, time.time() - last.stat().st_mtime)
                return found
    return found


@dataclass
class Stats:
    """The site's numbers, read now."""

    games: dict[str, int] = field(default_factory=dict)  # by status
    tables: int = 0
    rounds: int = 0
    backup: Backup | None = None  # None: RAMI_BACKUP_FOLDER is not set

    @property
    def all_games(self) -> int:
        return sum(self.games.values())


def read_stats() -> Stats:
    """The games by status, the tables and the rounds saved (three queries), and the newest
    backup when RAMI_BACKUP_FOLDER names the folder scripts/backup writes."""
    stats = Stats()
    stats.games = dict(Game.objects.values_list("status").annotate(n=Count("id")).order_by())
    stats.tables = Table.objects.count()
    stats.rounds = Round.objects.count()
    if settings.RAMI_BACKUP_FOLDER:
        stats.backup = newest_backup(settings.RAMI_BACKUP_FOLDER)
    return stats


def exposition(stats: Stats, open_streams: int, ready: bool) -> tuple[bytes, str]:
    """/metrics's body and content type, written by prometheus_client from `stats`, this
    process's counts, its `open_streams` and whether the site is `ready` (/readyz)."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
    from prometheus_client.exposition import CONTENT_TYPE_LATEST

    class Collector:
        def collect(self):
            games = GaugeMetricFamily(
                "rami_games", "Games in the database, by status.", labels=["status"]
            )
            for status in ("playing", "tie_break", "finished"):
                games.add_metric([status], stats.games.get(status, 0))
            yield games
            yield GaugeMetricFamily("rami_tables", "Tables in the database.", value=stats.tables)
            yield GaugeMetricFamily(
                "rami_rounds", "Rounds saved in the database.", value=stats.rounds
            )
            yield GaugeMetricFamily(
                "rami_ready",
                "1 when the site is ready (/readyz: database, migrations, Redis), else 0.",
                value=1 if ready else 0,
            )
            yield GaugeMetricFamily(
                "rami_worker_open_streams",
                "Live streams open on the worker process that answered this scrape.",
                value=open_streams,
            )
            answered = CounterMetricFamily(
                "rami_worker_answers",
                "Answers sent by the worker process that answered this scrape, since it "
                "started, by status.",
                labels=["status"],
            )
            for status, count in sorted(answers().items()):
                answered.add_metric([str(status)], count)
            yield answered
            refused = CounterMetricFamily(
                "rami_worker_refusals",
                "New games and tables refused past a limit by the worker process that "
                "answered this scrape, since it started, by limit.",
                labels=["limit"],
            )
            for code in ("too_many_games", "too_many_tables"):
                refused.add_metric([code], refusals().get(code, 0))
            yield refused
            if stats.backup is not None:
                age = stats.backup.age
                yield GaugeMetricFamily(
                    "rami_backup_age_seconds",
                    "Seconds since the newest whole backup in RAMI_BACKUP_FOLDER was written "
                    "(+Inf: none there).",
                    value=math.inf if age is None else round(age, 1),
                )

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector())
    return generate_latest(registry), CONTENT_TYPE_LATEST


def in_words(stats: Stats) -> str:
    """The same numbers for a person (`manage.py stats`)."""
    games = ", ".join(
        f"{stats.games.get(s, 0)} {s.replace('_', '-')}"
        for s in ("playing", "tie_break", "finished")
    )
    lines = [
        f"games: {stats.all_games} ({games})",
        f"tables: {stats.tables}",
        f"rounds saved: {stats.rounds}",
    ]
    if stats.backup is None:
        lines.append("backups: RAMI_BACKUP_FOLDER is not set")
    elif stats.backup.newest is None:
        lines.append(f"backups: none whole in {stats.backup.folder}")
    else:
        hours = stats.backup.age / 3600
        lines.append(f"newest backup: {stats.backup.newest} ({hours:.1f} h old)")
    lines.append(
        "open streams, answers by status, refusals by limit: each worker's own, at /metrics"
    )
    return "\n".join(lines) + "\n"
