"""The links of games and tables deleted on request (`Game.delete_on_request`,
`Table.delete_on_request`), remembered so that no restore of an older backup brings them back
(scoring/files/backup.py), unless asked for by name (`restore_games --bring-back LINK`).

Remembered by a digest of each token, never the token itself: the list says whether a link was
deleted, and opens nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from django.db import models
from django.db.models import Q


def digest(token: str) -> str:
    """SHA-256 of the token, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


class DeletedLink(models.Model):
    """One game or table deleted on request: the digests of its edit and watch-only tokens."""

    class Kind(models.TextChoices):
        GAME = "game"
        TABLE = "table"

    kind = models.CharField(max_length=5, choices=Kind.choices)
    edit_digest = models.CharField(max_length=64, unique=True)
    view_digest = models.CharField(max_length=64, unique=True)
    deleted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-deleted_at"]

    def __str__(self) -> str:
        return f"{self.kind} deleted {self.deleted_at:%Y-%m-%d %H:%M}"

    @classmethod
    def remember(cls, kind: str, edit_token: str, view_token: str) -> None:
        cls.objects.get_or_create(
            edit_digest=digest(edit_token),
            defaults={"kind": kind, "view_digest": digest(view_token)},
        )

    @classmethod
    def deleted(cls, tokens: Iterable[str]) -> set[str]:
        """Those of `tokens` (edit or watch-only) that are a deleted game's or table's (one
        query)."""
        by_digest = {digest(token): token for token in tokens}
        if not by_digest:
            return set()
        found = cls.objects.filter(
            Q(edit_digest__in=by_digest) | Q(view_digest__in=by_digest)
        ).values_list("edit_digest", "view_digest")
        return {by_digest[d] for pair in found for d in pair if d in by_digest}

    @classmethod
    def forget(cls, token: str) -> bool:
        """Forget the deleted game or table that `token` (its edit or watch-only token) was
        one of, so that a restore brings it back; False when none was deleted."""
        found = cls.objects.filter(Q(edit_digest=digest(token)) | Q(view_digest=digest(token)))
        return found.delete()[0] > 0
