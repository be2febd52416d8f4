"""Render one rule's documentation page (Markdown) from its YAML entry with ``templates/rule.md.j2``.

Used by ``condorcfg explain``, the SARIF rule help, and ``tools/make_rule_docs.py``.
"""
from __future__ import annotations

from pathlib import Path

_TEMPLATE = None


def render_rule(rule) -> str:
    global _TEMPLATE
    if _TEMPLATE is None:
        import jinja2

        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).with_name("templates"))),
                                 autoescape=False, keep_trailing_newline=True)
        _TEMPLATE = env.get_template("rule.md.j2")
    text = _TEMPLATE.render(rule=rule)
    return "\n".join(line.rstrip() for line in text.strip().splitlines()) + "\n"


def doc_filename(rule) -> str:
    return f"{rule.code}-{rule.name}.md"
