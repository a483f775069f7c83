"""WSGI entry point, served by granian (`make run`: scripts/serve)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")

application = get_wsgi_application()
