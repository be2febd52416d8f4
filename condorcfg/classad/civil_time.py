"""Calendar arithmetic for ClassAd times, in one place: ``timegm``/``weekday`` as Python's
``calendar`` module computes them, without importing it (it brings ``locale`` and ``datetime``:
~4 ms of every command's start-up; same results and the same ValueError for dates it refuses,
``tests/test_classad_civil_time.py`` compares them), and the local zone's offset at an instant.
"""
from __future__ import annotations

import time

_DAYS_BEFORE_MONTH = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_EPOCH_ORDINAL = 719163  # date(1970, 1, 1).toordinal()


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _ordinal(year: int, month: int, day: int) -> int:
    """``date(year, month, day).toordinal()`` for a valid date."""
    before = year - 1
    days = before * 365 + before // 4 - before // 100 + before // 400
    return days + _DAYS_BEFORE_MONTH[month] + (month > 2 and _is_leap(year)) + day


def _check(year: int, month: int, day: int) -> None:
    if not 1 <= year <= 9999:
        raise ValueError(f"year {year} is out of range")
    if not 1 <= month <= 12:
        raise ValueError("month must be in 1..12")
    if not 1 <= day <= _DAYS_IN_MONTH[month] + (month == 2 and _is_leap(year)):
        raise ValueError("day is out of range for month")


def timegm(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> int:
    """Seconds since the epoch of a UTC time; ``day``, ``hour``... may run over (added linearly)."""
    _check(year, month, 1)
    days = _ordinal(year, month, 1) - _EPOCH_ORDINAL + day - 1
    return ((days * 24 + hour) * 60 + minute) * 60 + second


def weekday(year: int, month: int, day: int) -> int:
    """0 for Monday ... 6 for Sunday; a year outside 1..9999 counts as its place in the 400-year cycle."""
    if not 1 <= year <= 9999:
        year = 2000 + year % 400
    _check(year, month, day)
    return (_ordinal(year, month, day) + 6) % 7


def local_offset(seconds) -> int:
    """The local zone's UTC offset at that instant, in seconds (0 under TZ=UTC or out of range)."""
    try:
        return time.localtime(int(seconds)).tm_gmtoff or 0
    except (OverflowError, OSError, ValueError):
        return 0
