# ruff: noqa: RUF001, RUF002 (Bulgarian: the Cyrillic letters are meant)
"""Bulgarian date and time formats (Django date format syntax): "30.11.2026 г., 16:14".

Bulgarian writes a date in figures, day first, followed by "г." (година), and the time on
24 hours. Django's Bulgarian month names are capitalised ("Ноември"), so no format below names
a month but the year-and-month one, which starts a phrase anyway.
"""

DATE_FORMAT = "d.m.Y г."
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "d.m.Y г., H:i"
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
