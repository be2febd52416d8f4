"""GitHub Actions workflow commands: one ``::error file=…,line=…,col=…,title=…::message`` per finding.

GitHub shows them as annotations on the pull request.  ``info`` findings become notices.
Every piece of text is made :func:`~condorcfg.textsafe.printable` first (a line break or an
escape sequence inside a value shows as ``\\n`` or ``\\x1b``), then escaped as the runner
requires: ``%``, CR, LF in the message, plus ``:`` and ``,`` in properties.  The only raw line
breaks left are the report's own, between the message and its notes, and those are written as
``%0A``, so each annotation is one line.  The summary line is defused like any text output.
"""
from __future__ import annotations

from condorcfg.textsafe import defuse, printable

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _data(*lines: str) -> str:
    """The message part: lines (each from any text) joined by escaped line breaks."""
    return "%0A".join(_escape(printable(line)) for line in lines)


def _prop(text: str) -> str:
    return _escape(printable(text)).replace(":", "%3A").replace(",", "%2C")


def render(result, view) -> str:
    out = []
    for finding in result.findings:
        props = []
        loc = finding.location
        if loc is not None:
            props.append(f"file={_prop(view.display_path(loc.file))}")
            if loc.line:
                props.append(f"line={loc.line}")
                props.append(f"col={loc.column}")
                if loc.end_line and loc.end_line != loc.line:
                    props.append(f"endLine={loc.end_line}")
                elif loc.end_column:
                    props.append(f"endColumn={loc.end_column}")
        props.append(f"title={_prop(f'{finding.code} {finding.rule}')}")
        lines = [view.message(finding, with_roles=True), *(f"note: {note}" for note in view.notes(finding))]
        if finding.fix:
            lines.append(f"help: {' '.join(finding.fix.split())}")
        out.append(f"::{_LEVEL.get(finding.severity, 'warning')} {','.join(props)}::{_data(*lines)}")
    from condorcfg.report.text import summary

    out.append(defuse(summary(result)))
    return "\n".join(out) + "\n"
