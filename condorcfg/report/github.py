"""GitHub Actions workflow commands: one ``::error file=…,line=…,col=…,title=…::message`` per finding.

GitHub shows them as annotations on the pull request.  ``info`` findings become notices.
Property values and messages are escaped as the runner requires (``%``, CR, LF; plus ``:``
and ``,`` in properties).
"""
from __future__ import annotations

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


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
        message = finding.message
        for note in finding.notes:
            message += f"\nnote: {note}"
        if finding.fix:
            message += f"\nhelp: {' '.join(finding.fix.split())}"
        out.append(f"::{_LEVEL.get(finding.severity, 'warning')} {','.join(props)}::{_data(message)}")
    from condorcfg.report.text import summary

    out.append(summary(result))
    return "\n".join(out) + "\n"
