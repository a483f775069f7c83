"""Date and time formats where Django's own (django/conf/locale/<lang>/formats.py) fall short
(settings.FORMAT_MODULE_PATH). A format left out here is Django's for the language.

- bg: Django gives no DATETIME_FORMAT, so the history read "Ноем. 30, 2026, 4:14 преди обяд"
  (the American default with Bulgarian words), and its month names are capitalised
  ("Ноември"), which Bulgarian does not do: dates are written in figures, times on 24 hours.
- id: Django's DATE_FORMAT and DATETIME_FORMAT abbreviate the month the American way ("30 Nov.
  2026"): Indonesian writes the month in full and the hour with two digits ("pukul 04.14").
"""
