"""`manage.py stats`: what /metrics tells a monitor, for a person (scoring/web/metrics.py)."""

from django.core.management.base import BaseCommand

from scoring.web import metrics


class Command(BaseCommand):
    help = (
        "Print the games (by status), tables and rounds saved in the database, and the age of "
        "the newest backup in RAMI_BACKUP_FOLDER: what /metrics tells a monitor."
    )

    def handle(self, *args, **options):
        self.stdout.write(metrics.in_words(metrics.read_stats()), ending="")
