# ruff: noqa: RUF001, RUF002 (Bulgarian: the Cyrillic letters are meant)
"""Bulgarian date and time formats (Django date format syntax): "2.12.2026 г., 9:05".

Bulgarian writes a date in figures, day first, followed by "г." (година), and the time on
24 hours. Django's Bulgarian month names are capitalised ("Ноември"), so no format below names
a month but the year-and-month one, which starts a phrase anyway.

The dates and times of the pages are written as the phone writes them once rami.js has put them
in its own time zone (Intl's "medium" date and "short" time, CLDR's "d.MM.y 'г'." and "H:mm"):
the day and the hour without a leading zero, the month and the minutes with one. A table's list
of games and a game's history then read "2.12.2026 г." alike, before the script and after it.
"""

DATE_FORMAT = "j.m.Y г."
TIME_FORMAT = "G:i"
DATETIME_FORMAT = "j.m.Y г., G:i"
YEAR_MONTH_FORMAT = "F Y г."
MONTH_DAY_FORMAT = "d.m"
SHORT_DATE_FORMAT = "d.m.Y"
SHORT_DATETIME_FORMAT = "d.m.Y H:i"
FIRST_DAY_OF_WEEK = 1  # Monday

# Python strftime syntax, for forms that read dates.
DATE_INPUT_FORMATS = ["%d.%m.%Y", "%d.%m.%y", "%Y-%m-%d"]
TIME_INPUT_FORMATS = ["%H:%M:%S", "%H:%M:%S.%f", "%H:%M"]
DATETIME_INPUT_FORMATS = [
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%Y %H:%M:%S.%f",
    "%d.%m.%Y %H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M",
]
