"""What a CommonMark reader (GitHub's) makes of a line of a pull-request comment: shared by the tests that
check the diff's markdown keeps every string from a configuration inside its code span."""
from __future__ import annotations

import re


def code_spans(line: str) -> tuple[list[str], str]:
    """CommonMark's code spans of one line: (their contents as rendered, the text outside them).
    A backtick run that no run of the same length closes is literal text: returned outside."""
    spans, outside, position = [], [], 0
    while position < len(line):
        if line[position] == "\\" and position + 1 < len(line):
            outside.append(line[position:position + 2])
            position += 2
            continue
        if line[position] != "`":
            outside.append(line[position])
            position += 1
            continue
        run = re.match(r"`+", line[position:]).group()
        closing = re.compile(rf"(?<!`){run}(?!`)")
        end = closing.search(line, position + len(run))
        if end is None:
            outside.append(run)
            position += len(run)
            continue
        content = line[position + len(run):end.start()]
        if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
            content = content[1:-1]
        spans.append(content)
        position = end.end()
    return spans, "".join(outside)
