"""A table's members and the history of its changes (TableEvent); what a table may hold."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.models.common import RulesField

# The most members a table may have, and the longest name a table may have.
MAX_MEMBERS = 30
# The fewest members who play (not retired) that a table keeps once one has retired or been
# removed: enough for a game.
MIN_ACTIVE = rules.MIN_PLAYERS
MAX_TABLE_NAME_LENGTH = 60


class Member(models.Model):
    """A person of a table: the players of the table's games who are this person point here
    (a guest's player points nowhere)."""

    table = models.ForeignKey("Table", on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=rules.MAX_NAME_LENGTH)
    # rules.name_key(name): what two members of one table must not share.
    name_key = models.CharField(max_length=rules.MAX_NAME_KEY_LENGTH)
    # The order in which the table lists its members.
    position = models.PositiveSmallIntegerField(default=0)
    # A member who left the group: kept in the games they played, the standings and head to
    # head, but not offered for new games; they can come back.
    retired = models.BooleanField(default=False)

    class Meta:
        ordering = ["table", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["table", "name_key"], name="unique_member_per_table"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.name_key = rules.name_key(self.name)
        super().save(*args, **kwargs)


class TableEvent(models.Model):
    """One change to a table itself, kept for its history with when it was made: its rules
    for the next games changed (the rules before and after), a member added, renamed (the
    name before), retired, back, or removed."""

    class Kind(models.TextChoices):
        RULES = "rules", _("Rules for the next games changed")
        JOINED = "joined", _("Member added")
        RENAMED = "renamed", _("Member renamed")
        RETIRED = "retired", _("Member retired")
        RETURNED = "returned", _("Member came back")
        REMOVED = "removed", _("Member removed")

    table = models.ForeignKey("Table", on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # The member's name at the time (it outlives a removed member); a rename's new name.
    name = models.CharField(max_length=rules.MAX_NAME_LENGTH, blank=True)
    # A rename: the member's name before it.
    name_before = models.CharField(max_length=rules.MAX_NAME_LENGTH, blank=True)
    # A change of the rules: the table's rules before and after it (None for another kind).
    rules_before = RulesField(null=True, default=None)
    rules_after = RulesField(null=True, default=None)
    # The table's version after the change.
    version = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.name}".strip()
