"""What the models of games and tables share: their tokens, their rules (RulesField), a
game's status, and the one lock every change takes (_locked)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from django.db import models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.fields.json import KeyTransform
from django.db.models.query_utils import DeferredAttribute
from django.utils.translation import gettext_lazy as _

from scoring import rules

TOKEN_BYTES = 24  # 192 bits, 32 URL-safe characters
# What a link takes for a token: new_token's characters, and room for a backup's older ones.
TOKEN_PATTERN = "[A-Za-z0-9_-]{22,64}"  # noqa: S105


# A link as a person pastes it: the whole address, its path, or the token alone.
LINK = re.compile(rf"^(?:[a-z]+://[^/]+)?(?:/[gvtw]/)?({TOKEN_PATTERN})/?(?:[?#].*)?$")


def token_of_link(link: str) -> str | None:
    """The token of a game's or a table's link (https://rami.example.org/g/<token>/, /v/<token>/,
    or the token alone), or None when `link` is none of these."""
    found = LINK.match(link.strip())
    return found.group(1) if found else None


def new_token() -> str:
    """A random, URL-safe token that never starts with "-", so that a command line never
    takes it for an option (`manage.py export_game TOKEN`)."""
    while (token := secrets.token_urlsafe(TOKEN_BYTES)).startswith("-"):
        pass
    return token


class _RulesAttribute(DeferredAttribute):
    """Whatever is put into a RulesField, its model's attribute holds a rules.Rules: a new
    object's default ({}) and the stored changes too."""

    def __set__(self, instance, value) -> None:
        if isinstance(value, Mapping):
            value = rules.Rules(**value)
        instance.__dict__[self.field.attname] = value


class RulesField(models.JSONField):
    """House rules (docs/formats.md) as one rules.Rules value, stored as the values that differ from
    the seeds' (Rules.changes()): {} for a game or a table that plays by the players'
    documents, every game stored before house rules among them. RulesError when the stored
    values are not rules."""

    descriptor_class = _RulesAttribute

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("default", dict)
        kwargs.setdefault("blank", True)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        # What the column holds is a plain JSON object: migrations know it as a JSONField, and
        # a historical model (in a data migration) reads the changes as they are stored.
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs

    def from_db_value(self, value, expression, connection):
        value = super().from_db_value(value, expression, connection)
        # One value of the rules read on its own (house_rules__joker) stays that value.
        if isinstance(expression, KeyTransform) or not isinstance(value, Mapping):
            return value
        return rules.Rules(**value)

    def get_prep_value(self, value):
        if isinstance(value, rules.Rules):
            value = value.changes()
        return super().get_prep_value(value)

    def value_from_object(self, obj):
        """The stored changes, for a form (the admin's) and a serializer (dumpdata)."""
        value = super().value_from_object(obj)
        return value.changes() if isinstance(value, rules.Rules) else value

    def validate(self, value, model_instance) -> None:
        if isinstance(value, rules.Rules):
            value = value.changes()
        super().validate(value, model_instance)


class Status(models.TextChoices):
    PLAYING = "playing", _("Playing")
    TIE_BREAK = "tie_break", _("Tie-break round")
    FINISHED = "finished", _("Finished")


@contextmanager
def _locked[Row: models.Model](row: Row) -> Iterator[Row]:
    """Every change's shape (Game._changing, Table._changing): the row locked and read again,
    so that its checks see what other phones did, and still hold when the change is made."""
    with transaction.atomic():
        yield type(row).objects.select_for_update().get(pk=row.pk)


class Columns:
    """The rows of `model` read by a query written in SQL, made into instances as the ORM
    makes them once it has run its query: each column through its field's converters (a date,
    a boolean on SQLite, a JSON field, the rules), then Model.from_db. For a read that every
    request makes, where compiling the ORM's query costs ten times the query (Game.with_players);
    the same values as the ORM's, tests/test_models.py compares them."""

    def __init__(self, model: type[models.Model]) -> None:
        self.model = model
        self.fields = model._meta.concrete_fields
        self.names = [field.attname for field in self.fields]
        self._converters: dict[str, list] = {}

    def select(self, connection: BaseDatabaseWrapper) -> str:
        """The columns, "table"."column", ..., in the order `make` reads them."""
        quote = connection.ops.quote_name
        table = quote(self.model._meta.db_table)
        return ", ".join(f"{table}.{quote(field.column)}" for field in self.fields)

    def make(self, values: tuple, connection: BaseDatabaseWrapper) -> models.Model:
        """The instance of a row's columns read by `select`."""
        converters = self._converters.get(connection.alias)
        if converters is None:
            converters = self._converters[connection.alias] = [
                (ops, column)
                for field in self.fields
                for column in [field.get_col(self.model._meta.db_table)]
                for ops in [
                    connection.ops.get_db_converters(column) + column.get_db_converters(connection)
                ]
            ]
        converted = []
        for value, (ops, column) in zip(values, converters, strict=True):
            for convert in ops:
                value = convert(value, column, connection)
            converted.append(value)
        return self.model.from_db(connection.alias, self.names, converted)
