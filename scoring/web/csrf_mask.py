"""The mask of the CSRF token that every page with a form carries, drawn from the thread's
random bytes (web.randomness) instead of Django's 32 reads of the system's randomness, one a
character: 0.36 ms a page on the servers measured, as much as a whole /healthz. Installed in
place of django.middleware.csrf's own _get_new_csrf_string (scoring/apps.py);
tests/test_security.py checks that it still is, and that each character is drawn as evenly as
Django draws it."""

from __future__ import annotations

from django.middleware import csrf

from scoring.web.randomness import choices


def new_csrf_string() -> str:
    """CSRF_SECRET_LENGTH characters of CSRF_ALLOWED_CHARS, each as likely as the others."""
    return choices(csrf.CSRF_ALLOWED_CHARS, csrf.CSRF_SECRET_LENGTH)


def install() -> None:
    """Django's CSRF middleware masks its tokens with new_csrf_string from now on."""
    csrf._get_new_csrf_string = new_csrf_string
