#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rami_site.settings")
    # A setting missing or wrong: one line and exit status 78, not a traceback.
    from rami_site.configured import settings_or_exit

    settings_or_exit()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
