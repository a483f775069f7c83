"""Indonesian date and time formats (Django date format syntax): "30 November 2026, 16.14".

Django's own abbreviate the month with a full stop ("30 Nov. 2026"), the American way, and
write "4.14" for 04.14; Indonesian writes the month in full and the hour with two digits, the
minutes after a full stop. Everything not set here is Django's.
"""

DATE_FORMAT = "j F Y"
TIME_FORMAT = "H.i"
DATETIME_FORMAT = "j F Y, H.i"
SHORT_DATETIME_FORMAT = "d-m-Y H.i"
