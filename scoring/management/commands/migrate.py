"""`manage.py migrate`: Django's own, its report written as JSON log lines
(scoring/management/logged.py), as rami-migrate.service runs it before every server's start."""

from django.core.management.commands.migrate import Command as DjangoMigrate

from scoring.management.logged import LoggedCommand


class Command(LoggedCommand, DjangoMigrate):
    pass
