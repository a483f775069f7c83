"""Settings for the Rami score keeper, read from the environment.

Development defaults are safe to run on a laptop; with DJANGO_DEBUG=false the app refuses to
start without DJANGO_SECRET_KEY. docs/deploy.md ("Configuration") describes every variable:
those read here (DJANGO_DEBUG, DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS, DATABASE_URL,
DJANGO_HTTPS, DJANGO_HSTS_PRELOAD, DJANGO_ADMIN, DJANGO_CSRF_TRUSTED_ORIGINS,
RAMI_NEW_GAMES_PER_MINUTE, RAMI_REDIS_URL, RAMI_PUBLIC_URL, RAMI_TRUST_X_FORWARDED_FOR,
RAMI_METRICS_TOKEN and RAMI_BACKUP_FOLDER) and those read by rami_site/asgi.py and scripts/serve.
"""

import os
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool) -> bool:
    """A yes/no variable: 1, true, yes or on mean yes; unset or empty means `default`."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_flag("DJANGO_DEBUG", True)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. With DJANGO_DEBUG=false the app needs a secret key: "
            "export DJANGO_SECRET_KEY as a long random string (make run keeps one in .secret_key)."
        )
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = [
    host.strip() for host in os.environ.get("DJANGO_ALLOWED_HOSTS", "*").split(",") if host.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # naturaltime: "2 minutes ago", "now" (never "0 minutes ago"), in every language.
    "django.contrib.humanize",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "scoring",
]

MIDDLEWARE = [
    # Every answer counted by status, for /metrics (this worker's own counts).
    "rami_site.middleware.CountAnswersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # `Cache-Control: private, no-store` on every URL holding a game's token.
    "rami_site.middleware.TokenPagesNoStoreMiddleware",
    # A database that cannot be reached: a 503 "try again in a moment", not a 500.
    "rami_site.middleware.DatabaseUnavailableMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages gzipped (a 60-round game page: 230 KB of HTML, 12 KB gzipped). Below whitenoise,
    # which serves static files compressed ahead of time and answers before this runs. Django
    # pads each gzipped body with random bytes against BREACH, and masks the CSRF token anew
    # in every response. A live update's stream goes out uncompressed.
    "rami_site.middleware.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session (it may read the language from it), before CommonMiddleware (which
    # may redirect and must do so in the chosen language).
    "django.middleware.locale.LocaleMiddleware",
    # Above the local checks below, whose answers leave out the middleware after them.
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # /healthz, /readyz and /metrics asked on this machine (curl http://127.0.0.1:8001/healthz)
    # are answered whatever ALLOWED_HOSTS says; every other request meets the host check below.
    "rami_site.middleware.LocalChecksMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Names the phone that makes a change to a game, so that its Undo is offered there only.
    "scoring.web.phones.PhoneMiddleware",
    # A refused change (a view raises it) answered with its page and the status of its kind:
    # 409, 429 with Retry-After (scoring/web/http.py).
    "scoring.web.http.RefusalMiddleware",
]

# Django's messages, each notice shown once by a phone whichever of its requests brings it.
MESSAGE_STORAGE = "scoring.web.notices.OnceStorage"

ROOT_URLCONF = "rami_site.urls"
WSGI_APPLICATION = "rami_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                # csp_nonce, which {% htmx_script %} puts on its <script> tag.
                "django.template.context_processors.csp",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite by default; PostgreSQL (or any database dj-database-url knows) through DATABASE_URL.
# An empty DATABASE_URL (as `DATABASE_URL=` in a compose file leaves it) means the default.
# Each thread of a worker keeps its connection for a minute (checked before reuse): opening one
# costs more than an unchanged poll itself (SQLite: about 1.3 ms of 2 ms, its PRAGMAs run on
# every connection; PostgreSQL: a round trip and authentication), bench/RESULTS.md, "An evening".
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=60,
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets phones read while a round is written; IMMEDIATE takes the write lock at the
    # start of a transaction, so two saves queue instead of failing half-way.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # The tests' database is a file of their own run, in a temporary folder: tests/conftest.py,
    # django_db_modify_db_settings.

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Memory caches of each worker process: "default" for the page fragments (templates/scoring/
# game.html), "limits" for the per-client counts of scoring/web/limits.py. Apart, so that a page
# view never evicts a count: LocMemCache culls its oldest entries past MAX_ENTRIES (300 by
# default, about 1,200 page views of fragments). A count is one entry per client, action and
# minute.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "limits": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "rami-limits",
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    },
    # The rows of the round tables (game.html's kept_row), each under a digest of what it
    # shows: after a save the page draws the new row and takes the others from here; a fresh
    # round form (_round_form.html), the same for every save until a player comes or goes;
    # the share panels. Each process's own; a row is about 1.5-2.5 KB, a form about 15 KB,
    # kept compressed (rami_site/caches.py: about 2 KB), so 24,000 (each of 2,000 games'
    # eight shown rows, its form and its share panels, and some to spare) hold at most about
    # 60 MB. Not the default cache (300 fragments): at 2,000 tables its fragments go within
    # seconds, and each save drew its form again (bench/RESULTS.md, "2,000 tables").
    "rows": {
        "BACKEND": "rami_site.caches.CompressedLocMemCache",
        "LOCATION": "rami-rows",
        "OPTIONS": {"MAX_ENTRIES": 24_000, "CULL_FREQUENCY": 10},
    },
    # The live update's answers that the phones of a table share after a save
    # (scoring/live/answers.py): each process's own, its latest 500 (of at most 32 KB each).
    "answers": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "rami-answers",
        "OPTIONS": {"MAX_ENTRIES": 500, "CULL_FREQUENCY": 10},
    },
}
# More than one server (docs/deploy.md, "Several servers"): RAMI_REDIS_URL=redis://host:6379/0
# counts the limits in that Redis (Django's RedisCache), shared by every worker of every server.
# The page fragments stay in each process: a fragment is keyed by a digest of the rows it is
# drawn from (Scoreboard.rounds_key), never stale.
RAMI_REDIS_URL = (os.environ.get("RAMI_REDIS_URL") or "").strip()
if RAMI_REDIS_URL:
    if not RAMI_REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(
            "RAMI_REDIS_URL must be a Redis address, redis://host:port/db, rediss://... or "
            f"unix:///path.sock (it is {RAMI_REDIS_URL!r})."
        )
    CACHES["limits"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": RAMI_REDIS_URL,
        # A Redis that does not answer within a second is taken as away (scoring/web/limits.py
        # then lets the request through), not waited for.
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# Each name in its own language: the switcher shows them to people who may not read the
# current one, so they are deliberately not translated.
LANGUAGES = [
    ("en", "English"),
    ("cs", "Čeština"),
    ("sv", "Svenska"),
    ("bg", "Български"),
    ("id", "Bahasa Indonesia"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Date and time formats where Django's own fall short (bg, id): rami_site/formats/<lang>/.
FORMAT_MODULE_PATH = "rami_site.formats"
# The choice made with the switcher outlives the browser session: a table plays every week.
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
# Only the server reads it (static/scoring/rami.js never looks at cookies).
LANGUAGE_COOKIE_HTTPONLY = True
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed names cached for a year and pre-compressed files; `make` runs collectstatic.
    # Under DEBUG the storage serves plain names, so `make dev` needs no collectstatic.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Security headers. A game's link is its key: no Referer may carry it to another site.
# A game's link is its key: it is never sent to another site. Not "no-referrer": under it
# browsers send "Origin: null" with the app's own form posts, and Django's CSRF check (rightly)
# refuses those; on HTTPS it would also miss the Referer it requires.
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Only our own files; the one inline script allowed is one carrying this response's nonce
# ({% htmx_script %}). No inline styles: htmx is told not to add its own (templates/base.html).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],  # QR codes are data: URLs
    # The live updates' stream and every htmx request: this site only.
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}

# The address that share links and their QR codes use (scoring/web/sharing.py), e.g.
# https://rami.example.org; empty: the address the page was opened at, or this machine's on the
# local network when that was localhost.
RAMI_PUBLIC_URL = os.environ.get("RAMI_PUBLIC_URL", "").strip()

# Origins a form may be posted from besides the address the request names (its Host), e.g.
# https://rami.example.org:8443. A proxy that passes `Host $host` (nginx's usual line) drops
# the port: a page served on a port other than 443 would then fail Django's Origin check, every
# POST a 403. The origin of RAMI_PUBLIC_URL is trusted, and any in DJANGO_CSRF_TRUSTED_ORIGINS
# (comma-separated, each scheme://host[:port]).
CSRF_TRUSTED_ORIGINS = [
    origin.strip().rstrip("/")
    for origin in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",")
    if origin.strip()
]
if RAMI_PUBLIC_URL:
    _public = urlsplit(RAMI_PUBLIC_URL)
    if _public.scheme not in {"http", "https"} or not _public.netloc:
        raise ImproperlyConfigured(
            f"RAMI_PUBLIC_URL must be an address such as https://rami.example.org "
            f"(it is {RAMI_PUBLIC_URL!r})."
        )
    CSRF_TRUSTED_ORIGINS.append(f"{_public.scheme}://{_public.netloc}")
for _origin in CSRF_TRUSTED_ORIGINS:
    if not _origin.startswith(("http://", "https://")):
        raise ImproperlyConfigured(
            "DJANGO_CSRF_TRUSTED_ORIGINS takes origins such as https://rami.example.org:8443 "
            f"(one is {_origin!r})."
        )

# Behind a proxy that terminates HTTPS (and sets X-Forwarded-Proto), DJANGO_HTTPS=true makes
# the cookies secure and tells browsers to use HTTPS only, for a year.
HTTPS = env_flag("DJANGO_HTTPS", False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # A load balancer's health check, and a monitor on this machine, may speak plain HTTP to
    # the app.
    SECURE_REDIRECT_EXEMPT = [r"^(healthz|readyz|metrics)$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 365 * 24 * 60 * 60
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # Asking browsers' preload lists to carry the domain is hard to undo (months): a club that
    # does not own the whole domain says DJANGO_HSTS_PRELOAD=false.
    SECURE_HSTS_PRELOAD = env_flag("DJANGO_HSTS_PRELOAD", True)

# /metrics answers a local request, or one with `Authorization: Bearer <this token>` (any
# other: 404). Empty: local requests only.
RAMI_METRICS_TOKEN = (os.environ.get("RAMI_METRICS_TOKEN") or "").strip()
# The folder scripts/backup writes its backups into (/var/backups/rami), whose newest backup's
# age /metrics and `manage.py stats` tell; empty: not told.
RAMI_BACKUP_FOLDER = (os.environ.get("RAMI_BACKUP_FOLDER") or "").strip()

# The admin (/admin/) only when DJANGO_ADMIN=true: otherwise its URLs do not exist (404).
ADMIN_ENABLED = env_flag("DJANGO_ADMIN", False)

# New games one client (one address) may start per minute, and six times that an hour
# (scoring/web/limits.py, which says why): on the start page, from a table, by a rematch; 0
# means no limit. 100 lets a hall's forty tables behind one address start at once. Counted in
# the "limits" cache: without RAMI_REDIS_URL, a LocMemCache of each worker process, so that the
# limit holds per process and a server with N workers lets a client start up to N times as
# many; with it, across all of them.
_new_games = (os.environ.get("RAMI_NEW_GAMES_PER_MINUTE") or "100").strip()
if not _new_games.isascii() or not _new_games.isdigit():
    raise ImproperlyConfigured(
        f"RAMI_NEW_GAMES_PER_MINUTE must be a whole number, 0 or more (it is {_new_games!r})."
    )
RAMI_NEW_GAMES_PER_MINUTE = int(_new_games)
# A client is its REMOTE_ADDR. Behind a proxy that appends the client's address to
# X-Forwarded-For, every client would share the proxy's address: set this to take the last
# address of that header instead. Never set it without such a proxy: the header is then
# whatever the client writes.
RAMI_TRUST_X_FORWARDED_FOR = env_flag("RAMI_TRUST_X_FORWARDED_FOR", False)

# Limits on what one request may send. The largest form, a round of 6 players, sends at most
# the 108 cards of the deck plus a handful of fields per player; a restored game arrives as an
# uploaded file, which these limits do not count (the importer limits its rounds and cards).
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 400

# One JSON object per line on standard error, for log collectors. Django's own loggers (an
# unhandled error in a request goes to django.request) hand their records to the root logger.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "rami_site.logs.JsonLinesFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django": {"handlers": [], "level": "WARNING", "propagate": True},
        # What the commands whose output is a log say (migrate, backup_games, restore_games,
        # delete_game, delete_table: scoring/management/logged.py), their reports included.
        "manage": {"handlers": [], "level": "INFO", "propagate": True},
    },
}
