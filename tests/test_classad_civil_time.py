"""civil_time gives what the calendar module gives (the module replaces it to keep start-up short)."""
from __future__ import annotations

import calendar
import random

import pytest

from condorcfg.classad import civil_time


def _outcome(function, *args):
    try:
        return function(*args)
    except (ValueError, OverflowError) as exc:
        return type(exc)


@pytest.mark.parametrize("seed", range(3))
def test_timegm_and_weekday_agree_with_the_calendar_module(seed):
    rand = random.Random(seed)
    for _ in range(3000):
        year = rand.choice([rand.randint(-500, 12000), rand.randint(1899, 2101), 1, 9999, 0, 10000, 1600, 1900, 2000])
        month = rand.choice([rand.randint(1, 12), rand.randint(-2, 14)])
        day = rand.choice([rand.randint(1, 31), rand.randint(-40, 400), 29, 28, 30, 31])
        hour, minute, second = rand.randint(-30, 30), rand.randint(-90, 90), rand.randint(-100, 100)
        assert _outcome(civil_time.timegm, year, month, day, hour, minute, second) == \
            _outcome(calendar.timegm, (year, month, day, hour, minute, second, 0, 0, 0)), (year, month, day)
        assert _outcome(civil_time.weekday, year, month, day) == _outcome(calendar.weekday, year, month, day), \
            (year, month, day)
