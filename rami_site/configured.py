"""Whether the settings load, said in one line: `python -m rami_site.configured` (scripts/serve,
before granian starts) and manage.py ask it first. A setting missing or wrong (DJANGO_SECRET_KEY
unset with DJANGO_DEBUG=false, a RAMI_REDIS_URL that is no Redis address...) is one JSON line on
standard error, as the server's logs (rami_site/logs.py), and exit status 78 (EX_CONFIG, on
which the server's unit in deploy/systemd/ does not restart): not a traceback from every worker
that granian starts again and again."""

import importlib
import json
import os
import sys
from datetime import UTC, datetime

# sysexits.h: a configuration error.
EX_CONFIG = 78


def settings_or_exit() -> None:
    """Load the settings module; on ImproperlyConfigured, say why in one line and exit 78."""
    from django.core.exceptions import ImproperlyConfigured

    name = os.environ.get("DJANGO_SETTINGS_MODULE") or "rami_site.settings"
    try:
        importlib.import_module(name)
    except ImproperlyConfigured as error:
        line = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "level": "CRITICAL",
            "logger": "settings",
            "message": f"not started: {error}",
        }
        sys.stderr.write(json.dumps(line, ensure_ascii=False) + "\n")
        sys.exit(EX_CONFIG)


if __name__ == "__main__":
    settings_or_exit()
