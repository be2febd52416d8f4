"""Job router checks (RTR): the removed old-syntax router knobs, route name lists."""
from __future__ import annotations

import re

from condorcfg.lint.checks import check
from condorcfg.lint.checks._util import is_user, raw_span, value


def _items(text):
    return [i for i in re.split(r"[\s,]+", text or "") if i]


_ROUTE_LISTS = {
    "JOB_ROUTER_ROUTE_NAMES": "JOB_ROUTER_ROUTE_{}",
    "JOB_ROUTER_PRE_ROUTE_TRANSFORM_NAMES": "JOB_ROUTER_TRANSFORM_{}",
    "JOB_ROUTER_POST_ROUTE_TRANSFORM_NAMES": "JOB_ROUTER_TRANSFORM_{}",
}


@check
def route_name_undefined(ctx):
    for list_name, pattern in _ROUTE_LISTS.items():
        definition = ctx.config.source(list_name)
        if not is_user(definition):
            continue
        for item in dict.fromkeys(_items(value(ctx, list_name))):
            member = pattern.format(item)
            if ctx.config.source(member) is not None:
                continue
            found = re.search(r"(?<![A-Za-z0-9_])" + re.escape(item) + r"(?![A-Za-z0-9_])", definition.raw or "")
            span = raw_span(ctx, definition, found.start(), found.end()) if found else ctx.value_span(definition)
            yield ctx.finding(f"{list_name} names {item}, but {member} is not defined: the job router skips it",
                              at=definition, span=span, fix=f"define {member}, or remove {item} from {list_name}")
